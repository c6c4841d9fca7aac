"""Commits of whole partitions' existing files, writing no rows: remove them (DROP PARTITION,
TRUNCATE), give them a new partition value (RENAME PARTITION), add removed ones back (RECOVER
PARTITION). Each is one commit under the table's commit lock, with the file list taken under
that lock (``DeltaStore.drop_partitions``, ``truncate``, ``rename_partition``, ``restore_files``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from dorisql.errors import CommitConflictError, ExecutionError
from dorisql.storage import fs
from dorisql.storage.layout import tablet_folder
from dorisql.storage.locks import table_lock
from dorisql.storage.log import DeltaLog, add_action
from dorisql.storage.snapshot import CommitResult, FileEntry, WriteResult, live_paths
from dorisql.storage.stats import read_footer_stats

__all__ = ["remove_where", "rename_partition", "restore_files"]


def remove_where(
    log: DeltaLog,
    pred: Callable[[FileEntry], bool],
    operation: str,
    statement: str | None,
    metadata: Mapping[str, Any] | None,
    expected_read_version: int | None,
    extra: Mapping[str, Any],
) -> CommitResult:
    """One commit of ``remove`` actions (dataChange=true) for every file of the latest snapshot
    (read under the commit lock) that ``pred`` picks; none: nothing is committed. ``extra``'s
    entries that are not None go into the commit's metadata."""
    with table_lock(log.path, log.lock_timeout):
        dt = log._table()
        snap = log._snapshot_of(dt)
        if expected_read_version is not None and expected_read_version > snap.version:
            raise CommitConflictError(
                f"table {log.path} is at version {snap.version}, older than the expected {expected_read_version}"
            )
        victims = [f for f in snap.files if pred(f)]
        if not victims:
            return CommitResult(snap.version, snap.version, False, ())
        md = {**(metadata or {}), **{k: v for k, v in extra.items() if v is not None}}
        if expected_read_version is not None:
            md["dorisql.expectedReadVersion"] = expected_read_version
        version = log._commit_actions(
            dt,
            [],
            victims,
            data_change=True,
            read_version=snap.version,
            operation=operation,
            statement=statement,
            metadata=md,
        )
    return CommitResult(version, snap.version, True, tuple(victims))


def rename_partition(
    log: DeltaLog, old: str, new: str, *, statement: str | None = None, metadata: Mapping[str, Any] | None = None
) -> WriteResult:
    """Partition ``old``'s files under the partition value ``new``, in one commit (hard links or
    copies). See ``DeltaStore.rename_partition``."""
    with table_lock(log.path, log.lock_timeout):
        dt = log._table()
        snap = log._snapshot_of(dt)
        if any(f.partition == new for f in snap.files):
            raise CommitConflictError(f"partition {new!r} already has data in {log.path}")
        victims = [f for f in snap.files if f.partition == old]
        if not victims:
            return WriteResult.nothing(snap.version)
        created: list[str] = []

        def relink(f: FileEntry) -> tuple[FileEntry, str]:
            file_name = f.path.rsplit("/", 1)[-1]
            rel = f"{tablet_folder(new, f.bucket)}/{file_name}"
            dst = os.path.join(log.path, rel)
            fs.link_or_copy(f.uri, dst)
            created.append(dst)
            footer = read_footer_stats(dst)
            entry = FileEntry(
                path=rel,
                uri=fs.spark_uri(dst),
                partition=new,
                bucket=f.bucket,
                size=footer.size,
                num_records=footer.num_records,
                modification_time=int(os.path.getmtime(dst) * 1000),
            )
            return entry, footer.stats_json

        try:
            with ThreadPoolExecutor(max_workers=min(fs.FILE_THREADS, len(victims))) as pool:
                placed = list(pool.map(relink, victims))
            version = log._commit_actions(
                dt,
                [add_action(e, st) for e, st in placed],
                victims,
                data_change=True,
                read_version=snap.version,
                operation="dorisql RENAME PARTITION",
                statement=statement,
                metadata={**(metadata or {}), "from": old, "to": new},
            )
        except BaseException:
            fs.remove_files(created)
            raise
    return WriteResult.of(version, snap.version, (e for e, _ in placed), victims)


def restore_files(
    log: DeltaLog,
    files: Sequence[FileEntry],
    *,
    operation: str,
    statement: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> WriteResult:
    """Add back files that an earlier commit removed, in one commit. See
    ``DeltaStore.restore_files``."""
    with table_lock(log.path, log.lock_timeout):
        dt = log._table()
        live = live_paths(dt)
        todo = [f for f in files if f.path not in live]
        if not todo:
            return WriteResult.nothing(dt.version())
        missing = [f.path for f in todo if not os.path.isfile(os.path.join(log.path, f.path))]
        if missing:
            raise ExecutionError(
                f"{len(missing)} of the {len(todo)} files to add back are no longer in "
                f"{log.path} (e.g. {missing[0]}); nothing was committed"
            )

        def placed(f: FileEntry) -> tuple[FileEntry, str]:
            footer = read_footer_stats(os.path.join(log.path, f.path))
            entry = replace(f, uri=log._uri(f.path), size=footer.size, num_records=footer.num_records)
            return entry, footer.stats_json

        with ThreadPoolExecutor(max_workers=min(fs.FILE_THREADS, len(todo))) as pool:
            results = list(pool.map(placed, todo))
        read_version = dt.version()
        version = log._commit_actions(
            dt,
            [add_action(e, st) for e, st in results],
            [],
            data_change=True,
            read_version=read_version,
            operation=operation,
            statement=statement,
            metadata=metadata,
        )
    return WriteResult.of(version, read_version, (e for e, _ in results))
