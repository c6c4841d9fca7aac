"""How a view is shown: SHOW CREATE VIEW's text and shape (also SHOW CREATE TABLE on a view),
DESC on a view, and Doris's error for a table statement naming a view (dorisql.statements.ddl.views
has the statements)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dorisql.catalog.model import ViewMeta
from dorisql.errors import AnalysisError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.syntax.generator import column_type_sql, quote_name, quote_single

__all__ = [
    "VIEW_COLUMNS",
    "wrong_object",
    "refuse_wrong_object",
    "refuse_insert_into_view",
    "refuse_alter_view",
    "create_view_sql",
    "show_create_view_result",
    "describe_view",
    "view_table_row",
    "view_row",
]

#: SHOW CREATE VIEW (and SHOW CREATE TABLE on a view): ShowCreateViewCommand's columns.
VIEW_COLUMNS = ["View", "Create View", "character_set_client", "collation_connection"]
#: What Doris reports for every view's client character set and collation.
VIEW_CHARSET, VIEW_COLLATION = "utf8mb4", "utf8mb4_0900_bin"


def wrong_object(db: str, name: str, expected: str, actual: str) -> AnalysisError:
    """ERR_WRONG_OBJECT (1347) with InternalCatalog's hint: DROP TABLE on a view and back."""
    err = AnalysisError(f"'{db}.{name}' is not {expected}. Use 'DROP {actual} {db}.{name}'.")
    err.code, err.sqlstate = 1347, "HY000"
    return err


def refuse_wrong_object(session: Session, db: str, name: str) -> None:
    """DROP TABLE (and other table statements) on a view: Doris's 'is not TABLE' error."""
    if session.catalog.get_view(db, name) is not None:
        raise wrong_object(db, name, "TABLE", "VIEW")


def refuse_insert_into_view(session: Session, db: str, name: str) -> None:
    """INSERT into a view: Doris binds an INSERT's sink to an OLAP table only (BindSink)."""
    if session.catalog.get_view(db, name) is not None:
        raise AnalysisError("the target table of insert into is not an OLAP table")


def refuse_alter_view(session: Session, db: str, name: str, *, replaced_with: bool = False) -> None:
    """ALTER TABLE on a view (Alter.processAlterTable: no case for VIEW), or a view named by
    REPLACE WITH TABLE (getTableOrMetaException with the OLAP table types)."""
    if session.catalog.get_view(db, name) is None:
        return
    if replaced_with:
        raise AnalysisError(f"Type of {name} doesn't match, expected data tables=[OLAP, MATERIALIZED_VIEW]")
    raise AnalysisError(f"Do not support alter VIEW table[{name}]")


def create_view_sql(view: ViewMeta) -> str:
    """Doris's SHOW CREATE VIEW text: CREATE VIEW `v` [(columns)] [COMMENT '...'] AS <query>."""
    head = f"CREATE VIEW {quote_name(view.name)}"
    if view.named_columns:
        items = []
        for c in view.columns:
            comment = f" COMMENT {quote_single(c.comment)}" if c.comment else ""
            items.append(f"{quote_name(c.name)}{comment}")
        head += " (" + ", ".join(items) + ")"
    if view.comment:
        head += f" COMMENT {quote_single(view.comment)}"
    return f"{head} AS {view.query}"


def show_create_view_result(view: ViewMeta) -> Result:
    return Result.table(VIEW_COLUMNS, [(view.name, create_view_sql(view), VIEW_CHARSET, VIEW_COLLATION)])


def describe_view(view: ViewMeta) -> Result:
    """DESC v: a view's columns as DESC prints a table's (no key; no default; no aggregation)."""
    rows = [(c.name, column_type_sql(c.type), "Yes" if c.nullable else "No", "false", None, "") for c in view.columns]
    return Result.table(["Field", "Type", "Null", "Key", "Default", "Extra"], rows)


def view_table_row(view: ViewMeta, catalog_name: str, columns: Iterable[str]) -> dict[str, Any]:
    """A view's information_schema.tables row: TABLE_TYPE VIEW (how dbt tells it from a table)."""
    return {
        **{c: None for c in columns},
        "TABLE_CATALOG": catalog_name,
        "TABLE_SCHEMA": view.db,
        "TABLE_NAME": view.name,
        "TABLE_TYPE": "VIEW",
        "TABLE_ROWS": 0,
        "AVG_ROW_LENGTH": 0,
        "DATA_LENGTH": 0,
        "CREATE_TIME": view.created_at.replace(microsecond=0),
        "UPDATE_TIME": (view.updated_at or view.created_at).replace(microsecond=0),
        "CREATE_OPTIONS": "",
        "TABLE_COMMENT": view.comment,
    }


def view_row(view: ViewMeta, catalog_name: str) -> dict[str, Any]:
    """A view's information_schema.views row."""
    return {
        "TABLE_CATALOG": catalog_name,
        "TABLE_SCHEMA": view.db,
        "TABLE_NAME": view.name,
        "VIEW_DEFINITION": view.query,
        "CHECK_OPTION": "NONE",
        "IS_UPDATABLE": "NO",
        "DEFINER": "",
        "SECURITY_TYPE": "",
        "CHARACTER_SET_CLIENT": VIEW_CHARSET,
        "COLLATION_CONNECTION": VIEW_COLLATION,
    }
