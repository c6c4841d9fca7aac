"""A contextual lexer for grammar/doris.lark, faster than Lark's generic one.

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

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import Lexer, PatternStr
from lark.parsers.lalr_analysis import Shift

_MASTER = re.compile(
    r"""
     (?P<ws>[ \t\r\n\f\v]+|(?:--|\#)[^\n]*|/\*[\s\S]*?\*/)
    |(?P<STRING>'(?:[^'\\]|\\[\s\S]|'')*'|"(?:[^"\\]|\\[\s\S]|"")*")
    |(?P<QUOTED_NAME>`(?:[^`]|``)*`)
    |(?P<NUMBER>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?![\w$]))
    |(?P<NAME>[0-9]*(?:[A-Za-z_$]|[^\x00-\x7f\W])[\w$]*)
    |(?P<SYSTEM_VARIABLE>@@(?:(?:global|session|local)\.)?[A-Za-z_][\w$.]*)
    |(?P<USER_VARIABLE>@[A-Za-z_][\w$.]*)
    |(?P<op>[-+*/%<>=!|&^~?]+)
    |(?P<punct>[()\[\]{},.:;])
    """,
    re.VERBOSE | re.IGNORECASE,
)


class DorisLexer(Lexer):
    """Lark custom lexer (interface 2: gets the parser state with every token request)."""

    __future_interface__ = 2

    def __init__(self, lexer_conf):
        self.keywords: dict[str, str] = {}
        self.punctuation: dict[str, str] = {}
        for t in lexer_conf.terminals:
            if isinstance(t.pattern, PatternStr):
                value = t.pattern.value
                if value[:1].isalpha() or value[:1] == "_":
                    self.keywords[value.upper()] = t.name
                else:
                    self.punctuation[value] = t.name
        self.terminals_by_name = {t.name: t for t in lexer_conf.terminals}

    def lex(self, lexer_state, parser_state):
        text_slice = lexer_state.text
        text = text_slice.text
        pos = text_slice.start
        end = text_slice.end
        states = parser_state.parse_conf.states
        stack = parser_state.state_stack
        keywords = self.keywords
        punctuation = self.punctuation
        match = _MASTER.match
        line = 1 + text.count("\n", 0, pos)
        line_start = text.rfind("\n", 0, pos) + 1

        while pos < end:
            m = match(text, pos, end)
            if m is None:
                raise UnexpectedCharacters(text, pos, line, pos - line_start + 1, state=parser_state,
                                           terminals_by_name=self.terminals_by_name)
            kind = m.lastgroup
            value = m.group()
            start = pos
            pos = m.end()
            if kind == "ws":
                nl = value.count("\n")
                if nl:
                    line += nl
                    line_start = text.rfind("\n", start, pos) + 1
                continue
            if kind == "NAME":
                kw = keywords.get(value.upper())
                if kw is not None and (kw in states[stack[-1]] or "NAME" not in states[stack[-1]]):
                    kind = kw
            elif kind == "op":
                accepted = states[stack[-1]]
                kind = None
                for n in (2, 1):
                    if len(value) >= n:
                        name = punctuation.get(value[:n])
                        if name is not None and name in accepted:
                            kind = name
                            value = value[:n]
                            break
                if kind is None:
                    if "OPERATOR" in accepted:
                        kind = "OPERATOR"
                    else:  # nothing fits: report the longest known piece
                        for n in (2, 1):
                            name = punctuation.get(value[:n])
                            if name is not None:
                                kind, value = name, value[:n]
                                break
                        else:
                            kind = "OPERATOR"
                pos = start + len(value)
            elif kind == "punct":
                kind = punctuation.get(value, "SEMICOLON" if value == ";" else value)
            col = start - line_start + 1
            if kind in ("STRING", "QUOTED_NAME") and "\n" in value:
                end_line = line + value.count("\n")
                end_col = pos - (text.rfind("\n", start, pos) + 1) + 1
                tok = Token(kind, value, start, line, col, end_line, end_col, pos)
                line = end_line
                line_start = text.rfind("\n", start, pos) + 1
            else:
                tok = Token(kind, value, start, line, col, line, col + len(value), pos)
            lexer_state.last_token = tok
            yield tok


_new_str = str.__new__


def _token(kind: str, value: str, start: int, line: int, col: int, end: int) -> Token:
    """A Lark Token, built without Token.__new__'s keyword handling (this is the hot path)."""
    tok = _new_str(Token, value)
    tok.type = kind
    tok.value = value
    tok.start_pos = start
    tok.line = line
    tok.column = col
    tok.end_line = line
    tok.end_column = col + len(value)
    tok.end_pos = end
    return tok


class Driver:
    """Lexer and LALR loop in one function, on the tables and callbacks Lark built.

    Does what Lark's LALR_Parser.parse does with DorisLexer, minus the generator, the
    per-token method calls and the debugging asserts: the front end's hot path.
    """

    def __init__(self, lark):
        frontend = lark.parser
        inner = frontend.parser.parser
        self.table = inner.parse_table
        # rule -> (number of symbols, name of the rule as a plain str, callback)
        self.reductions = {rule: (len(rule.expansion), str(rule.origin.name), callback)
                           for rule, callback in inner.callbacks.items() if not isinstance(rule, str)}
        lexer = DorisLexer(frontend.lexer_conf)
        self.keywords = lexer.keywords
        self.punctuation = lexer.punctuation
        self.terminals_by_name = lexer.terminals_by_name

    def parse(self, text: str, start: str):
        states = self.table.states
        stack = [self.table.start_states[start]]
        end_state = self.table.end_states[start]
        values: list = []
        reductions = self.reductions
        keywords = self.keywords
        punctuation = self.punctuation
        match = _MASTER.match
        pos = 0
        end = len(text)
        line = 1
        line_start = 0
        tok = None

        while True:
            if pos < end:
                m = match(text, pos)
                if m is None:
                    raise UnexpectedCharacters(text, pos, line, pos - line_start + 1,
                                               terminals_by_name=self.terminals_by_name)
                kind = m.lastgroup
                value = m.group()
                start_pos = pos
                pos = m.end()
                if kind == "ws":
                    if "\n" in value:
                        line += value.count("\n")
                        line_start = text.rfind("\n", start_pos, pos) + 1
                    continue
                row = states[stack[-1]]
                if kind == "NAME":
                    kw = keywords.get(value.upper())
                    if kw is not None and (kw in row or "NAME" not in row):
                        kind = kw
                elif kind == "op":
                    kind = None
                    for n in (2, 1):
                        if len(value) >= n:
                            name = punctuation.get(value[:n])
                            if name is not None and name in row:
                                kind = name
                                value = value[:n]
                                break
                    if kind is None:
                        if "OPERATOR" in row:
                            kind = "OPERATOR"
                        else:
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
            else:
                kind = "$END"
                row = states[stack[-1]]
                tok = _token("$END", "", end, line, end - line_start + 1, end)

            while True:
                try:
                    action, arg = row[kind]
                except KeyError:
                    raise UnexpectedToken(tok, {t for t in row if t.isupper()},
                                          terminals_by_name=self.terminals_by_name) from None
                if action is Shift:
                    stack.append(arg)
                    values.append(tok)
                    break
                size, origin, callback = reductions[arg]
                if size:
                    children = values[-size:]
                    del stack[-size:]
                    del values[-size:]
                else:
                    children = []
                value = callback(children)
                row = states[stack[-1]]
                stack.append(row[origin][1])
                values.append(value)
                if kind == "$END" and stack[-1] == end_state:
                    return values[-1]
                row = states[stack[-1]]
