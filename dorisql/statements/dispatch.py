"""One table from statement type to handler, and the checks every statement passes before its
handler runs (information_schema read-only, a read-only warehouse, the user's privileges) and
after it (what the user may see). Failures of any other kind become dorisql errors here
(session.failures), so no Python exception reaches a front door."""

from __future__ import annotations

import time

from dorisql import ast, logfile
from dorisql.errors import AnalysisError, CancelledError, DorisqlError, NotSupportedError, ReadOnlyWarehouseError
from dorisql.result import Result
from dorisql.session import failures
from dorisql.session.access import authorize, filter_result
from dorisql.session.session import Session
from dorisql.statements import hints, session_statements
from dorisql.statements.admin import check_table, compact, users
from dorisql.statements.ddl import colocation_groups, create_as, table_ddl, views
from dorisql.statements.handler import Handler, Handlers
from dorisql.statements.load import delete, insert, load_jobs, transaction
from dorisql.statements.show import client_metadata, objects
from dorisql.statements.show.information_schema import is_system_database
from dorisql.syntax.cancel import cancellable

HANDLERS: Handlers = {
    **session_statements.HANDLERS,
    **table_ddl.HANDLERS,
    **objects.HANDLERS,
    **client_metadata.HANDLERS,
    **insert.HANDLERS,
    **load_jobs.HANDLERS,
    **check_table.HANDLERS,
    **colocation_groups.HANDLERS,
    **compact.HANDLERS,
    **delete.HANDLERS,
    **create_as.HANDLERS,
    **users.HANDLERS,
    **transaction.HANDLERS,
    **views.HANDLERS,
}


def handler_of(statement: ast.Statement) -> Handler:
    handler = HANDLERS.get(type(statement))
    if handler is None:
        raise NotSupportedError(type(statement).__name__)
    return handler


def run(session: Session, statement: ast.Statement) -> Result:
    """Run one statement in `session`: checked, cancellable, its failures translated."""
    handler = handler_of(statement)
    failures.refuse_invalid_utf8(statement.text)
    if not statement.reads_only:
        _refuse_information_schema(session, statement)
    if session.catalog.read_only and not statement.reads_only:
        raise ReadOnlyWarehouseError(session.warehouse)
    if session.user is not None:
        authorize(session.catalog, session.user, statement, session.current_db)
    transaction.check_in_transaction(session, statement)  # BEGIN ... COMMIT: INSERTs only
    started = time.perf_counter()
    with session.running_statement():
        logfile.capture_spark_logs()
        try:
            # dorisql's own loops stop on cancel() too; SET_VAR hints hold for this statement only
            with cancellable(session.check_cancelled), hints.statement_variables(session, statement):
                result = handler(session, statement)
        except DorisqlError:
            raise
        except KeyboardInterrupt:
            session.cancel()
            raise CancelledError() from None
        except Exception as exc:  # a Spark or storage failure: report it, never crash the shell
            if session.cancelled:
                raise CancelledError() from exc
            raise failures.translate(exc, warehouse=session.warehouse, statement=statement.text) from exc
    if session.user is not None:
        result = filter_result(session.catalog, session.user, statement, result, session.current_db)
    result.elapsed = time.perf_counter() - started
    return result


def _refuse_information_schema(session: Session, stmt: ast.Statement) -> None:
    """information_schema and mysql are read-only: Doris refuses a change to them as an access error."""
    if isinstance(stmt, (ast.CreateDatabase, ast.DropDatabase, ast.RecoverDatabase)):
        db: str | None = stmt.name
    else:
        table = getattr(stmt, "table", None)
        db = (table.db or session.current_db) if isinstance(table, ast.TableName) else None
    if db is None or not is_system_database(db):
        return
    name = db.lower()
    if isinstance(stmt, ast.CreateDatabase):  # Doris: ERR_DB_CREATE_EXISTS
        if stmt.if_not_exists:
            return
        err = AnalysisError(f"Can't create database '{name}'; database exists")
        err.code, err.sqlstate = 1007, "HY000"
        raise err
    # Doris: ERR_DBACCESS_DENIED_ERROR
    identity = getattr(session, "user", None)  # an ast.UserIdentity, None for the local root
    user = identity.user if identity is not None else "root"
    err = AnalysisError(f"Access denied for user '{user}'@'%' to database '{name}'")
    err.code, err.sqlstate = 1044, "42000"
    raise err
