"""Integer arithmetic typed as Doris types it, as Spark SQL: pure tree work, no table and no Spark.

Doris (Nereids) gives ``+``, ``-`` and ``*`` of two integers the wider operand's type promoted
one step (``Add``/``Subtract``/``Multiply.getDataTypeForOthers``: ``DataType.promotion``
takes TINYINT to SMALLINT, SMALLINT to INT, INT to BIGINT and keeps BIGINT and LARGEINT), so
``2147483647 + 1`` is the BIGINT 2147483648; an integer literal has the narrowest type that
holds it (``1`` is a TINYINT); ``-x`` is ``0 - x`` with ``0`` an INT. A promoted result cannot
overflow. A BIGINT one can, and the BE wraps it around (two's complement, no check: the
``PlusImpl``/``MinusImpl``/``MultiplyIntegralImpl`` of be/src/vec/functions), as it wraps
``SUM`` over BIGINTs (``Sum``: any integer up to BIGINT sums to BIGINT). Spark in ANSI mode
computes in the operands' own type and fails with ``ARITHMETIC_OVERFLOW`` instead.

`translate_arithmetic` rewrites, in place, the arithmetic whose operands' Doris types it knows
(integer literals, casts to an integer type, columns typed by `ColumnType`, a derived table's or
a CTE's column by its item, arithmetic it typed):

- a promoted result: the operands cast to that type (``CAST(a AS BIGINT) + CAST(b AS BIGINT)``);
- a BIGINT result: ``try_add`` (``try_subtract``, ``try_multiply``) in BIGINT, and where that
  overflows, the value computed exactly in DECIMAL(38, 0) and wrapped into BIGINT's range, the
  value Doris's BE returns (``9223372036854775807 + 1`` is -9223372036854775808); ``SUM`` of a
  BIGINT column is summed in DECIMAL(38, 0) and wrapped likewise;
- a LARGEINT result (dorisql stores LARGEINT as DECIMAL(38, 0): docs/storage.md): ``try_add`` /
  ``try_subtract`` / ``try_multiply`` over DECIMAL(38, 0), NULL beyond +-(10^38 - 1), where
  Doris's 128-bit values go on to +-2^127 and then wrap.

Arithmetic over anything else (a function's value, a UNION's column, a decimal) is left to
Spark's typing.
"""

from __future__ import annotations

from sqlglot import exp

from dorisql.syntax.cancel import checked
from dorisql.syntax.dialect import replace_node
from dorisql.translate.temporal import ColumnType
from dorisql.types import INT_RANGES, LARGEINT_STORAGE_MAX, canonical

__all__ = ["literal_type", "result_type", "translate_arithmetic"]

#: Doris's integer types, narrowest first.
_RANKS = ("TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT")
#: DataType.promotion: the result type of + - * over the wider operand's type.
_PROMOTION = {"TINYINT": "SMALLINT", "SMALLINT": "INT", "INT": "BIGINT", "BIGINT": "BIGINT", "LARGEINT": "LARGEINT"}
_SPARK = {"TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT", "BIGINT": "BIGINT", "LARGEINT": "DECIMAL(38, 0)"}
_CAST_TYPES = {
    exp.DataType.Type.TINYINT: "TINYINT",
    exp.DataType.Type.SMALLINT: "SMALLINT",
    exp.DataType.Type.INT: "INT",
    exp.DataType.Type.BIGINT: "BIGINT",
}
_TRY: dict[type[exp.Expr], str] = {exp.Add: "TRY_ADD", exp.Sub: "TRY_SUBTRACT", exp.Mul: "TRY_MULTIPLY"}
#: A BIGINT result computed exactly: |BIGINT * BIGINT| < 2^126 < 10^38.
_EXACT = "DECIMAL(38, 0)"
#: Operands of at most this many nodes are written twice for the fast BIGINT path (bounded: a
#: nested one soon outgrows it).
_SMALL = 24


def literal_type(value: int) -> str | None:
    """Doris's type of an integer literal: the narrowest that holds it (None: beyond LARGEINT's
    DECIMAL(38, 0) storage, which Spark would not read as an integer)."""
    if abs(value) > LARGEINT_STORAGE_MAX:
        return None
    return next(name for name in _RANKS if INT_RANGES[name][0] <= value <= INT_RANGES[name][1])


def result_type(left: str, right: str) -> str:
    """Doris's type of ``left + right`` (and ``-``, ``*``) over two integer types."""
    return _PROMOTION[max(left, right, key=_RANKS.index)]


def translate_arithmetic(tree: exp.Expr, column_type: ColumnType | None = None) -> exp.Expr:
    """Give the tree's integer ``+ - *``, unary minus and ``SUM`` Doris's result types and
    overflow (see the module notes), in place; `column_type` types the columns it names."""
    typed: dict[int, str] = {}  # id(node) -> Doris type, for the arithmetic rewritten so far

    def type_of(node: exp.Expr) -> str | None:
        while isinstance(node, exp.Paren):
            node = node.this
        if id(node) in typed:
            return typed[id(node)]
        value = _integer(node)
        if value is not None:
            return literal_type(value)
        if isinstance(node, exp.TryCast):
            # the query's casts (all TRY_CAST by now); a plain CAST is one of dorisql's own
            # rewrites (translate_casts), typed for Spark already
            return _CAST_TYPES.get(node.to.this)
        if isinstance(node, exp.Column):
            t = column_type(node) if column_type is not None else None
            if t is None:  # a derived table's or a CTE's column: the type of its item
                item = _derived_item(node)
                return type_of(item) if item is not None else None
            name = canonical(t).name
            return name if name in _RANKS else None
        return None

    # children before their parents: a parent reads its operands' types from `typed`
    for node in checked(reversed(list(tree.find_all(exp.Add, exp.Sub, exp.Mul, exp.Neg, exp.Sum)))):
        if isinstance(node, exp.Sum):
            _sum(node, type_of, typed)
            continue
        if isinstance(node, exp.Neg):
            if _integer(node) is not None:
                continue  # a negative literal
            operands = [exp.Literal.number(0), node.this]
            t = type_of(node.this)
            left_type: str | None = "INT"
        else:
            operands = [node.this, node.expression]
            t = type_of(node.expression)
            left_type = type_of(node.this)
        if t is None or left_type is None:
            continue
        result = result_type(left_type, t)
        new = _computed(node, operands, result, promoted=result not in (left_type, t))
        typed[id(replace_node(node, new))] = result
    return tree


def _derived_item(col: exp.Column) -> exp.Expr | None:
    """The expression of the SELECT item a column names in a subquery or CTE its own SELECT
    reads from (None: not exactly one such item)."""
    select = col.find_ancestor(exp.Select)
    if select is None or select.args.get("from_") is None:
        return None
    found = []
    for source in [select.args["from_"].this, *(j.this for j in select.args.get("joins") or [])]:
        if col.table and col.table.lower() != source.alias_or_name.lower():
            continue
        inner = source.this if isinstance(source, exp.Subquery) else _cte(source)
        if isinstance(inner, exp.Select) and not _within(col, inner):  # (a recursive CTE's own)
            found += [e.unalias() for e in inner.expressions if e.alias_or_name.lower() == col.name.lower()]
    return found[0] if len(found) == 1 else None


def _within(node: exp.Expr, ancestor: exp.Expr) -> bool:
    above: exp.Expr | None = node
    while above is not None and above is not ancestor:
        above = above.parent
    return above is not None


def _cte(table: exp.Expr) -> exp.Expr | None:
    """The query of the CTE a table reference names, if any."""
    if not isinstance(table, exp.Table) or table.args.get("db"):
        return None
    node: exp.Expr | None = table
    while node is not None:
        with_ = node.args.get("with_") if isinstance(node, exp.Query) else None
        for cte in with_.expressions if isinstance(with_, exp.With) else []:
            if cte.alias_or_name.lower() == table.name.lower():
                return cte.this
        node = node.parent
    return None


def _integer(node: exp.Expr) -> int | None:
    """The value of an integer literal (``5``, ``-5``), else None."""
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if not isinstance(literal, exp.Literal) or literal.is_string or not literal.name.isdigit():
        return None
    return -int(literal.name) if negative else int(literal.name)


def _cast(node: exp.Expr, spark_type: str) -> exp.Cast:
    return exp.Cast(this=node, to=exp.DataType.build(spark_type, dialect="spark"))


def _computed(node: exp.Expr, operands: list[exp.Expr], result: str, promoted: bool) -> exp.Expr:
    """`node` (an Add, Sub, Mul or Neg) over `operands`, computed as Doris computes `result`."""
    if promoted:  # cannot overflow the wider type
        a, b = (_cast(o, _SPARK[result]) for o in operands)
        return exp.Neg(this=b) if isinstance(node, exp.Neg) else type(node)(this=a, expression=b)
    # exactly, in DECIMAL(38, 0); -x as 0 - x (Spark's unary minus of DECIMAL(38, 0) fails on
    # 10^38 - 1)
    op = exp.Sub if isinstance(node, exp.Neg) else type(node)
    a, b = (_cast(o, _EXACT) for o in operands)
    if result == "LARGEINT":
        return exp.Anonymous(this=_TRY[op], expressions=[a, b])
    wrapped = _wrapped(op(this=a, expression=b))
    if sum(1 for o in operands for _ in o.walk()) > _SMALL:
        return wrapped
    # DECIMAL arithmetic on every row is ~10x slower than BIGINT's (docs/compatibility.md): the
    # wrap computed only where BIGINT overflows, small operands being written twice
    fast = exp.Anonymous(this=_TRY[op], expressions=[_cast(o.copy(), "BIGINT") for o in operands])
    return exp.Coalesce(this=fast, expressions=[wrapped])


def _wrapped(exact: exp.Expr) -> exp.Expr:
    """An exact integer value wrapped into BIGINT's range, as int64 arithmetic wraps it:
    ``pmod(v + 2^63, 2^64) - 2^63``."""
    half, full = exp.Literal.number(2**63), exp.Literal.number(2**64)
    shifted = exp.Add(this=exp.Paren(this=exact), expression=half)
    unsigned = exp.Anonymous(this="PMOD", expressions=[shifted, full])
    return _cast(exp.Sub(this=unsigned, expression=half.copy()), "BIGINT")


def _sum(node: exp.Sum, type_of, typed: dict[int, str]) -> None:
    """``SUM(x)`` over an integer: BIGINT (LARGEINT over LARGEINT); over a BIGINT, wrapped (an
    analytic ``SUM(x) OVER (...)`` too)."""
    distinct = isinstance(node.this, exp.Distinct)
    if distinct and len(node.this.expressions) != 1:
        return
    argument = node.this.expressions[0] if distinct else node.this
    t = type_of(argument)
    if t is None:
        return
    parent = node.parent
    window = isinstance(parent, exp.Window) and node.arg_key == "this"
    target: exp.Expr = parent if window and parent is not None else node
    # (a SUM ... FILTER or IGNORE NULLS keeps Spark's BIGINT: the wrap cannot go between them)
    if t == "BIGINT" and parent is not None and not isinstance(parent, (exp.Filter, exp.IgnoreNulls, exp.RespectNulls)):
        _surround(argument, lambda e: _cast(e, _EXACT))
        target = _surround(target, _wrapped)
    typed[id(target)] = "LARGEINT" if t == "LARGEINT" else "BIGINT"


def _surround(node: exp.Expr, build) -> exp.Expr:
    """Put `build(node)` where `node` is in its tree; returns it."""
    holder = exp.Placeholder()
    new = replace_node(node, build(holder))
    holder.replace(node)
    return new
