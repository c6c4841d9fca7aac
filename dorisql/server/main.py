"""``dorisql server``: one process, one Spark session, the listeners Doris's clients connect to.

- `ServerContext`: what every listener shares: the configuration, the one SparkSession,
  `new_engine()` (one dorisql `Engine` per connection or request: its own current database,
  session variables and Spark job group), the `Authenticator`, and the set of engines running
  a statement (SIGTERM cancels them).
- `Authenticator`: the seam every identity check goes through (MySQL logins and, later, HTTP
  requests), over the catalog's users (a new warehouse has Doris's ``root`` and ``admin``
  with empty passwords).
- `Listener`: ``start()`` binds and serves in the background (raising ``OSError`` when the port
  cannot be had), ``stop()`` stops serving and waits for what is running. `build_listeners`
  lists them: the MySQL protocol (`dorisql.server.mysql.MySQLListener`) and Doris's HTTP API.
- `SharedSpark`: the one SparkSession, started on a background thread; a statement that needs
  it waits for it (a KILL ends the wait), everything else is answered at once.
- `run_server`: refuse a non-loopback address while a privileged user has no password, open
  the listeners, start Spark in the background and the background jobs
  (dorisql.engine.scheduler.default_jobs),
  then wait for SIGTERM / SIGINT: stop accepting, cancel running statements (each ends before
  its commit or after it, never half-way: dorisql's commit protocol), stop the jobs and Spark,
  exit 0; whatever still runs SHUTDOWN_DEADLINE_SECONDS after the signal, the process ends (1).
  Spark failing to start stops the server (exit 1) with the reason on stderr.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dorisql import ast
    from dorisql.catalog.base import Catalog
    from dorisql.config import Config
    from dorisql.engine.session import Engine

log = logging.getLogger("dorisql.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_QUERY_PORT = 9030  # Doris FE's query_port
DEFAULT_HTTP_PORT = 8030  # Doris FE's http_port
#: Seconds SIGTERM waits for cancelled statements to end (a commit in progress completes).
SHUTDOWN_GRACE_SECONDS = 30.0
#: Seconds after SIGTERM at which the process ends whatever still runs (a Spark driver that no
#: longer answers, a stuck connection): the grace, and time to stop Spark after it.
SHUTDOWN_DEADLINE_SECONDS = SHUTDOWN_GRACE_SECONDS + 15.0

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class ServerOptions:
    host: str = DEFAULT_HOST
    query_port: int = DEFAULT_QUERY_PORT
    http_port: int = DEFAULT_HTTP_PORT


class Authenticator:
    """Who may connect: the one place the server's identity checks go through, over the users
    the catalog stores (dorisql.auth.users; a new warehouse has Doris's ``root`` without a
    password). Each check returns the identity a session runs as (set it as ``Engine.user``:
    every statement is then checked against its grants) or raises AuthenticationError."""

    def __init__(self, catalog_source: Callable[[], Catalog]):
        self._catalog = catalog_source

    def login_native(self, user: str, client_host: str, salt: bytes, response: bytes) -> ast.UserIdentity:
        """A MySQL handshake (mysql_native_password: the server's scramble, the client's answer)."""
        from dorisql.auth.users import authenticate_native

        return authenticate_native(self._catalog(), user, client_host, salt, response)

    def login_password(self, user: str, client_host: str, password: str) -> ast.UserIdentity:
        """A clear-text password (HTTP basic auth)."""
        from dorisql.auth.users import authenticate_password

        return authenticate_password(self._catalog(), user, client_host, password)

    def privileged_without_password(self) -> list[str]:
        """'name'@'host' of every user who holds a privilege and has no password."""
        from dorisql.auth.users import privileged_without_password

        return [f"'{entry.name}'@'{entry.host}'" for entry in privileged_without_password(self._catalog())]


class Listener(Protocol):
    host: str
    #: The port (after start(): the one bound, when 0 asked for a free one).
    port: int

    def start(self) -> None:
        """Bind and serve in the background; raise OSError if the address cannot be had."""

    def stop(self) -> None:
        """Stop accepting, end what runs (running statements are cancelled first), return."""


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
        from dorisql.engine import failures
        from dorisql.errors import CancelledError

        self.start()
        while not self._ready.wait(0.1):
            if cancelled is not None and cancelled.is_set():
                raise CancelledError()
        if self._session is None:
            raise failures.spark_startup_failure(self._error) from self._error
        return self._session

    def restart_dead(self, dead: object) -> None:
        """The driver JVM of `dead`, this source's session, has exited (out of memory: it is
        started with ExitOnOutOfMemoryError; or killed): forget it and start a new one in the
        background; the statements that need Spark wait for it. Many connections notice at
        once: only the first restarts, the others find a new session already."""
        from dorisql.storage.spark import forget_dead

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

    def database_exists(self, name: str) -> bool:
        """Whether the catalog has this database (a login that names one)."""
        return self.catalog().database_exists(name)

    def new_engine(self) -> Engine:
        """A fresh session on the shared Spark (call it on the thread that will use it)."""
        from dorisql.engine.session import Engine

        return Engine(self.config, spark=self.spark.started, spark_source=self.spark)

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


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` stands for is a loopback address (127.0.0.0/8, ::1)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def catalog_source(config: Config) -> Callable[[], Catalog]:
    """The warehouse's catalog, opened on first use (creating the warehouse as an Engine does)."""
    opened: list[Catalog] = []
    lock = threading.Lock()

    def catalog() -> Catalog:
        with lock:
            if not opened:
                from dorisql.catalog import open_catalog
                from dorisql.warehouse import resolve_root

                root = resolve_root(config.warehouse)
                root.mkdir(parents=True, exist_ok=True)
                opened.append(open_catalog(root, config.catalog))
            return opened[0]

    return catalog


def describe(listener: Listener) -> str:
    return f"{type(listener).__name__} on {listener.host}:{listener.port}"


def refusal(host: str, authenticator: Authenticator) -> str | None:
    """Why the server must not listen on ``host``, or None: beyond loopback, every user who
    holds a privilege needs a password (Doris's built-in ``root`` and ``admin`` have none)."""
    if is_loopback(host):
        return None
    open_users = authenticator.privileged_without_password()
    if not open_users:
        return None
    who = ", ".join(open_users)
    verb = "has" if len(open_users) == 1 else "have"
    first = open_users[0]
    return (
        f"refusing to listen on {host}: {who} {verb} privileges and no password, so anyone who can "
        f'reach this address could connect as them. Set one for each first (dorisql -e "SET PASSWORD '
        f"FOR {first} = PASSWORD('...')\" on the same warehouse), drop the user, or listen on 127.0.0.1"
    )


def build_listeners(context: ServerContext, options: ServerOptions) -> list[Listener]:
    """The server's listeners, started in this order and stopped in reverse."""
    from .http import HttpListener
    from .mysql import MySQLListener

    return [
        MySQLListener(context, options.host, options.query_port),
        HttpListener(context.new_engine, options.host, options.http_port),
    ]


def start_spark(config: Config):
    from dorisql import logfile
    from dorisql.storage.spark import create_session

    session = create_session(master=config.master, conf=config.spark_conf, remote=config.remote)
    logfile.capture_spark_logs()
    return session


def run_server(
    config: Config,
    options: ServerOptions,
    *,
    authenticator: Authenticator | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Run until SIGTERM / SIGINT (or ``stop`` is set). Returns the exit status."""
    from dorisql.config import state_dir
    from dorisql.engine.jobs import BackgroundScheduler
    from dorisql.engine.scheduler import default_jobs
    from dorisql.shell.jvmlog import divert_jvm_stderr

    authenticator = authenticator or Authenticator(catalog_source(config))
    refused = refusal(options.host, authenticator)
    if refused:
        print(f"dorisql server: {refused}", file=sys.stderr)
        return EXIT_USAGE
    stop = stop or threading.Event()
    _on_signals(stop)

    divert_jvm_stderr(state_dir() / "spark.log")
    _configure_logging()  # after the diversion: on the real stderr, not in spark.log
    log.info("starting Spark (%s)", f"Spark Connect {config.remote}" if config.remote else f"master {config.master}")
    spark = SharedSpark(lambda: start_spark(config))
    context = ServerContext(config, spark, authenticator)
    listeners = build_listeners(context, options)
    started: list[Listener] = []
    scheduler = None
    failed: list[str] = []

    def spark_done(error: BaseException | None) -> None:
        if error is None:
            log.info("Spark ready (master %s)", config.master)
            return
        from dorisql.engine import failures

        failed.append(str(failures.spark_startup_failure(error)))  # no Java, a bad master URL
        stop.set()

    status = EXIT_OK
    try:
        for listener in listeners:
            try:
                listener.start()
            except OSError as exc:
                print(f"dorisql server: cannot listen ({describe(listener)}): {exc.strerror or exc}", file=sys.stderr)
                status = EXIT_FAILED
                return status
            started.append(listener)
            log.info("listening: %s", describe(listener))
        # The ports are open first: a client connecting now is answered (what needs no Spark at
        # once, the rest once Spark is up) instead of refused.
        log.info("starting Spark in the background (master %s)", config.master)
        spark.start(spark_done)
        scheduler = BackgroundScheduler(
            context.new_engine, default_jobs(), report=lambda message: log.info("[scheduler] %s", message)
        )
        scheduler.start()
        log.info("dorisql server ready (warehouse %s)", config.warehouse)
        stop.wait()
        if failed:
            print(f"dorisql server: {failed[0]}", file=sys.stderr)
            status = EXIT_FAILED
        log.info("shutting down")
    finally:
        exit_after(SHUTDOWN_DEADLINE_SECONDS)
        context.stopping.set()
        context.cancel_all()
        for listener in reversed(started):
            try:
                listener.stop()
            except Exception:  # one listener failing to stop must not keep the others running
                log.exception("stopping %s failed", describe(listener))
        if scheduler is not None:
            scheduler.stop()
        spark.stop()
        log.info("stopped")
    return status


def exit_after(seconds: float) -> None:
    """End the process `seconds` from now unless it has ended by then (a daemon thread). A stop
    cut short this way is a crash to the warehouse, which every commit is safe against."""

    def watchdog() -> None:
        time.sleep(seconds)
        log.error("shutdown did not finish within %.0f s: exiting now", seconds)
        logging.shutdown()
        os._exit(EXIT_FAILED)

    threading.Thread(target=watchdog, name="dorisql-shutdown-deadline", daemon=True).start()


def _on_signals(stop: threading.Event) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # embedded (tests): the caller sets `stop`
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())


def _configure_logging() -> None:
    """The server's own log lines on stderr (a service manager keeps them); failure details
    (tracebacks) go to dorisql.log as in the shell (dorisql.logfile)."""
    root = logging.getLogger("dorisql.server")
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        root.propagate = False
