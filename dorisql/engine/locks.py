"""Cross-process locks on one table, so that loads, partition drops and rewrites serialise.

A load holds the table's commit lock while it re-checks its target partitions and commits; a
partition drop holds it while it updates the catalog and commits its removes. So a load racing a
drop either commits before the drop (and its rows are removed with the partition) or sees the
partition gone and fails cleanly: data never lands in a dropped partition.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from pathlib import Path

_thread_locks: dict[str, threading.RLock] = {}
_guard = threading.Lock()


@contextlib.contextmanager
def table_lock(table_dir: Path, name: str = "commit"):
    lock_dir = Path(table_dir) / "_locks"
    lock_dir.mkdir(parents=True, exist_ok=True)
    path = str(lock_dir / f"{name}.lock")
    with _guard:
        thread_lock = _thread_locks.setdefault(path, threading.RLock())
    with thread_lock:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
