"""Rendering a Result as text: MySQL box tables, ``\\G`` vertical rows, TSV, CSV, JSON.

Everything here is a pure function of the Result (no engine, no terminal), so the output is
tested with golden strings. Formats:

- ``table``: what the mysql client prints interactively — ``+---+`` borders, NULL as ``NULL``,
  numeric columns right-aligned, then ``N rows in set (0.02 sec)`` / ``Empty set`` /
  ``Query OK, N rows affected``.
- ``tsv``: mysql batch mode — a header line, tab-separated values, ``\\t``, ``\\n`` and ``\\\\``
  escaped, NULL as ``NULL``. Commands print nothing.
- ``csv``: RFC 4180 with a header; NULL is an empty field.
- ``json``: one JSON array of objects per result set, on one line.
- ``jsonl``: one JSON object per statement, on its own line, errors included (`statement_record`):
  for tools that check a script's outcome statement by statement (tests/doris_suites).

HELP's answer (a result marked ``shown_as_text``) is plain text in the ``table`` format, as the
mysql client prints server help: ``Name: 'CREATE TABLE'``, ``Description:`` and the syntax,
lines wrapped at `HELP_WIDTH` columns.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import textwrap
from collections.abc import Sequence
from typing import Any

from dorisql.result import Float32, ScaledDatetime, jsonable, render_value

FORMATS = ("table", "tsv", "csv", "json", "jsonl")

_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"


# ------------------------------------------------------------------------------- values


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal))


def display_width(text: str) -> int:
    """Columns the text takes on a terminal (CJK characters take two)."""
    if text.isascii():
        return len(text)
    try:
        from wcwidth import wcswidth
    except ImportError:  # pragma: no cover - wcwidth comes with prompt_toolkit
        return len(text)
    width = wcswidth(text)
    return width if width >= 0 else len(text)


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * (width - display_width(text))
    return fill + text if right else text + fill


# ------------------------------------------------------------------------------- status lines


def format_elapsed(seconds: float) -> str:
    """``0.02 sec``, ``1 min 2.35 sec``, ``1 hour 2 min 3.00 sec`` (as the mysql client)."""
    seconds = max(0.0, seconds)
    parts = []
    if seconds >= 3600:
        hours = int(seconds // 3600)
        parts.append(f"{hours} hour" + ("s" if hours > 1 else ""))
        seconds -= hours * 3600
    if seconds >= 60 or parts:
        minutes = int(seconds // 60)
        parts.append(f"{minutes} min")
        seconds -= minutes * 60
    parts.append(f"{seconds:.2f} sec")
    return " ".join(parts)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def format_status(result) -> str:
    """The mysql status line under a result: rows in set, Empty set or Query OK."""
    warnings = len(result.warnings or [])
    warn = f", {_plural(warnings, 'warning')}" if warnings else ""
    elapsed = f"({format_elapsed(result.elapsed or 0.0)})"
    if result.is_query:
        if not result.rows:
            return f"Empty set{warn} {elapsed}"
        return f"{_plural(len(result.rows), 'row')} in set{warn} {elapsed}"
    return f"Query OK, {_plural(result.affected_rows or 0, 'row')} affected{warn} {elapsed}"


def format_warnings(result) -> str:
    return "\n".join(f"Warning (Code 1105): {w}" for w in (result.warnings or []))


# ------------------------------------------------------------------------------- tables


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A MySQL box table."""
    headers = [str(c) for c in columns]
    cells = [[render_value(v) for v in row] for row in rows]
    numeric = []
    for i in range(len(headers)):
        values = [row[i] for row in rows if row[i] is not None]
        numeric.append(bool(values) and all(_is_number(v) for v in values))
    widths = [display_width(h) for h in headers]
    for row in cells:
        for i, text in enumerate(row):
            widths[i] = max(widths[i], display_width(text))
    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [border, "| " + " | ".join(_pad(h, w, False) for h, w in zip(headers, widths)) + " |", border]
    for row in cells:
        lines.append("| " + " | ".join(_pad(t, w, numeric[i]) for i, (t, w) in enumerate(zip(row, widths))) + " |")
    if cells:
        lines.append(border)
    return "\n".join(lines)


def format_vertical(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """``\\G`` output: one block per row, field names right-aligned."""
    headers = [str(c) for c in columns]
    width = max((display_width(h) for h in headers), default=0)
    lines = []
    for n, row in enumerate(rows, 1):
        lines.append(f"{'*' * 27} {n}. row {'*' * 27}")
        for header, value in zip(headers, row):
            lines.append(f"{_pad(header, width, True)}: {render_value(value)}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------- batch formats


def _tsv_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\0", "\\0")


def format_tsv(columns: Sequence[str], rows: Sequence[Sequence[Any]], header: bool = True) -> str:
    lines = ["\t".join(_tsv_escape(str(c)) for c in columns)] if header else []
    for row in rows:
        lines.append("\t".join(_tsv_escape(render_value(v)) for v in row))
    return "\n".join(lines)


def format_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]], header: bool = True) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow([str(c) for c in columns])
    for row in rows:
        writer.writerow(["" if v is None else render_value(v) for v in row])
    return out.getvalue().rstrip("\n")


def format_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    names = [str(c) for c in columns]
    objects = [{name: jsonable(value) for name, value in zip(names, row)} for row in rows]
    return json.dumps(objects, ensure_ascii=False)


def _kind(values: Sequence[Any]) -> str:
    """The Python kind of a column's values (its first non-NULL one): "int", "datetime", ..."""
    for value in values:
        if value is not None:
            if isinstance(value, Float32):
                return "float32"  # a FLOAT column (a DOUBLE is "float")
            if isinstance(value, ScaledDatetime):
                return "datetime"  # a DATETIME(p) column's value, its p kept for display
            return "decimal" if isinstance(value, decimal.Decimal) else type(value).__name__
    return "null"


def statement_record(
    result=None, *, error: BaseException | None = None, line: int | None = None, statement: str | None = None
) -> str:
    """One ``jsonl`` line: where the statement starts, its text, then either its rows (as the
    ``tsv`` format renders them, NULL as null, with each column's value kind) and affected-row
    count, or its error's code, SQLSTATE and message."""
    record: dict[str, Any] = {} if line is None else {"line": line, "statement": statement}
    if error is not None:
        record["error"] = {
            "code": getattr(error, "code", 1105),
            "sqlstate": getattr(error, "sqlstate", "HY000"),
            "message": getattr(error, "message", None) or str(error) or type(error).__name__,
        }
    elif result.is_query:
        columns = [str(c) for c in result.columns]
        record["columns"] = columns
        record["kinds"] = [_kind([row[i] for row in result.rows]) for i in range(len(columns))]
        record["rows"] = [[None if v is None else render_value(v) for v in row] for row in result.rows]
    else:
        record["affected_rows"] = result.affected_rows or 0
    return json.dumps(record, ensure_ascii=False)


# ------------------------------------------------------------------------------- HELP

HELP_WIDTH = 80


def _wrap(text: str, width: int) -> str:
    """Lines longer than `width` wrapped, continuation lines indented under their start."""
    lines = []
    for line in text.splitlines():
        if display_width(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        lines.extend(
            textwrap.wrap(
                line, width, subsequent_indent=indent + "    ", break_long_words=False, break_on_hyphens=False
            )
            or [line]
        )
    return "\n".join(lines)


def format_help(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], message: str | None = None, width: int = HELP_WIDTH
) -> str:
    """HELP's answer as the mysql client prints it: one topic (name, description, example), or
    the list of topics that match."""
    if len(columns) == 3 and len(rows) == 1:
        name, description, example = (render_value(v, null="") for v in rows[0])
        parts = [f"Name: '{name}'", "Description:", _wrap(description, width)]
        if example:
            parts += ["Examples:", _wrap(example, width)]
        return "\n".join(parts)
    if not rows:
        return message or "Nothing found"
    if message:  # nothing matched: the message says so, every topic follows
        lines = [message]
    else:
        lines = [
            "Many help items for your request exist.",
            "To make a more specific request, please type 'help <item>',",
            "where <item> is one of the following topics:",
        ]
    lines += [f"   {render_value(row[0])}" for row in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------------------- entry point


def format_result(
    result, fmt: str = "table", *, vertical: bool = False, color: bool = False, status: bool | None = None
) -> str:
    """Everything to print for one statement's result, without a trailing newline.

    `status` (default: on for ``table``, off otherwise) adds the mysql status line, the
    statement's message and its warnings. `color` dims the status line (never the data).
    Returns "" when there is nothing to print (a command in a batch format).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (expected one of: {', '.join(FORMATS)})")
    if status is None:
        status = fmt == "table"
    if fmt == "jsonl":
        return statement_record(result)
    if fmt == "table" and getattr(result, "shown_as_text", False):
        return format_help(result.columns or [], result.rows, result.message)
    parts: list[str] = []
    if result.is_query and (result.rows or not status):
        columns, rows = result.columns, result.rows
        if vertical:
            if rows:
                parts.append(format_vertical(columns, rows))
        elif fmt == "table":
            parts.append(format_table(columns, rows))
        elif fmt == "tsv":
            parts.append(format_tsv(columns, rows))
        elif fmt == "csv":
            parts.append(format_csv(columns, rows))
        else:
            parts.append(format_json(columns, rows))
    if status and _is_use(result):
        return result.message  # mysql prints only this after USE
    if status:
        line = format_status(result)
        parts.append(f"{_DIM}{line}{_RESET}" if color else line)
        if result.message:
            parts.append(result.message)
        if result.warnings:
            parts.append(format_warnings(result))
    return "\n".join(parts)


def _is_use(result) -> bool:
    return (
        not result.is_query
        and not result.affected_rows
        and not result.warnings
        and result.message == "Database changed"
    )


def format_error(err: BaseException, *, where: str = "", color: bool = False) -> str:
    """``ERROR 1064 (42000) at line 3 in file x.sql: message`` and the caret context under it.

    `where` is the location text (`` at line 3``), empty in the shell.
    """
    code = getattr(err, "code", 1105)
    sqlstate = getattr(err, "sqlstate", "HY000")
    message = getattr(err, "message", None) or str(err) or type(err).__name__
    head = f"ERROR {code} ({sqlstate}){where}: {message}"
    if color:
        head = f"{_RED}{_BOLD}{head}{_RESET}"
    context = getattr(err, "context", None)
    if context:
        return head + "\n" + context.rstrip("\n")
    return head
