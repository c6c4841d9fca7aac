"""Every error dorisql raises on purpose, in one flat hierarchy.

Callers catch `DorisqlError`; the shell prints `str(err)` (and, for syntax errors, the caret
context). `code` and `sqlstate` follow the MySQL/Doris numbers a Doris user recognises.
"""

from __future__ import annotations


class DorisqlError(Exception):
    """Base of every error dorisql raises deliberately."""

    code = 1105
    sqlstate = "HY000"

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        #: Context drawn under the message (source line and caret), filled by the front end.
        self.context: str | None = None
        #: The statement's first line in its script, filled when running a script.
        self.statement_line: int | None = None

    def __str__(self) -> str:
        return self.message


class SqlSyntaxError(DorisqlError):
    """The text is not valid Doris SQL. Carries the 1-based line and column of the problem."""

    code = 1064
    sqlstate = "42000"


class AnalysisError(DorisqlError):
    """A well-formed statement that Doris would refuse (unknown column, overlapping ranges...)."""


class NotSupportedError(DorisqlError):
    """A statement or clause dorisql recognises but does not implement."""

    code = 1235
    sqlstate = "42000"

    def __init__(self, feature: str, **kw):
        super().__init__(f"not supported: {feature}", **kw)
        self.feature = feature


class CatalogError(DorisqlError):
    """Something is missing from, or already in, the catalog (database, table, partition)."""


class UnknownDatabaseError(CatalogError):
    code = 1049
    sqlstate = "42000"


class UnknownTableError(CatalogError):
    code = 1146
    sqlstate = "42S02"


class AlreadyExistsError(CatalogError):
    code = 1050
    sqlstate = "42S01"


class CommitConflictError(DorisqlError):
    """Someone else changed the same table or tablet first; nothing was committed. Retry."""


class LoadError(DorisqlError):
    """A load was refused (rows that fit no partition in strict mode, bad values); nothing committed."""

    code = 5025


class ExecutionError(DorisqlError):
    """Spark or the storage layer failed while running a statement; nothing was committed."""


class TableStorageError(DorisqlError):
    """A table's storage does not match its catalog entry: its Delta folder is missing, its log
    is older than the catalog knows it to be, or the log cannot be read. Nothing was done;
    ADMIN CHECK TABLE lists what is wrong."""


class CancelledError(DorisqlError):
    """The user cancelled the running statement (Ctrl-C); nothing was committed."""

    code = 1317
    sqlstate = "70100"

    def __init__(self, message: str = "Query execution was interrupted", **kw):
        super().__init__(message, **kw)
