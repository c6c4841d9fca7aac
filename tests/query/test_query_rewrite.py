"""Pure parts of the query layer: Doris's table clauses in the parsed tree, which predicates
reach which table, and the join seam."""

from __future__ import annotations

import pytest
from sqlglot import exp

from dorisql.errors import AnalysisError, NotSupportedError, SqlSyntaxError
from dorisql.query.planner import TableRef, _conjuncts_for, _join_sides, _sources
from dorisql.syntax.dialect import is_temporary, parse_query, partition_names

from .conftest import table


def _table_refs(tree):
    return _sources(tree).tables


def test_partition_clauses_are_read_from_the_tree():
    sql = "SELECT * FROM `t` PARTITIONS (p1, `p2`) x JOIN db.u PARTITION p3 ON x.k = u.k JOIN v PARTITION (p4) ON 1=1"
    refs = _table_refs(parse_query(sql))
    assert [(t.name, t.alias, partition_names(t)) for t in refs] == [
        ("t", "x", ("p1", "p2")),
        ("u", "", ("p3",)),
        ("v", "", ("p4",)),
    ]
    assert refs[1].db == "db"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) FROM t",
        "SELECT `partition` FROM t",
        "SELECT a, partition FROM t WHERE partition = 1",
        "SELECT * FROM t partitions",
        "SELECT * FROM t partitions WHERE partitions.k = 1",
    ],
)
def test_other_uses_of_partition_untouched(sql):
    (t,) = _table_refs(parse_query(sql))
    assert partition_names(t) is None


def test_string_and_comment_text_is_never_a_clause():
    tree = parse_query("SELECT 'FROM t PARTITION (p1)' /* t PARTITION (p2) */ FROM t -- PARTITION p3\n")
    (t,) = _table_refs(tree)
    assert partition_names(t) is None
    assert tree.expressions[0].this == "FROM t PARTITION (p1)"


def test_temporary_partition_names_and_tablet_not_supported():
    (t,) = _table_refs(parse_query("SELECT * FROM t TEMPORARY PARTITION (p1)"))
    assert partition_names(t) == ("p1",) and is_temporary(t)
    (t,) = _table_refs(parse_query("SELECT * FROM t PARTITION (p1)"))
    assert not is_temporary(t)
    with pytest.raises(NotSupportedError, match="TABLET"):
        _sources(parse_query("SELECT * FROM t TABLET (10001)"))


def test_partition_clause_only_after_a_table():
    with pytest.raises(NotSupportedError, match="PARTITION clause"):
        _sources(parse_query("WITH c AS (SELECT 1) SELECT * FROM c PARTITION (p1)"))
    with pytest.raises(SqlSyntaxError):
        parse_query("SELECT * FROM t PARTITION ()")


def test_only_tables_ctes_and_table_functions():
    sources = _sources(
        parse_query(
            'WITH c AS (SELECT * FROM t) SELECT * FROM c JOIN local("file_path" = "x", "format" = "csv") l'
            " ON c.k = l.c1 WHERE c.k IN (SELECT k FROM (u JOIN w ON u.k = w.k))"
        )
    )
    assert [t.name for t in sources.tables] == ["t", "u", "w"]
    assert [t.this.name for t in sources.functions] == ["local"]
    # Spark tables, views and files are never reachable: every name is a dorisql table.
    with pytest.raises(AnalysisError, match="Could not find table function range"):
        _sources(parse_query("SELECT * FROM range(10)"))
    with pytest.raises(NotSupportedError, match="table name"):
        _sources(parse_query("SELECT * FROM a.b.c.d"))
    (t,) = _sources(parse_query("SELECT * FROM `parquet`.`/etc/passwd`")).tables
    assert (t.db, t.name) == ("parquet", "/etc/passwd")  # looked up in the catalog like any table


def _conj(sql):
    tree = parse_query(sql)
    return {(t.alias or t.name): sorted(c.sql() for c in _conjuncts_for(t)) for t in _table_refs(tree)}


def test_conjuncts_inner_and_outer_joins():
    got = _conj("SELECT * FROM a JOIN b ON a.k = b.k AND b.p = 1 WHERE a.p = 2")
    assert got["a"] == got["b"] == sorted(["a.k = b.k", "b.p = 1", "a.p = 2"])
    got = _conj("SELECT * FROM a LEFT JOIN b ON a.k = b.k AND a.p = 1 WHERE b.p IS NULL AND b.q = 3")
    assert "a.p = 1" not in got["a"]  # ON of a LEFT JOIN never filters the left side
    assert "b.p IS NULL" not in got["b"]  # IS NULL also matches rows the join invents
    assert "b.q = 3" in got["b"] and "a.p = 1" in got["b"]
    got = _conj("SELECT * FROM a FULL OUTER JOIN b ON a.p = 1 AND b.p = 1")
    assert got["a"] == got["b"] == []


def test_cte_names_and_subqueries():
    tree = parse_query(
        "WITH c AS (SELECT * FROM t WHERE t.p = 1) SELECT * FROM c JOIN (SELECT * FROM u) s ON c.k = s.k"
    )
    refs = _table_refs(tree)
    assert [t.name for t in refs] == ["t", "u"]
    assert [c.sql() for c in _conjuncts_for(refs[0])] == ["t.p = 1"]
    assert _conjuncts_for(refs[1]) == []
    assert isinstance(refs[0].parent, exp.From)


def _sides(sql):
    refs = [
        TableRef(node=t, meta=table(t.name, []), selected=partition_names(t)) for t in _table_refs(parse_query(sql))
    ]
    return _join_sides(refs)


def test_join_sides_see_both_tables_and_the_condition():
    (sides,) = _sides("SELECT * FROM a PARTITION (p1) x JOIN b ON x.k = b.k AND b.v > 1")
    assert [r.meta.name for r in sides.left] == ["a"] and sides.right.meta.name == "b"
    assert sides.left[0].selected == ("p1",) and sides.left[0].qualifier == "x"
    assert sides.on.sql() == "x.k = b.k AND b.v > 1" and sides.kind == "INNER"
    first, second = _sides("SELECT * FROM a LEFT JOIN b USING (k) JOIN c ON b.k = c.k")
    assert first.kind == "LEFT" and [u.name for u in first.using] == ["k"]
    assert [r.meta.name for r in second.left] == ["a", "b"] and second.right.meta.name == "c"
    # In subqueries too; a join whose inputs are not all tables is Spark's.
    assert [
        (s.left[0].meta.name, s.right.meta.name)
        for s in _sides("SELECT * FROM (SELECT * FROM a JOIN b ON a.k = b.k) s JOIN c ON s.k = c.k")
    ] == [("a", "b")]
    assert _sides("SELECT * FROM a JOIN (SELECT * FROM b) s ON a.k = s.k JOIN c ON a.k = c.k") == []
