"""Doris expressions and SELECT lists as Spark SQL: pure tree work, no table and no Spark.

- `expression_spark_sql`: one Doris scalar expression (an INSERT ... VALUES value, a column
  DEFAULT, a Stream Load column mapping) as Spark SQL text, under a query's rules;
- `name_columns`: a query's unaliased SELECT items named by their text as written (Doris's
  column headers).

The query planner (:mod:`dorisql.query.planner`) applies both to whole queries; the literal and
variable translation (:mod:`dorisql.translate.literals`, :mod:`dorisql.translate.variables`)
and the loads use them on their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlglot import exp

from dorisql.errors import NotSupportedError
from dorisql.syntax.cancel import checked
from dorisql.syntax.dialect import header_text, parse_query
from dorisql.translate.arithmetic import translate_arithmetic
from dorisql.translate.functions import check_functions, translate_functions
from dorisql.translate.temporal import translate_casts

__all__ = ["expression_over_columns", "expression_spark_sql", "name_columns", "outer_select"]


def expression_spark_sql(text: str, rewrite: Callable[[exp.Expr], exp.Expr] | None = None) -> str:
    """A Doris scalar expression (an INSERT ... VALUES value, a column DEFAULT) as Spark SQL,
    under a query's rules: allowed functions only, and no table, query or table function.
    `rewrite` (e.g. a literal shaped by its column's type) is applied to the expression first."""
    select = parse_query(f"SELECT {text}")
    check_functions(select)
    clauses = [key for key, value in select.args.items() if value and key != "expressions"]
    if (
        not isinstance(select, exp.Select)
        or clauses
        or len(select.expressions) != 1
        or any(True for _ in select.expressions[0].find_all(exp.Query, exp.Table))
    ):
        raise NotSupportedError(f"a query or table in a value: {text}")
    if rewrite is not None:
        item = select.expressions[0]
        item.replace(rewrite(item.copy()))
    translate_functions(select)
    translate_casts(select)
    translate_arithmetic(select)  # a literal's Doris type: 2147483647 + 1 is a BIGINT
    return select.expressions[0].sql(dialect="spark", comments=False)


def expression_over_columns(text: str, columns: Mapping[str, str]) -> str:
    """A Doris expression over one row's columns (a generated column's) as Spark SQL: each
    column it names becomes ``columns[name.lower()]``, the Spark SQL of that column's value."""

    def values(tree: exp.Expr) -> exp.Expr:
        # a Var is printed as it is: the value's Spark SQL, untouched by the function rewrites
        return tree.transform(
            lambda node: (
                exp.Paren(this=exp.Var(this=columns[node.name.lower()])) if isinstance(node, exp.Column) else node
            )
        )

    return expression_spark_sql(text, values)


# --------------------------------------------------------------------------- column headers


def outer_select(tree: exp.Expr) -> exp.Select | None:
    """The SELECT that names the query's columns (the first one of a UNION chain)."""
    node: exp.Expr | None = tree
    while node is not None and not isinstance(node, exp.Select):
        node = node.this if isinstance(node, (exp.SetOperation, exp.Subquery, exp.Paren)) else None
    return node


def name_columns(tree: exp.Expr) -> None:
    """Alias each unaliased item of the query's SELECT list by its text as written, in place:
    Doris's column headers (``count(*)``, ``sum(x)``, ``'abc'``) rather than Spark's
    (``count(1)``, ``abc``). Plain columns and ``*`` keep the names Spark gives them."""
    select = outer_select(tree)
    if select is None:
        return
    # One new list set at once: replacing item by item re-parents the whole list each time
    # (sqlglot's Expression.replace), quadratic in the number of items.
    items = []
    for item in checked(select.expressions):
        text = header_text(item)
        if text is not None:
            item = exp.alias_(item, exp.to_identifier(text, quoted=True), copy=False)  # re-parented
        items.append(item)
    select.set("expressions", items)
