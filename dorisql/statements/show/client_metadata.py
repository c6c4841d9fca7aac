"""The metadata MySQL clients and tools ask for: SHOW [FULL] COLUMNS, SHOW TABLE STATUS, SHOW FULL
TABLES, SHOW VARIABLES, SHOW WARNINGS / ERRORS, SHOW FRONTENDS / BACKENDS, and the read-only
``information_schema`` database (tables, columns, schemata, partitions, views).

Column names and shapes are Doris's (fe-core: ShowColumnStmt, ShowTableStatusStmt,
ShowVariablesStmt, FrontendsProcNode, BackendsProcDir, catalog/SchemaTable.java). Everything here
is read from the catalog and the Delta logs (row counts and sizes); only a query of
``information_schema`` needs Spark, which reads a small DataFrame built from these rows.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import socket
import zlib
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlparse

from dorisql import __version__, ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, DorisqlError, UnknownDatabaseError, UnknownTableError
from dorisql.partitioning.keys import partition_range_string, sorted_partition_names
from dorisql.result import Result, size_text, time_text
from dorisql.session.session import Session
from dorisql.session.visibility import Visibility
from dorisql.statements.show.objects import _like, load_meta, shown_type
from dorisql.statements.show.objects import describe as describe_table
from dorisql.storage.spark import executors
from dorisql.syntax.generator import type_sql
from dorisql.tablets.partition_sizes import table_stats
from dorisql.translate.variables import SessionIdentity, all_variables

INFORMATION_SCHEMA = "information_schema"
#: The catalog name information_schema shows (Doris's internal catalog).
INTERNAL_CATALOG = "internal"
#: Doris's engine name for its own tables (TableIf.getEngine of an OLAP table).
ENGINE_NAME = "Doris"
#: Doris's TABLE_COLLATION / SHOW TABLE STATUS Collation of every table.
TABLE_COLLATION = "utf-8"


def is_information_schema(db: str | None) -> bool:
    return db is not None and db.lower() == INFORMATION_SCHEMA


def identity(session: Session) -> SessionIdentity:
    user = getattr(session, "user", None)  # the server's login (an ast.UserIdentity), else root
    return SessionIdentity(
        database=session.current_db,
        connection_id=session.connection_id,
        user=user.user if user is not None else "root",
    )


def _filtered(columns: list[str], rows: list[tuple], like: str | None, where: ast.Predicate | None) -> Result:
    """Rows whose first column matches LIKE, or that satisfy WHERE (on the shown columns)."""
    if like is not None:
        rows = [r for r in rows if _like(like, str(r[0]))]
    if where is not None:
        rows = [r for r in rows if _satisfies(where, dict(zip([c.lower() for c in columns], r)), columns)]
    return Result.table(columns, rows)


def _satisfies(predicate: ast.Predicate, row: dict[str, Any], columns: list[str]) -> bool:
    if isinstance(predicate, ast.BoolOp):
        results = (_satisfies(item, row, columns) for item in predicate.items)
        return all(results) if predicate.op == "AND" else any(results)
    key = predicate.column.lower()
    if key not in row:
        raise AnalysisError(f"Unknown column '{predicate.column}' in 'where clause'; columns are: {', '.join(columns)}")
    value, wanted = row[key], predicate.value.value
    if value is None or wanted is None:
        return False
    if predicate.op == "LIKE":
        return _like(wanted, str(value))
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            left: Any = value
            right: Any = int(wanted)
        except ValueError:
            left, right = str(value), wanted
    else:
        left, right = str(value).lower(), wanted.lower()  # MySQL's default collation ignores case
    return {
        "=": left == right,
        "!=": left != right,
        "<>": left != right,
        "<": left < right,
        "<=": left <= right,
        ">": left > right,
        ">=": left >= right,
    }[predicate.op]


# ---------------------------------------------------------------------- types


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


def _default_text(column: ast.ColumnDef) -> str | None:
    return column.default.value if column.default is not None else None


# ---------------------------------------------------------------------- catalog rows


def _databases(session: Session) -> list[str]:
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


def _system_table_rows() -> list[dict[str, Any]]:
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
                    "COLUMN_DEFAULT": _default_text(c),
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
        for name in _databases(session)
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
        return _system_table_rows() + table_rows(session, metas)
    if name == "columns":
        return column_rows(metas)
    if name == "partitions":
        return partition_rows(session, metas)
    raise UnknownTableError(f"Table [{name}] does not exist in database [{INFORMATION_SCHEMA}].")


def schema_table_frame(session: Session, name: str):
    """information_schema.`name` as a Spark DataFrame (what a query of it reads)."""
    from pyspark.sql import types as T

    lowered = name.lower()
    if lowered not in SCHEMA_TABLES:
        raise UnknownTableError(f"Table [{name}] does not exist in database [{INFORMATION_SCHEMA}].")
    spark_types = {_V: T.StringType(), _B: T.LongType(), _I: T.IntegerType(), _T: T.TimestampType()}
    columns = SCHEMA_TABLES[lowered]
    schema = T.StructType([T.StructField(column, spark_types[kind], True) for column, kind in columns])
    rows = [tuple(row.get(column) for column, _ in columns) for row in schema_table_rows(session, lowered)]
    return session.spark.createDataFrame(rows, schema)


# ---------------------------------------------------------------------- SHOW statements


def show_databases(session: Session, stmt: ast.ShowDatabases) -> Result:
    """The databases the session may see (information_schema: everyone)."""

    visibility = Visibility.of(session)
    names = [n for n in _databases(session) if _like(stmt.like, n) and visibility.database(n)]
    return Result.table(["Database"], [(n,) for n in names])


def _table_names(session: Session, db: str) -> list[tuple[str, str]]:
    """(name, Table_type) of the database's tables the session may see. Doris's SHOW TABLES
    checks no database privilege (a grant on one table shows that table) and lists only the
    tables the user holds a privilege on: nothing, for a database it cannot see."""

    if is_information_schema(db):
        return [(n, "SYSTEM VIEW") for n in sorted(SCHEMA_TABLES)]
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    names = Visibility.of(session).tables(sorted(session.catalog.list_tables(db)), key=lambda n: (db, n))
    return [(n, "BASE TABLE") for n in names]


def show_tables(session: Session, stmt: ast.ShowTables) -> Result:
    db = session.resolve_db(stmt.db)
    names = _table_names(session, db)
    if stmt.full:
        return _filtered([f"Tables_in_{db}", "Table_type"], names, stmt.like, stmt.where)
    return _filtered([f"Tables_in_{db}"], [(n,) for n, _ in names], stmt.like, stmt.where)


SHOW_TABLE_STATUS_COLUMNS = [
    "Name",
    "Engine",
    "Version",
    "Row_format",
    "Rows",
    "Avg_row_length",
    "Data_length",
    "Max_data_length",
    "Index_length",
    "Data_free",
    "Auto_increment",
    "Create_time",
    "Update_time",
    "Check_time",
    "Collation",
    "Checksum",
    "Create_options",
    "Comment",
]

#: information_schema.tables columns behind each SHOW TABLE STATUS column (ShowTableStatusStmt).
_STATUS_SOURCE = (
    "TABLE_NAME",
    "ENGINE",
    "VERSION",
    "ROW_FORMAT",
    "TABLE_ROWS",
    "AVG_ROW_LENGTH",
    "DATA_LENGTH",
    "MAX_DATA_LENGTH",
    "INDEX_LENGTH",
    "DATA_FREE",
    "AUTO_INCREMENT",
    "CREATE_TIME",
    "UPDATE_TIME",
    "CHECK_TIME",
    "TABLE_COLLATION",
    "CHECKSUM",
    "CREATE_OPTIONS",
    "TABLE_COMMENT",
)


def show_table_status(session: Session, stmt: ast.ShowTableStatus) -> Result:
    db = session.resolve_db(stmt.db)
    if is_information_schema(db):
        source = _system_table_rows()
    else:
        if not session.catalog.database_exists(db):
            raise UnknownDatabaseError(f"Unknown database '{db}'")

        # the database was checked (dorisql.auth.privileges.required); its tables are listed as
        # information_schema.tables lists them: the visible ones
        metas = [m for m in session.catalog.list_table_metas(db) if stmt.like is None or _like(stmt.like, m.name)]
        metas = Visibility.of(session).tables(metas, key=lambda m: (m.db, m.name))
        source = table_rows(session, sorted(metas, key=lambda m: m.name))

    def shown(value):
        return time_text(value) if isinstance(value, dt.datetime) else value

    rows = [tuple(shown(r[key]) for key in _STATUS_SOURCE) for r in source]
    return _filtered(SHOW_TABLE_STATUS_COLUMNS, rows, stmt.like, stmt.where)


def show_columns(session: Session, stmt: ast.ShowColumns) -> Result:
    """SHOW [FULL] COLUMNS (Doris's ShowExecutor: type in lower case, Null and Key YES/NO, the
    aggregation type in Extra)."""
    db = session.resolve_db(stmt.table.db)
    if is_information_schema(db):
        columns = SCHEMA_TABLES.get(stmt.table.name.lower())
        if columns is None:
            raise UnknownTableError(f"Table [{stmt.table.name}] does not exist in database [{db}].")
        kinds = {_V: "varchar(*)", _B: "bigint", _I: "int", _T: "datetime"}
        plain = [(c, kinds[k], "YES", "NO", None, "") for c, k in columns]
        full = [(c, t, "", n, k, d, e, "", "") for c, t, n, k, d, e in plain]
    else:
        meta = load_meta(session, ast.TableName(stmt.table.name, db))
        keys = set(meta.definition.keys.columns) if meta.definition.keys else set()
        plain, full = [], []
        for c in meta.definition.columns:
            shown = (
                c.name,
                column_type_text(c.type),
                "YES" if c.nullable else "NO",
                "YES" if c.name in keys else "NO",
                _default_text(c),
                c.agg_type or "",
            )
            plain.append(shown)
            full.append((*shown[:2], "", *shown[2:], "", c.comment or ""))
    if stmt.full:
        names = ["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"]
        return _filtered(names, full, stmt.like, stmt.where)
    return _filtered(["Field", "Type", "Null", "Key", "Default", "Extra"], plain, stmt.like, stmt.where)


def describe(session: Session, stmt: ast.Describe) -> Result:
    """DESC of an information_schema table: its columns as SHOW COLUMNS shows them; DESC of a
    dorisql table as before (engine.show)."""

    if not is_information_schema(stmt.table.db or session.current_db) or stmt.all:
        return describe_table(session, stmt)
    return show_columns(session, ast.ShowColumns(stmt.table))


def show_variables(session: Session, stmt: ast.ShowVariables) -> Result:
    values = all_variables(session.session_vars, stmt.scope)
    return _filtered(["Variable_name", "Value"], list(values.items()), stmt.like, stmt.where)


def show_warnings(session: Session, stmt: ast.ShowWarnings) -> Result:
    """The previous statement's warnings (SHOW ERRORS: its errors only); they stay until the
    next statement that is not SHOW WARNINGS / ERRORS, as in MySQL."""
    notes = [n for n in session.last_notes if not stmt.errors or n[0] == "Error"]
    start = stmt.offset or 0
    notes = notes[start : start + stmt.limit] if stmt.limit is not None else notes[start:]
    return Result.table(["Level", "Code", "Message"], notes)


#: The character sets and collations dorisql has: Doris's (utf8 is utf8mb4 there too).
_CHARSETS = ("utf8", "utf8mb4")


def set_names(session: Session, stmt: ast.SetNames) -> Result:
    """SET NAMES: Doris accepts utf8 / utf8mb4 (its only character set) and changes nothing."""
    if stmt.charset is not None and stmt.charset.lower() not in _CHARSETS:
        err = AnalysisError(f"Unknown character set: '{stmt.charset}'")  # ERR_UNKNOWN_CHARACTER_SET
        err.code = 1115
        raise err
    return Result.ok()


def show_collation(session: Session, stmt: ast.ShowCollation) -> Result:
    if stmt.charsets:
        rows = [("utf8mb4", "UTF-8 Unicode", "utf8mb4_0900_bin", 4)]
        return _filtered(["Charset", "Description", "Default collation", "Maxlen"], rows, stmt.like, stmt.where)
    rows = [("utf8mb4_0900_bin", "utf8mb4", 309, "Yes", "Yes", 1)]
    return _filtered(["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"], rows, stmt.like, stmt.where)


# ---------------------------------------------------------------------- the deployment


SHOW_FRONTENDS_COLUMNS = [
    "Name",
    "IP",
    "HostName",
    "EditLogPort",
    "HttpPort",
    "QueryPort",
    "RpcPort",
    "Role",
    "IsMaster",
    "ClusterId",
    "Join",
    "Alive",
    "ReplayedJournalId",
    "LastHeartbeat",
    "IsHelper",
    "ErrMsg",
    "Version",
    "CurrentConnected",
]

SHOW_BACKENDS_COLUMNS = [
    "BackendId",
    "Host",
    "HeartbeatPort",
    "BePort",
    "HttpPort",
    "BrpcPort",
    "ArrowFlightSqlPort",
    "LastStartTime",
    "LastHeartbeat",
    "Alive",
    "SystemDecommissioned",
    "TabletNum",
    "DataUsedCapacity",
    "TrashUsedCapacity",
    "AvailCapacity",
    "TotalCapacity",
    "UsedPct",
    "MaxDiskUsedPct",
    "RemoteUsedCapacity",
    "Tag",
    "ErrMsg",
    "Version",
    "Status",
    "HeartbeatFailureCounter",
    "CpuCores",
    "Memory",
    "RunningTasks",
    "NodeRole",
]

#: The first backend id Doris hands out (Env's first object ids are taken by the frontend).
_FIRST_BACKEND_ID = 10002
#: When this process started: the frontend's and the local backend's start time.
_STARTED = dt.datetime.now().replace(microsecond=0)


def _host_ip() -> tuple[str, str]:
    host = socket.gethostname()
    try:
        ip = socket.gethostbyname(host)
    except OSError:  # no name service: the loopback address
        ip = "127.0.0.1"
    return ip, host


def _config_port(session: Session, name: str, default: int) -> int:
    value = getattr(session.config, name, None)
    return int(value) if isinstance(value, int) or (isinstance(value, str) and value.isdigit()) else default


def _cluster_id(session: Session) -> int:
    """A stable id of this deployment: the warehouse's (Doris's ClusterId is a random int kept in
    the meta folder; the warehouse is what identifies a dorisql deployment)."""
    return zlib.crc32(str(session.warehouse).encode()) & 0x7FFFFFFF


def show_frontends(session: Session, stmt: ast.ShowFrontends) -> Result:
    """One frontend: this process (it parses, plans and holds the catalog)."""
    ip, host = _host_ip()
    now = time_text(session.now())
    row = (
        f"fe_{host}_{os.getpid()}",
        ip,
        host,
        0,  # no edit log: the catalog is a local SQLite file
        _config_port(session, "http_port", 8030),
        _config_port(session, "query_port", 9030),
        0,
        "FOLLOWER",
        "true",
        _cluster_id(session),
        "true",
        "true",
        0,
        now,
        "true",
        "",
        f"dorisql-{__version__}",
        "Yes",
    )
    return Result.table(SHOW_FRONTENDS_COLUMNS, [row])


def _bytes_text(size: int) -> str:
    """RuntimeProfile.printCounter(..., BYTES): ``7.50 GB``, ``512.00 MB``, ``0.00 ``."""
    for limit, unit in ((1 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if size >= limit:
            return f"{size / limit:.2f} {unit}"
    return f"{size} B" if size else "0.00 "


def _warehouse_bytes(root) -> int:
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.stat(os.path.join(folder, name)).st_size
            except OSError:  # removed meanwhile
                pass
    return total


def _executors(session: Session) -> list[tuple[str, int, int, int, int, dt.datetime]]:
    """(host, port, cores, memory bytes, running tasks, start time) of the Spark executors (in
    local mode the driver, the one executor; on a cluster the executors only, the driver being the
    frontend); one backend for this machine when Spark has not started, and for the Spark Connect
    server, which does not tell its clients about its executors."""

    spark = session.running_spark
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    local = ("127.0.0.1", -1, os.cpu_count() or 1, memory, 0, _STARTED)
    if spark is None:
        return [local]
    if session.connect:
        host = urlparse(session.config.remote.replace("sc://", "http://", 1)).hostname or "127.0.0.1"
        return [(host, -1, 0, 0, 0, _STARTED)]  # cores and memory unknown here
    sc = spark.sparkContext
    started = dt.datetime.fromtimestamp(sc.startTime / 1000).replace(microsecond=0)
    found = executors(spark, session.config.master)
    out = [(e.host, e.port, e.cores, e.memory or memory, e.running_tasks, started) for e in found]
    return out or [local]


def show_backends(session: Session, stmt: ast.ShowBackends) -> Result:
    """The Spark driver and executors that run the queries (one local backend before Spark starts)."""
    executors = _executors(session)
    tablets = sum(p.buckets for m in session.catalog.list_table_metas() for p in m.partitions)
    used = _warehouse_bytes(session.warehouse)
    disk = shutil.disk_usage(session.warehouse)
    now = time_text(session.now())
    rows = []
    for i, (host, port, cores, memory, running, started) in enumerate(sorted(executors)):
        share = tablets // len(executors) + (1 if i < tablets % len(executors) else 0)
        rows.append(
            (
                _FIRST_BACKEND_ID + i,
                host,
                -1,
                port,
                -1,
                -1,
                -1,
                time_text(started),
                now,
                "true",
                "false",
                share,
                size_text(used // len(executors)),
                size_text(0),
                size_text(disk.free),
                size_text(disk.total),
                f"{(disk.total - disk.free) * 100 / disk.total if disk.total else 0.0:.2f} %",
                f"{(disk.total - disk.free) * 100 / disk.total if disk.total else 0.0:.2f} %",
                size_text(0),
                '{"location" : "default"}',
                "",
                f"dorisql-{__version__}",
                '{"isQueryDisabled":false,"isLoadDisabled":false}',
                0,
                cores,
                _bytes_text(memory),
                running,
                "mix",
            )
        )
    return Result.table(SHOW_BACKENDS_COLUMNS, rows)


HANDLERS = {
    ast.ShowDatabases: show_databases,
    ast.ShowTables: show_tables,
    ast.ShowColumns: show_columns,
    ast.ShowTableStatus: show_table_status,
    ast.ShowVariables: show_variables,
    ast.ShowWarnings: show_warnings,
    ast.ShowFrontends: show_frontends,
    ast.ShowBackends: show_backends,
    ast.SetNames: set_names,
    ast.Describe: describe,
    ast.ShowCollation: show_collation,
}
