"""DELETE FROM and SHOW DELETE (dorisql.tablets.deletes has the model; docs/delete.md).

A DELETE needs no Spark: its condition is checked against the table definition, the partitions
it applies to are the PARTITION clause's or those the condition may touch (Doris's Nereids
planner prunes them the same way), and one Delta commit records it as a delete version; the
partitions' VisibleVersion is bumped as for a load. A condition that can match nothing
(``k = NULL``, or no partition can hold a matching row) commits nothing, and answers OK as Doris
does.
"""

from __future__ import annotations

import uuid

from dorisql import ast
from dorisql.errors import UnknownDatabaseError
from dorisql.query.pruning import prune_partitions
from dorisql.result import Result
from dorisql.session.committed import after_commit
from dorisql.session.session import Session
from dorisql.statements.ddl.partitions import bump_versions
from dorisql.statements.handler import Handlers
from dorisql.syntax.dialect import parse_query
from dorisql.tablets import deletes as D
from dorisql.tablets.consistency import has_storage, require_storage, table_storage

SHOW_DELETE_COLUMNS = ["TableName", "PartitionName", "CreateTime", "DeleteCondition", "State"]


def _ok(txn: int) -> Result:
    # Doris's DeleteJob commit message (label, status, txnId); a DELETE affects "0 rows".
    return Result.ok(0, message=f"{{'label':'delete_{uuid.uuid4()}', 'status':'VISIBLE', 'txnId':'{txn}'}}")


def delete(session: Session, stmt: ast.Delete) -> Result:
    db = session.resolve_db(stmt.table.db)
    meta = session.catalog.load_table(db, stmt.table.name)
    require_storage(session.warehouse, meta)
    where = parse_query(f"SELECT 1 FROM t WHERE {stmt.where}").args["where"].this
    conditions = D.analyze_conditions(meta.definition, where)
    selected = list(stmt.partitions) or None
    names = prune_partitions(meta, where, selected=selected)
    if conditions is None or not names:
        return _ok(-1)
    keys = meta.partition_keys(names)
    everywhere = selected is None and len(keys) == len(meta.partitions)
    shown = "*" if selected is None else ", ".join(meta.partition(n).name for n in selected)  # type: ignore[union-attr]
    with table_storage(session.warehouse, meta) as store:
        recorded = D.record_delete(
            store,
            D.predicate_sql(conditions, meta.definition),
            None if everywhere else frozenset(keys.values()),
            partition_names=shown,
            created=session.now().strftime("%Y-%m-%d %H:%M:%S"),
        )
    # Committed: the DELETE has happened; a catalog that cannot record it is a warning (session.committed).

    warning = after_commit(
        "The DELETE", recorded.version, lambda: bump_versions(session, meta, list(keys), delta_version=recorded.version)
    )
    result = _ok(recorded.version)
    if warning:
        result.warnings.append(warning)
    return result


def show_delete(session: Session, stmt: ast.ShowDelete) -> Result:
    """Doris's SHOW DELETE [FROM db]: one row per delete version still in effect, by CreateTime."""

    db = session.resolve_db(stmt.db)
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    rows = []
    for meta in session.catalog.list_table_metas(db):
        if not has_storage(session.warehouse, meta):
            continue
        with table_storage(session.warehouse, meta) as store:
            versions = D.delete_versions(store)
        for d in versions:
            shown = D.shown_conditions(D.parse_predicate(d.predicate), meta.definition)
            rows.append((d.created, d.version, (meta.name, d.partition_names, d.created, shown, "FINISHED")))
    rows.sort(key=lambda r: (r[0], r[1]))
    return Result.table(SHOW_DELETE_COLUMNS, [r[2] for r in rows])


HANDLERS: Handlers = {
    ast.Delete: delete,
    ast.ShowDelete: show_delete,
}
