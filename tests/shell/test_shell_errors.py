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


def test_an_unknown_column_is_one_line_and_the_detail_is_in_the_log(dorisql, shell_env, spark_process_env):
    assert dorisql("-e", SETUP).returncode == 0
    out = dorisql("-e", "SELECT nope FROM d.t")
    assert _error_lines(out) == ["ERROR 1054 (42S22) at line 1: Unknown column 'nope' in 'table list'"]
    assert out.stdout == ""
    log = _log(shell_env).read_text()
    # Spark's own record of the failure, with its Java stack trace, is kept for whoever debugs.
    assert "UNRESOLVED_COLUMN" in log and "org.apache.spark.sql.AnalysisException" in log


def test_an_unknown_function_and_a_date_beyond_9999_in_a_script(dorisql, shell_env, spark_process_env):
    assert dorisql("-e", SETUP).returncode == 0
    script = (
        "SELECT nofunc(k) FROM d.t;\n"
        "SELECT DATE_ADD(CAST('2024-01-01' AS DATE), INTERVAL 100000 YEAR);\n"
        "SELECT 1 AS ok;\n"
    )
    out = dorisql("--force", "-e", script)
    assert _error_lines(out) == [
        "ERROR 1105 (HY000) at line 1: Can not found function 'nofunc'",
        "ERROR 1105 (HY000) at line 2: Invalid date value: year 102024 is out of range [0000-01-01, 9999-12-31]",
    ]
    assert out.stdout == "ok\n1\n"  # the statements after a failure run as usual
    log = _log(shell_env).read_text()
    assert "UNRESOLVED_ROUTINE" not in log  # the function allow-list refused nofunc before Spark saw it
    assert "ValueError: year 102024 is out of range" in log and "INTERVAL 100000 YEAR" in log


def test_a_damaged_delta_log_names_the_table_and_the_problem(dorisql, shell_env, spark_process_env, wh):
    assert dorisql("-e", SETUP).returncode == 0
    (log_dir,) = (wh / "d").glob("*/_delta_log")  # the table's folder is named by its id
    commits = sorted(log_dir.glob("*.json"))
    latest = commits[-1]
    latest.write_text(latest.read_text()[: len(latest.read_text()) // 2])  # a commit cut short

    out = dorisql("-e", "SELECT * FROM d.t")
    assert _error_lines(out) == [
        "ERROR 1105 (HY000) at line 1: Table 'd.t' storage is damaged: its Delta log cannot be read "
        "(a commit file is not valid JSON); run ADMIN CHECK TABLE d.t"
    ]


def test_spark_that_cannot_start_is_one_line(dorisql, shell_env):
    out = dorisql("-e", "SELECT 1", env={"JAVA_HOME": "/nonexistent-java"})
    log = _log(shell_env)
    assert _error_lines(out) == [
        f"ERROR 1105 (HY000) at line 1: Spark failed to start (see {log} and {log.with_name('spark.log')})"
    ]
    assert "Traceback" in log.read_text()
