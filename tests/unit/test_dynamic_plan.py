"""The dynamic partition planner against every worked example of seed 001 (and Doris's tests)."""

from __future__ import annotations

import datetime as dt

import pytest

from dorisql.errors import AnalysisError
from dorisql.partitioning.dynamic import (
    ExistingPartition,
    border,
    java_week_of_year,
    parse_properties,
    plan,
    week_suffix,
)

D = dt.date
T = dt.datetime


def props(time_unit, end, *, column="DATE", tz="Asia/Shanghai", max_num=500, **extra):
    p = {
        "dynamic_partition.enable": "true",
        "dynamic_partition.time_unit": time_unit,
        "dynamic_partition.end": str(end),
        "dynamic_partition.prefix": "p",
        "dynamic_partition.buckets": "8",
        "dynamic_partition.time_zone": tz,
    }
    for k, v in extra.items():
        p["dynamic_partition." + k] = str(v)
    return parse_properties(p, column, max_dynamic_partition_num=max_num)


def ranges(partitions):
    return [(p.name, p.lower, p.upper) for p in partitions]


def run(p, existing, now, column="DATE", **kw):
    """One scheduler pass applied: drops first, then creations. Returns (plan, partitions)."""
    result = plan(p, existing, now, column, **kw)
    kept = [e for e in existing if e.name not in result.to_drop]
    kept += [ExistingPartition(c.name, c.lower, c.upper) for c in result.to_create]
    kept.sort(key=lambda e: dt.datetime.combine(e.lower, dt.time()) if type(e.lower) is dt.date else e.lower)
    return result, kept


# --------------------------------------------------------------------------- example 1: DAY


def test_day_example_initial_partitions():
    p = props("DAY", 3, start=-7)
    result = plan(p, [], T(2020, 5, 29, 10), "DATE")
    assert ranges(result.to_create) == [
        ("p20200529", D(2020, 5, 29), D(2020, 5, 30)),
        ("p20200530", D(2020, 5, 30), D(2020, 5, 31)),
        ("p20200531", D(2020, 5, 31), D(2020, 6, 1)),
        ("p20200601", D(2020, 6, 1), D(2020, 6, 2)),
    ]
    assert result.to_drop == [] and result.errors == []
    assert result.now_partition_name == "p20200529"
    assert [c.lower_text for c in result.to_create][0] == "2020-05-29"


def test_day_example_next_days():
    p = props("DAY", 3, start=-7)
    _, parts = run(p, [], T(2020, 5, 29, 10))
    result, parts = run(p, parts, T(2020, 5, 30, 0, 5))
    assert ranges(result.to_create) == [("p20200602", D(2020, 6, 2), D(2020, 6, 3))]
    assert result.to_drop == []
    day = T(2020, 5, 30, 0, 5)
    while day.date() < D(2020, 6, 5):
        day += dt.timedelta(days=1)
        result, parts = run(p, parts, day)
        assert result.to_drop == [], day
    assert day.date() == D(2020, 6, 5)
    assert "p20200529" in [x.name for x in parts]
    result, parts = run(p, parts, T(2020, 6, 6, 9))
    assert result.to_drop == ["p20200529"]
    assert ranges(result.to_create) == [("p20200609", D(2020, 6, 9), D(2020, 6, 10))]
    assert [x.name for x in parts][0] == "p20200530"
    assert result.start_border == D(2020, 5, 30)


def test_rerun_same_time_is_a_no_op():
    p = props("DAY", 3, start=-7)
    _, parts = run(p, [], T(2020, 5, 29, 10))
    result = plan(p, parts, T(2020, 5, 29, 23, 59), "DATE")
    assert result.to_create == [] and result.to_drop == [] and result.errors == []


# --------------------------------------------------------------------------- example 2: WEEK


def test_week_example_datetime_monday():
    p = props("WEEK", 2, start=-2, column="DATETIME")
    result = plan(p, [], T(2020, 5, 29, 12), "DATETIME")
    assert ranges(result.to_create) == [
        ("p2020_22", T(2020, 5, 25), T(2020, 6, 1)),
        ("p2020_23", T(2020, 6, 1), T(2020, 6, 8)),
        ("p2020_24", T(2020, 6, 8), T(2020, 6, 15)),
    ]
    assert result.to_create[0].lower_text == "2020-05-25 00:00:00"
    assert result.to_create[0].upper_text == "2020-06-01 00:00:00"


def test_week_example_drop_on_week_25():
    p = props("WEEK", 2, start=-2, column="DATETIME")
    _, parts = run(p, [], T(2020, 5, 29, 12), "DATETIME")
    day = T(2020, 5, 29, 12)
    while day.date() < D(2020, 6, 14):
        day += dt.timedelta(days=1)
        result, parts = run(p, parts, day, "DATETIME")
        assert result.to_drop == [], day
    result, parts = run(p, parts, T(2020, 6, 15, 0, 1), "DATETIME")
    assert result.to_drop == ["p2020_22"]
    assert [x.name for x in parts] == ["p2020_23", "p2020_24", "p2020_25", "p2020_26", "p2020_27"]


def test_week_example_wednesday_start():
    p = props("WEEK", 2, start=-2, column="DATETIME", start_day_of_week=3)
    result = plan(p, [], T(2020, 5, 29, 12), "DATETIME")
    assert ranges(result.to_create) == [
        ("p2020_22", T(2020, 5, 27), T(2020, 6, 3)),
        ("p2020_23", T(2020, 6, 3), T(2020, 6, 10)),
        ("p2020_24", T(2020, 6, 10), T(2020, 6, 17)),
    ]


def test_week_start_day_is_taken_in_the_iso_week_even_if_ahead():
    # Doris: plusDays(startOfWeek - dayOfWeek) -- on Monday 2020-05-25 a SUNDAY start gives the
    # coming Sunday 2020-05-31 (DynamicPartitionUtilTest: "2020-05-31", "2020_23").
    p = props("WEEK", 3, start_day_of_week=7)
    assert border(p, T(2020, 5, 25, tzinfo=p.zone), 0) == T(2020, 5, 31)
    result = plan(p, [], T(2020, 5, 25), "DATE")
    assert result.to_create[0].name == "p2020_23"
    assert result.to_create[0].lower == D(2020, 5, 31)


@pytest.mark.parametrize(
    "today,start_dow,offset,lower,name",
    [
        # DynamicPartitionUtilTest.testGetPartitionRangeString
        (D(2020, 5, 25), 1, 0, D(2020, 5, 25), "2020_22"),
        (D(2020, 5, 28), 1, 0, D(2020, 5, 25), "2020_22"),
        (D(2020, 5, 25), 7, 0, D(2020, 5, 31), "2020_23"),
        (D(2020, 5, 25), 1, -2, D(2020, 5, 11), "2020_20"),
        (D(2020, 2, 29), 3, 0, D(2020, 2, 26), "2020_09"),
        (D(2020, 2, 29), 2, 1, D(2020, 3, 3), "2020_10"),
        (D(2020, 1, 1), 1, -1, D(2019, 12, 23), "2019_52"),
        (D(2020, 1, 1), 1, 0, D(2019, 12, 30), "2019_53"),
        # the seed's tip
        (D(2019, 12, 31), 2, 0, D(2019, 12, 31), "2019_53"),
        (D(2020, 1, 1), 3, 0, D(2020, 1, 1), "2020_01"),
    ],
)
def test_week_borders_and_names(today, start_dow, offset, lower, name):
    p = props("WEEK", 3, start_day_of_week=start_dow)
    now = T(today.year, today.month, today.day, 12, tzinfo=p.zone)
    b = border(p, now, offset)
    assert b.date() == lower
    assert week_suffix(b.date()) == name


def test_week_numbering_follows_java_calendar_en_us():
    assert java_week_of_year(D(2020, 3, 25)) == 13  # seed: 2020-03-25 -> 2020_13
    assert java_week_of_year(D(2020, 5, 24)) == 22  # Sunday starts a week
    assert java_week_of_year(D(2021, 1, 1)) == 1
    assert week_suffix(D(2021, 1, 4)) == "2021_02"  # Sun-first weeks, week 1 holds Jan 1
    assert week_suffix(D(2020, 12, 28)) == "2020_53"
    assert week_suffix(D(2022, 12, 26)) == "2022_53"  # Dec 31 2022 is a Saturday
    assert week_suffix(D(2023, 1, 2)) == "2023_01"


def test_week_across_year_boundary_drop_and_names():
    p = props("WEEK", 2, start=-1)
    _, parts = run(p, [], T(2019, 12, 24))
    assert [x.name for x in parts] == ["p2019_52", "p2019_53", "p2020_02"]
    result, parts = run(p, parts, T(2020, 1, 6))
    assert result.to_drop == ["p2019_52"]
    assert [x.name for x in parts] == ["p2019_53", "p2020_02", "p2020_03", "p2020_04"]


# --------------------------------------------------------------------------- example 3: MONTH


def test_month_example_start_day_3():
    p = props("MONTH", 2, start_day_of_month=3)
    result = plan(p, [], T(2020, 5, 29), "DATE")
    assert ranges(result.to_create) == [
        ("p202005", D(2020, 5, 3), D(2020, 6, 3)),
        ("p202006", D(2020, 6, 3), D(2020, 7, 3)),
        ("p202007", D(2020, 7, 3), D(2020, 8, 3)),
    ]
    assert result.start_border is None


def test_month_example_start_day_28_before_it():
    p = props("MONTH", 2, start_day_of_month=28)
    result = plan(p, [], T(2020, 5, 20), "DATE")
    assert ranges(result.to_create) == [
        ("p202004", D(2020, 4, 28), D(2020, 5, 28)),
        ("p202005", D(2020, 5, 28), D(2020, 6, 28)),
        ("p202006", D(2020, 6, 28), D(2020, 7, 28)),
    ]


def test_month_history_never_dropped_without_start():
    p = props("MONTH", 2, start_day_of_month=3)
    _, parts = run(p, [], T(2020, 5, 29))
    for month in range(6, 13):
        result, parts = run(p, parts, T(2020, month, 15))
        assert result.to_drop == []
    assert [x.name for x in parts][0] == "p202005"
    assert [x.name for x in parts][-1] == "p202102"


@pytest.mark.parametrize(
    "today,start_dom,offset,lower",
    [
        (D(2020, 5, 25), 1, 0, D(2020, 5, 1)),
        (D(2020, 5, 25), 26, 0, D(2020, 4, 26)),
        (D(2020, 5, 25), 26, -1, D(2020, 3, 26)),
        (D(2020, 2, 29), 26, 3, D(2020, 5, 26)),
        (D(2020, 2, 29), 27, 0, D(2020, 2, 27)),
        (D(2020, 2, 29), 27, -3, D(2019, 11, 27)),
        (D(2021, 1, 31), 28, 1, D(2021, 2, 28)),
    ],
)
def test_month_borders(today, start_dom, offset, lower):
    p = props("MONTH", 3, start_day_of_month=start_dom)
    assert border(p, T(today.year, today.month, today.day, tzinfo=p.zone), offset).date() == lower


def test_month_drop_with_start():
    p = props("MONTH", 1, start=-2)
    parts = [ExistingPartition(f"p2020{m:02d}", D(2020, m, 1), D(2020, m + 1, 1)) for m in range(1, 6)]
    result = plan(p, parts, T(2020, 5, 20), "DATE")
    assert result.to_drop == ["p202001", "p202002"]
    assert ranges(result.to_create) == [("p202006", D(2020, 6, 1), D(2020, 7, 1))]


# --------------------------------------------------------------------------- YEAR and HOUR


def test_year():
    p = props("YEAR", 2, start=-1)
    existing = [
        ExistingPartition("p2018", D(2018, 1, 1), D(2019, 1, 1)),
        ExistingPartition("p2019", D(2019, 1, 1), D(2020, 1, 1)),
    ]
    result = plan(p, existing, T(2020, 5, 29), "DATE")
    assert ranges(result.to_create) == [
        ("p2020", D(2020, 1, 1), D(2021, 1, 1)),
        ("p2021", D(2021, 1, 1), D(2022, 1, 1)),
        ("p2022", D(2022, 1, 1), D(2023, 1, 1)),
    ]
    assert result.to_drop == ["p2018"]


def test_hour():
    p = props("HOUR", 2, start=-2, column="DATETIME")
    result = plan(
        p, [ExistingPartition("p2020052907", T(2020, 5, 29, 7), T(2020, 5, 29, 8))], T(2020, 5, 29, 10, 30), "DATETIME"
    )
    assert ranges(result.to_create) == [
        ("p2020052910", T(2020, 5, 29, 10), T(2020, 5, 29, 11)),
        ("p2020052911", T(2020, 5, 29, 11), T(2020, 5, 29, 12)),
        ("p2020052912", T(2020, 5, 29, 12), T(2020, 5, 29, 13)),
    ]
    assert result.to_drop == ["p2020052907"]  # before START = 08:00


def test_hour_spring_forward_new_york():
    # 2021-03-14 02:00 EST -> 03:00 EDT. Borders are now + n hours on the instant timeline, shown
    # in local time: the 01:00 partition spans the missing hour, no p..02 partition exists.
    p = props("HOUR", 3, column="DATETIME", tz="America/New_York")
    result = plan(p, [], T(2021, 3, 14, 0, 30), "DATETIME")
    assert ranges(result.to_create) == [
        ("p2021031400", T(2021, 3, 14, 0), T(2021, 3, 14, 1)),
        ("p2021031401", T(2021, 3, 14, 1), T(2021, 3, 14, 3)),
        ("p2021031403", T(2021, 3, 14, 3), T(2021, 3, 14, 4)),
        ("p2021031404", T(2021, 3, 14, 4), T(2021, 3, 14, 5)),
    ]


def test_hour_fall_back_new_york():
    # 2021-11-07 02:00 EDT -> 01:00 EST: 01:00 local happens twice, so one offset has an empty
    # range [01:00, 01:00) and is skipped; the next covers [01:00, 02:00) local.
    p = props("HOUR", 3, column="DATETIME", tz="America/New_York")
    result = plan(p, [], T(2021, 11, 7, 0, 30), "DATETIME")
    assert ranges(result.to_create) == [
        ("p2021110700", T(2021, 11, 7, 0), T(2021, 11, 7, 1)),
        ("p2021110701", T(2021, 11, 7, 1), T(2021, 11, 7, 2)),
        ("p2021110702", T(2021, 11, 7, 2), T(2021, 11, 7, 3)),
    ]
    assert any("empty range" in m for m in result.messages)
    assert result.errors == []


def test_hour_in_shanghai_from_utc_instant():
    p = props("HOUR", 1, column="DATETIME", tz="Asia/Shanghai")
    result = plan(p, [], T(2020, 5, 29, 2, 15, tzinfo=dt.timezone.utc), "DATETIME")
    assert [c.name for c in result.to_create] == ["p2020052910", "p2020052911"]


# --------------------------------------------------------------------------- time zones


def test_now_is_taken_in_the_table_zone():
    p = props("DAY", 1, tz="Asia/Shanghai")
    utc_evening = T(2020, 5, 29, 20, 0, tzinfo=dt.timezone.utc)  # 04:00 on 05-30 there
    assert plan(p, [], utc_evening, "DATE").to_create[0].name == "p20200530"
    # naive = wall clock of the table's zone
    assert plan(p, [], T(2020, 5, 29, 20), "DATE").to_create[0].name == "p20200529"
    # naive with an explicit zone for the clock
    assert plan(p, [], T(2020, 5, 29, 20), "DATE", now_zone="UTC").to_create[0].name == "p20200530"
    p_ny = props("DAY", 1, tz="America/New_York")
    assert plan(p_ny, [], utc_evening, "DATE").to_create[0].name == "p20200529"


def test_offset_time_zone():
    p = props("DAY", 1, tz="+08:00")
    assert plan(p, [], T(2020, 5, 29, 20, tzinfo=dt.timezone.utc), "DATE").to_create[0].name == "p20200530"


# --------------------------------------------------------------------------- history partitions


@pytest.mark.parametrize(
    "history_num,expected",
    [
        (1, ["p20210519", "p20210520", "p20210521", "p20210522", "p20210523"]),
        (5, ["p20210517", "p20210518", "p20210519", "p20210520", "p20210521", "p20210522", "p20210523"]),
        (-1, ["p20210517", "p20210518", "p20210519", "p20210520", "p20210521", "p20210522", "p20210523"]),
    ],
)
def test_create_history_partition_examples(history_num, expected):
    p = props("DAY", 3, start=-3, create_history_partition="true", history_partition_num=history_num)
    result = plan(p, [], T(2021, 5, 20, 8), "DATE")
    assert [c.name for c in result.to_create] == expected
    assert [c.is_history for c in result.to_create] == [c.name < "p20210520" for c in result.to_create]
    assert {c.source for c in result.to_create if c.offset < 0} <= {"history"}


def test_history_partition_num_without_start():
    p = props("DAY", 2, create_history_partition="true", history_partition_num=2)
    result = plan(p, [], T(2021, 5, 20), "DATE")
    assert [c.name for c in result.to_create] == ["p20210518", "p20210519", "p20210520", "p20210521", "p20210522"]
    assert result.to_drop == []  # start unset: nothing is ever dropped


def test_history_drop_uses_start_not_history_num():
    p = props("DAY", 1, start=-3, create_history_partition="true", history_partition_num=1)
    existing = [
        ExistingPartition("p20210516", D(2021, 5, 16), D(2021, 5, 17)),
        ExistingPartition("p20210517", D(2021, 5, 17), D(2021, 5, 18)),
    ]
    result = plan(p, existing, T(2021, 5, 20), "DATE")
    assert result.to_drop == ["p20210516"]
    assert [c.name for c in result.to_create] == ["p20210519", "p20210520", "p20210521"]


def test_without_history_earlier_partitions_are_not_filled():
    p = props("DAY", 3, start=-3)
    result = plan(p, [], T(2021, 5, 20), "DATE")
    assert [c.name for c in result.to_create][0] == "p20210520"


# --------------------------------------------------------------------------- conflicts


def test_granularity_change_day_to_month():
    existing = [
        ExistingPartition("p20200519", D(2020, 5, 19), D(2020, 5, 20)),
        ExistingPartition("p20200520", D(2020, 5, 20), D(2020, 5, 21)),
        ExistingPartition("p20200521", D(2020, 5, 21), D(2020, 5, 22)),
    ]
    p = props("MONTH", 1)
    result = plan(p, existing, T(2020, 5, 21), "DATE")
    assert ranges(result.to_create) == [("p202006", D(2020, 6, 1), D(2020, 7, 1))]
    assert len(result.create_errors) == 1
    assert "p202005" in result.create_errors[0] and "2020-05-01" in result.create_errors[0]
    assert result.state == "ERROR"
    assert result.last_create_partition_msg == result.create_errors[0]


def test_conflict_when_creating_table_is_skipped_and_recorded():
    """Doris DynamicPartitionScheduler.getAddPartitionClause skips a range that intersects an
    existing partition, also on the first pass during CREATE TABLE (regression suite
    test_dynamic_partition_failed: table ..._ok2 with a manual `phistory` is created)."""
    existing = [ExistingPartition("p_manual", D(2020, 5, 28), D(2020, 5, 30))]
    p = props("DAY", 3)
    for creating in (True, False):
        result = plan(p, existing, T(2020, 5, 29), "DATE", creating_table=creating)
        assert [c.name for c in result.to_create] == ["p20200530", "p20200531", "p20200601"]
        assert result.last_create_partition_msg == (
            "Range [2020-05-28, 2020-05-30) of partition p_manual is intersected with range: "
            "[2020-05-29, 2020-05-30) of new partition p20200529"
        )


def test_identical_existing_range_is_kept_silently():
    existing = [ExistingPartition("my_day", D(2020, 5, 29), D(2020, 5, 30))]
    p = props("DAY", 1)
    result = plan(p, existing, T(2020, 5, 29), "DATE", creating_table=True)
    assert [c.name for c in result.to_create] == ["p20200530"]
    assert result.errors == []


def test_manual_partitions_after_end_and_maxvalue_are_kept():
    existing = [
        ExistingPartition("p_old", None, D(2020, 1, 1)),
        ExistingPartition("p_future", D(2020, 9, 1), D(2020, 10, 1)),
        ExistingPartition("p_max", D(2020, 10, 1), None),
    ]
    p = props("DAY", 2, start=-1)
    result = plan(p, existing, T(2020, 5, 29), "DATE")
    assert result.to_drop == ["p_old"]
    assert [c.name for c in result.to_create] == ["p20200529", "p20200530", "p20200531"]


def test_partition_straddling_start_is_kept():
    existing = [ExistingPartition("wide", D(2020, 5, 20), D(2020, 5, 25))]
    p = props("DAY", 1, start=-7)  # START = 2020-05-22
    assert plan(p, existing, T(2020, 5, 29), "DATE").to_drop == []
    assert plan(p, existing, T(2020, 6, 1), "DATE").to_drop == ["wide"]


def test_duplicate_name_is_not_created():
    existing = [ExistingPartition("p20200530", D(2021, 1, 1), D(2021, 1, 2))]
    result = plan(props("DAY", 1), existing, T(2020, 5, 29), "DATE")
    assert [c.name for c in result.to_create] == ["p20200529"]
    assert "Duplicate partition name p20200530" in result.create_errors[0]


# --------------------------------------------------------------------------- limits, disable


def test_too_many_partitions_refused():
    with pytest.raises(AnalysisError, match=r"^Too many dynamic partitions: 503\. Limit: 500$"):
        props("DAY", 3, start=-500, create_history_partition="true")
    p = props("DAY", 3, start=-500, create_history_partition="true", max_num=1000)
    result = plan(p, [], T(2020, 5, 29), "DATE", max_dynamic_partition_num=500)
    assert result.to_create == []
    assert result.create_errors == ["Too many dynamic partitions: 503. Limit: 500"]
    with pytest.raises(AnalysisError, match="503"):
        plan(p, [], T(2020, 5, 29), "DATE", creating_table=True)
    assert len(plan(p, [], T(2020, 5, 29), "DATE", max_dynamic_partition_num=1000).to_create) == 504


def test_disabled_table_plans_nothing():
    p = props("DAY", 3, start=-1, enable="false")
    existing = [ExistingPartition("p20200101", D(2020, 1, 1), D(2020, 1, 2))]
    result = plan(p, existing, T(2020, 5, 29), "DATE")
    assert result.to_create == [] and result.to_drop == []


# --------------------------------------------------------------------------- reserved periods


def test_reserved_history_periods_day():
    # seed: today 2021-09-06, end=3, start=-3, reserved [2020-06-01,2020-06-20],[2020-10-31,2020-11-15]
    p = props("DAY", 3, start=-3, reserved_history_periods="[2020-06-01,2020-06-20],[2020-10-31,2020-11-15]")
    days = [
        D(2020, 5, 31),
        D(2020, 6, 1),
        D(2020, 6, 10),
        D(2020, 6, 20),
        D(2020, 6, 21),
        D(2020, 10, 30),
        D(2020, 10, 31),
        D(2020, 11, 15),
        D(2020, 11, 16),
        D(2021, 9, 2),
        D(2021, 9, 3),
    ]
    existing = [ExistingPartition("p" + d.strftime("%Y%m%d"), d, d + dt.timedelta(days=1)) for d in days]
    result = plan(p, existing, T(2021, 9, 6), "DATE")
    assert result.to_drop == ["p20200531", "p20200621", "p20201030", "p20201116", "p20210902"]


def test_reserved_history_periods_month_partitions():
    p = props("MONTH", 1, start=-1, reserved_history_periods="[2020-06-15,2020-06-20]")
    existing = [ExistingPartition(f"p2020{m:02d}", D(2020, m, 1), D(2020, m + 1, 1)) for m in range(5, 8)]
    result = plan(p, existing, T(2021, 9, 6), "DATE")
    assert result.to_drop == ["p202005", "p202007"]


def test_reserved_history_periods_hour():
    p = props(
        "HOUR", 1, start=-1, column="DATETIME", reserved_history_periods="[2020-06-01 00:00:00,2020-06-01 03:00:00]"
    )
    existing = [ExistingPartition(f"p20200601{h:02d}", T(2020, 6, 1, h), T(2020, 6, 1, h + 1)) for h in range(0, 6)]
    result = plan(p, existing, T(2021, 9, 6, 12), "DATETIME")
    assert result.to_drop == ["p2020060104", "p2020060105"]


def test_reserved_history_periods_datetime_column_day_unit():
    p = props("DAY", 1, start=-1, column="DATETIME", reserved_history_periods="[2020-06-01,2020-06-02]")
    existing = [ExistingPartition(f"p202006{d:02d}", T(2020, 6, d), T(2020, 6, d + 1)) for d in range(1, 5)]
    result = plan(p, existing, T(2021, 9, 6), "DATETIME")
    assert result.to_drop == ["p20200603", "p20200604"]


@pytest.mark.parametrize(
    ("unit", "column", "start", "border_text"),
    [
        # Java's yyyy is the year of era, with '+' past four digits (proleptic -271767 is 271768 BC);
        # the dates checked against an independent days-to-civil conversion (H. Hinnant's algorithm)
        ("DAY", "DATETIME", -99999999, "+271768-09-29 00:00:00"),
        ("WEEK", "DATE", -99999999, "+1914512-07-22"),
        ("MONTH", "DATE", -99999999, "+8331310-03-01"),
        ("YEAR", "DATE", -99999999, "+99997976-01-01"),
        ("HOUR", "DATETIME", -99999999, "9385-06-30 19:00:00"),
    ],
)
def test_a_start_border_no_date_can_hold_drops_nothing_and_says_why(unit, column, start, border_text):
    """DynamicPartitionScheduler.getDropPartitionClause: the START border cannot be a partition
    key -> no drop, the reason recorded; the history (history_partition_num) is still created."""
    p = props(unit, 1, column=column, tz="UTC", start=start, history_partition_num=1, create_history_partition="true")
    result = plan(
        p, [ExistingPartition("old", None, D(2020, 1, 1))], T(2024, 6, 10, 10, tzinfo=dt.timezone.utc), column
    )
    assert result.to_drop == []
    assert len(result.to_create) == 3  # one history period, the current one, one ahead
    assert result.last_drop_partition_msg == (
        f"'dynamic_partition.start' = {start}, maybe it's too small, can use alter table sql to increase it. "
        f", error: date/datetime literal [{border_text}] is invalid"
    )
