"""Running one SQL command through the engine: parse, execute, place errors in the script.

Shared by the batch and interactive modes (mycli's main_modes/execute.py). No terminal code.
"""

from __future__ import annotations

import time

from dorisql.engine import Engine
from dorisql.errors import DorisqlError
from dorisql.result import Result
from dorisql.session.failures import translate
from dorisql.shell.script import Command
from dorisql.syntax import parse_one


def parse_command(command: Command):
    """The statement for a SQL command; errors carry script-relative line numbers."""

    try:
        return parse_one(command.text)
    except DorisqlError as err:
        place_error(err, command)
        raise


def place_error(err: BaseException, command: Command) -> None:
    """Shift an error's line from statement-relative to script-relative (once)."""
    if not isinstance(err, DorisqlError) or err.placed:
        return
    if err.line is not None:
        if err.line == 1 and err.column is not None:
            err.column += command.column - 1
        err.line += command.line - 1
    err.statement_line = command.line
    err.placed = True


def execute_command(engine: Engine, command: Command) -> Result:
    """Parse and execute one SQL command. Any failure arrives as a DorisqlError."""
    started = time.perf_counter()
    try:
        statement = parse_command(command)
        result = engine.execute(statement)
    except DorisqlError as err:
        place_error(err, command)
        raise
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # an engine bug must not kill the shell: one line, the detail in the log
        failure = translate(exc, warehouse=getattr(engine, "warehouse", None), statement=command.text)
        place_error(failure, command)
        raise failure from exc
    if result is None:
        result = Result.ok()
    if not result.elapsed:
        result.elapsed = time.perf_counter() - started
    return result


def error_line(err: BaseException, command: Command) -> int:
    """The script line to report for an error: where it is, else where its statement starts."""
    line = getattr(err, "line", None)
    return line if isinstance(line, int) and line > 0 else command.line


def use_statement(db: str) -> Command:
    """The command for ``--database db``."""
    return Command("sql", text="USE `" + db.replace("`", "``") + "`")
