"""What the query planner reads a query's tables through: `QuerySources`.

The planner (:mod:`dorisql.query.planner`) knows SQL trees, pruning and joins; it reaches the
catalog, the stored rows and the session only through one `QuerySources`, which the statement
layer builds from a session (dorisql.statements.load.insert.query_sources) and tests build
from their own small tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from dorisql import ast
from dorisql.catalog.model import TableMeta, ViewMeta
from dorisql.query.colocate_join import ColocationContext
from dorisql.tablets.read import TableScan

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["QuerySources", "ResolveTable", "ResolveView", "Scan", "ReadTableFunction", "SystemTable", "Prepare", "Pin"]

#: Resolve a table reference (db already filled in) to its metadata. May raise UnknownTableError
#: itself or return None (then the planner raises Doris's message).
ResolveTable = Callable[[ast.TableName], "TableMeta | None"]
#: The view a table reference (db filled in) names, or None when it names no view.
ResolveView = Callable[[ast.TableName], "ViewMeta | None"]
#: Read the stored rows of a table: the given partitions (names, table order; may be empty: then
#: no rows, with the table's columns) and, per partition, the buckets (None: every bucket).
Scan = Callable[[TableMeta, Sequence[str], "Mapping[str, set[int]] | None"], TableScan]
#: Read a table function in FROM: its name (``local``, ``s3``, ``hdfs``) and its properties
#: (lower-case keys) to a DataFrame.
ReadTableFunction = Callable[[str, dict], "DataFrame"]
#: Read <db>.<name> of a system database (information_schema, mysql) to a DataFrame (raises
#: UnknownTableError for other names).
SystemTable = Callable[[str, str], "DataFrame"]
#: A block around the scans of a query's tables (`QuerySources.pin`).
Pin = Callable[[Sequence[TableMeta]], "AbstractContextManager[None]"]
#: Rewrite a parsed query in place before it is planned (the session's ``@@x`` and DATABASE()).
Prepare = Callable[[exp.Expr], object]


@dataclass(frozen=True)
class QuerySources:
    """Everything a query reads besides its own text, and the names it resolves against."""

    #: The catalog: a table reference to its metadata.
    resolve_table: ResolveTable
    #: The stored rows of a table, pruned (dorisql.tablets.read.scan_table).
    scan: Scan
    #: The database unqualified names are in (None: none selected).
    current_db: str | None
    #: ``local()``, ``s3()``, ``hdfs()`` in FROM (None: refused).
    read_table_function: ReadTableFunction | None = None
    #: Colocation groups and the FE switch (None: every join is Spark's, unreported).
    colocation: ColocationContext | None = None
    #: information_schema's and mysql's tables (None: they are ordinary database names).
    system_table: SystemTable | None = None
    #: Applied to the parsed query first (None: nothing to substitute).
    prepare: Prepare | None = None
    #: Views, expanded in the query as derived tables (None: no views).
    resolve_view: ResolveView | None = None
    #: A block in which the scans of the given tables see one moment of the explicit
    #: transactions (dorisql.tablets.transactions.consistent_reads; None: no such care).
    pin: Pin | None = None
