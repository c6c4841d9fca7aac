"""Doris's NULL where Spark's ANSI mode raises an error: division by zero, failed casts, values that
do not fit a type, invalid dates (docs/compatibility.md, "NULL instead of an error"); loads still
refuse what does not fit a column in strict mode."""

from __future__ import annotations

import pytest

from dorisql.errors import DorisqlError
from dorisql.result import render_value

from .conftest import rows, run

#: (Doris expression, what Doris returns), one Spark query for all of them.
NULL_NOT_ERROR = [
    ("1 / 0", "NULL"),
    ("1.5 / 0", "NULL"),
    ("5 DIV 0", "NULL"),
    ("5 % 0", "NULL"),
    ("mod(5, 0)", "NULL"),
    ("pmod(5, 0)", "NULL"),
    ("CAST('abc' AS INT)", "NULL"),
    ("CAST('12abc' AS BIGINT)", "NULL"),
    ("CAST(1000 AS TINYINT)", "NULL"),
    ("CAST(99999 AS DECIMAL(4, 1))", "NULL"),
    ("CONVERT('abc', INT)", "NULL"),
    ("CAST('2020-02-30' AS DATE)", "NULL"),
    ("CAST('2020-13-01 00:00:00' AS DATETIME)", "NULL"),
    ("str_to_date('2020-02-30', '%Y-%m-%d')", "NULL"),
    ("str_to_date('2020-02-30 10:00:00', '%Y-%m-%d %H:%i:%s')", "NULL"),
    ("to_date('not a date')", "NULL"),
    ("date('2020-02-30')", "NULL"),
    ("timestamp('2020-02-30 00:00:00')", "NULL"),
    ("date_format('2020-02-30', '%Y')", "NULL"),
    ("datediff('2020-02-30', '2020-01-01')", "NULL"),
    # and the valid values still compute
    ("7 / 2", "3.5"),
    ("7 DIV 2", "3"),
    ("7 % 3", "1"),
    ("pmod(-7, 3)", "2"),
    ("CAST('12' AS INT)", "12"),
    ("CAST(100 AS TINYINT)", "100"),
    ("str_to_date('2020-02-29', '%Y-%m-%d')", "2020-02-29"),
    ("str_to_date('2020-02-29 10:11:12', '%Y-%m-%d %H:%i:%s')", "2020-02-29 10:11:12"),
    ("date_format('2020-02-29', '%Y')", "2020"),
    ("datediff('2020-03-01 23:59:59', '2020-02-28')", "2"),
]


def test_doris_returns_null_where_spark_ansi_fails(engine):
    items = ", ".join(sql for sql, _ in NULL_NOT_ERROR)
    (got,) = rows(engine, f"SELECT {items}")
    assert [render_value(v) for v in got] == [want for _, want in NULL_NOT_ERROR]


def test_one_bad_row_does_not_fail_the_query(engine):
    run(
        engine,
        "CREATE TABLE nums (k INT, a INT, b INT, s VARCHAR(16)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "INSERT INTO nums VALUES (1, 6, 3, '2020-01-31'), (2, 6, 0, '2020-02-30'), (3, 6, 2, 'x')")
    got = rows(engine, "SELECT k, a / b, a DIV b, a % b, CAST(s AS DATE), CAST(s AS INT) FROM nums ORDER BY k")
    assert [[render_value(v) for v in r] for r in got] == [
        ["1", "2", "2", "0", "2020-01-31", "NULL"],
        ["2", "NULL", "NULL", "NULL", "NULL", "NULL"],
        ["3", "3", "3", "0", "NULL", "NULL"],
    ]
    assert rows(engine, "SELECT k FROM nums WHERE a / b > 2.5 ORDER BY k") == [(3,)]


def test_loads_keep_strict_mode(engine):
    """A value that does not fit its column is still refused in strict mode (the load's own cast
    check), while an expression's NULL (Doris: a function result) loads as NULL."""
    run(engine, "CREATE TABLE strict_t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    with pytest.raises(DorisqlError, match="Insert has filtered data in strict mode"):
        run(engine, "INSERT INTO strict_t VALUES (1, 'abc')")
    with pytest.raises(DorisqlError, match="Insert has filtered data in strict mode"):
        run(engine, "INSERT INTO strict_t SELECT 1, '12abc'")
    run(engine, "INSERT INTO strict_t VALUES (2, 1 / 0), (3, CAST('abc' AS INT))")
    assert rows(engine, "SELECT k, v FROM strict_t ORDER BY k") == [(2, None), (3, None)]
