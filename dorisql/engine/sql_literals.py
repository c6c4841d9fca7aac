"""Doris literals as Spark SQL text.

INSERT ... VALUES rows become a Spark `VALUES` list in which every value is a STRING; the load
path then casts each column to its declared type with `try_cast`, so a value that does not fit
its column is caught by strict mode instead of failing the whole Spark job or being coerced.
"""

from __future__ import annotations

import datetime as dt
import re

from dorisql import ast
from dorisql.types import spark_string

#: A signed number written as an expression (`-5`, `+ 1.5e3`): kept as text, like an unsigned one,
#: so values beyond Spark's literal range (a 38-digit LARGEINT) reach the column's cast intact.
_SIGNED_NUMBER = re.compile(r"^\s*([+-])\s*(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)\s*$")


def literal_sql(literal: ast.Literal) -> str:
    if literal.kind == "null" or literal.value is None:
        return "CAST(NULL AS STRING)"
    if literal.kind == "expr":
        signed = _SIGNED_NUMBER.match(literal.value)
        if signed:
            return spark_string(("-" if signed.group(1) == "-" else "") + signed.group(2))
    if literal.kind == "expr" or literal.kind == "function":
        return f"CAST(({_spark_expression(literal.value)}) AS STRING)"
    return spark_string(literal.value)


def is_default(literal: ast.Literal) -> bool:
    """`DEFAULT` in an INSERT ... VALUES row: the column's default value."""
    return literal.kind == "expr" and (literal.value or "").strip().upper() == "DEFAULT"


def default_sql(column: ast.ColumnDef, now: dt.datetime | None = None) -> str:
    """The value a column gets when an INSERT does not name it (its DEFAULT, else NULL)."""
    default = column.default
    if default is None or default.kind == "null" or default.value is None:
        return "CAST(NULL AS STRING)"
    if default.kind == "function":
        name = default.value.upper()
        stamp = now or dt.datetime.now()
        if name.startswith(("CURRENT_TIMESTAMP", "NOW")):
            return spark_string(stamp.strftime("%Y-%m-%d %H:%M:%S"))
        if name.startswith("CURRENT_DATE"):
            return spark_string(stamp.strftime("%Y-%m-%d"))
        return f"CAST(({_spark_expression(default.value)}) AS STRING)"
    return spark_string(default.value)


def _spark_expression(text: str) -> str:
    """A Doris scalar expression in Spark SQL (function names differ a little), checked like a
    query's: only allowed functions, no tables."""
    from .query import expression_spark_sql

    return expression_spark_sql(text)
