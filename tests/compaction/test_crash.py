"""A compaction killed with SIGKILL before its Delta commit leaves the table unchanged: same
version, same rows, nothing worse than leftovers for ADMIN CHECK TABLE; a retry completes.

The kill comes from the shared crash harness (tests/crashkit, DORISQL_TEST_KILL_AT), as in
tests/engine/test_crash_consistency.py.
"""

from __future__ import annotations

import time

from dorisql.statements.admin.check_table import GRACE_SECONDS, LEFTOVER, check_table

from .conftest import rows, run
from crashkit import killed_dorisql


def test_a_compaction_killed_before_its_commit_changes_nothing(spark, tmp_path, make_engine):
    warehouse = tmp_path / "wh"
    engine = make_engine(warehouse, spark=spark)
    run(engine, "CREATE DATABASE d; USE d")
    run(engine, 'ADMIN SET FRONTEND CONFIG ("cumulative_compaction_skip_window_seconds" = "0")')
    run(
        engine,
        "CREATE TABLE t (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')",
    )
    for i in range(5):
        run(engine, f"INSERT INTO t VALUES ({i % 2}, 'v{i}')")
    before = sorted(rows(engine, "SELECT * FROM t"))
    from dorisql.compaction import service

    snapshot = service.table_tablets(engine, engine.catalog.load_table("d", "t")).snapshot
    killed_dorisql(
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
