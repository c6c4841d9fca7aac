"""Turning parse failures into errors a Doris user can act on.

Everything Lark raises is translated here, in one place (`translate`), into SqlSyntaxError or
NotSupportedError with a 1-based line and column and a caret context. Before a failure is
reported as a syntax error it is checked against the Doris features dorisql recognises but does
not implement (`unsupported_feature`), so `... CLUSTER BY (k)` says "not supported: CLUSTER BY"
rather than "unexpected 'CLUSTER'". Features the grammar does accept (ALTER TABLE ... ADD ROLLUP
...) are refused later by dorisql.analysis.checks;
`feature_offset` finds where they are in the statement for that error's line and column.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from typing import TypeVar

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from dorisql.errors import DorisqlError, NotSupportedError, SqlSyntaxError
from dorisql.syntax.words import OBJECT_WORDS

_E = TypeVar("_E", bound=DorisqlError)

# --------------------------------------------------------------------------- positions


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset `pos` in `text`."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def offset_of(text: str, line: int, column: int) -> int:
    """Offset in `text` of a 1-based line and column."""
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return min(pos + column - 1, len(text))


_CONTEXT_WIDTH = 100


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "FW" else 1 for ch in s)


def caret_context(text: str, pos: int) -> str:
    """The source line holding offset `pos`, and a caret under it. Long lines are cut around the
    caret; tabs are kept in the caret line so it lines up."""
    pos = max(0, min(pos, len(text)))
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    if end < 0:
        end = len(text)
    line = text[start:end].rstrip("\r")
    col = pos - start
    prefix = ""
    if col > _CONTEXT_WIDTH:
        cut = col - _CONTEXT_WIDTH // 2
        line = line[cut:]
        col -= cut
        prefix = "..."
    suffix = ""
    if len(line) > col + _CONTEXT_WIDTH:
        line = line[: col + _CONTEXT_WIDTH]
        suffix = "..."
    before = line[:col]
    pad = "".join(ch if ch == "\t" else " " * _width(ch) for ch in before)
    return f"{prefix}{line}{suffix}\n{' ' * len(prefix)}{pad}^"


def ref(i: int) -> str:
    """Placeholder, in an error detail, for "line L, column C" of the error's i-th reference
    offset (filled in by `located`, so it follows the error from statement to script)."""
    return f"\x00{i}\x00"


def located(error: _E, text: str, pos: int, base: int = 0) -> _E:
    """Give `error` the line, column and caret context of offset `pos` in `text`. `base` is
    where the statement the error was raised for starts in `text` (for reference offsets)."""
    line, col = line_col(text, pos)
    error.line, error.column = line, col
    error.pos = pos - base
    if base == 0:
        error.source_text = text
    if isinstance(error, SqlSyntaxError):
        template = error.detail_template or error.detail or error.message
        error.detail_template = template
        detail = template
        for i, offset in enumerate(error.refs):
            rl, rc = line_col(text, base + offset)
            detail = detail.replace(ref(i), f"line {rl}, column {rc}")
        error.detail = detail
        error.message = f"Syntax error at line {line}, column {col}: {detail}"
        error.args = (error.message,)
    error.context = caret_context(text, pos)
    return error


def syntax_error(text: str, pos: int, detail: str, refs: tuple[int, ...] = ()) -> SqlSyntaxError:
    """A SqlSyntaxError at offset `pos` of `text`; `refs` are offsets that `ref(i)` in `detail`
    stands for."""
    err = SqlSyntaxError(detail)
    err.detail_template = detail
    err.refs = tuple(refs)
    return located(err, text, pos)


def shift(error: DorisqlError, start_line: int, start_col: int) -> DorisqlError:
    """Move an error raised by parse_one on a statement cut out of a script to the script's
    coordinates, when the script text itself is not at hand: the statement started at
    `start_line`, `start_col`. Line, column, statement_line and the message are updated; the
    caret context stays the statement's own line. Do it once per error."""

    def moved(line: int, col: int) -> tuple[int, int]:
        return line + start_line - 1, (col + start_col - 1) if line == 1 else col

    error.statement_line = start_line
    if error.line is None:
        return error
    line, col = moved(error.line, error.column or 1)
    error.line, error.column = line, col
    if isinstance(error, SqlSyntaxError) and error.detail_template:
        detail = error.detail_template
        source = error.source_text
        for i, offset in enumerate(error.refs):
            if source is not None:
                rl, rc = moved(*line_col(source, offset))
                detail = detail.replace(ref(i), f"line {rl}, column {rc}")
        error.detail = detail
        error.message = f"Syntax error at line {line}, column {col}: {detail}"
        error.args = (error.message,)
    return error


def relocate(error: DorisqlError, script: str, start_line: int, start_col: int) -> DorisqlError:
    """Move an error raised for one statement (positions relative to the statement text) to its
    place in the whole script, and record where the statement starts."""
    error.statement_line = start_line
    pos = error.pos
    if pos is None or error.line is None:
        return error
    base = offset_of(script, start_line, start_col)
    return located(error, script, base + pos, base)


# --------------------------------------------------------------------------- masking

_MASKABLE = re.compile(
    r"'[^'\\]*(?:\\[\s\S][^'\\]*)*(?:'|$)|\"[^\"\\]*(?:\\[\s\S][^\"\\]*)*(?:\"|$)|`[^`]*(?:`|$)"
    r"|(?:--|#)[^\n]*|/\*[\s\S]*?(?:\*/|$)"
)


def _blank(m: re.Match) -> str:
    """The match's first character, then spaces with its newlines kept."""
    body = m.group()
    return body[0] + "\n".join(" " * len(line) for line in body[1:].split("\n"))


def mask(text: str) -> str:
    """`text` with the insides of strings, quoted names and comments blanked out (same length,
    newlines kept), so keyword searches see only the SQL structure."""
    return _MASKABLE.sub(_blank, text)


# --------------------------------------------------------------------------- unsupported features

_I = re.IGNORECASE
#: (pattern on the masked statement, feature). The first match (leftmost) names the feature.
_FEATURES_ANY = [
    (re.compile(r"\bAUTO\s+PARTITION\b", _I), "AUTO PARTITION"),
    (re.compile(r"\bCLUSTER\s+BY\b", _I), "CLUSTER BY"),
    (re.compile(r"\bBROKER\s+PROPERTIES\b", _I), "BROKER PROPERTIES"),
    (re.compile(r"\bAGG_STATE\s*<", _I), "AGG_STATE columns"),
]
_FEATURES_CREATE = [
    (re.compile(r"\bAS\s*\(?\s*(?:SELECT|WITH)\b", _I), "CREATE TABLE ... AS SELECT"),
    (re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[^\s(]+\s+(LIKE)\b", _I), "CREATE TABLE ... LIKE"),
]
_ALTER_ACTION = re.compile(
    r"\b(?:ADD\s*\(|(?:ADD|DROP|RENAME)\s+ROLLUP"
    r"|MODIFY\s+(?:DISTRIBUTION|ENGINE)|ENABLE\s+FEATURE|ORDER\s+BY|REPLACE\s+WITH"
    r"|(?:ADD|DROP|BUILD)\s+INDEX|DROP\s+(?:FOREIGN|PRIMARY)|ADD\s+CONSTRAINT|DROP\s+CONSTRAINT)\b",
    _I,
)
_SPACES = re.compile(r"\s+")


def unsupported_feature(masked: str, error_pos: int | None = None) -> tuple[str, int] | None:
    """The first Doris feature in a statement that dorisql does not implement, with its offset;
    None if there is none. `masked` is the statement with strings and comments blanked."""
    if error_pos is not None:
        obj = _unsupported_object(masked, error_pos)
        if obj is not None:
            return obj
    found: list[tuple[int, str]] = []
    for rx, feature in _FEATURES_ANY:
        m = rx.search(masked)
        if m:
            found.append((m.start(), feature))
    head = masked.lstrip()[:6].upper()
    if head.startswith("CREATE"):
        for rx, feature in _FEATURES_CREATE:
            m = rx.search(masked)
            if m:
                found.append((m.start(m.lastindex or 0), feature))
    elif head.startswith("ALTER"):
        m = _ALTER_ACTION.search(masked)
        if m:
            found.append((m.start(), _alter_feature(m)))
    if found:
        pos, feature = min(found)
        return feature, pos
    return None


def _alter_feature(m: re.Match) -> str:
    words = _SPACES.sub(" ", m.group().upper()).replace(" (", "(")
    return "ALTER TABLE ... " + ("ADD COLUMN" if words == "ADD(" else words)


def feature_offset(masked: str, feature: str) -> int | None:
    """Offset of the (first) place where a statement uses `feature`, a name that
    `unsupported_feature` gives; None if it cannot be found. For errors of the semantic step on
    constructs the grammar accepts but dorisql does not implement (AUTO PARTITION, ...)."""
    for rx, name in itertools.chain(_FEATURES_ANY, _FEATURES_CREATE):
        if name == feature:
            m = rx.search(masked)
            if m:
                return m.start(m.lastindex or 0)
    if feature.startswith("ALTER TABLE ... "):
        for m in _ALTER_ACTION.finditer(masked):
            if _alter_feature(m) == feature:
                return m.start()
    return None


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")


def _unsupported_object(masked: str, error_pos: int) -> tuple[str, int] | None:
    """CREATE VIEW, SHOW VARIABLES, ALTER SYSTEM, ADMIN CHECK ...: a failure at the second or third
    word of a statement, on a word naming a Doris object or command dorisql does not have."""
    words = [
        (m.group().upper(), m.start())
        for m in itertools.islice(_WORD.finditer(masked, 0, min(len(masked), error_pos + 200)), 6)
    ]
    if len(words) < 2:
        return None
    first = words[0][0]
    for i in (1, 2):
        if i >= len(words) or words[i][1] != error_pos:
            continue
        word = words[i][0]
        if first == "ADMIN" or (
            first in ("CREATE", "DROP", "ALTER", "SHOW", "DESC", "DESCRIBE", "EXPLAIN") and word in OBJECT_WORDS
        ):
            parts = [w for w, _ in words[: i + 1]]
            for w, _ in words[i + 1 :]:
                if w in OBJECT_WORDS or w in ("TABLES", "VIEW", "TABLE", "DATABASES"):
                    parts.append(w)
                else:
                    break
            return " ".join(parts), words[0][1]
        if (
            first == "SET"
            and i == 2
            and words[1][0]
            in (
                "NAMES",
                "PASSWORD",
                "PROPERTY",
                "ROLE",
                "LDAP_ADMIN_PASSWORD",
                "CHARSET",
                "CHARACTER",
                "TRANSACTION",
                "DEFAULT",
            )
        ):
            return f"SET {words[1][0]}", words[0][1]
    return None


# --------------------------------------------------------------------------- friendly messages

_TYPOGRAPHIC = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u3001": ",",
    "\u3002": ".",
    "\u00b4": "'",
    "\u2032": "'",
    "\u2033": '"',
    "\u2013": "-",
    "\u2014": "-",
    "\u00d7": "*",
}


def describe_character(ch: str) -> str:
    """Why `ch` cannot appear here, for full-width, typographic, hidden and binary characters."""
    code = f"U+{ord(ch):04X}"
    name = unicodedata.name(ch, "")
    ascii_form = unicodedata.normalize("NFKC", ch)
    if ch == "\u3000":
        return f"full-width space ({code}) — use an ordinary space"
    if unicodedata.east_asian_width(ch) in "FW" and ascii_form != ch and ascii_form.isascii():
        return f"full-width character '{ch}' ({code}) — use ASCII '{ascii_form}'"
    if ch in _TYPOGRAPHIC:
        return f"typographic character '{ch}' ({code}{', ' + name if name else ''}) — use ASCII '{_TYPOGRAPHIC[ch]}'"
    category = unicodedata.category(ch)
    if ch == "\ufeff":
        return f"hidden character {code} (byte order mark) — delete it"
    if category == "Zs" or ch == "\u0085":
        label = name.lower() if name else "space"
        return f"hidden character {code} ({label}) — use an ordinary space"
    if category == "Cf":
        return f"hidden character {code} ({name.lower() or 'format character'}) — delete it"
    if ch == "\ufffd":
        return f"invalid character {code} (bytes that are not UTF-8) — this does not look like SQL text"
    if category in ("Cc", "Cs", "Co", "Cn"):
        return f"binary data: control character {code} — this does not look like SQL text"
    if ord(ch) > 127:
        return f"unexpected character '{ch}' ({code}) — names with such characters must be written in backquotes"
    return f"unexpected character '{ch}'"


_PAREN_RE = re.compile(r"[()]")


def _unclosed_paren(masked: str, end: int) -> int | None:
    """Offset of the first '(' left open before `end`, or None."""
    stack: list[int] = []
    for m in _PAREN_RE.finditer(masked, 0, end):
        if m.group() == "(":
            stack.append(m.start())
        elif stack:
            stack.pop()
    return stack[0] if stack else None


def _unmatched_close(masked: str, pos: int) -> bool:
    depth = 0
    for m in _PAREN_RE.finditer(masked, 0, pos):
        depth += 1 if m.group() == "(" else -1
        if depth < 0:
            return True
    return depth <= 0


_TERMINAL_WORDS = {
    "NAME": "a name",
    "QUOTED_NAME": "a name",
    "STRING": "a quoted string",
    "NUMBER": "a number",
    "MINUS": "'-'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "COMMA": "','",
    "DOT": "'.'",
    "COLON": "':'",
    "EQUAL": "'='",
    "LESSTHAN": "'<'",
    "MORETHAN": "'>'",
    "SYSTEM_VARIABLE": "@@variable",
    "USER_VARIABLE": "@variable",
    "OPERATOR": "an operator",
    "$END": "end of statement",
}

_PREV_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|`[^`]*`|[(),.=]")


_CREATE_TABLE_HEAD = re.compile(
    r"\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:`[^`]*`|[\w$]+)(?:\s*\.\s*(?:`[^`]*`|[\w$]+))?\s*$", _I
)


def _name_kind(masked: str, pos: int) -> str:
    """What kind of name the parser wants at `pos`, judged from the words before it."""
    open_at = _innermost_open_paren(masked, pos)
    if open_at is not None:
        before = [m.group().upper() for m in _PREV_WORDS.finditer(masked, max(0, open_at - 100), open_at)]
        word = before[-1] if before else ""
        if word in ("PROPERTIES", "SET", "CONFIG"):
            return "a property name"
        if word in ("KEY", "HASH", "RANGE", "LIST"):
            return "a column name"
        if _CREATE_TABLE_HEAD.match(masked, 0, open_at):
            return "a column name"
        if len(before) >= 2 and before[-2] == "INDEX":
            return "a column name"
        if word == "ROLLUP":
            return "a rollup name"
    prev = [m.group().upper() for m in _PREV_WORDS.finditer(masked, max(0, pos - 300), pos)][-4:]
    last = prev[-1] if prev else ""
    if last == "EXISTS" and len(prev) >= 2:
        last = prev[-4] if len(prev) >= 4 else (prev[-3] if len(prev) >= 3 else "")
    if last in ("TABLE", "INTO", "TRUNCATE", "DESC", "DESCRIBE") or prev[-2:] == ["SHOW", "DATA"]:
        return "a table name"
    if last in ("DATABASE", "SCHEMA", "USE"):
        return "a database name"
    if last == "PARTITION":
        return "a partition name"
    if last == "INDEX":
        return "an index name"
    if last in ("FROM", "IN") and masked.lstrip()[:4].upper() == "SHOW":
        return "a table or database name"
    return "a name"


def _innermost_open_paren(masked: str, end: int) -> int | None:
    stack: list[int] = []
    for m in _PAREN_RE.finditer(masked, 0, end):
        if m.group() == "(":
            stack.append(m.start())
        elif stack:
            stack.pop()
    return stack[-1] if stack else None


def describe_expected(expected, masked: str, pos: int, terminal_pattern) -> str:
    """Human words for a set of expected terminals."""
    words: list[str] = []
    seen = set()
    for t in sorted(expected, key=lambda n: (n not in ("NAME", "QUOTED_NAME"), n)):
        if t in ("NAME", "QUOTED_NAME"):
            w = _name_kind(masked, pos)
        elif t in _TERMINAL_WORDS:
            w = _TERMINAL_WORDS[t]
        else:
            pattern = terminal_pattern(t)
            if pattern is None:
                continue
            w = pattern.upper() if pattern.replace("_", "").isalnum() else f"'{pattern}'"
        if w not in seen:
            seen.add(w)
            words.append(w)
    if not words:
        return ""
    if len(words) > 8:
        words = words[:8] + ["..."]
    if len(words) == 1:
        return words[0]
    return "one of " + ", ".join(words)


def _show_token(value: str) -> str:
    value = value.replace("\n", " ")
    if len(value) > 40:
        value = value[:37] + "..."
    return f"'{value}'"


def translate(exc: Exception, text: str, terminal_pattern) -> DorisqlError:
    """The one place where a Lark exception becomes a dorisql error."""
    if isinstance(exc, VisitError):
        exc = exc.orig_exc
    if isinstance(exc, DorisqlError):
        return exc
    masked = mask(text)
    pos = _error_pos(exc, text)
    feature = unsupported_feature(masked, pos)
    if feature is not None:
        name, fpos = feature
        return located(NotSupportedError(name), text, fpos)
    if isinstance(exc, UnexpectedCharacters):
        detail, refs = _bad_character(text, pos)
        return syntax_error(text, pos, detail, refs)
    if isinstance(exc, (UnexpectedToken, UnexpectedEOF)):
        token = getattr(exc, "token", None)
        expected = getattr(exc, "expected", None) or set()
        if isinstance(exc, UnexpectedEOF) or token is None or token.type == "$END":
            open_at = _unclosed_paren(masked, len(text))
            want = describe_expected(expected, masked, len(text), terminal_pattern)
            if open_at is not None:
                return syntax_error(
                    text,
                    len(text),
                    f"unexpected end of input — '(' at {ref(0)} is never closed"
                    + (f" (expected {want})" if want else ""),
                    refs=(open_at,),
                )
            return syntax_error(
                text,
                len(text),
                "unexpected end of input — the statement is incomplete" + (f" (expected {want})" if want else ""),
            )
        if text.startswith(("/*", "'", '"', "`"), pos):
            detail, refs = _bad_character(text, pos)
            return syntax_error(text, pos, detail, refs)
        if token.value == ")" and _unmatched_close(masked, pos):
            return syntax_error(text, pos, "unbalanced parentheses: ')' has no matching '('")
        want = describe_expected(expected, masked, pos, terminal_pattern)
        shown = _show_token(token.value)
        # A '(' is left open before pos exactly when there is an innermost open one.
        innermost = _innermost_open_paren(masked, pos)
        if "RPAR" in expected and innermost is not None and token.type not in ("NAME", "QUOTED_NAME"):
            return syntax_error(
                text, pos, f"unexpected {shown} — '(' at {ref(0)} is not closed (missing ')'?)", refs=(innermost,)
            )
        if (
            token.type not in ("NAME", "QUOTED_NAME", "STRING", "NUMBER")
            and token.value.replace("_", "").isalpha()
            and ("NAME" in expected)
        ):
            return syntax_error(text, pos, f"'{token.value}' is a reserved word; write it as `{token.value}`")
        return syntax_error(text, pos, f"unexpected {shown}" + (f" — expected {want}" if want else ""))
    return syntax_error(text, pos, str(exc).splitlines()[0] if str(exc) else "invalid statement")


def _error_pos(exc: Exception, text: str) -> int:
    if isinstance(exc, UnexpectedCharacters) and exc.pos_in_stream is not None:  # always set by the lexer
        return exc.pos_in_stream
    token = getattr(exc, "token", None)
    if isinstance(exc, UnexpectedEOF) or token is None or token.type == "$END":
        return len(text)
    pos = getattr(token, "start_pos", None)
    return pos if pos is not None else len(text)


def _bad_character(text: str, pos: int) -> tuple[str, tuple[int, ...]]:
    ch = text[pos] if pos < len(text) else ""
    if ch in ("'", '"'):
        return f"unterminated string — the quote {ch} at {ref(0)} is never closed", (pos,)
    if ch == "`":
        return f"unterminated quoted name — the backquote at {ref(0)} is never closed", (pos,)
    if text.startswith("/*", pos):
        return "unterminated comment — '/*' is never closed with '*/'", ()
    if not ch:
        return "unexpected end of input", ()
    return describe_character(ch), ()


__all__ = [
    "caret_context",
    "describe_character",
    "line_col",
    "located",
    "mask",
    "offset_of",
    "relocate",
    "syntax_error",
    "translate",
    "unsupported_feature",
    "feature_offset",
    "UnexpectedInput",
]
