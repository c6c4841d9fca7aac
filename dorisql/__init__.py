"""dorisql: Apache Doris's table language on a Spark + Delta Lake lakehouse.

`parse(sql)` splits a script into statements, parses each and runs the checks that need no
catalog (a list of `dorisql.ast.Statement`; raises `dorisql.errors.SqlSyntaxError`,
`AnalysisError` or `NotSupportedError`). `to_sql(statement)` is the canonical Doris SQL of a
statement (what SHOW CREATE TABLE prints).
"""

from __future__ import annotations

__version__ = "0.1.0"

from dorisql.syntax import parse  # noqa: E402  (after __version__, which modules below read)
from dorisql.syntax.generator import to_sql  # noqa: E402

__all__ = ["__version__", "parse", "to_sql"]
