"""Stopping dorisql's own long loops when the statement is cancelled (KILL QUERY, Ctrl-C,
shutdown).

Spark jobs are cancelled through their job group; this is for the work dorisql does in Python
before Spark sees anything: the parse of a statement (every few thousand tokens), naming and
translating a query's items, building an INSERT's VALUES rows. Such work is linear in the
statement's size, but a 16 MiB statement still takes seconds to minutes of it, and a cancel
must stop it too.

The code that runs a statement says how to tell that it was cancelled (`cancellable`, given a
callable that raises dorisql's CancelledError; the engine passes its own check); the loops call
`checkpoint()`, which does nothing outside such a block. The check is per thread and per task
(a ContextVar): one connection's cancel never stops another's statement. The module imports
nothing of the engine or Spark: parsing and translation stay pure.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import TypeVar

__all__ = ["cancellable", "checkpoint", "checked", "current_check", "CHECK_EVERY"]

T = TypeVar("T")

#: How many items (tokens, rows, nodes) a loop handles between two checks: a check is one
#: function call, so this keeps it far below a per-item cost, and a cancel still stops the
#: loop within milliseconds.
CHECK_EVERY = 2048

_CHECK: ContextVar[Callable[[], None] | None] = ContextVar("dorisql_cancel_check", default=None)


@contextlib.contextmanager
def cancellable(check: Callable[[], None]) -> Iterator[None]:
    """Within the block, `checkpoint()` calls `check` (which raises to stop the work)."""
    token = _CHECK.set(check)
    try:
        yield
    finally:
        _CHECK.reset(token)


def current_check() -> Callable[[], None] | None:
    """The block's check, or None outside `cancellable` (for a hot loop that counts itself)."""
    return _CHECK.get()


def checkpoint() -> None:
    """Raise (through the block's check) if the running statement was cancelled."""
    check = _CHECK.get()
    if check is not None:
        check()


def checked(items: Iterable[T], every: int = CHECK_EVERY) -> Iterator[T]:
    """`items`, with a `checkpoint()` before the first and after every `every` of them."""
    check = _CHECK.get()
    if check is None:
        yield from items
        return
    check()
    for n, item in enumerate(items, start=1):
        if n % every == 0:
            check()
        yield item
