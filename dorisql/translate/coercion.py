"""Doris's implicit casts where Spark's differ, as Spark SQL: pure tree work, no table and no Spark.

- A comparison (``= <> < <= > >= <=>``, ``IN``) of a BOOLEAN with a number. Nereids'
  TypeCoercionUtils.processComparisonPredicate compares both in their common type, which for a
  BOOLEAN and an integer is the integer's type (a DECIMAL, FLOAT or DOUBLE one for the others):
  TRUE is 1, FALSE 0, so ``flag = 1`` holds for TRUE, ``flag = 0`` for FALSE and ``flag = 2``
  never. Spark refuses the comparison (DATATYPE_MISMATCH); the BOOLEAN side is cast to INT, which
  Spark then widens to the number's type as Doris does. A client's True parameter arrives as 1
  (PyMySQL, mysqlclient).
- A set operation (``UNION``/``INTERSECT``/``EXCEPT``) whose column is a string in one branch and
  a number in another: Doris's column is a STRING (findWiderTypeForTwo with strings first), so
  ``SELECT 2 UNION ALL SELECT 'x'`` is '2' and 'x'. Spark in ANSI mode casts the string to the
  number instead and fails on 'x'; the number is cast to STRING.

Only operands whose Doris types are known (literals, casts, columns typed by `ColumnType`) are
rewritten; anything else is left to Spark's typing.
"""

from __future__ import annotations

from sqlglot import exp

from dorisql.syntax.cancel import checked
from dorisql.translate.temporal import ColumnType
from dorisql.types import FLOAT_TYPES, INTEGER_TYPES, STRING_TYPES, canonical

__all__ = ["translate_coercions"]

_NUMERIC = (*INTEGER_TYPES, *FLOAT_TYPES, "DECIMAL")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ)
_CAST_KINDS = {
    **{getattr(exp.DataType.Type, n): "NUMBER" for n in ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE")},
    exp.DataType.Type.DECIMAL: "NUMBER",
    exp.DataType.Type.BOOLEAN: "BOOLEAN",
    exp.DataType.Type.VARCHAR: "STRING",
    exp.DataType.Type.CHAR: "STRING",
    exp.DataType.Type.TEXT: "STRING",
}


def translate_coercions(tree: exp.Expr, column_type: ColumnType | None = None) -> exp.Expr:
    """Apply Doris's casts (the module notes) to `tree`, in place; `column_type` types the columns
    it names."""

    def kind(node: exp.Expr) -> str | None:
        """BOOLEAN, NUMBER, STRING or None (unknown or another type)."""
        while isinstance(node, (exp.Paren, exp.Alias)):
            node = node.this
        if isinstance(node, exp.Boolean):
            return "BOOLEAN"
        if isinstance(node, exp.Literal):
            return "STRING" if node.is_string else "NUMBER"
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
            return "NUMBER"
        if isinstance(node, exp.Cast):  # TRY_CAST too
            return _CAST_KINDS.get(node.to.this)
        if isinstance(node, exp.Column) and column_type is not None:
            t = column_type(node)
            if t is None:
                return None
            name = canonical(t).name
            if name == "BOOLEAN":
                return "BOOLEAN"
            return "NUMBER" if name in _NUMERIC else "STRING" if name in STRING_TYPES else None
        return None

    for node in checked(list(tree.find_all(*_COMPARISONS, exp.In))):
        if isinstance(node, exp.In):
            if node.args.get("query") is not None or node.args.get("unnest") is not None:
                continue  # IN (subquery): its column's type is not known here
            operands = [node.this, *node.expressions]
        else:
            operands = [node.this, node.expression]
        kinds = [kind(o) for o in operands]
        if "BOOLEAN" in kinds and "NUMBER" in kinds:
            for operand, k in zip(operands, kinds):
                if k == "BOOLEAN":
                    operand.replace(exp.cast(operand.copy(), "INT"))

    for setop in checked(list(tree.find_all(exp.SetOperation))):
        if isinstance(setop.parent, exp.SetOperation):
            continue  # an outer one covers its branches
        branches = _branches(setop)
        if branches is None or len({len(b.expressions) for b in branches}) != 1:
            continue  # Spark's own error for different widths
        for column in zip(*(b.expressions for b in branches)):
            kinds = [kind(item) for item in column]
            if "STRING" in kinds and "NUMBER" in kinds:
                for item, k in zip(column, kinds):
                    if k == "NUMBER" and isinstance(item, exp.Alias):
                        item.this.replace(exp.cast(item.this.copy(), "STRING"))
                    elif k == "NUMBER" and isinstance(item, exp.Column):  # its name stays the header
                        item.replace(exp.alias_(exp.cast(item.copy(), "STRING"), item.name, quoted=True))
                    elif k == "NUMBER":
                        item.replace(exp.cast(item.copy(), "STRING"))
    return tree


def _branches(node: exp.Expr) -> list[exp.Select] | None:
    """The SELECTs a set operation combines (None: one is not a plain SELECT, or selects ``*``)."""
    while isinstance(node, exp.Subquery):
        node = node.this
    if isinstance(node, exp.SetOperation):
        left, right = _branches(node.this), _branches(node.expression)
        return None if left is None or right is None else left + right
    if not isinstance(node, exp.Select) or any(isinstance(e, exp.Star) or e.is_star for e in node.expressions):
        return None
    return [node]
