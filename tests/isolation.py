"""The environment of a ``dorisql`` process under test: none of the user's own config, history
or warehouse (HOME and the XDG folders are fresh folders below `home`; the cache folder is the
test run's)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def dorisql_env(home: Path) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DORISQL_", "XDG_"))}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            # caches are not the user's state: the run's shared one (tests/conftest.py)
            "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME") or str(home / ".cache"),
            "PYSPARK_PYTHON": sys.executable,
        }
    )
    return env


def require_tool(found, what: str, install: str):
    """`found` (a tool's path), else: fail in CI (.ci/run installs `install` from Debian's
    packages), skip elsewhere with the command that installs it."""
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{what} is part of CI (.ci/run installs {install}) but is not found")
    pytest.skip(f"no {what}: apt-get install {install}")
