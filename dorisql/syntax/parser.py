"""The front end: script -> statements.

The Lark LALR parser is built once, on first use, and shared (`get_parser`; its analysis is
cached between processes by .parser_cache); statements are
read by the lexer in .lexer, which feeds that parser token by token. Statements are
dispatched on their first word: queries (SELECT / WITH), EXPLAIN and the query half of
INSERT ... SELECT are kept as text and read with sqlglot; everything else goes through the
grammar in grammar/doris.lark. Every failure leaves here as a DorisqlError (SqlSyntaxError or
NotSupportedError) with line, column and caret context; callers never see a Lark exception.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.resources
import re
import threading

from lark import Lark
from lark.exceptions import UnexpectedInput, VisitError

from dorisql import ast
from dorisql.analysis import checks as analysis
from dorisql.errors import DorisqlError, NotSupportedError, SqlSyntaxError
from dorisql.syntax.diagnose import (
    caret_context,
    feature_offset,
    located,
    mask,
    offset_of,
    relocate,
    syntax_error,
    translate,
    unsupported_feature,
)
from dorisql.syntax.dialect import Dorisql, is_temporary, partition_names
from dorisql.syntax.generated import check_generated_columns
from dorisql.syntax.input_limits import check_nesting, check_size, ensure_recursion_limit
from dorisql.syntax.lexer import Driver
from dorisql.syntax.parser_cache import cached_lark
from dorisql.syntax.queries import parsed_query, query_tables
from dorisql.syntax.split import WHITESPACE, skip_noise, split_statements
from dorisql.syntax.transform import SOURCE, PositionedError, ToAst
from dorisql.syntax.words import STATEMENT_WORDS, UNSUPPORTED_STATEMENTS

GRAMMAR_FILE = "doris.lark"

_parser: Lark | None = None
_driver: Driver | None = None
_parser_lock = threading.Lock()


def grammar_text() -> str:
    """The grammar, a resource of the package: dorisql/grammar is the repository's grammar/
    (a symlink in the repository, copied into the wheel by the build)."""
    return (importlib.resources.files("dorisql") / "grammar" / GRAMMAR_FILE).read_text(encoding="utf-8")


def get_parser() -> Lark:
    """The shared Lark LALR parser (built on first use; thread-safe): its grammar, terminals and
    tables. Parse with parse_statement, not Lark.parse: Lark's own lexer, built here only
    because Lark needs one, does not know Doris's non-reserved words."""
    parser = _parser
    return parser if parser is not None else _build()[0]


def _get_driver() -> Driver:
    driver = _driver
    return driver if driver is not None else _build()[1]


def _build() -> tuple[Lark, Driver]:
    global _parser, _driver
    with _parser_lock:
        if _parser is None or _driver is None:
            parser = cached_lark(  # the LALR analysis is cached between processes
                grammar_text(),
                parser="lalr",
                lexer="basic",  # unused: .lexer.Driver lexes and feeds the parser itself
                start=["statement", "insert_head", "create_table_as_head", "view_head"],
                transformer=ToAst(),
                maybe_placeholders=True,
                propagate_positions=False,
            )
            _driver = Driver(parser)
            _parser = parser
        return _parser, _driver


def _terminal_pattern(name: str) -> str | None:
    try:
        return get_parser().get_terminal(name).pattern.value
    except KeyError:
        return None


def _run_lark(text: str, start: str = "statement"):
    driver = _get_driver()
    token = SOURCE.set(text)
    try:
        return driver.parse(text, start)
    except VisitError as e:
        inner = e.orig_exc
        if isinstance(inner, PositionedError):
            raise located(inner.error, text, inner.pos) from None
        raise translate(e, text, _terminal_pattern) from None
    except PositionedError as e:
        raise located(e.error, text, e.pos) from None
    except UnexpectedInput as e:
        raise translate(e, text, _terminal_pattern) from None
    finally:
        SOURCE.reset(token)


# --------------------------------------------------------------------------- dispatch

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXPLAIN_LEVELS = frozenset(
    (
        "GRAPH PLAN TREE DUMP PARSED ANALYZED REWRITTEN LOGICAL OPTIMIZED PHYSICAL SHAPE MEMO DISTRIBUTED ALL PROCESS"
    ).split()
)


def _next_word(text: str, pos: int) -> tuple[str, int, int]:
    """The next word (upper case) or character after `pos`, skipping whitespace and comments:
    (word, start, end); ("", len, len) at the end."""
    start = skip_noise(text, pos)
    if start >= len(text):
        return "", len(text), len(text)
    m = _WORD.match(text, start)
    if m:
        return m.group().upper(), start, m.end()
    return text[start], start, start + 1


def parse_statement(text: str) -> ast.Statement:
    """Parse one statement (no trailing delimiter), without semantic checks.

    Errors carry line/column relative to `text` (and `err.pos`, the offset in `text`).
    """
    check_size(text)
    word, start, end = _next_word(text, 0)
    if not word:
        raise syntax_error(text, len(text), "empty statement")
    check_nesting(text)
    ensure_recursion_limit()
    if word in ("SELECT", "WITH", "("):
        return _query(text, start)
    if word == "INSERT":
        return _insert(text, end)
    if word == "UPDATE":
        return _update(text)
    if word in ("CREATE", "ALTER") and _VIEW_HEAD.match(mask(text), end):
        return _view(text, end)
    if word == "CREATE" and _AS_WORD.search(text, end):
        split = _ctas_split(text, end)
        if split is not None:
            try:
                head = _run_lark(text[: split[0]], start="create_table_as_head")
            except SqlSyntaxError as e:  # e.g. CREATE TABLE t (k1, k2) AS SELECT: still not supported
                feature = unsupported_feature(mask(text), e.pos)
                if feature is None:
                    raise
                raise located(NotSupportedError(feature[0]), text, feature[1]) from None
            return dataclasses.replace(head, as_query=_query(text, split[1]))
    if word == "EXPLAIN":
        return _explain(text, end, word)
    if word in ("DESC", "DESCRIBE"):
        nxt, _, _ = _next_word(text, end)
        if nxt in ("SELECT", "WITH", "(") or nxt in _EXPLAIN_LEVELS or nxt == "VERBOSE":
            return _explain(text, end, word)
        return _run_lark(text)
    if word == "DELETE":
        return _delete(text)
    if word in STATEMENT_WORDS or not word[0].isalpha() and word[0] != "_":
        return _run_lark(text)
    if word in UNSUPPORTED_STATEMENTS:
        raise located(NotSupportedError(word), text, start)
    shown = text[start:end]
    close = difflib.get_close_matches(word, sorted(STATEMENT_WORDS), n=1, cutoff=0.7)
    hint = f" — did you mean {close[0]}?" if close else ""
    raise syntax_error(text, start, f"unknown statement '{shown}'{hint}")


def _query(text: str, start: int) -> ast.Query:
    sql = text[start:].rstrip(WHITESPACE)
    try:
        tree, tables = parsed_query(sql)
    except SqlSyntaxError as e:
        raise located(e, text, start + (e.pos or 0)) from None  # (query_tables always sets pos)
    return ast.Query(sql=sql, tables=tables, parsed=None if tree is None else (sql, tree))


_DELETE_PREFIX = "SELECT 1 FROM t WHERE "


_USING_SCAN = re.compile(r"[()]|\bUSING\b", re.IGNORECASE)


def _has_using(text: str) -> bool:
    """A USING clause outside parentheses (CONVERT(x USING utf8) is inside)."""
    depth = 0
    for m in _USING_SCAN.finditer(mask(text)):
        tok = m.group()
        if tok in "()":
            depth += 1 if tok == "(" else -1
        elif depth == 0:
            return True
    return False


def _delete(text: str) -> ast.Statement:
    """DELETE: Lark delimits its WHERE condition, sqlglot must be able to read it (its rules are
    checked later: dorisql.tablets.deletes). DELETE ... USING is read by sqlglot, as UPDATE."""
    if _has_using(text):
        return _delete_using(text)
    stmt = _run_lark(text)
    if isinstance(stmt, ast.Delete):
        start = text.rfind(stmt.where)
        try:
            query_tables(_DELETE_PREFIX + stmt.where)
        except SqlSyntaxError as e:
            raise located(e, text, start + max(0, (e.pos or 0) - len(_DELETE_PREFIX))) from None
    return stmt


def _explain(text: str, pos: int, keyword: str) -> ast.Explain:
    verbose = False
    word, start, end = _next_word(text, pos)
    if word == "VERBOSE":
        verbose = True
        word, start, end = _next_word(text, end)
    elif word in _EXPLAIN_LEVELS:
        raise located(NotSupportedError(f"{keyword} {word}"), text, start)
    if word in ("SELECT", "WITH", "("):
        return ast.Explain(_query(text, start), verbose=verbose)
    if word in ("INSERT", "UPDATE", "DELETE"):
        raise located(NotSupportedError(f"{keyword} {word}"), text, start)
    if not word:
        raise syntax_error(text, len(text), f"unexpected end of input — expected a query after {keyword}")
    raise syntax_error(
        text, start, f"unexpected '{text[start:end]}' — expected a query (SELECT or WITH) after {keyword}"
    )


_INSERT_SCAN = re.compile(r"[()]|\b(?:SELECT|WITH|VALUES)\b", re.IGNORECASE)
_LABEL_AFTER = re.compile(r"WITH\s+LABEL\b", re.IGNORECASE)
_QUERY_AFTER_PAREN = re.compile(r"\(\s*(?:SELECT|WITH)\b", re.IGNORECASE)


def _insert(text: str, pos: int) -> ast.Insert:
    masked = mask(text)
    depth = 0
    for m in _INSERT_SCAN.finditer(masked, pos):
        tok = m.group()
        if tok == "(":
            if depth == 0 and _QUERY_AFTER_PAREN.match(masked, m.start()):
                return _insert_query(text, m.start())
            depth += 1
        elif tok == ")":
            depth -= 1
        elif depth == 0:
            upper = tok.upper()
            if upper == "VALUES":
                break
            if upper == "WITH" and _LABEL_AFTER.match(masked, m.start()):
                continue
            return _insert_query(text, m.start())
    return _run_lark(text)


_AS_WORD = re.compile(r"\bAS\b", re.IGNORECASE)
_CTAS_SCAN = re.compile(r"[()]|\bAS\b", re.IGNORECASE)
_CTAS_HEAD_SCAN = re.compile(r"[()\[\]]|\bAS\b", re.IGNORECASE)
_TABLE_AFTER = re.compile(r"\s*TABLE\b", re.IGNORECASE)


def _ctas_split(text: str, pos: int) -> tuple[int, int] | None:
    """CREATE TABLE ... AS <query>: where AS and the query start, or None when the statement is
    no such thing. `pos` is the end of the word CREATE."""
    masked = mask(text)
    if not _TABLE_AFTER.match(masked, pos):
        return None
    depth = 0
    for m in _CTAS_HEAD_SCAN.finditer(masked, pos):
        tok = m.group()
        # a fixed range partition's `[(a), (b))` opens with [ and closes with )
        if tok in "([":
            depth += 1
        elif tok in ")]":
            depth -= 1
        elif depth == 0:
            word, start, _ = _next_word(text, m.end())
            return (m.start(), start) if word in ("SELECT", "WITH", "(") else None
    return None


_VIEW_HEAD = re.compile(r"\s+(?:OR\s+REPLACE\s+)?VIEW\b", re.IGNORECASE)


def _view(text: str, pos: int) -> ast.CreateView:
    """CREATE [OR REPLACE] VIEW / ALTER VIEW ... AS <query>: the head read by Lark up to the AS
    outside parentheses (the column list's), the query by sqlglot. `pos` is after CREATE/ALTER."""
    masked = mask(text)
    depth = 0
    for m in _CTAS_SCAN.finditer(masked, pos):
        tok = m.group()
        if tok in "()":
            depth += 1 if tok == "(" else -1
        elif depth == 0:
            head = _run_lark(text[: m.start()], start="view_head")
            word, start, _ = _next_word(text, m.end())
            if word not in ("SELECT", "WITH", "("):
                raise syntax_error(text, start, "expected a query (SELECT or WITH) after AS")
            return dataclasses.replace(head, query=_query(text, start))
    _run_lark(text, start="view_head")  # the head's own syntax error, if it has one
    raise syntax_error(text, len(text), "unexpected end of input — expected AS <query>")


def _update(text: str) -> ast.Update:
    """UPDATE t [[AS] alias] SET c = expr, ... [FROM ...] [WHERE ...], read with sqlglot's Doris
    dialect (the expressions stay query text for the engine's planner)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    try:
        tree = sqlglot.parse_one(text, read=Dorisql)
    except (ParseError, TokenError):
        query_tables(text)  # raises the located syntax error sqlglot's message gives
        raise syntax_error(text, 0, "cannot read this UPDATE statement") from None
    if not isinstance(tree, exp.Update) or not isinstance(tree.this, exp.Table) or not tree.expressions:
        raise syntax_error(text, 0, "expected UPDATE table SET column = value, ... [FROM ...] [WHERE ...]")
    target = tree.this
    assignments = []
    for eq in tree.expressions:
        if not isinstance(eq, exp.EQ) or not isinstance(eq.this, exp.Column):
            raise syntax_error(text, 0, "expected column = value in the SET list of UPDATE")
        parts = tuple(p.name for p in eq.this.parts)
        assignments.append((parts, eq.expression.sql(dialect=Dorisql)))
    from_ = tree.args.get("from_") or tree.args.get("from")
    where = tree.args.get("where")
    return ast.Update(
        ast.TableName(target.name, target.db or None),
        tuple(assignments),
        alias=target.alias or None,
        from_sql=from_.this.sql(dialect=Dorisql) if from_ is not None else None,
        where_sql=where.this.sql(dialect=Dorisql) if where is not None else None,
    )


def _delete_using(text: str) -> ast.Delete:
    """DELETE FROM t [PARTITION (...)] [alias] USING <tables> WHERE <condition>, read with
    sqlglot's Doris dialect (the USING list and the condition stay query text for the planner)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    try:
        tree = sqlglot.parse_one(text, read=Dorisql)
    except (ParseError, TokenError):
        query_tables(text)  # raises the located syntax error sqlglot's message gives
        raise syntax_error(text, 0, "cannot read this DELETE statement") from None
    using, where = (tree.args.get(k) for k in ("using", "where")) if isinstance(tree, exp.Delete) else (None, None)
    if not isinstance(tree.this, exp.Table) or not using or where is None:
        raise syntax_error(text, 0, "expected DELETE FROM table [alias] USING tables WHERE condition")
    target = tree.this
    try:
        partitions = partition_names(target) or ()
    except SqlSyntaxError as e:
        raise syntax_error(text, 0, str(e)) from None
    if is_temporary(target):
        raise located(NotSupportedError("DELETE ... TEMPORARY PARTITION"), text, 0)
    return ast.Delete(
        ast.TableName(target.name, target.db or None),
        partitions=partitions,
        where=where.this.sql(dialect=Dorisql),
        alias=target.alias or None,
        using=", ".join(u.sql(dialect=Dorisql) for u in using),
    )


def _insert_query(text: str, qstart: int) -> ast.Insert:
    head = _run_lark(text[:qstart], start="insert_head")
    return dataclasses.replace(head, query=_query(text, qstart))


# --------------------------------------------------------------------------- public API


def _finish(stmt: ast.Statement, text: str, script: str, line: int, col: int, check: bool) -> ast.Statement:
    object.__setattr__(stmt, "pos", ast.Pos(line, col))
    object.__setattr__(stmt, "text", text)
    if check:
        try:
            analysis.check(stmt)
            if isinstance(stmt, ast.CreateTable):
                check_generated_columns(stmt)  # the expressions' rules need their parse trees
        except DorisqlError as e:
            e.statement_line = line
            if e.line is None:
                # a feature dorisql parses but does not implement: point at it when it can be found
                at = feature_offset(mask(text), e.feature) if isinstance(e, NotSupportedError) else None
                if at is not None:
                    base = offset_of(script, line, col)
                    located(e, script, base + at, base)
                    raise
                e.line, e.column = line, col
                if e.context is None:
                    e.context = caret_context(script, offset_of(script, line, col))
            raise
    return stmt


def parse(sql: str, *, delimiter: str = ";", check: bool = True) -> list[ast.Statement]:
    """Parse a script into statements, each with `pos` (where it starts) and `text` (its source).

    Runs dorisql.analysis.checks.check on each statement when `check` is true.
    The first failing statement raises; the error's `statement_line` is where that statement
    starts and its line/column are positions in the whole script.
    """
    out = []
    for text, line, col in split_statements(sql, delimiter):
        try:
            stmt = parse_statement(text)
        except DorisqlError as e:
            raise relocate(e, sql, line, col) from None
        out.append(_finish(stmt, text, sql, line, col, check))
    return out


def parse_one(sql: str, *, check: bool = True) -> ast.Statement:
    """Parse text holding exactly one statement (a trailing ';' is allowed)."""
    parts = split_statements(sql)
    if len(parts) != 1:
        if not parts:
            raise syntax_error(sql, len(sql), "empty statement")
        text, line, col = parts[1]
        err = SqlSyntaxError(f"expected one statement, found {len(parts)}")
        err.statement_line = line
        raise located(err, sql, offset_of(sql, line, col))
    text, line, col = parts[0]
    try:
        stmt = parse_statement(text)
    except DorisqlError as e:
        raise relocate(e, sql, line, col) from None
    return _finish(stmt, text, sql, line, col, check)
