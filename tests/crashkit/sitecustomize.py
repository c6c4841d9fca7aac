"""Test-only: act at an exact step of this process -- SIGKILL it there (DORISQL_TEST_KILL_AT), or
tell the test that it got there (DORISQL_TEST_NOTIFY_AT).

Python imports ``sitecustomize`` at startup from its path; the tests put this folder on the
PYTHONPATH of the ``dorisql`` process they start (``crashkit.hook_env``), and nowhere else, so
production code carries no hook. The step is a function boundary::

    DORISQL_TEST_KILL_AT=<before|after>:<module>:<qualified name>[#<n>]
    DORISQL_TEST_NOTIFY_AT=<the same>   DORISQL_TEST_NOTIFY_FILE=<path>

e.g. ``after:dorisql.catalog.store:SqliteCatalog.create_table`` kills the process as soon as the
first call returns (``#2``: the second call). A notification appends this process's id and a
newline to DORISQL_TEST_NOTIFY_FILE (created), then the call goes on. Patch the name where
callers look it up: a class attribute, or a module attribute that callers reach as
``module.name`` or a module global. The variables are removed from the environment once read, so
the JVM and Spark's Python workers started later do not inherit them.
"""

from __future__ import annotations

import functools
import importlib
import os
import signal
from collections.abc import Callable


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _notifier(path: str) -> Callable[[], None]:
    def notify() -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, f"{os.getpid()}\n".encode())
        finally:
            os.close(fd)

    return notify


def install(spec: str, action: Callable[[], None] = _kill, variable: str = "DORISQL_TEST_KILL_AT") -> None:
    """Run `action` at the step `spec` names (see the module's docstring)."""
    when, module_name, rest = spec.split(":", 2)
    qualname, _, nth = rest.partition("#")
    if when not in ("before", "after"):
        raise ValueError(f"{variable}: expected before|after, got {when!r}")
    target = int(nth or 1)
    owner = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    if isinstance(owner, type):  # the class's own or an inherited method, as the class has it
        original = next(vars(k)[name] for k in owner.__mro__ if name in vars(k))
    else:
        original = getattr(owner, name)
    wrap = (
        classmethod
        if isinstance(original, classmethod)
        else staticmethod
        if isinstance(original, staticmethod)
        else None
    )
    function = original.__func__ if wrap else original
    calls = [0]

    @functools.wraps(function)
    def hooked(*args, **kwargs):
        calls[0] += 1
        if when == "before" and calls[0] == target:
            action()
        result = function(*args, **kwargs)
        if when == "after" and calls[0] == target:
            action()
        return result

    setattr(owner, name, wrap(hooked) if wrap else hooked)


_KILL = os.environ.pop("DORISQL_TEST_KILL_AT", "")
_NOTIFY = os.environ.pop("DORISQL_TEST_NOTIFY_AT", "")
_NOTIFY_FILE = os.environ.pop("DORISQL_TEST_NOTIFY_FILE", "")
if _NOTIFY:
    if not _NOTIFY_FILE:
        raise ValueError("DORISQL_TEST_NOTIFY_AT needs DORISQL_TEST_NOTIFY_FILE")
    install(_NOTIFY, _notifier(_NOTIFY_FILE), "DORISQL_TEST_NOTIFY_AT")
if _KILL:
    install(_KILL)
