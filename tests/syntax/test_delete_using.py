"""DELETE ... USING (Doris's DeleteFromUsingCommand) as the parser reads it: the target, its
partitions and alias, the USING list and the condition as query text; a USING inside
parentheses (CONVERT(x USING utf8)) leaves a plain DELETE a plain DELETE."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.errors import NotSupportedError, SqlSyntaxError
from dorisql.syntax.parser import parse_one


def test_delete_using_keeps_the_join_and_condition_as_query_text():
    stmt = parse_one("DELETE FROM t1 USING t2 INNER JOIN t3 ON t2.id = t3.id WHERE t1.id = t2.id")
    assert stmt == ast.Delete(ast.TableName("t1"), where="t1.id = t2.id", using="t2 INNER JOIN t3 ON t2.id = t3.id")


def test_delete_using_with_database_partitions_and_alias():
    stmt = parse_one("delete from d.t1 partition (p1, p2) x using t2, d.t3 where x.id = t2.id and x.v > 3")
    assert isinstance(stmt, ast.Delete)
    assert (stmt.table, stmt.partitions, stmt.alias) == (ast.TableName("t1", "d"), ("p1", "p2"), "x")
    assert stmt.using == "t2, d.t3" and stmt.where == "x.id = t2.id AND x.v > 3"


def test_using_inside_parentheses_is_no_using_clause():
    stmt = parse_one("DELETE FROM t1 WHERE convert(c USING utf8) = 'a'")
    assert isinstance(stmt, ast.Delete) and stmt.using is None and stmt.alias is None
    assert stmt.where == "convert(c USING utf8) = 'a'"


def test_delete_using_needs_a_where_and_no_temporary_partition():
    with pytest.raises(SqlSyntaxError, match="USING tables WHERE condition"):
        parse_one("DELETE FROM t1 USING t2")
    with pytest.raises(NotSupportedError, match="TEMPORARY PARTITION"):
        parse_one("DELETE FROM t1 TEMPORARY PARTITION (p1) USING t2 WHERE t1.k = t2.k")
