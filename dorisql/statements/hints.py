"""Query hints: ``SELECT /*+ SET_VAR(name = value, ...) */ ...`` sets session variables for that
one statement (Doris's SelectHintSetVar): the variables take their values before the statement
runs and their earlier values back when it ends, however it ends.

Doris reads the hint in a SELECT's select list, so it applies to a query, to INSERT ... SELECT,
to CREATE TABLE ... AS SELECT and to EXPLAIN of a query (DELETE and UPDATE take no hint in
Doris's grammar). A value the variable refuses, or a name that is no variable, fails the
statement before anything runs, in Doris's words: ``Can not set session variable 'x' = 'v'``.
Other hints (LEADING, ORDERED, USE_MV, ...) are Doris's planner's and are ignored, as Doris
ignores a hint it cannot use.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

from dorisql import ast
from dorisql.errors import AnalysisError, DorisqlError
from dorisql.session.session import Session
from dorisql.statements.session_statements import set_variable
from dorisql.syntax.dialect import Dorisql, query_hints


def query_of(stmt: ast.Statement) -> ast.Query | None:
    """The query whose select list may hold a hint for statement `stmt`."""
    if isinstance(stmt, ast.Query):
        return stmt
    if isinstance(stmt, (ast.Insert, ast.Explain)):
        return stmt.query
    if isinstance(stmt, ast.CreateTable):
        return stmt.as_query
    return None


def set_var_hints(sql: str) -> list[tuple[str, ast.Literal]]:
    """The ``SET_VAR(name = value)`` assignments of the query's hints, in order (a later one
    of the same name wins, as in Doris's map of them)."""
    try:
        items = query_hints(sql)
    except DorisqlError:  # the statement's own run reports its syntax
        return []
    found: list[tuple[str, ast.Literal]] = []
    for item in items:
        for call in _calls_in(item) if isinstance(item, str) else [item]:
            if not isinstance(call, exp.Anonymous) or call.name.upper() != "SET_VAR":
                continue
            for arg in call.expressions:
                if isinstance(arg, exp.EQ):
                    found.append((arg.this.name.lower(), _literal(arg.expression)))
    return found


def _calls_in(text: str) -> list[exp.Expr]:
    """The ``NAME(...)`` calls of a hint sqlglot kept as text (one it could not read as calls,
    e.g. ``LEADING(a b)`` beside a SET_VAR): each call's tokens, parsed on their own."""
    tokens = Dorisql().tokenize(text)
    calls, depth, start = [], 0, None
    for i, token in enumerate(tokens):
        if token.token_type == TokenType.L_PAREN:
            if depth == 0 and i > 0:
                start = tokens[i - 1].start
            depth += 1
        elif token.token_type == TokenType.R_PAREN and depth > 0:
            depth -= 1
            if depth == 0 and start is not None:
                try:
                    calls.append(sqlglot.parse_one(text[start : token.end + 1], read=Dorisql))
                except sqlglot.errors.SqlglotError:
                    pass  # another hint's own syntax: not a SET_VAR
                start = None
    return calls


def _literal(value: exp.Expr) -> ast.Literal:
    if isinstance(value, exp.Boolean):
        return ast.Literal("true" if value.this else "false", "bool")
    if isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal):
        return ast.Literal(f"-{value.this.this}", "number")
    if isinstance(value, exp.Literal):
        return ast.Literal(value.this, "string" if value.is_string else "number")
    if isinstance(value, exp.Null):
        return ast.Literal(None, "null")
    return ast.Literal(value.name or value.sql(), "string")  # an identifier: its name


@contextmanager
def statement_variables(session: Session, stmt: ast.Statement) -> Iterator[None]:
    """The statement's SET_VAR hints in effect while the block runs; the session's variables as
    they were afterwards."""
    query = query_of(stmt)
    hints = set_var_hints(query.sql) if query is not None else []
    if not hints:
        yield
        return
    saved = dict(session.session_vars)
    try:
        for name, value in hints:
            try:
                set_variable(session, ast.SetVariable(name, value))
            except DorisqlError:
                shown = value.value if value.value is not None else "NULL"
                raise AnalysisError(f"Can not set session variable '{name}' = '{shown}'") from None
        yield
    finally:
        session.session_vars.clear()
        session.session_vars.update(saved)
