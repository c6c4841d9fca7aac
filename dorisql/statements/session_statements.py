"""Statements that change only the session or the frontend settings: USE, SET, SYNC, ADMIN SET
FRONTEND CONFIG."""

from __future__ import annotations

from dorisql import ast
from dorisql.clock import parse_now
from dorisql.errors import AnalysisError, UnknownDatabaseError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.settings import check_frontend_setting, normalize_bool
from dorisql.statements.handler import Handlers
from dorisql.statements.show.information_schema import is_system_database
from dorisql.translate.variables import check_settable


def use(session: Session, stmt: ast.Use) -> Result:
    if is_system_database(stmt.db):
        session.current_db = stmt.db.lower()
        return Result.ok(message="Database changed")
    if not session.catalog.database_exists(stmt.db):
        raise UnknownDatabaseError(f"Unknown database '{stmt.db}'")
    session.current_db = stmt.db
    return Result.ok(message="Database changed")


def set_variable(session: Session, stmt: ast.SetVariable) -> Result:
    name = stmt.name.lower().lstrip("@")
    for prefix in ("session.", "global."):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    check_settable(name)  # before anything changes: an unknown name sets nothing
    value = stmt.value.value if stmt.value.value is not None else ""
    if stmt.value.kind == "bool":
        value = value.lower()  # as Doris shows a boolean variable: true / false
    if name in ("enable_insert_strict", "allow_partition_column_nullable", "enable_short_circuit_query"):
        value = normalize_bool(name, value)
    elif name == "dorisql_now":
        if value and value.lower() not in ("", "default"):
            try:
                parse_now(value)
            except ValueError as exc:
                raise AnalysisError(f"Invalid value for dorisql_now: {exc}") from None
        else:
            value = ""
    # Other Doris variables are kept as they are: dorisql has no use for many of them, and a
    # script written for Doris that sets one must not fail.
    session.session_vars[name] = value
    return Result.ok()


def sync(session: Session, stmt: ast.Sync) -> Result:
    # Doris's SYNC waits until earlier loads are visible on every frontend; here each statement
    # is visible when it returns, so there is nothing to wait for.
    return Result.ok()


def admin_set_frontend_config(session: Session, stmt: ast.AdminSetFrontendConfig) -> Result:
    checked = {key.lower(): check_frontend_setting(key.lower(), value) for key, value in stmt.properties}
    for key, value in checked.items():
        session.catalog.set_config(key, value)
    return Result.ok()


HANDLERS: Handlers = {
    ast.Use: use,
    ast.SetVariable: set_variable,
    ast.Sync: sync,
    ast.AdminSetFrontendConfig: admin_set_frontend_config,
}
