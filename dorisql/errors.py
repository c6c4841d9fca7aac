"""Every error dorisql raises on purpose, in one flat hierarchy.

Callers catch `DorisqlError`; the shell prints `str(err)` (and, for syntax errors, the caret
context). `code` and `sqlstate` follow the MySQL/Doris numbers a Doris user recognises.
"""

from __future__ import annotations


class DorisqlError(Exception):
    """Base of every error dorisql raises deliberately."""

    code = 1105
    sqlstate = "HY000"
    #: Its line and column were made script-relative (dorisql.shell.execute.place_error).
    placed = False

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        #: Context drawn under the message (source line and caret), filled by the front end.
        self.context: str | None = None
        #: The statement's first line in its script, filled when running a script.
        self.statement_line: int | None = None
        #: Offset of the problem in the statement text, filled by the front end (`located`).
        self.pos: int | None = None
        #: The text `pos` and the references are offsets in, when it is the statement itself.
        self.source_text: str | None = None

    def __str__(self) -> str:
        return self.message


class SqlSyntaxError(DorisqlError):
    """The text is not valid Doris SQL. Carries the 1-based line and column of the problem."""

    code = 1064
    sqlstate = "42000"

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None):
        super().__init__(message, line=line, column=column)
        #: The detail with `diagnose.ref(i)` placeholders, before they are turned into "line L, column C".
        self.detail_template: str | None = None
        #: The detail as shown in the message, placeholders filled in.
        self.detail: str | None = None
        #: Offsets the placeholders in `detail_template` stand for.
        self.refs: tuple[int, ...] = ()


class AnalysisError(DorisqlError):
    """A well-formed statement that Doris would refuse (unknown column, overlapping ranges...)."""


class UnknownColumnError(AnalysisError):
    """A column that no table in the statement has (Doris's ERR_BAD_FIELD_ERROR)."""

    code = 1054
    sqlstate = "42S22"


class NoDatabaseSelectedError(AnalysisError):
    """A table named without a database while no database is in use (Doris's ERR_NO_DB_ERROR)."""

    code = 1046
    sqlstate = "3D000"

    def __init__(self, message: str = "No database selected", **kw):
        super().__init__(message, **kw)


class UnknownFunctionError(AnalysisError):
    """A function name that Doris does not know ("Can not found function 'f'")."""


class NotSupportedError(DorisqlError):
    """A statement or clause dorisql recognises but does not implement."""

    code = 1235
    sqlstate = "42000"

    def __init__(self, feature: str, **kw):
        super().__init__(f"not supported: {feature}", **kw)
        self.feature = feature


class UnsupportedOperationError(NotSupportedError):
    """A Doris operation dorisql does not do by design, in the words Doris refuses an operation
    its deployment cannot do (DdlException("Unsupported operation"), e.g. in cloud mode)."""

    def __init__(self, feature: str, reason: str, **kw):
        DorisqlError.__init__(self, f"Unsupported operation: {feature} ({reason})", **kw)
        self.feature = feature


class CatalogError(DorisqlError):
    """Something is missing from, or already in, the catalog (database, table, partition)."""


class ReadOnlyWarehouseError(CatalogError):
    """The warehouse (or a file a statement must change) cannot be written: permissions or a
    read-only mount (Doris's ERR_OPTION_PREVENTS_STATEMENT). Reads still work; nothing changed."""

    code = 1290

    def __init__(self, root: object = None, *, what: str | None = None):
        where = f"The warehouse '{root}'" if root is not None else "The warehouse"
        detail = f" ({what} cannot be written)" if what else ""
        super().__init__(
            f"{where} is read-only{detail}, so it cannot execute this statement"
            + (
                " (SELECT, SHOW and DESC work; writes need write access to the warehouse folder)"
                if root is not None
                else ""
            )
        )


class DamagedTableError(CatalogError):
    """A table's catalog entry cannot be read (hand-edited, or written by a newer dorisql).

    Only that table is affected: other tables keep working, and DROP TABLE removes it."""

    def __init__(self, db: str, name: str, table_id: int, detail: str):
        super().__init__(
            f"Table '{db}.{name}' (id {table_id}) has a damaged catalog entry ({detail}); "
            f"other tables are not affected, DROP TABLE {name} removes it"
        )
        self.db, self.name, self.table_id = db, name, table_id


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


class StatementTooLargeError(DorisqlError):
    """A statement longer than dorisql reads (the limit is in dorisql.syntax.input_limits)."""

    code = 1153  # MySQL's ER_NET_PACKET_TOO_LARGE
    sqlstate = "08S01"


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


class InvalidCharacterStringError(InvalidValueError):
    """Text that is not UTF-8 where Doris needs it (MySQL's ER_INVALID_CHARACTER_STRING)."""

    code = 1300


class DiskFullError(ExecutionError):
    """The disk a statement writes to is full (or its quota is used up): Doris's "No space left
    on device". The statement changed nothing; reads still work."""

    def __init__(self, cause: str = "No space left on device"):
        super().__init__(f"{cause}: the statement changed nothing; free some space and run it again")
        self.cause = cause


class InternalError(ExecutionError):
    """An unexpected failure inside dorisql, Spark or Delta: the user sees one line, the log
    file has the traceback and the library's own message."""


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


class AccessDeniedError(DorisqlError):
    """The session's user lacks a privilege the statement needs (Doris's
    ERR_SPECIFIC_ACCESS_DENIED_ERROR 1227; 1225 on a database, 1224 on a table)."""

    code = 1227
    sqlstate = "42000"


class AuthenticationError(DorisqlError):
    """Login refused: unknown user or wrong password (ERR_ACCESS_DENIED_ERROR)."""

    code = 1045
    sqlstate = "28000"
