"""A Delta log that has been checkpointed and cleaned up: the early commit files are gone and the
state comes from a checkpoint. Everything dorisql reads from the log must give the same answers
(snapshots, partition sizes, SHOW PARTITIONS / SHOW DATA, commits, the rewrite conflict check)."""

from __future__ import annotations

import os
import time

import pytest
from deltalake import DeltaTable

from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.errors import CommitConflictError
from dorisql.tablets.tables import meta_dir

pytestmark = pytest.mark.spark

#: Makes deltalake's log cleanup delete every commit file a checkpoint covers.
NO_LOG_RETENTION = {"delta.logRetentionDuration": "interval 0 days"}


def checkpoint_and_clean_up(path) -> list[str]:
    """Write a checkpoint at the latest version and let deltalake delete the commit files before
    it (aged first: cleanup only deletes files older than the retention). Returns the log folder."""
    log = os.path.join(str(path), "_delta_log")
    an_hour_ago = time.time() - 3600
    for name in os.listdir(log):
        os.utime(os.path.join(log, name), (an_hour_ago, an_hour_ago))
    table = DeltaTable(str(path))
    table.create_checkpoint()
    table.cleanup_metadata()
    names = sorted(os.listdir(log))
    latest = f"{table.version():020d}"
    assert f"{latest}.checkpoint.parquet" in names
    assert [n for n in names if n.endswith(".json")] == [f"{latest}.json"]  # every earlier commit is gone
    return names


def _files(snapshot):
    return sorted(snapshot.files, key=lambda f: f.path)


def test_snapshots_stats_and_commits_after_cleanup(spark, table, sample_df):
    table.set_properties(NO_LOG_RETENTION)
    table.write(sample_df(60))
    table.write(sample_df(30, offset=60, partitions=("p1", "p4", "p5")))
    table.drop_partitions(["p2"])
    snap, stats, rows = table.snapshot(), table.partition_stats(), table.read(spark, spark_schema=table.spark_schema)
    expected_rows = sorted(rows.collect())

    checkpoint_and_clean_up(table.path)
    assert table.version() == snap.version
    assert _files(table.snapshot()) == _files(snap)
    assert table.partition_stats() == stats and set(stats) == {"p1", "p3", "p4", "p5"}
    assert _files(table.snapshot(partitions=["p1"], buckets=[0])) == _files(snap.filter(["p1"], [0]))
    assert sorted(table.read(spark, spark_schema=table.spark_schema).collect()) == expected_rows

    # new commits find their version without the old commit files
    written = table.write(sample_df(6, offset=100))
    assert written.committed and written.version == snap.version + 1 == table.version()
    dropped = table.drop_partitions(["p4"])
    assert dropped.version == written.version + 1 and "p4" not in table.partition_stats()


def test_rewrite_conflict_checks_after_cleanup(spark, table, sample_df):
    table.set_properties(NO_LOG_RETENTION)
    for k in range(3):
        table.write(sample_df(30, offset=30 * k))
    stale = table.snapshot(partitions=["p1"], buckets=[0])
    checkpoint_and_clean_up(table.path)

    def compacted(snap):
        return table.read(spark, snap.files, table.spark_schema, with_partition_columns=True).coalesce(1)

    # read at the checkpoint's version: the rewrite lands, a second one from the same read is refused
    snap = table.snapshot(partitions=["p1"], buckets=[1])
    first = table.rewrite(snap.version, snap.files, compacted(snap))
    assert first.committed and first.version == snap.version + 1
    with pytest.raises(CommitConflictError, match="removed by a commit after version"):
        table.rewrite(snap.version, snap.files, compacted(snap))

    # a read older than the retained log can no longer be checked: refused, nothing committed
    table.write(sample_df(3, offset=200))
    checkpoint_and_clean_up(table.path)
    version = table.version()
    with pytest.raises(CommitConflictError, match=f"version {stale.version} .* no longer in the Delta log"):
        table.rewrite(stale.version, stale.files, compacted(stale))
    assert table.version() == version
    fresh = table.snapshot(partitions=["p1"], buckets=[0])
    assert _files(fresh) == _files(stale)
    assert table.rewrite(fresh.version, fresh.files, compacted(fresh)).committed


def test_rewrite_refused_when_its_files_were_removed_and_added_back(spark, table, sample_df):
    """A restore adds removed files back under the same paths: they are live again, but a commit
    after the rewrite's read removed them, so the rewrite is refused (the log says so)."""
    table.write(sample_df(30))
    table.write(sample_df(30, offset=30))
    snap = table.snapshot(partitions=["p2"])
    table.drop_partitions(["p2"])
    DeltaTable(table.path).restore(snap.version)
    assert _files(table.snapshot(partitions=["p2"])) == _files(snap)
    with pytest.raises(CommitConflictError, match="removed by a commit after version"):
        table.rewrite(snap.version, snap.files)
    again = table.snapshot(partitions=["p2"])
    assert table.rewrite(again.version, again.files).committed


def test_engine_answers_the_same_after_cleanup(spark, tmp_path):
    engine = Engine(Config(warehouse=str(tmp_path / "wh"), master="local[2]"), spark=spark)

    def result(sql):
        res = engine.execute_sql(sql)[-1]
        return list(res.columns), [tuple(r) for r in res.rows]

    engine.execute_sql("""CREATE DATABASE d; USE d;
        CREATE TABLE t (k INT, day DATE, v VARCHAR(20)) DUPLICATE KEY(k)
        PARTITION BY RANGE(day) (PARTITION p1 VALUES LESS THAN ("2024-02-01"),
                                 PARTITION p2 VALUES LESS THAN ("2024-03-01"),
                                 PARTITION p3 VALUES LESS THAN ("2024-04-01"))
        DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1");
        INSERT INTO t VALUES (1, '2024-01-05', 'a'), (2, '2024-02-05', 'b'), (3, '2024-03-05', 'c');
        INSERT INTO t VALUES (4, '2024-01-06', 'd'), (5, '2024-02-06', 'e')""")
    location = meta_dir(engine.warehouse, engine.catalog.load_table("d", "t"))
    DeltaTable(str(location)).alter.set_table_properties(NO_LOG_RETENTION, raise_if_not_exists=False)
    questions = [
        "SHOW PARTITIONS FROM t",
        "SHOW DATA FROM t",
        "SHOW DATA",
        "SELECT * FROM t ORDER BY k",
        "SELECT count(*) FROM t PARTITION (p2)",
    ]
    before = [result(q) for q in questions]

    checkpoint_and_clean_up(location)
    assert [result(q) for q in questions] == before

    engine.execute_sql(
        "INSERT INTO t VALUES (6, '2024-03-07', 'f'); ALTER TABLE t DROP PARTITION p1; TRUNCATE TABLE t PARTITION (p2)"
    )
    assert result("SELECT k FROM t ORDER BY k")[1] == [(3,), (6,)]
    assert [row[1] for row in result("SHOW PARTITIONS FROM t")[1]] == ["p2", "p3"]
