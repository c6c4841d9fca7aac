"""The engine: the one door the front ends (shell, scripts, server) run statements through.

`Engine` is a `dorisql.session.session.Session` that can execute: it parses (cancellably), sends each
statement through `dorisql.statements.dispatch` and keeps the notes SHOW WARNINGS reports.
"""

from __future__ import annotations

from typing import Any

from dorisql import ast
from dorisql.errors import DorisqlError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.statements import dispatch
from dorisql.statements.show.information_schema import INFORMATION_SCHEMA, MYSQL_DB, MYSQL_TABLES, SCHEMA_TABLES
from dorisql.tablets import transactions

__all__ = ["Engine"]


class Engine(Session):
    """Executes parsed statements against one warehouse (catalog + Delta tables + Spark)."""

    def execute_sql(self, sql: str) -> list[Result]:
        """Parse and run every statement of a script, stopping at the first error."""
        return [self.execute(statement) for statement in self.parse(sql)]

    def execute(self, statement: ast.Statement) -> Result:
        """Run one statement. A failure raises a DorisqlError and leaves every table as it was.

        Any other exception is translated into one (dorisql.session.failures); its detail goes
        to the log file, never to the terminal.
        """
        if isinstance(statement, ast.ShowWarnings):  # they show the previous statement's notes
            return dispatch.handler_of(statement)(self, statement)
        self.last_notes = []
        # Every Delta commit this process makes finishes a committed transaction of its table first.
        transactions.guard_commits(self.catalog, self.warehouse)
        try:
            result = dispatch.run(self, statement)
        except DorisqlError as err:
            self.last_notes = [("Error", err.code, str(err))]
            raise
        self.last_notes = [("Warning", 1105, text) for text in result.warnings]
        return result

    def completion_names(self) -> dict[str, Any]:
        """Names for the shell's completer (catalog only; never touches Spark)."""
        names: dict[str, Any] = {"databases": [], "tables": {}, "columns": {}, "partitions": {}}
        for db, tables in ((INFORMATION_SCHEMA, SCHEMA_TABLES), (MYSQL_DB, MYSQL_TABLES)):
            names["tables"][db] = sorted(tables)
            names["columns"].update({name: [c for c, _ in columns] for name, columns in tables.items()})
        try:
            names["databases"] = sorted([INFORMATION_SCHEMA, MYSQL_DB, *self.catalog.list_databases()])
            for meta in self.catalog.list_table_metas():
                names["tables"].setdefault(meta.db, []).append(meta.name)
                names["columns"][meta.name] = [c.name for c in meta.definition.columns]
                names["partitions"][meta.name] = [p.name for p in meta.partitions]
        except DorisqlError:
            pass
        return names
