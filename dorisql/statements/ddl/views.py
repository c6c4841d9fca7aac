"""Views: CREATE [OR REPLACE] VIEW, ALTER VIEW, DROP VIEW, SHOW CREATE VIEW, and a view's DESC
and SHOW CREATE TABLE, as Doris has them (CreateViewCommand, AlterViewCommand, DropTableCommand
with isView, ShowCreateViewCommand).

A view is its query as written (catalog.model.ViewMeta, the catalog's ``views`` rows), checked
at CREATE / ALTER by planning it (its tables and columns must resolve; the output columns and
their Doris types are kept for DESC and information_schema) and expanded by the planner as a
derived table wherever it is read (dorisql.query.planner.expand_views). Views and tables share
one namespace per database. A view has no storage: DROP VIEW removes the row, nothing else.
"""

from __future__ import annotations

from dorisql import ast
from dorisql.catalog.model import ViewColumn, ViewMeta
from dorisql.errors import AlreadyExistsError, AnalysisError, UnknownDatabaseError, UnknownTableError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.handler import Handlers
from dorisql.statements.load import insert as dml
from dorisql.statements.show.view_definitions import show_create_view_result, wrong_object
from dorisql.translate.ctas_columns import doris_type, query_origins
from dorisql.types import canonical

__all__ = ["HANDLERS"]


def _checked_columns(session: Session, db: str, stmt: ast.CreateView) -> tuple[ViewColumn, ...]:
    """Plan the query as the view will run it (its unqualified tables in `db`): every table and
    column must resolve. Its output columns, renamed by the column list."""
    query = stmt.query
    saved = session.current_db
    session.current_db = db  # the view's names are in its own database, also when read later
    try:
        frame, _ = dml._run_query(session, query)

        def columns_of(table: ast.TableName):
            return session.catalog.load_table(session.resolve_db(table.db), table.name).definition.columns

        try:
            origins = query_origins(query.sql, columns_of)
        except Exception:  # (a view or unknown name among them: the types come from Spark)
            origins = None
    finally:
        session.current_db = saved
    fields = frame.schema.fields
    if origins is not None and len(origins) != len(fields):
        origins = None
    if stmt.columns and len(stmt.columns) != len(fields):
        err = AnalysisError("View's SELECT and view's field list have different column counts")
        err.code = 1353  # ERR_VIEW_WRONG_LIST
        raise err
    columns = []
    for i, f in enumerate(fields):
        origin = origins[i] if origins else None
        if origin is not None:
            data_type, nullable = canonical(origin.type), origin.nullable is not False
        else:
            data_type, nullable = doris_type(f.dataType.jsonValue()), True
        named = stmt.columns[i] if stmt.columns else None
        columns.append(
            ViewColumn(named.name if named else f.name, data_type, nullable, named.comment if named else None)
        )
    seen: set[str] = set()
    for c in columns:
        if c.name.lower() in seen:
            err = AnalysisError(f"Duplicate column name '{c.name}'")
            err.code = 1060
            raise err
        seen.add(c.name.lower())
    return tuple(columns)


def create_view(session: Session, stmt: ast.CreateView) -> Result:
    db = session.resolve_db(stmt.table.db)
    catalog = session.catalog
    if not catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    name = stmt.table.name
    if stmt.alter:  # AlterViewCommand: the view must exist, and be a view
        if catalog.get_view(db, name) is None:
            if catalog.table_exists(db, name):
                err = AnalysisError(f"'{db}.{name}' is not VIEW")
                err.code = 1347
                raise err
            raise UnknownTableError(f"Unknown table '{name}'")
    elif stmt.if_not_exists and (catalog.table_exists(db, name) or catalog.get_view(db, name) is not None):
        return Result.ok()
    elif not stmt.or_replace and (catalog.table_exists(db, name) or catalog.get_view(db, name) is not None):
        raise AlreadyExistsError(f"Table '{name}' already exists")
    columns = _checked_columns(session, db, stmt)
    view = ViewMeta(
        id=0,
        db=db,
        name=name,
        query=stmt.query.sql,
        columns=columns,
        named_columns=bool(stmt.columns),
        comment=stmt.comment or "",
        created_at=session.now(),
    )
    replacing = stmt.or_replace or stmt.alter
    if stmt.alter:
        old = catalog.get_view(db, name)
        if old is not None and stmt.comment is None:
            view = ViewMeta(**{**view.__dict__, "comment": old.comment})
    catalog.create_view(view, or_replace=replacing, if_not_exists=stmt.if_not_exists)
    return Result.ok()


def drop_view(session: Session, stmt: ast.DropView) -> Result:
    db = session.resolve_db(stmt.table.db)
    name = stmt.table.name
    if session.catalog.get_view(db, name) is None and session.catalog.table_exists(db, name):
        raise wrong_object(db, name, "VIEW", "TABLE")
    session.catalog.drop_view(db, name, if_exists=stmt.if_exists)
    return Result.ok()


def show_create_view(session: Session, stmt: ast.ShowCreateView) -> Result:
    db = session.resolve_db(stmt.table.db)
    view = session.catalog.get_view(db, stmt.table.name)
    if view is None:
        if session.catalog.table_exists(db, stmt.table.name):
            err = AnalysisError(f"'{db}.{stmt.table.name}' is not VIEW")
            err.code = 1347
            raise err
        if not session.catalog.database_exists(db):
            raise UnknownDatabaseError(f"Unknown database '{db}'")
        raise UnknownTableError(f"Unknown table '{stmt.table.name}'")
    return show_create_view_result(view)


HANDLERS: Handlers = {
    ast.CreateView: create_view,
    ast.DropView: drop_view,
    ast.ShowCreateView: show_create_view,
}
