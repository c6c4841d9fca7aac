"""Loads as Doris's load jobs: INSERT (and CTAS) under a label, SHOW LOAD, CLEAN LABEL.

Doris runs every INSERT as a load job with a label: the one given (``INSERT INTO t WITH LABEL l``)
or ``label_<hex>_<hex>`` (InsertIntoTableCommand). Its OK packet says
``{'label':'l', 'status':'VISIBLE', 'txnId':'N'}`` and SHOW LOAD lists it (Type INSERT). A label
is unique per database across Stream Loads and INSERTs: a reused one fails with
"Label [l] has already been used, relate to txn [N]".

A labelled INSERT follows Stream Load's exactly-once protocol (statements.load.stream_load,
docs/stream_load.md): the label's lock, the catalog's LOADING record, the Delta commit carrying
``dorisql.load_label``, then FINISHED. An INSERT retried after a commit whose record a crash left
LOADING finds the commit in the Delta log and answers "has already been used": never loaded twice.
An INSERT without a label cannot be retried by label, so its record is written once, FINISHED,
after its commit (best effort: a catalog that cannot write it leaves a warning, the rows stay).
A failed INSERT leaves no record (Doris lists only finished INSERT jobs) and frees its label.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from dorisql import ast, logfile
from dorisql.catalog.base import LoadRecord
from dorisql.errors import AnalysisError, CommitConflictError, UnknownDatabaseError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.session.visibility import Visibility
from dorisql.statements.handler import Handlers
from dorisql.statements.load import insert as dml
from dorisql.statements.load import transaction
from dorisql.statements.load.stream_load import (
    FINISHED,
    LABEL_KEY,
    LOADING,
    committed_version,
    label_lock,
    label_taken,
    wall_clock,
)
from dorisql.statements.show import view_definitions as views
from dorisql.statements.show.objects import _like

__all__ = ["insert_job", "record_finished_load", "show_load", "clean_label", "generated_label", "load_info"]

#: Doris's SHOW STREAM LOAD columns (ShowStreamLoadStmt.TITLE_NAMES).
STREAM_LOAD_COLUMNS = (
    "Label",
    "Db",
    "Table",
    "ClientIp",
    "Status",
    "Message",
    "Url",
    "TotalRows",
    "LoadedRows",
    "FilteredRows",
    "UnselectedRows",
    "LoadBytes",
    "StartTime",
    "FinishTime",
    "User",
    "Comment",
)
#: Doris's SHOW LOAD columns (LoadProcDir.TITLE_NAMES).
LOAD_COLUMNS = (
    "JobId",
    "Label",
    "State",
    "Progress",
    "Type",
    "EtlInfo",
    "TaskInfo",
    "ErrorMsg",
    "CreateTime",
    "EtlStartTime",
    "EtlFinishTime",
    "LoadStartTime",
    "LoadFinishTime",
    "URL",
    "JobDetails",
    "TransactionId",
    "ErrorTablets",
    "User",
    "Comment",
)


def generated_label() -> str:
    """The label of an INSERT without one: Doris's ``label_<query id hi>_<query id lo>``."""
    return f"label_{os.urandom(8).hex()}_{os.urandom(8).hex()}"


def load_info(label: str, txn_id: int) -> str:
    """The OK packet's info of a finished INSERT (OlapInsertExecutor.setReturnInfo)."""
    return f"{{'label':'{label}', 'status':'VISIBLE', 'txnId':'{txn_id}'}}"


def _label_used(label: str, txn_id: int) -> AnalysisError:
    # LabelAlreadyUsedException(TransactionState)
    return AnalysisError(f"Label [{label}] has already been used, relate to txn [{txn_id}]")


def _user(session: Session) -> str:
    return session.user.user if session.user is not None else ""


def _finished_record(record: LoadRecord, result: Result, version: int | None) -> LoadRecord:
    return dataclasses.replace(
        record,
        state=FINISHED,
        finished_at=wall_clock(),
        loaded_rows=result.affected_rows,
        total_rows=result.affected_rows,
        delta_version=version,
    )


def _as_job(result: Result, label: str, txn_id: int) -> Result:
    """The INSERT's result with Doris's info; a note it had (rows filtered) becomes a warning."""
    if result.message:
        result.warnings.insert(0, result.message)
    result.message = load_info(label, txn_id)
    return result


def record_finished_load(session: Session, db: str, table: str, result: Result, version: int | None) -> Result:
    """Record a finished unlabelled load (an INSERT without a label, CTAS) as an INSERT job and
    give its result Doris's info. Best effort: the rows are committed whatever the catalog does."""
    label = generated_label()
    try:
        record = LoadRecord(
            db, label, table, session.catalog.next_id(), LOADING, wall_clock(), user=_user(session), load_type="INSERT"
        )
        finished = _finished_record(record, result, version)
        if session.catalog.claim_load(finished) is not None:  # (a random label: cannot be held)
            raise CommitConflictError(f"label {label} is taken")
    except Exception as exc:
        logfile.record_failure(exc, shown=f"(INSERT into {db}.{table}: its load record was not written)")
        result.warnings.append("The load is committed; its record for SHOW LOAD could not be written")
        return result
    return _as_job(result, label, record.txn_id)


def insert_job(session: Session, stmt: ast.Insert) -> Result:
    """INSERT as a load job: labelled ones exactly once (the module's docstring)."""
    db = session.resolve_db(stmt.table.db)
    views.refuse_insert_into_view(session, db, stmt.table.name)
    if session.transaction is not None:  # BEGIN ... COMMIT: the transaction's label, recorded at COMMIT
        return transaction.insert(session, stmt)
    if stmt.label is None:
        written: dict[str, Any] = {}
        result = dml.insert(session, stmt, written=written)
        if not _finished(written):
            return result
        meta = written["meta"]
        return record_finished_load(session, db, meta.name, result, _version(written))
    meta = session.catalog.load_table(db, stmt.table.name)
    label = stmt.label
    try:
        lock = label_lock(session.warehouse, db, label)
        lock.__enter__()
    except CommitConflictError:  # another load holds the label right now
        running = session.catalog.get_load(db, label)
        raise _label_used(label, running.txn_id if running else 0) from None
    try:
        taken = label_taken(session, db, label)  # a finished load, or a dead one that committed
        if taken is not None:
            raise _label_used(label, taken.txn_id or 0)
        record = LoadRecord(
            db,
            label,
            meta.name,
            session.catalog.next_id(),
            LOADING,
            wall_clock(),
            user=_user(session),
            load_type="INSERT",
        )
        held = session.catalog.claim_load(record, replace_states=(LOADING, "CANCELLED"))
        if held is not None:  # (cannot happen while the lock is held)
            raise _label_used(label, held.txn_id)
        metadata = {LABEL_KEY: f"{db}/{label}", "dorisql.load_txn_id": str(record.txn_id)}
        written = {}
        try:
            result = dml.insert(session, stmt, metadata=metadata, written=written)
        except BaseException as exc:
            _failed(session, record, meta, exc)
            raise
        if not _finished(written):  # nothing to commit (no rows), or staged in BEGIN ... COMMIT
            session.catalog.forget_loads([record])
            return result
        try:
            session.catalog.update_load(_finished_record(record, result, _version(written)))
        except Exception as exc:  # committed: the record stays LOADING, the Delta log says FINISHED
            logfile.record_failure(exc, shown=f"(INSERT {db}.{label}: its record stays LOADING)")
        return _as_job(result, label, record.txn_id)
    finally:
        lock.__exit__(None, None, None)


def _finished(written: dict[str, Any]) -> bool:
    """Whether the INSERT is a finished load job: committed, or every row filtered in non-strict
    mode, which Doris commits as an empty transaction (OlapInsertExecutor: OK with the label's
    info, the filtered rows as warnings, and the job in SHOW LOAD; its label is used)."""
    return bool(written.get("committed") or written.get("all_filtered"))


def _version(written: dict[str, Any]) -> int | None:
    """The Delta version the INSERT committed (None: every row filtered, nothing committed)."""
    return written.get("version") if written.get("committed") else None


def _failed(session: Session, record: LoadRecord, meta, exc: BaseException) -> None:
    """A labelled INSERT failed: its record goes (the label is free again) once the Delta log
    shows it did not commit; one that did commit is FINISHED (a retry answers "has already been
    used"). A log that cannot be read keeps the record LOADING for the next INSERT with the label."""
    try:
        version = committed_version(session, record, meta)
        if version is None:
            session.catalog.forget_loads([record])
        else:
            session.catalog.update_load(dataclasses.replace(record, state=FINISHED, delta_version=version))
    except Exception as unknown:
        logfile.record_failure(unknown, shown=f"(INSERT {record.db}.{record.label}: its record stays LOADING; {exc})")


# ---------------------------------------------------------------------- SHOW LOAD, CLEAN LABEL


def _time(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value is not None else "NULL"


def _load_matches(predicate: ast.Predicate | None, record: LoadRecord, status: str) -> bool:
    if predicate is None:
        return True
    if isinstance(predicate, ast.BoolOp):
        results = (_load_matches(item, record, status) for item in predicate.items)
        return all(results) if predicate.op == "AND" else any(results)
    values = {"label": record.label, "state": record.state, "status": status, "table": record.table}
    key = predicate.column.lower()
    if key not in values or predicate.op not in ("=", "LIKE", "!=", "<>"):
        raise AnalysisError(
            f'Where clause should looks like: LABEL = "your_load_label", or LABEL LIKE "matcher", '
            f'or STATE = "PENDING|ETL|LOADING|FINISHED|CANCELLED"; found {predicate.column} {predicate.op}'
        )
    wanted = str(predicate.value.value)
    if predicate.op == "LIKE":
        return _like(wanted, values[key])
    same = values[key].lower() == wanted.lower() if key in ("state", "status") else values[key] == wanted
    return same if predicate.op == "=" else not same


def _stream_row(r: LoadRecord, status: str) -> tuple[Any, ...]:
    return (
        r.label,
        r.db,
        r.table,
        r.client_ip,
        status,
        r.message or "OK",
        r.error_url or "N/A",
        r.total_rows,
        r.loaded_rows,
        r.filtered_rows,
        r.unselected_rows,
        r.load_bytes,
        _time(r.created_at),
        _time(r.finished_at),
        r.user,
        "",
    )


def _load_row(r: LoadRecord) -> tuple[Any, ...]:
    insert = r.load_type == "INSERT"
    etl = (
        "NULL"
        if insert
        else f"unselected.rows={r.unselected_rows}; dpp.abnorm.ALL={r.filtered_rows}; dpp.norm.ALL={r.loaded_rows}"
    )
    # (InsertLoadJob: the insert_timeout, 4 hours; a Stream Load's default timeout 600 s)
    task = f"cluster:N/A; timeout(s):{14400 if insert else 600}; max_filter_ratio:0.0"
    return (
        r.txn_id,
        r.label,
        r.state,
        "100.00% (1/1)" if r.state == "FINISHED" else "0.00% (0/1)",
        r.load_type,
        etl,
        task,
        r.message if r.state == "CANCELLED" else "NULL",
        _time(r.created_at),
        _time(r.created_at),
        _time(r.finished_at),
        _time(r.created_at),
        _time(r.finished_at),
        r.error_url or "NULL",
        "{}",
        r.txn_id,
        "{}",
        r.user,
        "",
    )


def _order_index(columns: tuple[str, ...], name: str) -> int:
    for i, column in enumerate(columns):
        if column.lower() == name.lower():
            return i
    raise AnalysisError(f"Title name[{name}] does not exist")


def show_load(session: Session, stmt: ast.ShowLoad) -> Result:
    """SHOW [STREAM] LOAD: the loads the session may see (dorisql.session.visibility: its own,
    or into tables it may LOAD, as Doris's LoadManager.getLoadJobInfosByDb; ADMIN all), newest
    first unless ORDER BY says otherwise. SHOW STREAM LOAD lists the Stream Loads only."""

    db = session.resolve_db(stmt.db)
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    columns = STREAM_LOAD_COLUMNS if stmt.stream else LOAD_COLUMNS
    order = [(_order_index(columns, item.column), item.descending) for item in stmt.order_by]
    visibility = Visibility.of(session)
    rows: list[tuple[Any, ...]] = []
    for r in session.catalog.list_loads(db):
        if not visibility.load(r) or (stmt.stream and r.load_type != "STREAM_LOAD"):
            continue
        status = "Success" if r.state == "FINISHED" else "Fail" if r.state == "CANCELLED" else "Loading"
        if _load_matches(stmt.where, r, status):
            rows.append(_stream_row(r, status) if stmt.stream else _load_row(r))
    for index, descending in reversed(order):
        rows.sort(key=lambda row: (row[index] is None, row[index]), reverse=descending)
    start = stmt.offset or 0
    rows = rows[start : start + stmt.limit] if stmt.limit is not None else rows[start:]
    return Result.table(columns, rows)


def clean_label(session: Session, stmt: ast.CleanLabel) -> Result:
    """CLEAN LABEL [label] FROM db: forget the finished and failed loads' labels (one, or all of
    the database's), so they may be used again (Doris's LoadManager.cleanLabel). A running load
    keeps its label."""
    db = session.resolve_db(stmt.db)
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    done = [
        r for r in session.catalog.list_loads(db) if r.state != LOADING and (not stmt.label or r.label == stmt.label)
    ]
    session.catalog.forget_loads(done)
    return Result.ok()


HANDLERS: Handlers = {
    ast.Insert: insert_job,
    ast.ShowLoad: show_load,
    ast.CleanLabel: clean_label,
}
