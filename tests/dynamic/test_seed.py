"""Every example of seed 001 (dynamic partitioning), through SQL: exact names and ranges."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError

from .conftest import dynamic_table


def day_range(names):
    import datetime as dt

    out = {}
    for n in names:
        d = dt.datetime.strptime(n[1:], "%Y%m%d").date()
        out[n] = (d.isoformat(), (d + dt.timedelta(days=1)).isoformat())
    return out


# ---------------------------------------------------------------------- example 1 (DAY)


def test_example1_day_create_next_day_and_drop(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("tbl1", start=-7, end=3, time_unit="DAY", buckets=32))
    assert h.partitions("tbl1") == {
        "p20200529": ("2020-05-29", "2020-05-30"),
        "p20200530": ("2020-05-30", "2020-05-31"),
        "p20200531": ("2020-05-31", "2020-06-01"),
        "p20200601": ("2020-06-01", "2020-06-02"),
    }
    # "On the next day, 2020-05-30, a new partition will be created p20200602"
    report = h.run_pass("2020-05-30 00:05:00")
    assert report.created == {"d.tbl1": ["p20200602"]} and not report.dropped
    assert h.partitions("tbl1")["p20200602"] == ("2020-06-02", "2020-06-03")
    # day by day until 2020-06-05: nothing is dropped yet
    for day in range(31, 32):
        h.run_pass(f"2020-05-{day} 00:05:00")
    for day in range(1, 6):
        report = h.run_pass(f"2020-06-{day:02d} 00:05:00")
        assert not report.dropped
    assert "p20200529" in h.names("tbl1")
    # "On 2020-06-06 ... the partition p20200529 will be deleted"
    report = h.run_pass("2020-06-06 00:05:00")
    assert report.dropped == {"d.tbl1": ["p20200529"]}
    assert report.created == {"d.tbl1": ["p20200609"]}
    assert h.names("tbl1") == [f"p202005{d}" for d in (30, 31)] + [f"p202006{d:02d}" for d in range(1, 10)]


# ---------------------------------------------------------------------- example 2 (WEEK, DATETIME)


def test_example2_week_datetime(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("tbl1", "DATETIME", time_unit="WEEK", start=-2, end=2, buckets=8))
    assert h.partitions("tbl1") == {
        "p2020_22": ("2020-05-25 00:00:00", "2020-06-01 00:00:00"),
        "p2020_23": ("2020-06-01 00:00:00", "2020-06-08 00:00:00"),
        "p2020_24": ("2020-06-08 00:00:00", "2020-06-15 00:00:00"),
    }
    # weekly passes; on 2020-06-15 (week 25) p2020_22 goes
    h.run_pass("2020-06-05 00:00:00")
    assert "p2020_22" in h.names("tbl1")
    report = h.run_pass("2020-06-15 00:00:00")
    assert report.dropped == {"d.tbl1": ["p2020_22"]}
    assert h.names("tbl1") == ["p2020_23", "p2020_24", "p2020_25", "p2020_26", "p2020_27"]
    assert h.partitions("tbl1")["p2020_27"] == ("2020-06-29 00:00:00", "2020-07-06 00:00:00")


def test_example2_week_starting_wednesday(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("tbl1", "DATETIME", time_unit="WEEK", start=-2, end=2, buckets=8, start_day_of_week=3))
    assert h.partitions("tbl1") == {
        "p2020_22": ("2020-05-27 00:00:00", "2020-06-03 00:00:00"),
        "p2020_23": ("2020-06-03 00:00:00", "2020-06-10 00:00:00"),
        "p2020_24": ("2020-06-10 00:00:00", "2020-06-17 00:00:00"),
    }


@pytest.mark.parametrize(
    "now, start_day, name, lower",
    [
        ("2019-12-31 08:00:00", 2, "p2019_53", "2019-12-31"),  # Tuesday-based week starting 2019-12-31
        ("2020-01-01 08:00:00", 3, "p2020_01", "2020-01-01"),  # Wednesday-based week starting 2020-01-01
    ],
)
def test_example2_tip_week_names_at_new_year(h, now, start_day, name, lower):
    h.at(now)
    h.sql(dynamic_table("tbl1", time_unit="WEEK", end=1, start_day_of_week=start_day))
    parts = h.partitions("tbl1")
    assert h.names("tbl1")[0] == name and parts[name][0] == lower


# ---------------------------------------------------------------------- example 3 (MONTH)


def test_example3_month_start_day_3(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("tbl1", time_unit="MONTH", end=2, buckets=8, start_day_of_month=3))
    assert h.partitions("tbl1") == {
        "p202005": ("2020-05-03", "2020-06-03"),
        "p202006": ("2020-06-03", "2020-07-03"),
        "p202007": ("2020-07-03", "2020-08-03"),
    }
    # start is not set: history is never dropped, even a year later
    report = h.run_pass("2021-05-29 10:00:00")
    assert not report.dropped
    assert h.names("tbl1")[:3] == ["p202005", "p202006", "p202007"]
    assert h.names("tbl1")[-3:] == ["p202105", "p202106", "p202107"]


def test_example3_month_start_day_28_on_the_20th(h):
    h.at("2020-05-20 10:00:00")
    h.sql(dynamic_table("tbl1", time_unit="MONTH", end=2, buckets=8, start_day_of_month=28))
    assert h.partitions("tbl1") == {
        "p202004": ("2020-04-28", "2020-05-28"),
        "p202005": ("2020-05-28", "2020-06-28"),
        "p202006": ("2020-06-28", "2020-07-28"),
    }


# ---------------------------------------------------------------------- history partitions


@pytest.mark.parametrize("history_num, first", [(1, 19), (5, 17), (-1, 17)])
def test_create_history_partition_examples(h, history_num, first):
    h.at("2021-05-20 10:00:00")
    h.sql(
        dynamic_table(
            "tbl1", time_unit="DAY", start=-3, end=3, create_history_partition="true", history_partition_num=history_num
        )
    )
    expected = [f"p202105{d}" for d in range(first, 24)]
    assert h.partitions("tbl1") == day_range(expected)


def test_history_partitions_without_create_history_start_at_today(h):
    h.at("2021-05-20 10:00:00")
    h.sql(dynamic_table("tbl1", time_unit="DAY", start=-3, end=3))
    assert h.names("tbl1") == [f"p202105{d}" for d in range(20, 24)]


def test_too_many_partitions_refused_by_max_dynamic_partition_num(h):
    h.at("2021-05-20 10:00:00")
    with pytest.raises(AnalysisError, match="Too many dynamic partitions: 503. Limit: 500"):
        h.sql(dynamic_table("tbl1", time_unit="DAY", start=-500, end=3, create_history_partition="true"))
    assert "tbl1" not in h.engine.catalog.list_tables("d")
    h.sql('ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "1000")')
    h.sql(dynamic_table("tbl1", time_unit="DAY", start=-500, end=3, create_history_partition="true"))
    names = h.names("tbl1")
    assert len(names) == 504 and names[0] == "p20200106" and names[-1] == "p20210523"


# ---------------------------------------------------------------------- reserved history periods


def test_reserved_history_periods_example(h):
    # today 2021-09-06, DAY, start -3, end 3, two reserved periods; older partitions given in DDL
    h.at("2021-09-06 10:00:00")
    props = (
        '"dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY", '
        '"dynamic_partition.start" = "-3", "dynamic_partition.end" = "3", "dynamic_partition.prefix" = "p", '
        '"dynamic_partition.reserved_history_periods" = "[2020-06-01,2020-06-20],[2020-10-31,2020-11-15]"'
    )
    h.sql(f"""CREATE TABLE tbl1 (k1 DATE, v INT) PARTITION BY RANGE(k1) (
                PARTITION p20200531 VALUES [('2020-05-31'), ('2020-06-01')),
                PARTITION p20200601 VALUES [('2020-06-01'), ('2020-06-02')),
                PARTITION p20200620 VALUES [('2020-06-20'), ('2020-06-21')),
                PARTITION p20200621 VALUES [('2020-06-21'), ('2020-06-22')),
                PARTITION p20201031 VALUES [('2020-10-31'), ('2020-11-01')),
                PARTITION p20201115 VALUES [('2020-11-15'), ('2020-11-16')),
                PARTITION p20201116 VALUES [('2020-11-16'), ('2020-11-17')),
                PARTITION p20210902 VALUES [('2021-09-02'), ('2021-09-03')),
                PARTITION p20210903 VALUES [('2021-09-03'), ('2021-09-04')))
              DISTRIBUTED BY HASH(k1) BUCKETS 2 PROPERTIES ({props})""")
    assert h.names("tbl1") == [
        "p20200601",
        "p20200620",
        "p20201031",
        "p20201115",
        "p20210903",
        "p20210906",
        "p20210907",
        "p20210908",
        "p20210909",
    ]
    row = h.dynamic_rows()["tbl1"]
    assert row["ReservedHistoryPeriods"] == "[2020-06-01,2020-06-20],[2020-10-31,2020-11-15]"


def test_reserved_history_periods_hour(h):
    h.at("2020-06-02 10:30:00")
    props = (
        '"dynamic_partition.time_unit" = "HOUR", "dynamic_partition.start" = "-3", '
        '"dynamic_partition.end" = "3", "dynamic_partition.prefix" = "p", '
        '"dynamic_partition.reserved_history_periods" = "[2020-06-01 00:00:00,2020-06-01 03:00:00]"'
    )
    h.sql(f"""CREATE TABLE tbl1 (k1 DATETIME, v INT) PARTITION BY RANGE(k1) (
                PARTITION p2020060102 VALUES [('2020-06-01 02:00:00'), ('2020-06-01 03:00:00')),
                PARTITION p2020060104 VALUES [('2020-06-01 04:00:00'), ('2020-06-01 05:00:00')))
              DISTRIBUTED BY HASH(k1) BUCKETS 2 PROPERTIES ({props})""")
    assert h.names("tbl1") == ["p2020060102"] + [f"p20200602{x}" for x in (10, 11, 12, 13)]


# ---------------------------------------------------------------------- modify properties


def test_granularity_change_day_to_month_conflict(h):
    h.at("2020-05-19 10:00:00")
    h.sql(dynamic_table("tbl1", time_unit="DAY", end=2))
    assert h.names("tbl1") == ["p20200519", "p20200520", "p20200521"]
    h.at("2020-05-21 10:00:00")
    h.sql('ALTER TABLE tbl1 SET ("dynamic_partition.time_unit" = "MONTH")')
    parts = h.partitions("tbl1")
    # ["2020-05-01", "2020-06-01") conflicts and is not created; the following months are
    assert "p202005" not in parts
    assert parts["p202006"] == ("2020-06-01", "2020-07-01")
    assert parts["p202007"] == ("2020-07-01", "2020-08-01")
    assert h.names("tbl1")[:3] == ["p20200519", "p20200520", "p20200521"]
    row = h.dynamic_rows()["tbl1"]
    assert row["TimeUnit"] == "MONTH" and row["State"] == "ERROR"
    assert "p202005" in row["LastCreatePartitionMsg"] and "intersected" in row["LastCreatePartitionMsg"]
    assert row["LastUpdateTime"] == "2020-05-21 10:00:00"
    # the gap 2020-05-22 .. 2020-05-31 is filled by hand, with the rules switched off
    h.sql('ALTER TABLE tbl1 SET ("dynamic_partition.enable" = "false")')
    h.sql("ALTER TABLE tbl1 ADD PARTITION p20200522 VALUES [('2020-05-22'), ('2020-06-01'))")
    h.sql('ALTER TABLE tbl1 SET ("dynamic_partition.enable" = "true")')
    assert h.partitions("tbl1")["p20200522"] == ("2020-05-22", "2020-06-01")
    # still a conflict for May (p202005 overlaps the day partitions): the state stays ERROR
    assert h.dynamic_rows()["tbl1"]["State"] == "ERROR"
    # in June the conflict is gone: the next pass clears the message
    h.run_pass("2020-06-02 10:00:00")
    row = h.dynamic_rows()["tbl1"]
    assert row["State"] == "NORMAL" and row["LastCreatePartitionMsg"] == "N/A"
    assert h.names("tbl1")[-1] == "p202008"


# ---------------------------------------------------------------------- SHOW DYNAMIC PARTITION TABLES


def test_show_dynamic_partition_tables_seed_rows(h):
    h.at("2020-05-25 14:29:24")
    h.sql(
        dynamic_table(
            "d3", time_unit="WEEK", start=-3, end=3, buckets=1, reserved_history_periods="[2021-12-01,2021-12-31]"
        )
    )
    h.sql(dynamic_table("d5", time_unit="DAY", start=-7, end=3, buckets=32))
    h.sql(dynamic_table("d4", time_unit="WEEK", start=-3, end=3, buckets=1, start_day_of_week=3))
    h.sql(dynamic_table("d6", time_unit="MONTH", end=2, buckets=8, start_day_of_month=3))
    h.sql(dynamic_table("d2", time_unit="DAY", start=-3, end=3, buckets=32))
    h.sql(dynamic_table("d7", time_unit="MONTH", end=5, buckets=8, start_day_of_month=24))
    h.sql("CREATE TABLE plain (k1 DATE, v INT) PARTITION BY RANGE(k1) () DISTRIBUTED BY HASH(k1) BUCKETS 1")
    result = h.one("SHOW DYNAMIC PARTITION TABLES")
    assert list(result.columns) == [
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
    rows = {r[0]: list(r) for r in result.rows}
    tail = ["N/A", "2020-05-25 14:29:24", "NORMAL", "N/A", "N/A"]
    assert rows == {
        "d3": ["d3", "true", "WEEK", "-3", "3", "p", "1", "MONDAY", *tail, "[2021-12-01,2021-12-31]"],
        "d5": ["d5", "true", "DAY", "-7", "3", "p", "32", "N/A", *tail, "NULL"],
        "d4": ["d4", "true", "WEEK", "-3", "3", "p", "1", "WEDNESDAY", *tail, "NULL"],
        "d6": ["d6", "true", "MONTH", "-2147483648", "2", "p", "8", "3rd", *tail, "NULL"],
        "d2": ["d2", "true", "DAY", "-3", "3", "p", "32", "N/A", *tail, "NULL"],
        "d7": ["d7", "true", "MONTH", "-2147483648", "5", "p", "8", "24th", *tail, "NULL"],
    }
    assert set(h.dynamic_rows("d")) == set(rows)
