"""information_schema: the read-only database MySQL clients and tools read, whose tables are
DataFrames of catalog rows (`schema_table_frame`, read by the query planner) with Doris's columns
(`SCHEMA_TABLES`), and the catalog rows SHOW TABLE STATUS / SHOW COLUMNS share with them."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Iterable
from typing import Any

from dorisql import ast
from dorisql.auth import privileges
from dorisql.catalog.model import TableMeta, ViewColumn, ViewMeta
from dorisql.errors import DorisqlError, UnknownTableError
from dorisql.partitioning.keys import partition_range_string, sorted_partition_names
from dorisql.result import time_text
from dorisql.session.session import Session
from dorisql.session.visibility import ROOT, Visibility
from dorisql.statements.show.objects import shown_type
from dorisql.statements.show.view_definitions import view_row, view_table_row
from dorisql.syntax.generator import type_sql
from dorisql.tablets.partition_sizes import table_stats

INFORMATION_SCHEMA = "information_schema"


#: The catalog name information_schema shows (Doris's internal catalog).
INTERNAL_CATALOG = "internal"


#: Doris's engine name for its own tables (TableIf.getEngine of an OLAP table).
ENGINE_NAME = "Doris"


#: Doris's TABLE_COLLATION / SHOW TABLE STATUS Collation of every table.
TABLE_COLLATION = "utf-8"


#: Doris's MySQL-compatible `mysql` database (fe-core MysqlDb, MysqlDBTable): read-only, its
#: tables filled from the catalog's users.
MYSQL_DB = "mysql"


def is_information_schema(db: str | None) -> bool:
    return db is not None and db.lower() == INFORMATION_SCHEMA


def is_mysql_db(db: str | None) -> bool:
    return db is not None and db.lower() == MYSQL_DB


def is_system_database(db: str | None) -> bool:
    """information_schema or mysql: served by dorisql, never stored, never changed."""
    return is_information_schema(db) or is_mysql_db(db)


def system_tables(db: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """The tables (name -> columns) of a system database."""
    return MYSQL_TABLES if is_mysql_db(db) else SCHEMA_TABLES


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
    return sorted({INFORMATION_SCHEMA, MYSQL_DB, *session.catalog.list_databases()})


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


def system_table_rows(db: str = INFORMATION_SCHEMA) -> list[dict[str, Any]]:
    """The tables of information_schema (or mysql), listed as Doris lists them (SYSTEM VIEW)."""
    return [
        {
            **{column: None for column, _ in SCHEMA_TABLES["tables"]},
            "TABLE_CATALOG": INTERNAL_CATALOG,
            "TABLE_SCHEMA": db,
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
        for name in sorted(system_tables(db))
    ]


def column_rows(metas: Iterable[TableMeta]) -> list[dict[str, Any]]:
    out = []
    for meta in metas:
        keys = set(meta.definition.keys.columns) if meta.definition.keys else set()
        for position, c in enumerate(meta.definition.columns, start=1):
            extra = (c.agg_type or "") if not c.auto_increment else "auto_increment"
            key = _key_kind(meta) if c.name in keys else ""
            out.append(_column_row(meta.db, meta.name, position, c, default_text(c), key, extra))
    return out


def view_column_rows(views: Iterable[ViewMeta]) -> list[dict[str, Any]]:
    """A view's output columns (what DESC v shows): no key, no default, no aggregation."""
    return [
        _column_row(view.db, view.name, position, c, None, "", "")
        for view in views
        for position, c in enumerate(view.columns, start=1)
    ]


def _column_row(
    db: str, table: str, position: int, c: ast.ColumnDef | ViewColumn, default: str | None, key: str, extra: str
) -> dict[str, Any]:
    """One row of information_schema.columns: a table's or a view's column `c` (its name, type,
    nullability and comment)."""
    facts = type_facts(c.type)
    return {
        "TABLE_CATALOG": INTERNAL_CATALOG,
        "TABLE_SCHEMA": db,
        "TABLE_NAME": table,
        "COLUMN_NAME": c.name,
        "ORDINAL_POSITION": position,
        "COLUMN_DEFAULT": default,
        "IS_NULLABLE": "YES" if c.nullable else "NO",
        **facts,
        "CHARACTER_SET_NAME": None,
        "COLLATION_NAME": None,
        "COLUMN_TYPE": column_type_text(c.type),
        "COLUMN_KEY": key,
        "EXTRA": extra,
        "PRIVILEGES": "",
        "COLUMN_COMMENT": c.comment or "",
        "COLUMN_SIZE": facts["CHARACTER_MAXIMUM_LENGTH"] or facts["NUMERIC_PRECISION"],
        "DECIMAL_DIGITS": facts["NUMERIC_SCALE"],
        "GENERATION_EXPRESSION": None,
        "SRS_ID": None,
    }


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


_V, _B, _I, _T, _L = "string", "bigint", "int", "datetime", "largeint"


#: How SHOW COLUMNS prints the column types of SCHEMA_TABLES.
SHOWN_COLUMN_TYPES = {_V: "varchar(*)", _B: "bigint", _I: "int", _T: "datetime", _L: "largeint"}


def _columns(names: str, kind: str = _V) -> tuple[tuple[str, str], ...]:
    return tuple((name, kind) for name in names.split())


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
    # CREATE VIEW's views (dorisql.statements.show.view_definitions.view_row)
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
    # Doris's BE answers these five with its dummy scanner: always empty
    "statistics": (
        *_columns("TABLE_CATALOG TABLE_SCHEMA TABLE_NAME"),
        ("NON_UNIQUE", _B),
        *_columns("INDEX_SCHEMA INDEX_NAME"),
        ("SEQ_IN_INDEX", _B),
        *_columns("COLUMN_NAME COLLATION"),
        *_columns("CARDINALITY SUB_PART", _B),
        *_columns("PACKED NULLABLE INDEX_TYPE COMMENT INDEX_COMMENT"),
    ),
    "key_column_usage": (
        *_columns("CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME TABLE_CATALOG TABLE_SCHEMA TABLE_NAME"),
        *_columns("COLUMN_NAME"),
        *_columns("ORDINAL_POSITION POSITION_IN_UNIQUE_CONSTRAINT", _B),
        *_columns("REFERENCED_TABLE_SCHEMA REFERENCED_TABLE_NAME REFERENCED_COLUMN_NAME"),
    ),
    "table_constraints": _columns(
        "CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME TABLE_SCHEMA TABLE_NAME CONSTRAINT_TYPE"
    ),
    "referential_constraints": _columns(
        "CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME UNIQUE_CONSTRAINT_CATALOG UNIQUE_CONSTRAINT_SCHEMA "
        "UNIQUE_CONSTRAINT_NAME MATCH_OPTION UPDATE_RULE DELETE_RULE TABLE_NAME REFERENCED_TABLE_NAME"
    ),
    "engines": _columns("ENGINE SUPPORT COMMENT TRANSACTIONS XA SAVEPOINTS"),
    # stored procedures (Doris's SchemaRoutinesScanner lists them): dorisql has none
    "routines": (
        *_columns(
            "SPECIFIC_NAME ROUTINE_CATALOG ROUTINE_SCHEMA ROUTINE_NAME ROUTINE_TYPE DTD_IDENTIFIER ROUTINE_BODY "
            "ROUTINE_DEFINITION EXTERNAL_NAME EXTERNAL_LANGUAGE PARAMETER_STYLE IS_DETERMINISTIC SQL_DATA_ACCESS "
            "SQL_PATH SECURITY_TYPE"
        ),
        *_columns("CREATED LAST_ALTERED", _T),
        *_columns("SQL_MODE ROUTINE_COMMENT DEFINER CHARACTER_SET_CLIENT COLLATION_CONNECTION DATABASE_COLLATION"),
    ),
    "character_sets": (*_columns("CHARACTER_SET_NAME DEFAULT_COLLATE_NAME DESCRIPTION"), ("MAXLEN", _B)),
    "collations": (
        *_columns("COLLATION_NAME CHARACTER_SET_NAME"),
        ("ID", _B),
        *_columns("IS_DEFAULT IS_COMPILED"),
        ("SORTLEN", _B),
    ),
    "user_privileges": _columns("GRANTEE TABLE_CATALOG PRIVILEGE_TYPE IS_GRANTABLE"),
    "schema_privileges": _columns("GRANTEE TABLE_CATALOG TABLE_SCHEMA PRIVILEGE_TYPE IS_GRANTABLE"),
    "table_privileges": _columns("GRANTEE TABLE_CATALOG TABLE_SCHEMA TABLE_NAME PRIVILEGE_TYPE IS_GRANTABLE"),
    "processlist": (
        ("CurrentConnected", _V),
        ("Id", _L),
        *_columns("User Host"),
        ("LoginTime", _T),
        *_columns("Catalog Db Command"),
        ("Time", _I),
        *_columns("State QueryId TraceId Info FE CloudCluster"),
    ),
}

#: Doris's `mysql` database (fe-core MysqlDBTable): (column, type) in Doris's order.
MYSQL_TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "user": (
        *_columns(
            "Host User Node_priv Admin_priv Grant_priv Select_priv Load_priv Alter_priv Create_priv Drop_priv "
            "Usage_priv Show_view_priv Cluster_usage_priv Stage_usage_priv ssl_type ssl_cipher x509_issuer "
            "x509_subject"
        ),
        *_columns("max_questions max_updates max_connections max_user_connections", _B),
        *_columns(
            "plugin authentication_string password_policy.expiration_seconds "
            "password_policy.password_creation_time password_policy.history_num "
            "password_policy.history_passwords password_policy.num_failed_login "
            "password_policy.password_lock_seconds password_policy.failed_login_counter password_policy.lock_time"
        ),
    ),
    "procs_priv": _columns("Host Db User Routine_name Routine_type Grantor Proc_priv Timestamp"),
}


#: Rows Doris's BE fills with constants (schema_charsets_scanner, schema_collations_scanner).
_CONSTANT_ROWS: dict[str, tuple[dict[str, Any], ...]] = {
    "character_sets": (
        {
            "CHARACTER_SET_NAME": "utf8mb4",
            "DEFAULT_COLLATE_NAME": "utf8mb4_0900_bin",
            "DESCRIPTION": "UTF-8 Unicode",
            "MAXLEN": 4,
        },
    ),
    "collations": (
        {
            "COLLATION_NAME": "utf8mb4_0900_bin",
            "CHARACTER_SET_NAME": "utf8mb4",
            "ID": 309,
            "IS_DEFAULT": "Yes",
            "IS_COMPILED": "Yes",
            "SORTLEN": 1,
        },
    ),
    # Doris answers these with its dummy scanner (indexes, keys and engines are not listed there),
    # and routines lists stored procedures, which dorisql does not have
    **{
        name: ()
        for name in ("statistics", "key_column_usage", "table_constraints", "referential_constraints", "engines")
    },
    "routines": (),
    "procs_priv": (),
}

#: Doris's Privilege.privInDorisToMysql: the MySQL name of each privilege (ADMIN has none).
_MYSQL_PRIVILEGE_NAMES = {
    privileges.SELECT: "SELECT",
    privileges.LOAD: "INSERT",
    privileges.ALTER: "ALTER",
    privileges.CREATE: "CREATE",
    privileges.DROP: "DROP",
}

#: What user_privileges lists for ADMIN_PRIV (Auth.getGlobalPrivStatus): every value of
#: privInDorisToMysql, USAGE twice (USAGE_PRIV and CLUSTER_USAGE_PRIV), all grantable.
_ADMIN_PRIVILEGE_NAMES = ("SELECT", "INSERT", "ALTER", "CREATE", "DROP", "USAGE", "USAGE", "SHOW VIEW")


def _grantee(user) -> str:
    return f"'{user.name}'@'{user.host}'"


def privilege_rows(session: Session, name: str) -> list[dict[str, Any]]:
    """user_privileges (grants on *.*), schema_privileges (db.*) and table_privileges (db.t) of
    every user, as Doris's Auth.get{Global,Schema,Table}PrivStatus list them: the global ones
    only to a user with a global privilege, the others for the databases / tables the session
    may see; IS_GRANTABLE is NO (dorisql has no GRANT_PRIV) except for ADMIN's."""

    visibility = Visibility.of(session)
    if name == "user_privileges" and not (
        visibility.grants is None or privileges.allowed(visibility.grants, privileges.Need(privileges.ANY))
    ):
        return []
    out: list[dict[str, Any]] = []
    for user in session.catalog.list_users():
        for grant in user.grants:
            base = {"GRANTEE": _grantee(user), "TABLE_CATALOG": "def"}
            if name == "user_privileges" and grant.db == "*":
                if privileges.ADMIN in grant.privileges:
                    out.extend({**base, "PRIVILEGE_TYPE": n, "IS_GRANTABLE": "YES"} for n in _ADMIN_PRIVILEGE_NAMES)
                    continue
                shown = [_MYSQL_PRIVILEGE_NAMES[p] for p in grant.privileges if p in _MYSQL_PRIVILEGE_NAMES]
                out.extend({**base, "PRIVILEGE_TYPE": n, "IS_GRANTABLE": "NO"} for n in shown)
            elif name == "schema_privileges" and grant.db != "*" and grant.table == "*":
                if is_information_schema(grant.db) or not visibility.database(grant.db):
                    continue
                shown = [_MYSQL_PRIVILEGE_NAMES[p] for p in grant.privileges if p in _MYSQL_PRIVILEGE_NAMES]
                out.extend({**base, "TABLE_SCHEMA": grant.db, "PRIVILEGE_TYPE": n, "IS_GRANTABLE": "NO"} for n in shown)
            elif name == "table_privileges" and grant.table != "*":
                if is_information_schema(grant.db) or not visibility.table(grant.db, grant.table):
                    continue
                shown = [_MYSQL_PRIVILEGE_NAMES[p] for p in grant.privileges if p in _MYSQL_PRIVILEGE_NAMES]
                out.extend(
                    {
                        **base,
                        "TABLE_SCHEMA": grant.db,
                        "TABLE_NAME": grant.table,
                        "PRIVILEGE_TYPE": n,
                        "IS_GRANTABLE": "NO",
                    }
                    for n in shown
                )
    return out


#: mysql.user's privilege columns -> the privilege a global grant must hold for 'Y'.
_USER_PRIVILEGE_COLUMNS = {
    "Admin_priv": privileges.ADMIN,
    "Select_priv": privileges.SELECT,
    "Load_priv": privileges.LOAD,
    "Alter_priv": privileges.ALTER,
    "Create_priv": privileges.CREATE,
    "Drop_priv": privileges.DROP,
}


def mysql_user_rows(session: Session) -> list[dict[str, Any]]:
    """mysql.user: one row per user with its global privileges as Y / N; a user without ADMIN
    sees only its own row (the passwords' hashes are never shown: Doris leaves
    authentication_string empty too)."""

    visibility = Visibility.of(session)
    me = session.user or ROOT
    out = []
    for user in session.catalog.list_users():
        if not visibility.everything and (user.name, user.host) != (me.user, me.host):
            continue
        held = {p for g in user.grants if g.db == "*" for p in g.privileges}
        row: dict[str, Any] = {column: "N" for column, _ in MYSQL_TABLES["user"][2:14]}
        row.update({column: "Y" for column, p in _USER_PRIVILEGE_COLUMNS.items() if p in held})
        row.update(
            {
                "Host": user.host,
                "User": user.name,
                "Node_priv": "Y" if user.name == "root" else "N",  # Doris's root holds NODE_PRIV
                "ssl_type": "",
                "ssl_cipher": "",
                "x509_issuer": "",
                "x509_subject": "",
                "max_questions": 0,
                "max_updates": 0,
                "max_connections": 0,
                "max_user_connections": 100,  # Doris's default max_user_connections property
                "plugin": "",
                "authentication_string": "",
                "password_policy.expiration_seconds": "0",
                "password_policy.password_creation_time": time_text(user.created_at.replace(microsecond=0)),
                "password_policy.history_num": "0",
                "password_policy.history_passwords": "",
                "password_policy.num_failed_login": "0",
                "password_policy.password_lock_seconds": "0",
                "password_policy.failed_login_counter": "0",
                "password_policy.lock_time": "",
            }
        )
        out.append(row)
    return out


def mysql_table_rows(session: Session, name: str) -> list[dict[str, Any]]:
    """The rows of mysql.`name` (lower case)."""
    if name == "user":
        return mysql_user_rows(session)
    if name in MYSQL_TABLES:
        return list(_CONSTANT_ROWS[name])
    raise UnknownTableError(f"Table [{name}] does not exist in database [{MYSQL_DB}].")


def schema_table_rows(session: Session, name: str) -> list[dict[str, Any]]:
    """The rows of information_schema.`name` (lower case), from the catalog: only the databases
    and tables the session may see (dorisql.session.visibility), as Doris's schema scanners ask the
    FE for the user's tables."""

    if name in _CONSTANT_ROWS:
        return list(_CONSTANT_ROWS[name])
    if name in ("user_privileges", "schema_privileges", "table_privileges"):
        return privilege_rows(session, name)
    if name == "processlist":
        # the server's connections (dorisql.server sets the hook); none outside a server
        return session.process_rows() if session.process_rows is not None else []
    visibility = Visibility.of(session)
    if name == "views":
        views = visibility.tables(session.catalog.list_views(), key=lambda v: (v.db, v.name))
        return [view_row(v, INTERNAL_CATALOG) for v in views]
    if name == "schemata":
        return [r for r in schema_rows(session) if visibility.database(r["SCHEMA_NAME"])]
    metas = sorted(session.catalog.list_table_metas(), key=lambda m: (m.db, m.name))
    metas = visibility.tables(metas, key=lambda m: (m.db, m.name))
    if name == "tables":
        views = visibility.tables(session.catalog.list_views(), key=lambda v: (v.db, v.name))
        columns = [c for c, _ in SCHEMA_TABLES["tables"]]
        rows = table_rows(session, metas) + [view_table_row(v, INTERNAL_CATALOG, columns) for v in views]
        rows.sort(key=lambda r: (r["TABLE_SCHEMA"], r["TABLE_NAME"]))
        return system_table_rows() + system_table_rows(MYSQL_DB) + rows
    if name == "columns":
        views = visibility.tables(session.catalog.list_views(), key=lambda v: (v.db, v.name))
        rows = column_rows(metas) + view_column_rows(views)
        rows.sort(key=lambda r: (r["TABLE_SCHEMA"], r["TABLE_NAME"]))  # stable: columns keep their order
        return rows
    if name == "partitions":
        return partition_rows(session, metas)
    raise UnknownTableError(f"Table [{name}] does not exist in database [{INFORMATION_SCHEMA}].")


def schema_table_frame(session: Session, name: str, db: str = INFORMATION_SCHEMA):
    """information_schema.`name` (or mysql.`name`) as a Spark DataFrame (what a query of it reads)."""
    from pyspark.sql.types import (
        DecimalType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    lowered = name.lower()
    tables = system_tables(db)
    if lowered not in tables:
        shown = MYSQL_DB if is_mysql_db(db) else INFORMATION_SCHEMA
        raise UnknownTableError(f"Table [{name}] does not exist in database [{shown}].")
    spark_types = {
        _V: StringType(),
        _B: LongType(),
        _I: IntegerType(),
        _T: TimestampType(),
        _L: DecimalType(38, 0),
    }
    columns = tables[lowered]
    schema = StructType([StructField(column, spark_types[kind], True) for column, kind in columns])
    source = mysql_table_rows(session, lowered) if is_mysql_db(db) else schema_table_rows(session, lowered)
    rows = [tuple(_spark_value(row.get(column), kind) for column, kind in columns) for row in source]
    return session.spark.createDataFrame(rows, schema)


def _spark_value(value: Any, kind: str) -> Any:
    return decimal.Decimal(value) if kind == _L and value is not None else value
