"""Generated columns (`c INT [GENERATED ALWAYS] AS (expr)`): the rules of their expressions.

Doris 2.1 stores a generated column's value, computed at load from the other columns of the
row (dorisql.statements.load.insert). The rules, in Doris's words (CreateTableInfo /
GeneratedColumnUtil and the suites regression-test/suites/ddl_p0/test_create_table_generated_column/):
no subquery, lambda, variable, aggregate or window function; only columns of the table, of
which a generated one must be defined before; no AUTO_INCREMENT column.
"""

from __future__ import annotations

from sqlglot import exp

from dorisql import ast
from dorisql.errors import AnalysisError
from dorisql.syntax.dialect import call_name, parse_query

__all__ = ["check_generated_columns", "check_generated_dependency", "generated_expression"]


def generated_expression(text: str) -> exp.Expr:
    """The expression of a generated column as a sqlglot tree (Doris's dialect)."""
    return parse_query(f"SELECT {text}").expressions[0]


def check_generated_columns(stmt: ast.CreateTable) -> None:
    """Doris's rules for each generated column of a CREATE TABLE, in its order."""
    columns = {c.name.lower(): (i, c) for i, c in enumerate(stmt.columns)}
    for position, c in enumerate(stmt.columns):
        if c.generated is None:
            continue
        tree = generated_expression(c.generated)
        _check_expression(c.name, tree)
        for node in tree.find_all(exp.Column):
            found = columns.get(node.name.lower())
            if found is None:
                raise AnalysisError(f"Unknown column '{node.name}' in 'generated column function'")
            index, referred = found
            if referred.generated is not None and index >= position:
                raise AnalysisError("Generated column can refer only to generated columns defined prior to it.")
            if referred.auto_increment:
                raise AnalysisError(f"Generated column '{c.name}' cannot refer to auto-increment column.")


def _check_expression(name: str, tree: exp.Expr) -> None:
    if any(True for _ in tree.find_all(exp.Query)):
        raise AnalysisError("Generated column does not support subquery.")
    if any(True for _ in tree.find_all(exp.Lambda)):
        raise AnalysisError("Generated column does not support lambda.")
    if any(True for _ in tree.find_all(exp.Parameter, exp.SessionParameter)):
        raise AnalysisError("Generated column expression cannot contain variable.")
    for window in tree.find_all(exp.Window):
        text = window.sql(dialect="doris", normalize_functions="lower")
        raise AnalysisError(f"Expression of generated column '{name}' contains a disallowed expression:'{text}'")
    for func in tree.find_all(exp.AggFunc, exp.Grouping):
        called = call_name(func) if isinstance(func, exp.Func) else None
        function = called or func.key
        raise AnalysisError(f"Expression of generated column '{name}' contains a disallowed function:'{function}'")


def check_generated_dependency(definition: ast.CreateTable, action: object) -> None:
    """A column a generated column reads can be neither dropped nor renamed (SchemaChangeHandler
    processDropColumn / processRenameColumn and their messages; the list as Java prints a set)."""
    if isinstance(action, ast.DropColumn):
        name, message = action.name, "Column '{name}' has a generated column dependency on :[{users}]"
    elif isinstance(action, ast.RenameColumn):
        name = action.old_name
        message = "Cannot rename column, because column '{name}' has a generated column dependency on :[{users}]"
    else:
        return
    users = [
        c.name
        for c in definition.columns
        if c.generated is not None
        and any(node.name.lower() == name.lower() for node in generated_expression(c.generated).find_all(exp.Column))
    ]
    if users:
        raise AnalysisError(message.format(name=name, users=", ".join(users)))
