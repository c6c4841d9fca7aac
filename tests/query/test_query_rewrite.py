"""Pure parts of the query layer: the PARTITION clause and which predicates reach which table."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from dorisql.engine.query import _conjuncts_for, _strip_partition_clauses, _table_refs
from dorisql.errors import NotSupportedError


def test_strip_partition_clauses_keeps_offsets():
    sql = "SELECT * FROM `t` PARTITIONS (p1, `p2`) x JOIN db.u PARTITION p3 ON x.k = u.k"
    text, found = _strip_partition_clauses(sql)
    assert len(text) == len(sql)
    assert "PARTITION" not in text.upper()
    assert sorted(found.values()) == [("p1", "p2"), ("p3",)]
    tree = sqlglot.parse_one(text, read="doris")
    ends = {t.name: t.this.meta["end"] for t in _table_refs(tree)}
    assert found[ends["t"]] == ("p1", "p2") and found[ends["u"]] == ("p3",)


@pytest.mark.parametrize("sql", [
    "SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) FROM t",
    "SELECT `partition` FROM t",
    "SELECT a, partition FROM t WHERE partition = 1",
])
def test_other_uses_of_partition_untouched(sql):
    assert _strip_partition_clauses(sql) == (sql, {})


def test_temporary_partition_not_supported():
    with pytest.raises(NotSupportedError):
        _strip_partition_clauses("SELECT * FROM t TEMPORARY PARTITION (p1)")


def _conj(sql):
    tree = sqlglot.parse_one(sql, read="doris")
    return {(t.alias or t.name): sorted(c.sql() for c in _conjuncts_for(t)) for t in _table_refs(tree)}


def test_conjuncts_inner_and_outer_joins():
    got = _conj("SELECT * FROM a JOIN b ON a.k = b.k AND b.p = 1 WHERE a.p = 2")
    assert got["a"] == got["b"] == sorted(["a.k = b.k", "b.p = 1", "a.p = 2"])
    got = _conj("SELECT * FROM a LEFT JOIN b ON a.k = b.k AND a.p = 1 WHERE b.p IS NULL AND b.q = 3")
    assert "a.p = 1" not in got["a"]              # ON of a LEFT JOIN never filters the left side
    assert "b.p IS NULL" not in got["b"]           # IS NULL also matches rows the join invents
    assert "b.q = 3" in got["b"] and "a.p = 1" in got["b"]
    got = _conj("SELECT * FROM a FULL OUTER JOIN b ON a.p = 1 AND b.p = 1")
    assert got["a"] == got["b"] == []


def test_cte_names_and_subqueries():
    tree = sqlglot.parse_one(
        "WITH c AS (SELECT * FROM t WHERE t.p = 1) SELECT * FROM c JOIN (SELECT * FROM u) s ON c.k = s.k",
        read="doris")
    refs = _table_refs(tree)
    assert [t.name for t in refs] == ["t", "u"]
    assert [c.sql() for c in _conjuncts_for(refs[0])] == ["t.p = 1"]
    assert _conjuncts_for(refs[1]) == []
    assert isinstance(refs[0].parent, exp.From)
