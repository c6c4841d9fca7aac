"""Test-only: SIGKILL this process at an exact step, named by DORISQL_TEST_KILL_AT.

Python imports ``sitecustomize`` at startup from its path; the crash-consistency tests put this
folder on the PYTHONPATH of the ``dorisql`` process they start, and nowhere else, so production
code carries no hook. The step is a function boundary::

    DORISQL_TEST_KILL_AT=<before|after>:<module>:<qualified name>[#<n>]

e.g. ``after:dorisql.catalog.store:SqliteCatalog.create_table`` kills the process as soon as the
first call returns (``#2``: the second call). Patch the name where callers look it up: a class
attribute, or a module attribute that callers reach as ``module.name`` or a module global.
The variable is removed from the environment once read, so the JVM and Spark's Python workers
started later do not inherit it.
"""

from __future__ import annotations

import functools
import importlib
import os
import signal


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def install(spec: str) -> None:
    when, module_name, rest = spec.split(":", 2)
    qualname, _, nth = rest.partition("#")
    if when not in ("before", "after"):
        raise ValueError(f"DORISQL_TEST_KILL_AT: expected before|after, got {when!r}")
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
    def killing(*args, **kwargs):
        calls[0] += 1
        if when == "before" and calls[0] == target:
            _kill()
        result = function(*args, **kwargs)
        if when == "after" and calls[0] == target:
            _kill()
        return result

    setattr(owner, name, wrap(killing) if wrap else killing)


_SPEC = os.environ.pop("DORISQL_TEST_KILL_AT", "")
if _SPEC:
    install(_SPEC)
