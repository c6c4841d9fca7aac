"""Property: whatever sequence of loads, DELETEs, compactions (manual, background, full) and queries
runs on a table of any key model, every query returns what a reference computed without compaction returns.

Small on purpose (a few examples, tiny tables, one engine): each step is a real Spark job.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dorisql.compaction import service

from .conftest import rows, run

_names = itertools.count()

DDL = {
    "DUPLICATE": "CREATE TABLE {t} (k INT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
    "UNIQUE": "CREATE TABLE {t} (k INT NOT NULL, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
    "AGGREGATE": "CREATE TABLE {t} (k INT NOT NULL, v INT SUM, r INT REPLACE) AGGREGATE KEY(k) "
    "DISTRIBUTED BY HASH(k) BUCKETS 2",
}


@pytest.fixture(scope="module")
def engine(spark, tmp_path_factory, make_engine):
    eng = make_engine(tmp_path_factory.mktemp("wh"), spark=spark)
    eng.execute_sql("CREATE DATABASE d; USE d")
    for key, value in (
        ("cumulative_compaction_skip_window_seconds", "0"),
        ("min_cumulative_compaction_num_singleton_deltas", "2"),
        ("base_compaction_num_cumulative_deltas", "1"),
        ("cumulative_size_based_promotion_min_size_mbytes", "0"),
        ("cumulative_size_based_compaction_lower_size_mbytes", "0"),
        ("cumulative_size_based_promotion_size_mbytes", "1"),
    ):  # small rowsets move to the base side, so base compactions happen too
        eng.execute_sql(f'ADMIN SET FRONTEND CONFIG ("{key}" = "{value}")')
    yield eng
    eng.close()


def reference(model: str, loads: list[list[tuple[int, int]]]) -> list[tuple]:
    """The table's rows computed from the loads alone."""
    flat = [row for load in loads for row in load]
    if model == "DUPLICATE":
        return sorted(flat)
    latest: dict[int, tuple] = {}
    for k, v in flat:
        if model == "UNIQUE":
            latest[k] = (k, v)
        else:
            s = latest.get(k, (k, 0, None))[1]
            latest[k] = (k, s + v, v)
    return sorted(latest.values())


load_op = st.lists(st.tuples(st.integers(0, 4), st.integers(-5, 9)), min_size=1, max_size=4).map(lambda r: ("load", r))
delete_op = st.integers(0, 4).map(lambda k: ("delete", k))
compact_op = st.sampled_from([("compact", "CUMULATIVE"), ("compact", "BASE"), ("auto", None), ("full", None)])


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(sorted(DDL)),
    ops=st.lists(st.one_of(load_op, load_op, delete_op, compact_op), min_size=3, max_size=7),
)
def test_results_never_change_because_of_compaction(engine, model, ops):
    table = f"t{next(_names)}"
    run(engine, DDL[model].format(t=table))
    meta = engine.catalog.load_table("d", table)
    loads: list[list[tuple[int, int]]] = []
    for op, arg in ops + [("full", None)]:
        if op == "load":
            values = ", ".join(f"({k}, {v}, {v})" if model == "AGGREGATE" else f"({k}, {v})" for k, v in arg)
            run(engine, f"INSERT INTO {table} VALUES {values}")
            loads.append(arg)
        elif op == "delete":  # rows of key `arg` loaded so far are gone; later loads count again
            run(engine, f"DELETE FROM {table} WHERE k = {arg}")
            loads = [[r for r in load if r[0] != arg] for load in loads]
        elif op == "compact":
            run(engine, f"ADMIN COMPACT TABLE {table} PARTITION {table} WHERE type = '{arg}'")
        elif op == "auto":
            service.run_pass(engine)
        else:
            service.full_compaction(engine, meta)
        assert sorted(rows(engine, f"SELECT * FROM {table}")) == reference(model, loads), (op, arg)
