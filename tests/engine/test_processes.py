"""Real processes: a load killed mid-write leaves the table as it was; two `dorisql` processes
loading one table at once both land."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from .conftest import delta_rows, delta_version, rows, run, table_path
from waiting import wait_until

DORISQL = str(Path(sys.executable).with_name("dorisql"))
TABLE = """CREATE TABLE {name} (id BIGINT NOT NULL, day DATE NOT NULL, v VARCHAR(32))
    DUPLICATE KEY(id)
    PARTITION BY RANGE(day) (
        PARTITION p1 VALUES LESS THAN ("2024-01-11"),
        PARTITION p2 VALUES LESS THAN ("2024-01-21"),
        PARTITION p3 VALUES LESS THAN ("2024-02-01"))
    DISTRIBUTED BY HASH(id) BUCKETS 4"""


def _load_sql(table: str, start: int, stop: int, slices: int) -> str:
    return (
        f"USE d; INSERT INTO {table} SELECT id, date_add('2024-01-01', CAST(id % 31 AS INT)), "
        f"concat('row-', CAST(id AS STRING)) FROM (SELECT number + {start} AS id "
        f'FROM numbers("number" = "{stop - start}", "backend_num" = "{slices}")) r'
    )


def _dorisql(warehouse: Path, sql: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DORISQL_CONFIG", None)
    return subprocess.Popen(
        [DORISQL, "--warehouse", str(warehouse), "--master", "local[1]", "--format", "tsv", "-e", sql],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def _staged_files(path: str) -> list[str]:
    found = []
    for root, _dirs, files in os.walk(os.path.join(path, "_staging")):
        found += [os.path.join(root, f) for f in files if ".parquet" in f]
    return found


def test_killed_load_leaves_the_table_as_it_was(engine):
    run(engine, TABLE.format(name="victim"))
    run(engine, "INSERT INTO victim VALUES (1, '2024-01-05', 'kept'), (2, '2024-01-25', 'kept')")
    path = table_path(engine, "victim")
    version, before = delta_version(engine, "victim"), delta_rows(engine, "victim")
    proc = _dorisql(engine.warehouse, _load_sql("victim", 1000, 3_001_000, 24))
    try:

        def writing() -> bool:
            assert proc.poll() is None, f"the load ended before it could be killed: {proc.communicate()}"
            return bool(_staged_files(path))

        wait_until(writing, 240, "Spark to start writing the load's files")
        os.killpg(proc.pid, signal.SIGKILL)  # the dorisql process and its JVM
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert delta_version(engine, "victim") == version
    assert delta_rows(engine, "victim") == before
    assert sorted(rows(engine, "SELECT id, v FROM victim")) == [(1, "kept"), (2, "kept")]
    assert [r[-1] for r in rows(engine, "SHOW PARTITIONS FROM victim")] == [1, 0, 1]
    # The killed writer's lock died with it: the next load commits normally.
    run(engine, "INSERT INTO victim VALUES (3, '2024-01-15', 'after')")
    assert delta_version(engine, "victim") == version + 1
    assert sorted(r["id"] for r in delta_rows(engine, "victim", columns=["id"])) == [1, 2, 3]
    # What the killed process wrote is only orphans: vacuum clears the staging folder.
    from dorisql.storage.delta import DeltaStore

    DeltaStore(path).vacuum(retention_hours=0, staging_older_than_hours=0)
    assert not _staged_files(path)
    assert sorted(r["id"] for r in delta_rows(engine, "victim", columns=["id"])) == [1, 2, 3]


def test_two_processes_load_one_table_at_once(engine):
    run(engine, TABLE.format(name="shared"))
    version = delta_version(engine, "shared")
    a = _dorisql(engine.warehouse, _load_sql("shared", 0, 30_000, 4))
    b = _dorisql(engine.warehouse, _load_sql("shared", 30_000, 50_000, 4))
    outs = [p.communicate(timeout=300) for p in (a, b)]
    assert (a.returncode, b.returncode) == (0, 0), outs
    assert delta_version(engine, "shared") == version + 2
    ids = [r["id"] for r in delta_rows(engine, "shared", columns=["id"])]
    assert len(ids) == 50_000 and len(set(ids)) == 50_000  # all there, nothing doubled
    assert rows(engine, "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM shared") == [
        (50_000, 50_000, 0, 49_999)
    ]
    assert sum(r[-1] for r in rows(engine, "SHOW PARTITIONS FROM shared")) == 50_000
    assert all(r[2] == 3 for r in rows(engine, "SHOW PARTITIONS FROM shared"))  # VisibleVersion: two loads each
