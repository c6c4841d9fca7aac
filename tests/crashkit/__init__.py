"""The kill-at-a-step harness of the crash tests (one for all of them): a ``dorisql`` process that
SIGKILLs itself at an exact function boundary, or tells the test when it reaches one.

The hook is this folder's ``sitecustomize.py``, put on the PYTHONPATH of the process under test
only (`hook_env`), so production code carries none. `killed_dorisql` runs a statement in such a
process and insists that it died there: a renamed step cannot silently test nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

DORISQL = str(Path(sys.executable).with_name("dorisql"))

#: The folder of ``sitecustomize.py`` (the hook), for a process's PYTHONPATH.
SITE = Path(__file__).parent


def hook_env(
    *, kill_at: str | None = None, notify_at: str | None = None, notify_file: Path | str | None = None
) -> dict[str, str]:
    """The variables that put the hook in a process: SIGKILL at `kill_at`, and/or append the
    process's id to `notify_file` at `notify_at` (steps as sitecustomize.py describes them).
    Merge them into the process's environment; PYTHONPATH keeps this process's own."""
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH")) if p)}
    if kill_at:
        env["DORISQL_TEST_KILL_AT"] = kill_at
    if notify_at:
        if notify_file is None:
            raise ValueError("notify_at needs notify_file")
        env["DORISQL_TEST_NOTIFY_AT"] = notify_at
        env["DORISQL_TEST_NOTIFY_FILE"] = str(notify_file)
    return env


def killed_dorisql(
    warehouse: Path,
    sql: str,
    kill_at: str,
    *,
    args: Sequence[str] = ("--master", "local[1]", "-D", "d"),
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> tuple[str, str]:
    """Run `sql` in a `dorisql` process (on `warehouse`, with `args`) that SIGKILLs itself at
    `kill_at`; insist that it did. Its process group (the JVM it started) is killed after it.
    Returns its (stdout, stderr)."""
    full_env = {**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1", **hook_env(kill_at=kill_at)}
    full_env.pop("DORISQL_CONFIG", None)
    proc = subprocess.Popen(
        [DORISQL, "--warehouse", str(warehouse), *args, "-e", sql],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # a JVM the killed process started
        except ProcessLookupError:
            pass
        if proc.poll() is None:
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, (
        f"never killed at {kill_at}: exit {proc.returncode}\nstdout: {out}\nstderr: {err[-3000:]}"
    )
    return out, err
