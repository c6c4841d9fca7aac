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
import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence, Union

from sqlglot import exp

from dorisql.ast import ColumnDef, DataType
from dorisql.catalog.model import MAXVALUE_TEXT, PartitionMeta, TableMeta
from dorisql.errors import AnalysisError

__all__ = [
    "PruneResult",
    "prune",
    "prune_partitions",
    "prune_buckets",
    "select_partitions",
    "split_conjuncts",
    "spark_type_name",
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
    buckets: Optional[dict[str, frozenset[int]]] = None

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
# Values are mapped onto sort keys so NULL, MIN and MAXVALUE compare with real values:
#   (-1,)  below everything (the lower bound of the lowest RANGE partition: holds NULL too)
#   (0,)   NULL
#   (1, v) a value
#   (2,)   MAXVALUE (above every value)
# (1,) sorts after NULL and before any (1, v): "the smallest non-null value".

_NEG_INF = (-1,)
_NULL = (0,)
_MIN_VALUE = (1,)
_POS_INF = (2,)

_INT_TYPES = {
    "TINYINT": -(2**7),
    "SMALLINT": -(2**15),
    "INT": -(2**31),
    "INTEGER": -(2**31),
    "BIGINT": -(2**63),
    "LARGEINT": -(2**127),
}
_DATE_TYPES = {"DATE", "DATEV2"}
_DATETIME_TYPES = {"DATETIME", "DATETIMEV2", "TIMESTAMP"}
_STRING_TYPES = {"CHAR", "VARCHAR", "STRING", "TEXT"}
_NUMERIC_TYPES = {"DECIMAL", "DECIMALV2", "DECIMALV3", "DECIMAL32", "DECIMAL64", "DECIMAL128",
                  "DECIMAL256", "FLOAT", "DOUBLE"}

_TYPED_TEXT = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*(?:\([^)]*\))?\s*'(.*)'\s*$", re.S)
_QUOTED = re.compile(r"^\s*'(.*)'\s*$", re.S)
_DATE_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_DATETIME_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$")


class _Unknown(Exception):
    """A value that cannot be typed safely: the predicate is not understood."""


def _type_name(t: DataType) -> str:
    try:
        from dorisql import types as _types
        return _types.canonical(t).name
    except Exception:  # pragma: no cover - unknown type names: keep them as written
        return t.name.upper()


def _typed_bound(raw: str, doris_type: DataType) -> Any:
    """A catalog bound / list value typed as the catalog wrote it (dorisql.types), else locally."""
    try:
        from dorisql import types as _types
        return _types.parse_value(raw, doris_type)
    except Exception:
        return _to_typed(raw, doris_type)


def _is_type_min(raw: str, doris_type: DataType) -> bool:
    try:
        from dorisql import types as _types
        return bool(_types.is_min_text(raw, doris_type))
    except Exception:
        return False


def _parse_datetime(text: str) -> dt.datetime:
    s = text.strip()
    m = _DATETIME_COMPACT.match(s)
    if m:
        return dt.datetime(*map(int, m.groups()))
    m = _DATE_COMPACT.match(s)
    if m:
        return dt.datetime(*map(int, m.groups()))
    try:
        return dt.datetime.fromisoformat(s.replace("T", " ") if "T" in s else s)
    except ValueError as e:
        raise _Unknown(text) from e


def _to_typed(value: Union[str, int, decimal.Decimal, bool], doris_type: DataType) -> Any:
    """A literal (text or number) as a Python value of the column's type, or raise _Unknown."""
    name = _type_name(doris_type)
    if name in _INT_TYPES or name in _NUMERIC_TYPES:
        if isinstance(value, bool):
            raise _Unknown(value)
        try:
            d = decimal.Decimal(str(value).strip())
        except decimal.InvalidOperation as e:
            raise _Unknown(value) from e
        if not d.is_finite():
            raise _Unknown(value)
        if name in _INT_TYPES and d == d.to_integral_value():
            return int(d)
        return d
    if name in _DATE_TYPES:
        v = _parse_datetime(str(value))
        if v.time() != dt.time(0):
            raise _Unknown(value)  # a date compared with a time of day: leave it to Spark
        return v.date()
    if name in _DATETIME_TYPES:
        v = _parse_datetime(str(value))
        return v.replace(tzinfo=None)
    if name in _STRING_TYPES:
        if not isinstance(value, str):
            raise _Unknown(value)
        return value
    if name in {"BOOLEAN", "BOOL"}:
        s = str(value).strip().lower()
        if s in ("true", "1"):
            return True
        if s in ("false", "0"):
            return False
        raise _Unknown(value)
    raise _Unknown(value)


def _bound_text(text: str) -> str:
    """The bare value of a canonical bound text: `DATE '2017-02-01'` / `'x'` / `2017-02-01`."""
    m = _TYPED_TEXT.match(text) or _QUOTED.match(text)
    return m.group(1) if m else text.strip()


def _lower_key(text: Optional[str], doris_type: DataType) -> tuple:
    if text is None:
        return _NEG_INF
    raw = _bound_text(text)
    if raw.upper() == MAXVALUE_TEXT:
        return _POS_INF
    name = _type_name(doris_type)
    if _is_type_min(raw, doris_type):
        return _NEG_INF
    try:
        v = _typed_bound(raw, doris_type)
    except _Unknown:
        return _NEG_INF  # e.g. DATE '0000-01-01' (the type's minimum): keep everything below
    if name in _INT_TYPES and v <= _INT_TYPES[name]:
        return _NEG_INF
    return (1, v)


def _upper_key(text: Optional[str], doris_type: DataType) -> tuple:
    if text is None:
        return _POS_INF
    raw = _bound_text(text)
    if raw.upper() == MAXVALUE_TEXT:
        return _POS_INF
    try:
        return (1, _typed_bound(raw, doris_type))
    except _Unknown:
        return _POS_INF


def _point_key(text: Optional[str], doris_type: DataType) -> Optional[tuple]:
    """A LIST value as a key; None if it cannot be typed (then it matches anything)."""
    if text is None:
        return _NULL
    raw = _bound_text(text)
    if raw.upper() == "NULL" and _TYPED_TEXT.match(text) is None and _QUOTED.match(text) is None:
        return _NULL
    try:
        return (1, _typed_bound(raw, doris_type))
    except _Unknown:
        return None


def _is_min_text(text: str, doris_type: DataType) -> bool:
    return _lower_key(text, doris_type) == _NEG_INF


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

    def overlaps(self, other: "_Interval") -> bool:
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
            lo, lo_incl = (1, nxt), True
    if not hi_incl and len(hi) == 2:
        prv = _step(hi[1], -1)
        if prv is not None:
            hi, hi_incl = (1, prv), True
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
    points: Optional[frozenset] = None


@dataclass(frozen=True)
class _And:
    items: tuple


@dataclass(frozen=True)
class _Or:
    items: tuple


_Node = Union[_Atom, _And, _Or]


def split_conjuncts(where: Union[exp.Expression, Iterable[exp.Expression], None]) -> list[exp.Expression]:
    """The AND-ed parts of a condition (a Where node, an expression, or a list of either)."""
    if where is None:
        return []
    if isinstance(where, exp.Expression):
        items = [where]
    else:
        items = list(where)
    out: list[exp.Expression] = []
    stack = list(reversed(items))
    while stack:
        e = stack.pop()
        if e is None:
            continue
        if isinstance(e, exp.Where):
            stack.append(e.this)
        elif isinstance(e, exp.Paren):
            stack.append(e.this)
        elif isinstance(e, exp.And):
            stack.append(e.expression)
            stack.append(e.this)
        else:
            out.append(e)
    return out


class _Analyzer:
    def __init__(self, meta: TableMeta, qualifiers: Optional[Iterable[str]], allow_is_null: bool):
        self.meta = meta
        self.columns: dict[str, ColumnDef] = {c.name.lower(): c for c in meta.definition.columns}
        self.qualifiers = None if qualifiers is None else {q.lower() for q in qualifiers}
        self.allow_is_null = allow_is_null

    # -- operands
    def column(self, e: exp.Expression) -> Optional[ColumnDef]:
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
        cast_to: Optional[str] = None
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
        if isinstance(raw, str) and _type_name(col.type) in _STRING_TYPES and not (
                isinstance(e, exp.Literal) and e.is_string):
            raise _Unknown(e)
        if cast_to is not None:
            raw = _apply_cast(raw, cast_to, col)
        return _to_typed(raw, col.type)

    # -- atoms
    def node(self, e: exp.Expression) -> Optional[_Node]:
        try:
            return self._node(e)
        except _Unknown:
            return None

    def _node(self, e: exp.Expression) -> Optional[_Node]:
        while isinstance(e, exp.Paren):
            e = e.this
        if isinstance(e, exp.And):
            items = [n for n in (self.node(x) for x in split_conjuncts(e)) if n is not None]
            return _And(tuple(items)) if items else None
        if isinstance(e, exp.Or):
            items = []
            for x in _split_or(e):
                n = self.node(x)
                if n is None:
                    return None
                items.append(n)
            return _Or(tuple(items))
        if isinstance(e, (exp.EQ, exp.NullSafeEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)):
            return self._comparison(e)
        if isinstance(e, exp.In):
            col = self.column(e.this)
            if col is None or e.args.get("query") is not None or e.args.get("unnest") is not None \
                    or e.args.get("field") is not None:
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
            return _Atom(col.name, (_Interval((1, lo), True, (1, hi), True),))
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

    def _comparison(self, e: exp.Expression) -> Optional[_Node]:
        op = type(e)
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
        key = (1, v)
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


_FLIP = {exp.LT: exp.GT, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.GTE: exp.LTE}


def _looks_numeric(text: str) -> bool:
    try:
        decimal.Decimal(text)
        return True
    except decimal.InvalidOperation:
        return False


def _apply_cast(raw: Any, cast_to: str, col: ColumnDef) -> Any:
    """CAST(literal AS type) compared with `col`: keep the cases whose meaning is unambiguous."""
    target = cast_to.upper()
    col_type = _type_name(col.type)
    if target in ("DATE", "DATE32"):
        v = _parse_datetime(str(raw)).date()
        return v.isoformat()
    if target.startswith("TIMESTAMP") or target.startswith("DATETIME"):
        v = _parse_datetime(str(raw))
        if col_type in _DATE_TYPES and v.time() != dt.time(0):
            raise _Unknown(raw)
        return v.isoformat(sep=" ")
    if target in ("VARCHAR", "CHAR", "TEXT", "STRING") and col_type in _STRING_TYPES:
        return str(raw)
    if target in ("INT", "BIGINT", "SMALLINT", "TINYINT", "DECIMAL", "DOUBLE", "FLOAT") and (
            col_type in _INT_TYPES or col_type in _NUMERIC_TYPES):
        if target in ("INT", "BIGINT", "SMALLINT", "TINYINT"):
            d = decimal.Decimal(str(raw))
            if d != d.to_integral_value():
                raise _Unknown(raw)  # CAST(1.5 AS INT) truncation: leave it
        return raw
    raise _Unknown(raw)


def _split_or(e: exp.Expression) -> list[exp.Expression]:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        while isinstance(x, exp.Paren):
            x = x.this
        if isinstance(x, exp.Or):
            stack.append(x.expression)
            stack.append(x.this)
        else:
            out.append(x)
    return out


def _points_atom(column: str, values: Sequence[Any]) -> _Atom:
    keys = sorted({(1, v) for v in values}, key=_safe_sort_key)
    return _Atom(column, tuple(_Interval(k, True, k, True) for k in keys), frozenset(values))


def _safe_sort_key(key: tuple):
    return (key[0], str(type(key[1])) if len(key) > 1 else "", key[1] if len(key) > 1 else 0)


# --------------------------------------------------------------------------- evaluation


def _atom_contains(atom: _Atom, key: Optional[tuple]) -> bool:
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


def _eval_point(node: _Node, point: dict[str, Optional[tuple]]) -> bool:
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


def _partition_columns(meta: TableMeta) -> tuple[str, ...]:
    p = meta.definition.partition
    return tuple(p.columns) if p is not None else ()


def _column_def(meta: TableMeta, name: str) -> ColumnDef:
    for c in meta.definition.columns:
        if c.name.lower() == name.lower():
            return c
    raise AnalysisError(f"Unknown partition column '{name}' in table '{meta.name}'")


def _range_may_match(nodes: Sequence[_Node], part: PartitionMeta, cols: Sequence[ColumnDef],
                     point_sets: Optional[list[list[Any]]]) -> bool:
    if part.upper is None:
        return True
    first = cols[0]
    lower = part.lower[0] if part.lower else None
    lo = _lower_key(lower, first.type)
    hi = _upper_key(part.upper[0], first.type)
    multi = len(cols) > 1
    # Multi-column: rows with first column == upper[0] may still belong (when the rest is below
    # the rest of upper), unless the rest of upper is the minimum (then the range ends before it).
    hi_incl = multi and not all(_is_min_text(t, c.type) for t, c in zip(part.upper[1:], cols[1:]))
    region = _discrete(_Interval(lo, True, hi, hi_incl))
    if not all(_eval_region(n, first.name, region) for n in nodes):
        return False
    if multi and point_sets is not None:
        lower_t = tuple(_lower_key(t, c.type) for t, c in zip(part.lower or (), cols)) or (_NEG_INF,)
        upper_t = tuple(_upper_key(t, c.type) for t, c in zip(part.upper, cols))
        try:
            for combo in itertools.product(*point_sets):
                key = tuple(_NULL if v is None else (1, v) for v in combo)
                if _tuple_ge(key, lower_t) and key < upper_t:
                    return True
        except TypeError:
            return True
        return False
    return True


def _tuple_ge(key: tuple, lower: tuple) -> bool:
    # A lower bound element at the type minimum (_NEG_INF) admits NULL and everything above it.
    return key >= lower


def _list_may_match(nodes: Sequence[_Node], part: PartitionMeta, cols: Sequence[ColumnDef]) -> bool:
    if part.values is None:
        return True
    for value in part.values:
        point = {c.name.lower(): _point_key(v, c.type) for c, v in zip(cols, value)}
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


def _node_points(n: _Node) -> Optional[tuple[str, frozenset]]:
    if isinstance(n, _Atom):
        return (n.column, n.points) if n.points is not None else None
    if isinstance(n, _Or):
        col, acc = None, frozenset()
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


def select_partitions(meta: TableMeta, names: Optional[Sequence[str]]) -> tuple[str, ...]:
    """The partitions named by `FROM t PARTITION (p1, p2)` (all when `names` is None).

    Unknown names raise AnalysisError; names match case-insensitively; table order is kept.
    """
    if names is None:
        return tuple(p.name for p in meta.partitions)
    wanted = []
    for n in names:
        p = meta.partition(n)
        if p is None:
            raise AnalysisError(f"Unknown partition '{n}' in table '{meta.name}'")
        wanted.append(p.name.lower())
    return tuple(p.name for p in meta.partitions if p.name.lower() in set(wanted))


def _analyse(meta: TableMeta, where, qualifiers, allow_is_null) -> list[_Node]:
    analyzer = _Analyzer(meta, qualifiers, allow_is_null)
    return [n for n in (analyzer.node(c) for c in split_conjuncts(where)) if n is not None]


def prune_partitions(meta: TableMeta, where=None, *, selected: Optional[Sequence[str]] = None,
                     qualifiers: Optional[Iterable[str]] = None, allow_is_null: bool = True
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
    kept = []
    for name in names:
        part = meta.partition(name)
        if part_by.kind.upper() == "LIST":
            ok = _list_may_match(nodes, part, cols)
        else:
            point_sets = None
            if len(cols) > 1:
                pinned = _pinned_points(nodes)
                if all(c.name.lower() in pinned for c in cols):
                    sets = [sorted(pinned[c.name.lower()], key=_sort_any) for c in cols]
                    size = 1
                    for s in sets:
                        size *= len(s)
                    if size <= MAX_PARTITION_POINTS:
                        point_sets = sets
            ok = _range_may_match(nodes, part, cols, point_sets)
        if ok:
            kept.append(name)
    return tuple(kept)


def _sort_any(v: Any):
    return (v is not None, str(type(v)), v if v is not None else 0)


def spark_type_name(t: DataType) -> str:
    """The Spark type a Doris column is stored as (the type its bucket hash is computed on)."""
    try:
        from dorisql import types as _types  # the storage mapping (DATETIME -> timestamp_ntz, ...)
        return _types.spark_type(t).lower()
    except Exception:
        pass
    name = _type_name(t)
    simple = {
        "TINYINT": "tinyint", "SMALLINT": "smallint", "INT": "int", "INTEGER": "int",
        "BIGINT": "bigint", "LARGEINT": "decimal(38,0)", "BOOLEAN": "boolean", "BOOL": "boolean",
        "FLOAT": "float", "DOUBLE": "double", "DATE": "date", "DATEV2": "date",
        "DATETIME": "timestamp_ntz", "DATETIMEV2": "timestamp_ntz", "CHAR": "string",
        "VARCHAR": "string", "STRING": "string", "TEXT": "string",
    }
    if name in simple:
        return simple[name]
    if name.startswith("DECIMAL"):
        p, s = (tuple(t.params) + (9, 0))[:2] if t.params else (9, 0)
        if len(t.params) == 1:
            s = 0
        return f"decimal({p},{s})"
    return name.lower()


def prune_buckets(meta: TableMeta, where=None, partitions: Optional[Sequence[str]] = None, *,
                  qualifiers: Optional[Iterable[str]] = None, allow_is_null: bool = True
                  ) -> Optional[dict[str, frozenset[int]]]:
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
    size = 1
    for s in sets:
        size *= len(s)
    if size > MAX_BUCKET_COMBINATIONS:
        return None
    try:
        from dorisql.bucketing.hashing import bucket_of
    except ImportError:  # pragma: no cover - the storage helper's module
        return None
    types = [spark_type_name(c.type) for c in cols]
    combos = list(itertools.product(*sets))
    out: dict[str, frozenset[int]] = {}
    try:
        for name in partitions:
            part = meta.partition(name)
            out[part.name] = frozenset(bucket_of(list(c), types, part.buckets) for c in combos)
    except (ValueError, TypeError, OverflowError):
        return None
    return out


def prune(meta: TableMeta, where=None, *, selected: Optional[Sequence[str]] = None,
          qualifiers: Optional[Iterable[str]] = None, allow_is_null: bool = True) -> PruneResult:
    """Partitions and buckets of `meta` to read for rows satisfying `where` (see module doc)."""
    nodes = _analyse(meta, where, qualifiers, allow_is_null)
    partitions = _prune_partitions(meta, nodes, selected)
    buckets = _prune_buckets(meta, nodes, partitions)
    return PruneResult(partitions, buckets)
