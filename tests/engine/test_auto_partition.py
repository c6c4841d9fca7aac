"""AUTO PARTITION on a real engine (issue 14, item 3): loads create the partitions their rows
need, with Doris's names and bounds, before their one data commit; concurrent loads share a new
partition; max_auto_partition_num; a crash between the catalog and the data commit leaves only an
empty partition. Naming and rules in detail: tests/unit/test_auto_partition.py."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from dorisql.errors import AnalysisError

from .conftest import delta, rows, run
from .test_crash_consistency import assert_consistent, killed_dorisql

pytestmark = pytest.mark.spark

DAYS = """CREATE TABLE {name} (d DATE NOT NULL, v INT) DUPLICATE KEY(d)
    AUTO PARTITION BY RANGE (date_trunc(d, 'day')) ()
    DISTRIBUTED BY HASH(v) BUCKETS 1"""


def partitions(engine, table):
    return [(r[1], r[6]) for r in rows(engine, f"SHOW PARTITIONS FROM {table}")]


def test_range_load_creates_partitions_in_one_commit(engine):
    run(engine, DAYS.format(name="daily"))
    assert partitions(engine, "daily") == []
    before = delta(engine, "daily").version()
    run(engine, "INSERT INTO daily VALUES ('2024-01-02', 1), ('2024-01-01', 2), ('2024-01-02', 3)")
    got = partitions(engine, "daily")
    assert [name for name, _ in got] == ["p20240101000000", "p20240102000000"]
    assert "keys: [2024-01-01]; ..types: [DATE]; keys: [2024-01-02]; )" in got[0][1]
    assert delta(engine, "daily").version() == before + 1  # the rows: one commit
    assert sorted(rows(engine, "SELECT d, v FROM daily PARTITION (p20240102000000)")) == [
        (dt.date(2024, 1, 2), 1),
        (dt.date(2024, 1, 2), 3),
    ]
    # SHOW CREATE TABLE round-trips AUTO PARTITION, with the partitions made so far (as Doris)
    create = rows(engine, "SHOW CREATE TABLE daily")[0][1]
    assert "AUTO PARTITION BY RANGE(date_trunc(`d`, 'day'))\n(PARTITION p20240101000000 VALUES" in create
    run(engine, create.replace("CREATE TABLE `daily`", "CREATE TABLE `daily2`").rstrip(";"))
    assert rows(engine, "SHOW CREATE TABLE daily2")[0][1] == create.replace("`daily`", "`daily2`")
    assert partitions(engine, "daily2") == got


def test_list_load_names_and_null(engine):
    run(
        engine,
        """CREATE TABLE cities (city VARCHAR(20) NULL, v INT) DUPLICATE KEY(city)
        AUTO PARTITION BY LIST (city) () DISTRIBUTED BY HASH(v) BUCKETS 1""",
    )
    run(engine, "INSERT INTO cities VALUES ('Beijing', 1), (NULL, 2), ('a b', 3)")
    assert sorted(name for name, _ in partitions(engine, "cities")) == ["pBeijing7", "pX", "pa20b3"]
    assert rows(engine, "SELECT v FROM cities PARTITION (pX)") == [(2,)]
    run(engine, "INSERT INTO cities VALUES ('Beijing', 4)")  # an existing partition: none created
    assert len(partitions(engine, "cities")) == 3


def test_max_auto_partition_num(engine):
    run(engine, DAYS.format(name="capped"))
    run(engine, "ADMIN SET FRONTEND CONFIG ('max_auto_partition_num' = '2')")
    try:
        before = delta(engine, "capped").version()
        with pytest.raises(AnalysisError) as info:
            run(engine, "INSERT INTO capped VALUES ('2024-03-01', 1), ('2024-03-02', 1), ('2024-03-03', 1)")
        assert str(info.value) == (
            "create partition failed. partition numbers will exceed limit variable max_auto_partition_num"
        )
        assert partitions(engine, "capped") == [] and delta(engine, "capped").version() == before
        run(engine, "INSERT INTO capped VALUES ('2024-03-01', 1), ('2024-03-02', 1)")
        assert len(partitions(engine, "capped")) == 2
    finally:
        run(engine, "ADMIN SET FRONTEND CONFIG ('max_auto_partition_num' = '2000')")


def test_an_unknown_unit_is_refused_by_the_first_load(engine):
    """Doris (test_auto_range_partition): CREATE TABLE takes date_trunc(k, 'yeear'); each load
    is refused naming date_trunc's units, and changes nothing."""
    run(engine, DAYS.format(name="yeear").replace("'day'", "'yeear'"))
    assert "date_trunc(`d`, 'yeear')" in rows(engine, "SHOW CREATE TABLE yeear")[0][1]
    before = delta(engine, "yeear").version()
    for load in ("INSERT INTO yeear VALUES ('2020-12-12', 1)", "INSERT INTO yeear SELECT d, v FROM yeear"):
        with pytest.raises(AnalysisError) as info:
            run(engine, load)
        assert str(info.value) == (
            "date_trunc function second param only support argument is year|quarter|month|week|day|hour|minute|second"
        )
    assert partitions(engine, "yeear") == [] and delta(engine, "yeear").version() == before
    assert rows(engine, "SELECT count(*) FROM yeear") == [(0,)]


def test_concurrent_loads_share_one_new_partition(engine):
    run(engine, DAYS.format(name="race"))
    errors: list[BaseException] = []

    def load(v):
        try:
            run(engine, f"INSERT INTO race VALUES ('2024-05-05', {v})")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=load, args=(v,)) for v in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert [name for name, _ in partitions(engine, "race")] == ["p20240505000000"]
    assert sorted(rows(engine, "SELECT v FROM race")) == [(1,), (2,)]


def test_ctas_into_auto_partition_table(engine):
    run(engine, DAYS.format(name="src_days") + "; INSERT INTO src_days VALUES ('2024-07-01', 1), ('2024-07-09', 2)")
    run(
        engine,
        "CREATE TABLE weeks AUTO PARTITION BY RANGE (date_trunc(d, 'week')) () "
        "DISTRIBUTED BY HASH(d) BUCKETS 1 AS SELECT d, v FROM src_days",
    )
    assert [name for name, _ in partitions(engine, "weeks")] == ["p20240701000000", "p20240708000000"]
    assert len(rows(engine, "SELECT * FROM weeks")) == 2


def test_crash_between_partition_creation_and_data_commit(engine):
    """The catalog gets the partition, then the process dies before the data commit: an empty
    partition, no rows, a consistent table; the load then succeeds."""
    run(engine, DAYS.format(name="t"))
    killed_dorisql(
        engine.warehouse,
        "INSERT INTO t VALUES ('2024-09-09', 1)",
        "after:dorisql.statements.load.new_partitions:ensure_partitions",
    )
    assert [name for name, _ in partitions(engine, "t")] == ["p20240909000000"]
    assert rows(engine, "SELECT count(*) FROM t") == [(0,)]
    assert_consistent(engine)
    run(engine, "INSERT INTO t VALUES ('2024-09-09', 1)")
    assert rows(engine, "SELECT count(*) FROM t") == [(1,)]
    assert len(partitions(engine, "t")) == 1
