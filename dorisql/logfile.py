"""dorisql's log file: the detail behind the one-line errors a user sees.

``$XDG_STATE_HOME/dorisql/dorisql.log`` (``~/.local/state/dorisql/dorisql.log``), beside the
shell history and ``spark.log`` (the JVM's own output). It lives in the user's state folder, not
in the warehouse, so it can be written when the warehouse is read-only or shared. It rotates at
5 MB, keeping two old files.

What goes there: for every failure that was translated into a dorisql error, the statement, the
error shown and the full traceback (library messages, Rust and Java text included); PySpark's
query-context records (the Java stack trace of a failed Spark query); log records and warnings
from Python libraries (py4j, pyspark) that would otherwise be printed on the terminal.

Nothing here imports pyspark: `capture_spark_logs` only touches it once it is loaded.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

from dorisql.config import state_dir

LOG_NAME = "dorisql.log"
MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 2
#: PySpark's loggers that print a JSON record (with a Java stack trace) on stderr for every
#: failed query (pyspark.errors.exceptions.base.PySparkException._log_exception).
SPARK_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")

_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

_lock = threading.Lock()
_handler: _QuietFileHandler | _NoFileHandler | None = None
_captured: set[str] = set()

failure_logger = logging.getLogger("dorisql.failures")


def default_log_path(env: Mapping[str, str] = os.environ) -> Path:
    return state_dir(env) / LOG_NAME


class _QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A file handler that never prints logging's own "--- Logging error ---" report on the
    terminal when the file cannot be written (a full disk, a read-only home)."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


class _NoFileHandler(logging.NullHandler):
    """Stands in for the file handler when the state folder cannot be written: drops the records,
    remembering the file they were meant for."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.baseFilename = str(path)


def open_log(path: Path | None = None) -> Path:
    """Send Python's log records (WARNING and up, and dorisql's failure records) to the log file.

    Without `path`, keeps the file already open, else opens the default one. The file is
    created on the first record. With a handler on the root logger, logging's last-resort
    handler (stderr) is never used.
    """
    global _handler
    with _lock:
        if _handler is not None and (path is None or Path(path) == Path(_handler.baseFilename)):
            return Path(_handler.baseFilename)
        target = Path(path) if path is not None else default_log_path()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handler: _QuietFileHandler | _NoFileHandler = _QuietFileHandler(
                target, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True
            )
        except OSError:  # no writable state folder: keep the terminal clean, lose the detail
            handler = _NoFileHandler(target)
        handler.setFormatter(logging.Formatter(_FORMAT))
        _close_locked()
        root = logging.getLogger()
        root.addHandler(handler)
        logging.captureWarnings(True)  # library warnings (pyspark, pandas) too, not on the terminal
        if root.level == logging.NOTSET or root.level > logging.WARNING:
            root.setLevel(logging.WARNING)
        failure_logger.setLevel(logging.INFO)
        _handler = handler
        return target


def close_log() -> None:
    """Stop writing to the log file (the next failure opens the default one again)."""
    with _lock:
        _close_locked()


def _close_locked() -> None:
    global _handler
    if _handler is not None:
        logging.getLogger().removeHandler(_handler)
        _handler.close()
        _handler = None


def log_path() -> Path:
    """The log file in use (opening it at the default place if nothing opened it yet)."""
    return open_log()


class _Forward(logging.Handler):
    """Hands a PySpark record to dorisql's log file instead of PySpark's stderr handler."""

    def emit(self, record: logging.LogRecord) -> None:
        if _handler is not None:
            _handler.handle(record)


def capture_spark_logs() -> None:
    """Route PySpark's per-failure JSON records to the log file, off the terminal.

    Safe to call often; does nothing until pyspark has been imported.
    """
    if "pyspark" not in sys.modules or len(_captured) == len(SPARK_LOGGERS):
        return
    from pyspark.logger import PySparkLogger

    open_log()
    with _lock:
        for name in SPARK_LOGGERS:
            if name in _captured:
                continue
            logger = PySparkLogger.getLogger(name)
            if isinstance(logger, PySparkLogger):
                for handler in list(logger.handlers):
                    logger.removeHandler(handler)
                logger.addHandler(_Forward())
            else:
                # A plain Logger of that name existed before PySpark made its own: PySpark passes
                # it keyword arguments a plain Logger refuses, so it must never emit.
                logger.setLevel(logging.CRITICAL + 1)
            logger.propagate = False
            _captured.add(name)


def record_failure(exc: BaseException, shown: str, statement: str | None = None) -> None:
    """Write one failure to the log file: the statement, what the user saw, the traceback."""
    open_log()
    where = f"\nstatement: {statement.strip()}" if statement and statement.strip() else ""
    failure_logger.error("shown to the user: %s%s", shown, where, exc_info=(type(exc), exc, exc.__traceback__))
