"""What executing one statement returns: rows and column names, or a status message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    """The outcome of one statement.

    A query-like statement (SELECT, SHOW, DESC, EXPLAIN) has `columns` and `rows`; a command
    (DDL, INSERT) has no columns and reports `affected_rows` (MySQL's "Query OK, N rows
    affected"). `message` carries extra notes (e.g. rows filtered in non-strict mode) and
    `warnings` anything the user should see but that did not fail the statement.
    """

    columns: Sequence[str] | None = None
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    affected_rows: int = 0
    message: str | None = None
    warnings: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    @property
    def is_query(self) -> bool:
        return self.columns is not None

    @classmethod
    def ok(cls, affected_rows: int = 0, message: str | None = None) -> Result:
        return cls(affected_rows=affected_rows, message=message)

    @classmethod
    def table(cls, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> Result:
        return cls(columns=list(columns), rows=list(rows))
