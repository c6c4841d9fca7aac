"""After the Delta commit: the statement has happened.

A load, INSERT OVERWRITE or DELETE is one Delta commit, then bookkeeping in the catalog (the
partitions' visible versions, the table's known Delta version; a Stream Load's label record).
The two cannot be one transaction (docs/storage.md, crash safety). Once the commit is in the
log the rows are in the table whatever happens next, so a failure of the bookkeeping (a catalog
that cannot be written: disk full, a PostgreSQL restart, a failing trigger) must not be reported
as the statement's failure: the client would run it again and load the rows twice. It is
reported as a warning on a successful statement instead (`after_commit`), and the next change
of the table records the later Delta version (`TableMeta.known_delta_version` only grows).

`disk_full` tells a full disk apart from other failures (dorisql.session.failures.disk_full, the
one test), so that a load can say ``No space left on device`` in Doris's words instead of
"Internal error". Pure: no Spark.
"""

from __future__ import annotations

from collections.abc import Callable

from dorisql import logfile
from dorisql.errors import DorisqlError
from dorisql.session import failures

__all__ = ["after_commit", "disk_full", "DISK_FULL_MESSAGE", "committed_warning"]

#: Doris's words for a load that found the disk full (its DISK_REACH_CAPACITY_LIMIT status).
DISK_FULL_MESSAGE = "[DISK_REACH_CAPACITY_LIMIT]No space left on device: the disk of the warehouse is full"


def disk_full(exc: BaseException | None) -> bool:
    """Whether `exc` (or anything in its cause / context chain) is a full disk (one test for
    every path: dorisql.session.failures.disk_full)."""
    return exc is not None and failures.disk_full(exc) is not None


def _cause(exc: BaseException) -> str:
    """What went wrong, in words fit for a client (never a Python type name or a server path)."""
    if disk_full(exc):
        return "No space left on device"
    if isinstance(exc, DorisqlError):
        return str(exc)
    return "the catalog could not be written"


def committed_warning(what: str, version: int | None, exc: BaseException) -> str:
    at = f" at Delta version {version}" if version is not None else ""
    return (
        f"{what} was committed{at}; recording it in the catalog failed ({_cause(exc)}). "
        "The data change is in the table: do not run the statement again"
    )


def after_commit(what: str, version: int | None, step: Callable[[], object]) -> str | None:
    """Run `step`, the bookkeeping after a Delta commit. None when it worked; else the failure
    is logged and a warning naming the committed statement is returned (for Result.warnings).
    Exceptions other than Exception (KeyboardInterrupt: a cancel) still propagate: a cancelled
    statement's client is gone or told by the caller."""
    try:
        step()
    except Exception as exc:
        warning = committed_warning(what, version, exc)
        logfile.record_failure(exc, shown=f"(warning) {warning}")
        return warning
    return None
