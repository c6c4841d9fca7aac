"""Spark's driver dying (out of memory, killed) does not leave a session hanging: the statement
that meets the dead JVM fails with a message, the next one starts a new Spark and runs, and
the log says why. The driver is started with -XX:+ExitOnOutOfMemoryError, so an out-of-memory
driver exits (which this shows) instead of hanging every later Py4J call.

Each test runs in a process of its own: a process has one SparkContext, and killing the test
session's would stop every other Spark test."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import json, os, signal, sys, time
    from dorisql.config import Config
    from dorisql.engine.session import Engine
    from dorisql.errors import DorisqlError

    conf = {"spark.driver.memory": sys.argv[2], "spark.sql.shuffle.partitions": "2"}
    engine = Engine(Config(warehouse=sys.argv[1], master="local[1]", spark_conf=conf))
    out = {}

    def run(sql):
        start = time.monotonic()
        try:
            rows = [list(r) for r in engine.execute_sql(sql)[-1].rows]
            return {"rows": rows, "seconds": time.monotonic() - start}
        except DorisqlError as err:
            return {"error": str(err), "seconds": time.monotonic() - start}

    out["first"] = run("SELECT 1 + 1")
    first_jvm = engine.spark.sparkContext._gateway.proc
    if sys.argv[3] == "kill":
        os.kill(first_jvm.pid, signal.SIGKILL)
        first_jvm.wait()
    else:  # what an 850,000-row INSERT once sent: Spark SQL text too large for the driver's heap
        row = "(" + ", ".join(["concat('abcdefghij', 'klmnopqrst')"] * 20) + ")"
        try:
            engine.spark.sql("SELECT count(*) FROM (VALUES " + ", ".join([row] * 60000) + ")").collect()
            out["oom"] = "no error"
        except Exception as exc:
            out["oom"] = type(exc).__name__
        first_jvm.wait(timeout=120)  # the JVM exits; without ExitOnOutOfMemoryError it lingered
    out["exit"] = first_jvm.returncode
    out["after"] = run("SELECT 40 + 2")
    out["again"] = run("SELECT 'still', 1")
    engine.close()
    print(json.dumps(out))
    """
)


def _run(spark_process_env, tmp_path, memory: str, how: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "wh"), memory, how],
        env=spark_process_env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["stderr"] = done.stderr
    return out


def test_a_killed_driver_is_replaced_for_the_next_statement(spark_process_env, tmp_path):
    out = _run(spark_process_env, tmp_path, "512m", "kill")
    assert out["first"]["rows"] == [[2]]
    assert out["exit"] == -9
    assert out["after"]["rows"] == [[42]], out
    assert out["again"]["rows"] == [["still", 1]]
    assert "Spark's driver had stopped (out of memory, or killed); starting a new one" in out["stderr"]


def test_an_out_of_memory_driver_exits_and_the_session_goes_on(spark_process_env, tmp_path):
    out = _run(spark_process_env, tmp_path, "512m", "oom")
    assert out["first"]["rows"] == [[2]]
    assert out["oom"] != "no error"
    assert out["exit"] not in (None, 0)  # the JVM exited (ExitOnOutOfMemoryError), it does not hang
    assert out["after"]["rows"] == [[42]], out
    assert out["again"]["rows"] == [["still", 1]]
