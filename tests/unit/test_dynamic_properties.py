"""dynamic_partition.* validation (Doris's DynamicPartitionUtil messages) and SHOW formatting."""

from __future__ import annotations

import datetime as dt

import pytest

from dorisql.ast import (
    ColumnDef,
    CreateTable,
    DataType,
    DistributedBy,
    PartitionBy,
    TableName,
)
from dorisql.catalog.model import DynamicState
from dorisql.errors import AnalysisError
from dorisql.partitioning import dynamic
from dorisql.partitioning.dynamic import (
    DYNAMIC_PARTITION_CHECK_INTERVAL_SECONDS,
    DYNAMIC_PARTITION_ENABLE,
    MAX_DYNAMIC_PARTITION_NUM,
    MIN_START_OFFSET,
    DynamicPartitionProperties,
    alter_properties,
    format_show_row,
    ordinal,
    parse_properties,
    show_columns,
    validate_properties,
)

BASE = {
    "dynamic_partition.time_unit": "DAY",
    "dynamic_partition.end": "3",
    "dynamic_partition.prefix": "p",
}


def parse(extra=None, column="DATE", drop=(), **kw):
    p = dict(BASE)
    for k in drop:
        p.pop(k)
    p.update(extra or {})
    kw.setdefault("default_time_zone", "Asia/Shanghai")
    return parse_properties(p, column, **kw)


def error_of(extra=None, column="DATE", drop=(), **kw) -> str:
    with pytest.raises(AnalysisError) as err:
        parse(extra, column, drop, **kw)
    return str(err.value)


# --------------------------------------------------------------------------- defaults


def test_defaults():
    p = parse()
    assert p == DynamicPartitionProperties(time_unit="DAY", end=3, prefix="p", time_zone="Asia/Shanghai")
    assert p.enable is True
    assert p.start == MIN_START_OFFSET == -2147483648
    assert p.start_day_of_week == 1 and p.start_day_of_month == 1
    assert p.create_history_partition is False and p.history_partition_num == -1
    assert p.reserved_history_periods is None
    assert p.buckets is None and p.replication_num is None


def test_global_settings():
    assert DYNAMIC_PARTITION_ENABLE is True
    assert DYNAMIC_PARTITION_CHECK_INTERVAL_SECONDS == 600
    assert MAX_DYNAMIC_PARTITION_NUM == 500


def test_no_dynamic_properties():
    assert parse_properties({"replication_num": "1"}, "DATE") is None


def test_full_set_and_case():
    p = parse(
        {
            "dynamic_partition.enable": "FALSE",
            "dynamic_partition.time_unit": "week",
            "dynamic_partition.start": "-3",
            "dynamic_partition.buckets": "32",
            "dynamic_partition.replication_num": "3",
            "dynamic_partition.start_day_of_week": "3",
            "dynamic_partition.time_zone": "America/New_York",
            "dynamic_partition.create_history_partition": "true",
            "dynamic_partition.history_partition_num": "2",
            "dynamic_partition.reserved_history_periods": "[2021-12-01,2021-12-31]",
            "dynamic_partition.hot_partition_num": "1",
        }
    )
    assert (
        p.enable,
        p.time_unit,
        p.start,
        p.buckets,
        p.replication_num,
        p.start_day_of_week,
        p.time_zone,
        p.create_history_partition,
        p.history_partition_num,
        p.reserved_history_periods,
        p.hot_partition_num,
    ) == (False, "WEEK", -3, 32, 3, 3, "America/New_York", True, 2, "[2021-12-01,2021-12-31]", 1)


def test_default_time_zone_is_the_machine_zone():
    p = parse_properties(BASE, "DATE")
    assert p.time_zone == dynamic.system_time_zone()


def test_other_table_properties_are_ignored():
    assert parse({"replication_num": "1", "estimate_partition_size": "10G"}).end == 3


# --------------------------------------------------------------------------- required keys


@pytest.mark.parametrize(
    "key,message",
    [
        ("dynamic_partition.time_unit", "Must assign dynamic_partition.time_unit properties"),
        ("dynamic_partition.prefix", "Must assign dynamic_partition.prefix properties"),
        ("dynamic_partition.end", "Must assign dynamic_partition.end properties"),
    ],
)
def test_required(key, message):
    assert error_of(drop=[key]) == message
    assert error_of({key: ""}) == message


# --------------------------------------------------------------------------- invalid values


@pytest.mark.parametrize(
    "key,value,fragment",
    [
        ("time_unit", "SECOND", "Unsupported time unit SECOND. Expect HOUR/DAY/WEEK/MONTH/YEAR."),
        ("start", "0", "Dynamic partition start must less than 0"),
        ("start", "3", "Dynamic partition start must less than 0"),
        ("start", "abc", "Invalid dynamic partition start abc"),
        ("start", "-1.5", "Invalid dynamic partition start -1.5"),
        ("end", "0", "Dynamic partition end must greater than 0"),
        ("end", "-2", "Dynamic partition end must greater than 0"),
        ("end", "x", "Invalid dynamic partition end x"),
        ("end", "99999999999", "Invalid dynamic partition end 99999999999"),
        ("buckets", "0", "Dynamic partition buckets must greater than 0"),
        ("buckets", "many", "Invalid dynamic partition buckets many"),
        ("buckets", "", "Dynamic partition buckets is empty"),
        # the limit BUCKETS n has, with the same message
        (
            "buckets",
            "100000",
            "Number of buckets (100000) exceeds the maximum allowed value (768) of max_bucket_num_per_partition",
        ),
        ("enable", "yes", "Invalid dynamic partition enable: yes. Expected true or false"),
        ("prefix", "1p", "Invalid dynamic partition prefix: 1p."),
        ("prefix", "p.x", "Invalid dynamic partition prefix: p.x."),
        (
            "create_history_partition",
            "1",
            "Invalid dynamic partition create_history_partition: 1. Expected true or false",
        ),
        ("history_partition_num", "-2", "Dynamic history partition num must greater than 0"),
        ("history_partition_num", "x", "Invalid properties: dynamic_partition.history_partition_num"),
        ("start_day_of_month", "29", "dynamic_partition.start_day_of_month should between 1 and 28"),
        ("start_day_of_month", "0", "dynamic_partition.start_day_of_month should between 1 and 28"),
        ("start_day_of_month", "x", "Invalid properties: dynamic_partition.start_day_of_month"),
        ("start_day_of_week", "8", "dynamic_partition.start_day_of_week should between 1 and 7"),
        ("start_day_of_week", "0", "dynamic_partition.start_day_of_week should between 1 and 7"),
        ("start_day_of_week", "", "Invalid properties: dynamic_partition.start_day_of_week"),
        ("time_zone", "Mars/Olympus", "Unknown or incorrect time zone: 'Mars/Olympus'"),
        ("replication_num", "0", "Dynamic partition replication num must greater than 0"),
        ("replication_num", "two", "Invalid dynamic partition replication num: two."),
        ("hot_partition_num", "-1", "dynamic_partition.hot_partition_num must larger than 0."),
    ],
)
def test_invalid_values(key, value, fragment):
    message = error_of({"dynamic_partition." + key: value})
    assert message.startswith(fragment)
    # the property and the value are always named
    assert "dynamic_partition." + key in message
    assert value in message


def test_buckets_share_the_bucket_count_limit():
    from dorisql.analysis.checks import check
    from dorisql.syntax import parse_one

    assert parse({"dynamic_partition.buckets": "768"}).buckets == 768
    dynamic_error = error_of({"dynamic_partition.buckets": "769"})
    with pytest.raises(AnalysisError) as err:
        check(parse_one("CREATE TABLE t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 769"))
    assert dynamic_error.startswith(str(err.value))


def test_start_day_checks_apply_to_every_unit():
    # Doris validates start_day_of_month even for DAY tables
    assert "should between 1 and 28" in error_of({"dynamic_partition.start_day_of_month": "31"})


def test_hour_needs_datetime():
    assert error_of({"dynamic_partition.time_unit": "HOUR"}, partition_column="dt") == (
        "dynamic_partition.time_unit could not be HOUR when type of partition column dt is DATE"
    )
    assert parse({"dynamic_partition.time_unit": "hour"}, column="DATETIME").time_unit == "HOUR"


def test_column_types():
    assert parse(column="DATEV2").time_unit == "DAY"
    assert parse(column="datetimev2(3)").time_unit == "DAY"
    assert "DATE and DATETIME" in error_of(column="INT")
    assert "DATE and DATETIME" in error_of(column="VARCHAR")


def test_unknown_dynamic_property():
    assert error_of({"dynamic_partition.foo": "1"}) == "Unknown properties: {dynamic_partition.foo=1}"


def test_history_needs_start_or_num():
    assert error_of({"dynamic_partition.create_history_partition": "true"}) == (
        "Provide start or history_partition_num property when creating history partition"
    )


def test_too_many():
    assert error_of({"dynamic_partition.end": "501"}) == "Too many dynamic partitions: 501. Limit: 500"
    assert parse({"dynamic_partition.end": "500"}).end == 500
    # history counts only when create_history_partition is on
    assert parse({"dynamic_partition.end": "3", "dynamic_partition.start": "-1000"}).start == -1000
    assert error_of(
        {
            "dynamic_partition.end": "3",
            "dynamic_partition.start": "-500",
            "dynamic_partition.create_history_partition": "true",
        }
    ) == ("Too many dynamic partitions: 503. Limit: 500")
    # history_partition_num caps the count
    assert (
        parse(
            {
                "dynamic_partition.start": "-1000",
                "dynamic_partition.history_partition_num": "7",
                "dynamic_partition.create_history_partition": "true",
            }
        ).real_start()
        == -7
    )
    # disabled tables are not counted; the limit is configurable
    assert parse({"dynamic_partition.end": "600", "dynamic_partition.enable": "false"}).end == 600
    assert parse({"dynamic_partition.end": "600"}, max_dynamic_partition_num=1000).end == 600


def test_time_zones():
    assert parse({"dynamic_partition.time_zone": "UTC"}).time_zone == "UTC"
    assert parse({"dynamic_partition.time_zone": "+08:00"}).time_zone == "+08:00"
    assert parse({"dynamic_partition.time_zone": "CST"}).zone.key == "Asia/Shanghai"
    assert "time zone" in error_of({"dynamic_partition.time_zone": "+25:00"})


# --------------------------------------------------------------------------- reserved periods


def test_reserved_periods_valid():
    p = parse({"dynamic_partition.reserved_history_periods": "[2020-10-31,2020-11-15],[2020-06-01,2020-06-20]"})
    assert p.reserved_periods() == [("2020-06-01", "2020-06-20"), ("2020-10-31", "2020-11-15")]
    assert p.sorted_reserved_history_periods() == "[2020-06-01,2020-06-20],[2020-10-31,2020-11-15]"
    assert parse({"dynamic_partition.reserved_history_periods": "NULL"}).reserved_history_periods is None
    hourly = parse(
        {
            "dynamic_partition.time_unit": "HOUR",
            "dynamic_partition.reserved_history_periods": "[2020-06-01 00:00:00,2020-06-01 03:00:00]",
        },
        column="DATETIME",
    )
    assert hourly.reserved_periods() == [("2020-06-01 00:00:00", "2020-06-01 03:00:00")]


@pytest.mark.parametrize(
    "value,fragment",
    [
        ("2020-06-01,2020-06-20", 'Invalid " dynamic_partition.reserved_history_periods " value'),
        ("[2020-06-01,]", 'Invalid " dynamic_partition.reserved_history_periods " value'),
        ("[,2020-06-01]", 'Invalid " dynamic_partition.reserved_history_periods " value'),
        ("[2020-06-01,2020-06-20],", 'Invalid " dynamic_partition.reserved_history_periods " value'),
        ("[2020-06-01,2020-06-20],[2020-07-01]", 'Invalid " dynamic_partition.reserved_history'),
        ("[2020-06-01 00:00:00,2020-06-20 00:00:00]", 'Invalid " dynamic_partition.reserved_history'),
        (
            "[2020-06-20,2020-06-01]",
            "The first date is larger than the second date, [2020-06-20,2020-06-01] is invalid.",
        ),
        ("[2020-02-30,2020-03-01]", "It must be correct DATE value"),
        ("", "Dynamic reserved history periods is empty."),
    ],
)
def test_reserved_periods_invalid(value, fragment):
    message = error_of({"dynamic_partition.reserved_history_periods": value})
    assert fragment in message
    assert "reserved_history_periods" in message


# --------------------------------------------------------------------------- ALTER merge


def test_alter_properties_merges_and_revalidates():
    p = parse({"dynamic_partition.start": "-7"})
    q = alter_properties(
        p, {"dynamic_partition.time_unit": "MONTH", "dynamic_partition.start_day_of_month": "3"}, "DATE"
    )
    assert (q.time_unit, q.start, q.end, q.start_day_of_month, q.time_zone) == ("MONTH", -7, 3, 3, "Asia/Shanghai")
    r = alter_properties(q, {"dynamic_partition.enable": "false"}, "DATE")
    assert r.enable is False and r.start_day_of_month == 3
    with pytest.raises(AnalysisError, match="start must less than 0"):
        alter_properties(p, {"dynamic_partition.start": "1"}, "DATE")


def test_to_properties_round_trip():
    p = parse(
        {
            "dynamic_partition.start": "-7",
            "dynamic_partition.buckets": "4",
            "dynamic_partition.reserved_history_periods": "[2020-06-01,2020-06-20]",
        }
    )
    assert parse_properties(p.to_properties(), "DATE") == p


# --------------------------------------------------------------------------- CREATE TABLE shape


def _create(column_type="DATE", kind="RANGE", columns=("k1",), props=None, partition=True):
    cols = (ColumnDef("k1", DataType(column_type)), ColumnDef("k2", DataType("INT")), ColumnDef("v", DataType("INT")))
    properties = tuple(
        (
            props
            if props is not None
            else {
                "dynamic_partition.enable": "true",
                "dynamic_partition.time_unit": "DAY",
                "dynamic_partition.start": "-7",
                "dynamic_partition.end": "3",
                "dynamic_partition.prefix": "p",
                "dynamic_partition.buckets": "32",
            }
        ).items()
    )
    return CreateTable(
        table=TableName("tbl1"),
        columns=cols,
        partition=PartitionBy(kind, tuple(columns)) if partition else None,
        distribution=DistributedBy("HASH", ("k1",), 32),
        properties=properties,
    )


def test_validate_properties_ok():
    p = validate_properties(_create(), default_time_zone="UTC")
    assert (p.time_unit, p.start, p.end, p.buckets) == ("DAY", -7, 3, 32)
    assert validate_properties(_create(props={"replication_num": "1"})) is None


def test_validate_properties_shape_errors():
    with pytest.raises(AnalysisError, match="single-column range partition"):
        validate_properties(_create(kind="LIST"))
    with pytest.raises(AnalysisError, match="single-column range partition"):
        validate_properties(_create(columns=("k1", "k2")))
    with pytest.raises(AnalysisError, match="range partition table"):
        validate_properties(_create(partition=False))
    with pytest.raises(AnalysisError, match="column k2 is INT"):
        validate_properties(_create(columns=("k2",)))
    with pytest.raises(AnalysisError, match="could not be HOUR when type of partition column k1"):
        validate_properties(_create(props={**dict(BASE), "dynamic_partition.time_unit": "HOUR"}))
    assert (
        validate_properties(
            _create("DATETIME", props={**dict(BASE), "dynamic_partition.time_unit": "HOUR"}), default_time_zone="UTC"
        ).time_unit
        == "HOUR"
    )


# --------------------------------------------------------------------------- SHOW


def test_show_columns():
    assert show_columns() == [
        "TableName",
        "Enable",
        "TimeUnit",
        "Start",
        "End",
        "Prefix",
        "Buckets",
        "StartOf",
        "LastUpdateTime",
        "LastSchedulerTime",
        "State",
        "LastCreatePartitionMsg",
        "LastDropPartitionMsg",
        "ReservedHistoryPeriods",
    ]


def test_ordinal():
    assert [ordinal(i) for i in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 24, 28)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "23rd",
        "24th",
        "28th",
    ]


def _seed_props(unit, start, end, buckets, **extra):
    p = {
        "dynamic_partition.time_unit": unit,
        "dynamic_partition.end": str(end),
        "dynamic_partition.prefix": "p",
        "dynamic_partition.buckets": str(buckets),
    }
    if start is not None:
        p["dynamic_partition.start"] = str(start)
    p.update({"dynamic_partition." + k: v for k, v in extra.items()})
    return parse_properties(p, "DATE", default_time_zone="UTC")


def test_show_rows_of_the_seed():
    sched = DynamicState(last_scheduler_time=dt.datetime(2020, 5, 25, 14, 29, 24))
    rows = [
        format_show_row("d3", _seed_props("WEEK", -3, 3, 1, reserved_history_periods="[2021-12-01,2021-12-31]"), sched),
        format_show_row("d5", _seed_props("DAY", -7, 3, 32), sched),
        format_show_row("d4", _seed_props("WEEK", -3, 3, 1, start_day_of_week="3"), sched),
        format_show_row("d6", _seed_props("MONTH", None, 2, 8, start_day_of_month="3"), sched),
        format_show_row("d2", _seed_props("DAY", -3, 3, 32), sched),
        format_show_row("d7", _seed_props("MONTH", None, 5, 8, start_day_of_month="24"), sched),
    ]
    t = "2020-05-25 14:29:24"
    assert rows == [
        [
            "d3",
            "true",
            "WEEK",
            "-3",
            "3",
            "p",
            "1",
            "MONDAY",
            "N/A",
            t,
            "NORMAL",
            "N/A",
            "N/A",
            "[2021-12-01,2021-12-31]",
        ],
        ["d5", "true", "DAY", "-7", "3", "p", "32", "N/A", "N/A", t, "NORMAL", "N/A", "N/A", "NULL"],
        ["d4", "true", "WEEK", "-3", "3", "p", "1", "WEDNESDAY", "N/A", t, "NORMAL", "N/A", "N/A", "NULL"],
        ["d6", "true", "MONTH", "-2147483648", "2", "p", "8", "3rd", "N/A", t, "NORMAL", "N/A", "N/A", "NULL"],
        ["d2", "true", "DAY", "-3", "3", "p", "32", "N/A", "N/A", t, "NORMAL", "N/A", "N/A", "NULL"],
        ["d7", "true", "MONTH", "-2147483648", "5", "p", "8", "24th", "N/A", t, "NORMAL", "N/A", "N/A", "NULL"],
    ]


def test_show_row_state_and_buckets_fallback():
    p = parse()
    row = format_show_row("t", p, None, buckets=16)
    assert row[6] == "16" and row[8:14] == ["N/A", "N/A", "NORMAL", "N/A", "N/A", "NULL"]
    state = DynamicState(
        last_update_time=dt.datetime(2020, 5, 1, 1, 2, 3),
        state="ERROR",
        last_create_partition_msg="boom",
        last_drop_partition_msg="bang",
    )
    row = format_show_row("t", p, state)
    assert row[6] == "N/A"
    assert row[8] == "2020-05-01 01:02:03" and row[10:13] == ["ERROR", "boom", "bang"]
    assert format_show_row("t", parse({"dynamic_partition.time_unit": "YEAR"}))[7] == "N/A"
    sunday = parse({"dynamic_partition.time_unit": "WEEK", "dynamic_partition.start_day_of_week": "7"})
    assert format_show_row("t", sunday)[7] == "SUNDAY"
