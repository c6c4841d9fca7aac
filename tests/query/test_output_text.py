"""Output text decided without Spark: FLOAT / DOUBLE digits as Doris prints them, the column
header of each SELECT item, Doris functions rewritten for Spark, ARRAY / MAP / STRUCT literals of
INSERT ... VALUES, and a trailing comma in a column list (accepted, as in current Doris)."""

from __future__ import annotations

import pytest

import dorisql
from dorisql import ast
from dorisql.errors import AnalysisError
from dorisql.result import Float32, Result, float_text, render_value
from dorisql.shell.formatting import format_result
from dorisql.syntax import parse_one
from dorisql.syntax.dialect import parse_query
from dorisql.translate.expressions import expression_spark_sql, name_columns
from dorisql.translate.functions import translate_functions
from dorisql.translate.literals import default_sql, value_sql


@pytest.mark.parametrize(
    "value, as_float, as_double",
    [
        (38.63884353637695, "38.638844", "38.63884353637695"),  # the FLOAT column
        (0.1, "0.1", "0.1"),
        (1.0, "1", "1"),  # fmt's "{}": no ".0"
        (-0.0, "-0", "-0"),
        (123456.7890625, "123456.79", "123456.7890625"),
        (16777216.0, "16777216", "16777216"),
        (1e16, "1e+16", "1e+16"),  # exponent from 1e16 on, as fmt and repr
        (1e-5, "1e-05", "1e-05"),
        (3.4028234663852886e38, "3.4028235e+38", "3.4028234663852886e+38"),
        (float("nan"), "NaN", "NaN"),
        (float("-inf"), "-Infinity", "-Infinity"),
    ],
)
def test_float_and_double_digits(value, as_float, as_double):
    assert float_text(Float32(value)) == as_float
    assert float_text(value) == as_double
    assert render_value(Float32(value)) == as_float


def test_every_format_prints_float32_digits():
    result = Result.table(["f", "d"], [(Float32(38.63884353637695), 38.63884353637695)])
    assert format_result(result, "tsv") == "f\td\n38.638844\t38.63884353637695"
    assert format_result(result, "csv") == "f,d\n38.638844,38.63884353637695"
    assert format_result(result, "json") == '[{"f": 38.638844, "d": 38.63884353637695}]'
    assert "| 38.638844 | 38.63884353637695 |" in format_result(result, "table")


def headers(sql: str) -> str:
    tree = parse_query(sql)
    name_columns(tree)
    return tree.sql(dialect="spark")


def test_headers_are_the_text_as_written():
    assert headers("SELECT k, t.v, count(*), SUM( v ), v + 1, v AS w, 'a', * FROM t") == (
        "SELECT k, t.v, COUNT(*) AS `count(*)`, SUM(v) AS `SUM( v )`, v + 1 AS `v + 1`, v AS w, 'a' AS `'a'`, * FROM t"
    )
    # a UNION is named by its first SELECT; subqueries keep their own names
    assert headers("SELECT count(*) FROM (SELECT max(v) FROM t) s UNION SELECT 1") == (
        "SELECT COUNT(*) AS `count(*)` FROM (SELECT MAX(v) FROM t) AS s UNION SELECT 1"
    )
    # the header keeps the backquotes as written (each doubled inside Spark's quoted alias)
    assert headers("SELECT `a``b` + 1 FROM t") == "SELECT `a``b` + 1 AS ```a````b`` + 1` FROM t"


def spark(sql: str) -> str:
    return translate_functions(parse_query(sql)).sql(dialect="spark", normalize_functions=False)


def test_doris_functions_for_spark():
    # ndv is an HLL of Doris's precision (2^14 registers) over the values' text, as hll_hash
    assert spark("SELECT ndv(x) FROM t") == "SELECT hll_sketch_estimate(hll_sketch_agg(CAST(x AS STRING), 14)) FROM t"
    # % is Doris's: NULL for a zero divisor (TRY_MOD), not Spark's ANSI error
    assert spark("SELECT date_add('2024-01-01', id % 366) FROM t") == (
        "SELECT DATE_ADD('2024-01-01', CAST(TRY_MOD(id, 366) AS INT)) FROM t"
    )
    assert spark("SELECT date_add(d, 3), days_sub(d, n), months_add(d, n) FROM t") == (
        "SELECT DATE_ADD(d, 3), DATE_ADD(d, CAST(n AS INT) * -1), ADD_MONTHS(d, CAST(n AS INT)) FROM t"
    )
    assert spark("SELECT hours_add(ts, n), minutes_sub(ts, 2), date_add(ts, INTERVAL n SECOND) FROM t") == (
        "SELECT TIMESTAMPADD(HOUR, n, ts), TIMESTAMPADD(MINUTE, -(2), ts), TIMESTAMPADD(SECOND, n, ts) FROM t"
    )
    assert spark("SELECT map('a', 1, 'b', 2)") == "SELECT MAP('a', 1, 'b', 2)"
    assert (
        spark("SELECT from_unixtime(ts, '%Y%m%d %H:%i') FROM t") == "SELECT FROM_UNIXTIME(ts, 'yyyyMMdd HH:mm') FROM t"
    )
    # a value expression goes through the same rewrites
    assert expression_spark_sql("days_add('2024-01-01', 1)") == "DATE_ADD('2024-01-01', 1)"


COMPLEX = parse_one(
    "CREATE TABLE t (id INT, a ARRAY<STRING>, m MAP<INT, STRING>, s STRUCT<n:STRING, v:INT>, "
    "deep ARRAY<MAP<STRING, ARRAY<DECIMAL(5, 1)>>>) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1"
)
COLUMNS = {c.name: c for c in COMPLEX.columns}


@pytest.mark.parametrize(
    "column, literal, expected",
    [
        ("a", ast.Literal("['x', 'y']", "expr"), "ARRAY(TRY_CAST('x' AS STRING), TRY_CAST('y' AS STRING))"),
        ("a", ast.Literal('["x"]', "string"), "ARRAY(TRY_CAST('x' AS STRING))"),  # a string holding it
        ("a", ast.Literal(None, "null"), "NULL"),
        ("m", ast.Literal("{1: 'one'}", "expr"), "MAP(TRY_CAST('1' AS INT), TRY_CAST('one' AS STRING))"),
        ("m", ast.Literal("map(1, 'one', 2, 'two')", "expr"), "MAP(1, 'one', 2, 'two')"),
        ("s", ast.Literal("{'a', 1}", "expr"), "NAMED_STRUCT('n', TRY_CAST('a' AS STRING), 'v', TRY_CAST(1 AS INT))"),
        (
            "deep",
            ast.Literal("[{'k': [1.5, -2]}]", "expr"),
            "ARRAY(MAP(TRY_CAST('k' AS STRING), ARRAY(TRY_CAST(1.5 AS DECIMAL(5, 1)), TRY_CAST(-2 AS DECIMAL(5, 1)))))",
        ),
    ],
)
def test_complex_values_take_their_column_shape(column, literal, expected):
    assert value_sql(COLUMNS[column], literal) == expected


def test_complex_values_that_are_not_literals_of_the_type():
    with pytest.raises(AnalysisError, match=r"Invalid ARRAY<STRING> value: 'abc'"):
        value_sql(COLUMNS["a"], ast.Literal("abc", "string"))
    with pytest.raises(AnalysisError, match="column 'a' of type ARRAY<STRING>"):
        value_sql(COLUMNS["a"], ast.Literal("5", "number"))
    assert default_sql(COLUMNS["m"]) == "NULL"  # left out: a typeless NULL, castable to a MAP


def test_a_trailing_comma_in_a_column_list_is_accepted_as_doris_does():
    """DorisParser.g4 ``columnDefs (COMMA indexDefs)? COMMA? RIGHT_PAREN`` (apache/doris#29167)."""
    (stmt,) = dorisql.parse("CREATE TABLE t (a INT,) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 1")
    assert [c.name for c in stmt.columns] == ["a"]


def test_every_rewritten_function_is_on_the_allow_list():
    from dorisql.translate.functions import _RENAMED, _UNIT_ARITHMETIC, ALLOWED_FUNCTIONS

    assert set(_RENAMED) | set(_UNIT_ARITHMETIC) <= ALLOWED_FUNCTIONS
