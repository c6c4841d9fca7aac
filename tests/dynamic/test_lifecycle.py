"""The partition lifecycle without data: passes over simulated time, idempotence, commits,
ALTER TABLE SET, manual partitions, global settings, time zones, validation, restarts."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError

from .conftest import Harness, dynamic_table

MANUAL = "Cannot add/drop partition on a Dynamic Partition Table"


# ---------------------------------------------------------------------- passes and commits


def test_idle_pass_writes_nothing_and_second_pass_changes_nothing(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("a", time_unit="DAY", start=-3, end=3))
    h.sql(dynamic_table("b", "DATETIME", time_unit="HOUR", start=-5, end=2))
    h.sql("CREATE TABLE plain (k1 DATE, v INT) PARTITION BY RANGE(k1) () DISTRIBUTED BY HASH(k1) BUCKETS 1")
    delta, cat = h.delta_versions(), h.catalog_versions()
    report = h.run_pass()
    assert report.tables == 2 and not report.created and not report.dropped and not report.errors
    assert h.delta_versions() == delta and h.catalog_versions() == cat

    # a day later: partitions are created (catalog only: no Delta commit) and old ones dropped
    first = h.run_pass("2020-06-02 10:00:00")
    assert first.created["d.a"] == ["p20200602", "p20200603", "p20200604", "p20200605"]
    assert first.dropped["d.a"] == ["p20200529"]
    assert h.delta_versions() == delta  # empty partitions: creating and dropping commit no Delta log
    names, delta2, cat2 = h.names("a"), h.delta_versions(), h.catalog_versions()
    second = h.run_pass()
    assert not second.created and not second.dropped
    assert h.names("a") == names and h.delta_versions() == delta2 and h.catalog_versions() == cat2


def test_pass_plans_from_the_catalog_only(h, monkeypatch):
    """An idle pass never opens a Delta log (metadata only)."""
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("a", time_unit="DAY", start=-3, end=3))
    import deltalake

    def boom(*args, **kwargs):
        raise AssertionError("the idle pass opened a Delta table")

    monkeypatch.setattr(deltalake, "DeltaTable", boom)
    report = h.run_pass()
    assert report.tables == 1 and not report.errors


def test_hour_table_ages(h):
    h.at("2020-05-29 10:30:00")
    h.sql(dynamic_table("t", "DATETIME", time_unit="HOUR", start=-2, end=2))
    assert h.partitions("t") == {
        "p2020052910": ("2020-05-29 10:00:00", "2020-05-29 11:00:00"),
        "p2020052911": ("2020-05-29 11:00:00", "2020-05-29 12:00:00"),
        "p2020052912": ("2020-05-29 12:00:00", "2020-05-29 13:00:00"),
    }
    report = h.run_pass("2020-05-29 13:05:00")
    assert report.dropped["d.t"] == ["p2020052910"]
    assert report.created["d.t"] == ["p2020052913", "p2020052914", "p2020052915"]
    report = h.run_pass("2020-05-30 00:00:00")
    # START is 22:00 the day before; history is not back-filled (create_history_partition false)
    assert report.dropped["d.t"] == ["p2020052911", "p2020052912", "p2020052913", "p2020052914", "p2020052915"]
    assert h.names("t") == ["p2020053000", "p2020053001", "p2020053002"]


def test_hour_table_across_dst_spring_forward_new_york(h):
    h.at("2021-03-14 00:30:00")
    h.sql(dynamic_table("t", "DATETIME", time_unit="HOUR", start=-2, end=3, time_zone="America/New_York"))
    # 02:00-03:00 does not exist that night: the 01:00 partition runs to 03:00 local
    assert h.partitions("t") == {
        "p2021031400": ("2021-03-14 00:00:00", "2021-03-14 01:00:00"),
        "p2021031401": ("2021-03-14 01:00:00", "2021-03-14 03:00:00"),
        "p2021031403": ("2021-03-14 03:00:00", "2021-03-14 04:00:00"),
        "p2021031404": ("2021-03-14 04:00:00", "2021-03-14 05:00:00"),
    }
    report = h.run_pass("2021-03-14 04:10:00")  # two real hours back is 01:10 EST
    assert report.dropped["d.t"] == ["p2021031400"]
    assert report.created["d.t"] == ["p2021031405", "p2021031406", "p2021031407"]
    assert h.names("t")[0] == "p2021031401"


def test_hour_table_across_dst_fall_back_new_york(h):
    h.at("2021-11-07 00:30:00")
    h.sql(dynamic_table("t", "DATETIME", time_unit="HOUR", end=3, time_zone="America/New_York"))
    # 01:00-02:00 happens twice; local bounds cannot tell them apart, so one partition holds both
    assert h.partitions("t") == {
        "p2021110700": ("2021-11-07 00:00:00", "2021-11-07 01:00:00"),
        "p2021110701": ("2021-11-07 01:00:00", "2021-11-07 02:00:00"),
        "p2021110702": ("2021-11-07 02:00:00", "2021-11-07 03:00:00"),
    }
    report = h.run_pass("2021-11-07 02:30:00")
    assert report.created["d.t"] == ["p2021110703", "p2021110704", "p2021110705"]


def test_day_table_in_another_zone_follows_its_own_midnight(h):
    # the session clock says 20:00 UTC on the 28th: it is already the 29th in Shanghai
    h.sql("SET time_zone = 'UTC'")
    h.at("2020-05-28 20:00:00")
    h.sql(dynamic_table("sh", time_unit="DAY", end=1, time_zone="Asia/Shanghai"))
    h.sql(dynamic_table("ny", time_unit="DAY", end=1, time_zone="America/New_York"))
    h.sql(dynamic_table("utc", time_unit="DAY", end=1, time_zone="UTC"))
    assert h.names("sh") == ["p20200529", "p20200530"]
    assert h.names("ny") == ["p20200528", "p20200529"]
    assert h.names("utc") == ["p20200528", "p20200529"]
    report = h.run_pass("2020-05-29 03:30:00")  # 23:30 on the 28th in New York
    assert "d.ny" not in report.created and report.created["d.utc"] == ["p20200530"]


def test_week_and_year_tables_age(h):
    h.at("2020-12-30 10:00:00")
    h.sql(dynamic_table("w", time_unit="WEEK", start=-1, end=1))
    h.sql(dynamic_table("y", time_unit="YEAR", start=-1, end=1))
    assert h.partitions("w") == {"p2020_53": ("2020-12-28", "2021-01-04"), "p2021_02": ("2021-01-04", "2021-01-11")}
    assert h.partitions("y") == {"p2020": ("2020-01-01", "2021-01-01"), "p2021": ("2021-01-01", "2022-01-01")}
    report = h.run_pass("2022-01-15 10:00:00")
    assert report.dropped == {"d.w": ["p2020_53", "p2021_02"], "d.y": ["p2020"]}
    assert h.names("y") == ["p2021", "p2022", "p2023"]
    assert h.names("w") == ["p2022_03", "p2022_04"]


# ---------------------------------------------------------------------- manual partitions


def test_manual_add_and_drop_refused_while_dynamic_then_allowed(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-2, end=1))
    with pytest.raises(AnalysisError, match=MANUAL):
        h.sql("ALTER TABLE t ADD PARTITION p2019 VALUES [('2019-01-01'), ('2020-01-01'))")
    with pytest.raises(AnalysisError, match=MANUAL):
        h.sql("ALTER TABLE t DROP PARTITION p20200529")
    assert h.names("t") == ["p20200529", "p20200530"]

    # switched off: the table is manual; the scheduler leaves it alone
    h.sql('ALTER TABLE t SET ("dynamic_partition.enable" = "false")')
    h.sql("ALTER TABLE t ADD PARTITION p2019 VALUES [('2019-01-01'), ('2020-01-01'))")
    h.sql("ALTER TABLE t DROP PARTITION p20200530")
    report = h.run_pass("2020-06-10 10:00:00")
    assert report.tables == 1 and not report.created and not report.dropped
    assert h.names("t") == ["p2019", "p20200529"]
    assert h.dynamic_rows()["t"]["Enable"] == "false"

    # switched on again: redundant (pre-START) partitions go, the window is filled
    h.sql('ALTER TABLE t SET ("dynamic_partition.enable" = "true")')
    assert h.names("t") == ["p20200610", "p20200611"]
    row = h.dynamic_rows()["t"]
    assert row["Enable"] == "true" and row["LastUpdateTime"] == "2020-06-10 10:00:00"


def test_alter_turns_a_manual_range_table_dynamic(h):
    h.at("2020-05-29 10:00:00")
    h.sql("""CREATE TABLE t (k1 DATE, v INT) PARTITION BY RANGE(k1) (
               PARTITION old VALUES [('2020-01-01'), ('2020-02-01')),
               PARTITION later VALUES [('2021-01-01'), ('2021-02-01')))
             DISTRIBUTED BY HASH(k1) BUCKETS 3""")
    assert h.dynamic_rows() == {}
    with pytest.raises(AnalysisError, match="time_unit"):
        h.sql('ALTER TABLE t SET ("dynamic_partition.enable" = "true")')
    h.sql(
        'ALTER TABLE t SET ("dynamic_partition.time_unit" = "DAY", "dynamic_partition.start" = "-1", '
        '"dynamic_partition.end" = "1", "dynamic_partition.prefix" = "p")'
    )
    # before START: dropped; after END: kept (manual partitions after END are retained)
    assert h.names("t") == ["p20200529", "p20200530", "later"]
    row = h.dynamic_rows()["t"]
    assert row["Buckets"] == "3" and row["LastUpdateTime"] == "2020-05-29 10:00:00"


def test_invalid_alter_changes_nothing(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-2, end=1))
    before = h.catalog_versions()
    for change, message in [
        ('"dynamic_partition.time_unit" = "HOUR"', "could not be HOUR"),
        ('"dynamic_partition.start" = "1"', "start must less than 0"),
        ('"dynamic_partition.end" = "0"', "end must greater than 0"),
        ('"dynamic_partition.buckets" = "x"', "Invalid dynamic partition buckets"),
        ('"dynamic_partition.start_day_of_month" = "29"', "should between 1 and 28"),
        ('"dynamic_partition.time_zone" = "Mars/Olympus"', "Unknown or incorrect time zone"),
        ('"dynamic_partition.reserved_history_periods" = "[2020-06-20,2020-06-01]"', "larger than the second"),
        ('"dynamic_partition.unknown" = "1"', "Unknown properties"),
    ]:
        with pytest.raises(AnalysisError, match=message):
            h.sql(f"ALTER TABLE t SET ({change})")
    assert h.catalog_versions() == before


@pytest.mark.parametrize(
    "ddl, message",
    [
        (
            "CREATE TABLE t (k1 DATE, v INT) PARTITION BY LIST(k1) () DISTRIBUTED BY HASH(k1) BUCKETS 1 "
            'PROPERTIES ("dynamic_partition.time_unit" = "DAY", "dynamic_partition.end" = "1", '
            '"dynamic_partition.prefix" = "p")',
            "range partition|single-column range",
        ),
        (
            "CREATE TABLE t (k1 DATE, k2 DATE, v INT) PARTITION BY RANGE(k1, k2) () DISTRIBUTED BY HASH(k1) BUCKETS 1 "
            'PROPERTIES ("dynamic_partition.time_unit" = "DAY", "dynamic_partition.end" = "1", '
            '"dynamic_partition.prefix" = "p")',
            "single-column range",
        ),
        (
            "CREATE TABLE t (k1 INT, v INT) PARTITION BY RANGE(k1) () DISTRIBUTED BY HASH(k1) BUCKETS 1 "
            'PROPERTIES ("dynamic_partition.time_unit" = "DAY", "dynamic_partition.end" = "1", '
            '"dynamic_partition.prefix" = "p")',
            "DATE and DATETIME",
        ),
        (
            "CREATE TABLE t (k1 DATE, v INT) DISTRIBUTED BY HASH(k1) BUCKETS 1 "
            'PROPERTIES ("dynamic_partition.time_unit" = "DAY", "dynamic_partition.end" = "1", '
            '"dynamic_partition.prefix" = "p")',
            "range partition",
        ),
        (dynamic_table("t", time_unit="HOUR", end=1), "could not be HOUR when type of partition column k1 is DATE"),
        (dynamic_table("t", time_unit="MINUTE", end=1), "Unsupported time unit MINUTE"),
        (dynamic_table("t", time_unit="DAY"), "Must assign dynamic_partition.end"),
        (dynamic_table("t", end=1), "Must assign dynamic_partition.time_unit"),
        (
            dynamic_table("t", time_unit="DAY", end=1, create_history_partition="true"),
            "Provide start or history_partition_num",
        ),
    ],
)
def test_create_table_validation(h, ddl, message):
    h.at("2020-05-29 10:00:00")
    with pytest.raises(AnalysisError, match=message):
        h.sql(ddl)
    assert h.engine.catalog.list_tables("d") == []


def test_create_table_skips_dynamic_partitions_overlapping_a_listed_one(h):
    """Doris (DynamicPartitionScheduler.getAddPartitionClause): the overlapping periods are
    skipped and the conflict recorded; CREATE TABLE succeeds (regression suite
    test_dynamic_partition_failed, table test_dynamic_partition_failed_ok2)."""
    h.at("2020-05-29 10:00:00")
    h.sql("""CREATE TABLE t (k1 DATE, v INT) PARTITION BY RANGE(k1) (
                PARTITION m VALUES [('2020-05-30 '), ('2020-06-01')))
              DISTRIBUTED BY HASH(k1) BUCKETS 1 PROPERTIES ("dynamic_partition.time_unit" = "DAY",
              "dynamic_partition.end" = "3", "dynamic_partition.prefix" = "p")""")
    assert h.names("t") == ["p20200529", "m", "p20200601"]
    row = h.dynamic_rows()["t"]
    assert row["State"] == "ERROR"
    assert row["LastCreatePartitionMsg"] == (
        "Range [2020-05-30, 2020-06-01) of partition m is intersected with range: "
        "[2020-05-31, 2020-06-01) of new partition p20200531"
    )


def test_history_far_before_year_one_creates_what_it_can(h):
    """regression suite test_dynamic_partition_failed (test_dynamic_partition_failed_ok1): start
    -99999999 with history_partition_num 5 creates 5 history partitions + today + 3, and the drop
    step, whose START border no DATETIME can hold, records why it dropped nothing."""
    h.at("2024-06-10 10:00:00")
    h.sql(
        dynamic_table(
            "ok1",
            "DATETIME",
            time_unit="day",
            end=3,
            start=-99999999,
            history_partition_num=5,
            create_history_partition="true",
        )
    )
    assert len(h.names("ok1")) == 9
    assert h.names("ok1")[0] == "p20240605"
    row = h.dynamic_rows()["ok1"]
    assert row["LastDropPartitionMsg"].startswith(
        "'dynamic_partition.start' = -99999999, maybe it's too small, can use alter table sql to increase it. "
        ", error: date/datetime literal [+"
    )
    assert row["LastDropPartitionMsg"].endswith(" 00:00:00] is invalid")
    # the scheduler's later passes keep the table as it is and the message as it was
    assert not h.run_pass("2024-06-10 12:00:00").dropped
    assert len(h.names("ok1")) == 9


def test_history_that_no_date_can_hold_refuses_the_table(h):
    """Same suite, test_dynamic_partition_failed_2: without history_partition_num (and the FE
    limit raised) the first history border is Doris's invalid date literal; nothing is created."""
    h.at("2024-06-10 10:00:00")
    h.sql("ADMIN SET FRONTEND CONFIG ('max_dynamic_partition_num' = '2147483647')")
    with pytest.raises(AnalysisError) as e:
        h.sql(dynamic_table("f2", "DATETIME", time_unit="day", end=3, start=-99999999, create_history_partition="true"))
    assert e.value.message == "date/datetime literal [+271768-09-29 00:00:00] is invalid"
    assert h.engine.catalog.list_tables("d") == []


def test_replication_allocation_with_a_tag_no_backend_has_is_refused(h):
    """DynamicPartitionUtil.checkReplicaAllocation: backends must exist for the tag; this
    deployment's one backend has tag `default`."""
    with pytest.raises(AnalysisError) as e:
        h.sql(dynamic_table("t", time_unit="DAY", end=3, replication_allocation="tag.location.not_exist_tag: 1"))
    assert e.value.message == (
        "Failed to find enough backend, please check the replication num,replication tag and storage medium "
        "and avail capacity of backends or maybe all be on same host.\n"
        "Create failed replications:\n"
        'replication tag: {"location" : "not_exist_tag"}, replication num: 1, storage medium: HDD'
    )
    assert h.engine.catalog.list_tables("d") == []
    h.sql(dynamic_table("ok", time_unit="DAY", end=3, replication_allocation="tag.location.default: 1"))


# ---------------------------------------------------------------------- global settings


def test_dynamic_partition_enable_switch(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1))
    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "false")')
    report = h.run_pass("2020-06-10 10:00:00")
    assert report.tables == 0 and h.names("t") == ["p20200529", "p20200530"]
    with pytest.raises(AnalysisError, match="dynamic_partition_enable is false"):
        h.sql(dynamic_table("t2", time_unit="DAY", end=1))
    with pytest.raises(AnalysisError, match="dynamic_partition_enable is false"):
        h.sql('ALTER TABLE t SET ("dynamic_partition.enable" = "true")')
    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "true")')
    report = h.run_pass()
    assert report.dropped["d.t"] == ["p20200529", "p20200530"]
    assert h.names("t") == ["p20200610", "p20200611"]


def test_frontend_settings_from_config_file_and_admin_set(tmp_path, make_engine):
    engine = make_engine(
        tmp_path / "wh", frontend={"max_dynamic_partition_num": 5, "dynamic_partition_check_interval_seconds": 7}
    )
    h = Harness(engine)
    h.sql("CREATE DATABASE d; USE d")
    h.at("2020-05-29 10:00:00")
    with pytest.raises(AnalysisError, match="Too many dynamic partitions: 6. Limit: 5"):
        h.sql(dynamic_table("t", time_unit="DAY", end=6))
    h.sql(dynamic_table("t", time_unit="DAY", end=5))
    assert engine.frontend("dynamic_partition_check_interval_seconds") == "7"
    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_check_interval_seconds" = "3")')
    assert engine.frontend("dynamic_partition_check_interval_seconds") == "3"
    with pytest.raises(AnalysisError):
        h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_check_interval_seconds" = "soon")')
    # a pass honours the limit too: raising end above it is refused, the table keeps its rules
    with pytest.raises(AnalysisError, match="Too many"):
        h.sql('ALTER TABLE t SET ("dynamic_partition.end" = "9")')


# ---------------------------------------------------------------------- state and restarts


def test_state_survives_restart(h, tmp_path, make_engine):
    h.at("2020-05-19 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", end=2))
    h.at("2020-05-21 10:00:00")
    h.sql('ALTER TABLE t SET ("dynamic_partition.time_unit" = "MONTH")')
    h.run_pass("2020-05-21 11:00:00")
    before = h.dynamic_rows()["t"]
    assert before["State"] == "ERROR" and before["LastSchedulerTime"] == "2020-05-21 11:00:00"
    h.engine.close()
    again = Harness(make_engine(h.warehouse))
    again.sql("USE d")
    assert again.dynamic_rows()["t"] == before
    assert again.names("t") == h.names("t")


def test_scheduler_report_and_last_scheduler_time(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1))
    assert h.dynamic_rows()["t"]["LastSchedulerTime"] == "2020-05-29 10:00:00"
    report = h.run_pass("2020-05-31 09:00:00")
    assert "1 tables checked, 2 partitions created, 1 dropped" in report.summary()
    h.run_pass("2020-05-31 09:10:00")  # idle: no table commit, but the pass time is recorded
    row = h.dynamic_rows()["t"]
    assert row["LastSchedulerTime"] == "2020-05-31 09:10:00" and row["LastUpdateTime"] == "N/A"


def test_pending_drop_is_finished_before_anything_else(h):
    """A drop that crashed between its catalog commit and its Delta commit is finished by the
    next pass (and only for partitions the catalog no longer lists)."""
    from dorisql.statements.ddl import partitions as parts

    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1))
    location = h.folder("t")
    live = h.key("t", "p20200529")
    parts._write_pending_drops(location, [live, "10999999"])  # the first is still live
    calls = []
    from dorisql.storage import delta

    original = delta.DeltaStore.drop_partitions

    def spy(self, names, **kw):
        calls.append(list(names))
        return original(self, names, **kw)

    delta.DeltaStore.drop_partitions = spy
    try:
        h.run_pass()
    finally:
        delta.DeltaStore.drop_partitions = original
    assert calls == [["10999999"]]
    assert not (location / parts.PENDING_DROP_FILE).exists()
    assert h.names("t") == ["p20200529", "p20200530"]
