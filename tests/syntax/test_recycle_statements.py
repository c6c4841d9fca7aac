"""RECOVER, SHOW CATALOG RECYCLE BIN and ADMIN CLEAN TRASH: what the parser produces, and that
to_sql gives it back."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.ast import Literal, TableName
from dorisql.errors import SqlSyntaxError
from dorisql.syntax import parse_one
from dorisql.syntax.generator import to_sql


def p(sql):
    stmt = parse_one(sql, check=False)
    assert parse_one(to_sql(stmt), check=False) == stmt, to_sql(stmt)
    return stmt


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("RECOVER DATABASE example_db", ast.RecoverDatabase("example_db")),
        ("recover schema d 10005 AS d2", ast.RecoverDatabase("d", id=10005, new_name="d2")),
        ("RECOVER TABLE example_db.example_tbl", ast.RecoverTable(TableName("example_tbl", "example_db"))),
        ("RECOVER TABLE t 10010 AS `new t`", ast.RecoverTable(TableName("t"), id=10010, new_name="new t")),
        ("RECOVER PARTITION p1 FROM example_tbl", ast.RecoverPartition("p1", TableName("example_tbl"))),
        (
            "RECOVER PARTITION p1 10011 AS new_p1 FROM db.t",
            ast.RecoverPartition("p1", TableName("t", "db"), id=10011, new_name="new_p1"),
        ),
        ("SHOW CATALOG RECYCLE BIN", ast.ShowCatalogRecycleBin()),
        (
            "SHOW CATALOG RECYCLE BIN WHERE NAME = 'test'",
            ast.ShowCatalogRecycleBin(ast.Comparison("NAME", "=", Literal("test"))),
        ),
        (
            'show catalog recycle bin where name like "t%"',
            ast.ShowCatalogRecycleBin(ast.Comparison("name", "LIKE", Literal("t%"))),
        ),
        ("ADMIN CLEAN TRASH", ast.AdminCleanTrash()),
    ],
)
def test_recycle_bin_statements(sql, expected):
    assert p(sql) == expected


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("RECOVER", "expected one of DATABASE, PARTITION, SCHEMA, TABLE"),
        ("RECOVER PARTITION p1 t", "expected one of AS, FROM, a number"),
        ("RECOVER TABLE t AS", "expected a name"),
        ("ADMIN CLEAN", "expected TRASH"),
    ],
)
def test_incomplete_statements_are_syntax_errors(sql, expected):
    with pytest.raises(SqlSyntaxError) as err:
        parse_one(sql, check=False)
    assert expected in str(err.value)
