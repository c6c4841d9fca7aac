"""Partition creation at scale (thousands of partitions, metadata only) and the limits that
keep a CREATE TABLE or an ALTER from asking for absurd numbers. Spark-free: an Engine on a
fresh warehouse, checked through the catalog and SHOW output. No timings here: bench/partitions.py
measures the speed."""

from __future__ import annotations

import datetime as dt

import pytest

from dorisql.errors import AnalysisError

from .conftest import dynamic_table

BUCKET_LIMIT = "Number of buckets (100000) exceeds the maximum allowed value (768) of max_bucket_num_per_partition"


def _catalog_ranges(h, table: str) -> dict[str, tuple[tuple, tuple]]:
    meta = h.engine.catalog.load_table("d", table)
    return {p.name: (p.lower, p.upper) for p in meta.partitions}


# ---------------------------------------------------------------------- batch FROM .. TO


def test_batch_of_thousands_of_days(h):
    # the example of the report: about four thousand days, one partition each
    h.sql(
        "CREATE TABLE daily (d DATE, v INT) DUPLICATE KEY(d) PARTITION BY RANGE(d) "
        '(FROM ("2000-01-01") TO ("2010-12-01") INTERVAL 1 DAY) DISTRIBUTED BY HASH(v) BUCKETS 1'
    )
    ranges = _catalog_ranges(h, "daily")
    first, end = dt.date(2000, 1, 1), dt.date(2010, 12, 1)
    days = [first + dt.timedelta(days=i) for i in range((end - first).days)]
    assert len(days) == 3987
    assert ranges == {f"p{d:%Y%m%d}": ((d.isoformat(),), ((d + dt.timedelta(days=1)).isoformat(),)) for d in days}
    # SHOW PARTITIONS agrees for a partition in the middle
    middle = h.partitions("daily")["p20050615"]
    assert middle == ("2005-06-15", "2005-06-16")

    # the overlap checks against those thousands of ranges still refuse, naming the first clash
    with pytest.raises(AnalysisError) as err:
        h.sql('ALTER TABLE daily ADD PARTITION bad VALUES [("2005-06-15"), ("2005-06-17"))')
    assert str(err.value) == (
        "Range [types: [DATE]; keys: [2005-06-15]; ..types: [DATE]; keys: [2005-06-17]; ) is "
        "intersected with range: [types: [DATE]; keys: [2005-06-15]; ..types: [DATE]; keys: "
        "[2005-06-16]; )"
    )
    with pytest.raises(AnalysisError, match="is intersected with range"):
        h.sql('ALTER TABLE daily ADD PARTITION bad VALUES LESS THAN ("2005-06-15")')
    assert len(_catalog_ranges(h, "daily")) == 3987  # a refused ADD changes nothing
    # a LESS THAN above them all starts where the last one ends
    h.sql('ALTER TABLE daily ADD PARTITION p_rest VALUES LESS THAN ("2011-01-01")')
    assert _catalog_ranges(h, "daily")["p_rest"] == (("2010-12-01",), ("2011-01-01",))
    # and one in a gap below the first takes the type minimum as its lower bound
    h.sql('ALTER TABLE daily ADD PARTITION p_old VALUES LESS THAN ("1999-01-01")')
    assert _catalog_ranges(h, "daily")["p_old"] == (("0000-01-01",), ("1999-01-01",))


def test_overlap_inside_one_create_table_is_refused(h):
    with pytest.raises(AnalysisError) as err:
        h.sql(
            "CREATE TABLE clash (d DATE, v INT) DUPLICATE KEY(d) PARTITION BY RANGE(d) "
            '(FROM ("2000-01-01") TO ("2009-01-01") INTERVAL 1 DAY, '
            'PARTITION wide VALUES [("2004-02-28"), ("2004-03-02"))) DISTRIBUTED BY HASH(v) BUCKETS 1'
        )
    # the first partition it meets in statement order is named
    assert str(err.value).endswith(
        "intersected with range: [types: [DATE]; keys: [2004-02-28]; ..types: [DATE]; keys: [2004-02-29]; )"
    )
    assert "clash" not in [r[0] for r in h.one("SHOW TABLES").rows]


# ---------------------------------------------------------------------- dynamic


def test_dynamic_hour_table_with_thousands_of_partitions(h):
    h.sql('ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "5000")')
    h.at("2020-05-29 10:30:00")
    h.sql(dynamic_table("hourly", "DATETIME", time_unit="HOUR", end=3000, time_zone="UTC"))
    ranges = _catalog_ranges(h, "hourly")
    now = dt.datetime(2020, 5, 29, 10)
    hours = [now + dt.timedelta(hours=i) for i in range(3001)]
    assert ranges == {
        f"p{t:%Y%m%d%H}": ((f"{t:%Y-%m-%d %H:%M:%S}",), (f"{t + dt.timedelta(hours=1):%Y-%m-%d %H:%M:%S}",))
        for t in hours
    }
    meta = h.engine.catalog.load_table("d", "hourly")
    assert {p.buckets for p in meta.partitions} == {4}  # dynamic_partition.buckets, for every one
    assert len({p.id for p in meta.partitions}) == 3001

    # an hour later the pass adds exactly the next hour, next to the thousands it already has
    report = h.run_pass("2020-05-29 11:30:00")
    assert report.created["d.hourly"] == [f"p{hours[-1] + dt.timedelta(hours=1):%Y%m%d%H}"]
    assert not report.errors


def test_dynamic_partitions_skip_the_hours_a_manual_one_overlaps(h):
    """Doris skips the overlapping periods (and records the last conflict); the table is made."""
    h.sql('ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "5000")')
    h.at("2020-05-29 10:30:00")
    h.sql(
        "CREATE TABLE t (k1 DATETIME, v INT) DUPLICATE KEY(k1) PARTITION BY RANGE(k1) "
        '(PARTITION manual VALUES [("2020-05-29 12:30:00"), ("2020-05-29 13:30:00"))) '
        'DISTRIBUTED BY HASH(k1) BUCKETS 1 PROPERTIES ("dynamic_partition.enable" = "true", '
        '"dynamic_partition.time_unit" = "HOUR", "dynamic_partition.end" = "2000", '
        '"dynamic_partition.prefix" = "p", "dynamic_partition.time_zone" = "UTC")'
    )
    names = h.names("t")
    assert len(names) == 2001 - 2 + 1  # hours 0..2000, less the two the manual one overlaps, plus it
    assert "p2020052912" not in names and "p2020052913" not in names and "manual" in names
    assert h.dynamic_rows()["t"]["LastCreatePartitionMsg"] == (
        "Range [2020-05-29 12:30:00, 2020-05-29 13:30:00) of partition manual is "
        "intersected with range: [2020-05-29 13:00:00, 2020-05-29 14:00:00) of "
        "new partition p2020052913"
    )


# ---------------------------------------------------------------------- limits


def test_dynamic_buckets_have_the_limit_of_buckets_n(h):
    with pytest.raises(AnalysisError) as fixed:
        h.sql("CREATE TABLE f (k1 DATE, v INT) DUPLICATE KEY(k1) DISTRIBUTED BY HASH(k1) BUCKETS 100000")
    assert str(fixed.value) == BUCKET_LIMIT
    with pytest.raises(AnalysisError) as dyn:
        h.sql(dynamic_table("dyn", time_unit="DAY", end=3, buckets=100000))
    assert str(dyn.value).startswith(BUCKET_LIMIT) and "dynamic_partition.buckets" in str(dyn.value)
    h.sql(dynamic_table("ok", time_unit="DAY", end=3, buckets=8))
    with pytest.raises(AnalysisError) as alter:
        h.sql('ALTER TABLE ok SET ("dynamic_partition.buckets" = "100000")')
    assert str(alter.value).startswith(BUCKET_LIMIT)
    assert [r[0] for r in h.one("SHOW TABLES").rows] == ["ok"]
    assert h.dynamic_rows()["ok"]["Buckets"] == "8"


def test_max_dynamic_partition_num_must_be_a_java_int(h):
    with pytest.raises(AnalysisError) as err:
        h.sql('ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "99999999999999999999")')
    assert str(err.value) == (
        "Invalid value '99999999999999999999' for config 'max_dynamic_partition_num': must be at most 2147483647"
    )
    assert h.engine.frontend("max_dynamic_partition_num") == "500"
    h.sql('ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "2147483647")')
    assert h.engine.frontend("max_dynamic_partition_num") == "2147483647"
