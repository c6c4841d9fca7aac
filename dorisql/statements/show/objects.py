"""SHOW / DESC / HELP: catalog reads shaped exactly like Doris's output (column names and formats)."""

from __future__ import annotations

import dataclasses
import fnmatch
from typing import Any

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, UnknownDatabaseError
from dorisql.partitioning import dynamic
from dorisql.partitioning.keys import partition_items, partition_range_string, sorted_partition_names
from dorisql.result import Result, size_text, time_text
from dorisql.session.session import Session
from dorisql.session.visibility import SHOW, Visibility
from dorisql.statements.ddl.alter_columns import COMPARE, show_alter_table_column
from dorisql.statements.ddl.partitions import dynamic_rows
from dorisql.statements.handler import Handlers
from dorisql.statements.show import view_definitions as views
from dorisql.statements.show.bucket_reasons import show_buckets
from dorisql.statements.show.help import lookup
from dorisql.statements.show.proc import show_proc as proc
from dorisql.syntax.generator import column_type_sql, to_sql
from dorisql.tablets.partition_sizes import table_stats
from dorisql.tablets.tables import hidden_columns

SHOW_PARTITIONS_COLUMNS = (
    "PartitionId",
    "PartitionName",
    "VisibleVersion",
    "VisibleVersionTime",
    "State",
    "PartitionKey",
    "Range",
    "DistributionKey",
    "Buckets",
    "ReplicationNum",
    "StorageMedium",
    "CooldownTime",
    "RemoteStoragePolicy",
    "LastConsistencyCheckTime",
    "DataSize",
    "IsInMemory",
    "ReplicaAllocation",
    "IsMutable",
    "SyncWithBaseTables",
    "UnsyncTables",
    "CommittedVersion",
    "RowCount",
)

#: Doris prints this for "no cooldown" (DataProperty.MAX_COOLDOWN_TIME_MS).
MAX_COOLDOWN_TIME = "9999-12-31 23:59:59"


def _like(pattern: str | None, value: str) -> bool:
    if pattern is None:
        return True
    glob = pattern.replace("%", "*").replace("_", "?")
    return fnmatch.fnmatchcase(value.lower(), glob.lower())


# ---------------------------------------------------------------------- databases and tables


# SHOW DATABASES and SHOW TABLES: statements.show.client_metadata (with FULL, WHERE and information_schema).


def load_meta(session: Session, table: ast.TableName) -> TableMeta:
    return session.catalog.load_table(session.resolve_db(table.db), table.name)


def shown_type(data_type: ast.DataType) -> ast.DataType:
    """The type as Doris prints it: a DATETIME of scale 0 is plain DATETIME."""
    if data_type.name == "DATETIME" and data_type.params == (0,):
        return dataclasses.replace(data_type, params=())
    return data_type


def current_definition(meta: TableMeta) -> ast.CreateTable:
    """The table's CREATE TABLE with its live partitions, as SHOW CREATE TABLE prints it."""

    definition = meta.definition
    if definition.partition is not None:
        items = partition_items(meta)
        definition = dataclasses.replace(definition, partition=dataclasses.replace(definition.partition, items=items))
    columns = tuple(dataclasses.replace(c, type=shown_type(c.type)) for c in definition.columns)
    return dataclasses.replace(
        definition,
        table=ast.TableName(meta.name),
        if_not_exists=False,
        engine="OLAP",
        columns=columns,
        properties=shown_properties(definition),
    )


def _replica_allocation(props: dict[str, str], prefix: str = "") -> str | None:
    """``tag.location.default: 3`` (ReplicaAllocation.toCreateStmt) from ``replication_allocation``
    or ``replication_num`` (with `prefix`, the dynamic_partition ones); None if neither is set."""
    allocation = props.get(prefix + "replication_allocation")
    if allocation is not None:
        parts = [p.partition(":") for p in allocation.split(",")]
        return ", ".join(f"{tag.strip()}: {num.strip()}" for tag, _, num in parts)
    num = props.get(prefix + "replication_num")
    return None if num is None else f"tag.location.default: {num.strip()}"


#: Properties Doris prints only when set, after the always-printed ones they follow.
_TIME_SERIES_DEFAULTS = (
    ("time_series_compaction_goal_size_mbytes", "1024"),
    ("time_series_compaction_file_count_threshold", "2000"),
    ("time_series_compaction_time_threshold_seconds", "3600"),
    ("time_series_compaction_empty_rowsets_threshold", "5"),
    ("time_series_compaction_level_threshold", "1"),
)


def shown_properties(definition: ast.CreateTable, system_zone: str | None = None) -> ast.Properties:
    """The PROPERTIES of SHOW CREATE TABLE in Doris's order, with Doris's defaults filled in.

    Doris prints its normalised table properties, not the ones given (Env.addOlapTablePropertyInfo
    and DynamicPartitionProperty.getProperties in fe-core; the set and order match the expected
    output of regression-test/suites/show_p0/test_show_create_table_and_views on a cluster without
    binlog): replication_allocation, min_load_replica_num, [bloom_filter_columns],
    is_being_synced, [colocate_with], [dynamic_partition.* -- all of them, defaults filled in],
    [in_memory], storage_medium, storage_format, inverted_index_storage_format, [compression],
    [estimate_partition_size], [enable_unique_key_merge_on_write (UNIQUE)], light_schema_change,
    [storage_policy], [function_column.*], [store_row_column, row_store_page_size],
    [storage_page_size], [skip_write_index_on_load], [compaction_policy and its settings],
    disable_auto_compaction, enable_single_replica_compaction, group_commit_interval_ms,
    group_commit_data_bytes, [enable_mow_light_delete (UNIQUE)]. Properties Doris would not
    print follow in the order given (dorisql keeps what it was told). Feeding the result back
    to CREATE TABLE gives the same list: SHOW CREATE TABLE round-trips.
    """

    shown = _ShownProperties(definition)
    keys_type = definition.keys.type if definition.keys else "DUPLICATE"
    _shown_replication(shown, definition, system_zone)
    _shown_storage(shown, keys_type)
    _shown_row_store_and_pages(shown)
    _shown_compaction_and_commit(shown, keys_type)
    for key, value in definition.properties:  # what Doris would not print: as given
        if key.lower() not in shown.used and key.lower() not in shown.shown:
            shown.shown[key] = value
    return tuple(shown.shown.items())


class _ShownProperties:
    """The properties given (keys lowered), the ones shown so far in order, and the keys Doris
    prints or drops itself (`used`: not repeated as given at the end)."""

    def __init__(self, definition: ast.CreateTable):
        self.given = {k.lower(): v for k, v in definition.properties}
        self.shown: dict[str, str] = {}
        self.used = {"replication_num", "replication_allocation"}

    def take(self, key: str, default: str | None = None, value=None) -> None:
        """Show `key`: `value`, else as given, else `default`; nothing when all are None."""
        self.used.add(key)
        text = self.given.get(key, default) if value is None else value
        if text is not None:
            self.shown[key] = text

    def is_true(self, key: str, default: str = "false") -> bool:
        return self.given.get(key, default).strip().lower() == "true"


def _shown_replication(p: _ShownProperties, definition: ast.CreateTable, system_zone: str | None) -> None:
    """Replicas, bloom filters, sync and colocation, then every dynamic_partition.* setting."""
    given = p.given
    p.take("replication_allocation", value=_replica_allocation(given) or "tag.location.default: 1")
    p.take("min_load_replica_num", "-1")
    if "bloom_filter_columns" in given:
        columns = [c.strip() for c in given["bloom_filter_columns"].split(",") if c.strip()]
        p.take("bloom_filter_columns", value=", ".join(columns))
    p.take("is_being_synced", "false")
    p.take("colocate_with")
    dyn = {k: v for k, v in given.items() if k.startswith(dynamic.PROPERTY_PREFIX)}
    if dyn:
        p.used.update(dyn)
        p.shown.update(_dynamic_shown(definition, given, system_zone))


def _shown_storage(p: _ShownProperties, keys_type: str) -> None:
    """Memory, medium and formats, compression, merge-on-write, schema change, storage policy,
    the sequence column."""
    given = p.given
    if p.is_true("in_memory"):
        p.take("in_memory", value="true")
    p.used.add("in_memory")
    p.take("storage_medium", value=given.get("storage_medium", "hdd").strip().lower())
    p.take("storage_format", value="V2")
    p.take("inverted_index_storage_format", value=given.get("inverted_index_storage_format", "V2").upper())
    compression = given.get("compression", "LZ4F").strip().upper()
    p.used.add("compression")
    if compression not in ("LZ4F", "DEFAULT"):
        p.shown["compression"] = compression
    p.take("estimate_partition_size")
    if keys_type == "UNIQUE":
        p.take("enable_unique_key_merge_on_write", "true")
    p.used.add("light_schema_change")
    if p.is_true("light_schema_change", "true"):
        p.shown["light_schema_change"] = "true"
    if given.get("storage_policy"):
        p.take("storage_policy")
    p.used.add("storage_policy")
    for key in ("function_column.sequence_col", "function_column.sequence_type"):
        p.take(key)


def _shown_row_store_and_pages(p: _ShownProperties) -> None:
    """The row store, the page size, skipping index writes on load."""
    given = p.given
    if p.is_true("store_row_column") or given.get("row_store_columns"):
        if given.get("row_store_columns"):
            p.take("row_store_columns")
        else:
            p.take("store_row_column", value="true")
        p.take("row_store_page_size", "16384")
    p.used.update(("store_row_column", "row_store_columns", "row_store_page_size"))
    if given.get("storage_page_size", "65536").strip() != "65536":
        p.take("storage_page_size")
    p.used.add("storage_page_size")
    if p.is_true("skip_write_index_on_load"):
        p.take("skip_write_index_on_load", value="true")
    p.used.add("skip_write_index_on_load")


def _shown_compaction_and_commit(p: _ShownProperties, keys_type: str) -> None:
    """The compaction policy and its settings, group commit, merge-on-write light deletes."""
    policy = p.given.get("compaction_policy", "").strip().lower()
    p.used.add("compaction_policy")
    if policy and policy != "size_based":
        p.shown["compaction_policy"] = policy
        if policy == "time_series":
            for key, default in _TIME_SERIES_DEFAULTS:
                p.take(key, default)
    p.take("disable_auto_compaction", "false")
    p.take("enable_single_replica_compaction", "false")
    p.take("group_commit_interval_ms", "10000")
    p.take("group_commit_data_bytes", "134217728")
    if keys_type == "UNIQUE" and p.shown.get("enable_unique_key_merge_on_write", "").lower() == "true":
        p.take("enable_mow_light_delete", "false")


def _dynamic_shown(definition: ast.CreateTable, given: dict[str, str], system_zone: str | None) -> dict[str, str]:
    """DynamicPartitionProperty.getProperties: every dynamic_partition.* property, defaults in."""

    kind = "DATE"
    if definition.partition is not None and definition.partition.columns:
        name = definition.partition.columns[0].lower()
        column = next((c for c in definition.columns if c.name.lower() == name), None)
        if column is not None and "DATETIME" in column.type.name.upper():
            kind = "DATETIME"
    auto = bool(definition.partition and definition.partition.auto_partition)
    props = dynamic.parse_properties(given, kind, default_time_zone=system_zone, auto_partition=auto)
    assert props is not None
    distribution = definition.distribution
    buckets = props.buckets
    if buckets is None and distribution is not None and not distribution.auto and distribution.buckets is not None:
        buckets = distribution.buckets  # Doris fills in the table's bucket count
    allocation = (
        props.replication_allocation and _replica_allocation({"replication_allocation": props.replication_allocation})
    ) or (f"tag.location.default: {props.replication_num}" if props.replication_num else None)
    out = {
        dynamic.ENABLE: "true" if props.enable else "false",
        dynamic.TIME_UNIT: props.time_unit,
        dynamic.TIME_ZONE: props.time_zone,
        dynamic.START: str(props.start),
        dynamic.END: str(props.end),
        dynamic.PREFIX: props.prefix,
        dynamic.REPLICATION_ALLOCATION: allocation or _replica_allocation(given) or "tag.location.default: 1",
    }
    if buckets is not None:  # BUCKETS AUTO without dynamic_partition.buckets: the estimate decides
        out[dynamic.BUCKETS] = str(buckets)
    out[dynamic.CREATE_HISTORY_PARTITION] = "true" if props.create_history_partition else "false"
    out[dynamic.HISTORY_PARTITION_NUM] = str(props.history_partition_num)
    out[dynamic.HOT_PARTITION_NUM] = str(props.hot_partition_num)
    out[dynamic.RESERVED_HISTORY_PERIODS] = props.sorted_reserved_history_periods()
    out[dynamic.STORAGE_POLICY] = props.storage_policy or ""
    if props.storage_medium:
        out[dynamic.STORAGE_MEDIUM] = props.storage_medium
    if props.time_unit == "WEEK":
        out[dynamic.START_DAY_OF_WEEK] = str(props.start_day_of_week)
    elif props.time_unit == "MONTH":
        out[dynamic.START_DAY_OF_MONTH] = str(props.start_day_of_month)
    return out


def show_create_table(session: Session, stmt: ast.ShowCreateTable) -> Result:
    view = session.catalog.get_view(session.resolve_db(stmt.table.db), stmt.table.name)
    if view is not None:  # Doris answers with SHOW CREATE VIEW's shape
        return views.show_create_view_result(view)
    meta = load_meta(session, stmt.table)
    return Result.table(["Table", "Create Table"], [(meta.name, to_sql(current_definition(meta)) + ";")])


def show_create_database(session: Session, stmt: ast.ShowCreateDatabase) -> Result:
    """Doris's ShowCreateDatabaseCommand: ``CREATE DATABASE `db` `` and the database's properties,
    one ``"k" = "v"`` a line (information_schema and mysql have none)."""
    name = stmt.name
    properties: dict[str, str] = {}
    if name.lower() in ("information_schema", "mysql"):
        name = name.lower()
    else:
        properties = dict(session.catalog.get_database(name).properties)  # Unknown database 'x'
    text = f"CREATE DATABASE `{name}`"
    if properties:
        text += "\nPROPERTIES (\n" + ",\n".join(f'"{k}" = "{v}"' for k, v in properties.items()) + "\n)"
    return Result.table(["Database", "Create Database"], [(name, text)])


def _aggregation(definition: ast.CreateTable, column: ast.ColumnDef, keys: set[str]) -> str | None:
    """The column's aggregation type as Doris keeps it (ColumnDefinition.validate): none for a key
    column; as written; else NONE for DUPLICATE and merge-on-write UNIQUE value columns, REPLACE
    for merge-on-read UNIQUE ones."""
    if column.name in keys:
        return None
    if column.agg_type:
        return column.agg_type
    kind = definition.keys.type if definition.keys else "DUPLICATE"
    mow = ast.props(definition.properties).get("enable_unique_key_merge_on_write", "true").lower() == "true"
    return "REPLACE" if kind == "UNIQUE" and not mow else "NONE"


def _without_field_comments(data_type: ast.DataType) -> ast.DataType:
    """DESC prints a STRUCT's fields without their comments (Type.hideVersionForVersionColumn)."""
    return dataclasses.replace(
        data_type,
        args=tuple(_without_field_comments(a) for a in data_type.args),
        fields=tuple(
            dataclasses.replace(f, type=_without_field_comments(f.type), comment=None) for f in data_type.fields
        ),
    )


#: DESC ... ALL's InternalType names where Doris's storage type differs from the shown one
#: (ScalarType.toString): DATE is datev2, DECIMAL decimalv3, STRING text.
_INTERNAL_NAMES = {"DATE": "datev2", "DECIMAL": "decimalv3", "STRING": "text", "JSON": "json"}


def _internal_type(data_type: ast.DataType) -> str:
    """DESC ... ALL's InternalType (Column.getOriginType().toString()): lower case, the storage
    version named, a DATETIME's scale always shown."""
    name = data_type.name
    if name in ("ARRAY", "MAP"):
        return f"{name.lower()}<{','.join(_internal_type(a) for a in data_type.args)}>"
    if name == "STRUCT":
        return "struct<" + ",".join(f"{f.name}:{_internal_type(f.type)}" for f in data_type.fields) + ">"
    if name == "DATETIME":
        return f"datetimev2({data_type.params[0] if data_type.params else 0})"
    text = _INTERNAL_NAMES.get(name, name.lower())
    return f"{text}({','.join(str(p) for p in data_type.params)})" if data_type.params else text


def shown_hidden_columns(session: Session, definition: ast.CreateTable) -> tuple[ast.ColumnDef, ...]:
    """The hidden columns DESC and SHOW COLUMNS add under ``SET show_hidden_columns = true``."""
    if session.session_vars.get("show_hidden_columns", "false").strip().lower() not in ("true", "1", "on"):
        return ()
    return hidden_columns(definition)


def describe(session: Session, stmt: ast.Describe) -> Result:
    """DESC[RIBE] t [ALL], as current Doris prints it (DescribeCommand, IndexSchemaProcNode):
    the type as SHOW CREATE TABLE spells it (lower case), Null Yes/No, Key true/false, Default
    SQL NULL when there is none (Doris's \\N, which its MySQL protocol sends as NULL), Extra the
    aggregation type (NONE for DUPLICATE and merge-on-write UNIQUE value columns), then
    STORED GENERATED."""
    view = session.catalog.get_view(session.resolve_db(stmt.table.db), stmt.table.name)
    if view is not None:
        return views.describe_view(view)
    meta = load_meta(session, stmt.table)
    definition = meta.definition
    keys = set(definition.keys.columns) if definition.keys else set()
    rows: list[tuple[str | None, ...]] = []
    internal: list[str] = []
    for c in (*definition.columns, *shown_hidden_columns(session, definition)):
        default = c.default.value if c.default is not None else None
        extra = (_aggregation(definition, c, keys), "STORED GENERATED" if c.generated is not None else None)
        rows.append(
            (
                c.name,
                column_type_sql(_without_field_comments(shown_type(c.type))),
                "Yes" if c.nullable else "No",
                "true" if c.name in keys else "false",
                default,
                ",".join(x for x in extra if x),
            )
        )
        internal.append(_internal_type(c.type))
    columns = ["Field", "Type", "Null", "Key", "Default", "Extra"]
    if stmt.all:
        # one index (dorisql has no rollups): its name and keys type on the first row only
        keys_type = {"UNIQUE": "UNIQUE_KEYS", "AGGREGATE": "AGG_KEYS"}.get(
            definition.keys.type if definition.keys else "", "DUP_KEYS"
        )
        columns = ["IndexName", "IndexKeysType", "Field", "Type", "InternalType"] + columns[2:]
        columns += ["Visible", "DefineExpr", "WhereClause"]
        rows = [
            ((meta.name, keys_type) if i == 0 else ("", "")) + r[:2] + (internal[i],) + r[2:] + ("true", "", "")
            for i, r in enumerate(rows)
        ]
    return Result.table(columns, rows)


# ---------------------------------------------------------------------- partitions


def partition_rows(session: Session, meta: TableMeta) -> list[tuple[Any, ...]]:
    stats = table_stats(session, meta)
    definition = meta.definition
    partition_key = ", ".join(definition.partition.columns) if definition.partition else ""
    distribution = definition.distribution
    dist_key = ", ".join(distribution.columns) if distribution and distribution.kind == "HASH" else "RANDOM"

    by_name = {p.name: p for p in meta.partitions}
    rows = []
    for p in (by_name[name] for name in sorted_partition_names(meta)):
        stat = stats.get(p.name)
        size = stat.data_size if stat else 0
        count = stat.row_count if stat else 0
        range_text = partition_range_string(meta, p) if definition.partition else ""
        rows.append(
            (
                p.id,
                p.name,
                p.visible_version,
                time_text(p.visible_version_time or p.created_at),
                "NORMAL",
                partition_key,
                range_text,
                dist_key,
                p.buckets,
                p.replication_num,
                p.storage_medium,
                time_text(p.cooldown_time) if p.cooldown_time else MAX_COOLDOWN_TIME,
                "",
                "NULL",
                size_text(size),
                "false",
                f"tag.location.default: {p.replication_num}",
                "true",
                "true",
                "NULL",
                p.visible_version,
                count,
            )
        )
    return rows


def _matches(predicate: ast.Predicate | None, row: dict[str, Any]) -> bool:
    if predicate is None:
        return True
    if isinstance(predicate, ast.BoolOp):
        results = (_matches(item, row) for item in predicate.items)
        return all(results) if predicate.op == "AND" else any(results)
    key = _column_name(predicate.column)
    value, wanted = row[key], predicate.value.value
    if predicate.op == "LIKE":
        return _like(wanted, str(value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            wanted_value: Any = int(wanted) if wanted is not None else None
        except ValueError:
            raise AnalysisError(f"Invalid value '{wanted}' for column {key}: expected a number") from None
    else:
        wanted_value = wanted
    return COMPARE[predicate.op](str(value) if isinstance(wanted_value, str) else value, wanted_value)


def _column_name(name: str) -> str:
    for column in SHOW_PARTITIONS_COLUMNS:
        if column.lower() == name.lower():
            return column
    raise AnalysisError(
        f"Unknown column '{name}' in SHOW PARTITIONS; columns are: {', '.join(SHOW_PARTITIONS_COLUMNS)}"
    )


def show_partitions(session: Session, stmt: ast.ShowPartitions) -> Result:
    meta = load_meta(session, stmt.table)
    if stmt.temporary:  # the same columns, of the temporary partitions (Doris)
        meta = meta.temporary_view()
    rows = [dict(zip(SHOW_PARTITIONS_COLUMNS, r)) for r in partition_rows(session, meta)]
    rows = [r for r in rows if _matches(stmt.where, r)]
    for item in reversed(stmt.order_by):
        key = _column_name(item.column)
        rows.sort(key=lambda r: r[key], reverse=item.descending)
    start = stmt.offset or 0
    if stmt.limit is not None:
        rows = rows[start : start + stmt.limit]
    elif start:
        rows = rows[start:]
    return Result.table(SHOW_PARTITIONS_COLUMNS, [tuple(r.values()) for r in rows])


def show_data(session: Session, stmt: ast.ShowData) -> Result:
    if stmt.table is not None:
        meta = load_meta(session, stmt.table)
        stats = table_stats(session, meta)
        size = sum(s.data_size for s in stats.values())
        rows_count = sum(s.row_count for s in stats.values())
        replicas = sum(p.buckets * p.replication_num for p in meta.partitions)
        return Result.table(
            ["TableName", "IndexName", "Size", "ReplicaCount", "RowCount", "RemoteSize"],
            [
                (meta.name, meta.name, size_text(size), replicas, rows_count, "0.000 "),
                ("", "Total", size_text(size), replicas, "", "0.000 "),
            ],
        )

    db = session.resolve_db(None)
    rows, total, total_replicas = [], 0, 0
    # Doris's ShowDataCommand: the tables the user may see, and their totals only
    metas = Visibility.of(session).tables(session.catalog.list_table_metas(db), key=lambda m: (m.db, m.name))
    for meta in sorted(metas, key=lambda m: m.name):
        name = meta.name
        size = sum(s.data_size for s in table_stats(session, meta).values())
        replicas = sum(p.buckets * p.replication_num for p in meta.partitions)
        total, total_replicas = total + size, total_replicas + replicas
        rows.append((name, size_text(size), replicas, "0.000 "))
    rows.append(("Total", size_text(total), total_replicas, "0.000 "))
    rows.append(("Quota", "1024.000 TB", 1073741824, ""))
    rows.append(("Left", "1024.000 TB", 1073741824 - total_replicas, ""))
    return Result.table(["TableName", "Size", "ReplicaCount", "RemoteSize"], rows)


def _visible_rows(session: Session, db: str, result: Result, wanted: frozenset[str] | None = None) -> Result:
    """The rows of a per-table listing of `db` (its ``TableName`` column) the session may see."""

    at = list(result.columns or ()).index("TableName")
    result.rows = Visibility.of(session).tables(result.rows, key=lambda row: (db, str(row[at])), wanted=wanted or SHOW)
    return result


def show_dynamic_partition_tables(session: Session, stmt: ast.ShowDynamicPartitionTables) -> Result:
    """Doris's ShowDynamicPartitionCommand: no database check, the tables the user may see."""

    db = session.resolve_db(stmt.db)
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    return _visible_rows(session, db, dynamic_rows(session, db))


def show_proc(session: Session, stmt: ast.ShowProc) -> Result:
    return proc(session, stmt.path)


def help_topic(session: Session, stmt: ast.Help) -> Result:
    return lookup(stmt.topic)


HANDLERS: Handlers = {
    ast.ShowAlterTableColumn: show_alter_table_column,
    ast.ShowCreateTable: show_create_table,
    ast.ShowCreateDatabase: show_create_database,
    ast.Describe: describe,
    ast.ShowPartitions: show_partitions,
    ast.ShowData: show_data,
    ast.ShowBuckets: show_buckets,
    ast.ShowDynamicPartitionTables: show_dynamic_partition_tables,
    ast.ShowProc: show_proc,
    ast.Help: help_topic,
}
