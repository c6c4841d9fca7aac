"""SHOW / DESC / HELP: catalog reads shaped exactly like Doris's output (column names and formats)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import fnmatch
from typing import TYPE_CHECKING, Any

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, NotSupportedError, UnknownDatabaseError
from dorisql.result import Result

from .buckets import show_buckets

if TYPE_CHECKING:  # the engine imports these modules: type-only import
    from dorisql.engine.session import Engine

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


def time_text(value: dt.datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "NULL"


def size_text(size: int) -> str:
    """Doris's DebugUtil.getByteUint + DECIMAL_FORMAT_SCALE_3: '0.000 ', '1.500 KB', '2.000 GB'."""
    units = ((1 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB"))
    if size == 0:
        return "0.000 "
    for limit, unit in units:
        if size > limit:
            return f"{size / limit:.3f} {unit}"
    return f"{float(size):.3f} B"


def _like(pattern: str | None, value: str) -> bool:
    if pattern is None:
        return True
    glob = pattern.replace("%", "*").replace("_", "?")
    return fnmatch.fnmatchcase(value.lower(), glob.lower())


# ---------------------------------------------------------------------- databases and tables


def show_databases(engine: Engine, stmt: ast.ShowDatabases) -> Result:
    names = [n for n in engine.catalog.list_databases() if _like(stmt.like, n)]
    return Result.table(["Database"], [(n,) for n in sorted(names)])


def show_tables(engine: Engine, stmt: ast.ShowTables) -> Result:
    db = engine.resolve_db(stmt.db)
    if not engine.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    names = [n for n in engine.catalog.list_tables(db) if _like(stmt.like, n)]
    return Result.table([f"Tables_in_{db}"], [(n,) for n in sorted(names)])


def load_meta(engine: Engine, table: ast.TableName) -> TableMeta:
    return engine.catalog.load_table(engine.resolve_db(table.db), table.name)


def shown_type(data_type: ast.DataType) -> ast.DataType:
    """The type as Doris prints it: a DATETIME of scale 0 is plain DATETIME."""
    if data_type.name == "DATETIME" and data_type.params == (0,):
        return dataclasses.replace(data_type, params=())
    return data_type


def current_definition(meta: TableMeta) -> ast.CreateTable:
    """The table's CREATE TABLE with its live partitions, as SHOW CREATE TABLE prints it."""
    from dorisql.partitioning.keys import partition_items

    definition = meta.definition
    if definition.partition is not None:
        items = partition_items(meta)
        definition = dataclasses.replace(definition, partition=dataclasses.replace(definition.partition, items=items))
    columns = tuple(dataclasses.replace(c, type=shown_type(c.type)) for c in definition.columns)
    return dataclasses.replace(
        definition, table=ast.TableName(meta.name), if_not_exists=False, engine="OLAP", columns=columns
    )


def show_create_table(engine: Engine, stmt: ast.ShowCreateTable) -> Result:
    from dorisql.generator import to_sql

    meta = load_meta(engine, stmt.table)
    return Result.table(["Table", "Create Table"], [(meta.name, to_sql(current_definition(meta)) + ";")])


def describe(engine: Engine, stmt: ast.Describe) -> Result:
    from dorisql.generator import type_sql

    meta = load_meta(engine, stmt.table)
    definition = meta.definition
    keys = set(definition.keys.columns) if definition.keys else set()
    rows = []
    for c in definition.columns:
        default = c.default.value if c.default is not None and c.default.value is not None else None
        rows.append(
            (
                c.name,
                type_sql(shown_type(c.type)),
                "Yes" if c.nullable else "No",
                "true" if c.name in keys else "false",
                default if default is not None else "NULL",
                c.agg_type or "",
            )
        )
    columns = ["Field", "Type", "Null", "Key", "Default", "Extra"]
    if stmt.all:
        keys_type = f"{definition.keys.type}_KEYS" if definition.keys else "DUP_KEYS"
        columns = ["IndexName", "IndexKeysType"] + columns + ["Visible", "DefineExpr", "WhereClause"]
        rows = [((meta.name, keys_type) if i == 0 else ("", "")) + r + ("true", "", "") for i, r in enumerate(rows)]
    return Result.table(columns, rows)


# ---------------------------------------------------------------------- partitions


def partition_rows(engine: Engine, meta: TableMeta) -> list[tuple[Any, ...]]:
    from dorisql.partitioning.keys import partition_range_string

    stats = table_stats(engine, meta)
    definition = meta.definition
    partition_key = ", ".join(definition.partition.columns) if definition.partition else ""
    distribution = definition.distribution
    dist_key = ", ".join(distribution.columns) if distribution and distribution.kind == "HASH" else "RANDOM"
    from dorisql.partitioning.keys import sorted_partition_names

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
                MAX_COOLDOWN_TIME,
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
    ops = {
        "=": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<>": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    return ops[predicate.op](str(value) if isinstance(wanted_value, str) else value, wanted_value)


def _column_name(name: str) -> str:
    for column in SHOW_PARTITIONS_COLUMNS:
        if column.lower() == name.lower():
            return column
    raise AnalysisError(
        f"Unknown column '{name}' in SHOW PARTITIONS; columns are: {', '.join(SHOW_PARTITIONS_COLUMNS)}"
    )


def show_partitions(engine: Engine, stmt: ast.ShowPartitions) -> Result:
    if stmt.temporary:
        return Result.table(SHOW_PARTITIONS_COLUMNS, [])
    meta = load_meta(engine, stmt.table)
    rows = [dict(zip(SHOW_PARTITIONS_COLUMNS, r)) for r in partition_rows(engine, meta)]
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


def table_stats(engine: Engine, meta: TableMeta):
    """Per-partition size and rows of the live partitions, from the Delta log."""
    from .consistency import table_storage

    names = {key: name for name, key in meta.partition_keys().items()}  # Delta value -> partition name
    with table_storage(engine.warehouse, meta) as store:
        stats = store.partition_stats()
    return {names[key]: s for key, s in stats.items() if key in names}


def show_data(engine: Engine, stmt: ast.ShowData) -> Result:
    if stmt.table is not None:
        meta = load_meta(engine, stmt.table)
        stats = table_stats(engine, meta)
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
    db = engine.resolve_db(None)
    rows, total, total_replicas = [], 0, 0
    for meta in sorted(engine.catalog.list_table_metas(db), key=lambda m: m.name):
        name = meta.name
        size = sum(s.data_size for s in table_stats(engine, meta).values())
        replicas = sum(p.buckets * p.replication_num for p in meta.partitions)
        total, total_replicas = total + size, total_replicas + replicas
        rows.append((name, size_text(size), replicas, "0.000 "))
    rows.append(("Total", size_text(total), total_replicas, "0.000 "))
    rows.append(("Quota", "1024.000 TB", 1073741824, ""))
    rows.append(("Left", "1024.000 TB", 1073741824 - total_replicas, ""))
    return Result.table(["TableName", "Size", "ReplicaCount", "RemoteSize"], rows)


def show_dynamic_partition_tables(engine: Engine, stmt: ast.ShowDynamicPartitionTables) -> Result:
    from .scheduler import dynamic_rows

    db = engine.resolve_db(stmt.db)
    if not engine.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    return dynamic_rows(engine, db)


def show_proc(engine: Engine, stmt: ast.ShowProc) -> Result:
    if stmt.path.strip().strip("/").split("/")[0] == "colocation_group":
        from .colocate import show_proc as colocation_proc

        return colocation_proc(engine, stmt.path)
    raise NotSupportedError(f"SHOW PROC '{stmt.path}'")


def help_topic(engine: Engine, stmt: ast.Help) -> Result:
    from .help import lookup

    return lookup(stmt.topic)


HANDLERS = {
    ast.ShowDatabases: show_databases,
    ast.ShowTables: show_tables,
    ast.ShowCreateTable: show_create_table,
    ast.Describe: describe,
    ast.ShowPartitions: show_partitions,
    ast.ShowData: show_data,
    ast.ShowBuckets: show_buckets,
    ast.ShowDynamicPartitionTables: show_dynamic_partition_tables,
    ast.ShowProc: show_proc,
    ast.Help: help_topic,
}
