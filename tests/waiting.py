"""Waiting in tests: on a condition, with a deadline, never for a guessed number of seconds."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    predicate: Callable[[], T], timeout: float = 30.0, what: str = "the condition", interval: float = 0.05
) -> T:
    """Call `predicate` until it returns something true, and return that. After `timeout`
    seconds it is called once more; still false: AssertionError saying what was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)  # (the polling interval, not a wait for anything)
    value = predicate()
    if value:
        return value
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
