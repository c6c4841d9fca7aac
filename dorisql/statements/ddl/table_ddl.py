"""CREATE / DROP / ALTER / TRUNCATE: catalog changes and the Delta commits that go with them.

Order of work, so that a crash at any point leaves a consistent warehouse:
- CREATE TABLE creates the Delta table in a folder named by a reserved table id, then adds the
  catalog entry that makes it visible (a crash in between leaves an unreferenced folder, which
  the trash job removes).
- DROP TABLE / DATABASE move the catalog entries into the recycle bin in one catalog commit and
  leave the folders alone (RECOVER brings them back; statements.ddl.recycle_bin). With FORCE they remove
  the catalog entries first, then the folders.
- RENAME TABLE / PARTITION are catalog changes only: folders and Delta partition values are
  keyed by immutable ids (TableMeta). So is REPLACE WITH TABLE: one catalog transaction under
  both tables' commit locks; with swap=false and FORCE the replaced table's folder goes after it.
- ADD / DROP INDEX (and CREATE / DROP INDEX ... ON) change the definition only: nothing is built.
- DROP PARTITION records its intent, updates the catalog (and the recycle bin), then commits
  the Delta `remove`s under the table's commit lock (statements.ddl.partitions.drop_partitions finishes
  an interrupted one).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from typing import Any

from dorisql import ast
from dorisql.analysis import indexes
from dorisql.analysis.checks import modify_distribution, normalize_create_table
from dorisql.catalog.colocation import colocate_name
from dorisql.catalog.model import TableMeta
from dorisql.errors import (
    AlreadyExistsError,
    AnalysisError,
    CatalogError,
    DamagedTableError,
    NotSupportedError,
    UnknownDatabaseError,
    UnknownTableError,
)
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.admin import trash
from dorisql.statements.ddl import partitions as parts
from dorisql.statements.ddl import recycle_bin as recycle
from dorisql.statements.ddl.alter_columns import (
    SCHEMA_CHANGES,
    alter_schema,
    check_colocate_replication,
    modify_partition,
    new_definition,
)
from dorisql.statements.handler import Handlers
from dorisql.statements.show import view_definitions as views
from dorisql.storage.delta import DeltaStore
from dorisql.storage.layout import DELTA_LOG_DIR
from dorisql.storage.locks import LOCK_FILE, table_lock
from dorisql.storage.log import DDL_PROPERTY
from dorisql.syntax.generator import to_sql
from dorisql.tablets.consistency import has_storage, require_storage
from dorisql.tablets.merge_on_write import stores_merge_on_write
from dorisql.tablets.tables import arrow_schema, meta_dir
from dorisql.warehouse import table_id_path, validate_name

# ---------------------------------------------------------------------- databases


def create_database(session: Session, stmt: ast.CreateDatabase) -> Result:
    session.catalog.create_database(stmt.name, if_not_exists=stmt.if_not_exists, properties=dict(stmt.properties))
    (session.warehouse / stmt.name).mkdir(exist_ok=True)
    return Result.ok(1)


def drop_database(session: Session, stmt: ast.DropDatabase) -> Result:
    if not session.catalog.database_exists(stmt.name):
        if stmt.if_exists:
            return Result.ok()
        raise UnknownDatabaseError(f"Can't drop database '{stmt.name}'; database doesn't exist")
    if not stmt.force:
        # Into the recycle bin with its tables, in one catalog commit; the folders stay.
        session.catalog.drop_database(stmt.name, if_exists=True, dropped_at=session.now())
    else:
        # Doris drops the tables with their database. Catalog first, then the folders: a crash in
        # between leaves only unreachable folders, never catalog tables without their Delta tables.
        dropped = session.catalog.drop_database(stmt.name, if_exists=True, force=True)
        for meta in dropped:
            _drop_table_data(session, meta)
        try:  # only when empty: the database may already have been re-created with new tables
            (session.warehouse / stmt.name).rmdir()
        except OSError:
            pass
    if session.current_db == stmt.name:
        session.current_db = None
    return Result.ok()


# ---------------------------------------------------------------------- tables


def create_table(session: Session, stmt: ast.CreateTable) -> Result:
    """CREATE TABLE without AS SELECT (that one: statements.ddl.create_as)."""
    db = session.resolve_db(stmt.table.db)
    if name_taken(session, db, stmt):
        return Result.ok()
    definition = normalize_create_table(dataclasses.replace(stmt, table=ast.TableName(stmt.table.name, db)))
    meta = new_table_storage(session, definition, stmt)
    register_table(session, meta, if_not_exists=stmt.if_not_exists)
    return Result.ok()


def name_taken(session: Session, db: str, stmt) -> bool:
    """CREATE TABLE's name checks: True when IF NOT EXISTS finds the table (nothing to do)."""
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    if session.catalog.table_exists(db, stmt.table.name):
        if not stmt.if_not_exists:
            raise AlreadyExistsError(f"Table '{stmt.table.name}' already exists")
        if _whole_table_exists(session, db, stmt.table.name):
            return True
    elif session.catalog.get_view(db, stmt.table.name) is not None:  # one namespace with views
        if not stmt.if_not_exists:
            raise AlreadyExistsError(f"Table '{stmt.table.name}' already exists")
        return True
    return False


def new_table_storage(session: Session, definition: ast.CreateTable, stmt: ast.Statement) -> TableMeta:
    """The Delta table of a new table (normalised `definition`), in a folder named by a freshly
    reserved id that nothing points to yet; its catalog entry (not yet registered)."""

    partition_list = parts.initial_partitions(session, definition)
    stored = definition
    if definition.partition is not None:
        stored = dataclasses.replace(definition, partition=dataclasses.replace(definition.partition, items=()))
    meta = TableMeta(
        id=session.catalog.next_id(),
        db=definition.table.db or session.resolve_db(None),
        name=definition.table.name,
        definition=stored,
        partitions=tuple(partition_list),
        created_at=session.now(),
        merge_on_write=stores_merge_on_write(stored),
    )
    meta = parts.with_dynamic_state_created(session, meta)
    DeltaStore.create(meta_dir(session.warehouse, meta), arrow_schema(stored), properties={DDL_PROPERTY: to_sql(stmt)})
    return meta


def register_table(session: Session, meta: TableMeta, *, if_not_exists: bool) -> bool:
    """Add the catalog entry that makes a new table (and its Delta table) visible. The Delta
    table comes first: a crash in between leaves an orphan folder (no table, cleaned up as
    trash), never a listed table without its Delta table. False: IF NOT EXISTS found the name
    taken meanwhile (the new folder is removed)."""
    try:
        session.catalog.create_table(meta, if_not_exists=False)
    except BaseException as exc:
        discard_table_storage(session, meta)
        if isinstance(exc, AlreadyExistsError) and if_not_exists:  # created meanwhile by another session
            return False
        raise
    return True


def discard_table_storage(session: Session, meta: TableMeta) -> None:
    shutil.rmtree(meta_dir(session.warehouse, meta), ignore_errors=True)


def _whole_table_exists(session: Session, db: str, name: str) -> bool:
    """For CREATE TABLE IF NOT EXISTS: is there a table with its storage under this name?

    A catalog entry without its Delta table is refused (TableStorageError), never reported as an
    existing table, unless it is being dropped right now (DROP removes the entry first, then the
    folder): then the name is free."""
    existing = _load(session, db, name, if_exists=True)
    if existing is None or has_storage(session.warehouse, existing):
        return existing is not None
    again = _load(session, db, name, if_exists=True)
    if again is None or again.id != existing.id:
        return again is not None
    require_storage(session.warehouse, again)
    return True


def _drop_table_data(session: Session, meta: TableMeta) -> None:
    location = meta_dir(session.warehouse, meta)
    for _ in range(3):  # again if a session racing to drop it re-created the folder for its lock
        shutil.rmtree(location, ignore_errors=True)
        if not location.exists():
            return


#: DROP TABLE re-reads the table when another session dropped it under its lock.
_DROP_ATTEMPTS = 5


def drop_table(session: Session, stmt: ast.DropTable) -> Result:
    db = session.resolve_db(stmt.table.db)
    views.refuse_wrong_object(session, db, stmt.table.name)
    for attempt in range(_DROP_ATTEMPTS):
        try:
            found = _load(session, db, stmt.table.name, if_exists=stmt.if_exists)
        except DamagedTableError as exc:
            _drop_damaged_table(session, exc)
            return Result.ok()
        if found is None:
            return Result.ok()
        # Temporary partitions stay with the table: Doris recycles the whole OlapTable, and
        # RECOVER TABLE brings them back (catalog_recycle_bin_p0/test_temp_partitions_table).
        meta = found
        location = meta_dir(session.warehouse, meta)
        try:
            # Under the commit lock, so no load commits into the table while it leaves the catalog.
            with table_lock(str(location)):
                dropped = session.catalog.drop_table(
                    db, meta.name, if_exists=stmt.if_exists, force=stmt.force, dropped_at=session.now()
                )
            break
        except (FileNotFoundError, FileExistsError):  # its folder went while locking: dropped by another session
            if attempt == _DROP_ATTEMPTS - 1:
                raise
    # Without FORCE the folder waits in the recycle bin. With it, the folder of the entry really
    # dropped goes: another session may have dropped and re-created the name since `meta` was
    # read, and the lock may then have re-created `meta`'s folder, empty.
    if stmt.force and dropped is not None:
        _drop_table_data(session, dropped)
    if dropped is None or dropped.id != meta.id:
        _remove_lock_only_folder(location)
    return Result.ok()


def _drop_damaged_table(session: Session, damaged: DamagedTableError) -> None:
    """DROP TABLE of a table whose catalog entry cannot be read: its folder is found by id,
    the entry goes, nothing else is touched."""

    session.catalog.drop_table(damaged.db, damaged.name, if_exists=True)
    folder = table_id_path(session.warehouse, damaged.db, damaged.table_id)
    if (folder / DELTA_LOG_DIR).is_dir():
        shutil.rmtree(folder, ignore_errors=True)


def _remove_lock_only_folder(location) -> None:
    try:
        if set(os.listdir(location)) <= {LOCK_FILE}:
            shutil.rmtree(location, ignore_errors=True)
    except FileNotFoundError:
        pass


def truncate_table(session: Session, stmt: ast.TruncateTable) -> Result:
    db = session.resolve_db(stmt.table.db)
    meta = session.catalog.load_table(db, stmt.table.name)
    names = [_partition(meta, name).name for name in stmt.partitions] or None
    parts.truncate_partitions(session, meta, names, force=stmt.force)
    return Result.ok()


def _load(session: Session, db: str, name: str, if_exists: bool = False) -> TableMeta | None:
    try:
        return session.catalog.load_table(db, name)
    except DamagedTableError:
        raise
    except CatalogError:
        if if_exists:
            return None
        raise


def _partition(meta: TableMeta, name: str):
    found = meta.partition(name)
    if found is None:
        raise AnalysisError(f"Partition '{name}' does not exist in table '{meta.name}'")
    return found


# ---------------------------------------------------------------------- ALTER TABLE


def alter_table(session: Session, stmt: ast.AlterTable) -> Result:
    db = session.resolve_db(stmt.table.db)
    try:
        meta = session.catalog.load_table(db, stmt.table.name)
    except UnknownTableError:  # (one namespace: a view is no table)
        views.refuse_alter_view(session, db, stmt.table.name)
        raise

    for action in stmt.actions:  # refuse before changing anything
        if type(action) not in _ALTER and not isinstance(action, SCHEMA_CHANGES):
            raise NotSupportedError(getattr(action, "feature", None) or f"ALTER TABLE {type(action).__name__}")
    schema_actions = [a for a in stmt.actions if isinstance(a, SCHEMA_CHANGES)]
    if schema_actions:
        if len(schema_actions) != len(stmt.actions):
            # Doris AlterOperations: a schema change goes alone (or with other schema changes)
            raise AnalysisError("Can not alter table schema together with partitions or properties")
        if meta.temp_partitions and any(isinstance(a, _NOT_WITH_TEMP_PARTITIONS) for a in schema_actions):
            # Doris SchemaChangeHandler: column changes wait until the temporary partitions are gone
            raise AnalysisError("Can not alter table when there are temp partitions in table")
        new_definition(meta, schema_actions)  # Doris's rules, before anything is written
        alter_schema(session, meta, schema_actions, stmt.text)
        return Result.ok()
    _check_conflicts(stmt.actions)
    drops = [a for a in stmt.actions if isinstance(a, ast.DropPartition) and not a.temporary]
    if drops and len(drops) == len(stmt.actions):  # one catalog change and one Delta commit for all
        _drop_partitions(session, meta, drops)
        return Result.ok()
    if all(isinstance(a, (ast.AddIndex, ast.DropIndex)) for a in stmt.actions):
        _change_indexes(session, meta, stmt.actions)
        return Result.ok()
    for action in stmt.actions:
        meta = _ALTER[type(action)](session, meta, action)
    return Result.ok()


#: The column changes Doris refuses while the table has temporary partitions (comments and
#: renames are handled elsewhere in Doris, without that check).
_NOT_WITH_TEMP_PARTITIONS = (ast.AddColumns, ast.DropColumn, ast.ModifyColumn, ast.ReorderColumns)

#: Doris's AlterOpType of each ALTER TABLE clause that is not a schema change.
_OP_TYPES = {
    ast.AddPartition: "ADD_PARTITION",
    ast.DropPartition: "DROP_PARTITION",
    ast.ReplacePartition: "REPLACE_PARTITION",
    ast.ModifyPartition: "MODIFY_PARTITION",
    ast.RenameTable: "RENAME",
    ast.RenamePartition: "RENAME",
    ast.SetProperties: "MODIFY_TABLE_PROPERTY",
    ast.ModifyDistribution: "MODIFY_DISTRIBUTION",
    ast.ReplaceTable: "REPLACE_TABLE",
    ast.AddIndex: "SCHEMA_CHANGE",
    ast.DropIndex: "SCHEMA_CHANGE",
}

#: Doris's AlterOpType.COMPATIBILITY_MATRIX: the operations that may repeat in one statement.
_REPEATABLE = ("DROP_PARTITION", "SCHEMA_CHANGE")


def _check_conflicts(actions) -> None:
    """Doris's AlterOperations.checkConflict: of these clauses only DROP PARTITIONs go together
    in one statement (AlterOpType.COMPATIBILITY_MATRIX); any other pair is refused before
    anything changes, in Doris's words."""
    seen: list[str] = []
    for action in actions:
        op = _OP_TYPES[type(action)]
        for current in seen:
            if not (op == current and op in _REPEATABLE):
                raise AnalysisError(f"Alter operation {op} conflicts with operation {current}")
        if op not in seen:
            seen.append(op)


def _drop_partitions(session: Session, meta: TableMeta, drops: list[ast.DropPartition]) -> TableMeta:
    """DROP PARTITION clauses (one or several): every name checked first, then all dropped in
    one catalog change and one Delta commit (partitions.drop_partitions), so a bad name changes
    nothing. FORCE applies when every clause says it: otherwise all go through the recycle bin,
    so no partition a clause meant to keep recoverable is deleted for good."""
    if any(meta.partition(a.name) is None for a in drops):
        # A drop of one that crashed after its catalog commit: its retry finishes the Delta part.
        parts.finish_pending_drops(session, meta)
    names: list[str] = []
    for action in drops:
        if meta.partition(action.name) is None:
            if action.if_exists:
                continue
            raise AnalysisError(f"Error in list of partitions to {action.name}")  # ERR_DROP_PARTITION_NON_EXISTENT
        if action.name.lower() not in {n.lower() for n in names}:
            names.append(action.name)
    if not names:
        return meta
    parts.check_manual_change_allowed(session, meta, "DROP PARTITION")
    force = all(a.force for a in drops)
    return parts.drop_partitions(session, meta, names, reason="dorisql DROP PARTITION", force=force)


def _add_partition(session: Session, meta: TableMeta, action: ast.AddPartition) -> TableMeta:
    if not action.temporary:  # Doris (Alter): temporary partitions are allowed on dynamic tables
        parts.check_manual_change_allowed(session, meta, "ADD PARTITION")
    return parts.add_partition(session, meta, action)


def _replace_partition(session: Session, meta: TableMeta, action: ast.ReplacePartition) -> TableMeta:
    return parts.replace_partitions(session, meta, action)


def _drop_partition(session: Session, meta: TableMeta, action: ast.DropPartition) -> TableMeta:
    if action.temporary:
        return parts.drop_temp_partition(session, meta, action)
    return _drop_partitions(session, meta, [action])


def _set_properties(session: Session, meta: TableMeta, action: ast.SetProperties) -> TableMeta:
    check_colocate_replication(meta, {k.lower(): v for k, v in action.properties})
    return parts.set_properties(session, meta, dict(action.properties))


def _rename_table(session: Session, meta: TableMeta, action: ast.RenameTable) -> TableMeta:
    validate_name("table", action.new_name)
    if session.catalog.table_exists(meta.db, action.new_name):
        raise AlreadyExistsError(f"Table '{action.new_name}' already exists")
    # the folder is named by id: a catalog change only
    return session.catalog.rename_table(meta.db, meta.name, action.new_name, expected_version=meta.version)


def _replace_table(session: Session, meta: TableMeta, action: ast.ReplaceTable) -> TableMeta:
    """ALTER TABLE a REPLACE WITH TABLE b (Doris Alter.processReplaceTable): b takes the name a;
    with swap (the default) a takes the name b, else a is dropped (into the recycle bin unless
    FORCE). One catalog transaction, under both tables' commit locks (taken in id order), so no
    load commits into either while the names move; a load that read the old names before is
    refused by its guard (its partitions are not the named table's any more)."""
    swap = indexes.replace_swaps(action)
    other = _load(session, meta.db, action.table, if_exists=True)
    if other is None:
        views.refuse_alter_view(session, meta.db, action.table, replaced_with=True)
        raise UnknownTableError(f"table not found, tableName={action.table}")
    if other.id == meta.id:
        raise AnalysisError(f"Can not replace table '{meta.name}' with itself")
    first, second = sorted((meta, other), key=lambda m: m.id)
    with table_lock(str(meta_dir(session.warehouse, first))), table_lock(str(meta_dir(session.warehouse, second))):
        moved_in, moved_out = session.catalog.replace_table(
            meta.db,
            meta.name,
            other.name,
            swap=swap,
            force=action.force,
            table_ids=(meta.id, other.id),
            dropped_at=session.now(),
        )
    if not swap and action.force and moved_out is not None:
        _drop_table_data(session, moved_out)  # after the commit: a crash leaves an unreferenced folder
    return moved_in


def _change_indexes(session: Session, meta: TableMeta, actions) -> TableMeta:
    """ADD / DROP INDEX clauses in one catalog change: Doris's checks (analysis.indexes) against
    the definition as committed, and nothing built (docs/compatibility.md, Indexes)."""

    def change(current: TableMeta) -> TableMeta:
        definition = current.definition
        for action in actions:
            if isinstance(action, ast.AddIndex):
                definition = indexes.with_index(definition, action) or definition
            else:
                definition = indexes.without_index(definition, action) or definition
        if definition is current.definition:  # IF [NOT] EXISTS: nothing to do
            return current
        return dataclasses.replace(current, definition=definition)

    return session.catalog.update_table(meta.db, meta.name, change, table_id=meta.id)


def _rename_partition(session: Session, meta: TableMeta, action: ast.RenamePartition) -> TableMeta:
    old = _partition(meta, action.old_name)

    def rename(current: TableMeta) -> TableMeta:
        if current.partition(action.new_name) is not None or current.temp_partition(action.new_name) is not None:
            raise AnalysisError(f"Duplicate partition name {action.new_name}")
        if not any(p.id == old.id for p in current.partitions):
            raise AnalysisError(f"Partition '{action.old_name}' does not exist in table '{meta.name}'")
        return dataclasses.replace(
            current,
            partitions=tuple(
                dataclasses.replace(p, name=action.new_name) if p.id == old.id else p for p in current.partitions
            ),
        )

    # files are keyed by the partition id: one catalog change
    return session.catalog.update_table(meta.db, meta.name, rename, table_id=meta.id)


def _modify_partition(session: Session, meta: TableMeta, action: ast.ModifyPartition) -> TableMeta:
    return modify_partition(session, meta, action)


def _modify_distribution(session: Session, meta: TableMeta, action: ast.ModifyDistribution) -> TableMeta:
    """The distribution partitions created from now on take (ADD PARTITION without BUCKETS,
    dynamic and AUTO partitions: bucket_counts.next_decision reads it); existing partitions keep
    their buckets, so no file moves: one catalog change."""

    def new_distribution(current: TableMeta) -> ast.DistributedBy | None:
        colocated = colocate_name(current.definition) is not None
        return modify_distribution(current.definition, action.distribution, colocated=colocated)

    if new_distribution(meta) is None:  # Doris's checks raise before any write; None: nothing to change
        return meta

    def change(current: TableMeta) -> TableMeta:
        definition = dataclasses.replace(current.definition, distribution=new_distribution(current))
        return dataclasses.replace(current, definition=definition)

    return session.catalog.update_table(meta.db, meta.name, change, table_id=meta.id)


_ALTER: dict[type, Callable[[Session, TableMeta, Any], TableMeta]] = {
    ast.ModifyPartition: _modify_partition,
    ast.ModifyDistribution: _modify_distribution,
    ast.AddPartition: _add_partition,
    ast.DropPartition: _drop_partition,
    ast.SetProperties: _set_properties,
    ast.RenameTable: _rename_table,
    ast.RenamePartition: _rename_partition,
    ast.ReplacePartition: _replace_partition,
    ast.ReplaceTable: _replace_table,
    ast.AddIndex: lambda session, meta, action: _change_indexes(session, meta, [action]),
    ast.DropIndex: lambda session, meta, action: _change_indexes(session, meta, [action]),
}

HANDLERS: Handlers = {
    ast.CreateDatabase: create_database,
    ast.DropDatabase: drop_database,
    ast.DropTable: drop_table,
    ast.TruncateTable: truncate_table,
    ast.AlterTable: alter_table,
    **recycle.HANDLERS,
    **trash.HANDLERS,
}
