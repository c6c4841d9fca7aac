"""information_schema: the read-only database MySQL clients and tools read, whose tables are
DataFrames of catalog rows (`schema_table_frame`, read by the query planner) with Doris's columns
(`SCHEMA_TABLES`), and the catalog rows SHOW TABLE STATUS / SHOW COLUMNS share with them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import DorisqlError, UnknownTableError
from dorisql.partitioning.keys import partition_range_string, sorted_partition_names
from dorisql.session.session import Session
from dorisql.session.visibility import Visibility
from dorisql.statements.show.objects import shown_type
from dorisql.syntax.generator import type_sql
from dorisql.tablets.partition_sizes import table_stats

INFORMATION_SCHEMA = "information_schema"


#: The catalog name information_schema shows (Doris's internal catalog).
INTERNAL_CATALOG = "internal"


#: Doris's engine name for its own tables (TableIf.getEngine of an OLAP table).
ENGINE_NAME = "Doris"


#: Doris's TABLE_COLLATION / SHOW TABLE STATUS Collation of every table.
TABLE_COLLATION = "utf-8"


def is_information_schema(db: str | None) -> bool:
    return db is not None and db.lower() == INFORMATION_SCHEMA


_NUMERIC_PRECISION = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19, "LARGEINT": 39, "FLOAT": 12, "DOUBLE": 22}


#: Doris's STRING length (ScalarType.MAX_STRING_LENGTH).
_STRING_LENGTH = 2147483643


def column_type_text(data_type: ast.DataType) -> str:
    """The type as SHOW COLUMNS and COLUMN_TYPE show it: lower case, ``varchar(20)``, ``decimal(10,2)``."""

    return type_sql(shown_type(data_type)).lower().replace(", ", ",")


def type_facts(data_type: ast.DataType) -> dict[str, Any]:
    """DATA_TYPE, the character and numeric sizes of information_schema.columns."""
    name = data_type.name.upper()
    facts: dict[str, Any] = {
        "DATA_TYPE": name.lower(),
        "CHARACTER_MAXIMUM_LENGTH": None,
        "CHARACTER_OCTET_LENGTH": None,
        "NUMERIC_PRECISION": None,
        "NUMERIC_SCALE": None,
        "DATETIME_PRECISION": None,
    }
    if name in ("VARCHAR", "CHAR", "STRING"):
        length = data_type.params[0] if data_type.params else (_STRING_LENGTH if name == "STRING" else 1)
        facts["CHARACTER_MAXIMUM_LENGTH"] = length
        facts["CHARACTER_OCTET_LENGTH"] = min(length * 4, _STRING_LENGTH)
    elif name in _NUMERIC_PRECISION:
        facts["NUMERIC_PRECISION"] = _NUMERIC_PRECISION[name]
        facts["NUMERIC_SCALE"] = None if name in ("FLOAT", "DOUBLE") else 0
    elif name.startswith("DECIMAL"):
        params = data_type.params or (9, 0)
        facts["NUMERIC_PRECISION"] = params[0]
        facts["NUMERIC_SCALE"] = params[1] if len(params) > 1 else 0
    elif name in ("DATETIME", "DATETIMEV2"):
        facts["DATETIME_PRECISION"] = data_type.params[0] if data_type.params else 0
    return facts


def _key_kind(meta: TableMeta) -> str:
    """COLUMN_KEY of a key column: Doris's DUP / UNI / AGG."""
    keys = meta.definition.keys
    return {"UNIQUE": "UNI", "AGGREGATE": "AGG"}.get(keys.type if keys else "DUPLICATE", "DUP")


def default_text(column: ast.ColumnDef) -> str | None:
    return column.default.value if column.default is not None else None


def database_names(session: Session) -> list[str]:
    return sorted({INFORMATION_SCHEMA, *session.catalog.list_databases()})


def _table_stats(session: Session, meta: TableMeta) -> dict:
    """Per-partition stats from the Delta log; {} if the table's storage cannot be read (its
    sizes then show as NULL: one damaged table must not hide every other one's metadata)."""

    try:
        return table_stats(session, meta)
    except DorisqlError:
        return {}


def _stats_total(stats: dict) -> tuple[int, int, dt.datetime | None]:
    rows = sum(s.row_count for s in stats.values())
    size = sum(s.data_size for s in stats.values())
    latest = max((s.last_modified for s in stats.values()), default=0)
    updated = dt.datetime.fromtimestamp(latest / 1000) if latest else None
    return rows, size, updated


def table_rows(session: Session, metas: Iterable[TableMeta]) -> list[dict[str, Any]]:
    """information_schema.tables rows of dorisql tables (SHOW TABLE STATUS reads them too)."""
    out = []
    for meta in metas:
        rows, size, updated = _stats_total(_table_stats(session, meta))
        out.append(
            {
                "TABLE_CATALOG": INTERNAL_CATALOG,
                "TABLE_SCHEMA": meta.db,
                "TABLE_NAME": meta.name,
                "TABLE_TYPE": "BASE TABLE",
                "ENGINE": ENGINE_NAME,
                "VERSION": None,
                "ROW_FORMAT": None,
                "TABLE_ROWS": rows,
                "AVG_ROW_LENGTH": size // rows if rows else 0,
                "DATA_LENGTH": size,
                "MAX_DATA_LENGTH": None,
                "INDEX_LENGTH": None,
                "DATA_FREE": None,
                "AUTO_INCREMENT": None,
                "CREATE_TIME": meta.created_at.replace(microsecond=0),
                "UPDATE_TIME": (updated or meta.created_at).replace(microsecond=0),
                "CHECK_TIME": None,
                "TABLE_COLLATION": TABLE_COLLATION,
                "CHECKSUM": None,
                "CREATE_OPTIONS": "",
                "TABLE_COMMENT": meta.definition.comment or "",
            }
        )
    return out


def system_table_rows() -> list[dict[str, Any]]:
    """information_schema's own tables, listed as Doris lists them (SYSTEM VIEW)."""
    return [
        {
            **{column: None for column, _ in SCHEMA_TABLES["tables"]},
            "TABLE_CATALOG": INTERNAL_CATALOG,
            "TABLE_SCHEMA": INFORMATION_SCHEMA,
            "TABLE_NAME": name,
            "TABLE_TYPE": "SYSTEM VIEW",
            "ENGINE": "SYSTEM VIEW",
            "TABLE_ROWS": 0,
            "AVG_ROW_LENGTH": 0,
            "DATA_LENGTH": 0,
            "TABLE_COLLATION": TABLE_COLLATION,
            "CREATE_OPTIONS": "",
            "TABLE_COMMENT": "",
        }
        for name in sorted(SCHEMA_TABLES)
    ]


def column_rows(metas: Iterable[TableMeta]) -> list[dict[str, Any]]:
    out = []
    for meta in metas:
        keys = set(meta.definition.keys.columns) if meta.definition.keys else set()
        for position, c in enumerate(meta.definition.columns, start=1):
            facts = type_facts(c.type)
            out.append(
                {
                    "TABLE_CATALOG": INTERNAL_CATALOG,
                    "TABLE_SCHEMA": meta.db,
                    "TABLE_NAME": meta.name,
                    "COLUMN_NAME": c.name,
                    "ORDINAL_POSITION": position,
                    "COLUMN_DEFAULT": default_text(c),
                    "IS_NULLABLE": "YES" if c.nullable else "NO",
                    **facts,
                    "CHARACTER_SET_NAME": None,
                    "COLLATION_NAME": None,
                    "COLUMN_TYPE": column_type_text(c.type),
                    "COLUMN_KEY": _key_kind(meta) if c.name in keys else "",
                    "EXTRA": (c.agg_type or "") if not c.auto_increment else "auto_increment",
                    "PRIVILEGES": "",
                    "COLUMN_COMMENT": c.comment or "",
                    "COLUMN_SIZE": facts["CHARACTER_MAXIMUM_LENGTH"] or facts["NUMERIC_PRECISION"],
                    "DECIMAL_DIGITS": facts["NUMERIC_SCALE"],
                    "GENERATION_EXPRESSION": None,
                    "SRS_ID": None,
                }
            )
    return out


def schema_rows(session: Session) -> list[dict[str, Any]]:
    return [
        {
            "CATALOG_NAME": INTERNAL_CATALOG,
            "SCHEMA_NAME": name,
            "DEFAULT_CHARACTER_SET_NAME": "utf8mb4",
            "DEFAULT_COLLATION_NAME": "utf8mb4_0900_bin",
            "SQL_PATH": None,
            "DEFAULT_ENCRYPTION": "NO",
        }
        for name in database_names(session)
    ]


def partition_rows(session: Session, metas: Iterable[TableMeta]) -> list[dict[str, Any]]:
    out = []
    for meta in metas:
        definition = meta.definition
        stats = _table_stats(session, meta)
        spec = definition.partition
        distribution = definition.distribution
        dist = ", ".join(distribution.columns) if distribution and distribution.kind == "HASH" else "RANDOM"
        by_name = {p.name: p for p in meta.partitions}
        for position, name in enumerate(sorted_partition_names(meta), start=1):
            p = by_name[name]
            stat = stats.get(name)
            rows, size = (stat.row_count, stat.data_size) if stat else (0, 0)
            updated = p.visible_version_time or p.created_at
            out.append(
                {
                    "PARTITION_ID": p.id,
                    "TABLE_CATALOG": INTERNAL_CATALOG,
                    "TABLE_SCHEMA": meta.db,
                    "TABLE_NAME": meta.name,
                    "PARTITION_NAME": p.name,
                    "SUBPARTITION_NAME": None,
                    "PARTITION_ORDINAL_POSITION": position,
                    "SUBPARTITION_ORDINAL_POSITION": None,
                    "PARTITION_METHOD": spec.kind if spec else None,
                    "SUBPARTITION_METHOD": None,
                    "PARTITION_EXPRESSION": ", ".join(spec.columns) if spec else None,
                    "SUBPARTITION_EXPRESSION": None,
                    "PARTITION_DESCRIPTION": partition_range_string(meta, p) if spec else None,
                    "TABLE_ROWS": rows,
                    "AVG_ROW_LENGTH": size // rows if rows else 0,
                    "DATA_LENGTH": size,
                    "MAX_DATA_LENGTH": 0,
                    "INDEX_LENGTH": 0,
                    "DATA_FREE": 0,
                    "CREATE_TIME": int(p.created_at.timestamp()),
                    "UPDATE_TIME": updated.replace(microsecond=0),
                    "CHECK_TIME": None,
                    "CHECKSUM": 0,
                    "PARTITION_COMMENT": "",
                    "NODEGROUP": "",
                    "TABLESPACE_NAME": "",
                    "LOCAL_DATA_SIZE": str(size),
                    "REMOTE_DATA_SIZE": "0",
                    "STATE": "NORMAL",
                    "REPLICA_ALLOCATION": f"tag.location.default: {p.replication_num}",
                    "REPLICA_NUM": p.replication_num,
                    "STORAGE_POLICY": "",
                    "STORAGE_MEDIUM": p.storage_medium,
                    "COOLDOWN_TIME_MS": str(int(p.cooldown_time.timestamp() * 1000)) if p.cooldown_time else "",
                    "LAST_CONSISTENCY_CHECK_TIME": "",
                    "BUCKET_NUM": p.buckets,
                    "COMMITTED_VERSION": p.visible_version,
                    "VISIBLE_VERSION": p.visible_version,
                    "PARTITION_KEY": ", ".join(spec.columns) if spec else "",
                    "RANGE": partition_range_string(meta, p) if spec else "",
                    "DISTRIBUTION": dist,
                }
            )
    return out


_V, _B, _I, _T = "string", "bigint", "int", "datetime"


#: How SHOW COLUMNS prints the column types of SCHEMA_TABLES.
SHOWN_COLUMN_TYPES = {_V: "varchar(*)", _B: "bigint", _I: "int", _T: "datetime"}

#: information_schema's tables dorisql fills: (column, type) in Doris's order (SchemaTable.java).
SCHEMA_TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "tables": (
        ("TABLE_CATALOG", _V),
        ("TABLE_SCHEMA", _V),
        ("TABLE_NAME", _V),
        ("TABLE_TYPE", _V),
        ("ENGINE", _V),
        ("VERSION", _B),
        ("ROW_FORMAT", _V),
        ("TABLE_ROWS", _B),
        ("AVG_ROW_LENGTH", _B),
        ("DATA_LENGTH", _B),
        ("MAX_DATA_LENGTH", _B),
        ("INDEX_LENGTH", _B),
        ("DATA_FREE", _B),
        ("AUTO_INCREMENT", _B),
        ("CREATE_TIME", _T),
        ("UPDATE_TIME", _T),
        ("CHECK_TIME", _T),
        ("TABLE_COLLATION", _V),
        ("CHECKSUM", _B),
        ("CREATE_OPTIONS", _V),
        ("TABLE_COMMENT", _V),
    ),
    "columns": (
        ("TABLE_CATALOG", _V),
        ("TABLE_SCHEMA", _V),
        ("TABLE_NAME", _V),
        ("COLUMN_NAME", _V),
        ("ORDINAL_POSITION", _B),
        ("COLUMN_DEFAULT", _V),
        ("IS_NULLABLE", _V),
        ("DATA_TYPE", _V),
        ("CHARACTER_MAXIMUM_LENGTH", _B),
        ("CHARACTER_OCTET_LENGTH", _B),
        ("NUMERIC_PRECISION", _B),
        ("NUMERIC_SCALE", _B),
        ("DATETIME_PRECISION", _B),
        ("CHARACTER_SET_NAME", _V),
        ("COLLATION_NAME", _V),
        ("COLUMN_TYPE", _V),
        ("COLUMN_KEY", _V),
        ("EXTRA", _V),
        ("PRIVILEGES", _V),
        ("COLUMN_COMMENT", _V),
        ("COLUMN_SIZE", _B),
        ("DECIMAL_DIGITS", _B),
        ("GENERATION_EXPRESSION", _V),
        ("SRS_ID", _B),
    ),
    "schemata": (
        ("CATALOG_NAME", _V),
        ("SCHEMA_NAME", _V),
        ("DEFAULT_CHARACTER_SET_NAME", _V),
        ("DEFAULT_COLLATION_NAME", _V),
        ("SQL_PATH", _V),
        ("DEFAULT_ENCRYPTION", _V),
    ),
    "partitions": tuple(
        (name, kind)
        for name, kind in (
            ("PARTITION_ID", _B),
            ("TABLE_CATALOG", _V),
            ("TABLE_SCHEMA", _V),
            ("TABLE_NAME", _V),
            ("PARTITION_NAME", _V),
            ("SUBPARTITION_NAME", _V),
            ("PARTITION_ORDINAL_POSITION", _I),
            ("SUBPARTITION_ORDINAL_POSITION", _I),
            ("PARTITION_METHOD", _V),
            ("SUBPARTITION_METHOD", _V),
            ("PARTITION_EXPRESSION", _V),
            ("SUBPARTITION_EXPRESSION", _V),
            ("PARTITION_DESCRIPTION", _V),
            ("TABLE_ROWS", _B),
            ("AVG_ROW_LENGTH", _B),
            ("DATA_LENGTH", _B),
            ("MAX_DATA_LENGTH", _B),
            ("INDEX_LENGTH", _B),
            ("DATA_FREE", _B),
            ("CREATE_TIME", _B),
            ("UPDATE_TIME", _T),
            ("CHECK_TIME", _T),
            ("CHECKSUM", _B),
            ("PARTITION_COMMENT", _V),
            ("NODEGROUP", _V),
            ("TABLESPACE_NAME", _V),
            ("LOCAL_DATA_SIZE", _V),
            ("REMOTE_DATA_SIZE", _V),
            ("STATE", _V),
            ("REPLICA_ALLOCATION", _V),
            ("REPLICA_NUM", _I),
            ("STORAGE_POLICY", _V),
            ("STORAGE_MEDIUM", _V),
            ("COOLDOWN_TIME_MS", _V),
            ("LAST_CONSISTENCY_CHECK_TIME", _V),
            ("BUCKET_NUM", _I),
            ("COMMITTED_VERSION", _B),
            ("VISIBLE_VERSION", _B),
            ("PARTITION_KEY", _V),
            ("RANGE", _V),
            ("DISTRIBUTION", _V),
        )
    ),
    # dorisql has no views: always empty
    "views": (
        ("TABLE_CATALOG", _V),
        ("TABLE_SCHEMA", _V),
        ("TABLE_NAME", _V),
        ("VIEW_DEFINITION", _V),
        ("CHECK_OPTION", _V),
        ("IS_UPDATABLE", _V),
        ("DEFINER", _V),
        ("SECURITY_TYPE", _V),
        ("CHARACTER_SET_CLIENT", _V),
        ("COLLATION_CONNECTION", _V),
    ),
}


def schema_table_rows(session: Session, name: str) -> list[dict[str, Any]]:
    """The rows of information_schema.`name` (lower case), from the catalog: only the databases
    and tables the session may see (dorisql.session.visibility), as Doris's schema scanners ask the
    FE for the user's tables."""

    if name == "views":
        return []
    visibility = Visibility.of(session)
    if name == "schemata":
        return [r for r in schema_rows(session) if visibility.database(r["SCHEMA_NAME"])]
    metas = sorted(session.catalog.list_table_metas(), key=lambda m: (m.db, m.name))
    metas = visibility.tables(metas, key=lambda m: (m.db, m.name))
    if name == "tables":
        return system_table_rows() + table_rows(session, metas)
    if name == "columns":
        return column_rows(metas)
    if name == "partitions":
        return partition_rows(session, metas)
    raise UnknownTableError(f"Table [{name}] does not exist in database [{INFORMATION_SCHEMA}].")


def schema_table_frame(session: Session, name: str):
    """information_schema.`name` as a Spark DataFrame (what a query of it reads)."""
    from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType, TimestampType

    lowered = name.lower()
    if lowered not in SCHEMA_TABLES:
        raise UnknownTableError(f"Table [{name}] does not exist in database [{INFORMATION_SCHEMA}].")
    spark_types = {_V: StringType(), _B: LongType(), _I: IntegerType(), _T: TimestampType()}
    columns = SCHEMA_TABLES[lowered]
    schema = StructType([StructField(column, spark_types[kind], True) for column, kind in columns])
    rows = [tuple(row.get(column) for column, _ in columns) for row in schema_table_rows(session, lowered)]
    return session.spark.createDataFrame(rows, schema)
