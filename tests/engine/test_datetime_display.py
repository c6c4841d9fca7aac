"""DATETIME(p) values shown with exactly p fractional digits, as Doris shows them, and the casts
of non-literal values to DATE / DATETIME(p) with Doris's values (dorisql.translate.temporal).

Doris prints a DATETIME(p) value with p digits (DateV2Value::to_string with the type's scale):
``2022-08-16 12:11:11.112`` in DATETIME(3), no fraction in DATETIME(0), six in DATETIME(6); an
expression has its type's scale (a CAST's p, ``now(p)``'s p, MAX/COALESCE keep their
argument's). Through real Spark and Delta: the rows an `Engine` returns, rendered by the shell's
jsonl/TSV writers and the MySQL server's text rows and column definitions."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from dorisql.result import render_value
from dorisql.server.mysql import result_columns, text_row
from dorisql.shell.formatting import format_tsv, statement_record

from .conftest import rows, run


@pytest.fixture(scope="module")
def shown(engine):
    run(
        engine,
        "CREATE TABLE shown (k INT, t0 DATETIME, t3 DATETIME(3), t6 DATETIME(6), d DATE, n BIGINT, s VARCHAR(40)) "
        "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(
        engine,
        "INSERT INTO shown VALUES "
        "(1, '2022-08-16 12:11:11', '2022-08-16 12:11:11.1', '2022-08-16 12:11:11.1', '2022-08-16', 20240408,"
        " '2024-02-01 12:13:14.1234567'),"
        "(2, '2022-08-16 12:11:11.6', '2022-08-16 12:11:11.111611', '2022-08-16 12:11:11', '2022-08-17', 20240231,"
        " '2024-02-01 12:13:14.12345615'),"
        "(3, NULL, NULL, NULL, NULL, 240408, '20240408121314.5')",
    )
    return "shown"


def texts(engine, sql: str) -> list[tuple]:
    return [tuple(render_value(v) for v in row) for row in rows(engine, sql)]


def test_a_column_shows_its_scale(engine, shown):
    assert texts(engine, f"SELECT t0, t3, t6 FROM {shown} ORDER BY k") == [
        ("2022-08-16 12:11:11", "2022-08-16 12:11:11.100", "2022-08-16 12:11:11.100000"),
        ("2022-08-16 12:11:12", "2022-08-16 12:11:11.112", "2022-08-16 12:11:11.000000"),
        ("NULL", "NULL", "NULL"),
    ]
    # through *, an alias, a subquery, a UNION and a GROUP BY key too
    assert texts(engine, f"SELECT * FROM {shown} WHERE k = 1")[0][1:4] == (
        "2022-08-16 12:11:11",
        "2022-08-16 12:11:11.100",
        "2022-08-16 12:11:11.100000",
    )
    assert texts(engine, f"SELECT x FROM (SELECT t3 AS x FROM {shown} WHERE k = 2) q") == [("2022-08-16 12:11:11.112",)]
    assert (
        texts(engine, f"SELECT t3 FROM {shown} WHERE k = 1 UNION ALL SELECT t3 FROM {shown} WHERE k = 1")
        == [("2022-08-16 12:11:11.100",)] * 2
    )
    assert texts(engine, f"SELECT t3, count(*) FROM {shown} WHERE k = 1 GROUP BY t3") == [
        ("2022-08-16 12:11:11.100", "1")
    ]


def test_an_expression_shows_its_types_scale(engine, shown):
    assert texts(engine, f"SELECT max(t3), min(t6) FROM {shown}") == [
        ("2022-08-16 12:11:11.112", "2022-08-16 12:11:11.000000")
    ]
    assert texts(
        engine,
        f"SELECT coalesce(t0, t3), if(k > 0, t0, t6), "
        f"CAST(t6 AS DATETIME(2)), CAST('2022-08-16 12:11:11.16' AS DATETIME(1)) FROM {shown} WHERE k = 1",
    ) == [
        (
            "2022-08-16 12:11:11.000",
            "2022-08-16 12:11:11.000000",
            "2022-08-16 12:11:11.10",
            "2022-08-16 12:11:11.2",
        )
    ]
    now0, now3, now6 = texts(engine, "SELECT now(), now(3), current_timestamp(6)")[0]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", now0), now0
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}", now3), now3
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", now6), now6


def test_the_outputs_show_the_scale(engine, shown):
    result = run(engine, f"SELECT k, t0, t3, t6 FROM {shown} WHERE k = 2")
    # the shell's jsonl record (dorisql -f --format jsonl) and the server's text protocol row
    record = json.loads(statement_record(result, line=1, statement="q"))
    assert record["kinds"] == ["int", "datetime", "datetime", "datetime"]
    assert record["rows"] == [["2", "2022-08-16 12:11:12", "2022-08-16 12:11:11.112", "2022-08-16 12:11:11.000000"]]
    assert format_tsv(result.columns, result.rows, header=False).strip() == (
        "2\t2022-08-16 12:11:12\t2022-08-16 12:11:11.112\t2022-08-16 12:11:11.000000"
    )
    assert text_row(result.rows[0]) == (
        "2",
        "2022-08-16 12:11:12",
        "2022-08-16 12:11:11.112",
        "2022-08-16 12:11:11.000000",
    )
    # the MySQL column definitions carry p as the column's decimals, as Doris sends them
    assert [c.decimals for c in result_columns(result)] == [0, 0, 3, 6]
    # the values themselves are plain datetimes to a client
    assert result.rows[0][2] == dt.datetime(2022, 8, 16, 12, 11, 11, 112000)


def test_casts_of_columns_round_as_doris(engine, shown):
    # a string column to DATETIME(6): the seventh digit rounds (Doris's test_round), to
    # DATETIME(3) half up; a compact string reads as a datetime
    assert texts(
        engine, f"SELECT CAST(s AS DATETIME(6)), CAST(s AS DATETIME(3)), CAST(s AS DATETIME) FROM {shown} ORDER BY k"
    ) == [
        ("2024-02-01 12:13:14.123457", "2024-02-01 12:13:14.123", "2024-02-01 12:13:14"),
        ("2024-02-01 12:13:14.123456", "2024-02-01 12:13:14.123", "2024-02-01 12:13:14"),
        ("2024-04-08 12:13:14.500000", "2024-04-08 12:13:14.500", "2024-04-08 12:13:15"),
    ]
    # after a * too
    assert (
        texts(engine, f"SELECT *, CAST(s AS DATETIME(3)) FROM {shown} WHERE k = 1")[0][-1] == "2024-02-01 12:13:14.123"
    )
    # a DATETIME(6) column to DATETIME(0), with the carry
    assert texts(engine, f"SELECT CAST(t3 AS DATETIME) FROM {shown} WHERE k = 2") == [("2022-08-16 12:11:11",)]
    assert texts(engine, f"SELECT CAST(t0 AS DATETIME(3)), CAST(t6 AS DATE) FROM {shown} WHERE k = 1") == [
        ("2022-08-16 12:11:11.000", "2022-08-16")
    ]


def test_an_integer_column_casts_to_a_date(engine, shown):
    # 20240408 is 2024-04-08; 20240231 no date (NULL); Doris reads 6 digits as YYMMDD
    got = rows(engine, f"SELECT k, CAST(n AS DATE), CAST(n + 0 AS DATE) FROM {shown} ORDER BY k")
    assert got == [
        (1, dt.date(2024, 4, 8), dt.date(2024, 4, 8)),
        (2, None, None),
        (3, dt.date(2024, 4, 8), dt.date(2024, 4, 8)),
    ]
    assert rows(engine, f"SELECT k FROM {shown} WHERE CAST(n AS DATE) = '2024-04-08' ORDER BY k") == [(1,), (3,)]
