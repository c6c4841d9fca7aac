"""Other ON conditions of a colocated OUTER/SEMI/ANTI join, evaluated within a bucket (pure: the
translation to pyarrow and its evaluation; the Spark comparison is test_colocate_join.py)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pytest

from dorisql import ast
from dorisql.query.pruning import split_conjuncts
from dorisql.query.residual import Untranslatable, compile_conditions, to_expression
from dorisql.syntax.dialect import parse_query

TYPES = {
    "v": ast.DataType("INT"),
    "w": ast.DataType("BIGINT"),
    "d": ast.DataType("DECIMAL", (10, 2)),
    "s": ast.DataType("VARCHAR", (8,)),
    "day": ast.DataType("DATE"),
    "t": ast.DataType("DATETIME"),
    "f": ast.DataType("DOUBLE"),
}
TABLE = pa.table(
    {
        "v": pa.array([1, 5, None, -2], pa.int32()),
        "w": pa.array([3, 5, 7, None], pa.int64()),
        "d": pa.array([Decimal("1.50"), None, Decimal("-2.25"), Decimal("0.00")], pa.decimal128(10, 2)),
        "s": pa.array(["a", "xyz", None, "b"]),
        "day": pa.array([dt.date(2024, 1, 1), dt.date(1999, 12, 31), None, dt.date(2024, 1, 2)], pa.date32()),
        "f": pa.array([0.5, None, 2.0, -1.0]),
    }
)


def column(col):
    name = col.name.lower()
    return (name, TYPES[name]) if name in TYPES else None


def rows(condition: str) -> list[int]:
    """The positions of TABLE's rows the condition accepts (NULL rejects, as in a join's ON)."""
    where = parse_query(f"SELECT 1 FROM x WHERE {condition}").args["where"].this
    tree = compile_conditions(split_conjuncts(where), column)
    indexed = TABLE.append_column("__i", pa.array(range(TABLE.num_rows)))
    return indexed.filter(to_expression(tree)).column("__i").to_pylist()


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("v < w", [0]),
        ("v + 1 >= w AND s IS NOT NULL", [1]),
        ("v * 2 = 10 OR d < 0", [1, 2]),
        ("NOT (v > 0)", [3]),
        ("v IS NULL", [2]),
        ("d > 1", [0]),
        ("d = 1.5", [0]),
        ("s <> 'a'", [1, 3]),
        ("s IN ('a', 'b')", [0, 3]),
        ("v BETWEEN -2 AND 1", [0, 3]),
        ("day >= '2024-01-01'", [0, 3]),
        ("f > v", [3]),
        ("w - v > 1", [0]),
        ("v = -2", [3]),
    ],
)
def test_conditions_evaluate_as_sql_does(condition, expected):
    assert rows(condition) == expected


@pytest.mark.parametrize(
    ("condition", "why"),
    [
        ("abs(v) > 1", "ABS(v) > 1: abs is not evaluated within a bucket"),
        ("t > '2024-01-01'", "a DATETIME column"),
        ("d > f", "decimal compared with float"),
        ("s = 1", "string compared with int"),
        ("day = 'not a date'", "'not a date' as a DATE"),
        ("v = NULL", "null"),
        ("v", "not a condition"),
        ("v / 2 > 1", "div"),
        ("d + 1 > 0", "arithmetic on decimal and int"),
    ],
)
def test_what_pyarrow_cannot_evaluate_as_spark_is_named(condition, why):
    with pytest.raises(Untranslatable, match=None) as e:
        rows(condition)
    assert why in str(e.value), str(e.value)
