"""Split a script into statements, and tell whether a shell buffer holds a complete statement.

The scanner knows just enough lexical structure to find the statement delimiter: '...', "..."
and `...` quoting (backslash escapes in the first two), and --, # and /* */ comments. A
delimiter inside any of these does not end a statement.
"""

from __future__ import annotations

import re
from functools import lru_cache

from dorisql.syntax.cancel import CHECK_EVERY, current_check

#: Whitespace in the SQL sense. Deliberately ASCII only: a no-break space or a zero-width space
#: is not whitespace to Doris, and the parser reports it as a hidden character.
WHITESPACE = " \t\r\n\f\v"

#: Whitespace and comments at the start of a statement.
LEADING_NOISE = re.compile(r"(?:[ \t\r\n\f\v]+|(?:--|#)[^\n]*|/\*[\s\S]*?\*/)*")


def skip_noise(text: str, pos: int, end: int | None = None) -> int:
    """Where the whitespace and comments from `pos` on (before `end`) stop: `pos` if there are none."""
    m = LEADING_NOISE.match(text, pos, len(text) if end is None else end)
    return m.end() if m else pos  # (the pattern also matches nothing, so m is never None)


# The end of a quoted run, from just after its opening quote. No match: unterminated.
# (Written as "unrolled loops", [^'\\]*(?:\\.[^'\\]*)*, so that the regex engine keeps no state per
# character: a 10 MB literal costs time and memory in proportion to its escapes, not its length.)
_CLOSE = {
    "'": re.compile(r"[^'\\]*(?:\\[\s\S][^'\\]*)*'"),
    '"': re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*"'),
    "`": re.compile(r"[^`]*`"),
}


@lru_cache(maxsize=16)
def _opener(delimiter: str) -> re.Pattern:
    """The next thing that matters to the scanner: a quote, a comment start or the delimiter."""
    return re.compile(r"['\"`#]|--|/\*|" + re.escape(delimiter))


def scan_delimiters(text: str, delimiter: str, pos: int = 0):
    """Yield (kind, start, end) for every delimiter found from `pos` on (outside any string or
    comment there), then ("end", state, len(text)). The one scanner under `split_statements` and
    `CompletionTracker` (public so that a test can count the text it is given: linear work).

    state is None when the text ends outside any string or comment, else the kind of the
    unterminated construct ("'", '"', "`", "/*").
    """
    if not delimiter:
        raise ValueError("the statement delimiter cannot be empty")
    opener = _opener(delimiter)
    n = len(text)
    check, until_check = current_check(), CHECK_EVERY  # (dorisql.syntax.cancel)
    while True:
        if check is not None:
            until_check -= 1
            if not until_check:
                check()
                until_check = CHECK_EVERY
        m = opener.search(text, pos)
        if m is None:
            yield ("end", None, n)
            return
        tok = m.group()
        start = m.start()
        # The delimiter itself may start with a quote or comment character: delimiter first.
        if text.startswith(delimiter, start):
            yield ("delim", start, start + len(delimiter))
            pos = start + len(delimiter)
        elif tok in _CLOSE:
            close = _CLOSE[tok].match(text, start + 1)
            if close is None:
                yield ("end", tok, n)
                return
            pos = close.end()
        elif tok == "/*":
            end = text.find("*/", start + 2)
            if end < 0:
                yield ("end", "/*", n)
                return
            pos = end + 2
        else:  # -- or #: to the end of the line
            end = text.find("\n", start)
            if end < 0:
                yield ("end", None, n)
                return
            pos = end + 1


def _line_col(text: str, pos: int, cache: list) -> tuple[int, int]:
    """1-based (line, column) of `pos`, counting lines incrementally from the previous call."""
    last_pos, line, line_start = cache
    if pos < last_pos:  # never happens for increasing positions; recount from the start
        last_pos, line, line_start = 0, 1, 0
    nl = text.count("\n", last_pos, pos)
    if nl:
        line += nl
        line_start = text.rfind("\n", last_pos, pos) + 1
    cache[:] = [pos, line, line_start]
    return line, pos - line_start + 1


def split_statements(sql: str, delimiter: str = ";") -> list[tuple[str, int, int]]:
    """Split a script into (statement text, start line, start column), 1-based.

    A statement's text runs from its first token (leading whitespace and comments skipped) to
    just before the delimiter, trailing whitespace removed. Empty statements are dropped. An
    unterminated string or comment runs to the end of the script and stays in the last
    statement, where the parser reports it.
    """
    out: list[tuple[str, int, int]] = []
    cache = [0, 1, 0]
    seg_start = 0
    for kind, a, b in scan_delimiters(sql, delimiter):
        seg_end = a if kind == "delim" else b
        start = skip_noise(sql, seg_start, seg_end)
        if start < seg_end:
            # (an unterminated /* is not skipped as noise, so it stays for the parser to report)
            body = sql[start:seg_end].rstrip(WHITESPACE)
            line, col = _line_col(sql, start, cache)
            out.append((body, line, col))
        seg_start = b
    return out


def is_complete(text: str, delimiter: str = ";") -> bool:
    """Whether `text` ends with a complete statement: a delimiter outside any string or
    comment, followed only by whitespace and comments. False inside an unterminated string,
    quoted name or comment, and for text that holds no statement at all."""
    return CompletionTracker(delimiter).feed(text)


class CompletionTracker:
    """`is_complete` for text that arrives in pieces (a script read line by line): each line is
    scanned once, an open string or comment carried into the next, so a statement of many
    lines costs time in proportion to its length."""

    def __init__(self, delimiter: str = ";"):
        self.delimiter = delimiter
        #: The construct the text up to the last newline ends in: None, "'", '"', "`" or "/*".
        self.state: str | None = None
        #: That text holds a delimiter outside strings and comments, and only noise after it.
        self.delimited = False
        #: Text after the last newline: a line comment may still be open in it, so it is scanned
        #: again with the next piece (pieces normally end with a newline).
        self.line = ""

    def feed(self, piece: str) -> bool:
        """Add `piece`; whether all the text fed so far ends with a complete statement."""
        self.line += piece
        state, delimited = self._advance(self.line)
        if self.line.endswith("\n"):
            self.state, self.delimited, self.line = state, delimited, ""
        return delimited and state is None

    def _advance(self, text: str) -> tuple[str | None, bool]:
        """(state, delimited) after `text`, from the state after the text before it."""
        state, delimited, pos = self.state, self.delimited, 0
        if state is not None:
            if state == "/*":
                end = text.find("*/")
                pos = -1 if end < 0 else end + 2
            else:
                close = _CLOSE[state].match(text)
                pos = -1 if close is None else close.end()
                delimited = False  # a string is not noise
            if pos < 0:
                return state, delimited
            state = None
        last_delim_end = None
        for kind, a, b in scan_delimiters(text, self.delimiter, pos):
            if kind == "delim":
                last_delim_end = b
            else:
                state = a
        if last_delim_end is not None or delimited:
            noise_end = skip_noise(text, pos if last_delim_end is None else last_delim_end)
            # (an unterminated /* at the very end is noise so far: a later piece may close it)
            delimited = noise_end == len(text) or (state == "/*" and text.startswith("/*", noise_end))
        return state, delimited
