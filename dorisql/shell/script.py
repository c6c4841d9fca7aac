"""Cutting a script (or the shell's input) into commands: SQL statements and client commands.

The SQL statements themselves are found by the front end (`dorisql.syntax.split_statements`
and `is_complete`, which know about strings, backquotes and comments). This module adds what
the mysql client handles itself before SQL reaches the server:

- ``DELIMITER //`` changes the statement terminator (mycli's DelimiterCommand);
- ``source file.sql`` and ``\\. file.sql`` run another script;
- ``\\G`` ends a statement and asks for vertical output;
- ``exit``, ``quit``, ``\\q`` leave (the shell only).

Client commands are recognised only at the start of a statement, as in mysql. Scripts are read as
UTF-8 (`read_script`). Nothing here imports prompt_toolkit, so the batch path stays light.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from dorisql.errors import DorisqlError
from dorisql.syntax import is_complete, split_statements
from dorisql.syntax.split import CompletionTracker

_DELIMITER = re.compile(r"^\s*delimiter(?:\s+(\S+))?\s*$", re.IGNORECASE)
_SOURCE = re.compile(r"^\s*(?:source\s+|\\\.\s*)(.+?)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_EXIT = re.compile(r"^\s*(?:exit|quit|\\q)\s*;?\s*$", re.IGNORECASE)


@dataclass
class Command:
    """One thing to do. kind: "sql" | "source" | "delimiter" | "exit" | "error"."""

    kind: str
    text: str = ""
    line: int = 1
    column: int = 1
    vertical: bool = False
    #: For "source": the file; for "delimiter": the new delimiter; for "error": the message.
    arg: str = ""
    #: The comments just before a SQL statement (a script's `-- what this does`), for the echo
    #: of ``dorisql -f`` on a terminal; never sent to the engine.
    comment: str = ""


def read_script(path: str) -> str:
    """A script file's text, read as UTF-8 (OSError when it cannot be opened)."""
    with open(path, "rb") as fh:
        return decode_script(fh.read(), f"file '{path}'")


def decode_script(data: bytes, source: str) -> str:
    """Script bytes as text. Invalid UTF-8 is a DorisqlError naming `source` ("file 'x.sql'",
    "standard input"), the line and column, and the byte offset of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
        line_start = data.rfind(b"\n", 0, bad) + 1
        line = data.count(b"\n", 0, bad) + 1
        column = len(data[line_start:bad].decode("utf-8")) + 1  # (the first bad byte ends the valid part)
        raise DorisqlError(
            f"cannot read {source}: invalid UTF-8 byte 0x{data[bad]:02X} at line {line}, "
            f"column {column} (byte offset {bad})"
        ) from None


def strip_blank(text: str) -> str:
    """`text` without comments and whitespace: "" when it holds no SQL at all."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#" or (text.startswith("--", i) and (i + 2 >= n or text[i + 2] in " \t\r\n")):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:  # an open comment: not blank, the statement is still being typed
                return text[i:]
            i = end + 2
        elif ch.isspace():
            i += 1
        else:
            return text[i:]
    return ""


def client_command(text: str) -> Command | None:
    """The client command `text` is (one line, at the start of a statement), else None."""
    first = text.strip()
    if not first or "\n" in first:
        return None
    m = _DELIMITER.match(first)
    if m:
        if not m.group(1):
            return Command("error", arg="DELIMITER must be followed by a 'delimiter' character or string")
        if "\\" in m.group(1):
            return Command("error", arg="DELIMITER cannot contain a backslash character")
        return Command("delimiter", arg=m.group(1))
    m = _SOURCE.match(first)
    if m:
        return Command("source", arg=_unquote(m.group(1)))
    if _EXIT.match(first):
        return Command("exit")
    return None


def _unquote(path: str) -> str:
    path = path.strip()
    if len(path) >= 2 and path[0] == path[-1] and path[0] in "'\"`":
        return path[1:-1]
    return path


def ends_with_vertical(text: str, delimiter: str = ";") -> str | None:
    """If `text` is a statement ended by ``\\G``, the statement without it; else None."""

    stripped = text.rstrip()
    if not stripped.endswith("\\G"):
        return None
    body = stripped[:-2]
    if not strip_blank(body):
        return None
    # \G counts only outside strings and comments: the body must end cleanly with a delimiter.
    if is_complete(body + delimiter, delimiter):
        return body
    return None


def buffer_complete(text: str, delimiter: str = ";") -> bool:
    """Is the shell's input a finished command (Enter runs it rather than adding a line)?"""

    if not strip_blank(text):
        return True
    if client_command(text) is not None:
        return True
    stripped = text.strip()
    if re.match(r"^(help|\\h|\?)(\s|$)", stripped, re.IGNORECASE) and "\n" not in stripped:
        return True
    if ends_with_vertical(text, delimiter) is not None:
        return True
    return is_complete(text, delimiter)


def split_buffer(text: str, delimiter: str = ";", first_line: int = 1) -> list[Command]:
    """The SQL commands in a finished buffer (every statement, in order)."""

    vertical_body = ends_with_vertical(text, delimiter)
    body = vertical_body if vertical_body is not None else text
    commands = []
    line_starts = [0] + [m.end() for m in re.finditer("\n", body)]
    end = 0  # where the previous statement ended: what lies between is its delimiter and noise
    for stmt, line, col in split_statements(body, delimiter):
        start = line_starts[line - 1] + col - 1
        gap = body[end:start]
        end = start + len(stmt)
        if strip_blank(stmt):
            comment = (gap[len(delimiter) :] if gap.startswith(delimiter) else gap).strip()
            commands.append(Command("sql", text=stmt, line=first_line + line - 1, column=col, comment=comment))
    if vertical_body is not None and commands:
        commands[-1].vertical = True
    return commands


def iter_script(text: str, delimiter: str = ";") -> Iterator[Command]:
    """Walk a script line by line, yielding its commands; DELIMITER takes effect at once.

    Each line is scanned once (CompletionTracker), so a statement of many lines costs time in
    proportion to its length."""

    buffer: list[str] = []
    start = 1
    blank = True  # the buffer may hold no SQL yet (only whitespace and comments, or an open comment)
    tracker = CompletionTracker(delimiter)
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if blank and not strip_blank("".join(buffer)):
            command = client_command(line)
            if command is not None:
                command.line = number
                if command.kind == "delimiter":
                    delimiter = command.arg
                yield command
                buffer, start, tracker = [], number + 1, CompletionTracker(delimiter)
                continue
            if not buffer:
                start = number
        buffer.append(line)
        complete = tracker.feed(line)
        if blank:
            head = strip_blank("".join(buffer))
            blank = not head or head.startswith("/*")
        if not blank and (
            complete or line.rstrip().endswith("\\G") and ends_with_vertical("".join(buffer), delimiter) is not None
        ):
            yield from split_buffer("".join(buffer), delimiter, start)
            buffer, start, blank, tracker = [], number + 1, True, CompletionTracker(delimiter)
    rest = "".join(buffer)
    if strip_blank(rest):
        yield from split_buffer(rest, delimiter, start)
