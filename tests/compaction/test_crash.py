"""A compaction killed with SIGKILL before its Delta commit leaves the table unchanged: same
version, same rows, nothing worse than leftovers for ADMIN CHECK TABLE; a retry completes.

The kill comes from tests/engine/crashkit/sitecustomize.py (DORISQL_TEST_KILL_AT), as in
tests/engine/test_crash_consistency.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from dorisql.statements.admin.check_table import GRACE_SECONDS, LEFTOVER, check_table

from .conftest import rows, run

DORISQL = str(Path(sys.executable).with_name("dorisql"))
CRASHKIT = Path(__file__).parents[1] / "engine" / "crashkit"


def killed(warehouse: Path, sql: str, kill_at: str) -> None:
    env = {
        **os.environ,
        "DORISQL_TEST_KILL_AT": kill_at,
        "PYTHONPATH": os.pathsep.join(p for p in (str(CRASHKIT), os.environ.get("PYTHONPATH")) if p),
    }
    env.pop("DORISQL_CONFIG", None)
    proc = subprocess.Popen(
        [DORISQL, "--warehouse", str(warehouse), "--master", "local[1]", "-D", "d", "-e", sql],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the JVM the killed process started
        except ProcessLookupError:
            pass
        if proc.poll() is None:
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"never killed: exit {proc.returncode}\n{out}\n{err[-3000:]}"


def test_a_compaction_killed_before_its_commit_changes_nothing(spark, tmp_path, make_engine):
    warehouse = tmp_path / "wh"
    engine = make_engine(warehouse, spark=spark)
    run(engine, "CREATE DATABASE d; USE d")
    run(engine, 'ADMIN SET FRONTEND CONFIG ("cumulative_compaction_skip_window_seconds" = "0")')
    run(engine, "CREATE TABLE t (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    for i in range(5):
        run(engine, f"INSERT INTO t VALUES ({i % 2}, 'v{i}')")
    before = sorted(rows(engine, "SELECT * FROM t"))
    from dorisql.compaction import service

    snapshot = service.table_tablets(engine, engine.catalog.load_table("d", "t")).snapshot
    killed(
        warehouse,
        "ADMIN COMPACT TABLE t PARTITION t WHERE type = 'CUMULATIVE'",
        "before:dorisql.storage.delta:DeltaStore._commit_actions",
    )
    meta = engine.catalog.load_table("d", "t")
    after = service.table_tablets(engine, meta).snapshot
    assert after.version == snapshot.version and after.files == snapshot.files
    assert sorted(rows(engine, "SELECT * FROM t")) == before
    # the killed run's output files are uncommitted leftovers (judged once an hour old)
    findings = check_table(engine.warehouse, meta, time.time() + 2 * GRACE_SECONDS)
    assert findings and all(f.severity == LEFTOVER for f in findings)
    run(engine, "ADMIN COMPACT TABLE t PARTITION t WHERE type = 'CUMULATIVE'")  # the retry
    assert sorted(rows(engine, "SELECT * FROM t")) == before
    assert len(service.table_tablets(engine, meta).snapshot.files) == 1
    engine.close()
