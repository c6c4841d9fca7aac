"""BEGIN / START TRANSACTION [WITH LABEL l], COMMIT, ROLLBACK (Doris's explicit transactions).

Between BEGIN and COMMIT an INSERT writes its files without committing them; COMMIT makes every
table's rows visible at once (dorisql.tablets.transactions: the intent, the Delta commits, what
happens after a crash); ROLLBACK, or the connection's end, deletes them. As in Doris 2.1:
inside a transaction only INSERT, COMMIT and ROLLBACK run (Doris's message for anything else);
its INSERTs write tables of one database, and are either all INSERT ... VALUES or all INSERT ...
SELECT. An INSERT inside does not see the transaction's own rows, nor does anyone before COMMIT.
"""

from __future__ import annotations

import dataclasses
import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path

from dorisql import ast, logfile
from dorisql.catalog.base import LoadRecord
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, NotSupportedError, UnknownDatabaseError
from dorisql.result import Result
from dorisql.session.committed import after_commit
from dorisql.session.session import OpenTransaction, Session, TransactionPart
from dorisql.statements.ddl.partitions import bump_versions
from dorisql.statements.handler import Handlers
from dorisql.statements.load import insert as dml
from dorisql.statements.load.stream_load import FINISHED, wall_clock
from dorisql.tablets import transactions
from dorisql.tablets.deletes import DeleteVersion

__all__ = ["HANDLERS", "TRANSACTION_COLUMNS", "check_in_transaction", "insert", "show_transaction", "staged_delete"]

#: Doris's refusal of another statement inside a transaction (StmtExecutor).
ONLY_INSERT = "This is in a transaction, only insert, update, delete, commit, rollback is acceptable."


def _status(txn: OpenTransaction, status: str, txn_id: bool = True) -> str:
    """Doris's OK message of a transaction statement."""
    return f"{{'label':'{txn.label}', 'status':'{status}', 'txnId':'{txn.txn_id if txn_id else ''}'}}"


def begin(session: Session, stmt: ast.Begin) -> Result:
    if session.transaction is not None:  # Doris keeps the open one
        return Result.ok(message=_status(session.transaction, "PREPARE"))
    label = stmt.label or f"txn_insert_{uuid.uuid4().hex[:16]}-{uuid.uuid4().hex[:16]}"
    session.transaction = OpenTransaction(label=label, txn_id=session.catalog.next_id())
    return Result.ok(message=_status(session.transaction, "PREPARE", txn_id=False))


def insert(session: Session, stmt: ast.Insert) -> Result:
    """An INSERT inside the transaction: its rows staged for COMMIT, its answer Doris's
    ``{'label':..., 'status':'PREPARE', 'txnId':...}`` (OlapTxnInsertExecutor: the
    transaction's label; an INSERT naming another label is refused, and a transaction whose
    label a finished load holds fails at its first INSERT, as Doris's beginTransaction)."""
    txn = session.transaction
    assert txn is not None
    if stmt.label is not None and stmt.label != txn.label:
        raise AnalysisError(
            f"begin transaction failed. Transaction insert expect label {txn.label}, but got {stmt.label}"
        )
    if not txn.parts:
        held = session.catalog.get_load(session.resolve_db(stmt.table.db), txn.label)
        if held is not None and held.state == FINISHED:
            raise AnalysisError(
                f"begin transaction failed. Label [{txn.label}] has already been used, relate to txn [{held.txn_id}]"
            )
    result = dml.insert(session, dataclasses.replace(stmt, label=None))
    if result.message:  # (a note: rows filtered)
        result.warnings.insert(0, result.message)
    result.message = _status(txn, "PREPARE")
    return result


def staged_delete(session: Session, meta: TableMeta, deleted: DeleteVersion, rows: int = 0) -> Result:
    """A DELETE inside the transaction: its delete version kept for COMMIT (committed before the
    table's INSERTs, as Doris requires them first), Doris's PREPARE info."""
    txn = session.transaction
    assert txn is not None
    transactions.enlist_delete(session, meta, deleted, f"DELETE WHERE {deleted.predicate}")
    return Result.ok(rows, message=_status(txn, "PREPARE"))


def _record_load(session: Session, txn: OpenTransaction) -> None:
    """The committed transaction as a finished INSERT load under its label (SHOW LOAD; a later
    BEGIN WITH LABEL of it fails). Best effort: the transaction is committed whatever happens."""
    if txn.db is None or not txn.parts:
        return
    rows = sum(e.num_records or 0 for part in txn.parts.values() for staged in part.staged for e in staged.entries)
    now = wall_clock()
    tables = ",".join(sorted(part.meta.name for part in txn.parts.values()))
    user = session.user.user if session.user is not None else ""
    record = LoadRecord(txn.db, txn.label, tables, txn.txn_id, FINISHED, now, now, user, "INSERT", rows, rows)
    try:
        session.catalog.claim_load(record)
    except Exception as exc:
        logfile.record_failure(exc, shown=f"(transaction {txn.label}: its record for SHOW LOAD was not written)")


def commit(session: Session, stmt: ast.Commit) -> Result:
    txn, session.transaction = session.transaction, None  # whatever happens, it is over
    if txn is None:  # autocommit: every statement committed already
        return Result.ok()
    try:
        versions = transactions.commit(session, txn)
    except Exception:
        if not _committed(session, txn):
            raise
        # The intent is durable: the transaction has happened; the next reader finishes it.
        _record_load(session, txn)
        result = Result.ok(message=_status(txn, "COMMITTED"))
        result.warnings.append(
            "The transaction is committed; some of its tables become visible when next read or loaded"
        )
        return result
    result = Result.ok(message=_status(txn, "VISIBLE"))
    _record_load(session, txn)
    for table_id, version in versions.items():
        warning = after_commit("The transaction", version, _recorder(session, txn.parts[table_id], version))
        if warning:
            result.warnings.append(warning)
    return result


def _recorder(session: Session, part: TransactionPart, version: int) -> Callable[[], object]:
    """After a table's commit: its loaded partitions' versions in the catalog (as a load's)."""
    touched = {e.partition for staged in part.staged for e in staged.entries}
    for deleted in part.deletes:  # (None: every partition)
        touched |= deleted.partitions or set(part.meta.partition_keys().values())
    names = [p.name for p in part.meta.partitions if part.meta.partition_key(p) in touched]
    return lambda: bump_versions(session, part.meta, names, delta_version=version)


def _committed(session: Session, txn: OpenTransaction) -> bool:
    try:
        return any(held == str(txn.txn_id) for held, _ in session.catalog.txn_intents())
    except Exception:
        return False


def rollback(session: Session, stmt: ast.Rollback) -> Result:
    txn, session.transaction = session.transaction, None
    if txn is None:
        return Result.ok()
    txn.discard()
    return Result.ok(message=_status(txn, "ABORTED"))


def check_in_transaction(session: Session, stmt: ast.Statement) -> None:
    """Inside a transaction: only INSERT, COMMIT and ROLLBACK (and BEGIN, which keeps it), and
    the INSERTs into one database, all of one kind (Doris 2.1's rules and messages)."""
    txn = session.transaction
    if txn is None or isinstance(stmt, (ast.Begin, ast.Commit, ast.Rollback)):
        return
    if isinstance(stmt, ast.Update):
        # An UPDATE is a read plus a load of the changed rows: not staged yet (docs/storage.md).
        raise NotSupportedError(
            "UPDATE inside a transaction (only INSERT and DELETE); run it before BEGIN or after COMMIT"
        )
    if not isinstance(stmt, (ast.Insert, ast.Delete)):
        raise AnalysisError(ONLY_INSERT)
    db = session.resolve_db(stmt.table.db)
    if txn.db is not None and db.lower() != txn.db.lower():
        raise AnalysisError("Transaction insert must be in the same database")
    # (a DELETE goes with INSERT ... SELECT, as Doris's transaction.md says)
    kind = "values" if isinstance(stmt, ast.Insert) and stmt.rows is not None else "select"
    if txn.kind is not None and kind != txn.kind:
        raise AnalysisError("Transaction insert can not insert into values and insert into select at the same time")
    if isinstance(stmt, ast.Delete):
        meta = session.catalog.load_table(db, stmt.table.name)
        part = txn.parts.get(meta.id)
        if part is not None and part.staged:  # its delete version would come after those rows
            raise AnalysisError("Can not delete because there is a insert operation for the same table")
    txn.db, txn.kind = db, kind


#: ShowTransactionCommand's columns (TransProcDir.TITLE_NAMES).
TRANSACTION_COLUMNS = (
    "TransactionId",
    "Label",
    "Coordinator",
    "TransactionStatus",
    "LoadJobSourceType",
    "PrepareTime",
    "PreCommitTime",
    "CommitTime",
    "PublishTime",
    "FinishTime",
    "Reason",
    "ErrorReplicasCount",
    "ListenerId",
    "TimeoutMs",
    "ErrMsg",
)
_WHERE_SHAPE = (
    "Where clause should looks like one of them: id = 123 or label =/like 'label' "
    "or status = 'prepare/precommitted/committed/visible/aborted'"
)
_STATUSES = ("PREPARE", "PRECOMMITTED", "COMMITTED", "VISIBLE", "ABORTED")


def show_transaction(session: Session, stmt: ast.ShowTransaction) -> Result:
    """SHOW TRANSACTION [FROM db] WHERE id = N | label = 'l' | label LIKE 'l%' | status = 's'
    (ShowTransactionCommand, ADMIN): the transactions of the database's labelled loads (Stream
    Load, INSERT, an explicit transaction's COMMIT; PREPARE while loading, VISIBLE, ABORTED) and
    the committed transactions a crash left unfinished (COMMITTED: their intent)."""
    db = session.resolve_db(stmt.db)
    if not session.catalog.database_exists(db):
        raise UnknownDatabaseError(f"Unknown database '{db}'")
    where = stmt.where
    if where is None:
        raise AnalysisError("Missing transaction id")
    if not isinstance(where, ast.Comparison) or where.op.upper() not in ("=", "LIKE"):
        raise AnalysisError(_WHERE_SHAPE)
    key, value, like = where.column.lower(), where.value, where.op.upper() == "LIKE"
    rows = _transactions(session, db)
    if key == "id" and value.kind == "number" and not like:
        found = [r for r in rows if str(r[0]) == str(value.value)]
        if not found:
            raise AnalysisError(f"transaction with id {value.value} does not exist")
    elif key == "label" and value.kind == "string":
        label = value.value or ""
        if like:  # Doris matches the whole label against the pattern, '%' as '.*'
            pattern = re.compile(".*".join(re.escape(part) for part in label.split("%")), re.DOTALL)
            found = [r for r in rows if pattern.fullmatch(r[1])]
        else:
            found = [r for r in rows if r[1] == label]
            if not found:
                raise AnalysisError(f"transaction with label {label} does not exist")
    elif key == "status" and value.kind == "string" and not like:
        status = (value.value or "").upper()
        if status not in _STATUSES:
            raise AnalysisError("status should be prepare/precommitted/committed/visible/aborted")
        found = [r for r in rows if r[3] == status]
    else:
        raise AnalysisError(_WHERE_SHAPE)
    return Result.table(TRANSACTION_COLUMNS, found)


def _transactions(session: Session, db: str) -> list[tuple]:
    """TransactionState's info rows of the database's transactions, oldest first."""
    rows: dict[str, tuple] = {}
    for r in reversed(session.catalog.list_loads(db)):
        status = {FINISHED: "VISIBLE", "CANCELLED": "ABORTED"}.get(r.state, "PREPARE")
        done = _time(r.finished_at) if status == "VISIBLE" else "NULL"
        streaming = "BACKEND_STREAMING" if r.load_type == "STREAM_LOAD" else "INSERT_STREAMING"
        timeout = 600_000 if r.load_type == "STREAM_LOAD" else 14_400_000  # (SHOW LOAD's timeouts)
        reason = r.message if status == "ABORTED" else ""
        rows[str(r.txn_id)] = (
            r.txn_id,
            r.label,
            COORDINATOR,
            status,
            streaming,
            _time(r.created_at),
            "NULL",
            done,
            done,
            _time(r.finished_at) if status != "PREPARE" else "NULL",
            reason,
            0,
            -1,
            timeout,
            "",
        )
    for txn_id, text in session.catalog.txn_intents():  # committed, not finished yet
        entry = json.loads(text)
        if not any(Path(t["path"]).parts[0] == db for t in entry["tables"]):
            continue
        known = rows.get(txn_id)
        prepared = known[5] if known else "NULL"
        rows[txn_id] = (int(txn_id), entry["label"], COORDINATOR, "COMMITTED", "INSERT_STREAMING", prepared)
        rows[txn_id] += ("NULL",) * 5 + ("", 0, -1, 14_400_000, "")
    return list(rows.values())


#: The node that coordinated a transaction: dorisql's one frontend.
COORDINATOR = "FE: 127.0.0.1"


def _time(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value is not None else "NULL"


HANDLERS: Handlers = {
    ast.Begin: begin,
    ast.Commit: commit,
    ast.Rollback: rollback,
    ast.ShowTransaction: show_transaction,
}
