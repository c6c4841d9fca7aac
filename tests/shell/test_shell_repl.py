"""The real shell in a pseudo-terminal, used as a person would (pexpect, pinned 40x120
terminal, PROMPT_TOOLKIT_NO_CPR=1, isolated HOME and XDG folders, a temporary warehouse)."""

from __future__ import annotations

import re

import pytest

from shellkit import ANSI_ESCAPE

CREATE_TABLE_LINES = [
    "CREATE TABLE sales_orders (",
    "  order_id BIGINT,",
    "  order_date DATE,",
    "  amount DECIMAL(10, 2)",
    ")",
    "DUPLICATE KEY(order_id)",
    "PARTITION BY RANGE(order_date) (",
    "  PARTITION p202001 VALUES LESS THAN ('2020-02-01')",
    ")",
    "DISTRIBUTED BY HASH(order_id) BUCKETS 2",
    'PROPERTIES ("replication_num" = "1");',
]

#: The status line of a SHOW (a fresh warehouse may have no databases at all).
DONE = r"(?:rows? in set|Empty set) \("

#: An SGR sequence that sets a foreground or background colour.
COLOR_SGR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")


def _make_table(dorisql):
    out = dorisql("-e", "CREATE DATABASE d1; USE d1; " + " ".join(CREATE_TABLE_LINES))
    assert out.returncode == 0, out.stderr


def test_multi_line_create_table_then_show(repl):
    shell = repl()
    shell.run("CREATE DATABASE d1;", r"Query OK, \d+ rows? affected")
    shell.run("USE d1;", "Database changed", db="d1")
    for line in CREATE_TABLE_LINES[:-1]:
        shell.line(line)
        shell.expect(r"->")  # the continuation prompt: the statement is not finished yet
    shell.line(CREATE_TABLE_LINES[-1])
    shell.expect(r"Query OK, \d+ rows? affected \(\d+\.\d\d sec\)")
    shell.prompt("d1")
    out = shell.run("SHOW TABLES;", r"1 row in set", db="d1")
    assert "| Tables_in_d1 |" in out and "| sales_orders |" in out
    assert shell.quit() == 0


def test_a_semicolon_inside_a_string_does_not_end_the_statement(repl):
    shell = repl()
    shell.line("SHOW DATABASES LIKE 'x;")
    shell.expect(r"->")
    shell.line("y';")
    shell.expect(r"Empty set")
    shell.prompt()


def test_tab_completes_a_keyword(repl):
    shell = repl()
    shell.send("SHO\t")
    shell.expect("W")  # the completion is on the screen (drawn as a change: the W, or SHOW anew)
    shell.line(" DATABASES;")
    out = shell.expect(DONE)
    assert "ERROR" not in ANSI_ESCAPE.sub("", out)
    shell.prompt()


def test_tab_completes_a_table_name(repl, dorisql):
    _make_table(dorisql)
    shell = repl("-D", "d1")
    # names load in the background, on the thread that runs statements: loaded once one has run
    shell.run("SHOW TABLES;", r"1 row in set", db="d1")
    shell.send("DESC sales_o\t")
    shell.expect("rders")  # the completion is on the screen
    shell.line(";")
    out = shell.expect(DONE)
    assert "order_date" in ANSI_ESCAPE.sub("", out)


def test_history_is_recalled_after_a_restart(repl, shell_env):
    shell = repl()
    shell.run("CREATE DATABASE hist_db;", "Query OK")
    shell.run("SHOW DATABASES LIKE 'hist_db';", r"1 row in set")
    assert shell.quit() == 0
    history = f"{shell_env['XDG_STATE_HOME']}/dorisql/history"
    assert "SHOW DATABASES LIKE 'hist_db';" in open(history).read()
    again = repl()
    again.send("\x1b[A")  # up arrow: the last statement of the previous session
    again.expect("'hist_db'")  # recalled on the screen
    again.send("\r")
    out = again.expect(r"1 row in set")
    assert "| hist_db  |" in ANSI_ESCAPE.sub("", out)
    again.prompt()


def test_ctrl_c_at_the_prompt_clears_the_line(repl):
    shell = repl()
    shell.send("SHOW DATAB")
    shell.expect("DATAB")  # typed, on the screen
    shell.send("\x03")
    shell.prompt()
    out = shell.run("SHOW DATABASES;", DONE)
    assert "ERROR" not in out


def test_ctrl_d_and_exit_leave_with_status_0(repl):
    shell = repl()
    assert shell.quit() == 0
    for word in ("exit", "quit", "\\q"):
        shell = repl()
        shell.line(word)
        shell.expect("Bye")
        shell.expect(shell.pexpect.EOF)
        shell.child.close()
        assert shell.child.exitstatus == 0


def test_a_syntax_error_shows_the_caret(repl):
    shell = repl()
    shell.line("SHOW DATABASSES;")
    shell.expect(r"ERROR 1064 \(42000\): ")
    out = shell.prompt()
    lines = [line.rstrip() for line in ANSI_ESCAPE.sub("", out).splitlines()]
    assert any(line.endswith("^") for line in lines), lines
    shell.run("SHOW DATABASES;", DONE)  # the shell carries on


def test_vertical_output_with_backslash_g(repl):
    shell = repl()
    shell.run("CREATE DATABASE v1;", "Query OK")
    out = shell.run("SHOW DATABASES LIKE 'v1'\\G", r"1 row in set")
    assert "*************************** 1. row ***************************" in out
    assert "Database: v1" in out


def test_help_and_delimiter(repl):
    shell = repl()
    shell.run("help", "source <file>")
    shell.line("DELIMITER //")
    shell.prompt()
    shell.line("SHOW DATABASES;")
    shell.expect("->")  # ';' no longer ends a statement
    shell.line("//")
    shell.expect(DONE)
    shell.prompt()


def test_source_a_file(repl, tmp_path):
    (tmp_path / "s.sql").write_text("CREATE DATABASE sourced;\nSHOW DATABASES LIKE 'sourced';\n")
    shell = repl()
    out = shell.run(f"source {tmp_path / 's.sql'}", r"1 row in set")
    assert "| sourced  |" in out


def _typed_output(shell, text: str) -> str:
    """What the screen showed of `text` typed at the prompt (then cleared)."""
    shell.send(text)
    shell.expect(re.escape(text[-3:]))  # drawn: all of it, highlighted as it is drawn
    shell.send("\x03")  # clear the line
    shell.prompt()
    return "".join(shell.transcript[-2:])


def test_colour_is_used_and_no_color_turns_it_off(repl):
    colored = repl()
    colored_out = _typed_output(colored, "SELECT 1 FROM t WHERE x = 'a'")
    assert COLOR_SGR.search(colored_out), repr(colored_out)

    plain = repl(env={"NO_COLOR": "1"})
    plain_out = _typed_output(plain, "SELECT 1 FROM t WHERE x = 'a'")
    plain.line("SHOW DATABASSES;")
    plain.expect("ERROR 1064")
    plain_out += plain.prompt()
    assert not COLOR_SGR.search(plain_out), repr(plain_out)


@pytest.mark.spark
def test_ctrl_c_cancels_a_long_spark_statement_and_keeps_the_shell(spark_repl):
    shell = spark_repl()
    # Long enough to still run when Ctrl-C comes; Spark starts in the background meanwhile.
    shell.line(
        'SELECT max(sha2(cast(number AS STRING), 256)) FROM numbers("number" = "50000000000", "backend_num" = "4");'
    )
    shell.expect(r"\[Stage \d+: \d+/\d+ tasks", timeout=120)  # progress line: the job is running
    shell.send("\x03")
    shell.expect(r"ERROR 1317 \(70100\): Query execution was interrupted", timeout=60)
    shell.prompt()
    shell.run("SHOW DATABASES;", DONE)
    assert shell.quit() == 0


def test_the_dynamic_partition_scheduler_runs_while_the_shell_is_open(repl, dorisql):
    """A table created in 2020 (pinned clock) is aged by the shell's background scheduler,
    which runs on the real clock: its 2020 partitions go, today's come; the prompt survives."""
    created = dorisql(
        "-e",
        "CREATE DATABASE dyn; USE dyn; SET dorisql_now = '2020-05-29 10:00:00'; "
        "CREATE TABLE t (k1 DATE, v INT) DUPLICATE KEY(k1) PARTITION BY RANGE(k1) () "
        "DISTRIBUTED BY HASH(k1) BUCKETS 1 PROPERTIES ("
        "'dynamic_partition.time_unit' = 'DAY', 'dynamic_partition.start' = '-7', "
        "'dynamic_partition.end' = '3', 'dynamic_partition.prefix' = 'p')",
    )
    assert created.returncode == 0, created.stderr
    shell = repl()
    shell.expect(r"\[scheduler\] dynamic partitions: 1 tables checked, 4 partitions created, 4 dropped", timeout=60)
    import datetime as dt

    today = dt.date.today().strftime("p%Y%m%d")
    out = shell.run("SHOW PARTITIONS FROM dyn.t;", DONE)
    assert today in out and "p20200529" not in out


def test_help_create_table_is_text_that_fits_the_terminal(repl):
    shell = repl()
    out = shell.run("HELP CREATE TABLE;", r"Types: BOOLEAN")
    lines = [line.rstrip() for line in out.splitlines()]
    assert "Name: 'CREATE TABLE'" in lines and "Description:" in lines
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert not any(line.startswith("+-") for line in lines)


@pytest.mark.spark
def test_spark_errors_are_one_line_in_the_shell(spark_repl, dorisql):
    _make_table(dorisql)
    # Spark only when needed: the first query starts it and says so while it waits.
    shell = spark_repl("-D", "d1", env={"DORISQL_START_SPARK": "when_needed"})
    shell.line("SELECT nope FROM sales_orders;")
    shell.expect(r"\(waiting for Spark to start\.\.\.\)")
    shell.expect(r"ERROR 1054 \(42S22\): Unknown column 'nope' in 'table list'", timeout=180)
    shell.prompt("d1")
    shell.line("SELECT nofunc(order_id) FROM sales_orders;")
    shell.expect(r"ERROR 1105 \(HY000\): Can not found function 'nofunc'")
    shell.prompt("d1")
    seen = ANSI_ESCAPE.sub("", "".join(shell.transcript))
    for raw in ('{"ts"', "Traceback", "Exception", "java.", "py4j"):
        assert raw not in seen, seen[-2000:]
    assert shell.quit() == 0


@pytest.mark.spark
def test_the_progress_line_of_a_long_insert_moves(spark_repl, dorisql):
    _make_table(dorisql)
    shell = spark_repl("-D", "d1")
    # Eight tasks on two cores: they finish one after another while the statement runs.
    shell.line(
        """INSERT INTO sales_orders SELECT number, '2020-01-15', number % 100 FROM numbers("number" = "1600000", "backend_num" = "8");"""
    )
    lines = []
    while True:
        index = shell.child.expect(
            [r"\[Stage \d+: (\d+)/(\d+) tasks[^\r\n]*? - \d+ s", r"Query OK, 1600000 rows affected"], timeout=300
        )
        if index == 1:
            break
        lines.append(ANSI_ESCAPE.sub("", shell.child.after))
    shell.prompt("d1")
    done = [int(re.search(r"(\d+)/8 tasks", line).group(1)) for line in lines if "/8 tasks" in line]
    counts = [re.search(r"([1-9][\d,]*) rows (processed|written)", line) for line in lines]
    processed = {int(m.group(1).replace(",", "")) for m in counts if m}
    # the line moves during the run: tasks complete, or the rows processed grow (on a fast
    # machine the eight tasks may all finish between two refreshes)
    assert any(0 < n < 8 for n in done) or len(processed) > 1, lines
    assert processed, lines
    assert shell.quit() == 0


@pytest.mark.spark
def test_ctrl_d_typed_while_a_statement_runs_leaves_after_it(spark_repl):
    shell = spark_repl()
    shell.line(
        """SELECT count(*) FROM numbers("number" = "4000000", "backend_num" = "4") WHERE sha2(cast(number AS STRING), 512) LIKE '%abc%';"""
    )
    shell.expect(r"\[Stage \d+: \d+/\d+ tasks", timeout=180)  # the statement is running
    shell.send("\x04")
    shell.expect(r"1 row in set", timeout=180)  # its output is printed in full...
    shell.expect("Bye")  # ...then the shell leaves, as the mysql client does
    shell.expect(shell.pexpect.EOF)
    shell.child.close()
    assert shell.child.exitstatus == 0
