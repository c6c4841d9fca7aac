"""Batch mode: ``-e``, ``-f file.sql`` and scripts on stdin (mysql's batch mode).

Stops at the first failing statement (``--force`` goes on), reporting
``ERROR 1064 (42000) at line 3 in file script.sql: message`` and the caret context on stderr.
Never imports prompt_toolkit or pyspark itself.

Like ``mysql -B``, a statement without a result set (INSERT, DDL) prints nothing on stdout: the
mysql client shows ``Query OK, 3 rows affected`` only interactively or with ``-vvv``. ``-v``
(`verbose`) prints that status line after every statement (``Query OK, N rows affected (t sec)``,
``N rows in set (t sec)``, ``Empty set (t sec)``), plus its message (rows filtered in non-strict
mode), as ``mysql -vvv`` does.

``echo`` (``dorisql -f`` writing to a terminal, or ``-t``) prints what ``mysql --comments -t
-vvv`` prints, so that a script tells its story: each statement (with the comments just above it)
between dashes, its result as a MySQL table (``\\G``: vertical), then its status line and a blank
line.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from dorisql.engine import Engine
from dorisql.errors import DorisqlError
from dorisql.shell.execute import error_line, execute_command
from dorisql.shell.formatting import format_error, format_result, format_status, statement_record
from dorisql.shell.script import Command, iter_script, read_script

MAX_SOURCE_DEPTH = 16
#: The line mysql -v prints above and below each statement it echoes.
ECHO_RULE = "-" * 14


@contextmanager
def script_folder(engine: Engine, filename: str | None):
    """While a file runs, relative paths in it (local() table functions) start at its folder."""
    if not filename or not hasattr(engine, "base_dir"):
        yield
        return
    saved = engine.base_dir
    engine.base_dir = Path(filename).resolve().parent
    try:
        yield
    finally:
        engine.base_dir = saved


class StopScript(Exception):
    """`exit` / `quit` in a script."""


@dataclass
class BatchRunner:
    engine: Engine
    fmt: str = "tsv"
    force: bool = False
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    verbose: bool = False
    echo: bool = False
    failures: int = 0
    _depth: int = 0

    def run_text(self, text: str, filename: str | None = None) -> bool:
        """Run a whole script. Returns False when it stopped at an error."""
        with script_folder(self.engine, filename):
            return self._run_text(text, filename)

    def _run_text(self, text: str, filename: str | None) -> bool:
        try:
            for command in iter_script(text):
                if not self.run_command(command, filename):
                    return False
        except StopScript:
            if self._depth:
                raise
        return True

    def run_command(self, command: Command, filename: str | None) -> bool:
        if command.kind == "delimiter":
            return True
        if command.kind == "exit":
            raise StopScript()
        if command.kind == "error":
            return self._fail(DorisqlError(command.arg), command, filename)
        if command.kind == "source":
            return self.run_source(command, filename)
        if self.echo:  # before it runs: a long statement shows what it is waiting for
            shown = f"{command.comment}\n{command.text}" if command.comment else command.text
            self.out.write(f"{ECHO_RULE}\n{shown}\n{ECHO_RULE}\n\n")
            self.out.flush()
        try:
            result = execute_command(self.engine, command)
        except DorisqlError as err:
            return self._fail(err, command, filename)
        if self.fmt == "jsonl":
            self.out.write(statement_record(result, line=command.line, statement=command.text) + "\n")
        self._print(result, command.vertical)
        return True

    def run_source(self, command: Command, filename: str | None) -> bool:
        path = command.arg
        if not os.path.isabs(path) and not os.path.exists(path) and filename:
            beside = os.path.join(os.path.dirname(filename), path)
            if os.path.exists(beside):
                path = beside
        if self._depth >= MAX_SOURCE_DEPTH:
            return self._fail(
                DorisqlError(f"source nested more than {MAX_SOURCE_DEPTH} deep: '{path}'"), command, filename
            )
        try:
            text = read_script(path)
        except OSError as exc:
            return self._fail(
                DorisqlError(f"Failed to open file '{command.arg}', error: {exc.errno}"), command, filename
            )
        except DorisqlError as err:
            return self._fail(err, command, filename)
        self._depth += 1
        try:
            return self.run_text(text, path)
        finally:
            self._depth -= 1

    def _print(self, result, vertical: bool) -> None:
        if self.echo:  # the table, status line, note and warnings, as the shell prints them
            self.out.write(format_result(result, "table", vertical=vertical, status=True) + "\n\n")
            self.out.flush()
            return
        text = "" if self.fmt == "jsonl" else format_result(result, self.fmt, vertical=vertical, status=False)
        if text:
            self.out.write(text + "\n")
        if self.verbose and self.fmt != "jsonl":  # jsonl records carry the counts
            self.out.write(format_status(result) + "\n" + (result.message + "\n" if result.message else ""))
        # mysql's batch mode prints no status or message; warnings still deserve a look.
        notes = [f"Warning (Code 1105): {w}" for w in result.warnings or []]
        if notes:
            self.out.flush()
            self.err.write("\n".join(notes) + "\n")
        self.out.flush()

    def _fail(self, err: BaseException, command: Command, filename: str | None) -> bool:
        self.failures += 1
        where = f" at line {error_line(err, command)}"
        if filename:
            where += f" in file {filename}"
        if self.fmt == "jsonl":  # the record says which statement failed; stderr still gets the message
            self.out.write(statement_record(error=err, line=command.line, statement=command.text) + "\n")
        self.out.flush()
        self.err.write(format_error(err, where=where) + "\n")
        self.err.flush()
        return self.force


def run_batch(
    engine: Engine,
    text: str,
    *,
    filename: str | None = None,
    fmt: str = "tsv",
    force: bool = False,
    verbose: bool = False,
    echo: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run a script; the exit code (0 ok, 1 something failed)."""
    runner = BatchRunner(
        engine, fmt=fmt, force=force, verbose=verbose, echo=echo, out=out or sys.stdout, err=err or sys.stderr
    )
    try:
        runner.run_text(text, filename)
    except StopScript:
        pass
    except KeyboardInterrupt:
        cancel = getattr(engine, "cancel", None)
        if cancel:
            cancel()
        runner.err.write("ERROR 1317 (70100): Query execution was interrupted\n")
        return 130
    return 1 if runner.failures else 0
