"""AUTO PARTITION names, bounds and rules (pure; Doris's PartitionExprUtil and PartitionTableInfo)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from dorisql import ast
from dorisql.analysis.checks import normalize_create_table
from dorisql.catalog.model import PartitionMeta, TableMeta
from dorisql.errors import AnalysisError
from dorisql.partitioning import auto_partitions as auto
from dorisql.syntax import parse
from dorisql.syntax.generator import to_sql

DATE = ast.DataType("DATE")
DATETIME = ast.DataType("DATETIME", (0,))


@pytest.mark.parametrize(
    "value, unit, name, lower, upper",
    [
        (dt.date(2024, 1, 1), "day", "p20240101000000", "2024-01-01", "2024-01-02"),
        (dt.date(2024, 2, 29), "month", "p20240201000000", "2024-02-01", "2024-03-01"),
        (dt.date(2024, 12, 13), "year", "p20240101000000", "2024-01-01", "2025-01-01"),
        (dt.date(2024, 11, 27), "week", "p20241125000000", "2024-11-25", "2024-12-02"),  # Monday
        (dt.date(2024, 8, 9), "quarter", "p20240701000000", "2024-07-01", "2024-10-01"),
        (dt.date(9999, 12, 31), "month", "p99991201000000", "9999-12-01", None),  # past the end: MAXVALUE
    ],
)
def test_range_partition_of_a_date(value, unit, name, lower, upper):
    assert auto.range_partition(value, unit, DATE) == auto.NewRange(name, lower, upper)


def test_range_partition_of_a_datetime():
    got = auto.range_partition(dt.datetime(2024, 3, 5, 17, 42, 9), "hour", DATETIME)
    assert got == auto.NewRange("p20240305170000", "2024-03-05 17:00:00", "2024-03-05 18:00:00")


@pytest.mark.parametrize(
    "values, has_string, name",
    [
        (("Beijing",), True, "pBeijing7"),
        (("1",), False, "p11"),
        ((None,), True, "pX"),
        (("-1",), False, "p_2d12"),
        (("a b",), True, "pa20b3"),
        (("2024-01-01",), False, "p20242d012d0110"),
        (("x", None), True, "px1X"),
        (("杭州",), True, "p676d5dde2"),
    ],
)
def test_list_partition_names(values, has_string, name):
    assert auto.list_partition_name(values, has_string) == name


def test_long_list_name_is_cut_with_java_hash():
    name = auto.list_partition_name(("a" * 60,), True)
    full = "p" + "a" * 60 + "60"
    assert name == full[:50] + "_" + format(auto.java_string_hash(full), "x")
    assert auto.java_string_hash("hello") == 99162322  # Java: "hello".hashCode()
    assert auto.list_partition_name(("1" * 60,), False) == "p" + "1" * 60 + "60"  # no cut without strings


def _meta(sql: str, partitions=()) -> TableMeta:
    definition = normalize_create_table(parse(sql)[0])
    return TableMeta(id=1, db="d", name="t", definition=definition, partitions=tuple(partitions))


RANGE_TABLE = (
    "CREATE TABLE t (k DATE NOT NULL, v INT) AUTO PARTITION BY RANGE (date_trunc(`k`, 'day')) () "
    "DISTRIBUTED BY HASH(k) BUCKETS 1"
)


def test_needed_range_items_skip_existing_and_duplicates():
    existing = PartitionMeta(id=5, name="p20240101000000", buckets=1, lower=("2024-01-01",), upper=("2024-01-02",))
    meta = _meta(RANGE_TABLE, [existing])
    items = auto.needed_items(meta, [(dt.date(2024, 1, 1),), (dt.date(2024, 1, 3),), (dt.date(2024, 1, 2),)])
    assert [(i.name, i.lower, i.upper) for i in items] == [
        ("p20240102000000", ("2024-01-02",), ("2024-01-03",)),
        ("p20240103000000", ("2024-01-03",), ("2024-01-04",)),
    ]


def test_needed_list_items_with_null():
    meta = _meta(
        "CREATE TABLE t (city VARCHAR(20) NULL, v INT) DUPLICATE KEY(city) AUTO PARTITION BY LIST (city) () "
        "DISTRIBUTED BY HASH(v) BUCKETS 1"
    )
    items = auto.needed_items(meta, [("Beijing",), (None,), ("Beijing",)])
    assert [(i.name, i.values) for i in items] == [("pX", ((None,),)), ("pBeijing7", (("Beijing",),))]


STRING_LIST_TABLE = (
    "CREATE TABLE t (s VARCHAR(10) NOT NULL, v INT) DUPLICATE KEY(s) AUTO PARTITION BY LIST (s) () "
    "DISTRIBUTED BY HASH(v) BUCKETS 1"
)


@pytest.mark.parametrize(
    "value, name",
    [
        ("XXX", "pXXX3"),
        ("xxx", "pxxx3"),
        ("a", "pa1"),
        ("a ", "pa202"),  # the space is a character of the value
        ("\u00e9", "pe91"),  # NFC é: one UTF-16 unit
        ("e\u0301", "pe3012"),  # NFD: e and the combining accent, two units
    ],
)
def test_names_of_values_equal_but_for_case_space_or_normalisation(value, name):
    assert auto.list_partition_name((value,), True) == name


def test_needed_list_items_for_a_value_differing_only_in_case():
    """'xxx' needs its own partition when pXXX3 holds 'XXX' (Doris keeps both, pxxx3 and pXXX3)."""
    existing = PartitionMeta(id=5, name="pXXX3", buckets=1, values=(("XXX",),))
    meta = _meta(STRING_LIST_TABLE, [existing])
    values = [("XXX",), ("xxx",), ("a ",), ("a",), ("\u00e9",), ("e\u0301",)]
    items = auto.needed_items(meta, values)
    assert sorted((i.name, i.values) for i in items) == [
        ("pa1", (("a",),)),
        ("pa202", (("a ",),)),
        ("pe3012", (("e\u0301",),)),
        ("pe91", (("\u00e9",),)),
        ("pxxx3", (("xxx",),)),
    ]


def test_a_partition_name_matches_exactly_before_ignoring_case():
    both = (
        PartitionMeta(id=5, name="pXXX3", buckets=1, values=(("XXX",),)),
        PartitionMeta(id=6, name="pxxx3", buckets=1, values=(("xxx",),)),
    )
    meta = _meta(STRING_LIST_TABLE, both)
    assert meta.partition("pxxx3").id == 6
    assert meta.partition("pXXX3").id == 5
    assert meta.partition("PXXX3") is None  # equal to both ignoring case: names neither
    assert meta.partition_keys(["pxxx3", "pXXX3"]) == {"pxxx3": "6", "pXXX3": "5"}
    alone = _meta(STRING_LIST_TABLE, both[:1])
    assert alone.partition("PXXX3").id == 5  # a typed name's leniency, when it is unambiguous
    assert alone.partition("pxxx3").id == 5


def test_limit_message():
    auto.check_limit(1999, 1, 2000)
    with pytest.raises(AnalysisError) as info:
        auto.check_limit(1999, 2, 2000)
    assert str(info.value) == (
        "create partition failed. partition numbers will exceed limit variable max_auto_partition_num"
    )


@pytest.mark.parametrize(
    "partition, column, message",
    [
        (
            "AUTO PARTITION BY RANGE (date_trunc(k, 'day')) ()",
            "k DATE NULL",
            "AUTO RANGE PARTITION doesn't support NULL column",
        ),
        (
            "AUTO PARTITION BY RANGE (date_trunc(k, 'day')) ()",
            "k INT NOT NULL",
            "partition expr date_trunc is illegal!",
        ),
        (
            "AUTO PARTITION BY RANGE (k) ()",
            "k DATE NOT NULL",
            "Auto Range Partition need FunctionCallExpr",
        ),
        (  # date_trunc(DATETIME) does not exist: Doris cannot bind the call
            "AUTO PARTITION BY RANGE (date_trunc(k)) ()",
            "k DATE NOT NULL",
            "partition expr date_trunc is illegal!",
        ),
        (  # the unit must be a string: an INT would need a cast
            "AUTO PARTITION BY RANGE (date_trunc(k, 1)) ()",
            "k DATE NOT NULL",
            "partition expr date_trunc is illegal!",
        ),
        (
            "AUTO PARTITION BY RANGE (date_trunc(k, v)) ()",
            "k DATE NOT NULL",
            "auto create partition only support one slotRef in function expr. date_trunc(k, v)",
        ),
        (
            "AUTO PARTITION BY RANGE (date(k)) ()",
            "k DATE NOT NULL",
            "auto create partition only support function call expr is date_trunc/date_floor/date_ceil. date(k)",
        ),
        (
            "AUTO PARTITION BY LIST (upper(k)) ()",
            "k VARCHAR(10) NOT NULL",
            "auto create partition only support slotRef in list partitions. upper(k)",
        ),
    ],
)
def test_create_table_refusals(partition, column, message):
    with pytest.raises(AnalysisError) as info:
        parse(f"CREATE TABLE t ({column}, v INT) {partition} DISTRIBUTED BY HASH(v) BUCKETS 1")
    assert str(info.value) == message


def test_an_unknown_unit_is_accepted_by_create_table_and_refused_by_a_load():
    """Doris (test_auto_range_partition): 'yeear' passes CREATE TABLE, the first INSERT fails."""
    definition = normalize_create_table(
        parse(
            "CREATE TABLE t (k DATETIME NOT NULL, v INT) AUTO PARTITION BY RANGE (date_trunc(k, 'yeear')) () "
            "DISTRIBUTED BY HASH(v) BUCKETS 1"
        )[0]
    )
    assert "date_trunc(`k`, 'yeear')" in to_sql(definition)
    assert definition.partition is not None
    assert auto.parse_range_expression(definition.partition) == auto.AutoRange("k", "yeear")
    with pytest.raises(AnalysisError) as info:
        auto.range_unit(definition.partition)
    assert str(info.value) == (
        "date_trunc function second param only support argument is year|quarter|month|week|day|hour|minute|second"
    )
    assert auto.range_unit(dataclasses.replace(definition.partition, expressions=("date_trunc(`k`, 'Month')",))) == (
        "month"
    )


def test_show_create_table_round_trips_auto_partition():
    definition = normalize_create_table(parse(RANGE_TABLE.replace("`k`", "k"))[0])
    sql = to_sql(definition)
    assert "AUTO PARTITION BY RANGE(date_trunc(`k`, 'day'))\n()" in sql
    assert normalize_create_table(parse(sql)[0]) == definition


def test_with_dynamic_partition_same_unit_and_end_zero():
    """Doris (test_auto_dynamic): both at once need one interval unit; end may be 0."""
    props = (
        'PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "{unit}", '
        '"dynamic_partition.start" = "-5", "dynamic_partition.end" = "0", "dynamic_partition.prefix" = "p")'
    )
    table = (
        "CREATE TABLE t (k DATETIME NOT NULL) AUTO PARTITION BY RANGE (date_trunc(k, 'hour')) () "
        "DISTRIBUTED BY HASH(k) BUCKETS 2 "
    )
    parse(table + props.format(unit="hour"))
    with pytest.raises(AnalysisError) as info:
        parse(table + props.format(unit="day"))
    assert str(info.value) == (
        "If support auto partition and dynamic partition at same time, they must have the same interval unit."
    )
    with pytest.raises(AnalysisError, match="Dynamic partition end must greater than 0"):
        parse(
            table.replace("AUTO PARTITION BY RANGE (date_trunc(k, 'hour'))", "PARTITION BY RANGE (k)")
            + props.format(unit="hour")
        )


def test_retention_count_keeps_the_newest_historical_partitions():
    """Doris's example: retention_count 3, now 2025-10-21, days 10-16 .. 10-23 loaded: 10-18,
    10-19, 10-20 (historical) and 10-21 .. 10-23 (current and future) remain."""
    days = [dt.date(2025, 10, d) for d in range(16, 24)]
    parts = [
        PartitionMeta(
            id=i,
            name=f"p{d:%Y%m%d}000000",
            buckets=1,
            lower=(d.isoformat(),),
            upper=((d + dt.timedelta(1)).isoformat(),),
        )
        for i, d in enumerate(days)
    ]
    now = dt.datetime(2025, 10, 21, 9, 30)
    assert auto.retention_drops(parts, now, 3) == ["p20251017000000", "p20251016000000"]
    assert auto.retention_count((("partition.retention_count", "3"),)) == 3
    assert auto.retention_count((("partition.retention_count", "0"),)) is None


def test_scheduler_applies_retention_count(tmp_path, make_engine):
    """A scheduler pass drops the historical partitions beyond partition.retention_count (empty
    partitions here: no Spark needed)."""
    from dorisql.jobs import scheduler

    engine = make_engine(tmp_path)
    engine.execute_sql(
        "CREATE DATABASE d; USE d; CREATE TABLE r (k0 DATE NOT NULL) "
        "AUTO PARTITION BY RANGE (date_trunc(k0, 'day')) () DISTRIBUTED BY HASH(k0) BUCKETS 1 "
        'PROPERTIES ("partition.retention_count" = "1")'
    )
    for day in (1, 2, 3):
        engine.execute_sql(
            f"ALTER TABLE r ADD PARTITION p2020010{day}000000 VALUES [('2020-01-0{day}'), ('2020-01-0{day + 1}'))"
        )
    report = scheduler.run_pass(engine)
    assert report.dropped == {"d.r": ["p20200102000000", "p20200101000000"]}
    assert [p.name for p in engine.catalog.load_table("d", "r").partitions] == ["p20200103000000"]
