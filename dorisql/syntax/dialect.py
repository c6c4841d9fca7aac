"""Doris queries as sqlglot reads them: sqlglot's Doris dialect plus the table clauses it lacks.

`Dorisql` extends sqlglot's ``Doris`` dialect so that a query is read as Doris reads it and no
text is ever edited before parsing:

- table selection after a table name: ``t PARTITION (p1, p2)``, ``t PARTITIONS (p1, p2)`` and
  ``t PARTITION p1`` fill ``Table.args["partition"]`` with an `exp.Partition` of identifiers;
  ``t TEMPORARY PARTITION (...)`` becomes a `TemporaryPartition` and ``t TABLET (10001, ...)``
  fills ``Table.args["tablets"]``, for the planner to refuse by name;
- every function call keeps the name it was written with in ``meta[CALL_NAME]`` (sqlglot turns
  ``ifnull(a, b)`` into `exp.Coalesce` and would otherwise forget), so that the function
  allow-list (:mod:`dorisql.translate.functions`) judges what the user wrote;
- every SELECT list item keeps its text as written in ``meta[SOURCE_TEXT]``: an unaliased
  item's column header is that text in Doris (Nereids names it by its origin SQL: ``count(*)``,
  ``sum(x)``, ``x + 1``), where Spark would print its own rendering (``count(1)``).

`parse_query` returns the one query of a text; errors are dorisql's SqlSyntaxError.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.dialects.doris import Doris
from sqlglot.errors import ParseError, TokenError
from sqlglot.generators.doris import DorisGenerator
from sqlglot.parser import build_var_map
from sqlglot.parsers.doris import DorisParser
from sqlglot.tokenizer_core import TokenizerCore
from sqlglot.tokens import TokenType

from dorisql.errors import DorisqlError, NotSupportedError, SqlSyntaxError
from dorisql.syntax.cancel import CHECK_EVERY, checkpoint, current_check

__all__ = [
    "Dorisql",
    "TemporaryPartition",
    "CALL_NAME",
    "SOURCE_TEXT",
    "parse_query",
    "partition_names",
    "is_temporary",
    "call_name",
    "header_text",
    "replace_node",
]

#: ``meta`` key holding the name a function was called by, as written (``IFNULL``, ``local``).
CALL_NAME = "dorisql_call_name"
#: ``meta`` key holding a SELECT list item's text as written (``count(*)``).
SOURCE_TEXT = "dorisql_source_text"

#: Nodes `_parse_window` wraps a function call in (OVER, FILTER, WITHIN GROUP, IGNORE NULLS).
_CALL_WRAPPERS = (exp.Window, exp.Filter, exp.WithinGroup, exp.IgnoreNulls, exp.RespectNulls)


class TemporaryPartition(exp.Partition):
    """``TEMPORARY PARTITION (...)`` after a table name: read the table's temporary partitions."""


class _CheckedTokenizerCore(TokenizerCore):
    """sqlglot's tokenizer, stopped by a cancel (dorisql.syntax.cancel) every CHECK_EVERY
    tokens: a 16 MiB query takes it most of a minute."""

    __slots__ = ()

    def _add(self, token_type: TokenType, text: str | None = None) -> None:
        super()._add(token_type, text)
        if not len(self.tokens) % CHECK_EVERY:
            checkpoint()


class Dorisql(Doris):
    """sqlglot's Doris dialect with Doris's table selection clauses and recorded call names."""

    class Tokenizer(Doris.Tokenizer):
        def _init_core(self) -> TokenizerCore:
            core = super()._init_core()
            if type(core) is TokenizerCore:  # (sqlglot's compiled tokenizer, if installed, is left as it is)
                core.__class__ = _CheckedTokenizerCore
            return core

        def tokenize(self, sql: str):
            try:
                return super().tokenize(sql)
            except TokenError as e:  # sqlglot wraps whatever stopped it, a cancel included
                if isinstance(e.__cause__, DorisqlError):
                    raise e.__cause__ from None
                raise

    class Parser(DorisParser):
        # Doris's map(k1, v1, k2, v2, ...) takes any number of pairs (sqlglot's Doris dialect
        # reads map() as MAP(keys, values) and refuses more than two arguments).
        FUNCTIONS = {**DorisParser.FUNCTIONS, "MAP": build_var_map}

        def reset(self) -> None:
            super().reset()
            self._cancel_check = current_check()  # dorisql.syntax.cancel: a KILL stops the parse
            self._next_check = CHECK_EVERY

        def _advance(self, times: int = 1) -> None:
            super()._advance(times)
            if self._index >= self._next_check and self._cancel_check is not None:
                self._next_check = self._index + CHECK_EVERY
                self._cancel_check()

        def _parse_table_parts(
            self, schema: bool = False, is_db_reference: bool = False, wildcard: bool = False, fast: bool = False
        ):
            table = super()._parse_table_parts(
                schema=schema, is_db_reference=is_db_reference, wildcard=wildcard, fast=fast
            )
            if isinstance(table, exp.Table) and not (schema or is_db_reference or fast):
                partition = self._parse_partition_selection()
                if partition is not None:
                    table.set("partition", partition)
                tablets = self._parse_tablet_selection()
                if tablets is not None:
                    table.set("tablets", tablets)
            return table

        def _parse_partition_selection(self) -> exp.Partition | None:
            """``[TEMPORARY] PARTITION[S] (p1, p2)`` or ``[TEMPORARY] PARTITION[S] p1``."""
            index = self._index
            temporary = self._match(TokenType.TEMPORARY)
            if not (self._curr and self._curr.text.upper() in ("PARTITION", "PARTITIONS")):
                self._retreat(index)
                return None
            nxt = self._next
            if nxt is None or nxt.text.upper() == "BY":
                self._retreat(index)
                return None
            if nxt.token_type == TokenType.L_PAREN:
                self._advance()
                names = self._parse_wrapped_csv(self._parse_partition_name)
            elif nxt.token_type in (TokenType.VAR, TokenType.IDENTIFIER):
                self._advance()
                names = [self._parse_partition_name()]
            else:  # `FROM t partitions` where `partitions` is an alias
                self._retreat(index)
                return None
            cls = TemporaryPartition if temporary else exp.Partition
            return self.expression(cls(expressions=names))

        def _parse_partition_name(self) -> exp.Identifier:
            name = self._parse_id_var(any_token=True)
            if isinstance(name, exp.Identifier):
                return name
            self.raise_error("Expected a partition name")
            return exp.to_identifier("")  # reached only when the parser collects errors

        def _parse_tablet_selection(self) -> exp.Tuple | None:
            """``TABLET (10001, 10002)``."""
            if not (
                self._curr
                and self._curr.text.upper() == "TABLET"
                and self._next
                and self._next.token_type == TokenType.L_PAREN
            ):
                return None
            self._advance()
            return self.expression(exp.Tuple(expressions=self._parse_wrapped_csv(self._parse_number)))

        def _parse_projections(self):
            return self._parse_csv(self._parse_projection), None

        def _parse_projection(self) -> exp.Expr | None:
            start = self._curr
            item = self._parse_expression()
            if item is not None and start is not None and self._prev is not None:
                item.meta[SOURCE_TEXT] = self._find_sql(start, self._prev)
            return item

        def _parse_function_call(
            self, functions=None, anonymous: bool = False, optional_parens: bool = True, any_token: bool = False
        ):
            token = self._curr
            result = super()._parse_function_call(
                functions=functions, anonymous=anonymous, optional_parens=optional_parens, any_token=any_token
            )
            node = result
            while isinstance(node, _CALL_WRAPPERS):
                node = node.this
            if isinstance(node, exp.Func) and token is not None and CALL_NAME not in node.meta:
                node.meta[CALL_NAME] = token.text
            return result

    class Generator(DorisGenerator):
        TRANSFORMS = {
            **DorisGenerator.TRANSFORMS,
            TemporaryPartition: lambda self, e: f"TEMPORARY {self.partition_sql(e)}",
        }


def parse_query(sql: str) -> exp.Query:
    """The single query of `sql` (SELECT, WITH ..., UNION ...) as a sqlglot tree, without its
    ``/*+ ... */`` hints: they are Doris's planner's (LEADING, ORDERED, ...) or variables for the
    statement (SET_VAR, read by `query_hints`), never expressions of the query, and Spark reads
    neither."""
    tree = _parse_query(sql)
    for hint in list(tree.find_all(exp.Hint)):
        hint.pop()
    return tree


def query_hints(sql: str) -> list[exp.Expr | str]:
    """The items of the query's ``/*+ ... */`` hints, in order: calls such as
    ``SET_VAR(a = 1)``, or a hint's text where sqlglot could not read it as calls."""
    if "/*+" not in sql:  # no hint: spare the parse
        return []
    return [item for hint in _parse_query(sql).find_all(exp.Hint) for item in hint.expressions]


def _parse_query(sql: str) -> exp.Query:
    try:
        statements = [s for s in sqlglot.parse(sql, read=Dorisql) if s is not None]
    except ParseError as e:
        info = e.errors[0] if e.errors else {}
        desc = info.get("description") or str(e)
        raise SqlSyntaxError(f"Syntax error: {desc}", line=info.get("line"), column=info.get("col")) from None
    except TokenError as e:
        raise SqlSyntaxError(f"Syntax error: {e}") from None
    if len(statements) != 1:
        raise SqlSyntaxError("Syntax error: expected exactly one query")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise NotSupportedError(f"statement {tree.key.upper()} as a query")
    return tree


def partition_names(table: exp.Table) -> tuple[str, ...] | None:
    """The partitions a ``t PARTITION (...)`` clause selects (None: no clause)."""
    clause = table.args.get("partition")
    if clause is None:
        return None
    names = tuple(e.name for e in clause.expressions)
    if not names or not all(names):
        raise SqlSyntaxError("Syntax error: empty PARTITION () clause")
    return names


def is_temporary(table: exp.Table) -> bool:
    """True for ``t TEMPORARY PARTITION (...)``: the names are temporary partitions."""
    return isinstance(table.args.get("partition"), TemporaryPartition)


def header_text(item: exp.Expression) -> str | None:
    """The column header Doris shows for a SELECT list item that has no alias: its text as
    written. None for a plain column or ``*`` (Spark already names those as Doris does) and for
    an aliased item."""
    if isinstance(item, (exp.Alias, exp.Column, exp.Star)):
        return None
    text = item.meta.get(SOURCE_TEXT)
    return text.strip() if text else None


def call_name(node: exp.Func) -> str | None:
    """The name a function was called by, lower case; None for a node sqlglot built from an
    operator (`a DIV b`, `x::int`) rather than from a call."""
    if isinstance(node, (exp.Anonymous, exp.AnonymousAggFunc)):
        return node.name.lower()
    written = node.meta.get(CALL_NAME)
    return written.lower() if written else None


def replace_node(node: exp.Expr, new: exp.Expr) -> exp.Expr:
    """Put `new` where `node` is in its tree, in constant time; returns `new`.

    sqlglot's ``Expression.replace`` re-parents every sibling of a node in a list (a SELECT
    list, IN list or call arguments), so replacing each of n items is quadratic: a 100,000-item
    SELECT took minutes. Here only the one slot changes (and the cached hashes above it)."""
    parent, key, index = node.parent, node.arg_key, node.index
    slot = parent.args.get(key) if parent is not None and key is not None else None
    if not isinstance(slot, list) or index is None or index >= len(slot) or slot[index] is not node:
        return node.replace(new)  # not in a list: sqlglot's own way is cheap there
    above: exp.Expr | None = parent
    while above is not None and above._hash is not None:
        above._hash = None
        above = above.parent
    slot[index] = new
    new.parent, new.arg_key, new.index = parent, key, index
    node.parent, node.arg_key, node.index = None, None, None
    return new


def fill_placeholders(tree: exp.Expr, values: dict[str, exp.Expr]) -> None:
    """Put each value where `tree` has an unqualified column of its placeholder name: the first
    time the node itself, then copies (a template's ``__dorisql_arg<i>`` filled with arguments)."""
    used: set[str] = set()
    for col in list(tree.find_all(exp.Column)):
        if not col.table and col.name in values:
            value = values[col.name]
            replace_node(col, value.copy() if col.name in used else value)
            used.add(col.name)
