"""Fixtures running the real ``dorisql`` command: isolated HOME/XDG folders, a temporary warehouse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shellkit import DORISQL, Repl


@pytest.fixture
def shell_env(tmp_path) -> dict[str, str]:
    """The environment for a dorisql process: nothing from the user's own config or history."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DORISQL_", "XDG_")) and k not in ("NO_COLOR",)}
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "TERM": "xterm-256color",
        "COLUMNS": "120",
        "LINES": "40",
        "PYSPARK_PYTHON": sys.executable,
    })
    home.mkdir()
    return env


@pytest.fixture
def wh(tmp_path) -> Path:
    path = tmp_path / "wh"
    path.mkdir()
    return path


@pytest.fixture
def dorisql(shell_env, wh, tmp_path):
    """Run ``dorisql --warehouse <tmp> ARGS`` to completion (stdin not a terminal)."""

    def run(*args: str, input: str | None = "", warehouse: bool = True, timeout: float = 120,
            cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        argv = [DORISQL, *(["--warehouse", str(wh)] if warehouse else []), *args]
        return subprocess.run(argv, input=input, capture_output=True, text=True, env={**shell_env, **(env or {})},
                              timeout=timeout, cwd=cwd or tmp_path)

    return run


@pytest.fixture
def repl(shell_env, wh):
    """Start the shell: ``repl(*extra_args, env={...})``; every shell is killed after the test."""
    started: list[Repl] = []

    def start(*args: str, env: dict[str, str] | None = None, wait: bool = True) -> Repl:
        shell = Repl({**shell_env, **(env or {})}, ["--warehouse", str(wh), *args])
        started.append(shell)
        if wait:
            shell.prompt()
        return shell

    yield start
    for shell in started:
        shell.close()
