"""Compaction on Spark and Delta (dorisql.compaction.executor, .service): query results never change,
fewer files, outside readers see the merged rows, concurrent loads and drops are never lost or
resurrected, removed files reach the trash, the background job and the statements.

One engine for the module; each test has its own tables.
"""

from __future__ import annotations

import datetime as dt
import os

import pytest
from deltalake import DeltaTable

from dorisql.compaction import executor, service
from dorisql.errors import CommitConflictError
from dorisql.jobs import scheduler
from dorisql.tablets.merge import merge_with_merged
from dorisql.tablets.read import scan_table

from .conftest import parquet_files_on_disk, rows, run, table_path


@pytest.fixture(scope="module")
def engine(spark, tmp_path_factory, make_engine):
    eng = make_engine(tmp_path_factory.mktemp("wh"), spark=spark)
    eng.execute_sql("CREATE DATABASE d; USE d")
    # the skip window would keep rowsets younger than 30 s out of a cumulative compaction
    eng.execute_sql('ADMIN SET FRONTEND CONFIG ("cumulative_compaction_skip_window_seconds" = "0")')
    yield eng
    eng.close()


MODELS = {
    "dup": "CREATE TABLE dup (k INT NOT NULL, v VARCHAR(8)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
    "uni": "CREATE TABLE uni (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')",
    "agg": "CREATE TABLE agg (k INT NOT NULL, s BIGINT SUM, r VARCHAR(8) REPLACE, m INT MAX) AGGREGATE KEY(k) "
    "DISTRIBUTED BY HASH(k) BUCKETS 2",
}


def load(engine, table: str, i: int) -> None:
    if table == "agg":
        run(engine, f"INSERT INTO agg VALUES ({i % 3}, {i}, 'r{i}', {i * 7 % 5}), ({i + 10}, 1, 'x', 1)")
    else:
        run(engine, f"INSERT INTO {table} VALUES ({i % 3}, 'v{i}'), ({i + 10}, 'x')")


def everything(engine, table: str) -> list[tuple]:
    return sorted(rows(engine, f"SELECT * FROM {table}"))


def files(engine, table: str) -> list:
    return list(service.table_tablets(engine, engine.catalog.load_table("d", table)).snapshot.files)


def test_an_idle_tablets_last_loads_are_merged_a_day_later(engine):
    # First in the module: the passes below see only this table. Four one-file loads are too few
    # for a cumulative compaction and wait for more; a day (pick_rowset_to_compact_interval_sec)
    # without any compaction later, the point moves past them and base compaction merges them.
    import time

    run(
        engine,
        "CREATE TABLE idle (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')",
    )
    for i in range(4):
        load(engine, "idle", i)
    before = everything(engine, "idle")
    start = time.time()

    def compactions(at: float) -> list:
        return [t for t in service.run_pass(engine, clock=lambda: at).tasks if t.table == "d.idle"]

    assert compactions(start + 60) == []  # the tablet's compaction clocks start here
    assert compactions(start + 60 + 86400 - 5) == []
    # one pass moves the point, base compaction may come in the next one (the rounds' order)
    done = compactions(start + 60 + 86400 + 1) or compactions(start + 60 + 86400 + 2)
    assert [(t.kind, t.input_files) for t in done] == [("BASE", 4)]
    assert len(files(engine, "idle")) == 1 and everything(engine, "idle") == before


def test_a_full_compaction_changes_no_result_and_outside_readers_see_the_merged_rows(engine, capsys):
    for table, ddl in MODELS.items():
        run(engine, ddl)
        for i in range(3):
            load(engine, table, i)
        before = everything(engine, table)
        assert len(files(engine, table)) > 2
        service.full_compaction(engine, engine.catalog.load_table("d", table))
        assert everything(engine, table) == before, table
        stored = files(engine, table)
        assert len(stored) == 2 and all(".v2-" in f.path for f in stored)  # [first load, last load of the tablet]
        if table != "dup":  # UNIQUE and AGGREGATE: one row per key on disk now
            outside = DeltaTable(table_path(engine, table)).to_pyarrow_table().to_pylist()
            columns = [c for c in outside[0] if not c.startswith("__")]
            assert sorted(tuple(r[c] for c in columns) for r in outside) == before, table
        if table != "dup":  # each tablet is one merged rowset: a scan reads it without the merge
            scan = scan_table(engine, engine.catalog.load_table("d", table))
            unmerged, merged = scan.frame, scan.merged
            assert merged is not None and merged.alone and merged.frame.count() == len(before), table
            assert unmerged.count() == 0
    # later loads still win over (UNIQUE) or add to (AGGREGATE) the compacted rows
    run(engine, "INSERT INTO uni VALUES (1, 'late'); INSERT INTO agg VALUES (1, 100, 'late', 0)")
    assert rows(engine, "SELECT v FROM uni WHERE k = 1") == [("late",)]
    assert rows(engine, "SELECT s, r, m FROM agg WHERE k = 1") == [(1 + 100, "late", 2)]
    assert everything(engine, "uni") == sorted([(0, "v0"), (1, "late"), (2, "v2"), (10, "x"), (11, "x"), (12, "x")])
    # only the late row is read apart; the compacted rows are merged with it where keys recur
    uni = engine.catalog.load_table("d", "uni")
    scan = scan_table(engine, uni)
    unmerged, merged = scan.frame, scan.merged
    assert unmerged.count() == 1 and merged is not None and not merged.alone and merged.frame.count() == 6
    assert rows(engine, "SELECT count(*), count(DISTINCT k) FROM uni") == [(6, 6)]
    # UNIQUE with the compacted rows older than the rest: every key's latest row comes from one
    # broadcast anti join, no shuffle; a load's own repeats keep its last row, a later load wins
    run(engine, "INSERT INTO uni VALUES (2, 'a'), (2, 'b'), (0, 'z'); INSERT INTO uni VALUES (0, 'y')")
    assert everything(engine, "uni") == sorted([(0, "y"), (1, "late"), (2, "b"), (10, "x"), (11, "x"), (12, "x")])
    scan = scan_table(engine, uni)
    unmerged, merged = scan.frame, scan.merged
    assert merged is not None and merged.oldest
    assert "__commit_seq" not in merged.frame.columns  # no order comparison: read as stored
    merge_with_merged(unmerged, merged, uni).explain(mode="formatted")
    plan = capsys.readouterr().out
    assert "BroadcastHashJoin" in plan and "LeftAnti" in plan and "Exchange hashpartitioning" not in plan
    # a point query's filter on the (NOT NULL) key reaches the broadcast side too: it holds only
    # the matching later rows
    merge_with_merged(unmerged, merged, uni).where("k = 0").explain(mode="formatted")
    plan = capsys.readouterr().out
    broadcast = plan[plan.index("BroadcastExchange") :]
    assert "Filter" in plan.split("BroadcastExchange")[0] and "(k#" in broadcast and "= 0)" in broadcast
    assert rows(engine, "SELECT v FROM uni WHERE k = 0") == [("y",)]
    # NULL keys are keys too: a later NULL-key row replaces the compacted one (null-safe join)
    run(
        engine,
        "CREATE TABLE nk (k INT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')",
    )
    run(engine, "INSERT INTO nk VALUES (NULL, 'a'), (1, 'a'); INSERT INTO nk VALUES (NULL, 'b')")
    service.full_compaction(engine, engine.catalog.load_table("d", "nk"))
    run(engine, "INSERT INTO nk VALUES (NULL, 'c'), (NULL, 'd')")
    merged = scan_table(engine, engine.catalog.load_table("d", "nk")).merged
    assert merged is not None and merged.oldest
    assert sorted(rows(engine, "SELECT * FROM nk"), key=str) == sorted([(None, "d"), (1, "a")], key=str)
    # not when an unmerged rowset is older than the merged one: a merged row may supersede it
    run(
        engine,
        "CREATE TABLE no (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')",
    )
    run(engine, "INSERT INTO no VALUES (1, 'a')")
    run(engine, "INSERT INTO no VALUES (1, 'b'), (4, 'd'); INSERT INTO no VALUES (2, 'c')")
    no = engine.catalog.load_table("d", "no")
    tablets = service.table_tablets(engine, no)
    ((key, view),) = tablets.views.items()
    service.compact(engine, tablets, key, view.rowsets[1:], executor.CUMULATIVE)
    scan = scan_table(engine, no)
    unmerged, merged = scan.frame, scan.merged
    assert merged is not None and not merged.oldest and "__commit_seq" in merged.frame.columns
    assert rows(engine, "SELECT * FROM no ORDER BY k") == [(1, "b"), (2, "c"), (4, "d")]
    # a delete version orders the merged rows again: they are read with their order then
    run(engine, "DELETE FROM nk WHERE k = 1")
    merged = scan_table(engine, engine.catalog.load_table("d", "nk")).merged
    assert merged is not None and merged.oldest and "__commit_seq" in merged.frame.columns
    assert rows(engine, "SELECT * FROM nk") == [(None, "d")]


def test_admin_compact_show_tablets_and_show_proc(engine):
    run(
        engine,
        "CREATE TABLE c (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')",
    )
    for i in range(6):
        run(engine, f"INSERT INTO c VALUES ({i % 2}, 'v{i}')")
    before = everything(engine, "c")
    (tablet,) = rows(engine, "SHOW TABLETS FROM c")
    columns = run(engine, "SHOW TABLETS FROM c").columns
    shown = dict(zip(columns, tablet))
    assert shown["RowsetCount"] == 6 and shown["FileCount"] == 6 and shown["CumulativeScore"] == 6
    assert shown["VersionRange"] == f"{shown['Version'] - 5}-{shown['Version']}" and shown["BaseScore"] == 0

    run(engine, "ADMIN COMPACT TABLE c PARTITION c WHERE type = 'cumulative'")
    assert everything(engine, "c") == before
    shown = dict(zip(columns, rows(engine, "SHOW TABLETS FROM c")[0]))
    assert shown["RowsetCount"] == 1 and shown["FileCount"] == 1 and shown["RowCount"] == 2
    proc = run(engine, "SHOW PROC '/compactions'")
    task = dict(zip(proc.columns, proc.rows[0]))
    assert task["Table"] == "d.c" and task["PartitionName"] == "c" and task["Type"] == "CUMULATIVE"
    assert task["Trigger"] == "MANUAL" and task["State"] == "FINISHED" and task["InputFiles"] == 6
    assert task["OutputVersion"] == shown["VersionRange"] and task["OutputFiles"] == 1 and task["Error"] is None


def test_a_load_committed_during_a_compaction_is_kept_and_a_dropped_partition_stays_dropped(engine):
    run(
        engine,
        """CREATE TABLE r (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k)
        PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
        DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("enable_unique_key_merge_on_write" = "false")""",
    )
    for i in range(3):
        run(engine, f"INSERT INTO r VALUES (1, 'a{i}'), (11, 'b{i}')")
    meta = engine.catalog.load_table("d", "r")
    tablets = service.table_tablets(engine, meta)  # the compactions read here ...
    run(engine, "INSERT INTO r VALUES (1, 'new'), (2, 'new')")  # ... a load commits ...
    run(engine, "ALTER TABLE r DROP PARTITION p2")  # ... and a partition goes
    p1, p2 = (meta.partition_keys([p])[p] for p in ("p1", "p2"))
    view = tablets.views[(p1, 0)]
    service.compact(engine, tablets, (p1, 0), view.rowsets, executor.CUMULATIVE)
    assert everything(engine, "r") == [(1, "new"), (2, "new")]  # the later load still wins
    with pytest.raises(CommitConflictError):
        service.compact(engine, tablets, (p2, 0), tablets.views[(p2, 0)].rowsets, executor.CUMULATIVE)
    assert everything(engine, "r") == [(1, "new"), (2, "new")]
    assert all(f.partition != p2 for f in files(engine, "r"))
    failed = [t for t in executor.TASKS.tasks() if t.table == "d.r" and t.state == "FAILED"]
    assert failed and "removed by a commit" in failed[0].error


def test_compacted_files_go_to_the_trash(engine):
    run(engine, "CREATE TABLE g (k INT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    for i in range(3):
        run(engine, f"INSERT INTO g VALUES ({i}, {i})")
    folder = table_path(engine, "g")
    inputs = parquet_files_on_disk(folder)
    (task,) = service.full_compaction(engine, engine.catalog.load_table("d", "g"))
    assert task.input_files == 3 and parquet_files_on_disk(folder) > inputs  # kept for older snapshots
    later = dt.datetime.now().replace(microsecond=0) + dt.timedelta(days=1, hours=2)
    run(engine, f"SET dorisql_now = '{later:%Y-%m-%d %H:%M:%S}'")
    try:
        run(engine, "ADMIN CLEAN TRASH")
    finally:
        run(engine, "SET dorisql_now = ''")
    left = parquet_files_on_disk(folder)
    assert not (left & inputs) and len(left) == 1 and ".v2-4." in next(iter(left))
    assert everything(engine, "g") == [(0, 0), (1, 1), (2, 2)]


def test_the_background_job_follows_the_switches(engine):
    from dorisql.jobs.runner import run_job

    run(
        engine,
        """CREATE TABLE bg (k INT NOT NULL, v BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
        PROPERTIES ("disable_auto_compaction" = "true")""",
    )
    for i in range(5):
        run(engine, f"INSERT INTO bg VALUES ({i % 2}, {i})")
    before = everything(engine, "bg")

    def pass_over_bg():
        report = run_job(scheduler.COMPACTION, engine).report
        return None if report is None else [t for t in report.tasks if t.table == "d.bg"]

    assert pass_over_bg() == []  # the table property
    run(engine, 'ALTER TABLE bg SET ("disable_auto_compaction" = "false")')
    run(engine, 'ADMIN SET FRONTEND CONFIG ("disable_auto_compaction" = "true")')
    try:
        assert pass_over_bg() is None  # the global switch: the job is disabled
    finally:
        run(engine, 'ADMIN SET FRONTEND CONFIG ("disable_auto_compaction" = "false")')
    (task,) = pass_over_bg()
    assert task.trigger == "AUTO" and task.kind == "CUMULATIVE" and task.input_files == 5
    assert everything(engine, "bg") == before == [(0, 6), (1, 4)]
    assert len(files(engine, "bg")) == 1
    assert os.path.isdir(table_path(engine, "bg"))


def test_base_compaction_drops_deleted_rows_and_retires_the_delete(engine):
    from dorisql.tablets.deletes import delete_versions

    run(engine, "CREATE TABLE del (k INT NOT NULL, v INT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(engine, "INSERT INTO del VALUES (1, 1), (2, 2)")
    run(engine, "INSERT INTO del VALUES (1, 10), (3, 3)")
    run(engine, "DELETE FROM del WHERE k = 1")
    run(engine, "INSERT INTO del VALUES (1, 100)")
    expected = [(1, 100), (2, 2), (3, 3)]
    assert everything(engine, "del") == expected
    meta = engine.catalog.load_table("d", "del")
    tablets = service.table_tablets(engine, meta)
    ((key, view),) = tablets.views.items()
    assert [rs.delete is not None for rs in view.rowsets] == [False, False, True, False]
    with pytest.raises(ValueError, match="would cross delete version"):  # cumulative never does
        service.compact(engine, tablets, key, view.rowsets, executor.CUMULATIVE)
    (task,) = service.full_compaction(engine, meta)
    assert task.kind == "BASE" and task.retired == (view.rowsets[2].start,)
    assert everything(engine, "del") == expected
    store = service.table_tablets(engine, meta).store
    assert delete_versions(store) == ()
    outside = DeltaTable(table_path(engine, "del")).to_pyarrow_table().to_pylist()
    assert sorted((r["k"], r["v"]) for r in outside) == expected


def test_compaction_after_schema_changes_keeps_defaults_and_forgets_dropped_columns(engine):
    """Compaction reads its inputs as queries do: a column added after a file was written reads
    as its DEFAULT (and is written so), a dropped column is gone from the output, and a column
    of the same name added again never shows the dropped values."""
    run(
        engine,
        "CREATE TABLE sc (k INT NOT NULL, v VARCHAR(8), old INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')",
    )
    run(engine, "INSERT INTO sc VALUES (1, 'a', 11), (2, 'b', 22)")
    run(engine, "ALTER TABLE sc DROP COLUMN old")
    run(engine, "ALTER TABLE sc ADD COLUMN old INT DEFAULT '7'")
    run(engine, "ALTER TABLE sc ADD COLUMN n VARCHAR(4) DEFAULT 'dflt'")
    run(engine, "INSERT INTO sc (k, v, old, n) VALUES (3, 'c', 33, 'new')")
    expected = [(1, "a", 7, "dflt"), (2, "b", 7, "dflt"), (3, "c", 33, "new")]
    assert everything(engine, "sc") == expected
    service.full_compaction(engine, engine.catalog.load_table("d", "sc"))
    assert len(files(engine, "sc")) == 1
    assert everything(engine, "sc") == expected
    outside = DeltaTable(table_path(engine, "sc")).to_pyarrow_table().to_pylist()
    assert sorted((r["k"], r["v"], r["old"], r["n"]) for r in outside) == expected
