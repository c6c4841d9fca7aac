"""A table's partition list over time: initial partitions, ADD/DROP, dynamic passes.

The arithmetic is pure and lives elsewhere (range keys: dorisql.partitioning.keys; dynamic
schedule: dorisql.partitioning.dynamic; bucket counts: .bucket_counts). This module applies
their decisions to the catalog and the Delta log.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import functools
from collections.abc import Iterable

from dorisql import ast, table_properties
from dorisql.analysis.checks import check_partition_distribution
from dorisql.bucketing import auto_buckets as auto
from dorisql.catalog.model import DynamicState, PartitionMeta, TableMeta, exact_partition_names
from dorisql.catalog.recycle_entries import files_by_partition, partition_entries
from dorisql.errors import AnalysisError, DorisqlError
from dorisql.partitioning import auto_partitions, dynamic, keys, temporary
from dorisql.partitioning.keys import build_partitions, component_text, partition_columns
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.ddl.bucket_counts import initial_decision, next_decision
from dorisql.statements.ddl.colocation_groups import check_set_properties
from dorisql.storage.delta import DeltaStore
from dorisql.storage.layout import DELTA_LOG_DIR
from dorisql.storage.locks import table_lock
from dorisql.storage.log import DDL_PROPERTY
from dorisql.syntax.generator import to_sql
from dorisql.tablets.consistency import check_log_reached
from dorisql.tablets.tables import column, meta_dir

# ---------------------------------------------------------------------- creating partitions


def initial_partitions(session: Session, definition: ast.CreateTable) -> list[PartitionMeta]:
    """The partitions CREATE TABLE makes: the listed ones, or the single hidden partition
    named after the table, plus whatever the dynamic partition rules create right away."""

    now = session.now()
    decision = initial_decision(session, definition)
    replication = _replication_num(definition)
    if definition.partition is None:
        ids = session.catalog.next_ids(1)
        return [
            PartitionMeta(
                id=ids[0],
                name=definition.table.name,
                buckets=decision.buckets,
                created_at=now,
                replication_num=replication,
                storage_medium=_storage_medium(definition),
                bucket_decision=decision,
            )
        ]
    declared = build_partitions(definition)
    ids = session.catalog.next_ids(max(len(declared), 1))
    partitions = [
        PartitionMeta(
            id=pid,
            name=d.name,
            buckets=decision.buckets,
            created_at=now,
            replication_num=replication,
            storage_medium=_storage_medium(definition),
            bucket_decision=decision,
            **d.meta_fields(),
        )
        for pid, d in zip(ids, declared)
    ]
    props = dynamic_properties(session, definition)
    if props is not None:
        check_global_switch(session, ast.props(definition.properties))
    if props is not None and props.enable:
        shell = TableMeta(
            id=0,
            db=definition.table.db or "",
            name=definition.table.name,
            definition=definition,
            partitions=tuple(partitions),
        )
        plan = _plan_for(session, shell, props, now, creating_table=True)
        shell = _apply_plan_partitions(session, shell, plan, props, now)
        partitions = list(shell.partitions)
    return partitions


def _replication_num(definition: ast.CreateTable) -> int:
    props = ast.props(definition.properties)
    allocation = props.get("replication_allocation")
    if "replication_num" not in props and allocation is not None:
        # "tag.location.default: 3" (what SHOW CREATE TABLE prints): the replicas of every tag
        counts = [num.strip() for _, _, num in (part.partition(":") for part in allocation.split(","))]
        return sum(int(n) for n in counts) if all(n.isdigit() for n in counts) else 1
    value = props.get("replication_num", "1")
    return int(value) if value.isdigit() else 1


def _storage_medium(definition: ast.CreateTable) -> str:
    """The table's storage_medium property (Doris: HDD unless set), shown by SHOW PARTITIONS."""
    value = ast.props(definition.properties).get("storage_medium", "HDD").strip().upper()
    return value if value in ("HDD", "SSD") else "HDD"


def add_partition(session: Session, meta: TableMeta, action: ast.AddPartition) -> TableMeta:
    """ADD [TEMPORARY] PARTITION. A temporary partition's range is checked against the other
    temporary partitions only (Doris: it may overlap formal ones); names are unique across both."""

    item = action.partition
    if has_pending_drops(session, meta):  # a crashed drop of a partition with this name, perhaps
        finish_pending_drops(session, meta)
    explicit = action.distribution.buckets if action.distribution is not None else None

    def add(current: TableMeta) -> TableMeta:
        if current.partition(item.name) is not None or current.temp_partition(item.name) is not None:
            if item.if_not_exists:
                return current
            temporary.check_new_name(current, item.name)
        declared = keys.add_partition(current.temporary_view() if action.temporary else current, item)
        # Doris's order (InternalCatalog.addPartition): name, partition values, then distribution
        check_partition_distribution(current.definition, action.distribution)
        decision = next_decision(session, current, explicit=explicit)
        new = PartitionMeta(
            id=0,
            name=item.name,
            buckets=decision.buckets,  # the catalog assigns the id
            created_at=session.now(),
            replication_num=_replication_num(current.definition),
            storage_medium=_storage_medium(current.definition),
            bucket_decision=decision,
            **declared.meta_fields(),
        )
        if action.temporary:  # the catalog assigns ids to formal partitions only
            new = dataclasses.replace(new, id=session.catalog.next_id())
            return dataclasses.replace(current, temp_partitions=current.temp_partitions + (new,))
        return dataclasses.replace(current, partitions=current.partitions + (new,))

    return session.catalog.update_table(meta.db, meta.name, add, table_id=meta.id)


def drop_temp_partition(session: Session, meta: TableMeta, action: ast.DropPartition) -> TableMeta:
    """DROP TEMPORARY PARTITION: like DROP PARTITION ... FORCE (intent, catalog, Delta removes;
    Doris keeps no recycle-bin entry for temporary partitions)."""
    if meta.temp_partition(action.name) is None:
        finish_pending_drops(session, meta)
        if action.if_exists:
            return meta
        # Doris ErrorCode.ERR_DROP_PARTITION_NON_EXISTENT
        raise AnalysisError(f"Error in list of partitions to {action.name}")

    def drop(current: TableMeta) -> TableMeta:
        wanted = exact_partition_names(current.temp_partitions, [action.name])
        gone = [p for p in current.temp_partitions if p.name in wanted]
        if not gone:
            return current
        return dataclasses.replace(current, temp_partitions=tuple(p for p in current.temp_partitions if p not in gone))

    return _swap_then_remove(session, meta, drop, "dorisql DROP TEMPORARY PARTITION")


def replace_partitions(session: Session, meta: TableMeta, action: ast.ReplacePartition) -> TableMeta:
    """REPLACE PARTITION (p..) WITH TEMPORARY PARTITION (tp..) [FORCE]: one catalog commit swaps
    them (queries read the partitions the catalog lists, so they see the old rows or the new,
    never both); then one Delta commit removes the replaced partitions' files. The temporary
    partitions' files are already in the table under their ids: nothing is copied or moved.

    As Doris's OlapTable.replaceTempPartitions (ReplacePartitionClause.isForceDropOldPartition):
    without FORCE the replaced partitions go into the recycle bin in that catalog commit, with
    their files, as DROP PARTITION does; with FORCE they are dropped for good."""

    strict, use_temp_name = temporary.replace_options(action)

    def swap(current: TableMeta) -> TableMeta:
        temporary.check_replace(current, action.partitions, action.temp_partitions, strict)
        return temporary.replaced(current, action.partitions, action.temp_partitions, use_temp_name)

    return _swap_then_remove(session, meta, swap, "dorisql REPLACE PARTITION", recycle=not action.force)


def _swap_then_remove(session: Session, meta: TableMeta, change, operation: str, *, recycle: bool = False) -> TableMeta:
    """A catalog change that unlists partitions, then the Delta removes of their files, with the
    DROP PARTITION intent protocol (see drop_partitions): a crash in between leaves invisible
    files that the next drop, ADD PARTITION, scheduler or trash pass removes. With `recycle`
    the unlisted partitions enter the recycle bin in the same catalog commit, each with the
    files the snapshot read under the lock holds (as drop_partitions)."""

    location = meta_dir(session.warehouse, meta)
    gone: list[str] = []

    def unlist(current: TableMeta) -> TableMeta:
        after = change(current)
        gone[:] = sorted(current.storage_keys() - after.storage_keys())
        if gone:
            # idempotent: recovery only removes keys the catalog no longer lists
            _write_pending_drops(location, gone)
        return after

    with table_lock(str(location)):
        check_log_reached(session.warehouse, meta)
        if (location / PENDING_DROP_FILE).exists():
            _finish_pending_drops_locked(session, meta, location)
        recycled = _recycler(session, meta, location) if recycle else None
        updated = session.catalog.update_table(meta.db, meta.name, unlist, table_id=meta.id, recycled=recycled)
        if gone:
            if (location / DELTA_LOG_DIR).is_dir():
                DeltaStore(location).drop_partitions(gone, operation=operation)
            _clear_pending_drops(location)
    return updated


def _recycler(session: Session, meta: TableMeta, location):
    """Under the table lock: the `recycled` hook of Catalog.update_table that puts the partitions
    a change unlists into the recycle bin, each with its files in the latest snapshot (read now,
    under the lock, so no commit can change them before the Delta removes)."""
    has_log = (location / DELTA_LOG_DIR).is_dir()
    files = files_by_partition(DeltaStore(location).snapshot()) if has_log else {}
    db_id = session.catalog.get_database(meta.db).id
    dropped_at = session.now()

    def recycled(before: TableMeta, after: TableMeta):
        return partition_entries(before, after, files, db_id, dropped_at)

    return recycled


# ---------------------------------------------------------------------- dropping partitions


def drop_partitions(
    session: Session, meta: TableMeta, names: Iterable[str], reason: str, *, force: bool = False
) -> TableMeta:
    """Drop partitions: catalog first, then one Delta commit of `remove`s for their files.

    Both happen under the table's commit lock (dorisql.storage.locks, re-entrant, the lock a
    load holds while its guard re-checks its partitions and it commits): a load that committed
    into the partitions before is removed with them, and a load committing after is refused by
    its partition guard. Rows never remain in a dropped partition.

    Unless `force`, the partitions go into the catalog recycle bin in the same catalog commit
    (statements.ddl.recycle_bin), each with the files the Delta commit is about to remove: the snapshot is
    read under the lock, so no commit can change those files in between. The files stay on
    disk until RECOVER PARTITION adds them back or the bin entry expires (statements.admin.trash). With
    `force` they are ordinary removed files, deleted once trash_file_expire_time_sec has passed.

    Crash safety: before the catalog commit, the partitions' storage keys are written to an
    intent file in the table folder (``_dorisql_pending_drop.json``); it is deleted once the
    Delta removes are committed. A crash in between leaves files of partitions the catalog no
    longer lists (invisible to queries, which read only live partitions); the next drop, ADD
    PARTITION, scheduler pass or trash pass on the table finishes the removal
    (``finish_pending_drops``); the bin entry already lists those files."""

    names = list(names)
    location = meta_dir(session.warehouse, meta)
    dropping: list[str] = []

    def drop(current: TableMeta) -> TableMeta:
        wanted = exact_partition_names(current.partitions, names)
        dropping[:] = [current.partition_key(p) for p in current.partitions if p.name in wanted]
        if not dropping:
            return current
        # The intent goes to disk before the catalog commit that makes it true (idempotent:
        # a retry adds the same names again; recovery only removes names the catalog lacks).
        _write_pending_drops(location, dropping)
        return dataclasses.replace(current, partitions=tuple(p for p in current.partitions if p.name not in wanted))

    with table_lock(str(location)):
        check_log_reached(session.warehouse, meta)  # a lost commit: refuse before changing anything
        if (location / PENDING_DROP_FILE).exists():
            _finish_pending_drops_locked(session, meta, location)
        has_log = (location / DELTA_LOG_DIR).is_dir()
        recycled = None
        if not force:
            files = files_by_partition(DeltaStore(location).snapshot()) if has_log else {}
            db_id = session.catalog.get_database(meta.db).id
            dropped_at = session.now()

            def recycled(before: TableMeta, after: TableMeta):
                return partition_entries(before, after, files, db_id, dropped_at)

        updated = session.catalog.update_table(meta.db, meta.name, drop, table_id=meta.id, recycled=recycled)
        if dropping:
            if has_log:
                DeltaStore(location).drop_partitions(dropping, operation=reason)
            _clear_pending_drops(location)
    return updated


def truncate_partitions(
    session: Session, meta: TableMeta, names: Iterable[str] | None, *, force: bool = False
) -> TableMeta:
    """TRUNCATE TABLE [PARTITION (...)] [FORCE], as Doris's InternalCatalog.truncateTable: each
    truncated partition is replaced by a new, empty one (same name, range or values, buckets and
    properties; a new id, so VisibleVersion 1 and a fresh Delta partition value) and the old one
    goes into the recycle bin with its files, so RECOVER PARTITION brings its rows back once the
    name is free. The whole table (`names` None) also loses its temporary partitions, recycled
    the same way. With `force` nothing is recycled (the files become ordinary removed files) and,
    as in Doris, partitions without data are left as they are.

    The new id is Doris's reason too: a load planned before the truncate addresses the old
    partition, and its guard refuses it as a load into a dropped partition would be.

    Crash safety: the DROP PARTITION protocol (drop_partitions): intent file, one catalog commit
    (partitions swapped and the bin entries, each with the files the snapshot read under the
    lock holds), then the Delta removes of the old partitions' files."""

    names = None if names is None else list(names)
    location = meta_dir(session.warehouse, meta)
    new_ids: dict[int, int] = {}
    now = session.now()
    gone: list[str] = []

    with table_lock(str(location)):
        check_log_reached(session.warehouse, meta)
        if (location / PENDING_DROP_FILE).exists():
            _finish_pending_drops_locked(session, meta, location)
        has_log = (location / DELTA_LOG_DIR).is_dir()
        files = files_by_partition(DeltaStore(location).snapshot()) if has_log else {}

        def emptied(p: PartitionMeta) -> PartitionMeta:
            if p.id not in new_ids:
                new_ids[p.id] = session.catalog.next_id()
            return dataclasses.replace(p, id=new_ids[p.id], visible_version=1, visible_version_time=now)

        def truncate(current: TableMeta) -> TableMeta:
            wanted = None if names is None else exact_partition_names(current.partitions, names)

            def chosen(p: PartitionMeta) -> bool:
                if wanted is not None and p.name not in wanted:
                    return False
                return not force or bool(files.get(current.partition_key(p)))  # Doris: FORCE skips empty ones

            after = dataclasses.replace(
                current,
                partitions=tuple(emptied(p) if chosen(p) else p for p in current.partitions),
                temp_partitions=() if wanted is None else current.temp_partitions,
            )
            gone[:] = sorted(current.storage_keys() - after.storage_keys())
            if gone:
                _write_pending_drops(location, gone)  # idempotent, as in drop_partitions
            return after

        recycled = None
        if not force:
            db_id = session.catalog.get_database(meta.db).id

            def recycled(before: TableMeta, after: TableMeta):
                return partition_entries(before, after, files, db_id, now)

        updated = session.catalog.update_table(meta.db, meta.name, truncate, table_id=meta.id, recycled=recycled)
        if gone:
            if has_log:
                DeltaStore(location).drop_partitions(gone, operation="dorisql TRUNCATE")
            _clear_pending_drops(location)
    return updated


def mark_pending_drops(location, keys: list[str]) -> None:
    """Record in the table's intent file that these Delta partition values must have no files
    unless the catalog lists their partition (RECOVER PARTITION writes it before re-adding files,
    so an interrupted recovery is undone by ``finish_pending_drops``)."""
    _write_pending_drops(location, keys)


#: Intent file of a partition drop in progress (a name starting with '_' is ignored by Delta readers).
PENDING_DROP_FILE = "_dorisql_pending_drop.json"


def _write_pending_drops(location, keys: list[str]) -> None:
    import json
    import os

    path = location / PENDING_DROP_FILE
    previous = _read_pending_drops(location)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(sorted(set(previous) | set(keys)), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _read_pending_drops(location) -> list[str]:
    import json

    try:
        with open(location / PENDING_DROP_FILE, encoding="utf-8") as f:
            return list(json.load(f))
    except FileNotFoundError:
        return []
    except ValueError:  # a torn write cannot happen (atomic replace); be lenient anyway
        return []


def _clear_pending_drops(location) -> None:
    try:
        (location / PENDING_DROP_FILE).unlink()
    except FileNotFoundError:
        pass


def has_pending_drops(session: Session, meta: TableMeta) -> bool:
    """True when a partition drop of this table was interrupted (one stat, no log read)."""
    return (meta_dir(session.warehouse, meta) / PENDING_DROP_FILE).exists()


def _finish_pending_drops_locked(session: Session, meta: TableMeta, location) -> list[str]:
    """Under the table lock: commit the Delta removes of an interrupted drop, then forget it.

    Only names the catalog no longer lists are removed (a crash before the catalog commit
    leaves the intent file too, and those partitions are still live)."""

    check_log_reached(session.warehouse, meta)
    keys = _read_pending_drops(location)
    if not keys:
        _clear_pending_drops(location)
        return []
    current = session.catalog.load_table(meta.db, meta.name)
    live = current.storage_keys()  # temporary partitions' files are live too
    stale = [k for k in keys if k not in live]
    if stale and (location / DELTA_LOG_DIR).is_dir():
        DeltaStore(location).drop_partitions(stale, operation="dorisql DROP PARTITION (recovery)")
    _clear_pending_drops(location)
    return stale


def finish_pending_drops(session: Session, meta: TableMeta) -> list[str]:
    """Finish a partition drop that crashed between its catalog commit and its Delta commit.

    Cheap when there is nothing to do (one stat). Returns the partition names cleaned up."""
    location = meta_dir(session.warehouse, meta)
    if not (location / PENDING_DROP_FILE).exists():
        return []
    with table_lock(str(location)):
        return _finish_pending_drops_locked(session, meta, location)


def bump_versions(
    session: Session,
    meta: TableMeta,
    names: Iterable[str],
    delta_version: int | None = None,
    *,
    temporary: bool = False,
) -> TableMeta:
    """Record that a load or truncate changed these partitions (VisibleVersion + 1, and its time),
    and the Delta version it committed (TableMeta.known_delta_version). `temporary`: the names
    are temporary partitions."""
    names = list(names)
    now = session.now()

    def bumped(partitions):
        touched = exact_partition_names(partitions, names)
        return tuple(
            dataclasses.replace(p, visible_version=p.visible_version + 1, visible_version_time=now)
            if p.name in touched
            else p
            for p in partitions
        )

    def bump(current: TableMeta) -> TableMeta:
        known = max(current.known_delta_version, delta_version or 0)
        if temporary:
            return dataclasses.replace(
                current, known_delta_version=known, temp_partitions=bumped(current.temp_partitions)
            )
        return dataclasses.replace(current, known_delta_version=known, partitions=bumped(current.partitions))

    return session.catalog.update_table(meta.db, meta.name, bump, table_id=meta.id)


# ---------------------------------------------------------------------- dynamic partitions


def _partition_type(definition: ast.CreateTable) -> str:
    if definition.partition is None or not definition.partition.columns:
        return "DATE"
    return column(definition, definition.partition.columns[0]).type.name


def dynamic_properties(session: Session, definition: ast.CreateTable, properties: dict[str, str] | None = None):
    """The table's parsed dynamic_partition.* properties, or None if it has none."""
    props = ast.props(definition.properties) if properties is None else properties
    if not dynamic.has_dynamic_properties(props):
        return None
    column = definition.partition.columns[0] if definition.partition and definition.partition.columns else "k1"
    return dynamic.parse_properties(
        props,
        _partition_type(definition),
        partition_column=column,
        max_dynamic_partition_num=int(session.frontend("max_dynamic_partition_num")),
        auto_partition=bool(definition.partition and definition.partition.auto_partition),
    )


@functools.lru_cache(maxsize=100_000)
def _planner_bounds(lower: tuple, upper: tuple, column_type: ast.DataType) -> tuple:
    """(lower, upper) values of a partition's catalog bound texts, shared by all tables: an
    idle scheduler pass re-plans every table, and parsing bound texts dominated it."""

    return keys.single_column_bounds(keys.range_from_texts("", lower, upper, (column_type,)).range)


def existing_for_planner(meta: TableMeta) -> list[dynamic.ExistingPartition]:
    result = []
    ptype = None
    for p in meta.partitions:
        if p.lower is None and p.upper is None:
            continue
        if ptype is None:
            ptype = partition_columns(meta.definition)[1][0]
        lower, upper = _planner_bounds(p.lower, p.upper, ptype)
        result.append(dynamic.ExistingPartition(p.name, lower, upper))
    return result


def _apply_plan_partitions(session: Session, meta: TableMeta, plan, props, now: dt.datetime) -> TableMeta:
    """The table with the plan's new partitions added (catalog objects only; nothing committed)."""

    dropped = set(plan.to_drop)
    partitions = [p for p in meta.partitions if p.name not in dropped]
    if plan.to_create:
        ids = session.catalog.next_ids(len(plan.to_create))
        # Doris sizes every dynamic partition the same way, the first ones included:
        # dynamic_partition.buckets, else the table's BUCKETS n, else BUCKETS AUTO. The new
        # partitions are empty, so they change nothing of what decides it: one decision for all.
        decision = next_decision(
            session,
            dataclasses.replace(meta, partitions=tuple(partitions)),
            dynamic_buckets=props.buckets,
            exclude=plan.now_partition_name,
        )
        ptype = partition_columns(meta.definition)[1][0]
        replication = props.replication_num or _replication_num(meta.definition)
        medium = _storage_medium(meta.definition)
        texts: dict = {}  # each upper bound is usually the next partition's lower bound

        def text(value) -> tuple[str]:
            if value not in texts:
                texts[value] = (component_text(value, ptype),)
            return texts[value]

        for pid, planned in zip(ids, plan.to_create):
            if meta.temp_partition(planned.name) is not None:
                continue  # Doris (checkPartitionNameExist) skips a name a temporary partition has
            partitions.append(
                PartitionMeta(
                    id=pid,
                    name=planned.name,
                    buckets=decision.buckets,
                    lower=text(planned.lower),
                    upper=text(planned.upper),
                    created_at=now,
                    replication_num=replication,
                    storage_medium=medium,
                    bucket_decision=decision,
                )
            )
    return dataclasses.replace(meta, partitions=tuple(partitions))


def with_dynamic_state_created(session: Session, meta: TableMeta) -> TableMeta:
    """A new dynamic table has been scheduled once, at creation (Doris runs the rules immediately)."""
    if dynamic.has_dynamic_properties(ast.props(meta.definition.properties)):
        now = session.now()
        state = DynamicState(last_update_time=None, last_scheduler_time=now, state="NORMAL")
        props = dynamic_properties(session, meta.definition)
        if props is not None and props.enable:
            # what that first pass could not do (a range overlapping a listed partition, a START
            # border no date can hold), as SHOW DYNAMIC PARTITION TABLES reports it
            plan = _plan_for(session, meta, props, now)
            state = dataclasses.replace(
                state,
                state=plan.state,
                last_create_partition_msg=plan.last_create_partition_msg,
                last_drop_partition_msg=plan.last_drop_partition_msg,
            )
        return dataclasses.replace(meta, dynamic_state=state)
    return meta


def now_zone(session: Session) -> str | None:
    """The zone a naive "now" is in: the session's ``time_zone`` when set, else None (the
    table's own dynamic_partition.time_zone, so ``SET dorisql_now = '2020-05-29 10:00:00'`` is
    10:00 on the table's clock whatever the machine's zone)."""
    zone = (getattr(session, "session_vars", {}) or {}).get("time_zone") or ""
    return zone.strip() or None


def _plan_for(session: Session, meta: TableMeta, props, now: dt.datetime, creating_table: bool = False):
    return dynamic.plan(
        props,
        existing_for_planner(meta),
        now,
        _partition_type(meta.definition),
        max_dynamic_partition_num=int(session.frontend("max_dynamic_partition_num")),
        creating_table=creating_table,
        now_zone=now_zone(session),
    )


def run_dynamic_pass(session: Session, meta: TableMeta) -> tuple[TableMeta, list[str], list[str]]:
    """One scheduler pass over one table: drop, then create, as the plan says
    (DynamicPartitionScheduler.executeDynamicPartition for one table).

    Returns (table, created names, dropped names). A pass with nothing to do and no change of
    state writes nothing at all: no Delta commit, no catalog update, no Delta log read (the plan
    needs only the catalog). Creating partitions is a catalog commit only (an empty partition
    has no files); dropping commits the catalog, then one Delta commit of `remove`s.

    State, as Doris keeps it per table: State ERROR with LastCreatePartitionMsg when a partition
    could not be created (a range conflict, too many partitions), LastDropPartitionMsg when a
    drop failed; both are cleared (NORMAL, N/A) by a pass where that step went fine.
    """
    props = dynamic_properties(session, meta.definition)
    if props is None or not props.enable:
        return _apply_retention_count(session, meta)
    if has_pending_drops(session, meta):
        finish_pending_drops(session, meta)
        meta = session.catalog.load_table(meta.db, meta.name)
    now = session.now()
    memo_key, memo_value = _idle_memo_key(session, meta, props, now)
    if memo_key is not None and _IDLE_MEMO.get(memo_key) == memo_value:
        return meta, [], []  # same table version, same period: the plan is the same empty one
    plan = _plan_for(session, meta, props, now)
    dropped: list[str] = []
    drop_error = None
    if plan.to_drop:
        try:
            meta = drop_partitions(session, meta, plan.to_drop, reason="dorisql dynamic partition scheduler")
            dropped = list(plan.to_drop)
        except DorisqlError as exc:
            drop_error = f"Failed to drop partitions {', '.join(plan.to_drop)}: {exc}"
            meta = session.catalog.load_table(meta.db, meta.name)
    drop_msg = drop_error or plan.last_drop_partition_msg
    state = meta.dynamic_state
    if not plan.to_create and not dropped and _same_state(state, plan.last_create_partition_msg, drop_msg):
        if memo_key is not None and not plan.to_drop:
            _remember_idle(memo_key, memo_value)
        return meta, [], []
    created: list[str] = []

    def create(current: TableMeta) -> TableMeta:
        fresh = _plan_for(session, current, props, now)
        fresh.to_drop = []  # drops happened above; a concurrent change is for the next pass
        create_msg = fresh.last_create_partition_msg
        new_state = dataclasses.replace(
            current.dynamic_state,
            last_scheduler_time=now,
            state="ERROR" if (create_msg or drop_msg) else "NORMAL",
            last_create_partition_msg=create_msg,
            last_drop_partition_msg=drop_msg,
        )
        created[:] = [p.name for p in fresh.to_create]
        if not fresh.to_create and new_state == current.dynamic_state:
            return current
        updated = _apply_plan_partitions(session, current, fresh, props, now)
        return dataclasses.replace(updated, dynamic_state=new_state)

    meta = session.catalog.update_table(meta.db, meta.name, create, table_id=meta.id)
    return meta, created, dropped


def _apply_retention_count(session: Session, meta: TableMeta) -> tuple[TableMeta, list[str], list[str]]:
    """AUTO RANGE tables with partition.retention_count N: drop the historical partitions beyond
    the N with the largest values (dorisql.partitioning.auto_partitions.retention_drops)."""
    part = meta.definition.partition
    keep = auto_partitions.retention_count(meta.definition.properties)
    if keep is None or part is None or not part.auto_partition or part.kind.upper() != "RANGE":
        return meta, [], []
    doomed = auto_partitions.retention_drops(meta.partitions, session.now(), keep)
    if not doomed:
        return meta, [], []
    meta = drop_partitions(session, meta, doomed, reason="dorisql partition.retention_count")
    return meta, [], doomed


#: Tables whose last pass had nothing to do: (warehouse, db, table, id, catalog version) ->
#: (period of "now", FE limit, session zone). A plan depends on "now" only through the local date
#: (the UTC hour for HOUR tables), and on the table only through its catalog row, whose version
#: changes with every partition or property change (from any process). So while both stay the
#: same, a long-running scheduler (the shell's background thread) skips re-planning.
_IDLE_MEMO: collections.OrderedDict = collections.OrderedDict()
#: Bound on the memo (least recently used entries go first): far more than the tables a warehouse has.
_IDLE_MEMO_LIMIT = 100_000


def _remember_idle(key, value) -> None:
    _IDLE_MEMO[key] = value
    _IDLE_MEMO.move_to_end(key)
    while len(_IDLE_MEMO) > _IDLE_MEMO_LIMIT:
        _IDLE_MEMO.popitem(last=False)


def _idle_memo_key(session: Session, meta: TableMeta, props, now: dt.datetime):
    try:
        zone_name = now_zone(session)
        now_local = dynamic.localize_now(now, props.zone, zone_name)
    except Exception:  # let the full planner report it
        return None, None
    period: dt.date  # the UTC hour (a datetime) or the local date
    if props.time_unit == "HOUR":
        period = now_local.astimezone(dt.timezone.utc).replace(minute=0, second=0, microsecond=0)
    else:
        period = now_local.date()
    key = (str(session.warehouse), meta.db, meta.name, meta.id, meta.version)
    return key, (period, session.frontend("max_dynamic_partition_num"), zone_name)


def _same_state(state: DynamicState, create_msg: str | None, drop_msg: str | None) -> bool:
    expected = "ERROR" if (create_msg or drop_msg) else "NORMAL"
    return (
        state.state == expected
        and state.last_create_partition_msg == create_msg
        and state.last_drop_partition_msg == drop_msg
    )


#: Doris (TableProperty.buildDynamicProperty) when the FE switch is off.
GLOBAL_DISABLED_MESSAGE = (
    "Could not create table with dynamic partition when fe config dynamic_partition_enable "
    'is false. Please ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "true") '
    "firstly."
)


def check_global_switch(session: Session, properties: dict[str, str]) -> None:
    """Doris refuses ``"dynamic_partition.enable" = "true"`` (CREATE or ALTER) while the FE
    config dynamic_partition_enable is false."""
    value = properties.get(dynamic.ENABLE)
    if value is not None and value.strip().lower() == "true" and session.frontend("dynamic_partition_enable") != "true":
        raise AnalysisError(GLOBAL_DISABLED_MESSAGE)


def set_properties(session: Session, meta: TableMeta, changes: dict[str, str]) -> TableMeta:
    """ALTER TABLE ... SET (...): validate, store, and apply dynamic partition rules at once.

    Doris (ModifyTablePropertiesClause + DynamicPartitionUtil): the merged rule set must be
    valid; the table must be RANGE-partitioned on one DATE/DATETIME column; enabling needs the
    FE switch on. With the rules on, the scheduler runs for the table right away (Doris:
    executeDynamicPartitionFirstTime after the change); a range conflict is then recorded in
    SHOW DYNAMIC PARTITION TABLES (State ERROR), not raised. LastUpdateTime is the ALTER time.
    """
    check_log_reached(session.warehouse, meta)  # its dorisql.ddl stamp is a Delta commit
    merged = table_properties.merge(ast.props(meta.definition.properties), changes)
    if "estimate_partition_size" in changes:
        auto.parse_data_size(changes["estimate_partition_size"])
    if "replication_num" in changes and not changes["replication_num"].isdigit():
        raise AnalysisError(f"Invalid replication_num: {changes['replication_num']}")

    check_set_properties(session, meta, changes)
    is_dynamic_change = dynamic.has_dynamic_properties(changes)
    if is_dynamic_change:
        _check_dynamic_table_shape(meta.definition)
        check_global_switch(session, changes)
        dynamic_properties(session, meta.definition, merged)  # validates the merged rule set
    altered_at = session.now()

    def set_props(current: TableMeta) -> TableMeta:
        properties = table_properties.merge(ast.props(current.definition.properties), changes)
        state = current.dynamic_state
        if is_dynamic_change:
            state = dataclasses.replace(state, last_update_time=altered_at)
        return dataclasses.replace(
            current,
            definition=dataclasses.replace(current.definition, properties=tuple(properties.items())),
            dynamic_state=state,
        )

    updated = session.catalog.update_table(meta.db, meta.name, set_props, table_id=meta.id)
    _stamp_ddl(session, updated)
    if is_dynamic_change:
        updated, _created, _dropped = run_dynamic_pass(session, updated)
    return updated


def _stamp_ddl(session: Session, meta: TableMeta) -> None:
    """Keep the Delta table's ``dorisql.ddl`` property in step with the Doris definition."""

    location = meta_dir(session.warehouse, meta)
    if (location / DELTA_LOG_DIR).is_dir():
        DeltaStore(location).set_properties({DDL_PROPERTY: to_sql(meta.definition)})


def _check_dynamic_table_shape(definition: ast.CreateTable) -> None:
    part = definition.partition
    if part is None or part.kind.upper() != "RANGE":
        raise AnalysisError("Only support dynamic partition properties on range partition table")
    if len(part.columns) != 1:
        raise AnalysisError("Dynamic partition only support single-column range partition")
    try:
        dynamic.normalize_column_type(_partition_type(definition))
    except AnalysisError:
        raise AnalysisError(
            f"Dynamic partition only supports DATE and DATETIME partition columns: column "
            f"{part.columns[0]} is {_partition_type(definition)}"
        ) from None


#: Doris DynamicPartitionUtil.checkAlterAllowed (Alter.processAlterOlapTable for DROP PARTITION,
#: InternalCatalog.addPartition for ADD PARTITION; temporary partitions are exempt).
MANUAL_CHANGE_MESSAGE = (
    "Cannot add/drop partition on a Dynamic Partition Table, Use command "
    '`ALTER TABLE tbl_name SET ("dynamic_partition.enable" = "false")` firstly.'
)


def check_manual_change_allowed(session: Session, meta: TableMeta, what: str) -> None:
    """Doris refuses manual ADD PARTITION and DROP PARTITION while the table's dynamic rules are
    enabled (``dynamic_partition.enable`` of the table; the FE switch does not matter)."""
    if what not in ("ADD PARTITION", "DROP PARTITION"):
        return
    props = ast.props(meta.definition.properties)
    if not dynamic.has_dynamic_properties(props):
        return
    enable = props.get(dynamic.ENABLE, "true").strip().lower()
    if enable == "true":
        raise AnalysisError(MANUAL_CHANGE_MESSAGE)


#: Catalog key of the time of the last complete dynamic partition pass (SHOW DYNAMIC PARTITION
#: TABLES shows it as LastSchedulerTime; dorisql.jobs.scheduler writes it).
LAST_PASS_KEY = "dorisql.dynamic_scheduler.last_pass"


LAST_PASS_FORMAT = "%Y-%m-%d %H:%M:%S"


def dynamic_rows(session: Session, db: str) -> Result:
    """SHOW DYNAMIC PARTITION TABLES [FROM db]."""
    last_pass_text = session.catalog.get_config(LAST_PASS_KEY, None)
    last_pass = dt.datetime.strptime(last_pass_text, LAST_PASS_FORMAT) if last_pass_text else None
    rows = []
    for meta in session.catalog.list_table_metas(db):  # a damaged entry is left out, not fatal
        props = dynamic_properties(session, meta.definition)
        if props is None:
            continue
        state = meta.dynamic_state
        if (
            last_pass is not None
            and props.enable
            and (state.last_scheduler_time is None or state.last_scheduler_time < last_pass)
        ):
            state = dataclasses.replace(state, last_scheduler_time=last_pass)
        buckets = meta.definition.distribution.buckets if meta.definition.distribution else None
        rows.append(tuple(dynamic.format_show_row(meta.name, props, state, buckets=buckets)))
    return Result.table(dynamic.show_columns(), rows)
