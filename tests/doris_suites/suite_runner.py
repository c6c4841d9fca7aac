"""Apache Doris regression suites, translated to ``.sql`` + ``.out``, run through ``dorisql -f``.

A suite is ``suites/<name>.sql`` (the statements of a Doris ``.groovy`` suite, in order) and
``suites/<name>.out`` (its expected results in Doris's ``.out`` format). Comment lines right
before a statement say what Doris's suite checks about it (docs/doris_suites.md):

    -- !tag               qt_tag: the rows, in order, equal the ``-- !tag --`` block of the .out
    -- !tag order         order_qt_tag: the same rows in any order
    -- !tag columns A, B  an assertion on some columns of a result (``result.get(i).get(8)``):
                          only these columns are compared with the block
    -- rows N             assertEquals(result.size(), N)
    -- contains TEXT      assertTrue(result.toString().containsIgnoreCase(TEXT))
    -- exception TEXT     test { sql ...; exception "TEXT" }: it fails, its message contains TEXT
                          (just ``-- exception``: any error)
    -- try                try_sql / a ``test {}`` without a check: any outcome

Any other statement must succeed, as a plain ``sql`` does in Doris's suites.

The whole script runs in one ``dorisql -f FILE --force --format jsonl`` process (one JSON
record per statement, errors included). Values are compared as the Doris regression framework
writes them (it reads results over JDBC): NULL is ``\\N``, DATETIME is Java's
``LocalDateTime.toString()`` (``2011-01-01T00:00``), BOOLEAN ``true``/``false``, DOUBLE
Java's ``Double.toString()``; everything else is dorisql's own text. Error messages are compared
without Doris's ``errCode = 2, detailMessage = `` prefixes, which its JDBC errors carry.

Nothing here starts Spark: parsing suites and comparing results is the pure tier's business.
"""

from __future__ import annotations

import datetime as dt
import decimal
import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dorisql.shell.script import iter_script

SUITES = Path(__file__).parent / "suites"

_ANNOTATION = re.compile(r"^\s*--\s+(!\w+|rows|contains|exception|try)\b(.*)$")
_DORIS_PREFIX = re.compile(r"errCode = \d+, detailMessage = ")


@dataclass
class Check:
    """What Doris's suite checks about one statement."""

    kind: str  # "tag" | "rows" | "contains" | "exception" | "try"
    arg: str = ""
    tag: str = ""
    occurrence: int = 1  # the n-th use of this tag (Doris's suites reuse "sql")
    ordered: bool = True
    columns: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        if self.kind == "tag":
            return self.tag if self.occurrence == 1 else f"{self.tag}#{self.occurrence}"
        return self.kind


@dataclass
class Statement:
    line: int
    text: str
    checks: list[Check] = field(default_factory=list)

    @property
    def may_fail(self) -> bool:
        return any(c.kind in ("exception", "try") for c in self.checks)


@dataclass
class Suite:
    name: str
    statements: list[Statement]
    blocks: dict[str, list[list[str]]]  # "tag" / "tag#2" -> the rows of its .out block

    def checks(self) -> list[tuple[Statement, Check]]:
        return [(s, c) for s in self.statements for c in s.checks if c.kind != "try"]


def suite_names() -> list[str]:
    return sorted(p.stem for p in SUITES.glob("*.sql"))


def load_suite(name: str, folder: Path = SUITES) -> Suite:
    sql = (folder / f"{name}.sql").read_text(encoding="utf-8")
    out = folder / f"{name}.out"
    blocks = parse_out(out.read_text(encoding="utf-8")) if out.exists() else {}
    return Suite(name, parse_sql(sql), blocks)


def parse_sql(text: str) -> list[Statement]:
    """The script's statements (cut as ``dorisql`` cuts them), each with the checks written in
    the comment lines since the previous statement."""
    lines = text.splitlines()
    statements: list[Statement] = []
    seen: dict[str, int] = {}
    previous_end = 0
    for command in iter_script(text):
        if command.kind != "sql":
            continue
        checks = []
        for raw in lines[previous_end : command.line - 1]:
            m = _ANNOTATION.match(raw)
            if m:
                checks.append(_check(m.group(1), m.group(2).strip(), seen))
        statements.append(Statement(command.line, command.text, checks))
        previous_end = command.line - 1 + command.text.count("\n") + 1
    return statements


def _check(word: str, arg: str, seen: dict[str, int]) -> Check:
    if not word.startswith("!"):
        return Check(word, arg)
    tag = word[1:]
    seen[tag] = seen.get(tag, 0) + 1
    check = Check("tag", tag=tag, occurrence=seen[tag])
    if arg == "order":
        check.ordered = False
    elif arg.startswith("columns"):
        check.columns = [c.strip() for c in arg[len("columns") :].split(",") if c.strip()]
    elif arg:
        raise ValueError(f"unknown option for -- !{tag}: {arg!r}")
    return check


def parse_out(text: str) -> dict[str, list[list[str]]]:
    """Doris's ``.out``: ``-- !tag --`` blocks of tab-separated rows, ended by a blank line.
    Other ``--`` lines are comments. A tag used again gets ``tag#2``, ``tag#3`` ..."""
    blocks: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    for line in text.splitlines():
        m = re.match(r"^-- !(\w+) --$", line)
        if m:
            tag, n = m.group(1), 1
            while (tag if n == 1 else f"{tag}#{n}") in blocks:
                n += 1
            current = blocks.setdefault(tag if n == 1 else f"{tag}#{n}", [])
        elif line.startswith("--") or current is None:
            continue
        elif line == "":
            current = None
        else:
            current.append(line.split("\t"))
    return blocks


# ---------------------------------------------------------------------- values as Doris's .out


def java_double(text: str) -> str:
    """Java's ``Double.toString`` of the number Python printed as `text`."""
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(value)]
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(value) if "e" not in repr(value) else format(decimal.Decimal(repr(value)), "f")
    sign, digits, exponent = decimal.Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    mantissa = "".join(map(str, digits)).rstrip("0") or "0"
    power = exponent + len(digits) - 1
    return f"{'-' if sign else ''}{mantissa[0]}.{mantissa[1:] or '0'}E{power}"


def java_datetime(text: str) -> str:
    """Java's ``LocalDateTime.toString`` of dorisql's ``2011-01-01 00:00:00[.ffffff]``."""
    value = dt.datetime.fromisoformat(text)
    out = value.strftime("%Y-%m-%dT%H:%M")
    if value.second or value.microsecond:
        out += value.strftime(":%S")
    if value.microsecond:
        out += f".{value.microsecond // 1000:03d}" if value.microsecond % 1000 == 0 else f".{value.microsecond:06d}"
    return out


def as_out_value(value: str | None, kind: str) -> str:
    if value is None:
        return "\\N"
    if kind == "datetime":
        return java_datetime(value)
    if kind == "bool":
        return "true" if value == "1" else "false"
    if kind in ("float", "float32"):  # Java's Float.toString writes a float32's digits the same way
        return java_double(value)
    return value


def out_rows(record: dict[str, Any], columns: list[str] | None = None) -> list[list[str]]:
    """A result record's rows as Doris's ``.out`` writes them (only `columns`, if given)."""
    names = record["columns"]
    picks = list(range(len(names))) if not columns else [names.index(c) for c in columns]
    kinds = record["kinds"]
    return [[as_out_value(row[i], kinds[i]) for i in picks] for row in record["rows"]]


# ---------------------------------------------------------------------- running and comparing


def read_records(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _rows_text(rows: list[list[str]]) -> list[str]:
    return ["\t".join(row) for row in rows]


def _where(statement: Statement) -> str:
    first = statement.text.strip().splitlines()[0] if statement.text.strip() else ""
    return f"line {statement.line}: {first[:100]}"


def check_failure(suite: Suite, statement: Statement, check: Check, record: dict[str, Any]) -> str | None:
    """Why `record` (the statement's outcome) fails `check`, or None when it passes."""
    error = record.get("error")
    message = error["message"] if error else ""
    if check.kind == "exception":
        if not error:
            return f"{_where(statement)}\nexpected an error containing {check.arg!r}, but the statement succeeded"
        want = _DORIS_PREFIX.sub("", check.arg)
        if want not in _DORIS_PREFIX.sub("", message):  # Doris's test {} checks contains()
            return f"{_where(statement)}\nexpected an error containing:\n  {want}\ngot:\n  {message}"
        return None
    if error:
        return f"{_where(statement)}\nfailed: {message}"
    if "columns" not in record:
        return f"{_where(statement)}\nreturned no result set (affected rows: {record.get('affected_rows')})"
    if check.kind == "rows":
        got = len(record["rows"])
        return None if got == int(check.arg) else f"{_where(statement)}\nexpected {check.arg} rows, got {got}"
    if check.kind == "contains":
        text = str(record["rows"])
        if check.arg.lower() in text.lower():
            return None
        return f"{_where(statement)}\nexpected the result to contain {check.arg!r}; it was:\n  {text[:2000]}"
    # a tag: the rows against the .out block
    if check.name not in suite.blocks:
        return f"{_where(statement)}\nno '-- !{check.tag} --' block #{check.occurrence} in {suite.name}.out"
    missing = [c for c in check.columns if c not in record["columns"]]
    if missing:
        return f"{_where(statement)}\nno column {missing} in the result (columns: {record['columns']})"
    want_rows = suite.blocks[check.name]
    got_rows = out_rows(record, check.columns or None)
    if not check.ordered:
        want_rows, got_rows = sorted(want_rows), sorted(got_rows)
    expected, actual = _rows_text(want_rows), _rows_text(got_rows)
    if expected == actual:
        return None
    names = check.columns or record["columns"]
    diff = "\n".join(difflib.unified_diff(expected, actual, f"{suite.name}.out", "dorisql", lineterm=""))
    return f"{_where(statement)}\n-- !{check.tag} -- rows differ:\n{_by_column(names, want_rows, got_rows)}{diff}"


def _by_column(names: list[str], want: list[list[str]], got: list[list[str]]) -> str:
    """When only some columns differ (same row count), say which, with a first example."""
    if len(want) != len(got) or any(len(w) != len(names) or len(g) != len(names) for w, g in zip(want, got)):
        return f"({len(want)} rows expected, {len(got)} returned)\n"
    lines = []
    for i, name in enumerate(names):
        rows = [n for n, (w, g) in enumerate(zip(want, got)) if w[i] != g[i]]
        if rows:
            first = rows[0]
            lines.append(
                f"column {name}: {len(rows)} of {len(want)} rows differ, first row {first + 1}: "
                f"expected {want[first][i]!r}, got {got[first][i]!r}"
            )
    return "".join(line + "\n" for line in lines)


def unexpected_errors(suite: Suite, records: list[dict[str, Any]]) -> list[str]:
    """The plain statements (no ``exception`` / ``try``) that failed; Doris's suite would stop there."""
    return [
        f"{_where(statement)}\nfailed: {record['error']['message']}"
        for statement, record in zip(suite.statements, records)
        if "error" in record and not statement.checks
    ]


def match_records(suite: Suite, records: list[dict[str, Any]]) -> None:
    """The run produced one record per statement, in order (else the harness is out of step)."""
    if [r["line"] for r in records] != [s.line for s in suite.statements]:
        raise AssertionError(
            f"{suite.name}: dorisql reported statements at lines {[r['line'] for r in records]}, "
            f"the suite has them at {[s.line for s in suite.statements]}"
        )
