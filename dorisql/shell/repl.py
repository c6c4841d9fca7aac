"""The interactive shell (prompt_toolkit), in the manner of litecli and mycli.

- ``dorisql> `` / ``dorisql [db]> `` prompts, ``    -> `` on continuation lines; Enter runs the
  input once the front end says it is a complete statement (`is_complete`), or on ``\\G``.
- History in ``$XDG_STATE_HOME/dorisql/history``; Pygments highlighting; completion of
  keywords, names and property keys, refreshed in the background after DDL.
- Every engine call runs on one worker thread (statements, completion refreshes), so the
  prompt never waits for Spark and Ctrl-C during a statement cancels it (`engine.cancel()`)
  without leaving the shell. Ctrl-C at the prompt clears the line; Ctrl-D, exit, quit leave.
- While the prompt is shown, stdout is patched (`patch_stdout`): messages printed by
  background threads (scheduler, compaction) appear above the input line, never inside it.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.filters import completion_is_selected
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output.color_depth import ColorDepth
from prompt_toolkit.patch_stdout import patch_stdout

from dorisql.engine import Engine
from dorisql.jobs.runner import BackgroundScheduler
from dorisql.jobs.scheduler import default_jobs

if sys.platform == "win32":  # no cooked terminal mode to work around
    termios = None
else:
    import termios

from dorisql import __version__
from dorisql.config import state_dir
from dorisql.errors import DorisqlError
from dorisql.session.failures import translate
from dorisql.shell.batch import script_folder
from dorisql.shell.completer import DorisCompleter, Names
from dorisql.shell.execute import error_line, execute_command, use_statement
from dorisql.shell.formatting import format_error, format_result
from dorisql.shell.highlighting import DorisLexer
from dorisql.shell.progress import ProgressLine, wait_with_progress
from dorisql.shell.script import Command, buffer_complete, client_command, iter_script, read_script, split_buffer
from dorisql.storage.jvm_stderr import divert_jvm_stderr

_REFRESH_AFTER = re.compile(r"^\s*(CREATE|DROP|ALTER|USE|TRUNCATE|RENAME|INSERT|SOURCE)\b", re.IGNORECASE)
_SHELL_HELP = re.compile(r"^\s*(help|\\h|\?)\s*;?\s*$", re.IGNORECASE)

SHELL_HELP = """\
dorisql shell commands (SQL statements end with the delimiter, ';' by default):
  help, \\h, ?       this text; HELP <topic>; asks the engine about SQL
  exit, quit, \\q    leave the shell (Ctrl-D too)
  source <file>     run a script (also \\. <file>)
  delimiter <str>   change the statement delimiter (DELIMITER //)
  <statement>\\G     show the result vertically
Ctrl-C cancels a running statement, or clears the line at the prompt."""


@contextmanager
def typed_eof_kept(stream: TextIO) -> Iterator[None]:
    """Keep a Ctrl-D typed while a statement runs for the next prompt, as the mysql client does.

    Between prompts the terminal is in cooked mode, where Ctrl-D is the end-of-file control,
    not a character: it would be swallowed and the shell would stay open. With VEOF disabled it
    stays in the input as a character; prompt_toolkit then reads it at the next prompt, where it
    leaves the shell (on an empty line). Keys typed ahead are kept either way.
    """
    if termios is None:
        yield
        return
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            raise OSError("not a terminal")
        saved = termios.tcgetattr(fd)
        changed = termios.tcgetattr(fd)
        changed[6][termios.VEOF] = bytes([os.fpathconf(fd, "PC_VDISABLE")])
        termios.tcsetattr(fd, termios.TCSANOW, changed)
    except (OSError, ValueError, AttributeError, termios.error):  # no terminal (pipes): nothing to keep
        yield
        return
    try:
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, saved)
        except (OSError, termios.error):  # the terminal went away
            pass


def color_enabled(env=os.environ) -> bool:
    return not env.get("NO_COLOR") and env.get("TERM") != "dumb"


def history_path(env=os.environ):
    return state_dir(env) / "history"


class Shell:
    """One interactive session: an engine on a worker thread and a PromptSession in front."""

    def __init__(self, config, fmt: str | None = None, *, out=None, env=os.environ):
        self.config = config
        self.fmt = fmt or "table"
        self.out = out or sys.stdout
        self.env = env
        self.color = color_enabled(env)
        self.delimiter = ";"
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dorisql-engine")
        self.engine: Engine | None = None
        self.completer = DorisCompleter(current_db=lambda: getattr(self.engine, "current_db", None))
        self.progress: ProgressLine | None = None
        self.scheduler: BackgroundScheduler | None = None

    # ------------------------------------------------------------------ engine

    def open_engine(self) -> None:
        def make() -> Engine:
            return Engine(self.config)

        self.engine = self.worker.submit(make).result()
        try:
            self.engine.on_spark_wait = self._spark_wait  # called when a statement must wait for Spark
        except AttributeError:
            pass
        start = getattr(self.engine, "start_spark_in_background", None)
        if start and self.config.start_spark == "at_prompt":
            divert_jvm_stderr(state_dir(self.env) / "spark.log")
            start()
        on_progress = getattr(self.engine, "on_progress", None)
        if callable(on_progress):
            on_progress(self._progress_note)
        self.start_scheduler(self.engine)

    def start_scheduler(self, session_engine: Engine) -> None:
        """The frontend's background jobs (the dynamic partition scheduler, every
        dynamic_partition_check_interval_seconds, ...) on their own thread and engine, which
        starts Spark only for a job that needs it. They follow the session's clock, so a session
        that SETs dorisql_now is never aged by the real date behind its back."""

        class SessionClock:
            def now(self):
                return session_engine.now()

        def report(message: str) -> None:
            # sys.stdout is prompt_toolkit's proxy while the prompt shows: the line appears above it.
            print(f"[scheduler] {message}", file=sys.stdout, flush=True)

        self.scheduler = BackgroundScheduler(
            lambda: Engine(self.config, clock=SessionClock()), default_jobs(), report=report
        )
        self.scheduler.start()

    def _spark_wait(self) -> None:
        if self.progress is not None:
            self.progress.clear()
        self.echo("(waiting for Spark to start...)")

    def _progress_note(self, message: str) -> None:
        if self.progress is not None:
            self.progress.note(message)

    def refresh_completions(self) -> None:
        """Reload names on the worker thread (after the current statement), never blocking the prompt."""

        def refresh():
            names = getattr(self.engine, "completion_names", None)
            if names is not None:
                self.completer.set_names(Names.from_engine(names()))

        self.worker.submit(refresh)

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.stop()
        close = getattr(self.engine, "close", None)
        if close:
            try:
                self.worker.submit(close).result(timeout=30)
            except BaseException:  # leaving anyway
                pass
        self.worker.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ output

    def echo(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def show_error(self, err: BaseException, where: str = "") -> None:
        self.echo(format_error(err, where=where, color=self.color))

    # ------------------------------------------------------------------ running input

    def run_command(self, command: Command, filename: str | None = None) -> bool:
        """Run one command; False when it failed (or asked to leave: raises EOFError)."""
        if command.kind == "exit":
            raise EOFError
        if command.kind == "delimiter":
            self.delimiter = command.arg
            return True
        if command.kind == "error":
            self.show_error(DorisqlError(command.arg))
            return False
        if command.kind == "source":
            return self.run_source(command.arg)
        if _SHELL_HELP.match(command.text):
            self.echo(SHELL_HELP)
            return True
        engine = self.engine
        assert engine is not None  # run() opens it before the first command
        self.progress = ProgressLine(engine, self.out)
        future = self.worker.submit(execute_command, engine, command)
        try:
            result = wait_with_progress(future, self.progress, self._cancel, self._cancel_all)
        except DorisqlError as err:
            where = f" at line {error_line(err, command)} in file {filename}" if filename else ""
            self.show_error(err, where)
            return False
        finally:
            self.progress = None
        text = format_result(result, self.fmt, vertical=command.vertical, color=self.color, status=True)
        self.echo(text + "\n")
        if _REFRESH_AFTER.match(command.text):
            self.refresh_completions()
        return True

    def _cancel(self) -> None:
        self.echo(" -- cancelling the statement...")
        cancel = getattr(self.engine, "cancel", None)
        if cancel:
            cancel()

    def _cancel_all(self) -> None:
        """The statement ignored the cancel (e.g. its Spark jobs have no job group): stop every job."""
        engine = self.engine
        if engine is not None and engine.spark_started:
            try:
                spark = engine.spark
                if engine.connect:
                    spark.interruptAll()  # Spark Connect: every operation of this session
                else:
                    spark.sparkContext.cancelAllJobs()
            except Exception:  # Spark already stopping: nothing left to cancel
                pass

    def run_source(self, path: str) -> bool:
        try:
            text = read_script(os.path.expanduser(path))
        except OSError as exc:
            self.show_error(DorisqlError(f"Failed to open file '{path}', error: {exc.errno}"))
            return False
        except DorisqlError as err:  # not UTF-8
            self.show_error(err)
            return False
        engine = self.engine
        assert engine is not None  # run() opens it before the first command
        saved = self.delimiter
        try:
            with script_folder(engine, path):
                for command in iter_script(text):
                    if command.kind == "delimiter":
                        continue  # iter_script applies it within the file
                    if not self.run_command(command, filename=path):
                        return False
        finally:
            self.delimiter = saved
        self.refresh_completions()
        return True

    def run_input(self, text: str) -> None:
        """Run what was typed at the prompt: a client command or one or more statements."""
        command = client_command(text)
        if command is not None:
            self.run_command(command)
            return
        if _SHELL_HELP.match(text):
            self.echo(SHELL_HELP)
            return
        try:
            commands = split_buffer(text, self.delimiter)
        except DorisqlError as err:
            self.show_error(err)
            return
        for command in commands:
            if not self.run_command(command):
                break

    # ------------------------------------------------------------------ the prompt

    def prompt_text(self) -> str:
        db = getattr(self.engine, "current_db", None)
        return f"dorisql [{db}]> " if db else "dorisql> "

    def make_session(self) -> PromptSession:
        bindings = KeyBindings()

        @bindings.add("enter", filter=completion_is_selected)
        def _(event):
            event.current_buffer.complete_state = None

        @bindings.add("enter", filter=~completion_is_selected)
        def _(event):
            buffer = event.current_buffer
            if buffer_complete(buffer.text, self.delimiter):
                buffer.validate_and_handle()
            else:
                buffer.insert_text("\n")

        try:
            path = history_path(self.env)
            path.parent.mkdir(parents=True, exist_ok=True)
            history: History = FileHistory(str(path))
        except OSError:
            history = InMemoryHistory()
        return PromptSession(
            history=history,
            multiline=True,
            key_bindings=bindings,
            prompt_continuation=lambda width, line_number, is_soft_wrap: "    -> ",
            lexer=PygmentsLexer(DorisLexer) if self.color else None,
            completer=self.completer,
            complete_while_typing=False,
            color_depth=None if self.color else ColorDepth.DEPTH_1_BIT,
            enable_history_search=False,
            include_default_pygments_style=self.color,
        )

    def run(self) -> int:
        try:
            self.open_engine()
        except DorisqlError as err:
            self.show_error(err)
            return 1
        self.echo(
            f"dorisql {__version__} on Spark + Delta Lake. "
            f"Warehouse: {getattr(self.engine, 'warehouse', self.config.warehouse)}"
        )
        self.echo("Type 'help' for help. Statements end with ';'. Spark starts in the background.\n")
        if self.config.database and getattr(self.engine, "current_db", None) != self.config.database:
            self.run_command(use_statement(self.config.database))
        self.refresh_completions()
        session = self.make_session()
        try:
            while True:
                try:
                    with patch_stdout(raw=True):
                        text = session.prompt(self.prompt_text())
                except KeyboardInterrupt:
                    continue  # Ctrl-C at the prompt: drop the line
                except EOFError:
                    break
                if not text.strip():
                    continue
                try:
                    with typed_eof_kept(sys.stdin):
                        self.run_input(text)
                except EOFError:
                    break
                except KeyboardInterrupt:
                    self.echo("^C")
                except Exception as exc:  # a shell bug must not end the session: one line, detail in the log
                    self.show_error(translate(exc, warehouse=getattr(self.engine, "warehouse", None), statement=text))
        finally:
            self.echo("Bye")
            self.close()
        return 0


def run_repl(config, fmt: str | None = None) -> int:
    # An interactive shell answers Ctrl-C even when started with SIGINT ignored (from a
    # background job or a test harness): it cancels the statement, never kills the shell.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return Shell(config, fmt).run()
