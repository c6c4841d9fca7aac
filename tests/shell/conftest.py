"""Fixtures running the real ``dorisql`` command: isolated HOME/XDG folders, a temporary warehouse."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shellkit import DORISQL, Repl


@pytest.fixture
def shell_env(process_env) -> dict[str, str]:
    """The environment for a dorisql process on a terminal: nothing from the user's own config or history."""
    env = {k: v for k, v in process_env.items() if k != "NO_COLOR"}
    env.update(
        {
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "TERM": "xterm-256color",
            "COLUMNS": "120",
            "LINES": "40",
        }
    )
    return env


@pytest.fixture
def wh(tmp_path) -> Path:
    path = tmp_path / "wh"
    path.mkdir()
    return path


@pytest.fixture
def dorisql(shell_env, wh, tmp_path):
    """Run ``dorisql --warehouse <tmp> ARGS`` to completion (stdin not a terminal)."""

    def run(
        *args: str,
        input: str | None = "",
        warehouse: bool = True,
        timeout: float = 120,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess:
        argv = [DORISQL, *(["--warehouse", str(wh)] if warehouse else []), *args]
        return subprocess.run(
            argv,
            input=input,
            capture_output=True,
            text=True,
            env={**shell_env, **(env or {})},
            timeout=timeout,
            cwd=cwd or tmp_path,
        )

    return run


def _repl_starter(base_env: dict[str, str], wh: Path):
    """``start(*extra_args, env={...}, wait=True)`` and the list of shells it started."""
    started: list[Repl] = []

    def start(*args: str, env: dict[str, str] | None = None, wait: bool = True) -> Repl:
        shell = Repl({**base_env, **(env or {})}, ["--warehouse", str(wh), *args])
        started.append(shell)
        if wait:
            shell.prompt()
        return shell

    return start, started


@pytest.fixture
def repl(shell_env, wh):
    """Start the shell: ``repl(*extra_args, env={...})``; every shell is killed after the test.
    It starts Spark only when a statement needs it (``start_spark = when_needed``), and the
    test is in the pure tier, where no Java is found: a statement that needed Spark would
    fail. Use `spark_repl` for a shell that runs Spark."""
    start, started = _repl_starter({**shell_env, "DORISQL_START_SPARK": "when_needed"}, wh)
    yield start
    for shell in started:
        shell.close()


@pytest.fixture
def spark_repl(shell_env, spark_process_env, wh):
    """`repl` as a user gets it by default: Spark starts in the background at the prompt (the
    test is in the spark tier)."""
    start, started = _repl_starter({**spark_process_env, **shell_env}, wh)
    yield start
    for shell in started:
        shell.close()
