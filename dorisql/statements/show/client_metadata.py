"""The metadata MySQL clients and tools ask for: SHOW [FULL] COLUMNS, SHOW TABLE STATUS, SHOW FULL
TABLES, SHOW VARIABLES, SHOW WARNINGS / ERRORS, SHOW FRONTENDS / BACKENDS, and the read-only
``information_schema`` and ``mysql`` databases.

Column names and shapes are Doris's (fe-core: ShowColumnStmt, ShowTableStatusStmt,
ShowVariablesStmt, FrontendsProcNode, BackendsProcDir, catalog/SchemaTable.java). Everything here
is read from the catalog and the Delta logs (row counts and sizes); only a query of
``information_schema`` needs Spark, which reads a small DataFrame built from these rows.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from dorisql import ast
from dorisql.analysis import indexes
from dorisql.errors import AnalysisError, UnknownDatabaseError, UnknownTableError
from dorisql.result import Result, time_text
from dorisql.session.session import Session
from dorisql.session.visibility import Visibility
from dorisql.statements.handler import Handlers
from dorisql.statements.show.deployment import show_backends, show_frontends
from dorisql.statements.show.information_schema import (
    SHOWN_COLUMN_TYPES,
    column_type_text,
    database_names,
    default_text,
    is_information_schema,
    is_system_database,
    system_table_rows,
    system_tables,
    table_rows,
)
from dorisql.statements.show.objects import _like, load_meta, shown_hidden_columns
from dorisql.statements.show.objects import describe as describe_table
from dorisql.translate.variables import SessionIdentity, all_variables


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


# ---------------------------------------------------------------------- catalog rows


# ---------------------------------------------------------------------- SHOW statements


def show_databases(session: Session, stmt: ast.ShowDatabases) -> Result:
    """The databases the session may see (information_schema: everyone)."""

    visibility = Visibility.of(session)
    names = [n for n in database_names(session) if _like(stmt.like, n) and visibility.database(n)]
    return Result.table(["Database"], [(n,) for n in names])


def _table_names(session: Session, db: str) -> list[tuple[str, str]]:
    """(name, Table_type) of the database's tables the session may see. Doris's SHOW TABLES
    checks no database privilege (a grant on one table shows that table) and lists only the
    tables the user holds a privilege on: nothing, for a database it cannot see."""

    if is_system_database(db):
        return [(n, "SYSTEM VIEW") for n in sorted(system_tables(db))]
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    kinds = {n: "BASE TABLE" for n in session.catalog.list_tables(db)}
    kinds.update((v.name, "VIEW") for v in session.catalog.list_views(db))  # one namespace
    names = Visibility.of(session).tables(sorted(kinds), key=lambda n: (db, n))
    return [(n, kinds[n]) for n in names]


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
    if is_system_database(db):
        source = system_table_rows(db.lower())
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
    plain: list[tuple] = []  # Field, Type, Null, Key, Default, Extra
    full: list[tuple] = []  # with Collation, Privileges and Comment
    if is_system_database(db):
        columns = system_tables(db).get(stmt.table.name.lower())
        if columns is None:
            raise UnknownTableError(f"Table [{stmt.table.name}] does not exist in database [{db}].")
        plain = [(c, SHOWN_COLUMN_TYPES[k], "YES", "NO", None, "") for c, k in columns]
        full = [(c, t, "", n, k, d, e, "", "") for c, t, n, k, d, e in plain]
    elif (view := session.catalog.get_view(db, stmt.table.name)) is not None:
        # a view's output columns (pydoris's get_columns reads them here): no key, default or extra
        for v in view.columns:
            plain.append((v.name, column_type_text(v.type), "YES" if v.nullable else "NO", "NO", None, ""))
            full.append((*plain[-1][:2], "", *plain[-1][2:], "", v.comment or ""))
    else:
        meta = load_meta(session, ast.TableName(stmt.table.name, db))
        keys = set(meta.definition.keys.columns) if meta.definition.keys else set()
        for c in (*meta.definition.columns, *shown_hidden_columns(session, meta.definition)):
            shown = (
                c.name,
                column_type_text(c.type),
                "YES" if c.nullable else "NO",
                "YES" if c.name in keys else "NO",
                default_text(c),
                c.agg_type or "",
            )
            plain.append(shown)
            full.append((*shown[:2], "", *shown[2:], "", c.comment or ""))
    if stmt.full:
        names = ["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"]
        return _filtered(names, full, stmt.like, stmt.where)
    return _filtered(["Field", "Type", "Null", "Key", "Default", "Extra"], plain, stmt.like, stmt.where)


def show_index(session: Session, stmt: ast.ShowIndex) -> Result:
    """SHOW INDEX | INDEXES | KEYS FROM t (Doris ShowIndexCommand): one row per index recorded
    with the table (CREATE INDEX, ADD INDEX, INDEX in CREATE TABLE); none built here."""
    db = session.resolve_db(stmt.table.db)
    if is_information_schema(db):
        return Result.table(indexes.SHOW_INDEX_COLUMNS, [])
    meta = load_meta(session, ast.TableName(stmt.table.name, db))
    return Result.table(indexes.SHOW_INDEX_COLUMNS, indexes.index_rows(meta.name, meta.definition))


def describe(session: Session, stmt: ast.Describe) -> Result:
    """DESC of an information_schema table: its columns as SHOW COLUMNS shows them; DESC of a
    dorisql table as before (statements.show.objects)."""

    if not is_system_database(stmt.table.db or session.current_db) or stmt.all:
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
        charsets = [("utf8mb4", "UTF-8 Unicode", "utf8mb4_0900_bin", 4)]
        return _filtered(["Charset", "Description", "Default collation", "Maxlen"], charsets, stmt.like, stmt.where)
    collations = [("utf8mb4_0900_bin", "utf8mb4", 309, "Yes", "Yes", 1)]
    return _filtered(
        ["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"], collations, stmt.like, stmt.where
    )


# ---------------------------------------------------------------------- the deployment


HANDLERS: Handlers = {
    ast.ShowDatabases: show_databases,
    ast.ShowTables: show_tables,
    ast.ShowColumns: show_columns,
    ast.ShowIndex: show_index,
    ast.ShowTableStatus: show_table_status,
    ast.ShowVariables: show_variables,
    ast.ShowWarnings: show_warnings,
    ast.ShowFrontends: show_frontends,
    ast.ShowBackends: show_backends,
    ast.SetNames: set_names,
    ast.Describe: describe,
    ast.ShowCollation: show_collation,
}
