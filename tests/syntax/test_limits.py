"""Input limits: deeply nested and very large statements parse up to a documented limit and are
refused beyond it with an error naming where; never a RecursionError, never minutes or gigabytes."""

from __future__ import annotations

import tracemalloc

import pytest

import dorisql
from dorisql import ast
from dorisql.errors import DorisqlError, SqlSyntaxError, StatementTooLargeError
from dorisql.syntax import input_limits as limits
from dorisql.syntax import parse

N = limits.MAX_NESTING


def nested_parens(n: int) -> str:
    return "(" * n + "1" + ")" * n


def too_deep(sql: str, check: bool = True) -> SqlSyntaxError:
    with pytest.raises(SqlSyntaxError) as info:
        parse(sql, check=check)
    assert "nested too deeply (more than 100 levels)" in str(info.value)
    return info.value


# ----------------------------------------------------------------------------- nesting that parses


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT " + nested_parens(40),
        "SELECT " + "NOT " * 100 + "TRUE",
        "SELECT " + "- " * 99 + "1",
        "SELECT * FROM " + "(SELECT * FROM " * 99 + "t" + ") x" * 99,
        "SELECT " + "abs(" * N + "1" + ")" * N,
        "SELECT " + "CASE WHEN a THEN " * N + "1" + " END" * N,
        "SELECT CAST(a AS " + "ARRAY<" * (N - 1) + "INT" + ">" * (N - 1) + ")",
        "SELECT " + "EXISTS(SELECT " * N + "1" + ")" * N,
        "SELECT " + "[" * N + "1" + "]" * N,
    ],
)
def test_queries_nested_up_to_the_limit_parse(sql):
    [stmt] = dorisql.parse(sql)
    assert isinstance(stmt, ast.Query)


def test_expressions_nested_up_to_the_limit_parse():
    [stmt] = parse("INSERT INTO t VALUES (" + nested_parens(N - 1) + ")")
    assert stmt.rows[0][0] == ast.Literal(nested_parens(N - 1), "expr")
    [stmt] = parse("INSERT INTO t SELECT " + nested_parens(N))
    assert stmt.query.sql == "SELECT " + nested_parens(N)


def test_levels_close_again():
    """Brackets, CASE ... END and complex types that close do not add up across a statement."""
    many = ", ".join(f"c{i} ARRAY<ARRAY<INT>>" for i in range(3 * N))
    [stmt] = parse(f"CREATE TABLE t (k INT, {many}) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    assert len(stmt.columns) == 3 * N + 1
    parse("SELECT " + " + ".join(["(CASE WHEN a > b THEN -(-1) ELSE NOT NOT c END)"] * (2 * N)))
    parse("SELECT " + ", ".join(["a >= b", "a >> 2"] * N))


def test_brackets_in_strings_and_comments_do_not_count():
    [stmt] = parse("SELECT '" + "(" * 3 * N + "' /* " + "[" * 3 * N + " */ -- " + "NOT " * 3 * N + "\n, 1")
    assert isinstance(stmt, ast.Query)


def test_a_long_chain_of_binary_operators_is_not_nesting():
    [stmt] = parse("INSERT INTO t VALUES (" + "1+" * 3000 + "1)")
    assert len(stmt.rows) == 1


# ----------------------------------------------------------------------------- nesting that is refused


def test_one_level_too_deep_is_refused_where_it_starts():
    sql = "SELECT " + nested_parens(N + 1)
    err = too_deep(sql)
    assert (err.line, err.column) == (1, len("SELECT ") + N + 1)
    err = too_deep("SELECT 1;\nSELECT\n  " + "NOT " * (N + 1) + "TRUE")
    assert (err.line, err.column, err.statement_line) == (3, 3 + 4 * N, 2)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT " + nested_parens(2000),
        "SELECT " + "NOT " * 3000 + "TRUE",
        "SELECT " + "~" * 500 + "1",
        "SELECT * FROM " + "(SELECT * FROM " * 300 + "t" + ") x" * 300,
        "SELECT " + "CASE WHEN a THEN " * 500 + "1" + " END" * 500,
        "INSERT INTO t VALUES (" + nested_parens(3000) + ")",
        "INSERT INTO t SELECT " + nested_parens(3000),
        "CREATE TABLE t (a " + "ARRAY<" * 1000 + "INT" + ">" * 1000 + ") DISTRIBUTED BY HASH(a) BUCKETS 1",
        "CREATE TABLE t (a INT DEFAULT " + nested_parens(3000) + ") DISTRIBUTED BY HASH(a) BUCKETS 1",
        "SELECT CAST(a AS " + "STRUCT<x:" * 1000 + "INT" + ">" * 1000 + ")",
    ],
)
def test_deep_input_is_a_syntax_error(sql):
    err = too_deep(sql)
    assert err.line == 1 and err.column > N
    assert err.context.splitlines()[-1].endswith("^")


def test_what_sqlglot_cannot_read_is_a_syntax_error_not_a_recursion_error(monkeypatch):
    """The front end's last line of defence: a query the nesting count lets through but that is
    still too deep for sqlglot's recursive descent."""
    monkeypatch.setattr(limits, "MAX_NESTING", 10**6)
    with pytest.raises(SqlSyntaxError, match="nested too deeply"):
        parse("SELECT " + "abs(" * 5000 + "1" + ")" * 5000)


# ----------------------------------------------------------------------------- size


def test_a_statement_up_to_the_size_limit_parses_in_linear_memory():
    literal = "x" * (limits.MAX_STATEMENT_BYTES - 100)
    parse("SHOW TABLES")  # the parser is built before measuring
    tracemalloc.start()
    try:
        [stmt] = parse(f"INSERT INTO t VALUES (1, '{literal}')")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stmt.rows[0][1] == ast.Literal(literal, "string")
    assert peak < 8 * len(literal), f"peak {peak / 2**20:.0f} MiB for a {len(literal) / 2**20:.0f} MiB literal"


def test_a_statement_over_the_size_limit_is_refused_and_the_next_one_named():
    limit = limits.MAX_STATEMENT_BYTES
    big = "SELECT 1;\nSELECT '" + "é" * (limit // 2) + "'"  # counted in UTF-8 bytes, not characters
    with pytest.raises(StatementTooLargeError) as info:
        parse(big)
    err = info.value
    assert (err.code, err.sqlstate) == (1153, "08S01")
    assert (err.line, err.column) == (2, 1)
    assert f"statement too large: {limit + 9} bytes" in str(err)
    assert "up to 16777216 bytes (16 MiB" in str(err)
    assert isinstance(err, DorisqlError)
