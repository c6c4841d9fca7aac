"""Generated columns' rules at CREATE TABLE, with Doris's messages (CreateTableInfo,
ColumnDefinition.validateGeneratedColumnInfo; regression-test/suites/ddl_p0/
test_create_table_generated_column/test_create_table_generated_column_legacy.groovy)."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.errors import AnalysisError
from dorisql.syntax.generated import check_generated_dependency
from dorisql.syntax.parser import parse_one

D = " DISTRIBUTED BY HASH(a)"


def test_accepted_forms_keep_the_expression():
    stmt = parse_one(
        "CREATE TABLE t (a INT, c DOUBLE GENERATED ALWAYS AS (abs(a + b)) NOT NULL, b INT, d INT AS (c+1))" + D
    )
    generated = {c.name: c.generated for c in stmt.columns}
    assert generated == {"a": None, "c": "abs(a + b)", "b": None, "d": "c + 1"}


@pytest.mark.parametrize(
    "columns, tail, message",
    [
        ("a INT, b INT, c INT AS (abs(d)) NOT NULL", D, "Unknown column 'd' in 'generated column function'"),
        (
            "a INT, c DOUBLE AS (abs(a + d)) NOT NULL, b INT, d INT AS (c + 1)",
            D,
            "Generated column can refer only to generated columns defined prior to it.",
        ),
        ("a INT, c INT AS (c + 1)", D, "Generated column can refer only to generated columns defined prior to it."),
        (
            "a VARCHAR(10), c DOUBLE AS (abs(a + b + @myvar)), b INT",
            D,
            "Generated column expression cannot contain variable.",
        ),
        (
            "a BIGINT NOT NULL AUTO_INCREMENT, b INT, c INT AS (a * b)",
            D,
            "Generated column 'c' cannot refer to auto-increment column.",
        ),
        ("a INT, b INT, c INT AS (a + (SELECT 1))", D, "Generated column does not support subquery."),
        (
            "a INT, b ARRAY<INT>, c INT AS (array_count(x -> (x % 2 = 0), b))",
            D,
            "Generated column does not support lambda.",
        ),
        (
            "a INT, b INT, c BOOLEAN AS (rank() over())",
            D,
            "Expression of generated column 'c' contains a disallowed expression:'rank() OVER ()'",
        ),
        (
            "a INT, b INT, c INT AS (sum(a))",
            D,
            "Expression of generated column 'c' contains a disallowed function:'sum'",
        ),
        (
            "a INT, b INT, c INT AS (grouping(a))",
            D,
            "Expression of generated column 'c' contains a disallowed function:'grouping'",
        ),
        (
            "a INT, b INT, c INT SUM AS (abs(a + 1)) NOT NULL",
            " AGGREGATE KEY(a, b)" + D,
            "The generated columns can be key columns, or value columns of replace and replace_if_not_null "
            "aggregation type.",
        ),
        (
            "a INT, b INT, c INT AS (abs(a + 1)) NOT NULL DEFAULT '10'",
            D,
            "Generated columns cannot have default value.",
        ),
        (
            "a INT, b INT, c BIGINT AS (abs(a + 1)) NOT NULL AUTO_INCREMENT",
            D,
            "Generated columns cannot be auto_increment.",
        ),
    ],
)
def test_refused_with_dorises_message(columns, tail, message):
    with pytest.raises(AnalysisError) as info:
        parse_one(f"CREATE TABLE t ({columns}){tail}")
    assert info.value.message == message


def test_replace_value_and_key_generated_columns_are_accepted():
    parse_one("CREATE TABLE t (a INT, b INT, c INT AS (a + b), d INT REPLACE AS (c + 1)) AGGREGATE KEY(a, b, c)" + D)


def test_dependency_of_drop_and_rename_column():
    """SchemaChangeHandler: a column read by generated columns is neither dropped nor renamed."""
    stmt = parse_one("CREATE TABLE t (a INT, c INT AS (a + b), b INT, d INT AS (c + a))" + D)
    with pytest.raises(AnalysisError, match=r"^Column 'A' has a generated column dependency on :\[c, d\]$"):
        check_generated_dependency(stmt, ast.DropColumn("A"))
    with pytest.raises(AnalysisError, match=r"^Cannot rename column, because column 'c' has .* on :\[d\]$"):
        check_generated_dependency(stmt, ast.RenameColumn("c", "c1"))
    check_generated_dependency(stmt, ast.DropColumn("d"))  # nothing reads d
    check_generated_dependency(stmt, ast.RenameColumn("d", "d1"))
