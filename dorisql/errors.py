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


class UnknownColumnError(AnalysisError):
    """A column that no table in the statement has (Doris's ERR_BAD_FIELD_ERROR)."""

    code = 1054
    sqlstate = "42S22"


class UnknownFunctionError(AnalysisError):
    """A function name that Doris does not know ("Can not found function 'f'")."""


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


class InvalidValueError(ExecutionError):
    """A value the statement computed or read is out of its type's range (a date after
    9999-12-31, a division by zero, a cast that overflows); nothing was committed."""


class StorageDamagedError(ExecutionError):
    """A table's files (its Delta log or data files) cannot be read as they are on disk."""

    def __init__(self, message: str, *, table: str | None = None, **kw):
        super().__init__(message, **kw)
        self.table = table


class ReadOnlyError(ExecutionError):
    """The warehouse (or the file a statement must change) is not writable (Doris's
    ERR_OPTION_PREVENTS_STATEMENT); nothing was changed."""

    code = 1290


class InternalError(ExecutionError):
    """An unexpected failure inside dorisql, Spark or Delta: the user sees one line, the log
    file has the traceback and the library's own message."""


class CancelledError(DorisqlError):
    """The user cancelled the running statement (Ctrl-C); nothing was committed."""

    code = 1317
    sqlstate = "70100"

    def __init__(self, message: str = "Query execution was interrupted", **kw):
        super().__init__(message, **kw)
