"""Is a table's storage where its catalog entry says it is? The cheap checks statements make on
their way, and the errors that name the table and the problem.

- The Delta folder must exist. CREATE TABLE writes it before the catalog entry and DROP TABLE
  removes it after, so a catalog entry without one was damaged from outside: statements refuse
  it with an error naming it (CREATE TABLE IF NOT EXISTS too), DROP TABLE still removes it.
- The log must have reached ``TableMeta.known_delta_version``, the last version a load or
  truncate recorded in the catalog. An older log lost commit files: the rows they added would
  silently vanish, and the next commit would reuse the lost version number and hide the loss
  for good. Reads and commits check it on the log state they open anyway (DeltaStore's
  ``min_version``), so no statement pays an extra log read.
- A log deltalake cannot read (a commit file missing in the middle) is reported as damaged,
  without the library's multi-kilobyte message.

ADMIN CHECK TABLE (dorisql.statements.admin.check_table) gives the full picture.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from dorisql.catalog.model import TableMeta
from dorisql.errors import TableStorageError
from dorisql.storage.delta import DeltaStore
from dorisql.storage.layout import DELTA_LOG_DIR
from dorisql.storage.log import LogBehindError
from dorisql.tablets.tables import meta_dir


def qualified(meta: TableMeta) -> str:
    return f"{meta.db}.{meta.name}"


def has_storage(warehouse: Path, meta: TableMeta) -> bool:
    """One stat: the table's Delta log folder exists."""
    return (meta_dir(warehouse, meta) / DELTA_LOG_DIR).is_dir()


def missing_message(warehouse: Path, meta: TableMeta) -> str:
    location = meta_dir(warehouse, meta)
    return (
        f"Table '{qualified(meta)}' has no storage: its Delta table {location.relative_to(warehouse)} is "
        f"missing; run ADMIN CHECK TABLE {qualified(meta)}, or DROP TABLE {qualified(meta)} to remove its "
        f"catalog entry"
    )


def behind_message(meta: TableMeta, version: int, expected: int) -> str:
    return (
        f"Table '{qualified(meta)}' storage is behind its catalog: Delta log at version {version}, "
        f"catalog expects >= {expected}; run ADMIN CHECK TABLE {qualified(meta)}"
    )


def log_error_reason(exc: Exception) -> str | None:
    """The reason a deltalake log failed to load, in plain words, when it is one we know (its
    messages are Rust debug dumps: those stay in the log file, never in front of a user)."""
    text = str(exc)
    if "found gap" in text or "contiguous commit" in text:
        return "a commit file is missing from _delta_log"
    if "Json error" in text or "Truncated record" in text or "EOF while parsing" in text:
        return "a commit file is not valid JSON"
    return None


def damaged_message(meta: TableMeta, reason: str) -> str:
    return (
        f"Table '{qualified(meta)}' storage is damaged: its Delta log cannot be read ({reason}); "
        f"run ADMIN CHECK TABLE {qualified(meta)}"
    )


def require_storage(warehouse: Path, meta: TableMeta) -> None:
    if not has_storage(warehouse, meta):
        raise TableStorageError(missing_message(warehouse, meta))


@contextlib.contextmanager
def table_storage(warehouse: Path, meta: TableMeta) -> Iterator[DeltaStore]:
    """The table's DeltaStore, held to the catalog's known version; storage failures inside
    the block become TableStorageErrors naming the table."""
    from deltalake.exceptions import DeltaError, TableNotFoundError

    store = DeltaStore(meta_dir(warehouse, meta), min_version=meta.known_delta_version or None)
    try:
        yield store
    except LogBehindError as exc:
        raise TableStorageError(behind_message(meta, exc.version, exc.expected)) from None
    except TableNotFoundError:
        if not has_storage(warehouse, meta):
            raise TableStorageError(missing_message(warehouse, meta)) from None
        raise
    except DeltaError as exc:
        if "Kernel error" not in str(exc):  # not a log that cannot be read: let the engine report it
            raise
        reason = log_error_reason(exc)
        if reason is None:  # the engine's failure translation logs it and names the table
            raise
        raise TableStorageError(damaged_message(meta, reason)) from None


def check_log_reached(warehouse: Path, meta: TableMeta) -> None:
    """Refuse a log behind the catalog before a statement changes anything (one log read: for
    statements that change the catalog before they commit to Delta, such as DROP PARTITION)."""
    if meta.known_delta_version and has_storage(warehouse, meta):
        with table_storage(warehouse, meta) as store:
            store.version()
