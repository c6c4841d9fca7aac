"""DELETE FROM and SHOW DELETE (dorisql.compaction.deletes has the model; docs/delete.md).

A DELETE needs no Spark: its condition is checked against the table definition, the partitions
it applies to are the PARTITION clause's or those the condition may touch (Doris's Nereids
planner prunes them the same way), and one Delta commit records it as a delete version; the
partitions' VisibleVersion is bumped as for a load. A condition that can match nothing
(``k = NULL``, or no partition can hold a matching row) commits nothing, and answers OK as Doris
does.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from dorisql import ast
from dorisql.compaction import deletes as D
from dorisql.errors import UnknownDatabaseError
from dorisql.result import Result

if TYPE_CHECKING:  # the engine imports these modules: type-only import
    from dorisql.engine.session import Engine

SHOW_DELETE_COLUMNS = ["TableName", "PartitionName", "CreateTime", "DeleteCondition", "State"]


def _ok(txn: int) -> Result:
    # Doris's DeleteJob commit message (label, status, txnId); a DELETE affects "0 rows".
    return Result.ok(0, message=f"{{'label':'delete_{uuid.uuid4()}', 'status':'VISIBLE', 'txnId':'{txn}'}}")


def delete(engine: Engine, stmt: ast.Delete) -> Result:
    from dorisql.engine.pruning import prune_partitions
    from dorisql.syntax.dialect import parse_query

    from .consistency import require_storage, table_storage
    from .partitions import bump_versions

    db = engine.resolve_db(stmt.table.db)
    meta = engine.catalog.load_table(db, stmt.table.name)
    require_storage(engine.warehouse, meta)
    where = parse_query(f"SELECT 1 FROM t WHERE {stmt.where}").args["where"].this
    conditions = D.analyze_conditions(meta.definition, where)
    selected = list(stmt.partitions) or None
    names = prune_partitions(meta, where, selected=selected)
    if conditions is None or not names:
        return _ok(-1)
    keys = meta.partition_keys(names)
    everywhere = selected is None and len(keys) == len(meta.partitions)
    shown = "*" if selected is None else ", ".join(meta.partition(n).name for n in selected)  # type: ignore[union-attr]
    with table_storage(engine.warehouse, meta) as store:
        recorded = D.record_delete(
            store,
            D.predicate_sql(conditions, meta.definition),
            None if everywhere else frozenset(keys.values()),
            partition_names=shown,
            created=engine.now().strftime("%Y-%m-%d %H:%M:%S"),
        )
    # Committed: the DELETE has happened; a catalog that cannot record it is a warning (engine.committed).
    from .committed import after_commit

    warning = after_commit(
        "The DELETE", recorded.version, lambda: bump_versions(engine, meta, list(keys), delta_version=recorded.version)
    )
    result = _ok(recorded.version)
    if warning:
        result.warnings.append(warning)
    return result


def show_delete(engine: Engine, stmt: ast.ShowDelete) -> Result:
    """Doris's SHOW DELETE [FROM db]: one row per delete version still in effect, by CreateTime."""
    from .consistency import has_storage, table_storage

    db = engine.resolve_db(stmt.db)
    if not engine.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    rows = []
    for meta in engine.catalog.list_table_metas(db):
        if not has_storage(engine.warehouse, meta):
            continue
        with table_storage(engine.warehouse, meta) as store:
            versions = D.delete_versions(store)
        for d in versions:
            shown = D.shown_conditions(D.parse_predicate(d.predicate), meta.definition)
            rows.append((d.created, d.version, (meta.name, d.partition_names, d.created, shown, "FINISHED")))
    rows.sort(key=lambda r: (r[0], r[1]))
    return Result.table(SHOW_DELETE_COLUMNS, [r[2] for r in rows])


HANDLERS = {
    ast.Delete: delete,
    ast.ShowDelete: show_delete,
}
