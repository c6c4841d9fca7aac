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


@pytest.fixture
def repl(shell_env, spark_process_env, wh):
    """Start the shell: ``repl(*extra_args, env={...})``; every shell is killed after the test.
    The shell starts Spark in the background at its prompt: these tests are in the spark tier."""
    started: list[Repl] = []

    def start(*args: str, env: dict[str, str] | None = None, wait: bool = True) -> Repl:
        shell = Repl({**spark_process_env, **shell_env, **(env or {})}, ["--warehouse", str(wh), *args])
        started.append(shell)
        if wait:
            shell.prompt()
        return shell

    yield start
    for shell in started:
        shell.close()
