"""Short-circuit point queries (dorisql.query.short_circuit, dorisql.tablets.point_read): the
same answers as the Spark path, on every key model, across loads, DELETEs and schema changes,
and no Spark at all on the way."""

from __future__ import annotations

import itertools
import threading
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dorisql import ast
from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.errors import AccessDeniedError, DorisqlError
from dorisql.result import render_value
from dorisql.server import wire

from .conftest import rows, run

_names = itertools.count()

#: k1 fixes the partition, (k1, k2) the bucket; every scalar type the short path reads.
_COLUMNS = (
    "k1 INT NOT NULL, k2 VARCHAR(8) NOT NULL, d DECIMAL(9,3), t DATETIME(3), day DATE, f FLOAT, "
    "b BOOLEAN, big LARGEINT, s STRING"
)
_TAIL = """PARTITION BY RANGE(k1) (PARTITION p0 VALUES LESS THAN ("2"), PARTITION p1 VALUES LESS THAN ("100"))
    DISTRIBUTED BY HASH(k1, k2) BUCKETS 3 PROPERTIES ("replication_num" = "1"{extra})"""
DDL = {
    "DUPLICATE": f"CREATE TABLE {{t}} ({_COLUMNS}) DUPLICATE KEY(k1, k2) {_TAIL.format(extra='')}",
    "UNIQUE_MOR": f"CREATE TABLE {{t}} ({_COLUMNS}) UNIQUE KEY(k1, k2) "
    + _TAIL.format(extra=', "enable_unique_key_merge_on_write" = "false"'),
    "UNIQUE": f"CREATE TABLE {{t}} ({_COLUMNS}) UNIQUE KEY(k1, k2) {_TAIL.format(extra='')}",
    "AGGREGATE": "CREATE TABLE {t} (k1 INT NOT NULL, k2 VARCHAR(8) NOT NULL, d DECIMAL(9,3) REPLACE, "
    "t DATETIME(3) REPLACE, day DATE REPLACE, f FLOAT MAX, b BOOLEAN REPLACE, big LARGEINT SUM, s STRING REPLACE) "
    f"AGGREGATE KEY(k1, k2) {_TAIL.format(extra='')}",
}
KEYS = [(k1, k2) for k1 in range(4) for k2 in ("a", "b")]


def _value(column: str, n: int) -> str:
    return {
        "d": f"{n}.125",
        "t": f"'2024-03-0{1 + n % 9} 10:11:12.{n % 1000:03d}'",
        "day": f"'2024-0{1 + n % 9}-15'",
        "f": f"{n}.3",
        "b": "true" if n % 2 else "false",
        "big": str(17014118346046923173168730371588410 + n),
        "s": "NULL" if n % 3 == 0 else f"'v{n}'",
        "extra": str(n),
    }[column]


def _shown(result) -> tuple:
    return (
        list(result.columns),
        list(result.column_types),
        sorted(tuple(render_value(v) for v in row) for row in result.rows),
    )


def _point(engine, sql: str, short: bool):
    run(engine, f"SET enable_short_circuit_query = {'true' if short else 'false'}")
    try:
        return run(engine, sql)
    finally:
        run(engine, "SET enable_short_circuit_query = true")


load_op = st.lists(st.tuples(st.sampled_from(KEYS), st.integers(0, 999)), min_size=1, max_size=5).map(
    lambda r: ("load", r)
)
delete_op = st.sampled_from(
    [("delete", "k1 = 1"), ("delete", "k2 = 'a'"), ("delete", "k1 = 2 AND k2 = 'b'"), ("delete", "b = true")]
)
schema_op = st.sampled_from([("schema", 'ADD COLUMN extra INT DEFAULT "7"'), ("schema", "DROP COLUMN s")])
compact_op = st.sampled_from([("compact", "CUMULATIVE"), ("compact", "BASE")])


#: Every table starts so: keys loaded twice (a merge to do), a DELETE, a column added, a compaction.
PRELUDE = [
    ("load", [((k1, k2), 10 * k1 + len(k2)) for k1, k2 in KEYS]),
    ("load", [((1, "a"), 21), ((2, "b"), 22), ((0, "b"), 23), ((1, "a"), 24)]),
    ("delete", "k1 = 0 AND k2 = 'b'"),
    ("schema", 'ADD COLUMN extra INT DEFAULT "7"'),
    ("compact", "BASE"),
]


@pytest.mark.parametrize("model", sorted(DDL))
@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ops=st.lists(st.one_of(load_op, load_op, delete_op, schema_op, compact_op), min_size=1, max_size=3))
def test_short_circuit_answers_as_the_spark_path(engine, model, ops):
    table = f"pq{next(_names)}"
    run(engine, DDL[model].format(t=table))
    columns = ["k1", "k2", "d", "t", "day", "f", "b", "big", "s"]
    for op, arg in [*PRELUDE, *ops, ("load", [((3, "b"), 5), ((0, "a"), 6)])]:
        if op == "load":
            values = ", ".join(
                "(" + ", ".join([str(k1), f"'{k2}'", *(_value(c, n) for c in columns[2:])]) + ")" for (k1, k2), n in arg
            )
            run(engine, f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values}")
        elif op == "compact":  # files named by version range, delete versions retired by BASE
            run(engine, f"ADMIN COMPACT TABLE {table} PARTITION p1 WHERE type = '{arg}'")
        elif op == "delete":
            if model == "AGGREGATE" and "b =" in arg:
                continue  # Doris: a value column of an AGGREGATE table in DELETE is refused
            run(engine, f"DELETE FROM {table} WHERE {arg}")
        elif "ADD" in arg and "extra" not in columns:
            added = arg.replace("INT", "INT REPLACE") if model == "AGGREGATE" else arg
            run(engine, f"ALTER TABLE {table} {added}")
            columns.append("extra")
        elif "DROP" in arg and "s" in columns:
            run(engine, f"ALTER TABLE {table} {arg}")
            columns.remove("s")
    # the Spark path's whole table (one job), to hold every point answer against
    whole = _point(engine, f"SELECT * FROM {table}", short=False)
    for k1, k2 in [*KEYS, (7, "a"), (1, "zz")]:
        sql = f"SELECT * FROM {table} WHERE k2 = '{k2}' AND k1 = {k1}"
        short = run(engine, sql)
        expected = sorted(tuple(render_value(v) for v in r) for r in whole.rows if r[0] == k1 and r[1] == k2)
        assert _shown(short) == (list(whole.columns), list(whole.column_types), expected), (model, ops, k1, k2)
        plan = "\n".join(r[0] for r in rows(engine, f"EXPLAIN {sql}"))
        assert ("SHORT-CIRCUIT" in plan) == (model != "AGGREGATE"), plan
    # one point query both ways, with aliases and a value condition: the same headers, types, rows
    k1, k2 = 3, "b"
    sql = f"SELECT k2 AS key2, {columns[-1]}, T, d FROM {table} WHERE k1 = {k1} AND k2 = '{k2}' AND d = 5.125"
    assert _shown(_point(engine, sql, short=True)) == _shown(_point(engine, sql, short=False))


def test_a_point_query_starts_no_spark(engine, tmp_path):
    """An engine whose Spark would fail answers point queries and EXPLAINs them; what needs
    Spark still fails there, so the short path really ran without it."""
    run(engine, DDL["UNIQUE_MOR"].format(t="nospark"))
    run(engine, "INSERT INTO nospark (k1, k2, d, s) VALUES (1, 'a', 1.5, 'x'), (3, 'b', 2.5, 'y')")
    run(engine, "INSERT INTO nospark (k1, k2, d, s) VALUES (1, 'a', 9.5, 'z')")
    run(engine, "DELETE FROM nospark WHERE k1 = 3")
    asked = threading.Event()

    def no_spark(_cancelled):
        asked.set()
        raise RuntimeError("this engine has no Spark")

    bare = Engine(Config(warehouse=str(engine.warehouse), master="local[2]"), spark_source=no_spark)
    try:
        bare.execute_sql("USE d")
        assert rows(bare, "SELECT k1, d, s AS v FROM nospark WHERE k1 = 1 AND k2 = 'a'") == [
            (1, pytest.approx(9.5), "z")
        ]
        assert rows(bare, "SELECT * FROM nospark WHERE k1 = 3 AND k2 = 'b'") == []
        # a prepared statement's COM_STMT_EXECUTE: its parameters bound into the text, as the server does
        template = "SELECT s FROM nospark WHERE k1 = ? AND k2 = ? AND d = ?"
        marks = [i for i, ch in enumerate(template) if ch == "?"]
        assert rows(bare, wire.bind(template, marks, [1, "a", Decimal("9.5")])) == [("z",)]
        assert rows(bare, wire.bind(template, marks, [1, "a", Decimal("1.5")])) == []
        assert "SHORT-CIRCUIT" in "\n".join(
            r[0] for r in rows(bare, "EXPLAIN SELECT * FROM nospark WHERE k1 = 1 AND k2 = 'a'")
        )
        # privileges as for any SELECT: none on the table, no row and no plan
        run(engine, "CREATE USER 'pq'@'%' IDENTIFIED BY 'pw'")
        bare.user = ast.UserIdentity("pq", "%")
        point = "SELECT * FROM nospark WHERE k1 = 1 AND k2 = 'a'"
        for sql in (point, f"EXPLAIN {point}"):
            with pytest.raises(AccessDeniedError):
                run(bare, sql)
        run(engine, "GRANT SELECT_PRIV ON d.nospark TO 'pq'@'%'")
        assert [r[:2] for r in rows(bare, point)] == [(1, "a")]
        assert not asked.is_set()
        # a key not fixed: the Spark path, which this engine lacks
        with pytest.raises(DorisqlError):
            rows(bare, "SELECT * FROM nospark WHERE k1 = 1")
        assert asked.is_set()
    finally:
        bare.close()


@pytest.mark.parametrize("mow", ["false", "true"])
def test_the_sequence_column_decides_on_the_short_path_too(engine, mow):
    """function_column.sequence_col: the row of the larger sequence value wins whatever the load
    order, a NULL being the smallest; the short path's answer is the Spark path's."""
    table = f"seq_{mow}"
    run(
        engine,
        f"CREATE TABLE {table} (k INT NOT NULL, v VARCHAR(8), s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 "
        f'PROPERTIES ("function_column.sequence_col" = "s", "enable_unique_key_merge_on_write" = "{mow}")',
    )
    run(engine, f"INSERT INTO {table} VALUES (1, 'new', 5), (2, 'kept', NULL), (3, 'first', 1)")
    run(engine, f"INSERT INTO {table} VALUES (1, 'old', 3), (2, 'later', NULL), (3, 'second', 2)")
    for k, expected in [(1, "new"), (2, "later"), (3, "second")]:
        sql = f"SELECT v FROM {table} WHERE k = {k}"
        assert rows(engine, sql) == [(expected,)], (mow, k)
        assert _shown(_point(engine, sql, short=False)) == _shown(run(engine, sql))
