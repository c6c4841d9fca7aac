"""DeltaStore on a real local Spark, read back with deltalake as an outside reader would."""

from __future__ import annotations

import json
import os
from collections import Counter

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from dorisql.bucketing.hashing import bucket_of
from dorisql.errors import CommitConflictError

from .conftest import sample_rows

pytestmark = pytest.mark.spark

COLS = ["id", "big", "s", "d", "ts", "large", "amount", "flag", "tiny"]


def _outside_rows(path, columns=COLS + ["__partition", "__bucket"]):
    t = DeltaTable(str(path)).to_pyarrow_table()
    return sorted(tuple(r[c] for c in columns) for r in t.select(columns).to_pylist())


def _parquet_files(path):
    out = set()
    for d, _, names in os.walk(path):
        out.update(os.path.join(d, n) for n in names if n.endswith(".parquet"))
    return out


def _commit(path, version):
    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(line) for line in f if line.strip()]


def test_create_stamps_properties(table):
    assert table.version() == 1
    assert table.properties()["dorisql.ddl"] == "CREATE TABLE t (...)"
    assert DeltaTable(table.path).metadata().partition_columns == ["__partition", "__bucket"]
    assert table.snapshot().files == ()


def test_write_round_trip_across_types(spark, table, sample_df):
    df = sample_df(60)
    result = table.write(df, statement="INSERT INTO t SELECT ...")
    assert result.committed and result.version == 2 and result.read_version == 1
    assert result.rows == 60 and sum(result.tablet_rows.values()) == 60
    assert result.bytes == sum(os.path.getsize(f.uri) for f in result.files)

    # an outside reader (deltalake) sees exactly the rows, with partition values from the log
    expected = sorted(
        (*row, ("p1", "p2", "p3")[row[0] % 3], bucket_of([row[0]], ["int"], 4)) for row in sample_rows(60)
    )
    got = _outside_rows(table.path)
    assert got == expected

    # per tablet counts
    for (p, b), n in result.tablet_rows.items():
        assert n == sum(1 for r in expected if r[-2] == p and r[-1] == b)

    # files live in tablet folders; staging is gone
    for f in result.files:
        assert f.path.startswith(f"__partition={f.partition}/__bucket={f.bucket}/")
        assert os.path.isfile(f.uri)
    assert not os.listdir(os.path.join(table.path, "_staging"))

    # the commit says what caused it, and has only adds
    actions = _commit(table.path, 2)
    info = next(a["commitInfo"] for a in actions if "commitInfo" in a)
    assert info["dorisql.operation"] == "dorisql INSERT"
    assert info["dorisql.statement"] == "INSERT INTO t SELECT ..."
    adds = [a["add"] for a in actions if "add" in a]
    assert len(adds) == len(result.files) and all(a["dataChange"] for a in adds)
    assert not any("remove" in a or "metaData" in a for a in actions)

    # Spark read back through the snapshot
    back = table.read(spark, table.snapshot().files, table.spark_schema, with_partition_columns=True)
    spark_rows = sorted(tuple(r) for r in back.collect())
    assert spark_rows == expected


def test_stats_in_add_actions_are_correct(table, sample_df):
    table.write(sample_df(60).coalesce(1))
    rows = sample_rows(60)
    actions = _commit(table.path, 2)
    for add in (a["add"] for a in actions if "add" in a):
        p, b = add["partitionValues"]["__partition"], int(add["partitionValues"]["__bucket"])
        mine = [r for r in rows if ("p1", "p2", "p3")[r[0] % 3] == p and bucket_of([r[0]], ["int"], 4) == b]
        stats = json.loads(add["stats"])
        # one Spark task wrote this sample, so one file per tablet
        assert stats["numRecords"] == len(mine)
        for j, col in enumerate(COLS):
            values = [r[j] for r in mine if r[j] is not None]
            assert stats["nullCount"][col] == len(mine) - len(values), col
            if not values:
                continue
            lo, hi = min(values), max(values)
            if col == "d":
                lo, hi = lo.isoformat(), hi.isoformat()
            elif col == "ts":
                lo = lo.replace(microsecond=lo.microsecond // 1000 * 1000).isoformat(timespec="milliseconds")
                assert stats["maxValues"][col] >= hi.isoformat(timespec="microseconds")[:23]
                hi = stats["maxValues"][col]
            elif col in ("large", "amount"):
                assert json.loads(add["stats"].split(f'"{col}":')[1].split(",")[0].rstrip("}")) is not None
                lo, hi = float(lo), float(hi)
                assert float(stats["minValues"][col]) == lo and float(stats["maxValues"][col]) == hi
                continue
            assert stats["minValues"][col] == lo, col
            assert stats["maxValues"][col] == hi, col
        # decimals are exact numbers in the JSON text (no float rounding of 31-digit values)
        if any(r[5] is not None for r in mine):
            exact = min(r[5] for r in mine if r[5] is not None)
            assert f'"large":{exact}' in add["stats"]

    # and deltalake parses them (flattened min/max columns are typed and filled)
    aa = pa.table(DeltaTable(table.path).get_add_actions(flatten=True))
    assert aa["min.ts"].null_count == 0 and aa["min.d"].null_count == 0 and aa["max.s"].null_count == 0
    assert sum(aa["num_records"].to_pylist()) == 60


def test_empty_write_commits_nothing(table, sample_df):
    result = table.write(sample_df(10).where("id < 0"))
    assert not result.committed and result.version == 1 and table.version() == 1


def test_failed_spark_job_leaves_table_unchanged(spark, table, sample_df):
    table.write(sample_df(30))
    before = _outside_rows(table.path)
    files_before = _parquet_files(table.path)
    bad = (
        sample_df(200, offset=100)
        .repartition(4)
        .selectExpr(
            "CASE WHEN id = 250 THEN raise_error('boom') ELSE id END AS id",
            *[c for c in COLS[1:]],
            "__partition",
            "__bucket",
        )
    )
    with pytest.raises(Exception, match="boom"):
        table.write(bad)
    assert table.version() == 2
    assert _outside_rows(table.path) == before
    assert _parquet_files(table.path) == files_before
    assert not os.listdir(os.path.join(table.path, "_staging"))


def test_refusing_guard_leaves_table_unchanged(table, sample_df):
    table.write(sample_df(30))
    before, files_before = _outside_rows(table.path), _parquet_files(table.path)
    seen = []

    def guard(partitions):
        seen.append(partitions)
        raise CommitConflictError("partition p2 was dropped")

    with pytest.raises(CommitConflictError, match="dropped"):
        table.write(sample_df(30, offset=30), expected_partitions=guard)
    assert seen == [frozenset({"p1", "p2", "p3"})]
    assert table.version() == 2 and _outside_rows(table.path) == before
    assert _parquet_files(table.path) == files_before

    with pytest.raises(CommitConflictError):
        table.write(sample_df(30, offset=30), expected_partitions=lambda parts: False)
    assert table.version() == 2 and _parquet_files(table.path) == files_before

    ok = table.write(sample_df(30, offset=30), expected_partitions=lambda parts: True)
    assert ok.version == 3 and len(_outside_rows(table.path)) == 60


def test_drop_partitions_commits_only_removes(spark, table, sample_df):
    table.write(sample_df(60))
    table.write(sample_df(30, offset=60))
    snap = table.snapshot()
    p2_files = [f for f in snap.files if f.partition == "p2"]
    result = table.drop_partitions(
        ["p2"], expected_read_version=snap.version, statement="ALTER TABLE t DROP PARTITION p2"
    )
    assert result.committed and result.version == snap.version + 1
    assert {f.path for f in result.removed} == {f.path for f in p2_files}
    assert result.rows == sum(f.num_records for f in p2_files)

    actions = _commit(table.path, result.version)
    assert not any("add" in a for a in actions)
    removes = [a["remove"] for a in actions if "remove" in a]
    assert len(removes) == len(p2_files) and all(r["dataChange"] for r in removes)
    # metadata only: the files are still on disk (vacuum deletes them)
    assert all(os.path.isfile(f.uri) for f in p2_files)

    assert "p2" not in table.snapshot().partitions()
    assert table.snapshot(partitions=["p2"]).files == ()
    assert {r[-2] for r in _outside_rows(table.path)} == {"p1", "p3"}
    assert table.read(spark, spark_schema=table.spark_schema).count() == 90 - len([i for i in range(90) if i % 3 == 1])

    # dropping an empty (or already dropped) partition commits nothing
    again = table.drop_partitions(["p2"])
    assert not again.committed and again.version == result.version


def test_truncate_listed_and_all(table, sample_df):
    table.write(sample_df(60))
    r1 = table.truncate(["p1"])
    assert r1.committed and {r[-2] for r in _outside_rows(table.path)} == {"p2", "p3"}
    r2 = table.truncate()
    assert r2.version == r1.version + 1 and _outside_rows(table.path) == []


def test_snapshot_filters_and_partition_stats(table, sample_df):
    w1 = table.write(sample_df(60))
    w2 = table.write(sample_df(30, offset=60, partitions=("p1", "p4", "p5")))
    snap = table.snapshot()
    assert snap.version == w2.version
    only = table.snapshot(partitions=["p1"], buckets=[0, 1])
    assert only.files and all(f.partition == "p1" and f.bucket in (0, 1) for f in only.files)
    assert only.files == snap.filter(partitions=["p1"], buckets=[0, 1]).files
    old = table.snapshot(w1.version)
    assert old.version == w1.version and old.total_rows == 60

    stats = table.partition_stats()
    assert set(stats) == {"p1", "p2", "p3", "p4", "p5"}
    assert sum(s.row_count for s in stats.values()) == 90
    assert stats["p1"].row_count == 20 + 10
    assert stats["p1"].data_size == sum(f.size for f in snap.files if f.partition == "p1")
    assert stats["p1"].file_count == len([f for f in snap.files if f.partition == "p1"])
    assert stats["p1"].last_modified == max(f.modification_time for f in snap.files if f.partition == "p1")
    assert table.partition_stats(w1.version)["p1"].row_count == 20


def test_read_no_files_is_empty_with_schema(spark, table):
    df = table.read(spark, [], table.spark_schema)
    assert df.count() == 0 and df.schema == table.spark_schema


def test_rewrite_compacts_and_refuses_second_rewrite_from_same_snapshot(spark, table, sample_df):
    # three loads -> up to three files per tablet (a load writes one file per tablet)
    for k in range(3):
        table.write(sample_df(30, offset=30 * k))
    per_tablet = Counter((f.partition, f.bucket) for f in table.snapshot().files)
    assert max(per_tablet.values()) <= 3
    (partition, bucket), _ = per_tablet.most_common(1)[0]
    snap = table.snapshot(partitions=[partition], buckets=[bucket])
    assert len(snap.files) >= 2
    rows_before = _outside_rows(table.path)

    def compacted():
        return table.read(spark, snap.files, table.spark_schema, with_partition_columns=True).coalesce(1)

    first = table.rewrite(snap.version, snap.files, compacted())
    assert first.committed and len(first.files) == 1 and len(first.removed) == len(snap.files)
    actions = _commit(table.path, first.version)
    assert all(not a[k]["dataChange"] for a in actions for k in ("add", "remove") if k in a)
    assert _outside_rows(table.path) == rows_before

    # the hazard: a second rewrite of the same files from the same snapshot must be refused
    with pytest.raises(CommitConflictError):
        table.rewrite(snap.version, snap.files, compacted())
    assert table.version() == first.version
    assert _outside_rows(table.path) == rows_before  # not doubled
    assert len(table.snapshot(partitions=[partition], buckets=[bucket]).files) == 1

    # removing a path that is not in the table is refused too (deltalake would accept it)
    with pytest.raises(CommitConflictError, match="not in the table"):
        table.rewrite(table.version(), ["__partition=p1/__bucket=0/nope.parquet"])


def test_deltalake_hazard_double_rewrite_is_real(spark, table, sample_df):
    """Pins the deltalake 1.6 behaviour that DeltaStore.rewrite guards against."""
    from deltalake.transaction import AddAction, RemoveAction

    table.write(sample_df(30))
    table.write(sample_df(30, offset=30))
    snap = table.snapshot(partitions=["p1"], buckets=[0])
    dt_a, dt_b = DeltaTable(table.path), DeltaTable(table.path)  # same snapshot
    target = snap.files[0]

    def raw_rewrite(dt, name):
        import shutil

        new_path = target.path.rsplit("/", 1)[0] + f"/{name}.parquet"
        shutil.copy(target.uri, os.path.join(table.path, new_path))
        rm = RemoveAction(
            path=target.path,
            data_change=False,
            deletion_timestamp=0,
            size=target.size,
            partition_values={"__partition": "p1", "__bucket": "0"},
        )
        add = AddAction(
            path=new_path,
            size=target.size,
            partition_values={"__partition": "p1", "__bucket": "0"},
            modification_time=0,
            data_change=False,
            stats=json.dumps({"numRecords": target.num_records}),
        )
        dt.create_write_transaction(
            [rm, add], mode="append", schema=dt.schema(), partition_by=["__partition", "__bucket"]
        )

    raw_rewrite(dt_a, "copy-a")
    raw_rewrite(dt_b, "copy-b")  # deltalake does not detect the delete/delete conflict
    assert DeltaTable(table.path).to_pyarrow_table().num_rows == 60 + target.num_records


def test_partition_names_that_spark_escapes(spark, table, sample_df):
    """Spark escapes some characters in folder names; the log holds URI-encoded paths."""
    names = ("p 1", "p:2%", "p=3/é")
    result = table.write(sample_df(30, partitions=names))
    assert {f.partition for f in result.files} == set(names)
    assert all(os.path.isfile(f.uri) for f in result.files)
    assert {r[-2] for r in _outside_rows(table.path)} == set(names)
    assert table.read(spark, table.snapshot(partitions=["p:2%"]).files, table.spark_schema).count() == 10
    dropped = table.drop_partitions(["p=3/é"])
    assert dropped.committed and {r[-2] for r in _outside_rows(table.path)} == {"p 1", "p:2%"}


def test_rename_partition_moves_rows_in_one_commit(spark, table, sample_df):
    table.write(sample_df(60))
    before = table.snapshot()
    p1_rows = sorted(r[:-2] for r in _outside_rows(table.path) if r[-2] == "p1")
    result = table.rename_partition("p1", "p:new", statement="ALTER TABLE t RENAME PARTITION p1 p_new")
    assert result.committed and result.version == before.version + 1
    assert len(result.removed) == len([f for f in before.files if f.partition == "p1"])
    actions = _commit(table.path, result.version)
    assert {tuple(sorted(a)) for a in actions} == {("commitInfo",), ("add",), ("remove",)}

    after = _outside_rows(table.path)
    assert {r[-2] for r in after} == {"p:new", "p2", "p3"}
    assert sorted(r[:-2] for r in after if r[-2] == "p:new") == p1_rows
    # Spark's folder-name discovery agrees with the log's partition values
    back = table.read(
        spark, table.snapshot(partitions=["p:new"]).files, table.spark_schema, with_partition_columns=True
    )
    assert {r["__partition"] for r in back.select("__partition").distinct().collect()} == {"p:new"}
    # the old version is still readable (files linked, not moved)
    assert DeltaTable(table.path, version=before.version).to_pyarrow_table().num_rows == 60
    with pytest.raises(CommitConflictError):
        table.rename_partition("p2", "p:new")
    assert not table.rename_partition("nope", "p7").committed


def test_table_lock_is_reentrant_in_a_thread_and_exclusive_between_threads(table, sample_df):
    import threading

    from dorisql.storage.locks import table_lock

    outcome = []
    with table_lock(table.path):
        table.drop_partitions(["p1"])  # takes the lock again: no deadlock

        def other():
            try:
                with table_lock(table.path, timeout=0.2):
                    outcome.append("acquired")
            except CommitConflictError:
                outcome.append("refused")

        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert outcome == ["refused"]
