"""The function allow-list, on parsed queries (no Spark): what is refused, what every documented
query and example still calls."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlglot import exp

from dorisql import ast
from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.shell.script import iter_script
from dorisql.syntax import parse
from dorisql.syntax.dialect import parse_query
from dorisql.translate.expressions import expression_spark_sql
from dorisql.translate.functions import ALLOWED_FUNCTIONS, call_name, check_functions, is_table_position

ROOT = Path(__file__).resolve().parents[2]


def check(sql: str) -> None:
    check_functions(parse_query(sql))


def called(sql: str) -> set[str]:
    """The functions `sql` calls, as the allow-list names them (table functions aside)."""
    return {
        name
        for node in parse_query(sql).find_all(exp.Func)
        if (name := call_name(node)) is not None and not is_table_position(node)
    }


@pytest.mark.parametrize(
    "sql, name",
    [
        ("SELECT reflect('java.lang.System', 'exit', 3)", "reflect"),
        ("SELECT REFLECT('java.lang.System', 'exit', 3)", "reflect"),
        ("SELECT `reflect`('java.lang.System', 'exit', 3)", "reflect"),
        ("SELECT java_method('java.lang.System', 'getenv', 'PATH')", "java_method"),
        ("SELECT try_reflect('java.lang.System', 'getenv', 'PATH')", "try_reflect"),
        ("SELECT current_user", "current_user"),
        ("SELECT session_user()", "session_user"),
        ("SELECT version()", "version"),
        ("SELECT input_file_name() FROM t", "input_file_name"),
        ("SELECT k FROM t WHERE k = length(reflect('a', 'b'))", "reflect"),
        ("SELECT sum(k) OVER (PARTITION BY reflect('a', 'b')) FROM t", "reflect"),
        ("SELECT CASE WHEN k > 0 THEN java_method('a', 'b') END FROM t", "java_method"),
        ("SELECT array_map(x -> reflect('a', x), arr) FROM t", "reflect"),
        ("WITH c AS (SELECT reflect('a', 'b') AS v) SELECT * FROM c", "reflect"),
        ("SELECT * FROM t JOIN u ON t.k = u.k AND reflect('a', 'b') IS NULL", "reflect"),
        ("SELECT * FROM t WHERE k IN (SELECT reflect('a', 'b'))", "reflect"),
        ("SELECT k FROM t GROUP BY k HAVING max(java_method('a', 'b')) > 0", "java_method"),
        ("SELECT no_such_fn(k) FROM t", "no_such_fn"),
        ("SELECT builtin.upper('x')", "builtin.upper"),
        ("SELECT system.builtin.reflect('a', 'b')", "system.builtin.reflect"),
        ("SELECT db.my_udf(k) FROM t", "db.my_udf"),
    ],
)
def test_refused(sql, name):
    with pytest.raises(AnalysisError) as err:
        check(sql)
    assert str(err.value) == f"Can not found function '{name}'"


@pytest.mark.parametrize(
    "sql, names",
    [
        ("SELECT 1 AS one, ifnull(NULL, 2) AS two, concat('a', 'b') AS ab", {"ifnull", "concat"}),
        (
            "SELECT if(k > 1, 'x', 'y'), date_add(d, INTERVAL 1 DAY), cast(k AS varchar(10)), group_concat(city, '|') FROM t",
            {"if", "date_add", "cast", "group_concat"},
        ),
        (
            "SELECT date_format(d, '%Y-%m') AS m, count(*) AS c, count(DISTINCT k) FROM t GROUP BY date_format(d, '%Y-%m')",
            {"date_format", "count"},
        ),
        (
            "SELECT k DIV 2, k % 3, -k, s->>'$.a', CASE k WHEN 1 THEN 'a' ELSE 'b' END, extract(year FROM d) FROM t",
            {"case", "extract"},
        ),
        (
            "SELECT row_number() OVER (PARTITION BY k ORDER BY d), lag(k, 1) OVER (ORDER BY d) FROM t",
            {"row_number", "lag"},
        ),
        (
            "SELECT array_map(x -> x + 1, [1, 2]), element_at(map('a', 1), 'a'), current_date(), now(), CURRENT_TIMESTAMP",
            {"array_map", "element_at", "map", "current_date", "now", "current_timestamp"},
        ),
        ("SELECT k FROM t LATERAL VIEW explode(arr) tmp AS x", {"explode"}),
        (
            "SELECT upper(s), lower(s), substr(s, 1, 2), trim(s), length(s), replace(s, 'a', 'b') FROM t",
            {"upper", "lower", "substr", "trim", "length", "replace"},
        ),
    ],
)
def test_allowed(sql, names):
    check(sql)
    # the check judged these calls (each by the name the allow-list has) and let every one pass
    assert called(sql) == names and names <= ALLOWED_FUNCTIONS


def test_no_function_that_leaves_the_data_is_allowed():
    reaching_out = {
        "reflect",
        "java_method",
        "try_reflect",
        "current_user",
        "user",
        "session_user",
        "current_catalog",
        "current_database",
        "current_schema",
        "database",
        "version",
        "input_file_name",
        "input_file_block_start",
        "spark_partition_id",
        "assert_true",
        "raise_error",
        "sleep",
        "xpath",
        "xpath_string",
        "from_avro",
        "read_files",
        "range",
    }
    assert not reaching_out & ALLOWED_FUNCTIONS
    assert all(name == name.lower() and re.fullmatch(r"[a-z_0-9]+", name) for name in ALLOWED_FUNCTIONS)


def test_values_expressions_follow_the_same_rules():
    # (inside the check of the result's size: translate.functions._bound_sizes)
    assert "(CONCAT('a', COALESCE(NULL, 'b')))" in expression_spark_sql("concat('a', ifnull(NULL, 'b'))")
    with pytest.raises(AnalysisError, match="Can not found function 'reflect'"):
        expression_spark_sql("reflect('java.lang.System', 'exit', 3)")
    for text in ("(SELECT 1)", "1 FROM t", "1 UNION SELECT 2", '(SELECT * FROM local("a" = "b"))'):
        with pytest.raises(NotSupportedError):
            expression_spark_sql(text)


def _documented_scripts() -> list[tuple[str, str]]:
    scripts = [(p.name, p.read_text()) for p in sorted((ROOT / "examples").glob("*.sql"))]
    readme = (ROOT / "README.md").read_text()
    scripts += [
        (f"README.md block {i}", block)
        for i, block in enumerate(re.findall(r"```sql\n(.*?)```", readme, re.S), start=1)
    ]
    return scripts


@pytest.mark.parametrize("name, script", _documented_scripts())
def test_documented_queries_pass(name, script):
    # cut as `dorisql -f` cuts it (`\\G` ends a statement there)
    statements = [stmt for command in iter_script(script) if command.kind == "sql" for stmt in parse(command.text)]
    assert statements, f"{name} holds no statement"
    for stmt in statements:
        query = stmt if isinstance(stmt, ast.Query) else getattr(stmt, "query", None)
        if isinstance(query, ast.Query):
            check(query.sql)
            assert called(query.sql) <= ALLOWED_FUNCTIONS
        for row in getattr(stmt, "rows", None) or ():
            for value in row:
                if value.kind in ("expr", "function") and value.value.upper() != "DEFAULT":
                    assert expression_spark_sql(value.value).strip(), value.value  # translated to Spark SQL
