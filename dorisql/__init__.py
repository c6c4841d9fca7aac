"""dorisql: Apache Doris's table language on a Spark + Delta Lake lakehouse."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "parse", "to_sql"]


def parse(sql: str):
    """Split a script into statements, parse each and run the checks that need no catalog.

    Returns a list of `dorisql.ast.Statement`. Raises `dorisql.errors.SqlSyntaxError`,
    `AnalysisError` or `NotSupportedError`.
    """
    from dorisql.syntax import parse as _parse

    return _parse(sql)


def to_sql(statement) -> str:
    """Canonical Doris SQL for a statement (what SHOW CREATE TABLE prints)."""
    from dorisql.generator import to_sql as _to_sql

    return _to_sql(statement)
