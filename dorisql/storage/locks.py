"""Commit locks: advisory file locks (``flock``) in a table folder, or PostgreSQL advisory locks.

Every dorisql commit to a table (append, rewrite, partition drop, truncate) holds the table's
commit lock while it checks and commits, so those checks and the commit are atomic with respect to
every other dorisql process on machines sharing the folder through a filesystem with working
``flock`` (local disks; NFS v4). A compaction may also hold a tablet lock for its whole run so two
compactions of one tablet do not race (the commit-time conflict check stays as the safety net).

Those are the embedded default (SQLite catalog). With a PostgreSQL catalog the same locks are
PostgreSQL advisory locks instead (`use_lock_service`, dorisql.catalog.postgres.AdvisoryLocks):
they exclude processes on machines that share no ``flock``, and die with their process. The lock
names stay the lock files' paths, relative to the warehouse root.

The locks are re-entrant within one thread (a caller may hold the table lock around a DeltaStore
method that takes it again) and exclusive between threads and processes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Protocol

from dorisql.errors import CommitConflictError

__all__ = [
    "table_lock",
    "tablet_lock",
    "file_lock",
    "LOCK_FILE",
    "LOCK_DIR",
    "LockService",
    "FileLocks",
    "use_lock_service",
    "use_commit_gate",
]

#: The table's commit lock (a file starting with '_' is ignored by Delta readers and vacuum).
LOCK_FILE = "_dorisql.lock"
LOCK_DIR = "_dorisql_locks"


class LockService(Protocol):
    """Where a process takes its exclusive locks: `FileLocks` (flock, the default) or, with a
    PostgreSQL catalog, `dorisql.catalog.postgres.AdvisoryLocks`. A name is a lock file's path:
    absolute for FileLocks, relative to the warehouse root for a service registered for a root."""

    def try_acquire(self, name: str) -> bool:
        """Take the lock if it is free, at once; False if another process holds it."""

    def release(self, name: str) -> None: ...


class FileLocks:
    """``flock`` on a file per lock (created on first use; never deleted, so it stays one inode)."""

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}
        self._guard = threading.Lock()

    def try_acquire(self, name: str) -> bool:
        os.makedirs(os.path.dirname(name), exist_ok=True)
        fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        with self._guard:
            self._fds[name] = fd
        return True

    def release(self, name: str) -> None:
        with self._guard:
            fd = self._fds.pop(name)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


FILE_LOCKS = FileLocks()

#: Lock services for warehouse roots (absolute path -> service): `use_lock_service`.
_services: dict[str, LockService] = {}


def use_lock_service(root: str | os.PathLike[str], service: LockService | None) -> None:
    """Take the locks of the warehouse at `root` from `service` (None: back to FileLocks).
    The catalog decides: dorisql.catalog.open_catalog registers advisory locks for a PostgreSQL one."""
    with _held_guard:
        for key in {os.path.abspath(root), os.path.realpath(root)}:
            if service is None:
                _services.pop(key, None)
            else:
                _services[key] = service


#: Commit gates of warehouse roots (absolute path -> gate): `use_commit_gate`.
_gates: dict[str, Callable[[str], None]] = {}


def use_commit_gate(root: str | os.PathLike[str], gate: Callable[[str], None] | None) -> None:
    """Call `gate` with a table folder of the warehouse at `root` before each `table_lock` of it:
    every Delta commit takes that lock, so the gate runs before every commit (dorisql.tablets.
    transactions finishes the committed transactions that name the table there; storage knows
    no catalog). None: no gate."""
    with _held_guard:
        for key in {os.path.abspath(root), os.path.realpath(root)}:
            if gate is None:
                _gates.pop(key, None)
            else:
                _gates[key] = gate


def _gate_for(path: str) -> Callable[[str], None] | None:
    for root, gate in list(_gates.items()):
        if os.path.abspath(path).startswith(root.rstrip(os.sep) + os.sep):
            return gate
    return None


def _service_for(path: str) -> tuple[LockService, str]:
    """The service that locks `path` and the name it knows it by."""
    if _services:
        for candidate in (os.path.abspath(path), os.path.realpath(path)):
            for root, service in _services.items():
                if candidate.startswith(root.rstrip(os.sep) + os.sep):
                    return service, os.path.relpath(candidate, root)
    return FILE_LOCKS, path


class _Held:
    __slots__ = ("rlock", "depth")

    def __init__(self):
        self.rlock = threading.RLock()
        self.depth = 0


_held: dict[tuple[int, str], _Held] = {}
_held_guard = threading.Lock()


@contextlib.contextmanager
def _lock(path: str, timeout: float | None, what: str) -> Iterator[None]:
    """Exclusive lock named by ``path``; re-entrant within a thread, exclusive between threads
    (here) and processes (the lock service)."""
    service, name = _service_for(path)
    with _held_guard:
        held = _held.setdefault((id(service), name), _Held())
    deadline = None if timeout is None else time.monotonic() + timeout
    if not held.rlock.acquire(timeout=-1 if timeout is None else max(timeout, 0.0)):
        raise CommitConflictError(f"{what} is locked by another writer; try again")
    try:
        if held.depth == 0:
            delay = 0.005
            while not service.try_acquire(name):
                if deadline is not None and time.monotonic() >= deadline:
                    raise CommitConflictError(f"{what} is locked by another writer; try again")
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        held.depth += 1
        try:
            yield
        finally:
            held.depth -= 1
            if held.depth == 0:
                service.release(name)
    finally:
        held.rlock.release()


@contextlib.contextmanager
def table_lock(table_path: str, timeout: float | None = 120.0) -> Iterator[None]:
    """Hold the commit lock of the table at ``table_path`` (a local folder), after the
    warehouse's commit gate (`use_commit_gate`), if any, has run."""
    gate = _gate_for(table_path) if _gates else None
    if gate is not None:
        gate(table_path)
    with _lock(os.path.join(table_path, LOCK_FILE), timeout, f"table {table_path}"):
        yield


def tablet_lock(table_path: str, partition: str, bucket: int | None = None, timeout: float | None = 0.0):
    """Hold the lock of one tablet (or of a whole partition when ``bucket`` is None).

    With the default ``timeout=0`` it fails at once with CommitConflictError when another process
    holds it, which is what a compaction scheduler wants (skip the tablet, pick another).
    """
    safe = re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"%{ord(m.group()):02X}", partition)
    name = f"{safe}.lock" if bucket is None else f"{safe}.{int(bucket)}.lock"
    return _lock(os.path.join(table_path, LOCK_DIR, name), timeout, f"tablet {partition}/{bucket}")


def file_lock(path: str, timeout: float | None, what: str):
    """Hold the lock file at ``path`` (a Stream Load label's lock: dorisql.statements.load.stream_load);
    ``timeout=0`` fails at once with CommitConflictError when another holder has it."""
    return _lock(path, timeout, what)
