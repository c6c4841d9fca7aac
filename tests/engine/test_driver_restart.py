"""Spark's driver dying (out of memory, killed) does not leave a session hanging: the statement
that meets the dead JVM fails with a message, the next one starts a new Spark and runs, and
the log says why. The driver is started with -XX:+ExitOnOutOfMemoryError, so an out-of-memory
driver exits (which this shows) instead of hanging every later Py4J call.

The test runs in a process of its own: a process has one SparkContext, and killing the test
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
    from dorisql.engine import Engine
    from dorisql.errors import DorisqlError

    conf = {"spark.driver.memory": "512m", "spark.sql.shuffle.partitions": "2"}
    engine = Engine(Config(warehouse=sys.argv[1], master="local[1]", spark_conf=conf))
    out = {}

    def run(sql):
        try:
            return {"rows": [list(r) for r in engine.execute_sql(sql)[-1].rows]}
        except DorisqlError as err:
            return {"error": str(err)}

    out["first"] = run("SELECT 1 + 1")
    # what an 850,000-row INSERT once sent: Spark SQL text too large for the driver's heap
    jvm = engine.spark.sparkContext._gateway.proc
    row = "(" + ", ".join(["concat('abcdefghij', 'klmnopqrst')"] * 20) + ")"
    try:
        engine.spark.sql("SELECT count(*) FROM (VALUES " + ", ".join([row] * 60000) + ")").collect()
        out["oom"] = "no error"
    except Exception as exc:
        out["oom"] = type(exc).__name__
    jvm.wait(timeout=120)  # the JVM exits; without ExitOnOutOfMemoryError it lingered, hanging
    out["oom_exit"] = jvm.returncode
    out["after_oom"] = run("SELECT 40 + 2")
    # a driver killed outright
    jvm = engine.spark.sparkContext._gateway.proc
    os.kill(jvm.pid, signal.SIGKILL)
    jvm.wait()
    out["kill_exit"] = jvm.returncode
    out["after_kill"] = run("SELECT 'still', 1")
    engine.close()
    print(json.dumps(out))
    """
)


def test_a_dead_driver_is_replaced_for_the_next_statement(spark_process_env, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "wh")],
        env=spark_process_env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["first"] == {"rows": [[2]]}
    assert out["oom"] != "no error"
    assert out["oom_exit"] not in (None, 0)  # the out-of-memory JVM exited, it does not hang
    assert out["after_oom"] == {"rows": [[42]]}, out
    assert out["kill_exit"] == -9
    assert out["after_kill"] == {"rows": [["still", 1]]}, out
    note = "Spark's driver had stopped (out of memory, or killed); starting a new one"
    assert done.stderr.count(note) == 2
