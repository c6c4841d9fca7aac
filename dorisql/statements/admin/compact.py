"""The compaction statements: ADMIN COMPACT TABLE, SHOW TABLETS, SHOW PROC '/compactions'.

The work is in dorisql.compaction (service: tablets, policy state, the job; executor: one
compaction). docs/compaction.md, "Execution and scheduling", describes the output columns.
"""

from __future__ import annotations

import datetime as dt

from dorisql import ast
from dorisql.compaction import service
from dorisql.compaction.executor import TASKS
from dorisql.errors import AnalysisError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.handler import Handlers

_TYPE_HINT = "Where clause should looks like: type = 'BASE/CUMULATIVE'"


def compaction_type(where: ast.Predicate | None) -> str:
    """Doris's AdminCompactTableStmt.analyzeWhere: exactly ``type = 'BASE' | 'CUMULATIVE'``."""
    if where is None:
        raise AnalysisError("Compaction type must be specified in Where clause like: type = 'BASE/CUMULATIVE'")
    if (
        not isinstance(where, ast.Comparison)
        or where.op != "="
        or where.column.lower() != "type"
        or where.value.kind != "string"
    ):
        raise AnalysisError(_TYPE_HINT)
    kind = str(where.value.value).upper()
    if kind not in ("BASE", "CUMULATIVE"):
        raise AnalysisError(_TYPE_HINT)
    return kind


def admin_compact_table(session: Session, stmt: ast.AdminCompactTable) -> Result:
    """Doris checks, in order: one partition named, the WHERE clause; then the table and the
    partition. Doris sends the compaction to the replicas and returns; here the compactions of
    the partition's tablets run before the statement returns (the policy picks the rowsets, as
    Doris's BE does for a manual trigger: nothing suitable, nothing done)."""

    if not stmt.partitions:
        raise AnalysisError("No partition selected for compaction")
    if len(stmt.partitions) != 1:
        raise AnalysisError("Only support single partition for compaction")
    kind = compaction_type(stmt.where)
    meta = session.catalog.load_table(session.resolve_db(stmt.table.db), stmt.table.name)
    partition = meta.partition(stmt.partitions[0])
    if partition is None:
        raise AnalysisError(f"Partition '{stmt.partitions[0]}' does not exist in table '{meta.name}'")
    service.compact_partition(session, meta, partition.name, kind)
    return Result.ok()


SHOW_TABLETS_COLUMNS = (
    "PartitionName",
    "Bucket",
    "Version",
    "RowCount",
    "DataSize",
    "RowsetCount",
    "FileCount",
    "VersionRange",
    "CumulativePoint",
    "CumulativeScore",
    "BaseScore",
    "QueryHits",
)


def show_tablets(session: Session, stmt: ast.ShowTablets) -> Result:
    meta = session.catalog.load_table(session.resolve_db(stmt.table.db), stmt.table.name)
    names: list[str] = []
    for name in stmt.partitions:
        partition = meta.partition(name)
        if partition is None:
            raise AnalysisError(f"Partition '{name}' does not exist in table '{meta.name}'")
        names.append(partition.name)
    return Result.table(list(SHOW_TABLETS_COLUMNS), service.tablet_rows(session, meta, names or None))


COMPACTIONS_COLUMNS = (
    "Table",
    "PartitionName",
    "Bucket",
    "Type",
    "Trigger",
    "State",
    "InputVersions",
    "InputFiles",
    "InputBytes",
    "OutputVersion",
    "OutputFiles",
    "OutputBytes",
    "StartTime",
    "FinishTime",
    "Error",
)


def _time(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def show_compactions(session: Session) -> Result:
    """SHOW PROC '/compactions': this process's running compactions, then the last 100 finished."""

    names: dict[tuple[str, str], str] = {}
    rows = []
    for t in TASKS.tasks():
        db, _, table = t.table.partition(".")
        if (t.table, t.partition) not in names:
            names[(t.table, t.partition)] = _partition_name(session, db, table, t.partition)
        rows.append(
            (
                t.table,
                names[(t.table, t.partition)],
                t.bucket,
                t.kind,
                t.trigger,
                t.state,
                ",".join(t.inputs),
                t.input_files,
                t.input_bytes,
                t.output or None,
                t.output_files,
                t.output_bytes,
                _time(t.started),
                _time(t.finished),
                t.error or None,
            )
        )
    return Result.table(list(COMPACTIONS_COLUMNS), rows)


def _partition_name(session: Session, db: str, table: str, key: str) -> str:
    """The partition's name for its Delta value (the value itself once the partition is gone)."""
    try:
        meta = session.catalog.load_table(db, table)
    except Exception:  # dropped or renamed since: the stored value is all there is
        return key
    for p in meta.partitions:
        if meta.partition_key(p) == key:
            return p.name
    return key


HANDLERS: Handlers = {
    ast.AdminCompactTable: admin_compact_table,
    ast.ShowTablets: show_tablets,
}
