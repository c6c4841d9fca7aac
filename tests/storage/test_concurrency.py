"""Several processes committing to one table at once (separate interpreters, never fork)."""

from __future__ import annotations

import json
import multiprocessing
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

pytestmark = pytest.mark.spark


def _committer(path: str, staging_dirs: list[str], worker: int, out) -> None:
    from dorisql.storage.delta import DeltaStore

    store = DeltaStore(path)
    for k, d in enumerate(staging_dirs):
        out.put(store.commit_staged(d, statement=f"worker {worker} load {k}").version)


def test_two_processes_appending_concurrently_both_land(table, sample_df):
    """Spark stages six loads; two spawned processes commit three each at the same time."""
    dirs = []
    for k in range(6):
        d = table.new_staging_dir()
        sample_df(20, offset=100 * k).write.partitionBy("__partition", "__bucket").parquet(d)
        dirs.append(d)
    ctx = multiprocessing.get_context("spawn")  # never fork: deltalake's runtime panics in a forked child
    out = ctx.Queue()
    procs = [ctx.Process(target=_committer, args=(table.path, dirs[w::2], w, out)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    versions = sorted(out.get(timeout=5) for _ in range(6))
    assert versions == list(range(2, 8))  # six distinct commits after create (0) + properties (1)
    t = DeltaTable(table.path).to_pyarrow_table()
    assert t.num_rows == 120
    assert sorted(t["id"].to_pylist()) == sorted(100 * k + i for k in range(6) for i in range(20))
    assert not os.listdir(os.path.join(table.path, "_staging"))


def _raw_appender(path: str, worker: int, n: int) -> None:
    """Commit n appends with deltalake directly (no dorisql lock): its own retries must cope."""
    from deltalake import DeltaTable
    from deltalake.transaction import AddAction

    for k in range(n):
        rel = f"__partition=p1/__bucket=0/raw-{worker}-{k}.parquet"
        full = os.path.join(path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        pq.write_table(pa.table({"id": pa.array([worker * 100 + k], pa.int32())}), full)
        dt = DeltaTable(path)
        dt.create_write_transaction(
            [
                AddAction(
                    path=rel,
                    size=os.path.getsize(full),
                    partition_values={"__partition": "p1", "__bucket": "0"},
                    modification_time=0,
                    data_change=True,
                    stats=json.dumps({"numRecords": 1}),
                )
            ],
            mode="append",
            schema=dt.schema(),
            partition_by=["__partition", "__bucket"],
        )


def test_deltalake_concurrent_appends_all_land_without_our_lock(warehouse):
    """Pins the deltalake 1.6 behaviour docs/storage.md relies on: concurrent appends retry and land."""
    path = str(warehouse / "raw")
    DeltaTable.create(
        path,
        pa.schema([("id", pa.int32()), ("__partition", pa.string()), ("__bucket", pa.int32())]),
        partition_by=["__partition", "__bucket"],
    )
    ctx = multiprocessing.get_context("spawn")  # never fork: deltalake's runtime panics in a forked child
    procs = [ctx.Process(target=_raw_appender, args=(path, w, 5)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    t = DeltaTable(path)
    assert t.version() == 20
    assert sorted(t.to_pyarrow_table()["id"].to_pylist()) == sorted(w * 100 + k for w in range(4) for k in range(5))
