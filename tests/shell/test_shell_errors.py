"""What a user sees when a statement fails, through the real ``dorisql`` command: one line of
Doris-style error on stderr (no traceback, no Java, no Spark JSON log record), and the detail in
the log file ``$XDG_STATE_HOME/dorisql/dorisql.log``."""

from __future__ import annotations

import re
from pathlib import Path

SETUP = (
    "CREATE DATABASE d; USE d; "
    "CREATE TABLE t (k INT, dt DATE, v VARCHAR(10)) DUPLICATE KEY(k) "
    "DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');"
)

#: What must never reach the terminal.
RAW = re.compile(r"Traceback|Exception|java\.|py4j|\{\"ts\"|Kernel error|Json error|SQLSTATE")
DORIS_LINE = re.compile(r"ERROR \d{4} \([0-9A-Z]{5}\) at line \d+: \S.*")


def _log(shell_env) -> Path:
    return Path(shell_env["XDG_STATE_HOME"]) / "dorisql" / "dorisql.log"


def _error_lines(out) -> list[str]:
    assert out.returncode == 1, out
    assert not RAW.search(out.stderr), out.stderr
    lines = out.stderr.splitlines()
    assert all(DORIS_LINE.fullmatch(line) for line in lines), lines
    return lines


# One dorisql process (one JVM start) for the failures that need Spark: each is one statement
# of a --force script, so each still has its own line and the statements after it still run.
def test_failures_in_a_script_are_one_line_each_and_the_detail_is_in_the_log(dorisql, shell_env, spark_process_env, wh):
    damaged = "CREATE DATABASE e; CREATE TABLE e.t (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1;"
    assert dorisql("-e", SETUP + damaged).returncode == 0
    (log_dir,) = (wh / "e").glob("*/_delta_log")  # the table's folder is named by its id
    commits = sorted(log_dir.glob("*.json"))
    latest = commits[-1]
    latest.write_text(latest.read_text()[: len(latest.read_text()) // 2])  # a commit cut short

    script = (
        "SELECT nope FROM d.t;\n"
        "SELECT nofunc(k) FROM d.t;\n"
        "SELECT DATE_ADD(CAST('2024-01-01' AS DATE), INTERVAL 100000 YEAR);\n"
        "SELECT * FROM e.t;\n"
        "SELECT 1 AS ok;\n"
    )
    out = dorisql("--force", "-e", script, timeout=300)
    assert _error_lines(out) == [
        "ERROR 1054 (42S22) at line 1: Unknown column 'nope' in 'table list'",
        "ERROR 1105 (HY000) at line 2: Can not found function 'nofunc'",
        "ERROR 1105 (HY000) at line 3: Invalid date value: year 102024 is out of range [0000-01-01, 9999-12-31]",
        "ERROR 1105 (HY000) at line 4: Table 'e.t' storage is damaged: its Delta log cannot be read "
        "(a commit file is not valid JSON); run ADMIN CHECK TABLE e.t",
    ]
    assert out.stdout == "ok\n1\n"  # nothing for the failed statements; the ones after a failure run
    log = _log(shell_env).read_text()
    # Spark's own record of the failure, with its Java stack trace, is kept for whoever debugs.
    assert "UNRESOLVED_COLUMN" in log and "org.apache.spark.sql.AnalysisException" in log
    assert "UNRESOLVED_ROUTINE" not in log  # the function allow-list refused nofunc before Spark saw it
    assert "ValueError: year 102024 is out of range" in log and "INTERVAL 100000 YEAR" in log


def test_spark_that_cannot_start_is_one_line(dorisql, shell_env):
    out = dorisql("-e", "SELECT 1", env={"JAVA_HOME": "/nonexistent-java"})
    log = _log(shell_env)
    assert _error_lines(out) == [
        f"ERROR 1105 (HY000) at line 1: Spark failed to start (see {log} and {log.with_name('spark.log')})"
    ]
    assert "Traceback" in log.read_text()
