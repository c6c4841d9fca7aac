"""Short-circuit point queries: which SELECTs are answered without a Spark job (pure).

Doris answers a query whose WHERE fixes every key column of a UNIQUE table with equalities
without its MPP planner (``SHORT-CIRCUIT`` in EXPLAIN; the session variable
``enable_short_circuit_query``, on by default). dorisql does the same, and on DUPLICATE
tables whose HASH distribution columns are all fixed (the answer: every matching row): the
tablets come from the key values (the partition and bucket pruning every scan uses,
dorisql.query.pruning), and dorisql.tablets.point_read reads their files with pyarrow.

`point_query` decides; anything it does not take falls back to the Spark path silently. It
takes only: one table of the catalog (no view, join, subquery, CTE, PARTITION/TABLET clause or
system table) read by ``SELECT <columns> FROM t WHERE c = literal AND ...``, the items plain
columns (aliased or not) and ``*``, each equality on a column of a scalar type with a literal of
that type's own kind (so that Python compares exactly as Spark does: no implicit cast), no
GROUP BY, HAVING, ORDER BY, DISTINCT or window; LIMIT n >= 1 on a UNIQUE table only (its answer
is one row at most). AGGREGATE tables, RANDOM distribution and tables with columns of other
types than the scalar ones fall back.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from dorisql import ast
from dorisql.catalog.model import TableMeta, ViewMeta
from dorisql.errors import DorisqlError
from dorisql.query.pruning import prune, split_conjuncts
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.syntax.dialect import parse_query
from dorisql.tablets.point_read import Fallback, point_rows
from dorisql.types import INT_RANGES, LARGEINT_STORAGE_MAX, LARGEINT_STORAGE_MIN, canonical, spark_type

__all__ = ["PointQuery", "point_query", "plan", "answer", "enabled", "explain_lines", "MAX_TABLETS", "column_type_name"]

#: The most tablets (partition, bucket) a short-circuit query reads: a DUPLICATE table whose
#: partition the key does not fix reads one bucket of each partition; beyond this Spark's
#: parallel scan is the better deal.
MAX_TABLETS = 16

#: Doris types the short path reads and shows exactly as the Spark path (Python values of the
#: same kind, rendered by dorisql.result the same way).
_SCALARS = frozenset(
    "BOOLEAN TINYINT SMALLINT INT BIGINT LARGEINT FLOAT DOUBLE DECIMAL DATE DATETIME CHAR VARCHAR STRING".split()
)
#: Key types an equality may fix (FLOAT/DOUBLE never are keys in Doris).
_INTEGERS = frozenset("TINYINT SMALLINT INT BIGINT".split())
_STRINGS = frozenset("CHAR VARCHAR STRING".split())
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?\Z")
#: Select arguments that may be set (anything else: GROUP BY, ORDER BY, joins, ... falls back).
_SELECT_ARGS = frozenset({"expressions", "from_", "where", "limit", "hint", "kind"})
_TABLE_ARGS = frozenset({"this", "db", "alias"})


@dataclass(frozen=True)
class PointQuery:
    """A SELECT the short path answers: what to read and what to return."""

    meta: TableMeta
    #: The partitions (names) and per partition the buckets the key values fall in.
    partitions: tuple[str, ...]
    buckets: Mapping[str, frozenset[int]]
    #: Every condition of the WHERE: (declared column name, value), the value typed as the
    #: column's Python values are (int, Decimal, str, date, datetime, bool).
    equalities: tuple[tuple[str, Any], ...]
    #: The result columns: (header, declared column name).
    output: tuple[tuple[str, str], ...]

    @property
    def tablets(self) -> int:
        return sum(len(self.buckets.get(p, ())) for p in self.partitions)


def enabled(variables: Mapping[str, str]) -> bool:
    """Doris's ``enable_short_circuit_query`` (true by default); hidden columns shown
    (``show_hidden_columns``) leave the query to the Spark path."""
    on = variables.get("enable_short_circuit_query", "true").strip().lower() not in ("false", "0", "off")
    return on and variables.get("show_hidden_columns", "false").strip().lower() not in ("true", "1", "on")


def column_type_name(column: ast.ColumnDef) -> str:
    """The Spark type name (``DataType.simpleString()``) the Spark path reports for a column."""
    return spark_type(column.type).lower()


def point_query(
    sql: str,
    resolve_table: Callable[[ast.TableName], TableMeta | None],
    resolve_view: Callable[[ast.TableName], ViewMeta | None] | None,
    current_db: str | None,
    tree: exp.Expr | None = None,
) -> PointQuery | None:
    """The point query `sql` is, or None when the Spark path must answer it (never raises
    for a query it does not take: the Spark path then reports what is wrong with it).
    `tree`: `sql` as the parser read it already (only read here, never changed)."""
    if tree is None:
        try:
            tree = parse_query(sql)
        except DorisqlError:
            return None
    if not isinstance(tree, exp.Select) or any(v for k, v in tree.args.items() if k not in _SELECT_ARGS):
        return None
    if tree.args.get("kind"):
        return None
    source = tree.args["from_"].this if tree.args.get("from_") else None
    if not isinstance(source, exp.Table) or any(v for k, v in source.args.items() if k not in _TABLE_ARGS):
        return None
    if not isinstance(source.this, exp.Identifier) or (source.alias and source.args["alias"].columns):
        return None
    db = source.db or current_db
    if not db or db.lower() in ("information_schema", "mysql"):
        return None
    name = ast.TableName(source.name, db)
    try:
        if resolve_view is not None and resolve_view(name) is not None:
            return None
        meta = resolve_table(name)
    except DorisqlError:
        return None
    if meta is None:
        return None
    # an aliased table is named by its alias only (Spark refuses its own name then)
    return _plan(tree, meta, {(source.alias or source.name).lower()})


def _plan(tree: exp.Select, meta: TableMeta, qualifiers: set[str]) -> PointQuery | None:
    definition = meta.definition
    model = definition.keys.type.upper() if definition.keys is not None else "DUPLICATE"
    columns = {c.name.lower(): c for c in definition.columns}
    if model not in ("UNIQUE", "DUPLICATE") or any(canonical(c.type).name not in _SCALARS for c in columns.values()):
        return None
    dist = definition.distribution
    if dist is None or dist.kind.upper() != "HASH" or not dist.columns:
        return None
    output = _output(tree, definition, columns, qualifiers)
    if output is None or not _trivial_limit(tree, model):
        return None
    where = tree.args.get("where")
    if where is None:
        return None
    equalities: dict[str, Any] = {}
    for conjunct in split_conjuncts(where.this):
        pair = _equality(conjunct, columns, qualifiers)
        if pair is None:
            return None
        column, value = pair
        if column in equalities and equalities[column] != value:
            return None  # k = 1 AND k = 2: no row; Spark says so
        equalities[column] = value
    fixed = {c.lower() for c in equalities}
    needed = definition.keys.columns if model == "UNIQUE" and definition.keys is not None else dist.columns
    if not all(c.lower() in fixed for c in needed):
        return None
    try:
        pruned = prune(meta, where.this, qualifiers=qualifiers)
    except DorisqlError:
        return None
    if pruned.buckets is None:
        return None
    point = PointQuery(
        meta=meta,
        partitions=pruned.partitions,
        buckets=pruned.buckets,
        equalities=tuple(equalities.items()),
        output=tuple(output),
    )
    return point if point.tablets <= MAX_TABLETS else None


def _output(tree: exp.Select, definition: ast.CreateTable, columns, qualifiers) -> list[tuple[str, str]] | None:
    out: list[tuple[str, str]] = []
    for item in tree.expressions:
        if isinstance(item, exp.Star):
            out += [(c.name, c.name) for c in definition.columns]
            continue
        target, header = (item.this, item.alias) if isinstance(item, exp.Alias) else (item, None)
        if isinstance(target, exp.Column) and isinstance(target.this, exp.Star) and header is None:
            if not _qualified_here(target, qualifiers):
                return None
            out += [(c.name, c.name) for c in definition.columns]
            continue
        column = _column(target, columns, qualifiers)
        if column is None:
            return None
        # an unaliased column is headed by its name as written, as Spark names it
        out.append((header if header else target.name, column.name))
    return out


def _trivial_limit(tree: exp.Select, model: str) -> bool:
    limit = tree.args.get("limit")
    if limit is None:
        return True
    if model != "UNIQUE" or not isinstance(limit, exp.Limit) or limit.args.get("offset"):
        return False
    value = limit.expression
    return isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit() and int(value.this) >= 1


def _qualified_here(column: exp.Column, qualifiers: set[str]) -> bool:
    parts = [p.name for p in column.parts[:-1]]
    return not parts or (len(parts) == 1 and parts[0].lower() in qualifiers)


def _column(node: exp.Expr, columns, qualifiers) -> ast.ColumnDef | None:
    if not isinstance(node, exp.Column) or not isinstance(node.this, exp.Identifier):
        return None
    if not _qualified_here(node, qualifiers):
        return None
    return columns.get(node.name.lower())


def _equality(node: exp.Expr, columns, qualifiers) -> tuple[str, Any] | None:
    if not isinstance(node, exp.EQ):
        return None
    left, right = node.this, node.expression
    column = _column(left, columns, qualifiers)
    if column is None:
        left, right = right, left
        column = _column(left, columns, qualifiers)
    if column is None:
        return None
    value = _typed(right, column.type)
    return None if value is None else (column.name, value)


def _typed(node: exp.Expr, doris_type: ast.DataType) -> Any:
    """A literal as a value of the column's type, when Spark compares the two exactly as
    Python does; None otherwise (a NULL, a cast the comparison would need, an expression)."""
    name = canonical(doris_type).name
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if isinstance(literal, exp.Boolean):
        return bool(literal.this) if name == "BOOLEAN" and not negative else None
    if not isinstance(literal, exp.Literal):
        return None
    text = str(literal.this)
    if literal.is_string:
        if negative:
            return None
        if name in _STRINGS:
            return text
        if name == "DATE" and _DATE.match(text):
            try:
                return dt.date.fromisoformat(text)
            except ValueError:
                return None
        if name == "DATETIME" and _DATETIME.match(text):
            try:
                return dt.datetime.fromisoformat(text)
            except ValueError:
                return None
        return None
    try:
        number = decimal.Decimal(("-" if negative else "") + text)
    except decimal.InvalidOperation:
        return None
    if not number.is_finite():
        return None
    if name in _INTEGERS or name == "LARGEINT":
        if "." in text or "e" in text.lower():
            return None  # 5.0 = an INT column: a decimal comparison in Spark
        low, high = INT_RANGES[name] if name in _INTEGERS else (LARGEINT_STORAGE_MIN, LARGEINT_STORAGE_MAX)
        value = int(number)
        return value if low <= value <= high else None
    if name == "DECIMAL":
        if "e" in text.lower():
            return None
        precision, scale = canonical(doris_type).params[:2]
        # a literal with more digits than the column holds never matches a stored value
        exponent = number.as_tuple().exponent
        if isinstance(exponent, int) and -exponent > scale:
            return None
        if abs(number) >= decimal.Decimal(10) ** (precision - scale):
            return None
        return number
    return None


def explain_lines(point: PointQuery) -> list[str]:
    """EXPLAIN of a point query: its one scan node, marked ``SHORT-CIRCUIT`` at its end as
    Doris's OlapScanNode marks a point query, and no Spark plan (none runs)."""
    meta = point.meta
    by_name = {p.name: p for p in meta.partitions}
    in_parts = sum(by_name[n].buckets for n in point.partitions if n in by_name)
    buckets = ", ".join(f"{p}=[{','.join(str(b) for b in sorted(point.buckets[p]))}]" for p in point.partitions)
    lines = ["PLAN FRAGMENT 0", "  OUTPUT EXPRS:", *(f"    {header}" for header, _ in point.output), ""]
    lines += [
        "  0:VOlapScanNode",
        f"     TABLE: {meta.db}.{meta.name}({meta.name}), PREAGGREGATION: ON",
        f"     partitions={len(point.partitions)}/{len(meta.partitions)}"
        + (f" ({','.join(point.partitions)})" if point.partitions else ""),
        f"     tablets={point.tablets}/{in_parts}",
    ]
    if buckets:
        lines.append(f"     buckets: {buckets}")
    lines.append("     SHORT-CIRCUIT")
    return lines


# --------------------------------------------------------------------------- answering


def answer(session: Session, query: ast.Query) -> Result | None:
    """The result of `query` through the short path, or None: the Spark path answers."""
    point = plan(session, query)
    if point is None:
        return None
    columns = [c for _, c in point.output]
    try:
        rows = point_rows(session, point.meta, dict(point.buckets), point.equalities, columns, session.now())
    except Fallback:
        return None
    result = Result.table([header for header, _ in point.output], rows)
    by_name = {c.name: c for c in point.meta.definition.columns}
    result.column_types = [column_type_name(by_name[c]) for c in columns]
    return result


def plan(session: Session, query: ast.Query) -> PointQuery | None:
    """`point_query` for a session's statement (None when its variables turn the path off)."""
    if len(query.tables) != 1 or not enabled(session.session_vars):
        return None

    def resolve(name: ast.TableName) -> TableMeta | None:
        return session.catalog.load_table(name.db or "", name.name)

    # Views share the tables' names: a view's name is no table (load_table refuses it), so no
    # view lookup is needed here.
    # the parser's tree of this very text: parsing it again cost half a point query's CPU
    parsed = query.parsed
    tree = parsed[1] if parsed is not None and parsed[0] == query.sql else None
    return point_query(query.sql, resolve, None, session.current_db, tree if isinstance(tree, exp.Expr) else None)
