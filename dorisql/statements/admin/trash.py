"""Deleting from disk what nothing needs any more: the ``trash`` background job and ADMIN CLEAN TRASH.

What is deleted, and when. "Now" is the engine's clock (``engine.now()``: ``SET dorisql_now``,
``dorisql scheduler --now``), the settings are frontend settings (ADMIN SET FRONTEND CONFIG):

1. Recycle-bin entries dropped more than ``catalog_trash_expire_second`` ago (Doris
   CatalogRecycleBin). The entry leaves the catalog first, in one transaction (so a concurrent
   RECOVER either wins or finds nothing), then its data goes: a partition's recorded files
   (never one the table's latest snapshot holds again), a table's folder, an emptied database
   folder. A crash in between leaves unreferenced files, which rule 2 or 5 deletes later.
2. Data files a Delta commit removed (TRUNCATE, DROP PARTITION FORCE, rewrites), once removed
   more than ``trash_file_expire_time_sec`` ago by the commit's deletion timestamp (wall
   clock; Delta's vacuum counts in whole hours, so the wait is rounded up to an hour). Never a
   file the latest snapshot references, never a file a recycle-bin partition holds.
3. Stream Load bodies (``_staging/stream_load/<txn>.body``) that no live load owns: a load
   holds its body's lock while the body exists, so a body whose lock is free belongs to a load
   that was killed (statements.load.stream_load.orphan_bodies); only bodies older than a minute of real
   time are judged.
4. Stream Load labels of loads that ended more than ``label_keep_max_second`` ago by the
   engine's clock (Doris's label cleaning; three days by default): the label may be used again.
5. Leftovers of crashes, once modified more than ``trash_orphan_grace_second`` ago: the
   ``_staging/<txn>`` folders of loads, data files no commit ever added, and table folders in a
   database folder that no catalog table or bin entry references (CREATE TABLE writes the Delta
   table before the catalog entry). Whatever the clock says, nothing modified in the last
   hour of real time is touched: that protects loads and CREATE TABLEs still running.

Each table is cleaned under its commit lock, the lock every load, drop and RECOVER PARTITION
commits under, so no commit adds a file back while its garbage is being decided and deleted.
A table that fails is reported and the others are still cleaned.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from pathlib import Path

from dorisql import ast
from dorisql.catalog.base import RECYCLED_DATABASE, RECYCLED_PARTITION, RECYCLED_TABLE, RecycleBinEntry
from dorisql.catalog.model import TableMeta
from dorisql.errors import DorisqlError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.ddl.partitions import finish_pending_drops, has_pending_drops
from dorisql.statements.ddl.recycle_bin import database_folders, table_folder
from dorisql.statements.handler import Handlers
from dorisql.statements.load.stream_load import expire_labels, orphan_bodies
from dorisql.storage import fs
from dorisql.storage.delta import DeltaStore
from dorisql.storage.layout import DELTA_LOG_DIR, STAGING_DIR
from dorisql.storage.locks import table_lock
from dorisql.tablets.tables import meta_dir

#: Untracked files, staging folders and orphan table folders younger than this (real seconds)
#: are never deleted, whatever the engine clock says: they may belong to a statement in flight.

MIN_REAL_AGE_SECONDS = 3600

#: Erase order (Doris: partitions, then tables, then databases).
_ERASE_ORDER = {RECYCLED_PARTITION: 0, RECYCLED_TABLE: 1, RECYCLED_DATABASE: 2}


# ---------------------------------------------------------------------- pure rules


def is_expired(dropped_at: dt.datetime, now: dt.datetime, expire_seconds: int) -> bool:
    """Doris isExpire: more than `expire_seconds` since the drop."""
    return (now - dropped_at).total_seconds() > expire_seconds


def vacuum_hours(cutoff: dt.datetime, wall_now: dt.datetime) -> int:
    """Delta vacuum's retention (whole hours back from the wall clock) that lists only files
    removed before `cutoff`: rounded up, so a file is never listed early; 0 when the cutoff is
    in the wall clock's future (an injected clock ahead of it)."""
    return max(math.ceil((wall_now - cutoff).total_seconds() / 3600), 0)


def old_enough(mtime: float, cutoff: dt.datetime, wall_now: float) -> bool:
    """A leftover modified at `mtime` (epoch seconds) may go: before the engine's cutoff, and
    not within MIN_REAL_AGE_SECONDS of the real time."""
    return mtime < cutoff.timestamp() and mtime < wall_now - MIN_REAL_AGE_SECONDS


# ---------------------------------------------------------------------- the report


@dataclass
class TrashReport:
    """What one trash pass deleted."""

    #: Bin entries that expired, as "Table d.t (10012)".
    expired: list[str] = field(default_factory=list)
    files: int = 0
    bytes: int = 0
    folders: int = 0
    #: Stream Load labels forgotten (label_keep_max_second).
    labels: int = 0
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.expired or self.files or self.folders or self.labels)

    def summary(self) -> str:
        text = (
            f"trash: {len(self.expired)} recycle bin entries expired, {self.files} files and "
            f"{self.folders} folders deleted ({self.bytes} bytes)"
        )
        if self.labels:
            text += f", {self.labels} load labels expired"
        if self.errors:
            text += f", {len(self.errors)} errors (" + "; ".join(f"{k}: {v}" for k, v in self.errors.items()) + ")"
        return text

    def details(self) -> list[str]:
        return [f"expired {name}" for name in self.expired]

    def count_deleted(self, deleted: tuple[int, int]) -> None:
        """Add what DeltaStore.delete_files reports: (files, bytes)."""
        self.files += deleted[0]
        self.bytes += deleted[1]


# ---------------------------------------------------------------------- one pass


@dataclass(frozen=True)
class _Settings:
    now: dt.datetime
    wall_now: dt.datetime
    bin_seconds: int
    file_seconds: int
    grace_seconds: int

    @property
    def orphan_cutoff(self) -> dt.datetime:
        return self.now - dt.timedelta(seconds=self.grace_seconds)

    @property
    def removed_cutoff(self) -> dt.datetime:
        return self.now - dt.timedelta(seconds=self.file_seconds)


def run_trash_pass(session: Session) -> TrashReport:
    """One pass: expire the recycle bin, then clean every live table, then orphan folders."""
    settings = _Settings(
        now=session.now(),
        wall_now=dt.datetime.now(),
        bin_seconds=int(session.frontend("catalog_trash_expire_second")),
        file_seconds=int(session.frontend("trash_file_expire_time_sec")),
        grace_seconds=int(session.frontend("trash_orphan_grace_second")),
    )
    report = TrashReport()
    _expire_recycle_bin(session, settings, report)
    live = session.catalog.list_table_metas()
    for meta in live:
        try:
            _clean_table(session, meta, settings, report)
        except Exception as exc:  # one broken table must not stop the pass for the others
            report.errors[f"{meta.db}.{meta.name}"] = (
                str(exc) if isinstance(exc, DorisqlError) else f"{type(exc).__name__}: {exc}"
            )
    _remove_orphan_folders(session, live, settings, report)
    _remove_orphan_bodies(session, settings, report)
    _expire_labels(session, settings, report)
    return report


def _expire_labels(session: Session, settings: _Settings, report: TrashReport) -> None:
    """Stream Load labels older than label_keep_max_second (statements.load.stream_load.expire_labels)."""

    try:
        report.labels = len(expire_labels(session, settings.now))
    except Exception as exc:
        report.errors["load labels"] = str(exc) if isinstance(exc, DorisqlError) else type(exc).__name__


def _remove_orphan_bodies(session: Session, settings: _Settings, report: TrashReport) -> None:
    """Stream Load bodies of loads that were killed (statements.load.stream_load.orphan_bodies: none a
    live load holds, whatever the clocks say)."""

    try:
        removed = orphan_bodies(session, settings.wall_now.timestamp(), remove=True)
    except Exception as exc:  # the rest of the pass stands
        report.errors["Stream Load bodies"] = str(exc) if isinstance(exc, DorisqlError) else type(exc).__name__
        return
    report.count_deleted((len(removed), sum(b.size for b in removed)))


def _expire_recycle_bin(session: Session, settings: _Settings, report: TrashReport) -> None:
    entries = session.catalog.list_recycle_bin()
    due = [e for e in entries if is_expired(e.dropped_at, settings.now, settings.bin_seconds)]
    if not due:
        return
    erased = session.catalog.erase_recycled([e.id for e in sorted(due, key=lambda e: _ERASE_ORDER[e.kind])])
    bin_tables = {e.id: e.table for e in entries if e.kind == RECYCLED_TABLE and e.table is not None}
    live = {m.id: m for m in session.catalog.list_table_metas()}
    for entry in sorted(erased, key=lambda e: _ERASE_ORDER[e.kind]):
        report.expired.append(
            f"{entry.kind} {entry.db_name}.{entry.name} ({entry.id})"
            if entry.kind != RECYCLED_DATABASE
            else f"{entry.kind} {entry.name} ({entry.id})"
        )
        try:
            if entry.kind == RECYCLED_PARTITION and entry.table_id is not None:
                if entry.table_id in live:
                    _delete_partition_files(session, live[entry.table_id], entry, report, owner_live=True)
                elif entry.table_id in bin_tables:
                    _delete_partition_files(session, bin_tables[entry.table_id], entry, report, owner_live=False)
            elif entry.kind == RECYCLED_TABLE and entry.table is not None:
                folder = table_folder(session.warehouse, entry.table)
                if folder is not None:
                    fs.remove_tree(str(folder))
                    report.folders += 1
            elif entry.kind == RECYCLED_DATABASE:
                _remove_empty_database_folder(session, entry.name)
        except Exception as exc:  # the entry is gone; its leftovers are orphans for a later pass
            report.errors[f"{entry.kind} {entry.name} ({entry.id})"] = f"{type(exc).__name__}: {exc}"


def _delete_partition_files(
    session: Session, owner: TableMeta, entry: RecycleBinEntry, report: TrashReport, *, owner_live: bool
) -> None:
    """The recorded files of an expired partition, except any the latest snapshot holds again."""

    folder = table_folder(session.warehouse, owner)
    if folder is None:
        return
    store = DeltaStore(folder)
    with table_lock(str(folder)):
        if owner_live and has_pending_drops(session, owner):
            finish_pending_drops(session, owner)  # an interrupted RECOVER PARTITION re-added some
        live = {f.path for f in store.snapshot().files} if (folder / DELTA_LOG_DIR).is_dir() else set()
        paths = [f.path for f in entry.files if f.path not in live]
        report.count_deleted(store.delete_files(paths))


def _clean_table(session: Session, meta: TableMeta, settings: _Settings, report: TrashReport) -> None:
    folder = meta_dir(session.warehouse, meta)
    if not (folder / DELTA_LOG_DIR).is_dir():
        return
    store = DeltaStore(folder)
    wall = settings.wall_now.timestamp()
    with table_lock(str(folder)):
        if has_pending_drops(session, meta):
            finish_pending_drops(session, meta)
        held = {
            f.path for e in session.catalog.list_recycle_bin(kind=RECYCLED_PARTITION, table_id=meta.id) for f in e.files
        }
        removed = set(store.removed_files(vacuum_hours(settings.removed_cutoff, settings.wall_now)))
        every_removed = set(store.removed_files(0))
        untracked = set(store.unreferenced_files(vacuum_hours(settings.orphan_cutoff, settings.wall_now)))
        untracked = {p for p in untracked - every_removed if _mtime_old_enough(folder / p, settings, wall)}
        garbage = sorted((removed | untracked) - held)
        report.count_deleted(store.delete_files(garbage))
        staging = folder / STAGING_DIR
        if staging.is_dir():
            for txn in staging.iterdir():
                if _mtime_old_enough(txn, settings, wall):
                    fs.remove_tree(str(txn))
                    report.folders += 1


def _mtime_old_enough(path: Path, settings: _Settings, wall: float) -> bool:
    try:
        return old_enough(path.stat().st_mtime, settings.orphan_cutoff, wall)
    except FileNotFoundError:
        return False


def _remove_orphan_folders(session: Session, live: list[TableMeta], settings: _Settings, report: TrashReport) -> None:
    """Table folders no catalog table and no bin entry references, then emptied database folders
    of databases that are gone. Only folders that look like dorisql tables (named by an id, or
    holding a Delta log) are candidates: anything else a user keeps there is left alone."""
    recycled = [e.table for e in session.catalog.list_recycle_bin(kind=RECYCLED_TABLE) if e.table is not None]
    known_ids = {m.id for m in live} | {m.id for m in recycled}
    known_paths = {meta_dir(session.warehouse, m) for m in (*live, *recycled)}
    wall = settings.wall_now.timestamp()
    for db_folder in database_folders(session.warehouse):
        for child in list(db_folder.iterdir()):
            if not child.is_dir() or child in known_paths or child.name.startswith(("_", ".")):
                continue
            if child.name.isdigit() and int(child.name) in known_ids:
                continue  # moved by an unfinished RECOVER DATABASE ... AS: table_folder finds it
            if not (child.name.isdigit() or (child / DELTA_LOG_DIR).is_dir()):
                continue
            if _mtime_old_enough(child, settings, wall):
                fs.remove_tree(str(child))
                report.folders += 1
        _remove_empty_database_folder(session, db_folder.name)


def _remove_empty_database_folder(session: Session, name: str) -> None:
    """A database folder goes once it is empty and no live or recycled database has that name."""
    if session.catalog.database_exists(name):
        return
    if any(e.name == name for e in session.catalog.list_recycle_bin(kind=RECYCLED_DATABASE)):
        return
    try:
        (session.warehouse / name).rmdir()
    except OSError:  # not empty (or already gone)
        pass


# ------------------------------------------------------------- ADMIN CLEAN TRASH (the job: jobs.scheduler)


def admin_clean_trash(session: Session, stmt: ast.AdminCleanTrash) -> Result:
    """ADMIN CLEAN TRASH (Doris: empty the BE trash now): one trash pass now, whatever the job's
    interval and switch; what it deleted is the message, tables it could not clean are warnings."""
    report = run_trash_pass(session)
    result = Result.ok(message=report.summary())
    result.warnings = [f"{name}: {message}" for name, message in report.errors.items()]
    return result


HANDLERS: Handlers = {ast.AdminCleanTrash: admin_clean_trash}
