"""Which SELECTs are short-circuit point queries (dorisql.query.short_circuit; pure: no Spark).

A query the short path does not take goes to the Spark path unchanged, so each refusal here is
a query whose answer the pyarrow reader could get wrong or that needs more than a key lookup."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlglot import exp

from dorisql import ast
from dorisql.bucketing.hashing import bucket_of
from dorisql.catalog.model import ViewMeta
from dorisql.query.short_circuit import enabled, explain_lines, point_query
from dorisql.syntax.parser import parse_one

from .conftest import col, rng, table

COLUMNS = [
    col("k", "INT"),
    col("s", "VARCHAR", 8),
    col("d", "DATE"),
    col("t", "DATETIME", 3),
    col("m", "DECIMAL", 9, 2),
    col("f", "FLOAT"),
    col("b", "BOOLEAN"),
]
UNIQUE = table("u", COLUMNS, keys=("k", "s"), model="UNIQUE", dist_cols=("k",), buckets=8)
DUP = table("dup", COLUMNS, keys=("k", "s"), dist_cols=("k", "s"), buckets=8)
AGG = table("agg", [col("k", "INT"), col("v", "BIGINT", agg="SUM")], keys=("k",), model="AGGREGATE")
RANDOM = table("rnd", COLUMNS, keys=("k",), dist="RANDOM")
BY_DAY = table(
    "byday",
    COLUMNS,
    keys=("d", "k"),
    model="UNIQUE",
    part_kind="RANGE",
    part_cols=("d",),
    partitions=[rng("p1", ["2024-01-01"], ["2024-02-01"], buckets=2), rng("p2", ["2024-02-01"], ["2024-03-01"], 4)],
)
MAP = table("withmap", [col("k", "INT"), ast.ColumnDef("m", ast.DataType("MAP", (), (ast.DataType("INT"),) * 2))])
TABLES = {t.name: t for t in (UNIQUE, DUP, AGG, RANDOM, BY_DAY, MAP)}


def plan(sql: str, views=()):
    return point_query(
        sql,
        lambda name: TABLES.get(name.name) if name.db == "db" else None,
        lambda name: (
            ViewMeta(id=1, db="db", name=name.name, query="SELECT 1", columns=()) if name.name in views else None
        ),
        "db",
    )


def test_a_full_key_lookup_is_taken_with_its_tablet_and_typed_values():
    p = plan("SELECT * FROM u WHERE k = 7 AND s = 'x'")
    assert p is not None and p.meta is UNIQUE
    assert p.output == tuple((c.name, c.name) for c in COLUMNS)
    assert dict(p.equalities) == {"k": 7, "s": "x"}
    assert p.partitions == ("u",) and p.buckets == {"u": frozenset({bucket_of([7], ["int"], 8)})}
    # aliases, a qualified column, `t.*`, a value condition, the literal on the left, LIMIT 1
    p = plan("SELECT x.s AS name, K, x.* FROM db.u x WHERE 7 = x.k AND s = 'x' AND m = -1.5 AND b = TRUE LIMIT 1")
    assert p is not None
    assert [h for h, _ in p.output][:2] == ["name", "K"] and len(p.output) == 2 + len(COLUMNS)
    assert dict(p.equalities) == {"k": 7, "s": "x", "m": Decimal("-1.5"), "b": True}
    # the partition comes from the key too
    p = plan("SELECT k FROM byday WHERE d = '2024-02-10' AND k = -3")
    assert p is not None and p.partitions == ("p2",) and dict(p.equalities)["d"] == dt.date(2024, 2, 10)
    assert plan("SELECT t FROM u WHERE k = 1 AND s = 'a' AND t = '2024-01-02 03:04:05.250'").equalities[-1] == (
        "t",
        dt.datetime(2024, 1, 2, 3, 4, 5, 250000),
    )


def test_duplicate_tables_need_their_distribution_columns():
    assert plan("SELECT * FROM dup WHERE k = 1 AND s = 'a'") is not None
    assert plan("SELECT * FROM dup WHERE k = 1") is None  # s is a distribution column
    assert plan("SELECT * FROM dup WHERE k = 1 AND s = 'a' LIMIT 1") is None  # which row: Spark's choice


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM u WHERE k = 7",  # a key column left free
        "SELECT * FROM u WHERE k = 7 OR s = 'x'",
        "SELECT * FROM u WHERE k IN (7) AND s = 'x'",
        "SELECT * FROM u WHERE k > 7 AND s = 'x'",
        "SELECT * FROM u WHERE k = '7' AND s = 'x'",  # a string compared with an INT: Spark's cast
        "SELECT * FROM u WHERE k = 7.0 AND s = 'x'",  # a decimal comparison in Spark
        "SELECT * FROM u WHERE k = 2147483648 AND s = 'x'",  # beyond INT
        "SELECT * FROM u WHERE k = NULL AND s = 'x'",
        "SELECT * FROM u WHERE k = 7 AND s = 7",
        "SELECT * FROM u WHERE k = 7 AND s = 'x' AND m = 1.555",  # more digits than DECIMAL(9,2)
        "SELECT * FROM u WHERE k = 7 AND s = 'x' AND f = 1.5",  # FLOAT: never compared here
        "SELECT * FROM u WHERE k = 7 AND s = 'x' AND d = '2024-1-5'",  # not Doris's canonical text
        "SELECT * FROM u WHERE k = 1 + 6 AND s = 'x'",
        "SELECT k + 1 FROM u WHERE k = 7 AND s = 'x'",
        "SELECT upper(s) FROM u WHERE k = 7 AND s = 'x'",
        "SELECT count(*) FROM u WHERE k = 7 AND s = 'x'",
        "SELECT DISTINCT k FROM u WHERE k = 7 AND s = 'x'",
        "SELECT k FROM u WHERE k = 7 AND s = 'x' ORDER BY k",
        "SELECT k FROM u WHERE k = 7 AND s = 'x' GROUP BY k",
        "SELECT k FROM u WHERE k = 7 AND s = 'x' LIMIT 0",
        "SELECT k FROM u WHERE k = 7 AND s = 'x' LIMIT 1 OFFSET 1",
        "SELECT k FROM u PARTITION (u) WHERE k = 7 AND s = 'x'",
        "SELECT k FROM u TABLET (1) WHERE k = 7 AND s = 'x'",
        "SELECT nope FROM u WHERE k = 7 AND s = 'x'",  # the Spark path names the error
        "SELECT other.k FROM u WHERE k = 7 AND s = 'x'",
        "SELECT u.k FROM u AS x WHERE k = 7 AND s = 'x'",  # an aliased table is named by its alias
        "SELECT k FROM u JOIN dup USING (k) WHERE u.k = 7 AND u.s = 'x'",
        "SELECT k FROM (SELECT * FROM u) x WHERE k = 7 AND s = 'x'",
        "WITH x AS (SELECT * FROM u) SELECT k FROM x WHERE k = 7 AND s = 'x'",
        "SELECT k FROM u WHERE k = 7 AND s = 'x' UNION ALL SELECT 1",
        "SELECT * FROM agg WHERE k = 1",  # AGGREGATE: merged by its aggregations
        "SELECT * FROM rnd WHERE k = 1",  # RANDOM distribution: no bucket from the key
        "SELECT k FROM withmap WHERE k = 1",  # a column type the reader does not show
        "SELECT * FROM missing WHERE k = 1",
        "SELECT * FROM information_schema.tables WHERE table_name = 'u'",
        "SELECT * FROM u WHERE",  # a syntax error: the Spark path reports it
    ],
)
def test_everything_else_goes_to_spark(sql):
    assert plan(sql) is None


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM u WHERE k = 7 AND s = 'x'",
        "SELECT /*+ SET_VAR(query_timeout = 5) */ k AS id FROM u WHERE k = -7 AND s = 'x' LIMIT 1",
        "SELECT name FROM dup WHERE k = 7 AND s = 'x'",
        "SELECT * FROM u WHERE k = 7",
        "SELECT k FROM u WHERE k = 7 AND s = 'x' ORDER BY k",
        "WITH x AS (SELECT * FROM u) SELECT k FROM x WHERE k = 7 AND s = 'x'",
    ],
)
def test_the_parsers_tree_plans_as_the_text_does(sql):
    # the engine hands over the tree the parser read (no second parse): the same decision
    query = parse_one(sql)
    assert isinstance(query, ast.Query) and query.parsed is not None and query.parsed[0] == query.sql
    tree = query.parsed[1]
    assert isinstance(tree, exp.Expr)
    tables = lambda name: TABLES.get(name.name) if name.db == "db" else None  # noqa: E731
    assert point_query(query.sql, tables, None, "db", tree) == plan(sql)


def test_views_go_to_spark_and_the_session_variables_decide():
    assert plan("SELECT * FROM u WHERE k = 7 AND s = 'x'", views=("u",)) is None
    assert enabled({}) and enabled({"enable_short_circuit_query": "true"})
    assert not enabled({"enable_short_circuit_query": "false"})
    assert not enabled({"show_hidden_columns": "true"})


def test_explain_marks_the_scan_short_circuit():
    lines = explain_lines(plan("SELECT k AS id, s FROM byday WHERE d = '2024-01-05' AND k = 3"))
    assert lines[:4] == ["PLAN FRAGMENT 0", "  OUTPUT EXPRS:", "    id", "    s"]
    assert "  0:VOlapScanNode" in lines and "     TABLE: db.byday(byday), PREAGGREGATION: ON" in lines
    assert "     partitions=1/2 (p1)" in lines and "     tablets=1/2" in lines
    assert lines[-1] == "     SHORT-CIRCUIT"


def test_rows_of_a_key_map_to_the_row_groups_holding_them(tmp_path):
    """The reader decodes only the row groups holding the key's rows, at their positions there."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dorisql.tablets.point_read import _groups_of

    path = tmp_path / "f.parquet"
    keys = [5, 1, 5, 2, 3, 4, 9, 5, 8, 7]
    pq.write_table(pa.table({"k": keys, "v": [str(i) for i in range(10)]}), path, row_group_size=3)
    metadata = pq.read_metadata(path)
    assert metadata.num_row_groups == 4
    rows = [i for i, k in enumerate(keys) if k == 5]  # 0, 2 (group 0) and 7 (group 2)
    groups, local = _groups_of(metadata, rows)
    assert groups == [0, 2] and local == [0, 2, 4]
    read = pq.ParquetFile(path).read_row_groups(groups).take(local)
    assert read.column("v").to_pylist() == ["0", "2", "7"]
    assert _groups_of(metadata, []) == ([], [])
    assert _groups_of(metadata, None) == ([0, 1, 2, 3], None)
    assert _groups_of(metadata, [9]) == ([3], [0])


def test_the_caches_keep_their_bounds():
    import pyarrow as pa

    from dorisql.storage.lru import Lru

    cache = Lru(3, max_bytes=200)
    for name in "abc":
        cache.put(name, pa.array(range(10), pa.int64()))  # 80 bytes each: b and c stay
    assert cache.get("a") is None and cache.get("b") is not None and cache.get("c") is not None
    cache.put("b", pa.array(range(2), pa.int64()))  # replaced: its old size no longer counts
    cache.put("d", pa.array(range(10), pa.int64()))
    assert all(cache.get(n) is not None for n in "bcd")
    counted = Lru(2)
    for n in range(5):
        counted.put(n, object())
    assert counted.get(2) is None and counted.get(3) is not None and counted.get(4) is not None
