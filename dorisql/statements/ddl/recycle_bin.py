"""The catalog recycle bin, engine side: what DROP puts in it, RECOVER, SHOW CATALOG RECYCLE BIN.

Doris keeps dropped databases, tables and partitions in its FE recycle bin for
``catalog_trash_expire_second`` (default one day) unless the drop says FORCE. Here the bin is a
catalog table (dorisql.catalog), and the data waits on disk where it was:

- a dropped table keeps its folder ``<db>/<table id>``: a new table of the same name gets a new
  id, hence its own folder. A dropped database keeps its folder and its tables' folders.
- a dropped partition's DROP committed Delta ``remove``s (readers stop seeing it at once), but
  its files stay on disk under ``__partition=<partition id>``. Its bin entry records them (path,
  bucket, size, rows, modification time) as they were in the snapshot the drop removed, so
  RECOVER PARTITION adds exactly those files back in one Delta commit.

The trash job (statements.admin.trash) deletes an entry's data once the entry expires. RECOVER takes an
entry out of the bin in the same catalog transaction that makes the object live again, so a
recovery and an expiry never both happen.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path

from dorisql import ast
from dorisql.catalog.base import (
    RECYCLED_DATABASE,
    RECYCLED_PARTITION,
    RECYCLED_TABLE,
    RecycleBinEntry,
)
from dorisql.catalog.model import PartitionMeta, TableMeta
from dorisql.errors import AlreadyExistsError, AnalysisError, CatalogError, ExecutionError
from dorisql.partitioning.keys import RangeDef, from_meta, partition_columns, table_partitions
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.ddl.partitions import finish_pending_drops, mark_pending_drops
from dorisql.statements.handler import Handlers
from dorisql.storage.delta import DeltaStore
from dorisql.storage.layout import DELTA_LOG_DIR
from dorisql.storage.locks import table_lock
from dorisql.storage.snapshot import FileEntry
from dorisql.tablets.tables import meta_dir
from dorisql.warehouse import validate_name

SHOW_COLUMNS = ("Type", "Name", "DbId", "TableId", "PartitionId", "DropTime", "DataSize", "RemoteDataSize")

#: Doris ShowCatalogRecycleBinStmt, for any other WHERE clause.
WHERE_MESSAGE = 'Where clause should like: Name = "name",  or Name LIKE "matcher"'


# ---------------------------------------------------------------------- what DROP PARTITION recycles


# ---------------------------------------------------------------------- where a recycled table's data is


def table_folder(warehouse: Path, meta: TableMeta) -> Path | None:
    """The folder holding the data of a table (live or in the bin), or None if it has none.

    Normally ``meta_dir``. A RECOVER DATABASE ... AS moves its tables' folders to the new
    database folder before its catalog commit; if that commit did not happen, the bin entry
    still names the old database, so an id-named folder is looked for in every database folder
    (ids are unique in the warehouse)."""
    expected = meta_dir(warehouse, meta)
    if expected.is_dir():
        return expected
    for db_folder in database_folders(warehouse):
        candidate = db_folder / str(meta.id)
        if candidate.is_dir():
            return candidate
    return None


def database_folders(warehouse: Path) -> list[Path]:
    """The warehouse's database folders (dorisql's own folders start with '_')."""
    try:
        return [p for p in warehouse.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))]
    except FileNotFoundError:
        return []


def _move_table_folder(session: Session, meta: TableMeta, db: str, name: str) -> tuple[Path, Path] | None:
    """Put a recycled table's folder where the recovered table will look for it (its database
    may change), before the catalog commit. Returns the move made, (from, to), so a failed
    commit can put the folder back; if the process dies instead, `table_folder` still finds an
    id-named folder."""
    source = table_folder(session.warehouse, meta)
    if source is None:
        raise ExecutionError(
            f"the data folder of table '{meta.name}' (id {meta.id}) is missing; it cannot be recovered"
        )
    target = meta_dir(session.warehouse, dataclasses.replace(meta, db=db, name=name))
    if source == target:
        return None
    if target.exists():
        raise ExecutionError(f"cannot recover table '{meta.name}': '{target}' is already taken")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(source, target)
    return source, target


def _move_back(moves: Iterable[tuple[Path, Path] | None]) -> None:
    for move in moves:
        if move is not None and move[1].is_dir() and not move[0].exists():
            os.rename(move[1], move[0])


# ---------------------------------------------------------------------- choosing an entry


def _pick(entries: Iterable[RecycleBinEntry], wanted_id: int | None) -> RecycleBinEntry | None:
    """Doris: the given id, else the most recently dropped one of that name."""
    found = None
    for entry in entries:  # oldest first
        if wanted_id is None or entry.id == wanted_id:
            found = entry
    return found


def _shown_id(wanted_id: int | None) -> int:
    return -1 if wanted_id is None else wanted_id


# ---------------------------------------------------------------------- RECOVER


def recover_database(session: Session, stmt: ast.RecoverDatabase) -> Result:
    target = validate_name("database", stmt.new_name or stmt.name)
    if session.catalog.database_exists(target):
        raise CatalogError(f"Database[{target}] already exist.")
    entry = _pick((e for e in session.catalog.list_recycle_bin(kind=RECYCLED_DATABASE) if e.name == stmt.name), stmt.id)
    if entry is None:
        raise CatalogError(f"Unknown database '{stmt.name}' or database id '{_shown_id(stmt.id)}'")
    tables = [
        (e.name, e.table)
        for e in session.catalog.list_recycle_bin(kind=RECYCLED_TABLE, db_id=entry.id)
        if e.id in entry.table_ids and e.table is not None
    ]
    moves: list[tuple[Path, Path] | None] = []
    try:
        for name, table in tables:
            moves.append(_move_table_folder(session, table, target, name))
        (session.warehouse / target).mkdir(exist_ok=True)
        session.catalog.recover_database(entry.id, new_name=stmt.new_name)
    except BaseException:
        _move_back(moves)
        raise
    return Result.ok()


def recover_table(session: Session, stmt: ast.RecoverTable) -> Result:
    db = session.resolve_db(stmt.table.db)
    database = session.catalog.get_database(db)
    target = validate_name("table", stmt.new_name or stmt.table.name)
    if session.catalog.table_exists(db, target):
        raise AlreadyExistsError(f"Table '{target}' already exists")
    entry = _pick(
        (
            e
            for e in session.catalog.list_recycle_bin(kind=RECYCLED_TABLE, db_id=database.id)
            if e.name == stmt.table.name
        ),
        stmt.id,
    )
    if entry is None or entry.table is None:
        raise CatalogError(f"Unknown table '{stmt.table.name}' or table id '{_shown_id(stmt.id)}' in {db}")
    move = _move_table_folder(session, entry.table, db, target)
    try:
        meta = session.catalog.recover_table(entry.id, new_name=stmt.new_name)
    except BaseException:
        _move_back([move])
        raise
    finish_pending_drops(session, meta)  # a DROP PARTITION it was in the middle of when dropped
    return Result.ok()


def recover_partition(session: Session, stmt: ast.RecoverPartition) -> Result:
    """RECOVER PARTITION: the files come back in Delta first, then the partition in the catalog.

    Crash safety (the two cannot be one transaction): before the Delta commit, the partition's
    Delta value is recorded in the table's pending-drop intent file (statements.ddl.partitions). If the
    process dies after the Delta commit and before the catalog commit, the catalog still lacks
    the partition, so the next access to the table (DROP / ADD PARTITION, a scheduler pass, the
    trash job, or retrying this statement) removes the re-added files again: the partition is
    back in the recycle bin exactly as before, and a retry redoes both steps. The bin entry
    leaves the catalog only in the commit that lists the partition again, so its files are never
    forgotten. A catalog commit that fails (a concurrent change made the name or range taken)
    undoes the Delta commit the same way before the error is raised. All of it holds the
    table's commit lock, which loads, drops and the trash job take too.
    """

    db = session.resolve_db(stmt.table.db)
    meta = session.catalog.load_table(db, stmt.table.name)
    target = validate_name("partition", stmt.new_name or stmt.name)
    _check_name_free(meta, target, stmt.table.name)
    entry = _pick(
        (
            e
            for e in session.catalog.list_recycle_bin(kind=RECYCLED_PARTITION, table_id=meta.id)
            if e.name.lower() == stmt.name.lower()
        ),
        stmt.id,
    )
    if entry is None or entry.partition is None or entry.storage_key is None:
        raise CatalogError(
            f"No partition named '{stmt.name}' or partition id '{_shown_id(stmt.id)}' in table {stmt.table.name}"
        )
    recovered = dataclasses.replace(entry.partition, name=target)
    _check_no_conflict(meta, recovered, stmt.name)

    def put_back(current: TableMeta) -> TableMeta:
        _check_name_free(current, target, stmt.table.name)
        _check_no_conflict(current, recovered, stmt.name)
        return dataclasses.replace(current, partitions=current.partitions + (recovered,))

    location = meta_dir(session.warehouse, meta)
    files = [
        FileEntry(
            path=f.path,
            uri="",
            partition=entry.storage_key,
            bucket=f.bucket,
            size=f.size,
            num_records=f.num_records,
            modification_time=f.modification_time,
        )
        for f in entry.files
    ]
    with table_lock(str(location)):
        finish_pending_drops(session, meta)  # earlier drops settled; a crashed recovery undone
        if files:
            mark_pending_drops(location, [entry.storage_key])
            DeltaStore(location).restore_files(
                files, statement=stmt.text, metadata={"partition": target, "partitionId": entry.id}
            )
        try:
            updated = session.catalog.update_table(db, meta.name, put_back, table_id=meta.id, restore=entry.id)
        except BaseException:
            finish_pending_drops(session, meta)  # the partition is not in the catalog: remove its files again
            raise
        finish_pending_drops(session, updated)  # its key is live now: only forgets the intent
    return Result.ok()


def _check_name_free(meta: TableMeta, name: str, table: str) -> None:
    if meta.partition(name) is not None:
        raise CatalogError(f"partition[{name}] already exist in table[{table}]")


def _check_no_conflict(meta: TableMeta, partition: PartitionMeta, name: str) -> None:
    """Doris: the recovered range (or list values) must not intersect a live partition's."""

    if meta.definition.partition is None:
        conflict = bool(meta.partitions)
    else:
        _, types = partition_columns(meta.definition)
        new = from_meta([partition], types)[0]
        if isinstance(new, RangeDef):
            conflict = any(new.range.intersects(d.range) for d in table_partitions(meta))  # type: ignore[union-attr]
        else:
            conflict = any(key in d.keys for d in table_partitions(meta) for key in new.keys)  # type: ignore[union-attr]
    if conflict:
        raise CatalogError(f"Can not recover partition[{name}]. Partition item conflict.")


# ---------------------------------------------------------------------- SHOW CATALOG RECYCLE BIN


def _name_filter(where: ast.Predicate | None):
    """Doris accepts only ``Name = 'x'`` or ``Name LIKE 'x%'`` (names compared case-insensitively)."""
    if where is None:
        return lambda name: True
    if (
        not isinstance(where, ast.Comparison)
        or where.column.lower() != "name"
        or where.op not in ("=", "LIKE")
        or where.value.kind != "string"
        or not where.value.value
    ):
        raise AnalysisError(WHERE_MESSAGE)
    wanted = where.value.value.lower()
    if where.op == "=":
        return lambda name: name.lower() == wanted
    glob = wanted.replace("*", "[*]").replace("?", "[?]").replace("%", "*").replace("_", "?")
    return lambda name: fnmatch.fnmatchcase(name.lower(), glob)


def show_recycle_bin(session: Session, stmt: ast.ShowCatalogRecycleBin) -> Result:
    """Doris's columns; databases, then tables, then partitions, each by name and drop time.
    DataSize is in bytes: a partition's recorded files, a table's Delta snapshot, a database's
    tables and their dropped partitions. Nothing is remote: RemoteDataSize is 0."""
    keep = _name_filter(stmt.where)
    entries = session.catalog.list_recycle_bin()
    partition_bytes: dict[int, int] = {}
    for e in entries:
        if e.kind == RECYCLED_PARTITION and e.table_id is not None:
            partition_bytes[e.table_id] = partition_bytes.get(e.table_id, 0) + e.files_size
    table_bytes = {e.id: _table_bytes(session, e.table) for e in entries if e.kind == RECYCLED_TABLE and e.table}
    groups: dict[str, list[tuple]] = {RECYCLED_DATABASE: [], RECYCLED_TABLE: [], RECYCLED_PARTITION: []}
    for e in entries:
        if not keep(e.name):
            continue
        when = e.dropped_at.strftime("%Y-%m-%d %H:%M:%S")
        row: tuple  # a SHOW_COLUMNS row
        if e.kind == RECYCLED_DATABASE:
            size = sum(table_bytes.get(t, 0) + partition_bytes.get(t, 0) for t in e.table_ids)
            row = (e.kind, e.name, e.db_id, "", "", when, size, 0)
        elif e.kind == RECYCLED_TABLE:
            row = (e.kind, e.name, e.db_id, e.id, "", when, table_bytes.get(e.id, 0), 0)
        else:
            row = (e.kind, e.name, e.db_id, e.table_id, e.id, when, e.files_size, 0)
        groups[e.kind].append(row)
    rows = [row for kind in groups for row in sorted(groups[kind], key=lambda r: (r[1], r[5]))]
    return Result.table(SHOW_COLUMNS, rows)


def _table_bytes(session: Session, meta: TableMeta) -> int:
    """Bytes of a recycled table's latest Delta snapshot (0 when its folder or log is unreadable:
    SHOW must not fail for one damaged entry)."""

    folder = table_folder(session.warehouse, meta)
    if folder is None or not (folder / DELTA_LOG_DIR).is_dir():
        return 0
    try:
        return DeltaStore(folder).snapshot().total_bytes
    except Exception:
        return 0


HANDLERS: Handlers = {
    ast.RecoverDatabase: recover_database,
    ast.RecoverTable: recover_table,
    ast.RecoverPartition: recover_partition,
    ast.ShowCatalogRecycleBin: show_recycle_bin,
}
