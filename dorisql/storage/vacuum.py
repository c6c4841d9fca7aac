"""Garbage of a table folder: files no snapshot needs any more, stale staging folders; listing
them and deleting them (``DeltaStore.vacuum``, ``removed_files``, ``unreferenced_files``,
``delete_files``). What is garbage when is the caller's decision (dorisql.statements.admin.trash).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from dorisql.storage import fs
from dorisql.storage.layout import STAGING_DIR
from dorisql.storage.log import DeltaLog

__all__ = ["vacuum", "removed_files", "unreferenced_files", "delete_files"]


def vacuum(
    log: DeltaLog, retention_hours: float = 168, *, staging_older_than_hours: float = 24, dry_run: bool = False
) -> list[str]:
    """Delete files no longer referenced (older than the retention) and stale staging folders."""
    deleted = list(
        log._table().vacuum(retention_hours=int(retention_hours), dry_run=dry_run, enforce_retention_duration=False)
    )
    staging = os.path.join(log.path, STAGING_DIR)
    if os.path.isdir(staging):
        cutoff = time.time() - staging_older_than_hours * 3600
        for name in os.listdir(staging):
            p = os.path.join(staging, name)
            if os.path.getmtime(p) < cutoff:
                deleted.append(p)
                if not dry_run:
                    fs.remove_tree(p)
    return deleted


def removed_files(log: DeltaLog, older_than_hours: int) -> list[str]:
    """Files that a commit removed from the table at least ``older_than_hours`` ago and that the
    latest snapshot does not hold again (``DeltaTable.vacuum`` dry run). See
    ``DeltaStore.removed_files``."""
    return sorted(
        log._table().vacuum(
            retention_hours=max(int(older_than_hours), 0), dry_run=True, enforce_retention_duration=False
        )
    )


def unreferenced_files(log: DeltaLog, older_than_hours: int) -> list[str]:
    """Every data file the latest snapshot does not reference and that is old enough (vacuum dry
    run, full). See ``DeltaStore.unreferenced_files``."""
    return sorted(
        log._table().vacuum(
            retention_hours=max(int(older_than_hours), 0), dry_run=True, enforce_retention_duration=False, full=True
        )
    )


def delete_files(table_path: str, paths: Iterable[str]) -> tuple[int, int]:
    """Delete data files (paths relative to the table folder) and the tablet folders they
    leave empty. Returns (files deleted, bytes freed); files already gone are skipped."""
    count = freed = 0
    folders: set[str] = set()
    for rel in paths:
        full = os.path.join(table_path, rel)
        try:
            size = os.path.getsize(full)
            os.remove(full)
        except FileNotFoundError:
            continue
        count += 1
        freed += size
        folders.add(os.path.dirname(full))
    for folder in sorted(folders, key=len, reverse=True):
        while folder != table_path and folder.startswith(table_path + os.sep):
            try:
                os.rmdir(folder)  # only when empty
            except OSError:
                break
            folder = os.path.dirname(folder)
    return count, freed
