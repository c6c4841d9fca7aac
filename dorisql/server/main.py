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
  (dorisql.jobs.scheduler.default_jobs),
  then wait for SIGTERM / SIGINT: stop accepting, cancel running statements (each ends before
  its commit or after it, never half-way: dorisql's commit protocol), stop the jobs and Spark,
  exit 0; whatever still runs SHUTDOWN_DEADLINE_SECONDS after the signal, the process ends (1).
  Spark failing to start stops the server (exit 1) with the reason on stderr.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from dorisql import logfile
from dorisql.config import Config, state_dir
from dorisql.jobs.runner import BackgroundScheduler
from dorisql.jobs.scheduler import default_jobs
from dorisql.server.context import SHUTDOWN_DEADLINE_SECONDS, Authenticator, ServerContext, SharedSpark, catalog_source
from dorisql.server.http import HttpListener
from dorisql.server.mysql import MySQLListener
from dorisql.session import failures
from dorisql.storage.jvm_stderr import divert_jvm_stderr
from dorisql.storage.spark import create_session

log = logging.getLogger("dorisql.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_QUERY_PORT = 9030  # Doris FE's query_port
DEFAULT_HTTP_PORT = 8030  # Doris FE's http_port

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class ServerOptions:
    host: str = DEFAULT_HOST
    query_port: int = DEFAULT_QUERY_PORT
    http_port: int = DEFAULT_HTTP_PORT


class Listener(Protocol):
    host: str
    #: The port (after start(): the one bound, when 0 asked for a free one).
    port: int

    def start(self) -> None:
        """Bind and serve in the background; raise OSError if the address cannot be had."""

    def stop(self) -> None:
        """Stop accepting, end what runs (running statements are cancelled first), return."""


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

    return [
        MySQLListener(context, options.host, options.query_port),
        HttpListener(context.http_engine, options.host, options.http_port),
    ]


#: Spark settings of the server's session unless the configuration sets them: the FAIR
#: scheduler shares the cores between the connections' pools (`ServerContext.pools`), where
#: Spark's default (FIFO) runs every job after all the jobs submitted before it. Not with
#: Spark Connect: its scheduler is the Connect server's, set where it starts.
SERVER_SPARK_CONF = {"spark.scheduler.mode": "FAIR"}


def start_spark(config: Config):
    conf = config.spark_conf if config.remote else {**SERVER_SPARK_CONF, **config.spark_conf}
    session = create_session(master=config.master, conf=conf, remote=config.remote)
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
            context.background_engine, default_jobs(), report=lambda message: log.info("[scheduler] %s", message)
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
