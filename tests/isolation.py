"""The environment of a ``dorisql`` process under test: none of the user's own config, history
or warehouse (HOME and the XDG folders are fresh folders below `home`; the cache folder is the
test run's)."""

from __future__ import annotations

import os
import shutil
import subprocess
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


def require_module(name: str):
    """The module `name` of the ``clients`` extra (mysqlclient, pydoris: built on MariaDB's C
    library), else: fail in CI (.ci/run installs the extra), skip elsewhere saying how."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is part of CI (.ci/run installs the clients extra) but cannot be imported")
        pytest.skip(f"no {name}: apt-get install libmariadb-dev pkg-config && pip install -e '.[test,clients]'")


def require_tool(found, what: str, install: str):
    """`found` (a tool's path), else: fail in CI (.ci/run installs `install` from Debian's
    packages), skip elsewhere with the command that installs it."""
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{what} is part of CI (.ci/run installs {install}) but is not found")
    pytest.skip(f"no {what}: apt-get install {install}")


def mount_tmpfs(folder: Path, size: str) -> None:
    """A tmpfs of `size` (``8m``) mounted on `folder` (created), for tests that fill a disk;
    unmount it with `unmount`. Mounting needs root: CI runs as root, so there it fails instead
    of skipping; elsewhere the test is skipped with the reason."""
    folder.mkdir(parents=True, exist_ok=True)
    why = None
    if os.geteuid() != 0:
        why = "mounting a tmpfs needs root"
    elif shutil.which("mount") is None:
        why = "no mount command"
    else:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, text=True
        )
        if done.returncode != 0:
            why = f"mount -t tmpfs failed: {done.stderr.strip()}"
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the disk-full tests are part of CI but cannot mount their tmpfs: {why}")
        pytest.skip(f"cannot make a small disk to fill ({why})")


def unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)
