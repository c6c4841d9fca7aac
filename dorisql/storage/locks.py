"""Advisory file locks (``flock``) in a table folder.

Every dorisql commit to a table (append, rewrite, partition drop, truncate) holds the table's
commit lock while it checks and commits, so those checks and the commit are atomic with respect to
every other dorisql process on machines sharing the folder through a filesystem with working
``flock`` (local disks; NFS v4). A compaction may also hold a tablet lock for its whole run so two
compactions of one tablet do not race (the commit-time conflict check stays as the safety net).

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
from collections.abc import Iterator

from dorisql.errors import CommitConflictError

__all__ = ["table_lock", "tablet_lock", "file_lock", "LOCK_FILE", "LOCK_DIR"]

#: The table's commit lock (a file starting with '_' is ignored by Delta readers and vacuum).
LOCK_FILE = "_dorisql.lock"
LOCK_DIR = "_dorisql_locks"


class _Held:
    __slots__ = ("rlock", "depth", "fd")

    def __init__(self):
        self.rlock = threading.RLock()
        self.depth = 0
        self.fd = -1


_held: dict[str, _Held] = {}
_held_guard = threading.Lock()


@contextlib.contextmanager
def _flock(path: str, timeout: float | None, what: str) -> Iterator[None]:
    """Exclusive flock on ``path``; re-entrant within a thread, exclusive between threads."""
    with _held_guard:
        held = _held.setdefault(path, _Held())
    deadline = None if timeout is None else time.monotonic() + timeout
    if not held.rlock.acquire(timeout=-1 if timeout is None else max(timeout, 0.0)):
        raise CommitConflictError(f"{what} is locked by another writer; try again")
    try:
        if held.depth == 0:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            delay = 0.005
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() >= deadline:
                        os.close(fd)
                        raise CommitConflictError(f"{what} is locked by another writer; try again") from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.1)
            held.fd = fd
        held.depth += 1
        try:
            yield
        finally:
            held.depth -= 1
            if held.depth == 0:
                fcntl.flock(held.fd, fcntl.LOCK_UN)
                os.close(held.fd)
                held.fd = -1
    finally:
        held.rlock.release()


def table_lock(table_path: str, timeout: float | None = 120.0):
    """Hold the commit lock of the table at ``table_path`` (a local folder)."""
    return _flock(os.path.join(table_path, LOCK_FILE), timeout, f"table {table_path}")


def tablet_lock(table_path: str, partition: str, bucket: int | None = None, timeout: float | None = 0.0):
    """Hold the lock of one tablet (or of a whole partition when ``bucket`` is None).

    With the default ``timeout=0`` it fails at once with CommitConflictError when another process
    holds it, which is what a compaction scheduler wants (skip the tablet, pick another).
    """
    safe = re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"%{ord(m.group()):02X}", partition)
    name = f"{safe}.lock" if bucket is None else f"{safe}.{int(bucket)}.lock"
    return _flock(os.path.join(table_path, LOCK_DIR, name), timeout, f"tablet {partition}/{bucket}")


def file_lock(path: str, timeout: float | None, what: str):
    """Hold the lock file at ``path`` (a Stream Load label's lock: dorisql.engine.stream_load);
    ``timeout=0`` fails at once with CommitConflictError when another holder has it."""
    return _flock(path, timeout, what)
