"""Limits on a statement, checked before any parser reads it: its size and how deeply it nests.

Size: a statement may be up to MAX_STATEMENT_BYTES long (UTF-8), Doris's default
max_allowed_packet; a longer one is refused with StatementTooLargeError. Everything the front end
does with a statement is linear in its length and keeps a few bytes per character (string,
name and comment patterns are written so that the regex engine keeps no state per character).

Nesting: sqlglot, which reads queries here and translates expressions in the engine, parses by
recursive descent: every level of nesting costs it about 30 Python frames, so unchecked input
ends in a RecursionError. MySQL's parser refuses input that overflows its stack; dorisql refuses a
statement nested more than MAX_NESTING levels deep, with a syntax error at the bracket or
operator that goes one level too deep, and makes sure Python's recursion limit leaves room for
that many levels (`ensure_recursion_limit`). A level is a bracket ( [ {, a CASE ... END, a
complex type's ARRAY< MAP< STRUCT<, or one prefix operator in a chain of them (NOT NOT x, - - x).
"""

from __future__ import annotations

import re
import sys

from dorisql.errors import SqlSyntaxError, StatementTooLargeError
from dorisql.syntax.cancel import checked
from dorisql.syntax.diagnose import located, syntax_error

#: The longest statement, in UTF-8 bytes: Doris's default max_allowed_packet (16 MiB).
MAX_STATEMENT_BYTES = 16 * 1024 * 1024

#: The deepest nesting a statement may have.
MAX_NESTING = 100

NESTED_TOO_DEEPLY = f"the statement is nested too deeply (more than {MAX_NESTING} levels)"

#: Python frames allowed: MAX_NESTING levels of sqlglot's descent (~30 frames each, parse or
#: generate) plus the caller's own stack, with room to spare. Python's default is 1000.
RECURSION_LIMIT = 10_000

_SCAN = re.compile(
    r"""
     '[^'\\]*(?:\\[\s\S][^'\\]*)*'|"[^"\\]*(?:\\[\s\S][^"\\]*)*"|`[^`]*`       # strings, names: skipped
    |(?:--|\#)[^\n]*|/\*[\s\S]*?\*/                                      # comments: skipped
    |(?P<open>[(\[{]|\bCASE\b|\b(?:ARRAY|MAP|STRUCT)\s*<)
    |(?P<close>[)\]}]|\bEND\b)
    |(?P<angle>>+)
    |(?P<chain>(?:(?:\bNOT\b|[-+~!])\s*){2,})
    """,
    re.VERBOSE | re.IGNORECASE,
)
_PREFIX_OPERATOR = re.compile(r"\bNOT\b|[-+~!]", re.IGNORECASE)


def ensure_recursion_limit() -> None:
    """Raise Python's recursion limit to RECURSION_LIMIT if it is lower (never lowers it)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def check_size(text: str) -> None:
    """Raise StatementTooLargeError (positioned at the start of `text`) for a statement longer
    than MAX_STATEMENT_BYTES."""
    if len(text) * 4 <= MAX_STATEMENT_BYTES:  # a character is at most 4 bytes of UTF-8
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_STATEMENT_BYTES:
        raise located(
            StatementTooLargeError(
                f"statement too large: {size} bytes; dorisql reads statements of up to {MAX_STATEMENT_BYTES} "
                f"bytes (16 MiB, Doris's max_allowed_packet)"
            ),
            text,
            0,
        )


def check_nesting(text: str) -> None:
    """Raise SqlSyntaxError (positioned in `text`) if the statement nests more than
    MAX_NESTING levels deep."""
    if _most_levels(text) <= MAX_NESTING:
        return  # the common case, decided without scanning the statement in Python
    depth = 0
    types = 0  # open ARRAY< / MAP< / STRUCT<: only those make '>' a closing bracket
    for m in checked(_SCAN.finditer(text)):
        kind = m.lastgroup
        if kind == "open":
            depth += 1
            if m.group()[-1] == "<":
                types += 1
            if depth > MAX_NESTING:
                raise too_deep(text, m.start())
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "angle":
            closed = min(len(m.group()), types)
            types -= closed
            depth = max(depth - closed, 0)
        elif kind == "chain" and depth + len(m.group()) > MAX_NESTING:  # (an operator is 1+ characters)
            for n, op in enumerate(_PREFIX_OPERATOR.finditer(m.group()), start=1):
                if depth + n > MAX_NESTING:
                    raise too_deep(text, m.start() + op.start())


def _most_levels(text: str) -> int:
    """An upper bound of the nesting depth: every level starts at one of these characters or words."""
    low = text.lower()
    count = low.count
    return (
        count("(")
        + count("[")
        + count("{")
        + count("<")
        + count("case")
        + count("not")
        + count("-")
        + count("+")
        + count("~")
        + count("!")
    )


def too_deep(text: str, pos: int) -> SqlSyntaxError:
    return syntax_error(text, pos, NESTED_TOO_DEEPLY)
