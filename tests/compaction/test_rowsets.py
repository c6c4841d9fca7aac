"""Rowsets and versions on Delta (dorisql.tablets.rowsets): pure, no Spark."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dorisql.storage.layout import COMMIT_VERSION_PATTERN, range_suffix, version_range
from dorisql.tablets.rowsets import merged_are_oldest, merged_files, needed_delete_versions, tablet_views


@dataclass(frozen=True)
class F:
    path: str
    partition: str = "p"
    bucket: int = 0
    size: int = 100
    modification_time: int = 1_000_000
    num_records: int = 1


@dataclass(frozen=True)
class D:
    version: int
    partitions: frozenset | None = None
    predicate: str = "`k` = 1"
    created: str = ""


def f(name: str, partition: str = "p", bucket: int = 0, size: int = 100) -> F:
    return F(f"__partition={partition}/__bucket={bucket}/{name}", partition, bucket, size)


@pytest.mark.parametrize(
    "path, expected",
    [
        ("part-0.c000.snappy.v12.parquet", (12, 12)),
        ("part-0.c000.snappy.v0-12.parquet", (0, 12)),
        ("part-0.c000.snappy.v3-9.parquet", (3, 9)),
        ("part-0.c000.snappy.parquet", None),
        ("a.v12.parquet.tmp", None),
    ],
)
def test_version_range_of_a_file_name(path, expected):
    assert version_range(path) == expected


def test_rows_read_as_the_end_of_the_range():
    import re

    assert re.search(COMMIT_VERSION_PATTERN, "x.v12.parquet").group(1) == "12"
    assert re.search(COMMIT_VERSION_PATTERN, "x.v3-9.parquet").group(1) == "9"
    assert range_suffix(3, 9) == ".v3-9.parquet" and version_range("x" + range_suffix(3, 9)) == (3, 9)


def test_a_rowset_is_the_files_one_commit_added_to_one_tablet():
    files = [f("a.v2.parquet"), f("b.v2.parquet"), f("c.v5.parquet"), f("d.v2.parquet", bucket=1), f("e.v3-4.parquet")]
    views = tablet_views(files)
    assert sorted(views) == [("p", 0), ("p", 1)]
    t0 = views[("p", 0)]
    assert [(rs.start, rs.end, len(rs.files)) for rs in t0.rowsets] == [(2, 2, 2), (3, 4, 1), (5, 5, 1)]
    model = t0.model
    # versions are the Delta versions themselves (gaps are other tablets' commits)
    assert [(m.start_version, m.end_version) for m in model] == [(2, 2), (3, 4), (5, 5)]
    # a load with two files overlaps (Doris: more than one segment); a compaction output never
    assert [m.overlapping for m in model] == [True, False, False]
    assert [m.num_segments for m in model] == [2, 1, 1] and model[0].size == 200
    assert views[("p", 1)].rowsets[0].start == 2


def test_delete_versions_are_rowsets_of_their_partitions_until_a_base_compaction_covers_them():
    files = [f("a.v2.parquet"), f("b.v6.parquet"), f("c.v0-8.parquet", partition="q")]
    deletes = [D(4), D(5, frozenset({"q"})), D(7, frozenset({"p"}))]
    views = tablet_views(files, deletes, tablets=[("r", 0)])
    p = views[("p", 0)]
    assert [(rs.start, rs.delete is not None) for rs in p.rowsets] == [(2, False), (4, True), (6, False), (7, True)]
    assert [m.is_delete for m in p.model] == [False, True, False, True]
    # partition q's base rowset [0-8] covers versions 4 and 5: applied there, not in its chain
    assert [(rs.start, rs.end) for rs in views[("q", 0)].rowsets] == [(0, 8)]
    # a tablet without files still carries the deletes of its partition
    assert [rs.delete.version for rs in views[("r", 0)].rowsets] == [4]


def test_rowsets_of_maps_the_policy_pick_back_to_files():
    views = tablet_views([f("a.v2.parquet"), f("b.v3.parquet"), f("c.v9.parquet")])
    view = views[("p", 0)]
    picked = view.rowsets_of([view.model[2], view.model[1]])
    assert [rs.start for rs in picked] == [3, 9]
    state = view.state(cumulative_point=3)
    assert state.cumulative_point == 3 and state.rowsets == view.model


def test_a_delete_version_is_needed_while_a_file_older_than_it_remains_in_its_partitions():
    files = [f("a.v0-6.parquet"), f("b.v9.parquet"), f("c.v3.parquet", partition="q")]
    deletes = [D(5), D(7, frozenset({"p"})), D(8, frozenset({"q"})), D(2, frozenset({"q"})), D(4, frozenset({"z"}))]
    # 5: q's file (3) is older; 7: p's base ends at 6; 8: q's 3; 2: q's oldest is 3; 4: no file in z
    assert needed_delete_versions(files, deletes) == {5, 7, 8}


def test_scan_frequency_is_scans_per_minute_since_the_last_time_node():
    from dorisql.tablets.scans import ScanCounter

    scans = ScanCounter(interval=300)
    assert scans.frequency("/t", "p", 0, now=1000.0) == 0  # the first look sets the time node
    for _ in range(10):
        scans.record("/t", [("p", 0), ("p", 0), ("p", 1)])  # a query counts a tablet once
    assert scans.count("/t", "p", 0) == 10 and scans.count("/t", "p", 1) == 10
    assert scans.frequency("/t", "p", 0, now=1060.0) == 10  # 10 scans in one minute
    assert scans.frequency("/t", "p", 0, now=1300.0) == 2  # 10 in five minutes; a new time node
    assert scans.frequency("/t", "p", 0, now=1360.0) == 0


def test_per_tablet_the_largest_compaction_output_needs_no_merge_among_its_rows():
    files = [
        f("a.v2-9.parquet", bucket=0),
        f("b.v2-9.parquet", bucket=0),  # one output in two files
        f("a.v2-9.parquet", bucket=1, size=500),
        f("c.v10.parquet", bucket=1),  # a later load: merged with the output's rows on read
        f("a.v4.parquet", bucket=2),  # a single load may hold one key twice
        f("a.v0-3.parquet", bucket=3, size=900),
        f("b.v4-7.parquet", bucket=3, size=300),  # a second output may share keys with the first
        f("a.parquet", bucket=4),  # unstamped
    ]
    chosen = merged_files(files)
    assert chosen == {
        "__partition=p/__bucket=0/a.v2-9.parquet",
        "__partition=p/__bucket=0/b.v2-9.parquet",
        "__partition=p/__bucket=1/a.v2-9.parquet",
        "__partition=p/__bucket=3/a.v0-3.parquet",
    }


def test_merged_rows_are_the_oldest_when_every_other_rowset_of_their_tablet_starts_later():
    merged = {"__partition=p/__bucket=0/a.v0-9.parquet", "__partition=p/__bucket=1/a.v0-4.parquet"}
    later = [f("a.v0-9.parquet", bucket=0), f("b.v10.parquet", bucket=0), f("a.v0-4.parquet", bucket=1)]
    assert merged_are_oldest(later, merged)
    assert merged_are_oldest([*later, f("c.v5-8.parquet", bucket=1), f("d.v3.parquet", bucket=2)], merged)
    # an older load beside the output (a rowset under the cumulative point), an unstamped file
    assert not merged_are_oldest([*later, f("c.v9.parquet", bucket=0)], merged)
    assert not merged_are_oldest([*later, f("c.parquet", bucket=1)], merged)
