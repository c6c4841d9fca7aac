"""The language front end: Doris SQL text -> typed statements (dorisql.ast).

Public API:
- parse(sql) -> list[Statement]: a whole script, with positions, checked by dorisql.analysis.checks.
- parse_one(sql) -> Statement: exactly one statement.
- split_statements(sql, delimiter=";") -> [(text, line, column)]
- is_complete(text, delimiter=";") -> bool: does a shell buffer end with a complete statement?
- shift_error(err, line, column): move an error from parse_one(<one statement of a script>)
  to script coordinates (the statement started at line, column).
"""

from dorisql.syntax.diagnose import shift as shift_error
from dorisql.syntax.parser import get_parser, parse, parse_one, parse_statement
from dorisql.syntax.split import is_complete, split_statements

__all__ = ["get_parser", "is_complete", "parse", "parse_one", "parse_statement", "shift_error", "split_statements"]
