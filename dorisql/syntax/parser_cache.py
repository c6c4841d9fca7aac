"""The grammar's analysed LALR tables, kept between processes.

Building the parser from grammar/doris.lark (Lark's LALR analysis) takes about a second, more
than everything else a ``dorisql -e`` that needs no Spark does. Lark can cache that analysis in
a file (its ``cache`` option); this module chooses the file and writes it safely:

- in the user's own cache folder (``$XDG_CACHE_HOME/dorisql``, else ``~/.cache/dorisql``),
  created private (0700), and only used while it is still the user's and not writable by others:
  the file is a pickle, and loading a pickle someone else wrote would run their code;
- named by a hash of the grammar, Lark's version and Python's, so a changed grammar or an
  upgrade never meets an old file (Lark checks the same hash inside the file too);
- read and written under an exclusive lock on a file beside it (Lark reads the file, or builds
  the parser and writes it, in one call): a process starting meanwhile never reads half a file.
  A damaged file (a crash while writing) fails Lark's own checks, and Lark builds and rewrites it.

When the folder cannot be used (read-only home, someone else's folder), the parser is built as
before, without a cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import sys
from pathlib import Path
from typing import Any

import lark
from lark import Lark


def cache_folder() -> Path | None:
    """The user's private folder for dorisql's caches, created if missing; None when it cannot
    be trusted or created."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "dorisql"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = folder.stat()
    except OSError:
        return None
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return None
    if status.st_mode & 0o022:  # others could swap the file: a pickle from them is their code
        return None
    return folder


def cache_file(grammar: str, options: dict[str, Any]) -> Path | None:
    """The cache file of this grammar with these options (None: no usable folder)."""
    folder = cache_folder()
    if folder is None:
        return None
    key = "\0".join([grammar, repr(sorted(options.items())), lark.__version__, sys.version])
    return folder / f"parser-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:24]}.lark"


def cached_lark(grammar: str, *, transformer: Any = None, **options: Any) -> Lark:
    """``Lark(grammar, transformer=transformer, **options)`` (LALR), its analysis read from the
    cache file when there is one, and written there when there was none."""
    path = cache_file(grammar, options)
    if path is None:
        return Lark(grammar, transformer=transformer, **options)
    try:
        lock = os.open(path.with_name(path.name + ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:
        return Lark(grammar, transformer=transformer, **options)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        parser = Lark(grammar, transformer=transformer, cache=str(path), **options)
    finally:
        os.close(lock)  # releases the lock
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)
    return parser
