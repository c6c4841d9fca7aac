"""Partition and bucket pruning for one table reference (pure: no Spark).

Input: a table's :class:`~dorisql.catalog.model.TableMeta` and the predicates that constrain the
rows read from it (sqlglot expressions: a WHERE condition, or a list of conjuncts). Output: the
partitions that may hold matching rows, and per partition the buckets that may hold them.

The analysis is conservative: a predicate it does not understand keeps everything. Understood
atoms, on a column of the table compared with a literal:

- ``col = v``, ``col <=> v``, ``col IN (v, ...)``, ``col < v`` (``<=``, ``>``, ``>=``, operands
  either way round), ``col BETWEEN a AND b``, ``col IS [NOT] NULL``;
- combined with AND and OR (an OR is understood only if all its branches are).

Partitions: RANGE partitions are ``[lower, upper)`` (multi-column: lexicographic, pruned on the
first column and, when every partition column is pinned to a few values, on the exact tuples);
a RANGE partition whose lower bound is the type's minimum also holds NULLs (Doris puts NULL in the
lowest LESS THAN partition). LIST partitions hold exactly their value tuples (NULL entries too).

Buckets (HASH distribution only): when every hash column is pinned to a finite set of values by
equality / IN / IS NULL, the buckets are ``bucket_of(values, spark_types, partition.buckets)``
for each combination, per partition (partitions may have different bucket counts).
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from dorisql import types as doris_types
from dorisql.ast import ColumnDef, DataType
from dorisql.bucketing.hashing import bucket_of
from dorisql.catalog.model import PartitionMeta, TableMeta
from dorisql.errors import AnalysisError, DorisqlError
from dorisql.partitioning import keys as K

__all__ = [
    "PruneResult",
    "prune",
    "prune_partitions",
    "prune_buckets",
    "select_partitions",
    "split_conjuncts",
]

#: More value combinations than this on the hash columns: give up bucket pruning (read all).
MAX_BUCKET_COMBINATIONS = 4096
#: More exact tuples than this on multi-column partition keys: use the first column only.
MAX_PARTITION_POINTS = 4096


@dataclass(frozen=True)
class PruneResult:
    """What to read of one table.

    partitions: names of the partitions that may hold matching rows, in table order.
    buckets: per kept partition, the buckets that may hold matching rows; None = all buckets of
    every kept partition (no bucket pruning).
    """

    partitions: tuple[str, ...]
    buckets: dict[str, frozenset[int]] | None = None

    def bucket_count(self, meta: TableMeta) -> int:
        """How many tablets (partition, bucket) are read."""
        total = 0
        for name in self.partitions:
            p = meta.partition(name)
            if p is None:
                continue
            total += len(self.buckets[name]) if self.buckets is not None else p.buckets
        return total


# --------------------------------------------------------------------------- typed values
#
# Values compare through the partition key model's sort keys (keys.component_sort_key):
#   (0,) NULL < (1,) MIN, the smallest non-null value < (2, v) a value < (3,) MAXVALUE,
# plus _BELOW_NULL, the lower end of a RANGE partition starting at MIN (it holds NULL too).

_BELOW_NULL = (-1,)
_NULL = K.NULL_SORT_KEY
_MIN_VALUE = K.MIN_SORT_KEY
_POS_INF = K.MAX_SORT_KEY
_sort_key = K.component_sort_key


class _Unknown(Exception):
    """A value that cannot be typed safely: the predicate is not understood."""


def _to_typed(value: str | decimal.Decimal, doris_type: DataType) -> Any:
    """A query literal (text or number) as a value comparable with the column's values (the
    partition key model's values: int, Decimal, date, datetime, str, bool), or raise _Unknown.

    A comparison, not a store: `k < 10.5` on an INT column compares with 10.5, and a literal
    out of the column's range still compares. Dates and booleans are read by dorisql.types."""
    name = doris_types.canonical(doris_type).name
    if doris_types.is_integer(doris_type) or doris_types.is_float(doris_type) or name == "DECIMAL":
        if isinstance(value, bool):
            raise _Unknown(value)
        try:
            d = decimal.Decimal(str(value).strip())
        except decimal.InvalidOperation as e:
            raise _Unknown(value) from e
        if not d.is_finite():
            raise _Unknown(value)
        if doris_types.is_integer(doris_type) and d == d.to_integral_value():
            return int(d)
        return d
    if doris_types.is_string_like(doris_type):
        if not isinstance(value, str):
            raise _Unknown(value)
        return value
    if name == "DATE":
        v = _datetime(value)
        if v.time() != dt.time(0):
            raise _Unknown(value)  # a date compared with a time of day: leave it to Spark
        return v.date()
    if name == "DATETIME":
        return _datetime(value)
    if name == "BOOLEAN":
        try:
            return doris_types.parse_bool(str(value))
        except DorisqlError as e:
            raise _Unknown(value) from e
    raise _Unknown(value)


def _datetime(value: Any) -> dt.datetime:
    """A date or datetime literal (dorisql.types' formats, fractions kept), or raise _Unknown."""
    try:
        return doris_types.parse_datetime(str(value), 6)
    except DorisqlError as e:
        raise _Unknown(value) from e


def _typed_partitions(
    meta: TableMeta, cols: Sequence[ColumnDef], partitions: Iterable[PartitionMeta]
) -> dict[str, K.PartitionDef | None]:
    """Partitions of `meta` in the partition key model (keys.RangeDef / ListDef), or None when
    their catalog texts cannot be typed (then they are always kept)."""
    types = tuple(doris_types.canonical(c.type) for c in cols)
    out: dict[str, K.PartitionDef | None] = {}
    for p in partitions:
        try:
            if p.values is not None:
                # the catalog texts exactly as routing reads them (keys.from_meta): a value's
                # spaces are part of it ('a ' is not 'a')
                out[p.name] = K.list_from_texts(p.name, p.values, types)
            elif p.upper is not None:
                lower = K.parse_range_key(p.lower, types) if p.lower else K.min_key(types)
                upper = K.parse_range_key(p.upper, types)
                out[p.name] = K.RangeDef(p.name, K.Range(lower, upper))
            else:
                out[p.name] = None
        except DorisqlError:
            out[p.name] = None
    return out


# --------------------------------------------------------------------------- predicates


@dataclass(frozen=True)
class _Interval:
    lo: tuple
    lo_incl: bool
    hi: tuple
    hi_incl: bool

    def contains(self, key: tuple) -> bool:
        if key < self.lo or (key == self.lo and not self.lo_incl):
            return False
        if key > self.hi or (key == self.hi and not self.hi_incl):
            return False
        return True

    def overlaps(self, other: _Interval) -> bool:
        # self.hi vs other.lo
        if self.hi < other.lo or (self.hi == other.lo and not (self.hi_incl and other.lo_incl)):
            return False
        if other.hi < self.lo or (other.hi == self.lo and not (other.hi_incl and self.lo_incl)):
            return False
        return True


def _discrete(iv: _Interval) -> _Interval:
    """Open ends on discrete values (integers, dates) as closed ones: `> 5` is `>= 6`."""
    lo, lo_incl, hi, hi_incl = iv.lo, iv.lo_incl, iv.hi, iv.hi_incl
    if not lo_incl and len(lo) == 2:
        nxt = _step(lo[1], 1)
        if nxt is not None:
            lo, lo_incl = _sort_key(nxt), True
    if not hi_incl and len(hi) == 2:
        prv = _step(hi[1], -1)
        if prv is not None:
            hi, hi_incl = _sort_key(prv), True
    return _Interval(lo, lo_incl, hi, hi_incl)


def _step(v: Any, n: int) -> Any:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v + n
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        try:
            return v + dt.timedelta(days=n)
        except OverflowError:
            return None
    return None


@dataclass(frozen=True)
class _Atom:
    """`column` lies in the union of `intervals`. `points` is set when the atom pins the column to
    a finite set of typed values (None stands for NULL) — what bucket pruning needs."""

    column: str
    intervals: tuple[_Interval, ...]
    points: frozenset | None = None


@dataclass(frozen=True)
class _And:
    items: tuple


@dataclass(frozen=True)
class _Or:
    items: tuple


_Node = _Atom | _And | _Or


def split_conjuncts(where: exp.Expression | Iterable[exp.Expression] | None) -> list[exp.Expression]:
    """The AND-ed parts of a condition (a Where node, an expression, or a list of either)."""
    if where is None:
        return []
    return _flatten([where] if isinstance(where, exp.Expression) else list(where), exp.And)


def _flatten(items: list[exp.Expression], connective: type[exp.Connector]) -> list[exp.Expression]:
    """The operands of nested `connective`s (And / Or), in order, through WHERE and parentheses."""
    out: list[exp.Expression] = []
    stack: list[Any] = list(reversed(items))
    while stack:
        e = stack.pop()
        if e is None:
            continue
        if isinstance(e, (exp.Where, exp.Paren)):
            stack.append(e.this)
        elif isinstance(e, connective):
            stack.append(e.expression)
            stack.append(e.this)
        else:
            out.append(e)
    return out


class _Analyzer:
    def __init__(self, meta: TableMeta, qualifiers: Iterable[str] | None, allow_is_null: bool):
        self.meta = meta
        self.columns: dict[str, ColumnDef] = {c.name.lower(): c for c in meta.definition.columns}
        self.qualifiers = None if qualifiers is None else {q.lower() for q in qualifiers}
        self.allow_is_null = allow_is_null

    # -- operands
    def column(self, e: exp.Expression) -> ColumnDef | None:
        while isinstance(e, exp.Paren):
            e = e.this
        if not isinstance(e, exp.Column) or not isinstance(e.this, exp.Identifier):
            return None
        qualifier = e.table
        if qualifier and self.qualifiers is not None and qualifier.lower() not in self.qualifiers:
            return None
        return self.columns.get(e.name.lower())

    def literal(self, e: exp.Expression, col: ColumnDef) -> Any:
        """The typed value of a literal operand; raise _Unknown otherwise. None = NULL literal."""
        while isinstance(e, exp.Paren):
            e = e.this
        cast_to: str | None = None
        if isinstance(e, (exp.Cast, exp.TryCast)):
            cast_to = e.to.this.name if isinstance(e.to, exp.DataType) else None
            e = e.this
        if isinstance(e, exp.Null):
            return None
        if isinstance(e, exp.Boolean):
            raw: Any = "true" if e.this else "false"
        elif isinstance(e, exp.Literal):
            if e.is_string:
                raw = e.this
            else:
                raw = decimal.Decimal(e.this) if _looks_numeric(e.this) else e.this
        elif isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
            if not _looks_numeric(e.this.this):
                raise _Unknown(e)
            raw = -decimal.Decimal(e.this.this)
        else:
            raise _Unknown(e)
        if (
            isinstance(raw, str)
            and doris_types.is_string_like(col.type)
            and not (isinstance(e, exp.Literal) and e.is_string)
        ):
            raise _Unknown(e)
        if cast_to is not None:
            raw = _apply_cast(raw, cast_to, col)
        return _to_typed(raw, col.type)

    # -- atoms
    def node(self, e: exp.Expression) -> _Node | None:
        try:
            return self._node(e)
        except _Unknown:
            return None

    def _node(self, e: exp.Expression) -> _Node | None:
        while isinstance(e, exp.Paren):
            e = e.this
        if isinstance(e, exp.And):
            items = [n for n in (self.node(x) for x in split_conjuncts(e)) if n is not None]
            return _And(tuple(items)) if items else None
        if isinstance(e, exp.Or):
            items = []
            for x in _flatten([e], exp.Or):
                n = self.node(x)
                if n is None:
                    return None
                items.append(n)
            return _Or(tuple(items))
        if isinstance(e, (exp.EQ, exp.NullSafeEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)):
            return self._comparison(e)
        if isinstance(e, exp.In):
            col = self.column(e.this)
            if (
                col is None
                or e.args.get("query") is not None
                or e.args.get("unnest") is not None
                or e.args.get("field") is not None
            ):
                return None
            values = [self.literal(x, col) for x in e.expressions]
            values = [v for v in values if v is not None]  # x IN (NULL) never matches
            return _points_atom(col.name, values)
        if isinstance(e, exp.Between):
            col = self.column(e.this)
            if col is None:
                return None
            lo, hi = self.literal(e.args["low"], col), self.literal(e.args["high"], col)
            if lo is None or hi is None:
                return _Atom(col.name, ())
            return _Atom(col.name, (_Interval(_sort_key(lo), True, _sort_key(hi), True),))
        if isinstance(e, exp.Is) and isinstance(e.expression, exp.Null):
            col = self.column(e.this)
            if col is None or not self.allow_is_null:
                return None
            return _Atom(col.name, (_Interval(_NULL, True, _NULL, True),), frozenset([None]))
        if isinstance(e, exp.Not):
            inner = e.this
            while isinstance(inner, exp.Paren):
                inner = inner.this
            if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
                col = self.column(inner.this)
                if col is None:
                    return None
                return _Atom(col.name, (_Interval(_MIN_VALUE, True, _POS_INF, False),))
            return None
        return None

    def _comparison(self, e: exp.Expression) -> _Node | None:
        op: type[exp.Expression] = type(e)
        col = self.column(e.this)
        other = e.expression
        if col is None:
            col = self.column(e.expression)
            other = e.this
            op = _FLIP.get(op, op)
            if col is None:
                return None
        v = self.literal(other, col)
        if v is None:
            if op is exp.NullSafeEQ:
                if not self.allow_is_null:
                    return None
                return _Atom(col.name, (_Interval(_NULL, True, _NULL, True),), frozenset([None]))
            return _Atom(col.name, ())  # comparison with NULL: never true
        key = _sort_key(v)
        if op in (exp.EQ, exp.NullSafeEQ):
            return _points_atom(col.name, [v])
        if op is exp.LT:
            return _Atom(col.name, (_discrete(_Interval(_MIN_VALUE, True, key, False)),))
        if op is exp.LTE:
            return _Atom(col.name, (_Interval(_MIN_VALUE, True, key, True),))
        if op is exp.GT:
            return _Atom(col.name, (_discrete(_Interval(key, False, _POS_INF, False)),))
        if op is exp.GTE:
            return _Atom(col.name, (_Interval(key, True, _POS_INF, False),))
        return None


_FLIP: dict[type[exp.Expression], type[exp.Expression]] = {
    exp.LT: exp.GT,
    exp.GT: exp.LT,
    exp.LTE: exp.GTE,
    exp.GTE: exp.LTE,
}


def _looks_numeric(text: str) -> bool:
    try:
        decimal.Decimal(text)
        return True
    except decimal.InvalidOperation:
        return False


def _apply_cast(raw: Any, cast_to: str, col: ColumnDef) -> Any:
    """CAST(literal AS type) compared with `col`: keep the cases whose meaning is unambiguous."""
    target = cast_to.upper()  # a sqlglot type name
    numeric_column = (
        doris_types.is_integer(col.type)
        or doris_types.is_float(col.type)
        or doris_types.canonical(col.type).name == "DECIMAL"
    )
    if target in ("DATE", "DATE32"):
        return _datetime(raw).date().isoformat()
    if target.startswith("TIMESTAMP") or target.startswith("DATETIME"):
        v = _datetime(raw)
        if doris_types.canonical(col.type).name == "DATE" and v.time() != dt.time(0):
            raise _Unknown(raw)
        return v.isoformat(sep=" ")
    if target in ("VARCHAR", "CHAR", "TEXT", "STRING") and doris_types.is_string_like(col.type):
        return str(raw)
    if target in ("INT", "BIGINT", "SMALLINT", "TINYINT", "DECIMAL", "DOUBLE", "FLOAT") and numeric_column:
        if target in ("INT", "BIGINT", "SMALLINT", "TINYINT"):
            if not _looks_numeric(str(raw)):
                raise _Unknown(raw)
            d = decimal.Decimal(str(raw))
            if d != d.to_integral_value():
                raise _Unknown(raw)  # CAST(1.5 AS INT) truncation: leave it
        return raw
    raise _Unknown(raw)


def _points_atom(column: str, values: Sequence[Any]) -> _Atom:
    keys = sorted({_sort_key(v) for v in values}, key=_safe_sort_key)
    return _Atom(column, tuple(_Interval(k, True, k, True) for k in keys), frozenset(values))


def _safe_sort_key(key: tuple):
    return (key[0], str(type(key[1])) if len(key) > 1 else "", key[1] if len(key) > 1 else 0)


# --------------------------------------------------------------------------- evaluation


def _atom_contains(atom: _Atom, key: tuple | None) -> bool:
    if key is None:
        return True
    try:
        return any(i.contains(key) for i in atom.intervals)
    except TypeError:
        return True  # incomparable types: keep


def _atom_overlaps(atom: _Atom, region: _Interval) -> bool:
    try:
        return any(i.overlaps(region) for i in atom.intervals)
    except TypeError:
        return True


def _eval_point(node: _Node, point: Mapping[str, tuple | None]) -> bool:
    """May `node` hold for a row whose partition columns are `point` (others unknown)?"""
    if isinstance(node, _And):
        return all(_eval_point(n, point) for n in node.items)
    if isinstance(node, _Or):
        return any(_eval_point(n, point) for n in node.items)
    if node.column.lower() not in point:
        return True
    return _atom_contains(node, point[node.column.lower()])


def _eval_region(node: _Node, column: str, region: _Interval) -> bool:
    """May `node` hold for a row whose `column` lies in `region` (other columns unknown)?"""
    if isinstance(node, _And):
        return all(_eval_region(n, column, region) for n in node.items)
    if isinstance(node, _Or):
        return any(_eval_region(n, column, region) for n in node.items)
    if node.column.lower() != column.lower():
        return True
    return _atom_overlaps(node, region)


def _column_def(meta: TableMeta, name: str) -> ColumnDef:
    for c in meta.definition.columns:
        if c.name.lower() == name.lower():
            return c
    raise AnalysisError(f"Unknown partition column '{name}' in table '{meta.name}'")


def _bound_sort_key(v: Any, t: DataType) -> tuple:
    """A bound component's sort key for comparing with query values: MIN as the type's minimum
    value where Python has one (a row holding that value is routed as MIN)."""
    if v is K.MIN:
        m = doris_types.min_value(t)
        return _MIN_VALUE if m is None else _sort_key(m)
    return _sort_key(v)


def _range_may_match(
    nodes: Sequence[_Node], d: K.RangeDef, cols: Sequence[ColumnDef], point_sets: list[list[Any]] | None
) -> bool:
    first = cols[0]
    lower, upper = d.range.lower, d.range.upper
    # a range starting at MIN also holds the rows with NULL in its columns
    lo = _BELOW_NULL if lower.values[0] is K.MIN else _sort_key(lower.values[0])
    hi = _bound_sort_key(upper.values[0], upper.types[0])
    multi = len(cols) > 1
    # Multi-column: rows with first column == upper[0] may still belong (when the rest is below
    # the rest of upper), unless the rest of upper is the minimum (then the range ends before it).
    hi_incl = multi and not all(v is K.MIN for v in upper.values[1:])
    region = _discrete(_Interval(lo, True, hi, hi_incl))
    if not all(_eval_region(n, first.name, region) for n in nodes):
        return False
    if multi and point_sets is not None:
        # every partition column pinned: route the candidate rows as a load would
        try:
            return any(d.range.contains(K.range_key(combo, upper.types)) for combo in itertools.product(*point_sets))
        except TypeError:
            return True
    return True


def _list_may_match(nodes: Sequence[_Node], d: K.ListDef, cols: Sequence[ColumnDef]) -> bool:
    if d.default:
        # Doris never prunes the default partition (PartitionPruner: "we keep default partition
        # because it's too hard to prune it"); it must not: rows stay in it when a value
        # partition for their values is added later.
        return True
    for key in d.keys:
        if any(v is K.MIN for v in key.values):
            continue  # a DATE '0000-01-01' value: no row holds it
        point = {c.name.lower(): _sort_key(v) for c, v in zip(cols, key.values)}
        if all(_eval_point(n, point) for n in nodes):
            return True
    return False


def _pinned_points(nodes: Sequence[_Node]) -> dict[str, frozenset]:
    """Columns pinned to a finite set of values by top-level conjuncts (intersected)."""
    pinned: dict[str, frozenset] = {}
    for n in nodes:
        pts = _node_points(n)
        if pts is None:
            continue
        col, values = pts
        key = col.lower()
        pinned[key] = pinned[key] & values if key in pinned else values
    return pinned


def _node_points(n: _Node) -> tuple[str, frozenset] | None:
    if isinstance(n, _Atom):
        return (n.column, n.points) if n.points is not None else None
    if isinstance(n, _Or):
        col: str | None = None
        acc: frozenset = frozenset()
        for item in n.items:
            pts = _node_points(item)
            if pts is None or (col is not None and pts[0].lower() != col.lower()):
                return None
            col = pts[0]
            acc = acc | pts[1]
        return (col, acc) if col is not None else None
    if isinstance(n, _And):
        best = None
        for item in n.items:
            pts = _node_points(item)
            if pts is not None:
                best = pts if best is None or len(pts[1]) < len(best[1]) else best
        return best
    return None


# --------------------------------------------------------------------------- public API


def select_partitions(meta: TableMeta, names: Sequence[str] | None) -> tuple[str, ...]:
    """The partitions named by `FROM t PARTITION (p1, p2)` (all when `names` is None).

    Unknown names raise AnalysisError; a name matches as `TableMeta.partition` finds it (exactly,
    else the one partition equal ignoring case); table order is kept.
    """
    if names is None:
        return tuple(p.name for p in meta.partitions)
    wanted = set()
    for n in names:
        p = meta.partition(n)
        if p is None:
            raise AnalysisError(f"Unknown partition '{n}' in table '{meta.name}'")
        wanted.add(p.name)
    return tuple(p.name for p in meta.partitions if p.name in wanted)


def _analyse(meta: TableMeta, where, qualifiers, allow_is_null) -> list[_Node]:
    analyzer = _Analyzer(meta, qualifiers, allow_is_null)
    return [n for n in (analyzer.node(c) for c in split_conjuncts(where)) if n is not None]


def prune_partitions(
    meta: TableMeta,
    where=None,
    *,
    selected: Sequence[str] | None = None,
    qualifiers: Iterable[str] | None = None,
    allow_is_null: bool = True,
) -> tuple[str, ...]:
    """Names of the partitions of `meta` that may hold rows satisfying `where`.

    where: a sqlglot condition, a Where node, or a list of conjuncts (None: no condition).
    selected: the PARTITION (...) clause's names, if any (unknown names raise AnalysisError).
    qualifiers: the names a column of this table may be qualified with (its alias, or its name);
    columns qualified otherwise are ignored; None accepts any qualifier.
    allow_is_null: False for a table on the null-supplying side of an outer join, where an
    `IS NULL` in WHERE also matches rows the join invented.
    """
    return _prune_partitions(meta, _analyse(meta, where, qualifiers, allow_is_null), selected)


def _prune_partitions(meta: TableMeta, nodes: list[_Node], selected) -> tuple[str, ...]:
    names = select_partitions(meta, selected)
    part_by = meta.definition.partition
    if part_by is None or not part_by.columns or not nodes:
        return names
    cols = [_column_def(meta, c) for c in part_by.columns]
    point_sets = None
    if part_by.kind.upper() == "RANGE" and len(cols) > 1:
        pinned = _pinned_points(nodes)
        if all(c.name.lower() in pinned for c in cols):
            sets = [sorted(pinned[c.name.lower()], key=_sort_any) for c in cols]
            if math.prod(len(s) for s in sets) <= MAX_PARTITION_POINTS:
                point_sets = sets
    wanted = set(names)  # exact names (select_partitions'): pXXX3 and pxxx3 are two partitions
    typed = _typed_partitions(meta, cols, [p for p in meta.partitions if p.name in wanted])
    kept = []
    for name in names:
        d = typed.get(name)
        if d is None:
            ok = True  # not understood: keep
        elif isinstance(d, K.ListDef):
            ok = _list_may_match(nodes, d, cols)
        else:
            ok = _range_may_match(nodes, d, cols, point_sets)
        if ok:
            kept.append(name)
    return tuple(kept)


def _sort_any(v: Any):
    return (v is not None, str(type(v)), v if v is not None else 0)


def prune_buckets(
    meta: TableMeta,
    where=None,
    partitions: Sequence[str] | None = None,
    *,
    qualifiers: Iterable[str] | None = None,
    allow_is_null: bool = True,
) -> dict[str, frozenset[int]] | None:
    """Per partition, the buckets that may hold rows satisfying `where` (None: all buckets)."""
    nodes = _analyse(meta, where, qualifiers, allow_is_null)
    if partitions is None:
        partitions = [p.name for p in meta.partitions]
    return _prune_buckets(meta, nodes, partitions)


def _prune_buckets(meta: TableMeta, nodes: list[_Node], partitions: Sequence[str]):
    dist = meta.definition.distribution
    if dist is None or dist.kind.upper() != "HASH" or not dist.columns or not nodes:
        return None
    pinned = _pinned_points(nodes)
    cols = [_column_def(meta, c) for c in dist.columns]
    if not all(c.name.lower() in pinned for c in cols):
        return None
    sets = [sorted(pinned[c.name.lower()], key=_sort_any) for c in cols]
    if math.prod(len(s) for s in sets) > MAX_BUCKET_COMBINATIONS:
        return None
    types = [doris_types.spark_type(c.type).lower() for c in cols]
    combos = list(itertools.product(*sets))
    out: dict[str, frozenset[int]] = {}
    try:
        for name in partitions:
            part = meta.partition(name)
            if part is not None:
                out[part.name] = frozenset(bucket_of(list(c), types, part.buckets) for c in combos)
    except (ValueError, TypeError, OverflowError):
        return None
    return out


def prune(
    meta: TableMeta,
    where=None,
    *,
    selected: Sequence[str] | None = None,
    qualifiers: Iterable[str] | None = None,
    allow_is_null: bool = True,
) -> PruneResult:
    """Partitions and buckets of `meta` to read for rows satisfying `where` (see module doc)."""
    nodes = _analyse(meta, where, qualifiers, allow_is_null)
    partitions = _prune_partitions(meta, nodes, selected)
    buckets = _prune_buckets(meta, nodes, partitions)
    return PruneResult(partitions, buckets)
