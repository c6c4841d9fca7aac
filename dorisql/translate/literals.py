"""Doris literals as Spark SQL text.

INSERT ... VALUES rows become a Spark `VALUES` list in which every scalar value is a STRING; the
load path then casts each column to its declared type with `try_cast`, so a value that does not
fit its column is caught by strict mode instead of failing the whole Spark job or being coerced.

ARRAY, MAP and STRUCT values cannot travel as strings (Spark casts no STRING to them): they are
built as Spark values of their own shape, read the way Doris writes them -- ``['x', 'y']``,
``{'k': 1, 'j': 2}`` for a MAP, ``{'a', 1}`` for a STRUCT (fields by position), nested freely,
or any allowed expression (``array(1, 2)``, ``named_struct('a', 1)``) -- and cast to the column's
type like every other value. A missing value, ``NULL`` and ``DEFAULT`` (without a default) are a
typeless NULL.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlglot import exp

from dorisql import ast
from dorisql.errors import AnalysisError, DorisqlError
from dorisql.syntax.dialect import parse_query
from dorisql.syntax.generator import quote_string, type_sql
from dorisql.translate import sketch_storage
from dorisql.translate.expressions import expression_spark_sql
from dorisql.types import canonical, is_sketch, spark_string, spark_type

_COMPLEX = ("ARRAY", "MAP", "STRUCT")


def is_complex(data_type: ast.DataType) -> bool:
    return data_type.name in _COMPLEX


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


def plain_value(literal: ast.Literal) -> tuple[bool, str | None]:
    """(True, the string `literal_sql` makes of a plain literal; None for NULL), or (False,
    None) for an expression Spark must evaluate."""
    if literal.kind == "null" or literal.value is None:
        return True, None
    if literal.kind in ("string", "number", "bool"):
        return True, literal.value
    if literal.kind == "expr":
        signed = _SIGNED_NUMBER.match(literal.value)
        if signed:
            return True, ("-" if signed.group(1) == "-" else "") + signed.group(2)
    return False, None


def plain_default(column: ast.ColumnDef, now: dt.datetime | None = None) -> tuple[bool, str | None]:
    """`default_sql` of a scalar column as `plain_value` gives it: (False, None) for a default
    Spark must evaluate."""
    default = column.default
    if default is None or default.kind == "null" or default.value is None:
        return True, None
    if default.kind == "function":
        name = default.value.upper()
        stamp = now or dt.datetime.now()
        if name.startswith(("CURRENT_TIMESTAMP", "NOW")):
            return True, stamp.strftime("%Y-%m-%d %H:%M:%S")
        if name.startswith("CURRENT_DATE"):
            return True, stamp.strftime("%Y-%m-%d")
        return False, None
    return True, default.value


def value_sql(column: ast.ColumnDef, literal: ast.Literal) -> str:
    """One INSERT ... VALUES value for `column` as Spark SQL (see the module notes)."""
    if is_sketch(column.type):
        return sketch_value_sql(column, literal)
    if not is_complex(column.type):
        return literal_sql(literal)
    return complex_sql(column, literal)


def sketch_value_sql(column: ast.ColumnDef, literal: ast.Literal) -> str:
    """A load's value for a BITMAP / HLL / QUANTILE_STATE column: a load function (to_bitmap(x),
    hll_hash(x), ...) as the values its sketch is built from, which the load pre-aggregates
    (dorisql.statements.load.sketch_load); NULL; or another sketch-valued expression."""
    kind = canonical(column.type).name
    if literal.kind == "null" or literal.value is None:
        return "NULL"
    if literal.kind != "expr":
        raise AnalysisError(
            f"Invalid value {literal.value} for column '{column.name}' of type {kind}: "
            f"a {kind} value comes from a {kind} function"
        )
    return expression_spark_sql(literal.value, lambda node: sketch_storage.load_inputs(node, kind) or node)


def complex_sql(column: ast.ColumnDef, literal: ast.Literal) -> str:
    """An ARRAY / MAP / STRUCT value (a literal in Doris's spelling, or an expression; a string
    holding such a literal, as Doris also accepts) as a Spark value of that shape."""
    if literal.kind == "null" or literal.value is None:
        return "NULL"
    if literal.kind in ("number", "bool"):
        raise AnalysisError(f"Invalid value {literal.value} for column '{column.name}' of type {_type_text(column)}")

    text = quote_string(literal.value) if literal.kind == "string" else literal.value
    return expression_spark_sql(text, lambda node: shaped(node, column.type))


def _type_text(column: ast.ColumnDef) -> str:
    return type_sql(column.type)


def _map_key(node: exp.Expr) -> exp.Expr:
    # sqlglot reads `{'k': 1}` as a struct whose keys are identifiers: the key is their text
    if isinstance(node, exp.Identifier):
        return exp.null() if not node.quoted and node.name.upper() == "NULL" else exp.Literal.string(node.name)
    return node


def shaped(node: exp.Expr, data_type: ast.DataType) -> exp.Expr:
    """`node` (a Doris literal read by sqlglot) rebuilt for Spark in the shape of `data_type`:
    ``[...]`` an ARRAY, ``{k: v, ...}`` a MAP, ``{v, ...}`` a STRUCT's fields in order. Anything
    else (NULL, a scalar, a function call) is left as it is."""
    if isinstance(node, exp.Literal) and node.is_string and is_complex(data_type):
        try:
            inner = parse_query(f"SELECT {node.this}").expressions[0]
        except DorisqlError:
            inner = None
        if not isinstance(inner, (exp.Array, exp.Struct, exp.Null)):
            raise AnalysisError(f"Invalid {type_sql(data_type)} value: '{node.this}'")
        return shaped(inner, data_type)
    if not is_complex(data_type):  # a leaf inside a complex value: typed as its element
        if isinstance(node, (exp.Literal, exp.Neg)) and not isinstance(node, exp.Null):
            return exp.TryCast(this=node, to=exp.DataType.build(spark_type(data_type), dialect="spark"), safe=True)
        return node
    if data_type.name == "ARRAY" and isinstance(node, exp.Array):
        return exp.Array(expressions=[shaped(e, data_type.args[0]) for e in node.expressions])
    if data_type.name == "MAP" and isinstance(node, exp.Struct):
        keys, values = [], []
        for item in node.expressions:
            if not isinstance(item, (exp.PropertyEQ, exp.Slice)):
                return node
            keys.append(shaped(_map_key(item.this), data_type.args[0]))
            values.append(shaped(item.expression, data_type.args[1]))
        return exp.VarMap(keys=exp.Array(expressions=keys), values=exp.Array(expressions=values))
    if data_type.name == "STRUCT" and isinstance(node, exp.Struct):
        items = [i.expression if isinstance(i, exp.PropertyEQ) else i for i in node.expressions]
        if len(items) != len(data_type.fields):
            return node  # the cast to the column's type refuses it
        args: list[exp.Expr] = []
        for field, item in zip(data_type.fields, items):
            args += [exp.Literal.string(field.name), shaped(item, field.type)]
        return exp.Anonymous(this="NAMED_STRUCT", expressions=args)
    return node


def is_default(literal: ast.Literal) -> bool:
    """`DEFAULT` in an INSERT ... VALUES row: the column's default value."""
    return literal.kind == "expr" and (literal.value or "").strip().upper() == "DEFAULT"


def default_sql(column: ast.ColumnDef, now: dt.datetime | None = None) -> str:
    """The value a column gets when an INSERT does not name it (its DEFAULT, else NULL; a BITMAP's
    and an HLL's is the empty one, as Doris's)."""
    if is_sketch(column.type) and canonical(column.type).name != "QUANTILE_STATE":
        return sketch_storage.empty_value_sql(canonical(column.type).name)
    default = column.default
    if default is None or default.kind == "null" or default.value is None:
        return "NULL" if is_complex(column.type) else "CAST(NULL AS STRING)"
    if is_complex(column.type):  # Doris allows '[]' / '{}' defaults
        return complex_sql(column, ast.Literal(default.value, "expr" if default.kind != "string" else "string"))
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

    return expression_spark_sql(text)
