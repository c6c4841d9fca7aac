"""One compaction of one tablet, run with Spark and committed as one Delta transaction.

``compact_tablet`` takes the rowsets the policy picked (or a caller chose) and:

1. holds the tablet's lock (storage.locks.tablet_lock) for the whole run: two compactions of one
   tablet never overlap (the commit-time conflict check stays the safety net);
2. reads the rowsets' files with Spark, each row carrying the version its file reads as
   (``__commit_seq``, the end of the file's range: dorisql.tablets.rowsets);
3. base compaction only: drops the rows the table's delete versions delete, with the function
   queries filter with (dorisql.tablets.deletes.apply_deletes). A cumulative compaction never
   covers a delete version (the policy stops at one), so the deletes after its range still apply
   to its output at read time, as they did to its inputs;
4. merges rows of equal keys of UNIQUE and AGGREGATE tables with the function queries merge with
   (dorisql.tablets.merge.merge_rows): the output holds what a query of the inputs returns;
5. writes one output rowset, sorted by the key columns, in one file per
   ``compaction_output_file_size_mbytes`` of input, named ``.v<start>-<end>.parquet``;
6. commits ``remove`` of every input file and ``add`` of the output (``dataChange=false``) in one
   Delta commit (DeltaStore.rewrite: refused, and nothing committed, when another commit removed
   an input since the read: DROP PARTITION, TRUNCATE, another rewrite);
7. base compaction only: retires the delete versions no live file needs any more (a second
   commit; a crash before it leaves them in force, which is harmless: they match nothing older).

Why the output's rows read as the range's *end* version: every rowset of the tablet after the
range has a higher version and every one before it a lower one, so UNIQUE's latest row and
AGGREGATE's REPLACE keep Doris's version order. Loads committed during a compaction are later
rowsets, untouched. A process killed anywhere before the commit leaves only uncommitted files in
the tablet folder (the trash job deletes them); the removed inputs stay on disk for older
snapshots until the trash job's ``trash_file_expire_time_sec`` has passed.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dorisql.catalog.model import TableMeta
from dorisql.errors import CommitConflictError
from dorisql.session import failures
from dorisql.storage.delta import DeltaStore
from dorisql.storage.layout import BUCKET_COLUMN, PARTITION_COLUMN, range_suffix
from dorisql.storage.locks import tablet_lock
from dorisql.tablets.deletes import retire_delete_versions
from dorisql.tablets.merge import merge_rows
from dorisql.tablets.read import read_table_files
from dorisql.tablets.rowsets import TabletRowset, needed_delete_versions
from dorisql.tablets.tables import LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN, df_column, needs_sequence

CUMULATIVE, BASE = "CUMULATIVE", "BASE"
MB = 1024 * 1024


@dataclass
class CompactionTask:
    """One compaction: what SHOW PROC '/compactions' shows of it."""

    table: str
    partition: str
    bucket: int
    kind: str
    #: The input rowsets' version ranges, e.g. ("3-3", "5-9").
    inputs: tuple[str, ...]
    input_files: int
    input_bytes: int
    trigger: str = "MANUAL"
    state: str = "RUNNING"
    output: str = ""
    output_files: int = 0
    output_bytes: int = 0
    started: float = field(default_factory=time.time)
    finished: float | None = None
    error: str = ""
    #: The Delta version the compaction committed (None: nothing committed).
    version: int | None = None
    retired: tuple[int, ...] = ()
    #: The table's Delta folder.
    path: str = ""


class TaskLog:
    """Running and recent compactions of this process (Doris keeps them in BE memory too)."""

    def __init__(self, keep: int = 100):
        self._lock = threading.Lock()
        self._running: list[CompactionTask] = []
        self._done: deque[CompactionTask] = deque(maxlen=keep)

    def start(self, task: CompactionTask) -> None:
        with self._lock:
            self._running.append(task)

    def finish(self, task: CompactionTask) -> None:
        with self._lock:
            if task in self._running:
                self._running.remove(task)
            self._done.append(task)

    def tasks(self) -> list[CompactionTask]:
        """Running first, then the finished ones, newest first."""
        with self._lock:
            return list(self._running) + list(reversed(self._done))


TASKS = TaskLog()


def merged_frame(spark, meta: TableMeta, files: Sequence[Any], deletes: Sequence[Any] = ()):
    """The rows of `files` as a query reads them (dorisql.tablets.read.read_table_files: columns
    added after a file was written read as their DEFAULT, dropped ones vanish, the given delete
    versions applied), rows of equal keys merged by the key model; with the load-order columns of
    the table's data files. The output is written with the current schema, so later readers find
    every column in it."""
    from pyspark.sql import functions as F

    df = read_table_files(spark, meta, files, deletes)
    out = merge_rows(df, meta)  # a merge-on-write table's rows pass as they are: one row per key
    if needs_sequence(meta.definition):
        # One row per key, all reading as the range's end version: their load order is moot.
        out = out.withColumn(LOAD_SEQ_COLUMN, F.lit(0).cast("long")).withColumn(ROW_SEQ_COLUMN, F.lit(0).cast("long"))
    return out


def _sort_columns(meta: TableMeta) -> list[str]:
    keys = meta.definition.keys
    if keys is not None and keys.columns:
        return list(keys.columns)
    return [meta.definition.columns[0].name]


def _deletes_for(deletes: Sequence[Any], partition: str) -> list[Any]:
    return [d for d in deletes if d.partitions is None or partition in d.partitions]


def compact_tablet(
    spark,
    store: DeltaStore,
    meta: TableMeta,
    partition: str,
    bucket: int,
    inputs: Sequence[TabletRowset],
    kind: str,
    *,
    read_version: int,
    deletes: Sequence[Any] = (),
    output_file_size: int = 128 * MB,
    trigger: str = "MANUAL",
) -> CompactionTask:
    """Compact `inputs` (consecutive rowsets of tablet `partition`/`bucket`, read at
    `read_version`) into one rowset. `deletes`: the table's live delete versions. Returns the
    finished task; raises CommitConflictError when the tablet is busy or an input was removed
    meanwhile (nothing committed), and any other failure as it came (nothing committed)."""

    if kind not in (CUMULATIVE, BASE):
        raise ValueError(f"compaction type {kind!r}")
    inputs = sorted(inputs, key=lambda rs: rs.start)
    files = [f for rs in inputs for f in rs.files]
    start, end = inputs[0].start, inputs[-1].end
    mine = _deletes_for(deletes, partition)
    if kind == CUMULATIVE:
        crossed = [d.version for d in mine if start < d.version <= end]
        if crossed:  # the policy never picks such inputs: refuse rather than lose a DELETE
            raise ValueError(f"cumulative compaction of versions {start}-{end} would cross delete version {crossed[0]}")
    task = CompactionTask(
        table=f"{meta.db}.{meta.name}",
        partition=partition,
        bucket=bucket,
        kind=kind,
        inputs=tuple(f"{rs.start}-{rs.end}" for rs in inputs),
        input_files=len(files),
        input_bytes=sum(f.size for f in files),
        trigger=trigger,
        path=store.path,
    )
    log = TASKS  # looked up now: a benchmark may keep a longer log
    log.start(task)
    try:
        with tablet_lock(store.path, partition, bucket):
            if files:
                applied = [d for d in mine if d.version <= end] if kind == BASE else []
                merged = merged_frame(spark, meta, files, applied)
                result = _write(
                    store, merged, meta, (partition, bucket), files, (start, end), read_version, kind, output_file_size
                )
                task.version = result.version
                task.output = f"{start}-{end}" if result.files else ""
                task.output_files = len(result.files)
                task.output_bytes = result.bytes
            if kind == BASE and deletes:
                task.retired = retire_unneeded(store, deletes)
        task.state = "FINISHED"
        return task
    except BaseException as exc:
        task.state = "FAILED"
        task.error = str(exc) if isinstance(exc, (CommitConflictError, ValueError)) else _message(exc)
        raise
    finally:
        task.finished = time.time()
        log.finish(task)


def _message(exc: BaseException) -> str:
    try:
        return str(failures.translate(exc)) if isinstance(exc, Exception) else type(exc).__name__
    except Exception:  # the message must never hide the failure itself
        return type(exc).__name__


def _write(store, merged, meta, tablet, files, versions, read_version, kind, output_file_size):
    from pyspark.sql import functions as F

    (partition, bucket), (start, end) = tablet, versions
    size = sum(f.size for f in files)  # an upper bound of the output's size
    count = max(1, math.ceil(size / max(1, int(output_file_size))))
    keys = [F.col(f"`{df_column(merged, k)}`") for k in _sort_columns(meta)]
    if count == 1:  # a tablet is compacted by one task, as by one thread in Doris
        laid = merged.coalesce(1).sortWithinPartitions(*keys)
    else:  # key ranges per file: the files of the rowset do not overlap
        laid = merged.repartitionByRange(count, *keys).sortWithinPartitions(*keys)
    laid = laid.withColumn(PARTITION_COLUMN, F.lit(partition)).withColumn(BUCKET_COLUMN, F.lit(int(bucket)))
    return store.rewrite(
        read_version,
        files,
        laid,
        file_suffix=range_suffix(start, end),
        operation=f"dorisql {kind} COMPACTION",
        metadata={"compaction": kind, "tablet": f"{partition}/{bucket}", "versions": f"{start}-{end}"},
    )


def retire_unneeded(store, deletes: Sequence[Any]) -> tuple[int, ...]:
    """Retire the delete versions no live file of the table needs (all older rows they delete
    are gone). Returns the versions retired."""

    needed = needed_delete_versions(store.snapshot().files, deletes)
    done = tuple(sorted(d.version for d in deletes if d.version not in needed))
    if done:
        retire_delete_versions(store, done)
    return done
