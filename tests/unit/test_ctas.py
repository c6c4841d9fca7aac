"""CTAS column derivation and UPDATE as a query (pure; Doris's CreateTableCommand, UpdateCommand)."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.errors import AnalysisError
from dorisql.syntax import parse
from dorisql.translate.ctas_columns import ctas_columns, ctas_definition, doris_type, query_origins, update_query

V = ast.DataType("VARCHAR", (65533,))


@pytest.mark.parametrize(
    "spark, doris",
    [
        ("integer", ast.DataType("INT")),
        ("long", ast.DataType("BIGINT")),
        ("byte", ast.DataType("TINYINT")),
        ("string", V),
        ("void", ast.DataType("TINYINT")),
        ("decimal(10,2)", ast.DataType("DECIMAL", (10, 2))),
        ("timestamp_ntz", ast.DataType("DATETIME", (6,))),
        ({"type": "array", "elementType": "string", "containsNull": True}, ast.DataType("ARRAY", args=(V,))),
    ],
)
def test_expression_types(spark, doris):
    assert doris_type(spark) == doris


def test_columns_origin_first_string_and_nullability():
    name = ast.ColumnDef("name", ast.DataType("VARCHAR", (20,)), nullable=False)
    note = ast.ColumnDef("note", ast.DataType("STRING"), nullable=True)
    cols = ctas_columns(
        [("note", "string"), ("name", "string"), ("x", "string"), ("n", "integer")], [note, name, None, None]
    )
    assert [(c.name, c.type, c.nullable) for c in cols] == [
        ("note", V, True),  # a first STRING column becomes VARCHAR(65533)
        ("name", ast.DataType("VARCHAR", (20,)), False),  # a table column keeps type and NOT NULL
        ("x", V, True),
        ("n", ast.DataType("INT"), True),  # an expression is nullable
    ]
    definition = ctas_definition(parse("CREATE TABLE t AS SELECT 1")[0], cols)
    assert definition.distribution == ast.DistributedBy("HASH", ("note",), 10) and definition.as_query is None


def test_ctas_head_with_fixed_range_partitions():
    """A fixed range partition's `[(a), (b))` closes its [ with ): the AS after it is still the
    CTAS's (dbt-doris writes its table models' partition_by_init this way)."""
    stmt = parse(
        "CREATE TABLE t DUPLICATE KEY (day) COMMENT 'c' PARTITION BY RANGE (day) ("
        "PARTITION p1 VALUES [('2024-01-01'), ('2024-02-01')), PARTITION p2 VALUES [('2024-02-01'), ('2024-03-01')))"
        " DISTRIBUTED BY HASH (day) BUCKETS 2 AS SELECT day FROM s"
    )[0]
    assert stmt.as_query is not None and stmt.as_query.sql == "SELECT day FROM s"
    assert [(p.name, p.lower, p.upper) for p in stmt.partition.items] == [
        ("p1", ("2024-01-01",), ("2024-02-01",)),
        ("p2", ("2024-02-01",), ("2024-03-01",)),
    ]


def test_query_origins():
    a = (ast.ColumnDef("k", ast.DataType("INT"), nullable=False), ast.ColumnDef("v", ast.DataType("STRING")))
    b = (ast.ColumnDef("k", ast.DataType("INT"), nullable=False), ast.ColumnDef("w", ast.DataType("DATE")))
    tables = {"a": a, "b": b}

    def resolve(t):
        return tables[t.name]

    assert query_origins("SELECT * FROM a", resolve) == list(a)
    got = query_origins("SELECT a.k, w, v || 'x' AS y FROM a JOIN b ON a.k = b.k", resolve)
    assert got == [a[0], b[1], None]
    left = query_origins("SELECT b.k FROM a LEFT JOIN b ON a.k = b.k", resolve)
    assert left is not None and left[0].nullable is True  # the outer side may be NULL
    assert query_origins("SELECT k FROM a UNION ALL SELECT k FROM b", resolve) is None


def _update(sql):
    return parse(sql)[0]


UNIQUE = parse(
    "CREATE TABLE t (k INT NOT NULL, v STRING, ts DATETIME ON UPDATE CURRENT_TIMESTAMP) UNIQUE KEY(k) "
    "DISTRIBUTED BY HASH(k) BUCKETS 1"
)[0]


def test_update_query():
    sql = update_query(_update("UPDATE t SET v = concat(v, 'x') WHERE k > 1"), UNIQUE, "d")
    assert sql == ("SELECT `t`.`k`, CONCAT(v, 'x') AS `v`, CURRENT_TIMESTAMP AS `ts` FROM `d`.`t` WHERE k > 1")
    sql = update_query(_update("UPDATE t a SET a.v = s.v FROM s WHERE a.k = s.k"), UNIQUE, "d")
    assert sql == "SELECT `a`.`k`, s.v AS `v`, CURRENT_TIMESTAMP AS `ts` FROM `d`.`t` AS `a`, s WHERE a.k = s.k"


@pytest.mark.parametrize(
    "sql, message",
    [
        ("UPDATE t SET k = 1", "Only value columns of unique table could be updated"),
        ("UPDATE t SET nope = 1", "unknown column in assignment list: nope"),
        ("UPDATE t a SET t.v = 1", "column in assignment list is invalid, t.v"),
        ("UPDATE t SET other.db.v = 1", "column in assignment list is invalid, other.db.v"),
    ],
)
def test_update_refusals(sql, message):
    with pytest.raises(AnalysisError) as info:
        update_query(_update(sql), UNIQUE, "d")
    assert str(info.value) == message


def test_update_needs_a_unique_table():
    dup = parse("CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")[0]
    with pytest.raises(AnalysisError, match=r"^Only unique table could be updated\.$"):
        update_query(_update("UPDATE t SET v = 1"), dup, "d")


def test_columns_keep_a_source_columns_default_and_comment_only():
    """InternalCatalog.createTableAsSelect: DEFAULT and COMMENT come with a column read as-is;
    its aggregation, AUTO_INCREMENT, ON UPDATE and generation do not; an expression has none."""
    now = ast.Literal("CURRENT_TIMESTAMP", kind="function")
    ts = ast.ColumnDef(
        "ts", ast.DataType("DATETIME"), agg_type="REPLACE", default=now, on_update="CURRENT_TIMESTAMP", comment="at"
    )
    g = ast.ColumnDef("g", ast.DataType("BIGINT"), generated="a + b", auto_increment=True)
    cols = ctas_columns([("ts", "timestamp"), ("g", "long"), ("e", "integer")], [ts, g, None])
    assert [(c.default, c.comment, c.agg_type, c.on_update, c.generated, c.auto_increment) for c in cols] == [
        (now, "at", None, None, None, False),
        (None, None, None, None, None, False),
        (None, None, None, None, None, False),
    ]


def test_columns_an_invalid_label_becomes_col_n():
    """InternalCatalog.createTableAsSelect: a label FeNameFormat refuses is renamed _col<n>, n
    counting only such labels; a valid name and dorisql's reserved names (refused later) stay."""
    cols = ctas_columns(
        [("c1", "string"), ("json_object('a', v1)", "string"), ("x", "integer"), ("to_date('2025')", "date")]
    )
    assert [c.name for c in cols] == ["c1", "_col0", "x", "_col1"]
    assert [c.name for c in ctas_columns([("__partition", "integer")])] == ["__partition"]
