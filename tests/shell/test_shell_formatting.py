"""Golden tests of the output formats: pure functions of a Result, no engine needed."""

from __future__ import annotations

import datetime as dt
import decimal
import json

import pytest

from dorisql.errors import SqlSyntaxError, UnknownTableError
from dorisql.result import Result
from dorisql.shell.formatting import format_elapsed, format_error, format_result, statement_record


def _query(columns, rows, elapsed=0.02, **kw):
    result = Result.table(columns, rows)
    result.elapsed = elapsed
    for key, value in kw.items():
        setattr(result, key, value)
    return result


PARTITIONS = _query(
    ["PartitionId", "PartitionName", "Buckets", "DataSize", "Comment"],
    [(10001, "p20200521", 32, decimal.Decimal("1.50"), None), (10002, "p20200522", 8, decimal.Decimal("12.00"), "hot")],
)


def test_box_table_right_aligns_numbers_and_shows_null():
    assert format_result(PARTITIONS, "table") == "\n".join(
        [
            "+-------------+---------------+---------+----------+---------+",
            "| PartitionId | PartitionName | Buckets | DataSize | Comment |",
            "+-------------+---------------+---------+----------+---------+",
            "|       10001 | p20200521     |      32 |     1.50 | NULL    |",
            "|       10002 | p20200522     |       8 |    12.00 | hot     |",
            "+-------------+---------------+---------+----------+---------+",
            "2 rows in set (0.02 sec)",
        ]
    )


def test_one_row_is_singular_and_wide_characters_take_two_columns():
    result = _query(["名前", "n"], [("数据库", 1)], elapsed=0.001)
    assert format_result(result, "table") == "\n".join(
        [
            "+--------+---+",
            "| 名前   | n |",
            "+--------+---+",
            "| 数据库 | 1 |",
            "+--------+---+",
            "1 row in set (0.00 sec)",
        ]
    )


def test_empty_set():
    assert format_result(_query(["Database"], [], elapsed=0.0), "table") == "Empty set (0.00 sec)"


def test_query_ok_with_message_and_warnings():
    result = Result.ok(affected_rows=3, message="{'label':'insert_1', 'status':'VISIBLE'}")
    result.elapsed = 0.05
    result.warnings = ["2 rows filtered: no partition for value"]
    assert format_result(result, "table") == "\n".join(
        [
            "Query OK, 3 rows affected, 1 warning (0.05 sec)",
            "{'label':'insert_1', 'status':'VISIBLE'}",
            "Warning (Code 1105): 2 rows filtered: no partition for value",
        ]
    )
    single = Result.ok(affected_rows=1)
    single.elapsed = 0.0
    assert format_result(single, "table") == "Query OK, 1 row affected (0.00 sec)"
    zero = Result.ok()
    assert format_result(zero, "table") == "Query OK, 0 rows affected (0.00 sec)"


def test_vertical():
    result = _query(["Table", "Create Table"], [("t1", "CREATE TABLE `t1` (\n  `k` INT\n)")], elapsed=0.01)
    assert format_result(result, "table", vertical=True) == "\n".join(
        [
            "*************************** 1. row ***************************",
            "       Table: t1",
            "Create Table: CREATE TABLE `t1` (",
            "  `k` INT",
            ")",
            "1 row in set (0.01 sec)",
        ]
    )
    assert format_result(_query(["a"], []), "table", vertical=True) == "Empty set (0.02 sec)"


def test_tsv_escapes_like_mysql_batch_mode():
    result = _query(["k", "v"], [(1, "a\tb"), (2, "line1\nline2"), (None, "back\\slash")])
    assert format_result(result, "tsv") == "k\tv\n1\ta\\tb\n2\tline1\\nline2\nNULL\tback\\\\slash"


def test_tsv_and_csv_print_nothing_for_commands():
    assert format_result(Result.ok(affected_rows=5), "tsv") == ""
    assert format_result(Result.ok(affected_rows=5), "csv") == ""
    assert format_result(Result.ok(affected_rows=5), "json") == ""


def test_csv():
    result = _query(["k", "v"], [(1, 'say "hi", bye'), (None, "x")])
    assert format_result(result, "csv") == 'k,v\n1,"say ""hi"", bye"\n,x'


def test_json_is_a_list_of_objects():
    result = _query(
        ["k", "d", "t", "a", "n"], [(1, dt.date(2020, 5, 29), dt.datetime(2020, 5, 29, 10, 0), [1, 2], None)]
    )
    assert json.loads(format_result(result, "json")) == [
        {"k": 1, "d": "2020-05-29", "t": "2020-05-29 10:00:00", "a": [1, 2], "n": None}
    ]
    assert format_result(_query(["k"], []), "json") == "[]"


def test_jsonl_records_rows_as_tsv_text_with_their_kinds():
    result = _query(
        ["k", "t", "d", "n"],
        [(1, dt.datetime(2020, 5, 29, 10, 0), decimal.Decimal("1.50"), None), (2, None, None, None)],
    )
    assert json.loads(format_result(result, "jsonl")) == {
        "columns": ["k", "t", "d", "n"],
        "kinds": ["int", "datetime", "decimal", "null"],
        "rows": [["1", "2020-05-29 10:00:00", "1.50", None], ["2", None, None, None]],
    }
    record = json.loads(statement_record(Result.ok(3), line=7, statement="INSERT INTO t VALUES (1)"))
    assert record == {"line": 7, "statement": "INSERT INTO t VALUES (1)", "affected_rows": 3}
    error = json.loads(statement_record(error=UnknownTableError("Unknown table 't'"), line=2, statement="SELECT"))
    assert error["error"]["message"] == "Unknown table 't'" and error["line"] == 2


def test_values_render_like_doris():
    result = _query(
        ["b", "f", "ts", "arr", "m"], [(True, 0.5, dt.datetime(2020, 1, 1, 0, 0, 0), [1, 2], {"a": 1})], elapsed=0
    )
    assert format_result(result, "tsv") == 'b\tf\tts\tarr\tm\n1\t0.5\t2020-01-01 00:00:00\t[1, 2]\t{"a":1}'


def test_status_can_be_forced_off_and_on():
    assert format_result(PARTITIONS, "table", status=False).endswith("+")
    assert format_result(PARTITIONS, "tsv", status=True).endswith("2 rows in set (0.02 sec)")


def test_color_only_touches_the_status_line():
    colored = format_result(PARTITIONS, "table", color=True)
    assert "\x1b[" in colored.splitlines()[-1]
    assert all("\x1b[" not in line for line in colored.splitlines()[:-1])


@pytest.mark.parametrize(
    "seconds, text",
    [
        (0, "0.00 sec"),
        (0.014, "0.01 sec"),
        (59.994, "59.99 sec"),
        (62.5, "1 min 2.50 sec"),
        (3723, "1 hour 2 min 3.00 sec"),
    ],
)
def test_elapsed(seconds, text):
    assert format_elapsed(seconds) == text


def test_unknown_format():
    with pytest.raises(ValueError):
        format_result(PARTITIONS, "xml")


def test_error_with_location_and_caret():
    err = SqlSyntaxError("Syntax error at line 3, column 8: unexpected 'TABL'", line=3, column=8)
    err.context = "CREATE TABL t (k INT);\n       ^"
    assert format_error(err, where=" at line 3 in file s.sql") == "\n".join(
        [
            "ERROR 1064 (42000) at line 3 in file s.sql: Syntax error at line 3, column 8: unexpected 'TABL'",
            "CREATE TABL t (k INT);",
            "       ^",
        ]
    )
    assert format_error(UnknownTableError("Unknown table 'db.t'")) == "ERROR 1146 (42S02): Unknown table 'db.t'"
    assert format_error(ValueError("boom")) == "ERROR 1105 (HY000): boom"


def test_use_prints_only_database_changed():
    assert format_result(Result.ok(message="Database changed"), "table") == "Database changed"


# ---------------------------------------------------------------------------- HELP


def test_help_topic_is_plain_text_like_the_mysql_client():
    from dorisql.statements.show.help import lookup

    text = format_result(lookup("create   table"), "table")
    lines = text.splitlines()
    assert lines[:3] == ["Name: 'CREATE TABLE'", "Description:", "CREATE TABLE [IF NOT EXISTS] [db.]table_name"]
    assert "DISTRIBUTED BY HASH(cols) | RANDOM [BUCKETS n | BUCKETS AUTO]" in lines
    assert max(len(line) for line in lines) <= 80
    assert "+--" not in text and "|" not in lines[0] and "rows in set" not in text


def test_help_text_wraps_long_lines_under_their_indent():
    from dorisql.shell.formatting import format_help

    long = "    ADD PARTITION " + " ".join(f"word{i}" for i in range(30))
    text = format_help(["name", "description", "example"], [("X", long, "EXAMPLE 1;")], width=40)
    lines = text.splitlines()
    assert lines[0] == "Name: 'X'" and lines[-2:] == ["Examples:", "EXAMPLE 1;"]
    body = lines[2:-2]
    assert len(body) > 1 and all(len(line) <= 40 for line in body)
    assert body[0].startswith("    ADD PARTITION") and all(line.startswith("        ") for line in body[1:])


def test_help_with_several_matches_lists_them():
    from dorisql.statements.show.help import lookup

    assert format_result(lookup("show"), "table") == (
        "Many help items for your request exist.\n"
        "To make a more specific request, please type 'help <item>',\n"
        "where <item> is one of the following topics:\n"
        "   SHOW BUCKETS\n"
        "   SHOW DYNAMIC PARTITION TABLES\n"
        "   SHOW PARTITIONS"
    )


def test_help_with_no_match_says_so_then_lists_every_topic():
    from dorisql.statements.show.help import TOPICS, lookup

    lines = format_result(lookup("no such thing"), "table").splitlines()
    assert lines[0] == "Nothing found for 'no such thing'; the topics are listed."
    assert lines[1:] == [f"   {name}" for name in sorted(TOPICS)]


def test_help_in_batch_formats_keeps_rows_and_columns():
    from dorisql.statements.show.help import lookup

    assert format_result(lookup("drop table"), "tsv") == (
        "name\tdescription\texample\nDROP TABLE\tDROP TABLE [IF EXISTS] [db.]table [FORCE];\t"
    )


# ---------------------------------------------------------------------------- progress line


def test_progress_line_shows_tasks_rows_bytes_and_time():
    from dorisql.shell.progress import Progress, StageProgress, format_progress

    progress = Progress(
        stages=(StageProgress(3, 1, 2, running=1), StageProgress(4, 0, 8)),
        rows_processed=1302440,
        rows_written=1000000,
        bytes_written=99_930_000,
    )
    assert format_progress(progress, 34.7) == (
        "[Stage 3: 1/2 tasks, 1 running] [Stage 4: 0/8 tasks] "
        "1,302,440 rows processed, 1,000,000 rows written (95.3 MB) - 34 s"
    )


def test_progress_line_with_tasks_only_and_with_an_engine_message():
    from dorisql.shell.progress import Progress, StageProgress, format_progress

    assert format_progress(Progress(stages=(StageProgress(0, 0, 2, running=2),)), 3.2) == (
        "[Stage 0: 0/2 tasks, 2 running] - 3 s"
    )
    assert format_progress(None, 5.0, "committing") == "committing - 5 s"
    assert format_progress(Progress(), 1.0) is None
    assert format_progress(None, 1.0) is None


@pytest.mark.parametrize(
    "n, text", [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KB"), (99_930_000, "95.3 MB"), (3 * 1024**3, "3.0 GB")]
)
def test_progress_bytes(n, text):
    from dorisql.shell.progress import format_bytes

    assert format_bytes(n) == text


def test_progress_line_draws_and_clears_on_the_stream():
    import io
    import threading

    from dorisql.shell.progress import Progress, ProgressLine, StageProgress

    out = io.StringIO()
    polls = iter([Progress(stages=(StageProgress(1, 0, 4),)), Progress(stages=(StageProgress(1, 3, 4),))])
    drained = threading.Event()

    def poll(engine):
        answer = next(polls, None)
        if answer is None:
            drained.set()
        return answer

    ticks = iter([0.0, 0.0, 2.0, 3.0])
    line = ProgressLine(None, out, delay=0, interval=0, clock=lambda: next(ticks, 3.0), poll=poll)
    with line:
        assert drained.wait(30)
    text = out.getvalue()
    assert "\r[Stage 1: 0/4 tasks] - 2 s" in text and "\r[Stage 1: 3/4 tasks] - 3 s" in text
    assert text.endswith("\r")  # cleared: nothing left on the line
