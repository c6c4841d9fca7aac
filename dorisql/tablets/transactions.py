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

Two more rules close the gaps between those steps:

- One statement reads all its tables at one moment of the transactions: COMMIT holds its
  database's transaction lock exclusively from the intent to the last Delta commit, and a
  statement pins the snapshots of all its tables holding it shared (`consistent_reads`), so a
  join never sees one table's rows of a transaction without the other's.
- Every Delta commit comes after the committed transactions of its table: the gate of the
  table's commit lock (storage.locks.use_commit_gate, registered by `guard_commits`) finishes
  them first, so a DELETE, a compaction or a DDL never takes the version an intent's files were
  named with.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from urllib.parse import quote

from dorisql.catalog.base import Catalog
from dorisql.catalog.model import TableMeta
from dorisql.errors import CommitConflictError, DorisqlError
from dorisql.session.session import OpenTransaction, Session, TransactionPart
from dorisql.storage.delta import DeltaStore, prepared_add, prepared_remove
from dorisql.storage.locks import LOCK_DIR, table_lock, use_commit_gate
from dorisql.storage.staging import Staged
from dorisql.tablets.consistency import has_storage
from dorisql.tablets.deletes import PROPERTY_PREFIX, DeleteVersion
from dorisql.tablets.merge_on_write import supersede_for
from dorisql.tablets.tables import meta_dir

__all__ = ["commit", "consistent_reads", "enlist", "enlist_delete", "guard_commits", "settle", "step"]

#: Tests set it to fail or pause COMMIT at a step: "before intent", "after intent", "between
#: tables" (after the first table's Delta commit), "before clear" (every table committed, the
#: intent still there). None in dorisql itself.
step: Callable[[str], None] | None = None


def _at(name: str) -> None:
    if step is not None:
        step(name)


#: Set while this thread finishes an intent: its own commits pass the gate.
_finishing = threading.local()


@contextlib.contextmanager
def _db_lock(warehouse: Path, db: str, exclusive: bool) -> Iterator[None]:
    """The database's transaction lock: ``flock`` on a file under the warehouse (the file system
    table_lock assumes). Shared by readers pinning snapshots, exclusive by a COMMIT making its
    tables' commits; each holder opens the file itself, so threads of one process exclude each
    other too. Released by the kernel when its process dies."""
    path = Path(warehouse) / LOCK_DIR / f"txn.{quote(db.lower(), safe='')}.lock"
    try:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:  # the lock folder's first use (not a mkdir per point query)
            path.parent.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        if exclusive:
            raise
        try:  # a warehouse this process cannot write (a read-only catalog): flock works read-only
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:  # no writer ever committed a transaction here
            yield
            return
    try:
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            if exclusive:
                _at("waiting for readers")
            fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)  # releases the flock


@contextlib.contextmanager
def consistent_reads(catalog: Catalog, warehouse: Path, tables: Sequence[TableMeta]) -> Iterator[None]:
    """A block in which a statement pins the snapshots of all of `tables`: no COMMIT of their
    databases becomes visible halfway through it (their transaction locks held shared), and no
    committed transaction naming one of them is pending (finished before, never while holding
    the lock: finishing takes table locks a waiting COMMIT may hold)."""
    dbs = sorted({m.db.lower() for m in tables})
    while True:
        settle(catalog, warehouse, tables)
        with contextlib.ExitStack() as held:
            for db in dbs:
                held.enter_context(_db_lock(warehouse, db, exclusive=False))
            if not _pending(catalog, warehouse, tables):
                yield
                return
        # A COMMIT failed after its intent meanwhile: finish it, and pin again.


def guard_commits(catalog: Catalog, warehouse: Path) -> None:
    """Make every Delta commit to a table of `warehouse` in this process finish the committed
    transactions naming that table first (the gate of its commit lock). The gate reads them
    through the catalog of the session that last called this on the committing thread, else
    the last caller's: a server's connections each run on a thread of their own with a catalog
    of their own, which is closed when the connection ends, so never under another's commit."""
    root = os.path.abspath(warehouse)
    mine = _thread_catalogs.__dict__.setdefault("by_root", {})
    mine[root] = catalog
    if _gated.get(root) is catalog:
        return
    registered = root in _gated
    _gated[root] = catalog
    if not registered:
        use_commit_gate(root, lambda path: _before_commit(_gate_catalog(root), Path(root), path))


_gated: dict[str, Catalog] = {}
#: by_root: the catalog of the session this thread last ran a statement of, per warehouse root.
_thread_catalogs = threading.local()


def _gate_catalog(root: str) -> Catalog:
    mine = getattr(_thread_catalogs, "by_root", {}).get(root)
    return mine if mine is not None else _gated[root]


def _before_commit(catalog: Catalog, warehouse: Path, table_path: str) -> None:
    if getattr(_finishing, "active", False):
        return
    rel = os.path.relpath(os.path.abspath(table_path), warehouse)
    for txn_id, text in catalog.txn_intents():
        entry = json.loads(text)
        if rel in {t["path"] for t in entry["tables"]}:
            _finish(catalog, warehouse, txn_id, entry)


def _pending(catalog: Catalog, warehouse: Path, tables: Sequence[TableMeta]) -> bool:
    intents = catalog.txn_intents()
    if not intents:
        return False
    wanted = _rel_paths(warehouse, tables)
    return any(wanted.intersection(t["path"] for t in json.loads(text)["tables"]) for _, text in intents)


def _rel_paths(warehouse: Path, tables: Sequence[TableMeta]) -> set[str]:
    return {str(Path(meta_dir(warehouse, m)).relative_to(warehouse)) for m in tables if has_storage(warehouse, m)}


def enlist_delete(session: Session, meta: TableMeta, deleted: DeleteVersion, statement: str) -> None:
    """A DELETE of the open transaction: its delete version (version to be fixed at COMMIT),
    committed before the table's INSERTs (Doris allows a table's DELETEs before its INSERTs)."""
    txn = session.transaction
    assert txn is not None
    part = txn.parts.setdefault(meta.id, TransactionPart(meta))
    part.deletes.append(deleted)
    part.statements.append(statement)


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
    guard_commits(session.catalog, session.warehouse)
    try:
        with contextlib.ExitStack() as locks:
            stores = []
            for part in parts:
                store = DeltaStore(meta_dir(session.warehouse, part.meta))
                # (its gate first finishes an earlier transaction a crash left on the table)
                locks.enter_context(table_lock(store.path, store.lock_timeout))
                stores.append(store)
            for part, store in zip(parts, stores):
                _check_unchanged(session.catalog, part)
                since = store.version()
                # Its delete versions first (since+1, ...), each named after its version, then its files.
                deletes = [
                    {f"{PROPERTY_PREFIX}{v}": dataclasses.replace(d, version=v).to_json()}
                    for v, d in enumerate(part.deletes, since + 1)
                ]
                removes: list = []
                for staged in part.staged:
                    store.stamp(staged, since + len(deletes) + 1)
                supersede = supersede_for(part.meta, store.path)
                if supersede is not None:  # merge-on-write: the INSERTs' keys supersede, as one load
                    part.staged[:] = [Staged.joined(part.staged)]
                    removes = [prepared_remove(f) for f in store.superseded(part.staged[0], supersede)]
                adds = [prepared_add(a) for staged in part.staged for a in staged.adds]
                entry["tables"].append(
                    {
                        "id": part.meta.id,
                        "path": str(Path(store.path).relative_to(session.warehouse)),
                        "since": since,
                        "deletes": deletes,
                        "adds": adds,
                        "removes": removes,
                        "statement": "; ".join(part.statements),
                    }
                )
            _at("before intent")
            # No statement pins its snapshots from the intent to the last table's commit.
            with _db_lock(session.warehouse, parts[0].meta.db, exclusive=True):
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
    written = {e.partition for staged in part.staged for e in staged.entries}
    gone = sorted((written | {p for d in part.deletes for p in d.partitions or ()}) - live)
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
    was, _finishing.active = getattr(_finishing, "active", False), True  # the intent's own commits pass the gate
    try:
        _commit_tables(warehouse, txn_id, entry, versions)
    finally:
        _finishing.active = was
    _at("before clear")
    catalog.drop_txn_intent(txn_id)
    return versions


def _commit_tables(warehouse: Path, txn_id: str, entry: dict, versions: dict[int, int]) -> None:
    for i, table in enumerate(entry["tables"]):
        if i:
            _at("between tables")
        path = Path(warehouse) / table["path"]
        if not (path / "_delta_log").is_dir():  # the table was dropped with its folder meanwhile
            continue
        store, since = DeltaStore(path), table["since"]
        for i, properties in enumerate(table.get("deletes", ())):
            versions[table["id"]] = store.commit_prepared_properties(f"{txn_id}:d{i}", since, since + i + 1, properties)
        if table["adds"] or table.get("removes"):
            versions[table["id"]] = store.commit_prepared(
                txn_id, since, table["adds"], table["statement"] or None, table.get("removes", ())
            )


def settle(catalog: Catalog, warehouse: Path, tables: Sequence[TableMeta] = ()) -> None:
    """Before reading or loading `tables` (none: every table, at a process's start): finish the
    committed transactions that name one of them. One catalog read when there are none; with
    one, its tables' locks are taken, which waits for a session still committing it, and what a
    dead one left is committed."""

    guard_commits(catalog, warehouse)
    intents = catalog.txn_intents()
    if not intents:
        return
    wanted = _rel_paths(warehouse, tables)
    for txn_id, text in intents:
        entry = json.loads(text)
        if tables and not wanted.intersection(t["path"] for t in entry["tables"]):
            continue
        _finish(catalog, warehouse, txn_id, entry)


def _finish(catalog: Catalog, warehouse: Path, txn_id: str, entry: dict) -> None:
    """Commit what a recorded intent has not committed yet, holding all its tables' locks."""
    was, _finishing.active = getattr(_finishing, "active", False), True
    try:
        with contextlib.ExitStack() as locks:
            for rel in sorted(t["path"] for t in entry["tables"]):
                store = DeltaStore(Path(warehouse) / rel)
                locks.enter_context(table_lock(store.path, store.lock_timeout))
            if any(held == txn_id for held, _ in catalog.txn_intents()):  # not finished meanwhile
                _roll_forward(catalog, warehouse, txn_id, entry)
    finally:
        _finishing.active = was
