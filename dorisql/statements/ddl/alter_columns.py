"""ALTER TABLE ADD/DROP/MODIFY COLUMN, MODIFY COMMENT, MODIFY PARTITION: catalog + Delta schema.

Doris's light schema change is metadata only, and so is this one: no data file is rewritten.

- ADD COLUMN: one Delta commit of the new schema (DeltaStore.change_schema), then the catalog.
  The catalog records the Delta version that commit became (TableMeta.column_versions): files
  committed before it (their names carry their commit version, ``.v<N>.parquet``) hold no value
  for the column, so reads give their rows the column's DEFAULT (Doris fills the default, not
  NULL). A column dropped and added again under its old name gets a new version, so the values of
  the dropped one, still in old files, never come back.
- DROP COLUMN: the schema commit leaves it out; readers go by the schema, the files keep it.
- MODIFY COLUMN: only the type widenings the stored files read as (dorisql.analysis.schema_change_rules).
- Comments: catalog only (the Delta schema has no comments).

Order and crash safety: under the table's commit lock, the Delta schema commit, then the catalog
update. Killed in between, the catalog still has the old schema, and dorisql reads the table
with it (a superset or a widening of what the files hold); the Delta schema is already the new
one (ADMIN CHECK TABLE reports the difference) and a retry of the ALTER commits both again. A
load holds the same lock for its commit and refuses when the schema changed since it started.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from dorisql import ast
from dorisql.analysis.checks import _check_property_values
from dorisql.analysis.schema_change_rules import apply_action
from dorisql.auth.privileges import ALTER
from dorisql.catalog.colocation import colocate_name
from dorisql.catalog.model import SchemaChangeJob, TableMeta, exact_partition_names
from dorisql.errors import AnalysisError, CommitConflictError, NotSupportedError, UnknownDatabaseError
from dorisql.result import Result, time_text
from dorisql.session.session import Session
from dorisql.session.visibility import Visibility
from dorisql.storage.locks import table_lock
from dorisql.syntax.generated import check_generated_dependency
from dorisql.tablets.consistency import table_storage
from dorisql.tablets.tables import arrow_schema
from dorisql.types import parse_datetime

SCHEMA_CHANGES = (
    ast.AddColumns,
    ast.DropColumn,
    ast.ModifyColumn,
    ast.ModifyColumnComment,
    ast.RenameColumn,
    ast.ModifyTableComment,
    ast.ReorderColumns,
)
_COMMENT_ONLY = (ast.ModifyColumnComment, ast.ModifyTableComment)


def new_definition(meta: TableMeta, actions) -> ast.CreateTable:
    """The definition after the actions, in order (Doris checks each against the previous result)."""
    definition = meta.definition
    for action in actions:
        if getattr(action, "properties", ()):
            raise NotSupportedError("PROPERTIES on ALTER TABLE ... COLUMN (bloom_filter_columns ...)")
        check_generated_dependency(definition, action)
        definition = apply_action(definition, action)
    return definition


def alter_schema(session: Session, meta: TableMeta, actions, statement: str | None) -> TableMeta:
    """Apply one ALTER's schema-change actions together: one Delta commit, one catalog update."""

    target = new_definition(meta, actions)  # refuses before anything is written
    if target == meta.definition:
        return meta
    if all(isinstance(a, _COMMENT_ONLY) for a in actions):
        return session.catalog.update_table(
            meta.db,
            meta.name,
            _same_base(meta, lambda cur: dataclasses.replace(cur, definition=target)),
            table_id=meta.id,
        )
    renames = _renames(actions)
    before = {c.name.lower() for c in meta.definition.columns}
    renamed = {new.lower() for new in renames.values()}
    added = [c.name.lower() for c in target.columns if c.name.lower() not in before | renamed]
    now = session.now()
    job_id = session.catalog.next_id()
    # refuses a log behind the catalog; the lock covers both commits (a load's guard runs under it)
    with table_storage(session.warehouse, meta) as store, table_lock(store.path):
        if renames:  # the files name their columns: rewritten (DeltaStore.rename_columns)
            version = store.rename_columns(arrow_schema(target), renames, statement=statement)
        else:
            version = store.change_schema(arrow_schema(target), statement=statement)

        def change(current: TableMeta) -> TableMeta:
            kept = {c.name.lower() for c in target.columns}
            versions = {renames.get(k, k).lower(): v for k, v in current.column_versions}
            versions = {k: v for k, v in versions.items() if k in kept}
            for name in added:
                versions[name] = version
            schema_version = current.schema_version + 1
            job = SchemaChangeJob(job_id, current.name, now, session.now(), schema_version, version)
            return dataclasses.replace(
                current,
                definition=target,
                column_versions=tuple(sorted(versions.items())),
                schema_version=schema_version,
                schema_jobs=current.schema_jobs + (job,),
                known_delta_version=max(current.known_delta_version, version),
            )

        return session.catalog.update_table(meta.db, meta.name, _same_base(meta, change), table_id=meta.id)


def _renames(actions) -> dict[str, str]:
    """Lowered old name -> final new name of the renamed columns (renames may chain: a->b, b->c)."""
    out: dict[str, str] = {}
    for action in actions:
        if isinstance(action, ast.RenameColumn):
            old = action.old_name.lower()
            origin = next((k for k, v in out.items() if v.lower() == old), old)
            out[origin] = action.new_name
    return out


def _same_base(meta: TableMeta, change):
    """Retries (another session bumped a partition's version) keep going only while the table's
    definition is the one this ALTER was checked against."""

    def guarded(current: TableMeta) -> TableMeta:
        if current.definition != meta.definition:
            raise CommitConflictError(
                f"Table '{meta.db}.{meta.name}' was altered by another session; "
                "nothing was committed, retry the statement"
            )
        return change(current)

    return guarded


def schema_changed(loaded: TableMeta, current: TableMeta) -> bool:
    """For a load's commit guard: did the columns change since the load read the table?"""
    return loaded.id == current.id and loaded.definition.columns != current.definition.columns


# ---------------------------------------------------------------------- SHOW ALTER TABLE COLUMN

SHOW_ALTER_COLUMNS = [
    "JobId",
    "TableName",
    "CreateTime",
    "FinishTime",
    "IndexName",
    "IndexId",
    "OriginIndexId",
    "SchemaVersion",
    "TransactionId",
    "State",
    "Msg",
    "Progress",
    "Timeout",
]

#: Doris's alter_table_timeout_second default (fe Config).
_TIMEOUT_SECONDS = 86400


#: SHOW ALTER TABLE ROLLUP / MATERIALIZED VIEW (Doris's RollupProcDir): always empty here, since
#: dorisql refuses rollups, so no rollup job ever exists.
SHOW_ALTER_ROLLUP_COLUMNS = [
    "JobId",
    "TableName",
    "CreateTime",
    "FinishTime",
    "BaseIndexName",
    "RollupIndexName",
    "RollupId",
    "TransactionId",
    "State",
    "Msg",
    "Progress",
    "Timeout",
]

# Doris's ShowAlterTableCommand: the columns WHERE may name, and its refusals word for word.
_NAME_FILTERS = ("tablename", "state", "indexname", "baseindexname", "rollupindexname")
_TIME_FILTERS = ("createtime", "finishtime")
_ONLY_AND = "Only allow compound predicate with operator AND"
_OPERATORS = "The operator =|>=|<=|>|<|!= are supported."
_NAME_FILTER_FORM = 'Where clause : TableName = "table1" or State = "FINISHED|CANCELLED|RUNNING|PENDING|WAITING_TXN"'
_TIME_FILTER_FORM = 'Where clause : CreateTime/FinishTime =|>=|<=|>|<|!= "2019-12-02|2019-12-02 14:54:00"'
_FILTER_COLUMNS = (
    "The columns of TableName/IndexName/CreateTime/FinishTime/State/BaseIndexName/RollupIndexName are supported."
)
#: The comparison operators of SHOW ALTER TABLE's WHERE, and SHOW PARTITIONS' (statements.show.objects).
COMPARE = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<>": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


@dataclasses.dataclass(frozen=True)
class _JobFilter:
    """One condition of SHOW ALTER TABLE's WHERE: a listing column (lower case), op, the value
    (text for names, a datetime for CreateTime/FinishTime)."""

    column: str
    op: str
    value: Any

    def keeps(self, row: dict[str, Any]) -> bool:
        cell = row.get(self.column)
        if cell is None:  # BaseIndexName on the COLUMN listing: Doris's filter skips it too
            return True
        if self.column in _TIME_FILTERS:
            if cell == "NULL":  # an unfinished job's FinishTime: no time to compare
                return False
            cell = parse_datetime(cell, 6)
        return COMPARE[self.op](cell, self.value)


def alter_job_filters(where: ast.Predicate | None) -> list[_JobFilter]:
    """WHERE of SHOW ALTER TABLE with Doris's rules: conditions joined by AND only; TableName,
    IndexName, State (and the rollup listing's names) = or != a string; CreateTime and FinishTime
    compared with a date or datetime string. Anything else refused with Doris's message."""

    if where is None:
        return []
    if isinstance(where, ast.BoolOp):
        if where.op != "AND":
            raise AnalysisError(_ONLY_AND)
        return [f for item in where.items for f in alter_job_filters(item)]
    if where.op == "LIKE":
        raise AnalysisError(_OPERATORS)
    column, value = where.column.lower(), where.value
    if column in _NAME_FILTERS:
        if value.kind != "string" or where.op not in ("=", "!=", "<>"):
            raise AnalysisError(_NAME_FILTER_FORM)
        return [_JobFilter(column, where.op, value.value)]
    if column in _TIME_FILTERS:
        if value.kind != "string" or value.value is None:
            raise AnalysisError(_TIME_FILTER_FORM)
        try:
            moment = parse_datetime(value.value, 6)
        except AnalysisError:  # Doris casts the text to DATETIMEV2 (nereids DateTimeLiteral)
            raise AnalysisError(f"datetime literal [{value.value}] is invalid") from None
        return [_JobFilter(column, where.op, moment)]
    raise AnalysisError(_FILTER_COLUMNS)


def _order_keys(order_by: tuple[ast.OrderItem, ...], titles: list[str]) -> list[tuple[int, bool]]:
    keys = []
    for item in order_by:
        at = next((i for i, t in enumerate(titles) if t.lower() == item.column.lower()), None)
        if at is None:  # Doris's ShowCommand.getOrderByPairs
            raise AnalysisError(f"Title name[{item.column}] does not exist")
        keys.append((at, item.descending))
    return keys


def show_alter_table_column(session: Session, stmt: ast.ShowAlterTableColumn) -> Result:
    """The jobs of the tables the user may ALTER (Doris's SchemaChangeHandler.getAlterJobV2Infos),
    then WHERE, ORDER BY, LIMIT as Doris's SchemaChangeProcDir.fetchResultByFilterExpression."""

    db = session.resolve_db(stmt.db)
    titles = SHOW_ALTER_COLUMNS if stmt.kind == "COLUMN" else SHOW_ALTER_ROLLUP_COLUMNS
    # Doris checks WHERE and ORDER BY before it looks the database up
    filters = alter_job_filters(stmt.where)
    order = _order_keys(stmt.order_by, titles)
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    rows: list[tuple[Any, ...]] = []
    for meta in session.catalog.list_table_metas(db) if stmt.kind == "COLUMN" else ():
        for job in meta.schema_jobs:
            rows.append(
                (
                    job.job_id,
                    job.table_name,
                    time_text(job.create_time),
                    time_text(job.finish_time),
                    meta.name,
                    meta.id,
                    meta.id,
                    f"{job.schema_version}:0",
                    job.transaction_id,
                    "FINISHED",
                    job.msg,
                    "NULL",
                    _TIMEOUT_SECONDS,
                )
            )
    rows.sort(key=lambda r: r[0])
    rows = Visibility.of(session).tables(rows, key=lambda r: (db, str(r[1])), wanted=frozenset((ALTER,)))
    lowered = [t.lower() for t in titles]
    rows = [r for r in rows if all(f.keeps(dict(zip(lowered, r))) for f in filters)]
    for at, descending in reversed(order):
        rows.sort(key=lambda r: r[at], reverse=descending)
    # Doris applies LIMIT only when it is above 0: LIMIT 0 shows every job
    if stmt.limit:
        start = stmt.offset or 0
        rows = rows[start : start + stmt.limit]
    return Result.table(titles, rows)


# ---------------------------------------------------------------------- MODIFY PARTITION

#: The replica allocations of a table, its future partitions and its dynamic partitions.
_ALLOCATIONS = ("replication_allocation", "default.replication_allocation", "dynamic_partition.replication_allocation")

#: Doris's refusal of a replica allocation on a colocated table (regression-test/suites/
#: schema_change_p0/test_alter_colocate_table.groovy: ALTER TABLE SET and MODIFY PARTITION (*)).
COLOCATE_ALLOCATION_MESSAGE = (
    "Invalid replication parameter: replication_num and replication_allocation can not be used together"
)


def check_colocate_replication(meta: TableMeta, props: dict[str, str]) -> None:
    """A colocated table's replicas are its group's: only ALTER COLOCATE GROUP changes them."""
    current = colocate_name(meta.definition)
    if current and props.get("colocate_with", current) == current and any(key in props for key in _ALLOCATIONS):
        raise AnalysisError(COLOCATE_ALLOCATION_MESSAGE)


#: Doris ModifyPartitionClause / PropertyAnalyzer: what MODIFY PARTITION may set.
_PARTITION_PROPERTIES = (
    "replication_num",
    "replication_allocation",
    "storage_medium",
    "storage_cooldown_time",
    "in_memory",
    "storage_policy",
    "is_being_synced",
)


def modify_partition(session: Session, meta: TableMeta, action: ast.ModifyPartition) -> TableMeta:
    props = {k.lower(): v for k, v in action.properties}
    if not props:
        raise AnalysisError("Properties is not set")
    for key in props:
        if key not in _PARTITION_PROPERTIES:
            raise AnalysisError(f"Unknown properties: {{{key}={props[key]}}}")
    names = [p.name for p in meta.partitions] if action.all else list(action.partitions)
    for name in names:
        if meta.partition(name) is None:
            raise AnalysisError(f"Partition[{name}] does not exist in table[{meta.name}]")

    _check_property_values(props, keys_type=None)  # the texts, as CREATE TABLE checks them
    check_colocate_replication(meta, props)
    if colocate_name(meta.definition) and "replication_num" in props:
        # Doris modifyPartitionsProperty: a group's members keep the group's replicas
        raise AnalysisError(f"table {meta.name} is colocate table, cannot change replicationNum")
    changes: dict = {}
    if props.get("in_memory", "false").strip().lower() == "true":
        raise AnalysisError("Not support set 'in_memory'='true' now!")
    if "storage_medium" in props:
        changes["storage_medium"] = props["storage_medium"].strip().upper()
    if "replication_num" in props:
        changes["replication_num"] = int(props["replication_num"])
    if "replication_allocation" in props:
        changes["replication_num"] = sum(
            int(part.partition(":")[2]) for part in props["replication_allocation"].split(",")
        )
    if "storage_cooldown_time" in props:
        when = parse_datetime(props["storage_cooldown_time"].strip())
        if when <= session.now():
            # Doris DataProperty check (PropertyAnalyzer.analyzeDataProperty)
            raise AnalysisError(f"Cooldown time should later than now: {props['storage_cooldown_time']}")
        changes["cooldown_time"] = when
    if "storage_policy" in props and props["storage_policy"].strip():
        raise NotSupportedError("storage_policy (remote storage)")
    wanted = exact_partition_names(meta.partitions, names)

    def change(current: TableMeta) -> TableMeta:
        return dataclasses.replace(
            current,
            partitions=tuple(dataclasses.replace(p, **changes) if p.name in wanted else p for p in current.partitions),
        )

    return session.catalog.update_table(meta.db, meta.name, change, table_id=meta.id)
