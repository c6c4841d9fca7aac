"""Explicit transactions: the INSERTs between BEGIN and COMMIT become visible together, on every
table they wrote, or not at all (docs/storage.md, "Transactions").

Each table has its own Delta log, and two logs cannot commit in one step. So COMMIT:

1. takes the commit lock of every table of the transaction (in path order: no deadlock), checks
   each is still the table it loaded into, and names its staged files with the version their
   commit becomes;
2. records a durable intent in the catalog, in one catalog transaction: per table, its folder,
   the version it was at and the ``add`` actions to commit. **This is the commit point**;
3. commits each table's Delta log, each commit marked with the transaction id, so that a commit
   already made is recognised and never made twice (DeltaStore.commit_prepared);
4. forgets the intent, and releases the locks.

A failure or a kill before the intent leaves nothing visible: the staged files are not in any
log (the session deletes them; after a kill the trash pass does). After it, the transaction is
finished by whoever comes next: a statement that reads or loads a table an intent names
(`settle`) first takes that intent's locks, which waits for a committing session, and commits
whatever a dead one left, so nobody reads one table's rows of a transaction without the others'.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from dorisql.catalog.base import Catalog
from dorisql.catalog.model import TableMeta
from dorisql.errors import CommitConflictError, DorisqlError
from dorisql.session.session import OpenTransaction, Session, TransactionPart
from dorisql.storage.delta import DeltaStore, prepared_add
from dorisql.storage.locks import table_lock
from dorisql.storage.staging import Staged
from dorisql.tablets.consistency import has_storage
from dorisql.tablets.tables import meta_dir

__all__ = ["commit", "enlist", "settle", "step"]

#: Tests set it to fail or pause COMMIT at a step: "before intent", "after intent", "between
#: tables" (after the first table's Delta commit), "before clear" (every table committed, the
#: intent still there). None in dorisql itself.
step: Callable[[str], None] | None = None


def _at(name: str) -> None:
    if step is not None:
        step(name)


def enlist(session: Session, meta: TableMeta, staged: Staged, statement: str) -> None:
    """An INSERT of the open transaction wrote `staged` into `meta`: kept for COMMIT."""
    txn = session.transaction
    assert txn is not None
    part = txn.parts.setdefault(meta.id, TransactionPart(meta))
    part.staged.append(staged)
    part.statements.append(statement)


def commit(session: Session, txn: OpenTransaction) -> dict[int, int]:
    """Make the transaction's staged files visible, all at once: {table id: the Delta version
    its rows became}. Raises, with nothing visible and the files deleted, when it fails before
    the intent is durable; after that it is committed, and a failure to finish is left to
    `settle` (raised as it is: the caller reports the transaction committed)."""

    parts = sorted(txn.parts.values(), key=lambda p: str(meta_dir(session.warehouse, p.meta)))
    if not parts:
        return {}
    entry: dict = {"label": txn.label, "tables": []}
    try:
        with contextlib.ExitStack() as locks:
            stores = []
            for part in parts:
                store = DeltaStore(meta_dir(session.warehouse, part.meta))
                locks.enter_context(table_lock(store.path, store.lock_timeout))
                stores.append(store)
            for part, store in zip(parts, stores):
                _check_unchanged(session.catalog, part)
                since = store.version()
                adds = []
                for staged in part.staged:
                    store.stamp(staged, since + 1)
                    adds += [prepared_add(a) for a in staged.adds]
                entry["tables"].append(
                    {
                        "id": part.meta.id,
                        "path": str(Path(store.path).relative_to(session.warehouse)),
                        "since": since,
                        "adds": adds,
                        "statement": "; ".join(part.statements),
                    }
                )
            _at("before intent")
            session.catalog.put_txn_intent(str(txn.txn_id), json.dumps(entry))
            # Committed: from here on, a failure leaves the intent for `settle` to finish.
            _at("after intent")
            return _roll_forward(session.catalog, session.warehouse, str(txn.txn_id), entry)
    except BaseException:
        if not _intent_recorded(session.catalog, str(txn.txn_id)):
            txn.discard()
        raise


def _check_unchanged(catalog: Catalog, part: TransactionPart) -> None:
    """Under the table's lock: it is still the table the INSERTs loaded into, with the same
    columns and every partition they wrote (as a single INSERT's guard checks)."""
    loaded = part.meta
    try:
        current: TableMeta | None = catalog.load_table(loaded.db, loaded.name)
    except DorisqlError:  # dropped
        current = None
    if current is None or current.id != loaded.id:
        raise CommitConflictError(
            f"Table '{loaded.db}.{loaded.name}' was dropped or replaced during the transaction; nothing was committed"
        )
    if current.definition.columns != loaded.definition.columns:
        raise CommitConflictError(
            f"The schema of table '{loaded.name}' was changed during the transaction; nothing was committed"
        )
    live = set(current.partition_keys().values())
    gone = sorted({e.partition for staged in part.staged for e in staged.entries} - live)
    if gone:
        raise CommitConflictError(
            f"Partition {', '.join(gone)} of table '{loaded.name}' was dropped during the transaction; "
            "nothing was committed"
        )


def _intent_recorded(catalog: Catalog, txn_id: str) -> bool:
    try:
        return any(held == txn_id for held, _ in catalog.txn_intents())
    except Exception:  # the catalog cannot say: keep the files, the trash pass decides later
        return True


def _roll_forward(catalog: Catalog, warehouse: Path, txn_id: str, entry: dict) -> dict[int, int]:
    """Commit each table of a recorded intent that is not committed yet, then forget the intent.
    The caller holds every table's commit lock."""
    versions: dict[int, int] = {}
    for i, table in enumerate(entry["tables"]):
        if i:
            _at("between tables")
        path = Path(warehouse) / table["path"]
        if not (path / "_delta_log").is_dir():  # the table was dropped with its folder meanwhile
            continue
        versions[table["id"]] = DeltaStore(path).commit_prepared(
            txn_id, table["since"], table["adds"], table["statement"] or None
        )
    _at("before clear")
    catalog.drop_txn_intent(txn_id)
    return versions


def settle(catalog: Catalog, warehouse: Path, tables: Sequence[TableMeta] = ()) -> None:
    """Before reading or loading `tables` (none: every table, at a process's start): finish the
    committed transactions that name one of them. One catalog read when there are none; with
    one, its tables' locks are taken, which waits for a session still committing it, and what a
    dead one left is committed."""

    intents = catalog.txn_intents()
    if not intents:
        return
    wanted = {str(Path(meta_dir(warehouse, m)).relative_to(warehouse)) for m in tables if has_storage(warehouse, m)}
    for txn_id, text in intents:
        entry = json.loads(text)
        paths = sorted(t["path"] for t in entry["tables"])
        if tables and not wanted.intersection(paths):
            continue
        with contextlib.ExitStack() as locks:
            for rel in paths:
                store = DeltaStore(Path(warehouse) / rel)
                locks.enter_context(table_lock(store.path, store.lock_timeout))
            if any(held == txn_id for held, _ in catalog.txn_intents()):  # not finished meanwhile
                _roll_forward(catalog, warehouse, txn_id, entry)
