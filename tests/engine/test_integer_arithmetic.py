"""Integer arithmetic with Doris's result types (docs/compatibility.md, "Integer arithmetic"):
``+ - *`` of two integers is the wider operand's type promoted one step (INT + INT is BIGINT), so
``2147483647 + 1`` is 2147483648 where Spark's ANSI mode fails; a BIGINT result wraps around as
Doris's BE wraps it, SUM over BIGINTs too; LARGEINT beyond dorisql's DECIMAL(38, 0) is NULL."""

from __future__ import annotations

import pytest

from dorisql.result import render_value

from .conftest import rows, run

#: (Doris expression, what Doris returns), one Spark query for all of them.
LITERALS = [
    ("2147483647 + 1", "2147483648"),  # INT + TINYINT is BIGINT
    ("-2147483648 - 1", "-2147483649"),
    ("2147483647 * 2147483647", "4611686014132420609"),
    ("-(-2147483648)", "2147483648"),  # 0 - x, an INT: BIGINT
    ("127 + 1", "128"),  # TINYINT + TINYINT is SMALLINT
    ("32767 * 32767", "1073676289"),
    # BIGINT stays BIGINT, and wraps around (two's complement) as the BE's int64 does
    ("9223372036854775807 + 1", "-9223372036854775808"),
    ("-9223372036854775808 - 1", "9223372036854775807"),
    ("9223372036854775807 * 2", "-2"),
    ("9223372036854775807 + 9223372036854775807", "-2"),
    ("-(-9223372036854775808)", "-9223372036854775808"),
    # a LARGEINT literal: LARGEINT arithmetic
    ("9223372036854775808 + 1", "9223372036854775809"),
    ("9223372036854775807 * 9223372036854775808", "85070591730234615856620279821087277056"),
    # (2 + 3) * 4: the nested results typed too
    ("(2147483647 + 2147483647) * 2", "8589934588"),
    ("2147483647 + 1 - 1", "2147483647"),
]


def test_literal_arithmetic_as_doris_types_it(engine):
    items = ", ".join(sql for sql, _ in LITERALS)
    (got,) = rows(engine, f"SELECT {items}")
    assert [render_value(v) for v in got] == [want for _, want in LITERALS]


@pytest.fixture(scope="module")
def limits(engine):
    """Every integer type at its maximum (twice) and at its minimum."""
    run(
        engine,
        "CREATE TABLE limits (k INT, ti TINYINT, si SMALLINT, i INT, bi BIGINT, li LARGEINT) "
        "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    largest = "99999999999999999999999999999999999999"  # LARGEINT as dorisql stores it
    run(
        engine,
        f"INSERT INTO limits VALUES (1, 127, 32767, 2147483647, 9223372036854775807, {largest}), "
        f"(2, 127, 32767, 2147483647, 9223372036854775807, {largest}), "
        f"(3, -128, -32768, -2147483648, -9223372036854775808, -{largest})",
    )
    return "limits"


def test_columns_at_their_limits(engine, limits):
    got = rows(
        engine,
        "SELECT k, ti + ti, si + si, i + i, bi + bi, ti * ti, si * si, i * i, bi * 2, "
        "i - 1, bi - 1, -ti, -i, -bi, i + bi, ti * i FROM limits WHERE k IN (1, 3) ORDER BY k",
    )
    assert [[render_value(v) for v in r] for r in got] == [
        # fmt: off
        [
            "1",
            "254",
            "65534",
            "4294967294",
            "-2",
            "16129",
            "1073676289",
            "4611686014132420609",
            "-2",
            "2147483646",
            "9223372036854775806",
            "-127",
            "-2147483647",
            "-9223372036854775807",
            "-9223372034707292162",
            "272730423169",
        ],
        [
            "3",
            "-256",
            "-65536",
            "-4294967296",
            "0",
            "16384",
            "1073741824",
            "4611686018427387904",
            "0",
            "-2147483649",
            "9223372036854775807",
            "128",
            "2147483648",
            "-9223372036854775808",
            "9223372034707292160",
            "274877906944",
        ],
        # fmt: on
    ]


def test_aggregates_and_predicates(engine, limits):
    # SUM of an INT is a BIGINT; of a BIGINT a BIGINT that wraps around (Doris issue #29715)
    got = rows(engine, "SELECT sum(i), sum(bi), avg(i), sum(ti), sum(DISTINCT bi) FROM limits WHERE k < 3")
    assert [render_value(v) for v in got[0]] == ["4294967294", "-2", "2147483647", "254", "9223372036854775807"]
    assert rows(engine, "SELECT k, sum(bi) OVER () FROM limits WHERE k < 3 ORDER BY k") == [(1, -2), (2, -2)]
    assert rows(engine, "SELECT k FROM limits WHERE i + 1 > 2147483647 ORDER BY k") == [(1,), (2,)]
    grouped = rows(engine, "SELECT i + 1, count(*) FROM limits GROUP BY i + 1 ORDER BY i + 1")
    assert grouped == [(-2147483647, 1), (2147483648, 2)]


def test_columns_of_subqueries_and_ctes(engine, limits):
    """A derived table's or a CTE's column has the type of its item (INT, or INT + INT's BIGINT)."""
    assert rows(engine, "SELECT x + 1 FROM (SELECT i AS x FROM limits WHERE k = 1) s") == [(2147483648,)]
    got = rows(engine, "WITH c AS (SELECT bi + bi AS y, i + i AS z FROM limits WHERE k = 1) SELECT y - 1, z * z FROM c")
    # z is 4294967294 (a BIGINT), z * z wraps: 18446744056529682436 - 2^64
    assert got == [(-3, -17179869180)]


def test_largeint_beyond_storage_is_null(engine, limits):
    # Doris's LARGEINT goes on to 2^127 - 1; dorisql's DECIMAL(38, 0) stops at 10^38 - 1
    got = rows(engine, "SELECT li + 1, li - 1, li * 2, -li FROM limits WHERE k = 1")
    assert [render_value(v) for v in got[0]] == [
        "NULL",
        "99999999999999999999999999999999999998",
        "NULL",
        "-" + "9" * 38,
    ]


def test_result_types_and_loads(engine, limits):
    """CTAS takes Doris's result types; an INSERT value computes as a query's does."""
    run(engine, "CREATE TABLE sums AS SELECT ti + 1 AS a, i + 1 AS b, bi + 1 AS c FROM limits")
    types = {r[0]: r[1] for r in rows(engine, "DESC sums")}
    assert types == {"a": "smallint", "b": "bigint", "c": "bigint"}
    assert rows(engine, "SELECT a, b, c FROM sums ORDER BY b") == [
        (-127, -2147483647, -9223372036854775807),
        (128, 2147483648, -9223372036854775808),
        (128, 2147483648, -9223372036854775808),
    ]
    run(engine, "CREATE TABLE big (k INT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(engine, "INSERT INTO big VALUES (1, 2147483647 + 1), (2, 9223372036854775807 + 1)")
    assert rows(engine, "SELECT k, v FROM big ORDER BY k") == [(1, 2147483648), (2, -9223372036854775808)]
