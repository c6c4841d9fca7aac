"""The current time, injectable everywhere so every seed example can be reproduced."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol


class Clock(Protocol):
    def now(self) -> dt.datetime:
        """The current wall-clock time, naive, in the machine's local time zone."""


class SystemClock:
    def now(self) -> dt.datetime:
        return dt.datetime.now()


@dataclass
class FixedClock:
    """A clock stopped at `at` (SET dorisql_now = '...', scheduler --now, tests)."""

    at: dt.datetime

    def now(self) -> dt.datetime:
        return self.at

    def advance(self, **delta) -> None:
        self.at = self.at + dt.timedelta(**delta)


def parse_now(text: str) -> dt.datetime:
    """Parse a 'YYYY-MM-DD[ HH:MM:SS]' timestamp for dorisql_now / --now."""
    text = text.strip()
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ValueError(f"invalid time '{text}': expected 'YYYY-MM-DD HH:MM:SS'")
