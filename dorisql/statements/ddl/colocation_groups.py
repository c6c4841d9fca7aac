"""Colocation groups in the engine: CREATE/ALTER checks, SHOW PROC '/colocation_group', the
stability switch (docs/colocation.md). The catalog keeps the groups and checks their schema
(dorisql.catalog.colocation, atomic with each table change); the colocate join is
dorisql.query.colocate_join."""

from __future__ import annotations

import dataclasses

from dorisql import ast
from dorisql.bucketing.auto_buckets import BucketDecision
from dorisql.catalog.base import GLOBAL_GROUP_PREFIX, ColocationGroup
from dorisql.catalog.colocation import (
    COLOCATE_WITH,
    RANDOM_MESSAGE,
    check_dynamic_buckets,
    check_new_group,
    colocate_name,
    doris_type_name,
)
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.handler import Handlers

#: Table properties that change the replica allocation (refused on group members, as in Doris).

_REPLICATION_PROPERTIES = ("replication_num", "replication_allocation", "default.replication_num")


def group_of(session: Session, meta: TableMeta) -> ColocationGroup | None:
    name = colocate_name(meta.definition)
    return None if name is None else session.catalog.get_colocation_group(meta.db, name)


def check_create(session: Session, definition: ast.CreateTable) -> BucketDecision | None:
    """CREATE TABLE with colocate_with: RANDOM distribution is refused; an existing group fixes
    the bucket count of a BUCKETS AUTO table (returned as its decision) and dynamic_partition.buckets."""
    name = colocate_name(definition)
    if name is None:
        return None
    distribution = definition.distribution
    if distribution is not None and distribution.kind.upper() == "RANDOM":
        raise AnalysisError(RANDOM_MESSAGE)
    group = session.catalog.get_colocation_group(definition.table.db or "", name)
    fixed = distribution.buckets if distribution is not None and not distribution.auto else None
    buckets = group.buckets if group is not None else fixed
    if buckets:
        check_dynamic_buckets(buckets, ast.props(definition.properties))
    if group is not None and distribution is not None and distribution.auto:
        return group_decision(group)
    return None


def group_decision(group: ColocationGroup) -> BucketDecision:
    return BucketDecision(
        rule="fixed", buckets=group.buckets, reason=f"colocation group {group.full_name}: BUCKETS {group.buckets}"
    )


def member_decision(session: Session, meta: TableMeta) -> BucketDecision | None:
    """A member table's new partitions have its group's bucket count (a group fixes it)."""
    group = group_of(session, meta)
    return None if group is None else group_decision(group)


def check_set_properties(session: Session, meta: TableMeta, changes: dict[str, str]) -> None:
    """ALTER TABLE SET on colocation: joining checks (the schema itself is checked by the
    catalog's commit), replication changes of members refused, dynamic buckets = the group's."""
    current = colocate_name(meta.definition)
    target = changes.get(COLOCATE_WITH, current)
    if COLOCATE_WITH in changes and target and target != current:
        check_new_group(meta)
    if current and target == current:
        for key in _REPLICATION_PROPERTIES:
            if key in changes:
                raise AnalysisError(f"table {meta.name} is colocate table, cannot change replicationNum")
    if target:
        group = session.catalog.get_colocation_group(meta.db, target)
        buckets = group.buckets if group is not None else None
        if buckets is not None:
            check_dynamic_buckets(buckets, changes)


# ---------------------------------------------------------------------- SHOW PROC


def _db_ids(session: Session) -> dict[str, int]:
    ids = {}
    for name in session.catalog.list_databases():
        ids[name] = session.catalog.get_database(name).id
    return ids


def _group_ids(session: Session, group: ColocationGroup, db_ids: dict[str, int]) -> tuple[str, str]:
    """Doris's GroupId (``dbId.grpId``; 0 for a global group) and full name (``dbId_name``)."""
    if not group.db or group.name.startswith(GLOBAL_GROUP_PREFIX):
        return f"0.{group.id}", group.name
    db_id = int(group.db[1:]) if group.db.startswith("#") else db_ids.get(group.db, 0)  # a dropped database
    return f"{db_id}.{group.id}", f"{db_id}_{group.name}"


def _member_ids(session: Session, group: ColocationGroup) -> list[int]:
    """The group's tables: live ones and those in the recycle bin (Doris keeps them until erased)."""
    live = () if group.db.startswith("#") else session.catalog.colocation_group_tables(group.db, group.name)
    ids = [m.id for m in live]
    for entry in session.catalog.list_recycle_bin(kind="Table"):
        table = entry.table
        if table is None or colocate_name(table.definition) != group.name:
            continue
        if group.db and not (group.db == table.db or group.db == f"#{entry.db_id}"):
            continue
        ids.append(entry.id)
    return sorted(set(ids))


def group_by_ids(session: Session, db_id: int, group_id: int) -> ColocationGroup | None:
    """The group Doris's HTTP API names by ``db_id`` and ``group_id`` (0 for a global group)."""
    db_ids = _db_ids(session)
    wanted = f"{db_id}.{group_id}"
    return next(
        (g for g in session.catalog.list_colocation_groups() if _group_ids(session, g, db_ids)[0] == wanted), None
    )


GROUP_COLUMNS = ["GroupId", "GroupName", "TableIds", "BucketsNum", "ReplicationNum", "DistCols", "IsStable"]


def show_proc(session: Session, path: str) -> Result:
    """SHOW PROC '/colocation_group' and '/colocation_group/<GroupId>'."""
    parts = [p for p in path.strip().split("/") if p]
    db_ids = _db_ids(session)
    groups = session.catalog.list_colocation_groups()
    if len(parts) == 1:
        rows = []
        for g in sorted(groups, key=lambda g: g.id):
            gid, full = _group_ids(session, g, db_ids)
            rows.append(
                (
                    gid,
                    full,
                    ", ".join(str(i) for i in _member_ids(session, g)),
                    str(g.buckets),
                    str(g.replication_num),
                    ", ".join(doris_type_name(t) for t in g.distribution_types),
                    "true" if g.is_stable else "false",
                )
            )
        return Result.table(GROUP_COLUMNS, rows)
    if len(parts) == 2:
        for g in groups:
            if _group_ids(session, g, db_ids)[0] == parts[1]:
                where = _backend(session)
                return Result.table(["BucketIndex", "BackendIds"], [(str(i), where) for i in range(g.buckets)])
        raise AnalysisError(f"Invalid group id: {parts[1]}")  # Doris ColocationGroupProcDir.lookup
    raise AnalysisError(f"Invalid proc path: {path}")


def _backend(session: Session) -> str:
    """Where a bucket's data is served: every bucket by the one local Spark backend in local
    mode; on a cluster, by whichever executor runs its task (docs/colocation.md)."""
    master = session.config.master or "local[*]"
    return "local" if master.startswith("local") else "executors"


# ---------------------------------------------------------------------- ADMIN SET COLOCATION GROUP


def admin_set_colocation_group(session: Session, stmt: ast.AdminSetColocationGroup) -> Result:
    db = stmt.group.db or ("" if stmt.group.name.startswith(GLOBAL_GROUP_PREFIX) else session.resolve_db(None))
    group = session.catalog.get_colocation_group(db, stmt.group.name)
    if group is None:
        raise AnalysisError(f"Colocate group '{stmt.group.name}' does not exist")  # Doris ALTER COLOCATE GROUP
    session.catalog.update_colocation_group(dataclasses.replace(group, is_stable=stmt.stable))
    return Result.ok()


HANDLERS: Handlers = {ast.AdminSetColocationGroup: admin_set_colocation_group}
