"""The other conditions of a colocated OUTER/SEMI/ANTI join, evaluated within a bucket.

Both rows of a matching pair share the bucket columns, so they are in the same bucket: the
whole ON clause can be decided inside the bucket's task (docs/colocation.md). The task joins on
the bucket columns, keeps the pairs these conditions accept, and adds back the unmatched rows
the join kind asks for. The conditions run in pyarrow there, not in Spark, so only what pyarrow
evaluates exactly as Spark does is taken: column references, literals, comparisons, ``+ - *``
(on integers and floating point),
``AND/OR/NOT``, ``IS [NOT] NULL``, ``BETWEEN`` and ``IN (literals)``, on numbers, strings, dates
and booleans. Anything else leaves the join to Spark, and EXPLAIN says which condition.

`compile_conditions` (pure) turns the sqlglot conditions into a small picklable tree
(``("col", name)``, ``("lit", value, family)``, ``(function, *args)``); `to_expression` makes
the pyarrow compute expression of one inside the task.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from dorisql import ast

__all__ = ["Untranslatable", "compile_conditions", "to_expression", "type_family"]

#: A node of the tree: ("col", name) | ("lit", value, family) | (pyarrow function, *nodes).
Node = tuple

_INTS = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")
_STRINGS = ("CHAR", "VARCHAR", "STRING", "TEXT")

_COMPARISONS: dict[type[exp.Expr], str] = {
    exp.EQ: "equal",
    exp.NEQ: "not_equal",
    exp.LT: "less",
    exp.LTE: "less_equal",
    exp.GT: "greater",
    exp.GTE: "greater_equal",
}
# checked variants: an overflow is an error, as in Spark's ANSI mode, never a wrapped value
_ARITHMETIC: dict[type[exp.Expr], str] = {
    exp.Add: "add_checked",
    exp.Sub: "subtract_checked",
    exp.Mul: "multiply_checked",
}


class Untranslatable(Exception):
    """A condition pyarrow cannot evaluate as Spark does; the message names it."""


def type_family(t: ast.DataType) -> str | None:
    """int, decimal, float, string, date or boolean: the types compared and computed alike in
    Spark and pyarrow; None for the others (DATETIME, LARGEINT, complex types...)."""
    name = t.name.upper()
    if name in _INTS:
        return "int"
    if name in ("DECIMAL", "DECIMALV3"):
        return "decimal"
    if name in ("FLOAT", "DOUBLE"):
        return "float"
    if name in _STRINGS:
        return "string"
    if name in ("DATE", "DATEV2"):
        return "date"
    if name in ("BOOLEAN", "BOOL"):
        return "boolean"
    return None


_NUMERIC = ("int", "decimal", "float")


def _comparable(a: str, b: str) -> bool:
    if a == b:
        return True
    # Spark compares DECIMAL with DOUBLE as DOUBLE, pyarrow refuses or rounds otherwise: not mixed
    return a in _NUMERIC and b in _NUMERIC and "int" in (a, b)


def compile_conditions(
    conditions: Sequence[exp.Expr],
    column: Callable[[exp.Column], tuple[str, ast.DataType] | None],
) -> Node:
    """The conjunction of `conditions` as a tree; `column` maps a column reference to its name in
    the bucket's joined table and its type (None: not a column of the two tables). Raises
    Untranslatable naming the first condition that cannot be evaluated within a bucket."""
    nodes = []
    for c in conditions:
        try:
            node, family = _compile(c, column)
        except Untranslatable as e:
            raise Untranslatable(f"{c.sql(dialect='spark')}: {e}") from None
        if family != "boolean":
            raise Untranslatable(f"{c.sql(dialect='spark')}: not a condition")
        nodes.append(node)
    tree = nodes[0]
    for n in nodes[1:]:
        tree = ("and_kleene", tree, n)
    return tree


def _literal(e: exp.Expr) -> tuple[Node, str]:
    if isinstance(e, exp.Boolean):
        return ("lit", bool(e.this), "boolean"), "boolean"
    if isinstance(e, exp.Literal) and e.is_string:
        return ("lit", e.this, "string"), "string"
    if isinstance(e, exp.Literal):
        text = e.this
        if "e" in text.lower():
            return ("lit", float(text), "float"), "float"
        if "." in text:
            return ("lit", Decimal(text), "decimal"), "decimal"
        value = int(text)
        if not -(2**63) <= value < 2**63:
            raise Untranslatable("an integer beyond BIGINT")
        return ("lit", value, "int"), "int"
    if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
        node, family = _literal(e.this)
        return ("lit", -node[1], family), family
    raise Untranslatable(f"the value {e.sql(dialect='spark')}")


def _as_date(node: Node) -> Node:
    """A string literal compared with a DATE: Spark casts it to a date; a string that is not one
    is an error there, so it is left to Spark."""
    try:
        return ("lit", dt.date.fromisoformat(node[1].strip()), "date")
    except (ValueError, InvalidOperation):
        raise Untranslatable(f"'{node[1]}' as a DATE") from None


def _operands(a: tuple[Node, str], b: tuple[Node, str]) -> tuple[Node, Node]:
    (na, fa), (nb, fb) = a, b
    if fa == "date" and fb == "string" and nb[0] == "lit":
        nb, fb = _as_date(nb), "date"
    if fb == "date" and fa == "string" and na[0] == "lit":
        na, fa = _as_date(na), "date"
    if not _comparable(fa, fb):
        raise Untranslatable(f"{fa} compared with {fb}")
    if {fa, fb} == {"int", "decimal"}:  # as decimals: pyarrow's own widening overflows
        na, nb = (_decimal(na) if fa == "int" else na), (_decimal(nb) if fb == "int" else nb)
    return na, nb


def _decimal(node: Node) -> Node:
    """An integer as a DECIMAL (any BIGINT fits 19 digits)."""
    return ("lit", Decimal(node[1]), "decimal") if node[0] == "lit" else ("cast_decimal", node)


def _compile(e: exp.Expr, column) -> tuple[Node, str]:
    if isinstance(e, exp.Paren):
        return _compile(e.this, column)
    if isinstance(e, exp.Column):
        found = column(e)
        if found is None:
            raise Untranslatable(f"the column {e.sql(dialect='spark')}")
        family = type_family(found[1])
        if family is None:
            raise Untranslatable(f"a {found[1].name} column")
        return ("col", found[0]), family
    if isinstance(e, (exp.Literal, exp.Boolean)) or (isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal)):
        return _literal(e)
    if isinstance(e, (exp.And, exp.Or)):
        fn = "and_kleene" if isinstance(e, exp.And) else "or_kleene"
        return (fn, _boolean(e.this, column), _boolean(e.expression, column)), "boolean"
    if isinstance(e, exp.Not):
        if isinstance(e.this, exp.Is):  # x IS NOT NULL
            return ("is_valid", _null_test(e.this, column)), "boolean"
        return ("invert", _boolean(e.this, column)), "boolean"
    if isinstance(e, exp.Is):
        return ("is_null", _null_test(e, column)), "boolean"
    if type(e) in _COMPARISONS:
        a, b = _operands(_compile(e.this, column), _compile(e.expression, column))
        return (_COMPARISONS[type(e)], a, b), "boolean"
    if type(e) in _ARITHMETIC:
        (na, fa), (nb, fb) = _compile(e.this, column), _compile(e.expression, column)
        # DECIMAL results differ (Spark caps precision at 38 and rounds; pyarrow fails): left to Spark
        if fa not in ("int", "float") or fb not in ("int", "float"):
            raise Untranslatable(f"arithmetic on {fa} and {fb}")
        family = fa if fa == fb else next(f for f in (fa, fb) if f != "int")
        return (_ARITHMETIC[type(e)], na, nb), family
    if isinstance(e, exp.Between):
        x = _compile(e.this, column)
        low, high = _operands(x, _compile(e.args["low"], column)), _operands(x, _compile(e.args["high"], column))
        return ("and_kleene", ("greater_equal", *low), ("less_equal", *high)), "boolean"
    if isinstance(e, exp.In) and not e.args.get("query") and not e.args.get("unnest"):
        x = _compile(e.this, column)
        items = [_operands(x, _literal(v))[1] for v in e.expressions]
        tree: Node = ("equal", x[0], items[0])
        for item in items[1:]:
            tree = ("or_kleene", tree, ("equal", x[0], item))
        return tree, "boolean"
    raise Untranslatable(f"{type(e).__name__.lower()} is not evaluated within a bucket")


def _boolean(e: exp.Expr, column) -> Node:
    node, family = _compile(e, column)
    if family != "boolean":
        raise Untranslatable(f"{e.sql(dialect='spark')} is not a condition")
    return node


def _null_test(e: exp.Is, column) -> Node:
    if not isinstance(e.expression, exp.Null):
        raise Untranslatable(f"IS {e.expression.sql(dialect='spark')}")
    return _compile(e.this, column)[0]


# ---------------------------------------------------------------------- in the task


def to_expression(node: Node):
    """The pyarrow compute expression of a tree (in the task)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = node[0]
    if kind == "col":
        return pc.field(node[1])
    if kind == "lit":
        value, family = node[1], node[2]
        if family == "date":
            return pc.scalar(pa.scalar(value, pa.date32()))
        return pc.scalar(value)
    if kind == "cast_decimal":
        return to_expression(node[1]).cast(pa.decimal128(19, 0))
    return getattr(pc, kind)(*(to_expression(n) for n in node[1:]))
