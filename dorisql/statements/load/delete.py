"""DELETE FROM and SHOW DELETE (dorisql.tablets.deletes has the model; docs/delete.md).

A DELETE needs no Spark: its condition is checked against the table definition, the partitions
it applies to are the PARTITION clause's or those the condition may touch (Doris's Nereids
planner prunes them the same way), and one Delta commit records it as a delete version; the
partitions' VisibleVersion is bumped as for a load. A condition that can match nothing
(``k = NULL``, or no partition can hold a matching row) commits nothing, and answers OK as Doris
does.

On a UNIQUE KEY table a condition the delete-predicate rules refuse (a value column, a function
of a column, OR, ...) runs as Doris runs it, a load of delete-sign rows for the keys whose latest
row matches (DeleteFromUsingCommand): the query finds those keys (through Spark, the planner's
functions), and a *key delete version* hides every row of them committed before it. DELETE ...
USING (UNIQUE KEY tables only) always runs this way, its keys found by a join.
"""

from __future__ import annotations

import uuid

from dorisql import ast
from dorisql import types as doris_types
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, NotSupportedError, UnknownDatabaseError
from dorisql.query.planner import run_query
from dorisql.query.pruning import prune_partitions
from dorisql.result import Result
from dorisql.session.committed import after_commit
from dorisql.session.session import Session
from dorisql.statements.ddl.partitions import bump_versions
from dorisql.statements.handler import Handlers
from dorisql.statements.load import transaction
from dorisql.statements.load.insert import query_sources
from dorisql.syntax.dialect import parse_query
from dorisql.syntax.generator import quote_name
from dorisql.syntax.queries import query_tables
from dorisql.tablets import deletes as D
from dorisql.tablets.consistency import has_storage, require_storage, table_storage

SHOW_DELETE_COLUMNS = ["TableName", "PartitionName", "CreateTime", "DeleteCondition", "State"]


def _ok(txn: int, rows: int = 0) -> Result:
    # Doris's DeleteJob commit message (label, status, txnId); a DELETE affects "0 rows", its
    # delete-sign load (a key delete) the rows it loads.
    return Result.ok(rows, message=f"{{'label':'delete_{uuid.uuid4()}', 'status':'VISIBLE', 'txnId':'{txn}'}}")


def delete(session: Session, stmt: ast.Delete) -> Result:
    db = session.resolve_db(stmt.table.db)
    meta = session.catalog.load_table(db, stmt.table.name)
    require_storage(session.warehouse, meta)
    where = parse_query(f"SELECT 1 FROM t WHERE {stmt.where}").args["where"].this
    unique = meta.definition.keys is not None and meta.definition.keys.type.upper() == "UNIQUE"
    if stmt.using is not None:  # Doris's DeleteFromUsingCommand: always the delete-sign load
        if not unique:
            raise AnalysisError("delete command on with using clause only supports unique key model")
        return _key_delete(session, db, meta, stmt, where)
    try:
        conditions = D.analyze_conditions(meta.definition, where)
    except D.PredicateShapeError:
        if not unique:
            raise
        return _key_delete(session, db, meta, stmt, where)
    selected = list(stmt.partitions) or None
    names = prune_partitions(meta, where, selected=selected)
    if conditions is None or not names:
        return _ok(-1)
    keys = meta.partition_keys(names)
    everywhere = selected is None and len(keys) == len(meta.partitions)
    shown = "*" if selected is None else ", ".join(meta.partition(n).name for n in selected)  # type: ignore[union-attr]
    if session.transaction is not None:  # BEGIN ... COMMIT: committed with the transaction
        created = session.now().strftime("%Y-%m-%d %H:%M:%S")
        predicate = D.predicate_sql(conditions, meta.definition)
        scope = None if everywhere else frozenset(keys.values())
        return transaction.staged_delete(session, meta, D.DeleteVersion(0, scope, predicate, shown, created))
    with table_storage(session.warehouse, meta) as store:
        recorded = D.record_delete(
            store,
            D.predicate_sql(conditions, meta.definition),
            None if everywhere else frozenset(keys.values()),
            partition_names=shown,
            created=session.now().strftime("%Y-%m-%d %H:%M:%S"),
        )
    return _committed(session, meta, list(keys), recorded.version)


def _key_delete(session: Session, db: str, meta: TableMeta, stmt: ast.Delete, where) -> Result:
    """A UNIQUE KEY table's DELETE whose WHERE is no delete predicate: the keys whose latest row
    matches, recorded as a key delete version (Doris: a load of their delete-sign rows)."""
    definition = meta.definition
    assert definition.keys is not None
    columns = [next(c for c in definition.columns if c.name.lower() == k.lower()) for k in definition.keys.columns]
    source = f"{quote_name(db)}.{quote_name(meta.name)}"
    if stmt.partitions:
        source += " PARTITION (" + ", ".join(quote_name(p) for p in stmt.partitions) + ")"
    selected = ", ".join(quote_name(c.name) for c in columns)
    if stmt.using is not None:  # the target's keys, qualified: the USING tables may share their names
        qualifier = quote_name(stmt.alias or meta.name)
        selected = ", ".join(f"{qualifier}.{quote_name(c.name)}" for c in columns)
        source += (f" {quote_name(stmt.alias)}" if stmt.alias else "") + f", {stmt.using}"
    sql = f"SELECT DISTINCT {selected} FROM {source} WHERE {stmt.where}"
    frame, _ = run_query(session.spark, ast.Query(sql=sql, tables=query_tables(sql)), query_sources(session))
    found = frame.limit(D.MAX_KEY_DELETE_ROWS + 1).collect()
    if len(found) > D.MAX_KEY_DELETE_ROWS:
        raise NotSupportedError(
            f"DELETE of more than {D.MAX_KEY_DELETE_ROWS} keys of UNIQUE KEY table {meta.name} by a condition "
            "outside the delete-predicate rules (delete by key columns, or in several statements)"
        )
    if not found:
        return _ok(-1)
    rows = [
        tuple(None if v is None else doris_types.format_value(v, c.type) for v, c in zip(row, columns)) for row in found
    ]
    # every partition the keys may be in: a key lives in one partition, and a key delete matches
    # whole keys, so a wider set deletes no other row
    # (a USING condition may name other tables' columns: no pruning by it)
    pruned = prune_partitions(meta, where, selected=None) if stmt.using is None else None
    names = list(stmt.partitions) or pruned or [p.name for p in meta.partitions]
    keys = meta.partition_keys(names)
    everywhere = not stmt.partitions and len(keys) == len(meta.partitions)
    if session.transaction is not None:  # BEGIN ... COMMIT: committed with the transaction
        scope = None if everywhere else frozenset(keys.values())
        shown = "*" if not stmt.partitions else ", ".join(stmt.partitions)
        created = session.now().strftime("%Y-%m-%d %H:%M:%S")
        deleted = D.DeleteVersion(0, scope, stmt.where, shown, created, tuple(c.name for c in columns), tuple(rows))
        return transaction.staged_delete(session, meta, deleted, len(rows))
    with table_storage(session.warehouse, meta) as store:
        recorded = D.record_delete(
            store,
            stmt.where,
            None if everywhere else frozenset(keys.values()),
            partition_names="*" if not stmt.partitions else ", ".join(stmt.partitions),
            created=session.now().strftime("%Y-%m-%d %H:%M:%S"),
            key_columns=[c.name for c in columns],
            key_rows=rows,
        )
    return _committed(session, meta, list(keys), recorded.version, len(rows))


def _committed(session: Session, meta: TableMeta, partitions: list, version: int, rows: int = 0) -> Result:
    # Committed: the DELETE has happened; a catalog that cannot record it is a warning (session.committed).

    warning = after_commit(
        "The DELETE", version, lambda: bump_versions(session, meta, partitions, delta_version=version)
    )
    result = _ok(version, rows)
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
            if d.key_columns:
                continue  # Doris's delete-sign load is no delete job: SHOW DELETE never lists it
            shown = D.shown_conditions(D.parse_predicate(d.predicate), meta.definition)
            rows.append((d.created, d.version, (meta.name, d.partition_names, d.created, shown, "FINISHED")))
    rows.sort(key=lambda r: (r[0], r[1]))
    return Result.table(SHOW_DELETE_COLUMNS, [r[2] for r in rows])


HANDLERS: Handlers = {
    ast.Delete: delete,
    ast.ShowDelete: show_delete,
}
