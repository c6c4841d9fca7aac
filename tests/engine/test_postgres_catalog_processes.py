"""Several dorisql processes, several mount points, one PostgreSQL catalog (issue 16, acceptance):
a `dorisql` process loading through mount point A races a DROP PARTITION, loads and a scheduler
pass (dynamic partitions, trash, compaction) of this test's engine on mount point B (both symlinks of
one folder, so no code may rely on equal paths). No row is lost or duplicated and the catalog and
the Delta log agree. Then a `dorisql` process SIGKILLed while it holds the table's commit lock
(an advisory lock in PostgreSQL) blocks nobody: the next writer takes the lock at once, and
the next partition change finishes the dead process's drop.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from dorisql.jobs.scheduler import default_jobs
from dorisql.statements.admin.check_table import GRACE_SECONDS, LEFTOVER, check_table
from dorisql.storage.locks import table_lock, use_lock_service
from dorisql.tablets.tables import meta_dir

from .conftest import rows, run
from crashkit import hook_env

DORISQL = str(Path(sys.executable).with_name("dorisql"))
BATCHES = 6


def _consistent(engine) -> None:
    later = time.time() + 10 * GRACE_SECONDS
    for meta in engine.catalog.list_table_metas("d"):
        found = check_table(engine.warehouse, meta, now=later)
        assert all(f.severity == LEFTOVER for f in found), found


def _dorisql(mount: Path, url: str, env: dict[str, str], sql: str, **extra_env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [DORISQL, "--warehouse", str(mount), "--catalog", url, "--master", "local[1]", "-D", "d"]
        + ["--force", "--format", "jsonl", "-e", sql],
        env={**env, **extra_env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its JVM goes with it (killpg)
    )


def _finish(proc: subprocess.Popen, timeout: float = 300) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def test_two_processes_on_two_mount_points_share_one_postgres_catalog(
    spark, make_engine, tmp_path, postgres_url, spark_process_env
):
    real = tmp_path / "shared"
    real.mkdir()
    mount_a, mount_b = tmp_path / "mount_a", tmp_path / "mount_b"
    mount_a.symlink_to(real)
    mount_b.symlink_to(real)
    engine = make_engine(mount_b, spark=spark, catalog=postgres_url)
    try:
        run(
            engine,
            "CREATE DATABASE d; USE d;"
            "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) PARTITION BY RANGE(k) ("
            " PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20),"
            " PARTITION p3 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 1"
            ' PROPERTIES ("replication_num" = "1");'
            'ADMIN SET FRONTEND CONFIG ("cumulative_compaction_skip_window_seconds" = "0")',
        )

        # Process A loads batch b as (11, b), (21, b), and (1, b) into p1 when b is even: after
        # the drop, the even batches fail as a whole (strict mode) and the odd ones go on.
        batches = [[(1, b)] * (b % 2 == 0) + [(11, b), (21, b)] for b in range(BATCHES)]
        script = ";".join("INSERT INTO t VALUES " + ", ".join(map(str, batch)) for batch in batches)
        loader = _dorisql(mount_a, postgres_url, spark_process_env, script)
        try:
            assert loader.stdout is not None
            first = [loader.stdout.readline() for _ in range(2)]  # two batches are in (jsonl, flushed)
            # ... and while it goes on, process B drops a partition and runs a scheduler pass.
            run(engine, "ALTER TABLE t DROP PARTITION p1")
            for b in (100, 101):  # process B loads too
                run(engine, f"INSERT INTO t VALUES (12, {b}), (22, {b})")
            for job in default_jobs():
                job.run(engine)
        finally:
            out, err = _finish(loader)
        records = [json.loads(line) for line in first + out.splitlines() if line.strip()]
        assert len(records) == BATCHES, err
        ok = {b for b, r in enumerate(records) if "error" not in r}
        assert {0, 1, *range(1, BATCHES, 2)} <= ok  # before the drop, and those that miss p1

        found = Counter(rows(engine, "SELECT k, v FROM t"))
        assert all(n == 1 for n in found.values()), f"duplicated rows: {found}"
        assert not [r for r in found if r[0] < 10], "rows of the dropped partition are visible"
        for b in range(BATCHES):  # a batch is all there (but p1) or not at all
            present = {(11, b), (21, b)} & set(found)
            assert len(present) in (0, 2), (b, found)
            assert (len(present) == 2) == (b in ok), (b, records[b], err)
        assert {(12, 100), (22, 100), (12, 101), (22, 101)} <= set(found)
        assert len(found) == 2 * len(ok) + 4
        _consistent(engine)

        # A process killed while it holds the commit lock: its DROP PARTITION p2 is in the
        # catalog, its Delta commit never happened.
        killed = _dorisql(
            mount_a,
            postgres_url,
            spark_process_env,
            "ALTER TABLE t DROP PARTITION p2",
            **hook_env(kill_at="before:dorisql.storage.delta:DeltaStore.drop_partitions"),
            DORISQL_START_SPARK="when_needed",
        )
        _out, err = _finish(killed, timeout=120)
        assert killed.returncode == -signal.SIGKILL, err
        started = time.monotonic()
        with table_lock(str(meta_dir(engine.warehouse, engine.catalog.load_table("d", "t"))), timeout=10):
            pass
        assert time.monotonic() - started < 5
        # The next partition change finishes the dead process's drop (check.py's DROP_PENDING).
        run(engine, "ALTER TABLE t ADD PARTITION p4 VALUES LESS THAN (40); INSERT INTO t VALUES (23, 200)")
        assert sorted(rows(engine, "SELECT k, v FROM t")) == sorted(
            [(21, b) for b in ok] + [(22, 100), (22, 101), (23, 200)]
        )
        assert [p.name for p in engine.catalog.load_table("d", "t").partitions] == ["p3", "p4"]
        _consistent(engine)
    finally:
        engine.close()
        use_lock_service(mount_b, None)
