"""BUCKETS AUTO with real data (Spark + Delta): subsequent partitions take their estimate from
the stored sizes of up to 7 earlier partitions, so one table holds partitions with different
bucket counts; loads route rows by each partition's own count, and queries prune and read them
correctly.

With test-sized data every history-based estimate is far below 100MB, so every auto-subsequent
partition gets N = 1. The tests therefore check the *mechanism* exactly (the history read from
the Delta log, the EMA rule, the recorded decision), recomputing the expectation with
dorisql.bucketing.auto_buckets from the sizes in the Delta log, and get different counts per partition
from the initial estimate (20 buckets) versus the history (1 bucket) and from ADD PARTITION
... BUCKETS n.
"""

from __future__ import annotations

import datetime as dt
import os
from urllib.parse import unquote

import pyarrow.parquet as pq
import pytest

from dorisql.bucketing import auto_buckets as auto
from dorisql.bucketing.hashing import bucket_of
from dorisql.jobs import scheduler
from dorisql.statements.ddl.bucket_counts import topology
from dorisql.storage.delta import DeltaStore
from dorisql.tablets.tables import meta_dir

DAY0 = dt.date(2024, 1, 1)


@pytest.fixture
def engine(tmp_path, spark, make_engine):
    e = make_engine(tmp_path / "wh", spark=spark)
    e.execute_sql("CREATE DATABASE db; USE db;")
    e.execute_sql(
        'ADMIN SET FRONTEND CONFIG ("cluster_backends" = "3", '
        '"cluster_disks_per_backend" = "2", "cluster_disk_capacity" = "500G")'
    )  # M = 60
    return e


def rows_of(engine, sql):
    return engine.execute_sql(sql)[-1].rows


def explain(engine, sql) -> str:
    return "\n".join(r[0] for r in rows_of(engine, "EXPLAIN " + sql))


def stored_sizes(engine, table: str) -> dict[str, int]:
    """Bytes per partition, summed straight from the files of the latest Delta snapshot."""
    meta = engine.catalog.load_table("db", table)
    names = {key: name for name, key in meta.partition_keys().items()}
    sizes: dict[str, int] = {}
    for f in DeltaStore(meta_dir(engine.warehouse, meta)).snapshot().files:
        sizes[names[f.partition]] = sizes.get(names[f.partition], 0) + f.size
    return sizes


def check_routing(engine, table: str) -> int:
    """Every stored row sits in bucket pmod(hash(k), <its partition's bucket count>)."""
    meta = engine.catalog.load_table("db", table)
    counts = {meta.partition_key(p): p.buckets for p in meta.partitions}
    location = meta_dir(engine.warehouse, meta)
    checked = 0
    for f in DeltaStore(location).snapshot().files:
        keys = pq.read_table(os.path.join(location, unquote(f.path)), columns=["k"]).column("k").to_pylist()
        for k in keys:
            assert bucket_of([k], ["int"], counts[f.partition]) == f.bucket, (f.partition, k)
        assert 0 <= f.bucket < counts[f.partition]
        checked += len(keys)
    return checked


def values(day: dt.date, first_key: int, count: int) -> str:
    return ", ".join(
        f"('{day.isoformat()}', {k}, 'row {k} of {day.isoformat()} " + "x" * (k % 17) + "')"
        for k in range(first_key, first_key + count)
    )


# ---------------------------------------------------------------------------------- daily table


#: Rows loaded on each simulated day: growing, then a dip (EMA of sizes), then growing again.
DAILY_ROWS = [20, 40, 60, 80, 30, 90, 100, 110, 120]


def test_daily_dynamic_table_takes_buckets_from_partition_history(engine):
    engine.execute_sql(f"SET dorisql_now = '{DAY0} 08:00:00'")
    engine.execute_sql("""
        CREATE TABLE events (d DATE NOT NULL, k INT NOT NULL, v VARCHAR(64))
        DUPLICATE KEY(d, k)
        PARTITION BY RANGE(d) ()
        DISTRIBUTED BY HASH(k) BUCKETS AUTO
        PROPERTIES (
            "estimate_partition_size" = "100G",
            "dynamic_partition.enable" = "true",
            "dynamic_partition.time_unit" = "DAY",
            "dynamic_partition.start" = "-30",
            "dynamic_partition.end" = "2",
            "dynamic_partition.prefix" = "p",
            "replication_num" = "1")""")
    meta = engine.catalog.load_table("db", "events")
    # created with the table: p20240101..p20240103, sized from estimate_partition_size (100G -> 20)
    assert [p.name for p in meta.partitions] == ["p20240101", "p20240102", "p20240103"]
    assert [p.buckets for p in meta.partitions] == [20, 20, 20]
    assert all(p.bucket_decision.rule == "auto-initial" for p in meta.partitions)

    topo = topology(engine)
    key = 0
    checked_decisions = 0
    for day_index, count in enumerate(DAILY_ROWS):
        day = DAY0 + dt.timedelta(days=day_index)
        engine.execute_sql(f"SET dorisql_now = '{day} 08:00:00'")
        # today's rows arrive before the scheduler runs: today's partition must NOT count
        engine.execute_sql(f"INSERT INTO events VALUES {values(day, key, count)}")
        key += count
        sizes = stored_sizes(engine, "events")
        today = f"p{day:%Y%m%d}"
        history = [sizes[name] for name in sorted(sizes) if name < today and sizes[name] > 0]
        scheduler.run_pass(engine)
        new_name = f"p{day + dt.timedelta(days=2):%Y%m%d}"
        new = engine.catalog.load_table("db", "events").partition(new_name)
        assert new is not None, new_name
        if day_index == 0:
            continue  # created with the table
        expected = auto.subsequent_buckets(history, topo, 1, 128, fallback_estimate_bytes=100 * auto.GB)
        decision = new.bucket_decision
        assert decision == expected, (new_name, decision, expected)
        assert decision.rule == "auto-subsequent"
        assert list(decision.history_bytes) == history[-7:]
        assert new.buckets == decision.buckets == 1
        checked_decisions += 1
    assert checked_decisions == len(DAILY_ROWS) - 1

    # both EMA branches were exercised: ascending (days 2-4) and EMA of sizes (after the dip)
    meta = engine.catalog.load_table("db", "events")
    reasons = [p.bucket_decision.reason for p in meta.partitions if p.bucket_decision.rule == "auto-subsequent"]
    assert any("ascending: last + EMA(deltas)" in r for r in reasons)
    assert any("EMA(sizes)" in r for r in reasons)
    # the last decisions saw 8 earlier partitions with data and used only the 7 most recent
    last = meta.partition(f"p{DAY0 + dt.timedelta(days=len(DAILY_ROWS) + 1):%Y%m%d}")
    assert len(last.bucket_decision.history_bytes) == 7
    assert "last 7 partitions" in last.bucket_decision.reason

    # SHOW PARTITIONS shows the actual counts: 20 for the first three, 1 afterwards
    result = engine.execute_sql("SHOW PARTITIONS FROM events")[-1]
    buckets = dict((r[1], r[8]) for r in result.rows)
    assert [buckets[f"p{DAY0 + dt.timedelta(days=i):%Y%m%d}"] for i in range(5)] == [20, 20, 20, 1, 1]
    # SHOW BUCKETS explains each one
    why = {r[0]: r for r in engine.execute_sql("SHOW BUCKETS FROM events")[-1].rows}
    row = why["p20240104"]
    assert row[1:3] == (1, "auto-subsequent")
    assert row[7] == auto.format_size(meta.partition("p20240104").bucket_decision.history_bytes[0])

    # loads routed by each partition's own count; every row is queryable
    assert check_routing(engine, "events") == sum(DAILY_ROWS)
    assert rows_of(engine, "SELECT count(*) FROM events") == [(sum(DAILY_ROWS),)]
    per_day = dict(rows_of(engine, "SELECT d, count(*) FROM events GROUP BY d"))
    assert per_day == {DAY0 + dt.timedelta(days=i): n for i, n in enumerate(DAILY_ROWS)}

    # point queries read one tablet of a 20-bucket partition and of a 1-bucket partition
    k_day1 = DAILY_ROWS[0] + 5  # a key loaded on day 1 (p20240102, 20 buckets)
    sql = f"SELECT k, v FROM events WHERE d = '2024-01-02' AND k = {k_day1}"
    plan = explain(engine, sql)
    assert "partitions=1/" in plan and "tablets=1/20" in plan
    assert f"p20240102=[{bucket_of([k_day1], ['int'], 20)}]" in plan
    assert rows_of(engine, sql) == [(k_day1, f"row {k_day1} of 2024-01-02 " + "x" * (k_day1 % 17))]
    k_day4 = sum(DAILY_ROWS[:3]) + 7  # loaded on day 4 (p20240104, 1 bucket)
    sql = f"SELECT k FROM events WHERE d = '2024-01-04' AND k = {k_day4}"
    plan = explain(engine, sql)
    assert "partitions=1/" in plan and "tablets=1/1" in plan
    assert rows_of(engine, sql) == [(k_day4,)]
    # a key-only predicate prunes buckets in every partition, each with its own count
    plan = explain(engine, f"SELECT * FROM events WHERE k = {k_day1}")
    assert f"p20240101=[{bucket_of([k_day1], ['int'], 20)}]" in plan
    assert "p20240104=[0]" in plan
    assert rows_of(engine, f"SELECT d FROM events WHERE k = {k_day1}") == [(dt.date(2024, 1, 2),)]


# ---------------------------------------------------------------------------------- ADD PARTITION


def test_add_partition_mixes_explicit_initial_and_history_counts(engine):
    engine.execute_sql("""
        CREATE TABLE t (d DATE NOT NULL, k INT NOT NULL, v INT)
        DUPLICATE KEY(d, k)
        PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-01-02"))
        DISTRIBUTED BY HASH(k) BUCKETS AUTO
        PROPERTIES ("estimate_partition_size" = "100G", "replication_num" = "1")""")
    # ADD PARTITION without data anywhere: no history, so estimate_partition_size decides again
    engine.execute_sql("ALTER TABLE t ADD PARTITION p2 VALUES LESS THAN ('2024-01-03')")
    engine.execute_sql(
        "ALTER TABLE t ADD PARTITION p3 VALUES LESS THAN ('2024-01-04') DISTRIBUTED BY HASH(k) BUCKETS 5"
    )
    engine.execute_sql(
        "INSERT INTO t VALUES " + ", ".join(f"('2024-01-0{1 + i % 3}', {i}, {i * 10})" for i in range(60))
    )
    sizes = stored_sizes(engine, "t")
    # ADD PARTITION without BUCKETS on an AUTO table with data: from the history
    engine.execute_sql("ALTER TABLE t ADD PARTITION p4 VALUES LESS THAN ('2024-01-05')")
    engine.execute_sql("INSERT INTO t VALUES " + ", ".join(f"('2024-01-04', {i}, {i})" for i in range(100, 130)))

    meta = engine.catalog.load_table("db", "t")
    assert [(p.name, p.buckets) for p in meta.partitions] == [("p1", 20), ("p2", 20), ("p3", 5), ("p4", 1)]
    rules = [r[2] for r in engine.execute_sql("SHOW BUCKETS FROM t")[-1].rows]
    assert rules == ["auto-initial", "auto-initial", "fixed", "auto-subsequent"]
    history = [sizes["p1"], sizes["p2"], sizes["p3"]]
    assert meta.partition("p4").bucket_decision == auto.subsequent_buckets(
        history, topology(engine), 1, 128, fallback_estimate_bytes=100 * auto.GB
    )
    assert [r[8] for r in engine.execute_sql("SHOW PARTITIONS FROM t")[-1].rows] == [20, 20, 5, 1]

    assert check_routing(engine, "t") == 90
    for day, k, buckets, partition in [
        ("2024-01-01", 3, 20, "p1"),
        ("2024-01-03", 5, 5, "p3"),
        ("2024-01-04", 111, 1, "p4"),
    ]:
        sql = f"SELECT k, v FROM t WHERE d = '{day}' AND k = {k}"
        plan = explain(engine, sql)
        assert f"partitions=1/4 ({partition})" in plan and f"tablets=1/{buckets}" in plan, plan
        assert len(rows_of(engine, sql)) == 1
    plan = explain(engine, "SELECT * FROM t WHERE k = 5")
    assert "tablets=4/46" in plan  # one tablet in each partition of 20+20+5+1
    assert rows_of(engine, "SELECT k, v FROM t WHERE k = 5") == [(5, 50)]
    assert rows_of(engine, "SELECT count(*), sum(v) FROM t") == [
        (90, sum(i * 10 for i in range(60)) + sum(range(100, 130)))
    ]
    assert not any("BUCKETS 20" in r[1] for r in engine.execute_sql("SHOW CREATE TABLE t")[-1].rows)


# ---------------------------------------------------------------------------------- dynamic_partition.buckets


def test_auto_table_prefers_history_over_dynamic_partition_buckets(engine):
    """Doris's DynamicPartitionScheduler.getBucketsNum: an AUTO table uses
    dynamic_partition.buckets only while no earlier partition holds data."""
    engine.execute_sql(f"SET dorisql_now = '{DAY0} 08:00:00'")
    engine.execute_sql("""
        CREATE TABLE dyn (d DATE NOT NULL, k INT NOT NULL) DUPLICATE KEY(d, k)
        PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(k) BUCKETS AUTO
        PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY",
                    "dynamic_partition.start" = "-7", "dynamic_partition.end" = "1",
                    "dynamic_partition.prefix" = "p", "dynamic_partition.buckets" = "4",
                    "replication_num" = "1")""")
    engine.execute_sql("INSERT INTO dyn VALUES ('2024-01-01', 1), ('2024-01-01', 2), ('2024-01-02', 3)")
    engine.execute_sql("SET dorisql_now = '2024-01-02 08:00:00'")
    scheduler.run_pass(engine)
    meta = engine.catalog.load_table("db", "dyn")
    assert meta.partition("p20240102").bucket_decision.rule == "dynamic_partition.buckets"
    assert meta.partition("p20240102").buckets == 4
    new = meta.partition("p20240103")
    assert new.bucket_decision.rule == "auto-subsequent"
    assert new.bucket_decision.history_bytes == (stored_sizes(engine, "dyn")["p20240101"],)
    assert rows_of(engine, "SELECT count(*) FROM dyn") == [(3,)]
    assert check_routing(engine, "dyn") == 3
