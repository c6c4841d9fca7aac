"""SELECT / WITH queries: kept as text, read with sqlglot (dorisql's Doris dialect, which knows
``t PARTITION (...)`` and ``TABLET (...)``) only to learn which tables they use."""

from __future__ import annotations

import re

from dorisql import ast
from dorisql.errors import SqlSyntaxError
from dorisql.syntax.diagnose import offset_of
from dorisql.syntax.dialect import Dorisql
from dorisql.syntax.input_limits import NESTED_TOO_DEEPLY

_SQLGLOT_TOKEN = re.compile(r"<Token token_type: TokenType\.(\w+), text: (.*?), line: \d+.*?>")


def _clean_sqlglot(desc: str) -> str:
    """sqlglot's message without its token reprs."""

    def repl(m: re.Match) -> str:
        return "end of input" if m.group(1) == "SENTINEL" else f"'{m.group(2)}'"

    if desc.startswith("Required keyword"):
        return "the query is incomplete"
    return _SQLGLOT_TOKEN.sub(repl, desc)


def query_tables(sql: str) -> tuple[ast.TableName, ...]:
    """The tables a query reads, in order of appearance, without CTE names.

    Raises SqlSyntaxError (pos relative to `sql`) if sqlglot cannot read the query.
    """
    return parsed_query(sql)[1]


def parsed_query(sql: str) -> tuple[object | None, tuple[ast.TableName, ...]]:
    """`query_tables`, with the sqlglot tree it read them from (None for an empty query), so
    that a reader of the tree (the short-circuit planner) need not parse the text again."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    try:
        tree = sqlglot.parse_one(sql, read=Dorisql)
    except RecursionError:  # a nesting .nesting does not count; never a traceback
        err = SqlSyntaxError(NESTED_TOO_DEEPLY)
        err.detail = NESTED_TOO_DEEPLY
        err.pos = 0
        raise err from None
    except ParseError as e:
        detail = "cannot read this query"
        pos = len(sql)
        if e.errors:
            first = e.errors[0]
            desc = _clean_sqlglot(first.get("description") or "")
            if desc:
                detail = f"cannot read this query: {desc}"
            line, col = first.get("line"), first.get("col")
            if line and col:
                pos = offset_of(sql, line, max(1, col))
                # sqlglot points at the end of the offending token; step back to its start
                start = pos
                while start > 0 and (sql[start - 1].isalnum() or sql[start - 1] in "_$`"):
                    start -= 1
                pos = start if start < pos else max(0, pos - 1)
        err = SqlSyntaxError(detail)
        err.detail = detail
        err.pos = pos
        raise err from None
    except TokenError as e:
        err = SqlSyntaxError(f"cannot read this query: {e}")
        err.detail = f"cannot read this query: {e}"
        err.pos = len(sql)
        raise err from None
    if tree is None:
        return None, ()
    ctes, tables = set(), []
    for node in tree.walk(bfs=False):  # one walk for both (a point query's tree is walked once)
        if isinstance(node, exp.CTE):
            ctes.add(node.alias_or_name.lower())
        elif isinstance(node, exp.Table):
            tables.append(node)
    seen = set()
    out = []
    # in order of appearance in the text (sqlglot visits the main query before its CTEs)
    tables.sort(key=lambda t: (getattr(t.this, "meta", None) or {}).get("start", 0))
    for t in tables:
        name = t.name
        if not name or isinstance(t.this, exp.Func):
            continue
        db = t.db or None
        if db is None and name.lower() in ctes:
            continue
        key = ast.TableName(name, db)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return tree, tuple(out)
