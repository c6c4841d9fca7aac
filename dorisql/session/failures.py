"""Every failure a user sees, as a dorisql error: Doris's code and one line, never a Python type
name, a traceback or a library's own text. The detail goes to the log file (dorisql.logfile).

One place decides, by the kind of failure:

- Spark's errors (by their error condition, also when Spark raised one while running, through
  py4j): unknown column (1054), unknown function, unknown table (1146), then `SPARK_CONDITIONS`
  (Doris's words for the same mistake: "x not in aggregate's output", "x is ambiguous: ...");
  other Spark SQL errors as their first sentence, without Spark's advice or a path; any other
  condition Spark named: "Spark refused the statement (<condition in words>): ...";
- date and datetime values beyond 9999-12-31 (Python cannot hold them): "Invalid date value";
- Delta log or data files that cannot be read: "Table 'db.t' storage is damaged";
- a read-only warehouse: ERR_OPTION_PREVENTS_STATEMENT (1290);
- a full disk or a used-up quota, wherever it surfaces (an OSError's errno, SQLite's
  SQLITE_FULL, PostgreSQL's disk_full, Delta's Rust text, Spark's Java text): "No space left on
  device", as Doris says it;
- anything else: "Internal error (see <log file>)" (a server's client sees the log file named,
  not its path: `for_remote_client`).

Spark and deltalake are only inspected when they are already loaded: this module imports neither
(an error of one cannot come from a library never loaded, and loading either takes long). py4j,
small, is imported where a failure is examined.
"""

from __future__ import annotations

import errno
import re
import sqlite3
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from dorisql import logfile
from dorisql.catalog import open_catalog
from dorisql.errors import (
    AnalysisError,
    CommitConflictError,
    DiskFullError,
    DorisqlError,
    ExecutionError,
    InternalError,
    InvalidCharacterStringError,
    InvalidValueError,
    NotSupportedError,
    ReadOnlyWarehouseError,
    StorageDamagedError,
    UnknownColumnError,
    UnknownFunctionError,
    UnknownTableError,
)
from dorisql.translate.functions import expression_limit_failure

#: Doris's DATE/DATETIME range, as its messages show it.
DATE_RANGE = "[0000-01-01, 9999-12-31]"
#: Longest message shown; the rest is in the log.
MAX_MESSAGE = 300

# CPython's own messages for dates it cannot hold (datetime module, C implementation).
_DATE_FAILURES = re.compile(
    r"year (-?\d+) is out of range|date value out of range|ordinal must be >= 1"
    r"|days=-?\d+; must have magnitude"
)


def translate(
    exc: BaseException,
    *,
    warehouse: Path | None = None,
    statement: str | None = None,
    views: Mapping[str, str] | None = None,
) -> DorisqlError:
    """The dorisql error to show for `exc`. A non-dorisql failure is logged in full first.

    `warehouse` lets a storage failure name its table; `views` maps the temporary view names a
    query was rewritten to back to the user's table names.
    """
    if isinstance(exc, DorisqlError):
        return exc
    err = _classify(exc, warehouse, views or {})
    logfile.record_failure(exc, shown=_as_shown(err), statement=statement)
    return err


def spark_startup_failure(exc: BaseException) -> DorisqlError:
    """Spark (its JVM) did not start, or its Spark Connect session could not be opened."""
    if isinstance(exc, DorisqlError):  # already says what is wrong (a --conf refused with --remote)
        return exc
    path = logfile.log_path()
    err = ExecutionError(f"Spark failed to start (see {path} and {path.with_name('spark.log')})")
    logfile.record_failure(exc, shown=_as_shown(err))
    return err


def for_remote_client(message: str) -> str:
    """`message` as a client of the server sees it: the server's log files named, not their
    paths on the server's disk (``Internal error (see the server's log file dorisql.log)``)."""
    log = logfile.log_path()
    for path in (log.with_name("spark.log"), log):
        message = message.replace(str(path), f"the server's log file {path.name}")
    return message


def _as_shown(err: DorisqlError) -> str:
    return f"ERROR {err.code} ({err.sqlstate}): {err.message}"


def _classify(exc: BaseException, warehouse: Path | None, views: Mapping[str, str]) -> DorisqlError:
    full = disk_full(exc)
    if full is not None:
        return DiskFullError(full)
    limit = expression_limit_failure(exc)  # a string over Doris's size limit, on any path
    if limit is not None:
        return limit
    text = invalid_utf8(exc)
    if text is not None:
        return text
    spark = _spark_failure(exc, warehouse, views)
    if spark is not None:
        return spark
    delta = _delta_failure(exc, warehouse)
    if delta is not None:
        return delta
    if isinstance(exc, (OverflowError, ValueError)) and _DATE_FAILURES.search(str(exc)):
        return _date_failure(str(exc))
    read_only = _read_only_failure(exc, warehouse)
    if read_only is not None:
        return read_only
    external = external_failure(exc)
    if external is not None:
        return external
    if _is_py4j_failure(exc) and not _is_java_exception(exc):
        return ExecutionError(f"Spark stopped unexpectedly (see {logfile.log_path()})")
    return InternalError(f"Internal error (see {logfile.log_path()})")


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _date_failure(text: str) -> InvalidValueError:
    year = re.search(r"year (-?\d+) is out of range", text)
    if year:
        return InvalidValueError(f"Invalid date value: year {year.group(1)} is out of range {DATE_RANGE}")
    return InvalidValueError(f"Invalid date value: out of range {DATE_RANGE}")


# ------------------------------------------------------------------------------------- Spark

#: Sentences of Spark's messages that advise Spark-only remedies (try_cast, SET spark.sql...).
_SPARK_ADVICE = re.compile(
    r"try_\w+|spark\.sql|\bset\b.*\bconfig|REFRESH TABLE|docroot|Verify the spelling"
    r"|Search path|bypass this error|the legacy configuration",
    re.IGNORECASE,
)


def _spark_failure(exc: BaseException, warehouse: Path | None, views: Mapping[str, str]) -> DorisqlError | None:
    errors = sys.modules.get("pyspark.errors")
    if errors is None:
        return None
    if not isinstance(exc, errors.PySparkException):
        # An error Spark raised while running the query (SCALAR_SUBQUERY_TOO_MANY_ROWS, ...)
        # comes as the Java exception itself: PySpark converts only its analysis errors.
        return _java_spark_error(exc, warehouse, views)
    try:
        condition = exc.getCondition() or ""
        params = exc.getMessageParameters() or {}
        sqlstate = exc.getSqlState() or ""
        message = exc.getMessage() or str(exc)
    except Exception:  # the JVM is gone: nothing more to ask it
        return None
    return spark_error(condition, params, sqlstate, message, warehouse=warehouse, views=views)


def _java_spark_error(exc: BaseException, warehouse: Path | None, views: Mapping[str, str]) -> DorisqlError | None:
    """The Spark error (a SparkThrowable with an error condition) a Java exception is or was
    caused by, as `spark_error` words it; None when there is none."""
    if not _is_java_exception(exc):
        return None
    from py4j.protocol import Py4JError

    throwable = getattr(exc, "java_exception", None)
    for _ in range(10):  # it and its causes, outermost first
        if throwable is None:
            return None
        try:
            condition = throwable.getCondition()  # a SparkThrowable's
        except Py4JError:  # not a SparkThrowable (or the JVM is gone)
            condition = None
        try:
            if condition and not condition.startswith(("FAILED_READ_FILE", "INTERNAL_ERROR")):  # (decided below)
                params = {str(k): str(v) for k, v in dict(throwable.getMessageParameters() or {}).items()}
                sqlstate, message = throwable.getSqlState() or "", throwable.getMessage() or ""
                return spark_error(condition, params, sqlstate, message, warehouse=warehouse, views=views)
            throwable = throwable.getCause()
        except Py4JError:  # the JVM is gone
            return None
    return None


def spark_error(
    condition: str,
    params: Mapping[str, str],
    sqlstate: str,
    message: str,
    *,
    warehouse: Path | None = None,
    views: Mapping[str, str] | None = None,
) -> DorisqlError | None:
    """A Spark error (its condition, parameters, SQLSTATE and message) as a Doris error; None
    when it is not a SQL error a user caused (then it is an internal error)."""
    views = views or {}
    main = condition.split(".", 1)[0]
    if main in ("UNRESOLVED_COLUMN", "UNRESOLVED_FIELD"):
        name = params.get("objectName") or params.get("fieldName") or ""
        return UnknownColumnError(f"Unknown column '{_last_part(name)}' in 'table list'")
    if main == "UNRESOLVED_ROUTINE":
        return UnknownFunctionError(f"Can not found function '{_last_part(params.get('routineName', ''))}'")
    if main == "TABLE_OR_VIEW_NOT_FOUND":
        name = _unquote(params.get("relationName", ""))
        return UnknownTableError(f"Unknown table '{views.get(name, name)}'")
    if main in ("DATETIME_OVERFLOW", "DATETIME_FIELD_OUT_OF_BOUNDS"):
        return InvalidValueError(f"Invalid date value: out of range {DATE_RANGE}")
    if main == "FAILED_READ_FILE":
        return _damaged(_table_of(params.get("path", ""), warehouse))
    text = _spark_sentences(message, views)
    worded = SPARK_CONDITIONS.get(condition) or SPARK_CONDITIONS.get(main)
    if worded is not None:
        kind, words = worded
        return kind(_one_line(_hide_paths(words(_Params(params, views), text))))
    if sqlstate.startswith("42") and text:
        return AnalysisError(text)
    if sqlstate.startswith("22") and text:
        return InvalidValueError(text)
    if sqlstate.startswith("0A") and text:  # feature not supported
        return NotSupportedError(text)
    if condition and not main.startswith("INTERNAL_ERROR"):  # a refusal Spark named: say which
        what = condition.replace(".", ": ").replace("_", " ").lower()
        shown = f"Spark refused the statement ({what}): {text or condition}; it changed nothing"
        return ExecutionError(_one_line(shown))
    return None


class _Params:
    """A Spark error's message parameters as text for a message: Spark's quotes ("x", `x`)
    taken off, the temporary view names a query was rewritten to put back."""

    def __init__(self, params: Mapping[str, str], views: Mapping[str, str]):
        self._params, self._views = params, views

    def __getitem__(self, key: str) -> str:
        value = str(self._params.get(key, ""))
        for view, name in self._views.items():
            value = value.replace(view, name)
        return _SPARK_QUOTES.sub(lambda m: m.group(1) or (m.group(2) or "").replace("``", "`"), value)


#: "x" and `x` in Spark's message parameters.
_SPARK_QUOTES = re.compile(r'"([^"]*)"|`((?:[^`]|``)*)`')


def _ambiguous(p: _Params, text: str) -> str:
    candidates = p["referenceNames"].strip("[]")
    return f"{p['name']} is ambiguous: {candidates}."


def _subquery(p: _Params, text: str) -> str:
    detail = re.sub(r"^(Unsupported|Invalid) subquery(?: expression)?:\s*", "", text)
    return f"Unsupported correlated subquery: {detail}"


#: Spark's error conditions a statement meets, in the words Doris uses for the same mistake
#: (Nereids' AnalysisException messages) where Doris has them, else Spark's sentence without its
#: advice: the condition (or its main class) → the error type and the message from Spark's
#: message parameters and its first sentences. Any other condition is worded by its SQLSTATE,
#: else named in plain words (the fallback in `spark_error`).
SPARK_CONDITIONS: dict[str, tuple[type[DorisqlError], Callable[[_Params, str], str]]] = {
    # Doris: "<expr> not in aggregate's output" (NormalizeAggregate / CheckAnalysis)
    "MISSING_AGGREGATION": (AnalysisError, lambda p, t: f"{p['expression']} not in aggregate's output"),
    "MISSING_GROUP_BY": (
        AnalysisError,
        lambda p, t: (
            "a select list column not in aggregate's output: the query has aggregate functions and no GROUP BY"
        ),
    ),
    "AMBIGUOUS_REFERENCE": (AnalysisError, _ambiguous),
    "AMBIGUOUS_COLUMN_OR_FIELD": (AnalysisError, lambda p, t: f"{p['name']} is ambiguous"),
    "DATATYPE_MISMATCH": (AnalysisError, lambda p, t: t),
    "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY": (NotSupportedError, _subquery),
    "INVALID_SUBQUERY_EXPRESSION": (AnalysisError, lambda p, t: t),
    # Doris's AssertNumRows: "Expected LE 1 to be returned by expression ..."
    "SCALAR_SUBQUERY_TOO_MANY_ROWS": (
        InvalidValueError,
        lambda p, t: "Expected LE 1 to be returned by expression: a scalar subquery returned more than one row",
    ),
    "DIVIDE_BY_ZERO": (InvalidValueError, lambda p, t: "Division by zero"),
    "REMAINDER_BY_ZERO": (InvalidValueError, lambda p, t: "Division by zero"),
    "CAST_INVALID_INPUT": (
        InvalidValueError,
        lambda p, t: f"Invalid value {p['expression']}: cannot cast {p['sourceType']} to {p['targetType']}",
    ),
    "CAST_OVERFLOW": (
        InvalidValueError,
        lambda p, t: f"Invalid value {p['value']}: out of range of {p['targetType']} (cast from {p['sourceType']})",
    ),
    "ARITHMETIC_OVERFLOW": (InvalidValueError, lambda p, t: f"Arithmetic overflow: {p['message'] or t}"),
    "NUMERIC_VALUE_OUT_OF_RANGE": (InvalidValueError, lambda p, t: t),
}


def _hide_paths(text: str) -> str:
    """A message without the server's files in it (a path the failure named): never shown."""
    return _SERVER_PATH.sub("<path>", text)


#: An absolute path of two parts or more, or a file: URI, in a message.
_SERVER_PATH = re.compile(r"(?:\bfile:/*|(?<![\w:/.]))/[\w.@%+=-]+(?:/[\w.@%+=-]*)+")


def _spark_sentences(message: str, views: Mapping[str, str]) -> str:
    """Spark's message without its [CONDITION] tag, SQLSTATE, position and Spark-only advice."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    for view, name in views.items():
        first = first.replace(f"`{view}`", f"`{name}`").replace(view, name)
    first = re.sub(r"^\[[A-Z0-9_.]+\]\s*", "", first)
    first = re.sub(r"\s*SQLSTATE: \w+\.?", "", first)
    first = re.sub(r";?\s*line \d+ pos \d+.*$", "", first)
    sentences = re.split(r"(?<=\.)\s+(?=[A-Z])", first.strip())
    kept = [s for s in sentences if not _SPARK_ADVICE.search(s)]
    return _one_line(_hide_paths(" ".join(kept or sentences[:1])).rstrip("."))


def _unquote(name: str) -> str:
    return ".".join(part.strip("`") for part in re.findall(r"`(?:[^`]|``)*`|[^.]+", name))


def _last_part(name: str) -> str:
    parts = re.findall(r"`((?:[^`]|``)*)`|([^.`]+)", name)
    if not parts:
        return name
    quoted, plain = parts[-1]
    return (quoted or plain).replace("``", "`")


def is_spark_analysis_error(exc: BaseException) -> bool:
    """Spark refused the query while analysing it (unknown names, types): the user's mistake."""
    errors = sys.modules.get("pyspark.errors")
    return errors is not None and isinstance(exc, errors.AnalysisException)


def _is_py4j_failure(exc: BaseException) -> bool:
    from py4j.protocol import Py4JError

    return isinstance(exc, Py4JError)


def _is_java_exception(exc: BaseException) -> bool:
    """A Java exception came back through py4j: the JVM is alive and answered (unless it ran
    out of memory, after which it cannot be trusted)."""
    from py4j.protocol import Py4JJavaError

    if not isinstance(exc, Py4JJavaError):
        return False
    return not any(name.endswith("OutOfMemoryError") for name, _ in java_causes(exc))


# ------------------------------------------------------------------------------------- text


def invalid_utf8(exc: BaseException) -> InvalidCharacterStringError | None:
    """Text that cannot be UTF-8 (a lone surrogate: a byte the MySQL protocol could not decode,
    kept by ``surrogateescape``), found when it was to be sent to Spark, SQLite or a file.

    MySQL's and Doris's ER_INVALID_CHARACTER_STRING: ``Invalid utf8mb4 character string: 'FF'``."""
    for current in _chain(exc):
        if isinstance(current, UnicodeError) and isinstance(current, (UnicodeEncodeError, UnicodeDecodeError)):
            bad = current.object[current.start : current.end]
            return InvalidCharacterStringError(f"Invalid utf8mb4 character string: '{invalid_text_hex(bad)}'")
    return None


#: A lone surrogate: text that came from bytes that are not UTF-8 (``surrogateescape``).
_SURROGATES = re.compile("[\ud800-\udfff]+")


def refuse_invalid_utf8(text: str | None) -> None:
    """Refuse a statement whose text holds bytes that were not UTF-8 (decoded with
    ``surrogateescape``): ``Invalid utf8mb4 character string: 'FF'`` (MySQL's and Doris's 1300),
    before any of it reaches the catalog or Spark (which could not even be sent such text)."""
    bad = _SURROGATES.search(text or "")
    if bad is not None:
        shown = invalid_text_hex(bad.group()[:8])
        raise InvalidCharacterStringError(f"Invalid utf8mb4 character string: '{shown}'")


def invalid_text_hex(bad: str | bytes) -> str:
    """MySQL's rendering of invalid text: the bytes in upper-case hex (a ``surrogateescape``
    character U+DC80..U+DCFF is the byte it stands for; another surrogate is shown as U+XXXX)."""
    if isinstance(bad, bytes):
        return bad.hex().upper()
    parts = []
    for ch in bad:
        code = ord(ch)
        parts.append(f"{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}")
    return "".join(parts)


def _chain(exc: BaseException):
    """`exc` and the exceptions it was raised from or while handling (at most 20)."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending and len(seen) < 20:
        current = pending.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        pending += [current.__cause__, current.__context__]


# ------------------------------------------------------------------------------------- external files

#: "Caused by: java.net.ConnectException: Connection refused" in a Java stack trace's text.
_JAVA_CAUSE = re.compile(r"((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error))(?:: (.*))?$", re.MULTILINE)
#: A local absolute path (or file: URI) in a message: never shown (it is the server's).
_LOCAL_PATH = re.compile(r"(?:\bfile:/*|(?<![\w:/.]))/(?:[^\s/'\"]+/)*[^\s/'\"]*")


def java_causes(exc: BaseException) -> list[tuple[str, str]]:
    """(Java class name, message) of every Java exception named in `exc`'s text (a py4j or
    Spark Connect error carries the Java stack trace with its "Caused by:" lines), outermost first."""
    found: list[tuple[str, str]] = []
    for current in _chain(exc):
        try:
            text = str(current)
        except Exception:  # the JVM is gone
            continue
        for name, message in _JAVA_CAUSE.findall(text):
            if (name, message) not in found:
                found.append((name, (message or "").strip()))
    return found


def external_failure(exc: BaseException, name: str | None = None, uri: str | None = None) -> DorisqlError | None:
    """A read of external files (s3(), hdfs()) that failed for a reason the user can fix: a file
    system Spark does not have, an endpoint that does not answer, an unknown host, access denied,
    a missing file. The message names the cause; None when it is none of these.

    `name` and `uri` (the table function and what it was to read) prefix the message. Without
    them (a failure while a statement ran, cause unknown) only the causes that cannot be
    dorisql's own are named: a missing file system, an endpoint or host that does not answer."""
    causes = java_causes(exc)
    if not causes:
        return None
    cause = _external_cause(causes, reading=bool(name))
    if cause is None:
        return None
    where = f"{name}(): cannot read '{uri}': " if name and uri else (f"{name}(): " if name else "")
    return ExecutionError(_one_line(where + cause))


def translate_external(exc: BaseException, name: str, uri: str) -> DorisqlError | None:
    """`external_failure` for table function `name` reading `uri`, logged like `translate`."""
    err = external_failure(exc, name, uri)
    if err is not None:
        logfile.record_failure(exc, shown=_as_shown(err))
    return err


def _external_cause(causes: list[tuple[str, str]], reading: bool) -> str | None:
    names = {name.rsplit(".", 1)[-1]: message for name, message in causes}  # the innermost one wins
    for _name, message in causes:
        scheme = re.search(r'No FileSystem for scheme "?([\w+.-]+)"?', message)
        if scheme:
            return (
                f"no file system for '{scheme.group(1)}://' in this Spark "
                "(its Hadoop connector is not on Spark's classpath)"
            )
        missing = re.search(r"Class (org\.apache\.hadoop\.fs\.[\w.$]+) not found", message)
        if missing:
            connector = "hadoop-aws" if ".s3a." in missing.group(1) else "its Hadoop connector"
            return f"{missing.group(1)} is not on Spark's classpath (add {connector} to Spark's jars)"
    if "UnknownHostException" in names:
        unknown = names["UnknownHostException"].split(":")[0].split()
        return f"unknown host {unknown[0]}" if unknown else "unknown host"
    for refused in ("ConnectException", "NoRouteToHostException", "ConnectTimeoutException", "SocketTimeoutException"):
        if refused in names:
            failed = r" to (\S+?)(?: \[[^\]]*\])? failed"  # Hadoop's and the AWS SDK's "Connect to h:p [h/ip] failed"
            called = next((m for _, m in causes if re.search(failed, m)), "")
            peer = re.search(failed, called)
            reason = (names[refused] or refused).split(";")[0]
            reason = re.sub(r"^.*?: ", "", reason) if "failed" in reason else reason
            return f"cannot connect to {peer.group(1)}: {reason}" if peer else f"cannot connect: {reason}"
    if not reading:
        return None
    if "AccessDeniedException" in names or any("403" in m and "Forbidden" in m for _, m in causes):
        return "access denied"
    if "FileNotFoundException" in names:
        return "no such file or folder"
    for name, message in causes:
        if name.rsplit(".", 1)[-1] == "IOException" and message:
            return _LOCAL_PATH.sub("<path>", message.split("\n")[0])
    return None


# ------------------------------------------------------------------------------------- storage

#: A full disk (ENOSPC) and a used-up quota (EDQUOT) as their causes are named.
_NO_SPACE, _QUOTA = "No space left on device", "Disk quota exceeded"
#: The same in the text of Rust (deltalake: "os error 28"), SQLite, PostgreSQL and Java errors.
_FULL_TEXT = re.compile(
    r"No space left on device|os error 28\b|errno 28\b|database or disk is full|\bENOSPC\b", re.IGNORECASE
)
_QUOTA_TEXT = re.compile(r"Disk quota exceeded|os error 122\b|errno 122\b|\bEDQUOT\b", re.IGNORECASE)
#: SQLite's result code for a full disk; PostgreSQL's SQLSTATE disk_full.
_SQLITE_FULL, _PG_DISK_FULL = 13, "53100"


def disk_full(exc: BaseException) -> str | None:
    """ "No space left on device" (or "Disk quota exceeded") when `exc` or an exception it was
    raised from or while handling is a full disk; else None."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen or len(seen) > 20:
            continue
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return _NO_SPACE if current.errno == errno.ENOSPC else _QUOTA
        if isinstance(current, sqlite3.Error) and getattr(current, "sqlite_errorcode", None) == _SQLITE_FULL:
            return _NO_SPACE
        if getattr(current, "sqlstate", None) == _PG_DISK_FULL:  # psycopg's DiskFull
            return _NO_SPACE
        try:
            text = str(current)
        except Exception:  # a Java exception whose JVM is gone
            text = ""
        if _FULL_TEXT.search(text):
            return _NO_SPACE
        if _QUOTA_TEXT.search(text):
            return _QUOTA
        pending += [current.__cause__, current.__context__]
    return None


def _delta_failure(exc: BaseException, warehouse: Path | None) -> DorisqlError | None:
    """deltalake's errors: a commit conflict, or a log or file it cannot read."""
    errors = sys.modules.get("deltalake.exceptions")
    rust_text = type(exc) is Exception and str(exc).startswith(("External error", "Generic error", "Kernel error"))
    if errors is None or not (isinstance(exc, errors.DeltaError) or rust_text):
        return None
    table = _table_in_traceback(exc, warehouse)
    if isinstance(exc, errors.CommitFailedError):
        where = f" '{table}'" if table else ""
        return CommitConflictError(
            f"Another statement changed table{where} at the same time; nothing was committed, run the statement again"
        )
    if _is_permission_text(str(exc)):
        return _read_only(table)
    if isinstance(exc, errors.SchemaMismatchError) or rust_text:
        return None  # dorisql wrote something Delta refused: an internal error
    return _damaged(table)


def _damaged(table: str | None) -> StorageDamagedError:
    name = f"Table '{table}'" if table else "A table's"
    check = f"ADMIN CHECK TABLE {table}" if table else "ADMIN CHECK TABLE"
    return StorageDamagedError(f"{name} storage is damaged: see {check} and the log {logfile.log_path()}", table=table)


def _table_in_traceback(exc: BaseException, warehouse: Path | None) -> str | None:
    """`db.table` of the Delta table the failure happened in: the innermost DeltaStore on the
    failing call stack (every executor reaches Delta through one) knows its folder."""
    delta = sys.modules.get("dorisql.storage.delta")
    if delta is None:
        return None
    found = None
    tb = exc.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, delta.DeltaStore):
            found = owner.path
        tb = tb.tb_next
    return _table_of(str(found), warehouse) if found is not None else None


def _table_of(path: str, warehouse: Path | None) -> str | None:
    """`db.table` for a path inside the warehouse (a table folder or a file in it)."""
    if not path or warehouse is None:
        return None
    local = re.sub(r"^file:(//)?", "", path)
    try:
        parts = Path(local).resolve().relative_to(Path(warehouse).resolve()).parts
    except (ValueError, OSError):
        return None
    if len(parts) < 2 or parts[0].startswith("_"):
        return None
    db, folder = parts[0], parts[1]
    if folder.isdigit():  # tables live at <db>/<table id>: name it as the user knows it
        folder = _table_name(Path(warehouse), db, int(folder)) or folder
    return f"{db}.{folder}"


def _table_name(warehouse: Path, db: str, table_id: int) -> str | None:
    try:
        catalog = open_catalog(warehouse)
        try:
            return next((m.name for m in catalog.list_table_metas(db) if m.id == table_id), None)
        finally:
            catalog.close()
    except DorisqlError:  # the catalog itself is unreadable: the folder name will have to do
        return None


def _is_permission_text(text: str) -> bool:
    return bool(
        re.search(
            r"permission denied|read-only file system|readonly database|os error 13|os error 30", text, re.IGNORECASE
        )
    )


def _read_only_failure(exc: BaseException, warehouse: Path | None) -> DorisqlError | None:
    if isinstance(exc, PermissionError) or (isinstance(exc, OSError) and exc.errno == errno.EROFS):
        return _read_only(_table_of(str(exc.filename or ""), warehouse))
    if isinstance(exc, sqlite3.OperationalError) and _is_permission_text(str(exc)):
        return _read_only(None)
    return None


def _read_only(table: str | None) -> ReadOnlyWarehouseError:
    return ReadOnlyWarehouseError(what=f"table '{table}'" if table else None)
