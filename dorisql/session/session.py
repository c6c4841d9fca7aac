"""A session: one user's state over a warehouse (dorisql.engine.Engine runs statements in one).

Spark starts lazily (or in the background, for the shell): catalog-only statements (CREATE
DATABASE, CREATE TABLE, SHOW ...) never wait for it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dorisql import ast, logfile
from dorisql.catalog import open_catalog
from dorisql.catalog.model import TableMeta
from dorisql.clock import Clock, FixedClock, SystemClock, parse_now
from dorisql.config import Config
from dorisql.errors import (
    CancelledError,
    ExecutionError,
    NoDatabaseSelectedError,
)
from dorisql.session import failures
from dorisql.settings import FRONTEND_DEFAULTS, SESSION_DEFAULTS
from dorisql.storage.local_files import LocalFiles
from dorisql.storage.spark import create_session, forget_dead, is_alive, is_connect
from dorisql.storage.spark_views import drop_pending_views
from dorisql.storage.staging import Staged
from dorisql.syntax import parse
from dorisql.syntax.cancel import cancellable
from dorisql.warehouse import resolve_root

#: CONNECTION_ID() of each engine (session) of this process, from 1 as in MySQL.
_CONNECTION_IDS = itertools.count(1)


@dataclass
class TransactionPart:
    """One table's INSERTs of an open transaction: their files, staged and not committed."""

    meta: TableMeta
    staged: list[Staged] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    #: Its DELETEs' delete versions (dorisql.tablets.deletes.DeleteVersion, their version not
    #: known yet), committed before its INSERTs' files.
    deletes: list[Any] = field(default_factory=list)


@dataclass
class OpenTransaction:
    """BEGIN's transaction, until COMMIT or ROLLBACK (dorisql.tablets.transactions commits it)."""

    label: str
    txn_id: int
    #: The one database its tables are in, and whether its INSERTs are VALUES lists or SELECTs
    #: (Doris allows one kind per transaction); None until its first INSERT.
    db: str | None = None
    kind: str | None = None
    #: By table id.
    parts: dict[int, TransactionPart] = field(default_factory=dict)

    def discard(self) -> None:
        """ROLLBACK, or the session's end: the staged files deleted, nothing ever visible."""
        for part in self.parts.values():
            for staged in part.staged:
                staged.discard()
        self.parts.clear()


class Session:
    """One user's session over a warehouse: what every statement handler works with (catalog,
    warehouse, settings and variables, the clock, Spark, cancel, the user)."""

    def __init__(
        self,
        config=None,
        clock: Clock | None = None,
        spark=None,
        spark_source: Callable[[threading.Event], Any] | None = None,
    ):
        self.config = config or Config()
        self.warehouse = resolve_root(self.config.warehouse)
        if not self.warehouse.is_dir():
            self.warehouse.mkdir(parents=True)
        self.catalog = open_catalog(self.warehouse, self.config.catalog)
        self._clock = clock
        self.session_vars: dict[str, str] = {**SESSION_DEFAULTS, **{k: str(v) for k, v in self.config.session.items()}}
        self.current_db: str | None = getattr(self.config, "database", None)
        self._spark = spark
        #: Where a shared SparkSession comes from when it was not started yet (the server starts
        #: one in the background for every connection): called on first need with the session's
        #: cancel event; it waits for the start (a KILL ends the wait: CancelledError).
        self._spark_source = spark_source
        self._spark_lock = threading.Lock()
        self._spark_thread: threading.Thread | None = None
        self._spark_error: BaseException | None = None
        self._progress: Callable[[str], None] | None = None
        self._job_group = f"dorisql-{id(self)}"
        #: The Spark FAIR scheduler pool this session's jobs run in (the server gives each
        #: connection its own, so a short statement is not queued behind another's long job);
        #: None: Spark's default pool.
        self.scheduler_pool: str | None = None
        self._cancelled = threading.Event()
        self._executing = False
        self._in_job_group = False
        self.on_spark_wait: Callable[[], None] | None = None
        #: Folder that relative file paths in a script (local() table functions) are taken from.
        self.base_dir: Path | None = None
        #: The private copies of the files the running statement's local() calls read.
        self.local_files = LocalFiles(self.warehouse)
        #: The session's user (dorisql.session.access: the server sets what login returned); every
        #: statement is checked against its privileges. None: the local shell and scripts, as root.
        self.user: ast.UserIdentity | None = None
        #: CONNECTION_ID(); a server may set its own connection id.
        self.connection_id: int = next(_CONNECTION_IDS)
        #: The previous statement's warnings and error, (Level, Code, Message): SHOW WARNINGS.
        self.last_notes: list[tuple[str, int, str]] = []
        #: BEGIN ... COMMIT: the open transaction, if any.
        self.transaction: OpenTransaction | None = None
        #: information_schema.processlist's rows (column -> value) of the connections this session
        #: may see; a server sets it (its connections), elsewhere there are none.
        self.process_rows: Callable[[], list[dict[str, Any]]] | None = None

    # ------------------------------------------------------------------ time and settings

    @property
    def clock(self) -> Clock:
        """The session clock: `SET dorisql_now` pins it, else the injected or the system clock."""
        pinned = self.session_vars.get("dorisql_now")
        if pinned:
            return FixedClock(parse_now(pinned))
        return self._clock or SystemClock()

    def now(self) -> dt.datetime:
        return self.clock.now()

    def frontend(self, name: str) -> str:
        """A frontend setting: catalog (ADMIN SET) > config file > Doris default."""
        stored = self.catalog.get_config(name, None)
        if stored is not None:
            return stored
        configured = self.config.frontend.get(name)
        if configured is not None:
            return str(configured)
        return FRONTEND_DEFAULTS[name]

    def strict_mode(self) -> bool:
        return self.session_vars.get("enable_insert_strict", "true") == "true"

    # ------------------------------------------------------------------ Spark

    @property
    def spark_started(self) -> bool:
        return self.running_spark is not None

    @property
    def running_spark(self):
        """The SparkSession if it has started, else None. Never starts Spark and never joins
        a job group: for observers on other threads (the shell's progress line)."""
        if self._spark is None and self._spark_source is not None:
            return getattr(self._spark_source, "started", None)
        return self._spark

    def start_spark_in_background(self) -> None:
        """Start Spark on a daemon thread so the shell's prompt never waits for it."""
        with self._spark_lock:
            if self._spark is not None or self._spark_thread is not None or self._spark_source is not None:
                return  # (a shared source starts its Spark itself)
            self._spark_thread = threading.Thread(target=self._start_spark, name="spark-start", daemon=True)
            self._spark_thread.start()

    def _start_spark(self) -> None:
        try:
            session = create_session(master=self.config.master, conf=self.config.spark_conf, remote=self.config.remote)
            logfile.capture_spark_logs()  # before any query can fail
            self._spark = session
        except BaseException as exc:  # reported to the statement that needs Spark
            self._spark_error = exc

    @property
    def spark(self):
        """The SparkSession, starting it (or waiting for the background start) if needed."""
        if self._spark is not None and not self._spark_alive():
            self._restart_dead_spark()
        if self._spark is not None:
            self._join_job_group()
            return self._spark
        if self._spark_source is not None:  # shared, started elsewhere: wait for it
            if self.on_spark_wait is not None and getattr(self._spark_source, "started", None) is None:
                self.on_spark_wait()
            self._spark = self._spark_source(self._cancelled)
            self._join_job_group()
            return self._spark
        self.start_spark_in_background()
        thread = self._spark_thread
        if thread is not None and thread.is_alive() and self.on_spark_wait is not None:
            self.on_spark_wait()
        if thread is not None:
            thread.join()
        if self._spark is None:
            err = self._spark_error
            assert err is not None  # the start thread sets the session or the error
            raise failures.spark_startup_failure(err) from err
        self._join_job_group()
        return self._spark

    def _spark_alive(self) -> bool:
        return is_alive(self._spark)

    def _restart_dead_spark(self) -> None:
        """Spark's driver JVM has exited (out of memory: storage.spark makes it exit rather than
        hang; or killed). Start a new one for this statement, and say so in the log; a shared
        source (the server's) is asked to restart its own (`restart_dead`)."""
        import sys

        dead, self._spark = self._spark, None
        self._in_job_group = False
        note = "Spark's driver had stopped (out of memory, or killed); starting a new one"
        print(f"dorisql: {note}", file=sys.stderr)
        logfile.record_failure(RuntimeError(note), shown=f"(none: {note})")
        if self._spark_source is not None:
            restart = getattr(self._spark_source, "restart_dead", None)
            if restart is None:
                raise ExecutionError("Spark stopped unexpectedly (its driver ran out of memory or was killed)")
            restart(dead)
            return
        forget_dead(dead)
        self._spark_thread, self._spark_error = None, None

    @contextlib.contextmanager
    def spark_in_time_zone(self, zone: str | None) -> Iterator[None]:
        """Within the block, this session's Spark work runs in time zone `zone` (a Spark zone
        id): a new SparkSession on the same SparkContext with its own ``spark.sql.session.
        timeZone``, so no other session sees the change. None: nothing changes."""
        if not zone:
            yield
            return
        shared = self.spark
        zoned = shared.newSession()
        zoned.conf.set("spark.sql.session.timeZone", zone)
        self._spark = zoned
        try:
            yield
        finally:
            self._spark = shared

    @property
    def connect(self) -> bool:
        """Spark runs behind a Spark Connect server (``--remote``): no SparkContext here."""

        return self._spark is not None and is_connect(self._spark)

    def _join_job_group(self) -> None:
        """Put the running statement's Spark jobs in this session's job group (once per
        statement), so cancel() stops exactly them, even when Spark started mid-statement.
        Spark Connect has no job groups: there the statement's operations carry a tag
        (thread-local, as a job group), removed when the statement ends."""
        if self._executing and not self._in_job_group:
            if self.connect:
                self._spark.addTag(self._job_group)
            else:
                context = self._spark.sparkContext
                context.setJobGroup(self._job_group, "dorisql statement", True)
                # A local property of this thread's JVM thread (PySpark's pinned threads), as
                # the job group; None puts the thread back in the default pool.
                context.setLocalProperty("spark.scheduler.pool", self.scheduler_pool)
            self._in_job_group = True

    def _leave_job_group(self) -> None:
        if self.connect:
            if self._in_job_group:
                self._spark.removeTag(self._job_group)
            drop_pending_views(self._spark)
        self._in_job_group = False

    def cancel(self) -> None:
        """Cancel the running statement's Spark jobs (Ctrl-C in the shell)."""
        self._cancelled.set()
        if self._spark is not None:
            try:
                if self.connect:
                    self._spark.interruptTag(self._job_group)
                else:
                    self._spark.sparkContext.cancelJobGroup(self._job_group)
            except Exception:  # best effort: Spark may be between jobs
                pass

    @contextlib.contextmanager
    def running_statement(self) -> Iterator[None]:
        """The span of one statement: a cancel from before it is forgotten, its Spark jobs join
        this session's job group, and at its end the group is left and local() copies go."""
        self._cancelled.clear()
        self._executing, self._in_job_group = True, False
        try:
            yield
        finally:
            self._executing = False
            self._leave_job_group()
            self.local_files.release()

    @property
    def executing(self) -> bool:
        """A statement is running (inside `running_statement`): a `cancel` now reaches it, while
        one from before a statement starts is forgotten."""
        return self._executing

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise CancelledError()

    def on_progress(self, callback: Callable[[str], None] | None) -> None:
        self._progress = callback

    def progress(self, message: str) -> None:
        if self._progress is not None:
            self._progress(message)

    def close(self) -> None:
        if self.transaction is not None:  # a session that ends rolls its transaction back (Doris)
            self.transaction.discard()
            self.transaction = None
        if self._spark is not None and self._owns_spark():
            try:
                self._spark.stop()
            except Exception as exc:  # the JVM already died: nothing left to stop
                logfile.record_failure(exc, shown="(none: stopping Spark at the end of the session)")
            self._spark = None
        self.catalog.close()  # its connections (a PostgreSQL catalog's are server sessions); reopens on use

    def _owns_spark(self) -> bool:
        return self._spark_thread is not None

    # ------------------------------------------------------------------ statements

    def resolve_db(self, db: str | None) -> str:
        name = db or self.current_db
        if not name:
            raise NoDatabaseSelectedError()
        return name

    def parse(self, sql: str) -> list[ast.Statement]:
        """`dorisql.syntax.parse`, stopped by `cancel()` (a KILL while a 16 MiB statement is
        being read): CancelledError. A cancel from before the call is forgotten."""

        self._cancelled.clear()
        with cancellable(self.check_cancelled):
            return parse(sql)
