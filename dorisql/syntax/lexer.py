"""A contextual lexer for grammar/doris.lark, faster than Lark's generic one, feeding Lark's
LALR parser through its public interactive API (`Lark.parse_interactive`, `choices`,
`feed_token`) and public `Token` constructor: no private Lark objects, so no pin to one Lark
version. That costs some speed against driving the tables directly; bench/parse.py keeps the
front end faster than sqlglot.

One Lark feature beyond those is relied on, because the keyword and punctuation terminal names
are Lark's (it names `"("` LPAR, `"SELECT"i` SELECT) and nothing else tells them: the compiled
grammar's `Lark.terminals` (the `TerminalDef`s Lark also hands to its documented
`edit_terminals` option), read through their attributes only: `name`, `pattern.type` ("str" for
a literal string, "re" for a regex) and `pattern.value`. No Lark class is imported for it.

One compiled regex splits the text into words, literals and punctuation; whitespace and
comments are skipped inside the same loop. A word becomes a keyword token only where the LALR
parser can accept that keyword in its current state (Lark's "contextual" behaviour, which is
what makes Doris's non-reserved words usable as names); otherwise it is a NAME. Operator
characters are matched against the punctuation the state accepts (longest first), so
`ARRAY<ARRAY<INT>>` closes twice and `>=` is one token in SHOW ... WHERE.

The token kinds mirror the terminals declared in grammar/doris.lark; keep the two in sync.
"""

from __future__ import annotations

import re

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters

from dorisql.syntax.cancel import CHECK_EVERY, current_check

_MASTER = re.compile(
    r"""
     (?P<ws>[ \t\r\n\f\v]+|(?:--|\#)[^\n]*|/\*[\s\S]*?\*/)
    |(?P<STRING>'[^'\\]*(?:(?:\\[\s\S]|'')[^'\\]*)*'|"[^"\\]*(?:(?:\\[\s\S]|"")[^"\\]*)*")
    |(?P<QUOTED_NAME>`[^`]*(?:``[^`]*)*`)
    |(?P<NUMBER>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?![\w$]))
    |(?P<NAME>[0-9]*(?:[A-Za-z_$]|[^\x00-\x7f\W])[\w$]*)
    |(?P<SYSTEM_VARIABLE>@@(?:(?:global|session|local)\.)?[A-Za-z_][\w$.]*)
    |(?P<USER_VARIABLE>@[A-Za-z_][\w$.]*)
    |(?P<op>[-+*/%<>=!|&^~?]+)
    |(?P<punct>[()\[\]{},.:;@])
    """,
    re.VERBOSE | re.IGNORECASE,
)


def _token(kind: str, value: str, start: int, line: int, col: int, end: int) -> Token:
    """A Lark Token on one line (a multi-line token's end is set by the caller), through Token's
    public constructor (type, value, start_pos, line, column, end_line, end_column, end_pos)."""
    return Token(kind, value, start, line, col, line, col + len(value), end)


class Driver:
    """Lexes a statement and feeds each token to a fresh Lark interactive parser.

    A word is a keyword only where the parser can take that keyword next (`choices()`), so the
    lexer asks the parser's state between tokens; the grammar's callbacks (the ToAst
    transformer) run as the parser reduces, and feeding the end token returns their result.
    """

    def __init__(self, lark: Lark):
        self.lark = lark
        self.keywords: dict[str, str] = {}
        self.punctuation: dict[str, str] = {}
        for t in lark.terminals:
            if t.pattern.type == "str":  # a literal string terminal, not a regex
                value = t.pattern.value
                if value[:1].isalpha() or value[:1] == "_":
                    self.keywords[value.upper()] = t.name
                else:
                    self.punctuation[value] = t.name
        self.terminals_by_name = {t.name: t for t in lark.terminals}

    def parse(self, text: str, start: str):
        parser = self.lark.parse_interactive(start=start)
        choices = parser.choices
        feed = parser.feed_token
        keywords = self.keywords
        punctuation = self.punctuation
        match = _MASTER.match
        pos = 0
        end = len(text)
        line = 1
        line_start = 0
        check = current_check()  # a cancelled statement stops here (every CHECK_EVERY tokens)
        until_check = CHECK_EVERY

        while pos < end:
            if check is not None:
                until_check -= 1
                if not until_check:
                    check()
                    until_check = CHECK_EVERY
            m = match(text, pos)
            if m is None:
                raise UnexpectedCharacters(
                    text, pos, line, pos - line_start + 1, terminals_by_name=self.terminals_by_name
                )
            kind = m.lastgroup or ""  # never "": every alternative of _MASTER is a named group
            value = m.group()
            start_pos = pos
            pos = m.end()
            if kind == "ws":
                if "\n" in value:
                    line += value.count("\n")
                    line_start = text.rfind("\n", start_pos, pos) + 1
                continue
            if kind == "NAME":
                kw = keywords.get(value.upper())
                if kw is not None:
                    row = choices()
                    if kw in row or "NAME" not in row:
                        kind = kw
            elif kind == "op":
                row = choices()
                for n in (2, 1):
                    if len(value) >= n:
                        name = punctuation.get(value[:n])
                        if name is not None and name in row:
                            kind = name
                            value = value[:n]
                            break
                else:  # no operator here the parser can take
                    if "OPERATOR" in row:
                        kind = "OPERATOR"
                    else:  # nothing fits: report the longest known piece
                        for n in (2, 1):
                            name = punctuation.get(value[:n])
                            if name is not None:
                                kind, value = name, value[:n]
                                break
                        else:
                            kind = "OPERATOR"
                pos = start_pos + len(value)
            elif kind == "punct":
                kind = punctuation.get(value, "SEMICOLON" if value == ";" else value)
            tok = _token(kind, value, start_pos, line, start_pos - line_start + 1, pos)
            if (kind == "STRING" or kind == "QUOTED_NAME") and "\n" in value:
                line += value.count("\n")
                line_start = text.rfind("\n", start_pos, pos) + 1
                tok.end_line = line
                tok.end_column = pos - line_start + 1
            feed(tok)
        return feed(_token("$END", "", end, line, end - line_start + 1, end))


def token_spans(text: str) -> list[tuple[str, int, str]]:
    """(kind, offset, text) of each token of `text` as `Driver` splits it before it asks the
    parser (kinds: ``STRING``, ``QUOTED_NAME``, ``NUMBER``, ``NAME``, the variables, ``op`` for
    a run of operator characters, ``punct``); whitespace and comments are left out, and a
    character no token starts with is one ``error`` token. For tools that need the statement's
    words without parsing it (the server's prepared-statement marks)."""
    spans: list[tuple[str, int, str]] = []
    pos, end = 0, len(text)
    while pos < end:
        m = _MASTER.match(text, pos)
        if m is None:
            spans.append(("error", pos, text[pos]))
            pos += 1
            continue
        kind = m.lastgroup or ""
        if kind != "ws":
            spans.append((kind, pos, m.group()))
        pos = m.end()
    return spans
