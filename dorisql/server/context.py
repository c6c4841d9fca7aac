"""What the listeners of one server share: the configuration, the catalog, the login
(`Authenticator`), the one Spark session started in the background (`SharedSpark`), the stop."""

from __future__ import annotations

import dataclasses
import heapq
import logging
import threading
from collections.abc import Callable

from dorisql import ast
from dorisql.catalog import open_catalog
from dorisql.catalog.base import Catalog
from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.errors import CancelledError
from dorisql.session import failures
from dorisql.session.access import authenticate_native, authenticate_password, privileged_without_password
from dorisql.statements.show.information_schema import is_system_database
from dorisql.storage.spark import forget_dead
from dorisql.warehouse import resolve_root

log = logging.getLogger("dorisql.server")

#: Seconds SIGTERM waits for cancelled statements to end (a commit in progress completes).
SHUTDOWN_GRACE_SECONDS = 30.0


#: Seconds after SIGTERM at which the process ends whatever still runs (a Spark driver that no
#: longer answers, a stuck connection): the grace, and time to stop Spark after it.
SHUTDOWN_DEADLINE_SECONDS = SHUTDOWN_GRACE_SECONDS + 15.0


class SharedSpark:
    """The server's one SparkSession, started in the background so the ports open at once
    (as the shell's prompt does not wait for Spark either). Engines call it (`Engine(...,
    spark_source=shared)`) when a statement first needs Spark."""

    def __init__(self, start: Callable[[], object]):
        self._start = start
        self._ready = threading.Event()
        self._session: object | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, session: object) -> SharedSpark:
        """One that has already started (embedding, tests)."""
        shared = cls(lambda: session)
        shared._session = session
        shared._ready.set()
        return shared

    def start(self, on_done: Callable[[BaseException | None], None] | None = None) -> None:
        """Start Spark on a daemon thread; ``on_done(error or None)`` when it is up (or failed)."""

        def run() -> None:
            try:
                self._session = self._start()
            except BaseException as exc:  # reported to the statements that need Spark
                self._error = exc
            finally:
                self._ready.set()
            if on_done is not None:
                on_done(self._error)

        with self._lock:
            if self._thread is None and not self._ready.is_set():
                self._thread = threading.Thread(target=run, name="spark-start", daemon=True)
                self._thread.start()

    @property
    def started(self):
        """The SparkSession once it runs, else None (never waits)."""
        return self._session if self._ready.is_set() else None

    def __call__(self, cancelled: threading.Event | None = None):
        """The SparkSession, waiting for its start; CancelledError if ``cancelled`` is set
        meanwhile, Doris-worded startup failure if Spark could not start."""

        self.start()
        while not self._ready.wait(0.1):
            if cancelled is not None and cancelled.is_set():
                raise CancelledError()
        if self._session is None:
            assert self._error is not None  # the start thread sets the session or the error
            raise failures.spark_startup_failure(self._error) from self._error
        return self._session

    def restart_dead(self, dead: object) -> None:
        """The driver JVM of `dead`, this source's session, has exited (out of memory: it is
        started with ExitOnOutOfMemoryError; or killed): forget it and start a new one in the
        background; the statements that need Spark wait for it. Many connections notice at
        once: only the first restarts, the others find a new session already."""

        with self._lock:
            if self._session is not dead:
                return
            forget_dead(dead)
            self._session, self._error, self._thread = None, None, None
            self._ready.clear()
        log.warning("Spark's driver had stopped (out of memory, or killed); starting a new one")
        self.start()

    def stop(self) -> None:
        """Stop Spark (waiting for a start in progress)."""
        if self._thread is not None:
            self._thread.join()
        session, self._session = self._session, None
        if session is not None:
            try:
                session.stop()  # type: ignore[attr-defined]
            except Exception:  # the JVM already went away
                pass


#: The FAIR scheduler pools of the server's other Spark work: Stream Loads (every HTTP request)
#: and the background jobs (compaction, dynamic partitions, trash).
HTTP_POOL = "http"
BACKGROUND_POOL = "background"


class SchedulerPools:
    """Names of Spark FAIR scheduler pools, one per open connection, so that Spark shares its
    cores between connections and a short statement is not queued behind another connection's
    long job (within a pool, jobs run first come first served). Spark keeps every pool it has
    seen for the life of its context, so a name is reused: a connection takes the lowest free
    one and gives it back at its end (as many pools as connections were ever open at once)."""

    def __init__(self, prefix: str = "connection"):
        self._prefix = prefix
        self._free: list[int] = []
        self._next = 1
        self._lock = threading.Lock()

    def take(self) -> str:
        with self._lock:
            if self._free:
                number = heapq.heappop(self._free)
            else:
                number, self._next = self._next, self._next + 1
        return f"{self._prefix}-{number}"

    def give_back(self, name: str) -> None:
        number = int(name.rsplit("-", 1)[1])
        with self._lock:
            if number not in self._free:
                heapq.heappush(self._free, number)


class ServerContext:
    """What the listeners of one server share."""

    def __init__(self, config: Config, spark, authenticator: Authenticator | None = None):
        self.config = dataclasses.replace(config, database=None)  # each connection picks its own
        #: The shared SparkSession (a `SharedSpark`, or a session already started).
        self.spark: SharedSpark = spark if isinstance(spark, SharedSpark) else SharedSpark.of(spark)
        self._running: set[Engine] = set()
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self.catalog = catalog_source(self.config)
        self.authenticator = authenticator or Authenticator(self.catalog)
        self.pools = SchedulerPools()

    def database_exists(self, name: str) -> bool:
        """Whether the catalog has this database, or it is information_schema / mysql (a login
        that names one)."""
        return is_system_database(name) or self.catalog().database_exists(name)

    def new_engine(self, pool: str | None = None) -> Engine:
        """A fresh session on the shared Spark (call it on the thread that will use it), its
        Spark jobs in the FAIR scheduler pool `pool` (None: Spark's default pool)."""

        engine = Engine(self.config, spark=self.spark.started, spark_source=self.spark)
        engine.scheduler_pool = pool
        return engine

    def http_engine(self) -> Engine:
        """A session for one HTTP request (Stream Load), in the HTTP pool."""
        return self.new_engine(HTTP_POOL)

    def background_engine(self) -> Engine:
        """A session for the background jobs, in their own pool."""
        return self.new_engine(BACKGROUND_POOL)

    def running(self, engine: Engine, active: bool) -> None:
        """Mark an engine as running a statement (or done), for `cancel_all`."""
        with self._lock:
            if active:
                self._running.add(engine)
            else:
                self._running.discard(engine)

    def cancel_all(self) -> None:
        with self._lock:
            engines = list(self._running)
        for engine in engines:
            engine.cancel()


class Authenticator:
    """Who may connect: the one place the server's identity checks go through, over the users
    the catalog stores (dorisql.session.access; a new warehouse has Doris's ``root`` without a
    password). Each check returns the identity a session runs as (set it as ``Engine.user``:
    every statement is then checked against its grants) or raises AuthenticationError."""

    def __init__(self, catalog_source: Callable[[], Catalog]):
        self._catalog = catalog_source

    def login_native(self, user: str, client_host: str, salt: bytes, response: bytes) -> ast.UserIdentity:
        """A MySQL handshake (mysql_native_password: the server's scramble, the client's answer)."""

        return authenticate_native(self._catalog(), user, client_host, salt, response)

    def login_password(self, user: str, client_host: str, password: str) -> ast.UserIdentity:
        """A clear-text password (HTTP basic auth)."""

        return authenticate_password(self._catalog(), user, client_host, password)

    def privileged_without_password(self) -> list[str]:
        """'name'@'host' of every user who holds a privilege and has no password."""

        return [f"'{entry.name}'@'{entry.host}'" for entry in privileged_without_password(self._catalog())]


def catalog_source(config: Config) -> Callable[[], Catalog]:
    """The warehouse's catalog, opened on first use (creating the warehouse as an Engine does)."""
    opened: list[Catalog] = []
    lock = threading.Lock()

    def catalog() -> Catalog:
        with lock:
            if not opened:
                root = resolve_root(config.warehouse)
                root.mkdir(parents=True, exist_ok=True)
                opened.append(open_catalog(root, config.catalog))
            return opened[0]

    return catalog
