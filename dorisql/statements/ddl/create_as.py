"""CREATE TABLE ... AS SELECT, CREATE TABLE ... LIKE and UPDATE (the column and query rules are
in dorisql.translate.ctas_columns, pure).

CTAS commits in this order: the Delta table in a fresh id folder, the query's rows in one Delta
commit into it, then the catalog entry. Until that last step nothing names the folder: a failure
removes it, a crash leaves an orphan folder the trash job deletes, never a table without its rows
(Doris creates the table first and drops it again when the load fails; the outcome a user sees
is the same).
"""

from __future__ import annotations

import dataclasses

from dorisql import ast
from dorisql.analysis.checks import check_create_table, normalize_create_table
from dorisql.errors import AlreadyExistsError, AnalysisError, DorisqlError, LoadError
from dorisql.partitioning.keys import partition_items
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements.ddl import table_ddl as ddl
from dorisql.statements.handler import Handlers
from dorisql.statements.load import insert as dml
from dorisql.statements.load import load_jobs
from dorisql.syntax.queries import query_tables
from dorisql.translate.ctas_columns import ctas_columns, ctas_definition, query_origins, update_query


def create_table_as_select(session: Session, stmt: ast.CreateTable) -> Result:
    assert stmt.as_query is not None
    db = session.resolve_db(stmt.table.db)
    if ddl.name_taken(session, db, stmt):
        return Result.ok()
    frame, _ = dml._run_query(session, stmt.as_query)
    fields = [(f.name, f.dataType.jsonValue()) for f in frame.schema.fields]

    def columns_of(table: ast.TableName):
        return session.catalog.load_table(session.resolve_db(table.db), table.name).definition.columns

    origins = query_origins(stmt.as_query.sql, columns_of)
    if origins is not None and len(origins) != len(fields):
        origins = None
    definition = ctas_definition(
        dataclasses.replace(stmt, table=ast.TableName(stmt.table.name, db)), ctas_columns(fields, origins)
    )
    check_create_table(definition)
    definition = normalize_create_table(definition, check_first=False)
    meta = ddl.new_table_storage(session, definition, stmt)
    try:
        result, written, meta = dml.load_frame(
            session, meta, frame, list(definition.columns), (), stmt.text, listed=False
        )
        if written.committed:
            meta = _loaded(session, meta, written.partitions, written.version)
    except BaseException as exc:
        ddl.discard_table_storage(session, meta)
        if isinstance(exc, LoadError):  # CreateTableCommand: "Failed to execute CTAS Reason: ..."
            raise LoadError(f"Failed to execute CTAS Reason: {exc.message}") from None
        raise
    if not ddl.register_table(session, meta, if_not_exists=stmt.if_not_exists):
        return Result.ok()
    # Doris runs CTAS's load as an INSERT job: listed by SHOW LOAD, its label in the OK info
    return load_jobs.record_finished_load(
        session, db, meta.name, result, written.version if written.committed else None
    )


def _loaded(session: Session, meta, touched, version: int):
    """The new entry with the partitions the CTAS load wrote at VisibleVersion 2 (as after a load)."""
    now = session.now()
    keys = set(touched)
    return dataclasses.replace(
        meta,
        known_delta_version=version,
        partitions=tuple(
            dataclasses.replace(p, visible_version=p.visible_version + 1, visible_version_time=now)
            if meta.partition_key(p) in keys
            else p
            for p in meta.partitions
        ),
    )


def create_table_like(session: Session, stmt: ast.CreateTableLike) -> Result:
    """The source's definition with its live partitions and properties, no rows (Doris builds the
    source's CREATE TABLE text and runs it under the new name: InternalCatalog.createTableLike)."""

    source_db = session.resolve_db(stmt.source.db)
    try:
        source = session.catalog.load_table(source_db, stmt.source.name)
        definition = source.definition
        if definition.partition is not None:
            definition = dataclasses.replace(
                definition, partition=dataclasses.replace(definition.partition, items=partition_items(source))
            )
        created = dataclasses.replace(definition, table=stmt.table, if_not_exists=stmt.if_not_exists)
        return ddl.create_table(session, created)
    except AlreadyExistsError:
        raise
    except DorisqlError as exc:
        exc.message = f"Failed to execute CREATE TABLE LIKE {stmt.source.name}. Reason: {exc.message}"
        exc.args = (exc.message,)
        raise


def update(session: Session, stmt: ast.Update) -> Result:
    """UPDATE: the matching rows' new versions, loaded in one commit (UNIQUE keeps the latest)."""

    db = session.resolve_db(stmt.table.db)
    meta = session.catalog.load_table(db, stmt.table.name)
    for parts, _value in stmt.assignments:
        target = next((c for c in meta.definition.columns if c.name.lower() == parts[-1].lower()), None)
        if target is not None and target.generated is not None:
            raise AnalysisError(
                f"The value specified for generated column '{target.name}' in table '{meta.name}' is not allowed."
            )
    sql = update_query(stmt, meta.definition, db)
    query = ast.Query(sql=sql, tables=query_tables(sql))
    insert = ast.Insert(ast.TableName(meta.name, db), query=query, text=stmt.text)
    # the generated columns are computed again from the row's new values
    return dml.load_insert(session, insert, meta, list(meta.definition.columns))


def create_table_statement(session: Session, stmt: ast.CreateTable) -> Result:
    """CREATE TABLE, with or without AS SELECT."""
    if stmt.as_query is not None:
        return create_table_as_select(session, stmt)
    return ddl.create_table(session, stmt)


HANDLERS: Handlers = {
    ast.CreateTable: create_table_statement,
    ast.CreateTableLike: create_table_like,
    ast.Update: update,
}
