"""Typed partition keys, RANGE arithmetic, LIST membership and row routing (pure Python).

The one model of partition values: loads route rows with it (`Router`, `routing_sql`), the
query planner prunes partitions with it (dorisql.query.pruning), the dynamic partition planner
checks its new ranges with it (dorisql.partitioning.dynamic). Values are typed by
dorisql.types.

Follows Doris's FE (PartitionKey, RangePartitionInfo, ListPartitionInfo, MultiPartitionDesc):

- A key is a tuple of per-column values. Each component is a typed value, `MIN` (Doris
  MIN_VALUE: the type minimum, which is also what an explicit minimum literal denotes), `MAX`
  (MAXVALUE, the `dorisql.ast.MAXVALUE` singleton) or None (NULL). Keys compare
  lexicographically with NULL < MIN < every value < MAX (`component_sort_key`).
- A RANGE partition is [lower, upper). A lower bound made only of MIN has no lower limit, so
  rows with NULL in a partition column land in the partition whose lower bound is MIN (the first
  LESS THAN partition), and in no partition when there is none (seed 003, Doris BE behaviour).
- `VALUES LESS THAN` takes its lower bound from the greatest existing upper bound below the new
  upper (Doris createAndCheckNewRange): on CREATE the partitions are added one by one in
  statement order, on ADD PARTITION against the live list.
- Fewer values than partition columns: the missing columns are filled with MIN.
- A LIST partition without VALUES IN is the table's DEFAULT partition (`ListDef.default`): it
  takes every row no other list partition holds; its key is the all-MIN key, so there is one
  per table; pruning never drops it.
- Ranges never overlap, so `RangeIndex` keeps them sorted and answers "which ranges does this
  one meet" and "which range holds this key" by bisection, not by a scan of every range (so a
  table's thousands of partitions are built and checked in about linear time).

Canonical text (catalog `PartitionMeta.lower/upper/values`): one string per column, the value as
Doris prints it; MIN prints as the type minimum ('0000-01-01', '-2147483648') and parses back to
MIN; MAX prints as 'MAXVALUE'; NULL list values are None.

Error messages are Doris's core messages (without Doris's "Invalid range value format: " wrapper).
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from dorisql import types as doris_types
from dorisql.ast import (
    MAXVALUE,
    BatchRangePartition,
    DataType,
    ListPartition,
    PartitionItem,
    RangePartition,
)
from dorisql.errors import AnalysisError

# --------------------------------------------------------------------------- sentinels


class _MinValue:
    """Doris MIN_VALUE: the minimum of the column type (a singleton)."""

    _instance: _MinValue | None = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MIN_VALUE"

    def __reduce__(self):
        return (_MinValue, ())


MIN = _MinValue()
#: MAXVALUE: the very object the parser puts in the AST.
MAX = MAXVALUE

#: Prefix of batch (FROM .. TO .. INTERVAL) partition names. The seed documents show
#: `p20220103`; current Doris's FE config `multi_partition_name_prefix` defaults to "p_".
MULTI_PARTITION_NAME_PREFIX = "p"
#: Doris Config.max_multi_partition_num.
MAX_MULTI_PARTITION_NUM = 4096

MAXVALUE_TEXT = "MAXVALUE"


#: Sort keys of the components that are not values: NULL < MIN < every value < MAX.
NULL_SORT_KEY = (0,)
MIN_SORT_KEY = (1,)
MAX_SORT_KEY = (3,)


def component_sort_key(v: Any) -> tuple:
    """How one key component orders: NULL (0,) < MIN (1,) < a value (2, v) < MAX (3,).

    Routing, range checks and partition pruning all compare through these keys."""
    if v is None:
        return NULL_SORT_KEY
    if v is MIN:
        return MIN_SORT_KEY
    if v is MAX:
        return MAX_SORT_KEY
    return (2, v)


# --------------------------------------------------------------------------- keys


@dataclass(frozen=True, eq=False)
class PartitionKey:
    """A typed partition key: one value per partition column (Doris PartitionKey).

    Keys compare (and hash) by `sort_key`, computed once: range checks compare the same keys
    many times."""

    values: tuple
    types: tuple[DataType, ...]
    sort_key: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sort_key", tuple([component_sort_key(v) for v in self.values]))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartitionKey):
            return NotImplemented
        return self.sort_key == other.sort_key

    def __lt__(self, other: PartitionKey) -> bool:
        return self.sort_key < other.sort_key

    def __le__(self, other: PartitionKey) -> bool:
        return self.sort_key <= other.sort_key

    def __gt__(self, other: PartitionKey) -> bool:
        return self.sort_key > other.sort_key

    def __ge__(self, other: PartitionKey) -> bool:
        return self.sort_key >= other.sort_key

    def __hash__(self) -> int:
        return hash(self.sort_key)

    def is_min(self) -> bool:
        return all(v is MIN for v in self.values)

    def is_max(self) -> bool:
        return all(v is MAX for v in self.values)

    def texts(self) -> tuple[str | None, ...]:
        """Canonical text per column (catalog form)."""
        return tuple(component_text(v, t) for v, t in zip(self.values, self.types))

    def __str__(self) -> str:
        """Doris PartitionKey.toString: `types: [DATE]; keys: [2017-02-01]; `."""
        names = ", ".join(doris_types.canonical(t).name for t in self.types)
        keys = ", ".join(_display(v, t) for v, t in zip(self.values, self.types))
        return f"types: [{names}]; keys: [{keys}]; "

    def to_sql(self) -> str:
        """Doris PartitionKey.toSql: `("100", "200")`, dates as `'2017-01-01'`."""
        parts = []
        for v, t in zip(self.values, self.types):
            if v is MAX:
                parts.append("MAXVALUE")
            elif v is None:
                parts.append("NULL")
            elif doris_types.is_date_like(t):
                parts.append(f"'{_display(v, t)}'")
            else:
                parts.append(f'"{_display(v, t)}"')
        return "(" + ", ".join(parts) + ")"


def component_text(v: Any, t: DataType) -> str | None:
    """The catalog text of one component: MIN as the type minimum, MAX as MAXVALUE, NULL None."""
    if v is None:
        return None
    if v is MAX:
        return MAXVALUE_TEXT
    if v is MIN:
        return doris_types.min_text(t)
    return doris_types.format_value(v, t)


def _display(v: Any, t: DataType) -> str:
    text = component_text(v, t)
    return "NULL" if text is None else text


def _normalize(v: Any, t: DataType) -> Any:
    """A value equal to the type minimum is MIN (Doris: LiteralExpr.isMinValue)."""
    if v is None or v is MIN or v is MAX or isinstance(v, dt.date):
        return v  # Python has no date at the DATE/DATETIME minimum (0000-01-01)
    m = doris_types.min_value(t)
    if m is not None and type(v) is type(m) and v == m:
        return MIN
    return v


def range_key(values: Sequence[Any], types: Sequence[DataType]) -> PartitionKey:
    """A RANGE key from typed values (MIN-normalised; missing trailing columns filled with MIN)."""
    vals = [_normalize(v, t) for v, t in zip(values, types)]
    vals += [MIN] * (len(types) - len(vals))
    return PartitionKey(tuple(vals), tuple(types))


def _is_maxvalue_text(text: Any, t: DataType) -> bool:
    """MAXVALUE, as the parser's singleton or as text (a string column's 'MAXVALUE' is a value)."""
    return text is MAX or (
        isinstance(text, str) and text.strip().upper() == MAXVALUE_TEXT and not doris_types.is_string_like(t)
    )


@functools.lru_cache(maxsize=65536)
def parse_component(text: Any, t: DataType) -> Any:
    """Type one RANGE bound value: MAXVALUE -> MAX, the type minimum's text -> MIN, else the
    value (types.parse_value, with Doris's messages). None (NULL) stays None.

    Cached (the values are immutable): each bound text is the upper bound of one partition and
    the lower bound of the next, and a CREATE TABLE's partitions are built more than once (the
    analyser checks them, the engine stores them)."""
    if text is None:
        return None
    if _is_maxvalue_text(text, t):
        return MAX
    if (
        not doris_types.is_string_like(t)
        and doris_types.canonical(t).name != "BOOLEAN"
        and doris_types.is_min_text(text, t)
    ):
        return MIN
    if doris_types.is_date_like(t):
        return doris_types.parse_partition_date(text, t)
    return doris_types.parse_value(text, t, full_range=True)


def parse_range_key(texts: Sequence[Any], types: Sequence[DataType]) -> PartitionKey:
    vals = []
    for text, t in zip(texts, types):
        if text is None:
            raise AnalysisError("Can not use NULL value in range partition")
        vals.append(parse_component(text, t))
    return range_key(vals, types)


def max_key(types: Sequence[DataType]) -> PartitionKey:
    return PartitionKey(tuple(MAX for _ in types), tuple(types))


def min_key(types: Sequence[DataType]) -> PartitionKey:
    return PartitionKey(tuple(MIN for _ in types), tuple(types))


# --------------------------------------------------------------------------- ranges


@dataclass(frozen=True)
class Range:
    """[lower, upper) (Guava Range.closedOpen). A lower bound of only MIN has no lower limit:
    it also holds keys with NULL, which sort below MIN."""

    lower: PartitionKey
    upper: PartitionKey

    def contains(self, key: PartitionKey) -> bool:
        return (self.lower.is_min() or key >= self.lower) and key < self.upper

    def intersects(self, other: Range) -> bool:
        return max(self.lower, other.lower) < min(self.upper, other.upper)

    def __str__(self) -> str:
        """Doris's text: `[types: [DATE]; keys: [2017-02-01]; ..types: [DATE]; keys: [2017-03-01]; )`."""
        return f"[{self.lower}..{self.upper})"


P = TypeVar("P")


def _lower_of(item: tuple) -> tuple:
    return item[0]


def _upper_of(item: tuple) -> tuple:
    return item[1]


class RangeIndex(Generic[P]):
    """Ranges sorted by lower bound, each with a payload, for bisect lookups (Doris keeps a
    table's ranges in a sorted map for the same reason).

    Partition ranges never overlap (`add_range` and the dynamic planner refuse it), so in lower
    bound order their upper bounds are sorted too: a new range can only meet the ranges next to
    its place, and a key can only be in the range before it. Every answer is the one a scan of
    the ranges in the order they were added would give (the first match in that order). If
    overlapping ranges are added anyway (a hand-edited catalog), the index notices and scans.
    """

    def __init__(self, entries: Iterable[tuple[Range, P]] = ()) -> None:
        # (lower sort key, upper sort key, insertion number, range, payload), in key order
        self._items: list[tuple[tuple, tuple, int, Range, P]] = []
        self._disjoint = True
        for r, payload in entries:
            self.add(r, payload)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, r: Range, payload: P) -> None:
        item = (r.lower.sort_key, r.upper.sort_key, len(self._items), r, payload)
        at = bisect.bisect_right(self._items, item[:3])
        if self._disjoint:
            before = self._items[at - 1][3] if at > 0 else None
            after = self._items[at][3] if at < len(self._items) else None
            if (before is not None and before.intersects(r)) or (after is not None and after.intersects(r)):
                self._disjoint = False
        self._items.insert(at, item)

    def _first(self, hits: Iterable[tuple[tuple, tuple, int, Range, P]]) -> tuple[Range, P] | None:
        best = min(hits, key=lambda item: item[2], default=None)
        return None if best is None else (best[3], best[4])

    def first_intersecting(self, r: Range) -> tuple[Range, P] | None:
        """The first added range that intersects `r` (with its payload), or None."""
        items = self._items
        # ranges that start below r's upper bound; of those, the ones ending above its lower
        end = bisect.bisect_left(items, r.upper.sort_key, key=_lower_of)
        if not self._disjoint:
            return self._first(item for item in items[:end] if item[3].intersects(r))
        hits = []
        for i in range(end - 1, -1, -1):
            if items[i][1] <= r.lower.sort_key:
                break  # this range and every one before it end at or below r's lower bound
            hits.append(items[i])
        return self._first(hit for hit in hits if hit[3].intersects(r))

    def containing(self, key: PartitionKey) -> tuple[Range, P] | None:
        """The first added range that holds `key` (with its payload), or None."""
        items = self._items
        if not items:
            return None
        if not self._disjoint:
            return self._first(item for item in items if item[3].contains(key))
        # the last range starting at or below the key; a key below every lower bound (NULL
        # components) can still be in the lowest range when that one starts at MIN
        at = bisect.bisect_right(items, key.sort_key, key=_lower_of) - 1
        candidate = items[max(at, 0)]
        return (candidate[3], candidate[4]) if candidate[3].contains(key) else None

    def neighbours(self, upper: PartitionKey) -> tuple[Range | None, Range | None]:
        """For a LESS THAN `upper` (Doris createAndCheckNewRange over the ranges in key order):
        the last range whose upper bound is below `upper`, and the first one whose upper bound
        is not (when every upper bound is below, that is the last range again)."""
        items = self._items
        if not items:
            return None, None
        if self._disjoint:
            at = bisect.bisect_left(items, upper.sort_key, key=_upper_of)
        else:
            at = next((i for i, item in enumerate(items) if item[1] >= upper.sort_key), len(items))
        if at == len(items):
            return items[-1][3], items[-1][3]
        return (items[at - 1][3] if at > 0 else None), items[at][3]


@dataclass(frozen=True)
class RangeDef:
    """A named RANGE partition."""

    name: str
    range: Range

    @property
    def lower(self) -> PartitionKey:
        return self.range.lower

    @property
    def upper(self) -> PartitionKey:
        return self.range.upper

    def meta_fields(self) -> dict:
        """`lower` / `upper` for catalog.model.PartitionMeta."""
        return {"lower": self.range.lower.texts(), "upper": self.range.upper.texts()}

    def show_text(self) -> str:
        return str(self.range)


@dataclass(frozen=True)
class ListDef:
    """A named LIST partition: its allowed key tuples, in declaration order.

    `default`: Doris's DEFAULT list partition (`PARTITION p` without VALUES IN, Doris 2.1+): it
    holds every row no other list partition of the table holds (NULLs included). Like Doris
    (PartitionKey.createListPartitionKeyWithTypes with no values) its one key is the type minimum
    of each column, marked as the default key: routing never matches it, it is what makes a second
    default partition conflict with the first, and it sorts the default partition first. In the
    catalog a default partition has `values == ()`.
    """

    name: str
    keys: tuple[PartitionKey, ...]
    default: bool = False

    def meta_fields(self) -> dict:
        return {"values": () if self.default else tuple(k.texts() for k in self.keys)}

    def show_text(self) -> str:
        """Doris's text: `[types: [VARCHAR]; keys: [Beijing]; , types: [VARCHAR]; keys: [Shanghai]; ]`;
        a default partition's key prints `keys: [default key]` (PartitionKey.toString)."""
        if self.default:
            names = ", ".join(doris_types.canonical(t).name for t in self.keys[0].types)
            return f"[types: [{names}]; keys: [default key]; ]"
        return "[" + ", ".join(str(k) for k in self.keys) + "]"

    def to_sql(self) -> str:
        """Doris ListPartitionItem.toSql (a default key prints as nothing, Doris #50489)."""
        if self.default:
            return ""
        body = ",".join(k.to_sql() for k in self.keys)
        return f"({body})" if len(self.keys) > 1 else body


#: Doris LiteralExpr.createInfinity: the column types that have a minimum, so that a DEFAULT list
#: partition's key can be made of it. Doris refuses a default partition on the others (CHAR,
#: VARCHAR, BOOLEAN) with "Invalid data type for creating infinity: VARCHAR(20)".
_INFINITY_TYPES = (*doris_types.INTEGER_TYPES, "DATE", "DATETIME")


def default_list(name: str, types: Sequence[DataType]) -> ListDef:
    """The DEFAULT list partition `name` of a table whose partition columns have `types`."""
    for t in types:
        if doris_types.canonical(t).name not in _INFINITY_TYPES:
            raise AnalysisError(
                f"Invalid data type for creating infinity: {doris_types.type_sql(doris_types.canonical(t))}"
            )
    return ListDef(name, (min_key(types),), default=True)


def _identity(key: PartitionKey) -> tuple:
    """What two list keys are compared by when a partition is added (Doris PartitionKey.equals):
    a value equal to its integer type's minimum is the same key component as MIN, so a value
    partition holding the type minimum (e.g. TINYINT -128) conflicts with a default partition."""
    out = []
    for v, t in zip(key.values, key.types):
        c = doris_types.canonical(t)
        if v is not None and v is not MIN and c.name in doris_types.INTEGER_TYPES and v == doris_types.min_value(c):
            out.append(MIN_SORT_KEY)
        else:
            out.append(component_sort_key(v))
    return tuple(out)


PartitionDef = RangeDef | ListDef


def _values_sql(values: Sequence[Any]) -> str:
    """Doris PartitionKeyDesc.getPartitionValuesStr: `('a', 'b')`."""
    return "(" + ", ".join("MAXVALUE" if v is MAX else f"'{'NULL' if v is None else v}'" for v in values) + ")"


def _desc_sql(item: RangePartition | ListPartition, types: Sequence[DataType] = ()) -> str:
    """Doris PartitionKeyDesc.toSql for the item as written (LIST date values normalised, as
    Doris's Nereids planner hands them over: '00-01-01' prints as '2000-01-01')."""
    if isinstance(item, ListPartition):
        if not item.values:
            return "(())"  # Doris's desc of a default partition: one empty value list
        parts = []
        for tup in item.values:
            if types:
                tup = tuple(_normal_date_text(v, t) for v, t in zip(tup, types))
            s = _values_sql(tup)
            parts.append(s[1:-1] if len(tup) == 1 else s)
        return "(" + ",".join(parts) + ")"
    if item.lower is None:
        if item.upper == (MAX,):
            return "MAXVALUE"
        return _values_sql(item.upper)
    return f"[{_values_sql(item.lower)}, {_values_sql(item.upper)})"


def _normal_date_text(v: Any, t: DataType) -> Any:
    if not isinstance(v, str) or not doris_types.is_date_like(t):
        return v
    try:
        return component_text(parse_list_component(v, t), t)
    except AnalysisError:
        return v


def _check_value_count(item: RangePartition, ncols: int) -> None:
    bounds = [item.upper] if item.lower is None else [item.lower, item.upper]
    for vals in bounds:
        if item.lower is None and vals == (MAX,):
            continue  # LESS THAN MAXVALUE
        if len(vals) == 0 or len(vals) > ncols:
            raise AnalysisError("Partition values number is more than partition column number: " + _desc_sql(item))
        if len(vals) > 1 and any(v is MAX for v in vals):
            raise AnalysisError("Not support MAXVALUE in multi partition range values.")


def _intersect_error(new: Range, existing: Range) -> AnalysisError:
    return AnalysisError(f"Range {new} is intersected with range: {existing}")


def add_range(existing: Sequence[RangeDef], item: RangePartition, types: Sequence[DataType]) -> RangeDef:
    """The range a new RANGE partition gets next to `existing` (Doris createAndCheckNewRange).

    LESS THAN: lower = the upper of the last existing range whose upper < the new upper
    (MIN when there is none); the range found whose upper >= the new upper must not intersect.
    Fixed [lower, upper): must not intersect any existing range.
    """
    return _add_range(RangeIndex((d.range, d) for d in existing), item, tuple(types))


def _add_range(index: RangeIndex, item: RangePartition, types: tuple[DataType, ...]) -> RangeDef:
    _check_value_count(item, len(types))
    if item.lower is not None:
        lower = parse_range_key(item.lower, types)
        upper = parse_range_key(item.upper, types)
        if lower >= upper:
            raise AnalysisError("The lower values must smaller than upper values")
        new = Range(lower, upper)
        clash = index.first_intersecting(new)
        if clash is not None:
            raise _intersect_error(new, clash[0])
        return RangeDef(item.name, new)

    upper = max_key(types) if item.upper == (MAX,) else parse_range_key(item.upper, types)
    if upper.is_min():
        raise AnalysisError("Partition's upper value should not be MIN VALUE: " + _desc_sql(item))
    last, current = index.neighbours(upper)
    lower = last.upper if last is not None else min_key(types)
    if lower >= upper:
        raise AnalysisError("The lower values must smaller than upper values")
    new = Range(lower, upper)
    if current is not None and new.intersects(current):
        raise _intersect_error(new, current)
    return RangeDef(item.name, new)


def build_ranges(
    items: Iterable[PartitionItem],
    types: Sequence[DataType],
    *,
    existing: Sequence[RangeDef] = (),
    prefix: str = MULTI_PARTITION_NAME_PREFIX,
) -> list[RangeDef]:
    """The RANGE partitions of a CREATE TABLE (or ADDs), added one by one in statement order.

    Batch `FROM .. TO .. INTERVAL` items are expanded first (`expand_batch`). Returns the new
    partitions in statement order. Duplicate names are refused. Each partition is checked
    against the ones before it through one RangeIndex: linear in the number of partitions.
    """
    types = tuple(types)
    index: RangeIndex[RangeDef] = RangeIndex((d.range, d) for d in existing)
    out: list[RangeDef] = []
    seen = {d.name.lower() for d in existing}
    for item in items:
        if isinstance(item, BatchRangePartition):
            expanded: list = expand_batch(item, types[0], prefix=prefix)
        elif isinstance(item, RangePartition):
            expanded = [item]
        else:
            raise AnalysisError(
                "partitions types is invalid, expected FIXED or LESS in range partitions and IN in list partitions"
            )
        for it in expanded:
            if it.name.lower() in seen:
                raise AnalysisError(f"Duplicated named partition: {it.name}")
            seen.add(it.name.lower())
            d = _add_range(index, it, types)
            index.add(d.range, d)
            out.append(d)
    return out


# --------------------------------------------------------------------------- batch (FROM..TO)

_UNITS = ("HOUR", "DAY", "WEEK", "MONTH", "YEAR")


def _probe_datetime(text: str, unit: str) -> dt.datetime:
    """MultiPartitionDesc.dateFormat + formatDateTimeAndFullZero (lengths decide the format)."""
    s = text.strip()
    n = len(s)
    try:
        if unit == "HOUR" and n == 10 and s.isdigit():
            return dt.datetime.strptime(s, "%Y%m%d%H")
        if unit == "HOUR" and n == 13:
            return dt.datetime.strptime(s, "%Y-%m-%d %H")
        if unit in ("DAY", "WEEK", "YEAR") and n == 8:
            return dt.datetime.strptime(s, "%Y%m%d")
        if unit in ("DAY", "WEEK", "MONTH", "YEAR") and n == 10:
            return dt.datetime.strptime(s, "%Y-%m-%d")
        if unit == "MONTH" and n == 6:
            return dt.datetime.strptime(s, "%Y%m")
        if unit == "MONTH" and n == 7:
            return dt.datetime.strptime(s, "%Y-%m")
        if unit == "YEAR" and n == 4:
            return dt.datetime.strptime(s, "%Y")
        if n == 19 or 21 <= n <= 26:
            return dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S" + (".%f" if n > 19 else ""))
    except ValueError:
        pass
    raise AnalysisError("Multi build partition start or end time style is illegal.")


def _week_of_year(d: dt.datetime) -> int:
    """Java WeekFields.of(MONDAY, 1).weekOfYear(): week 1 contains January 1st."""
    jan1 = dt.date(d.year, 1, 1).weekday()
    return (d.timetuple().tm_yday - 1 + jan1) // 7 + 1


D = TypeVar("D", dt.date, dt.datetime)


def add_months(d: D, months: int) -> D:
    """java.time plusMonths: the same day of the month, clamped to the target month's last day."""
    year, month0 = divmod(d.year * 12 + d.month - 1 + months, 12)
    day = min(d.day, calendar.monthrange(year, month0 + 1)[1])
    return d.replace(year=year, month=month0 + 1, day=day)


def expand_batch(
    item: BatchRangePartition,
    t: DataType,
    *,
    prefix: str = MULTI_PARTITION_NAME_PREFIX,
    limit: int = MAX_MULTI_PARTITION_NUM,
) -> list[RangePartition]:
    """FROM (start) TO (end) INTERVAL n [unit] as fixed-range partitions (MultiPartitionDesc).

    Names: numbers `<prefix><begin>_<end>`; HOUR `<prefix>yyyyMMddHH`; DAY `<prefix>yyyyMMdd`;
    WEEK `<prefix>yyyy_ww` (weeks start on Monday, week 1 holds Jan 1st); MONTH `<prefix>yyyyMM`;
    YEAR `<prefix>yyyy`. WEEK/MONTH/YEAR steps snap to the start of the week/month/year; every
    unit except DAY clips the last upper bound to `end` (Doris does not clip DAY).
    """
    start, end, unit = _batch_bounds(item)
    out: list[RangePartition] = []

    def emit(name: str, lo: str, hi: str) -> None:
        out.append(RangePartition(name=name, upper=(hi,), lower=(lo,)))
        if len(out) > limit:
            raise AnalysisError(f"The number of Multi partitions too much, should not exceed:{limit}")

    if unit is None:
        _number_batch(start, end, item.interval, prefix, emit)
    else:
        _time_batch(start, end, item.interval, unit, t, prefix, emit)
    return out


def _batch_bounds(item: BatchRangePartition) -> tuple[str, str, str | None]:
    """The batch's start, end and time unit (None: a number interval), checked as Doris does."""
    if len(item.start) != 1 or len(item.end) != 1:
        raise AnalysisError(
            "partition column number in multi partition clause must be one but start column size is "
            f"{len(item.start)}, end column size is {len(item.end)}."
        )
    if item.interval <= 0:
        raise AnalysisError("Multi partition time interval must be larger than zero.")
    start, end = item.start[0], item.end[0]
    if not isinstance(start, str) or not isinstance(end, str):  # NULL or MAXVALUE
        raise AnalysisError("Multi build partition start or end time style is illegal.")
    unit = item.unit.upper() if item.unit else None
    if unit is not None and unit not in _UNITS:
        raise AnalysisError(f"Multi build partition does not support time interval type: {unit}")
    return start, end, unit


def _number_batch(start: str, end: str, interval: int, prefix: str, emit: Callable[[str, str, str], None]) -> None:
    """[begin, begin + interval) ranges up to `end`, the last one clipped to it."""
    try:
        begin, stop = int(start), int(end)
    except ValueError:
        raise AnalysisError(
            "Batch build partition INTERVAL is number type but From or TO does not type match."
        ) from None
    if begin >= stop:
        raise AnalysisError("Multi build partition start number should less than end number.")
    while begin < stop:
        hi = min(begin + interval, stop)
        emit(f"{prefix}{begin}_{hi}", str(begin), str(hi))
        begin += interval


def _time_batch(
    start: str, end: str, n: int, unit: str, t: DataType, prefix: str, emit: Callable[[str, str, str], None]
) -> None:
    """Ranges of `n` units from `start` to `end`, each upper bound the next one's lower bound."""
    if not doris_types.is_date_like(t):
        raise AnalysisError("Multi build partition start or end time style is illegal.")
    cur = _probe_datetime(start, unit)
    stop_t = _probe_datetime(end, unit)
    if not cur < stop_t:
        raise AnalysisError("Multi build partition start time should less than end time.")
    date_col = doris_types.canonical(t).name == "DATE"

    def text(d: dt.datetime) -> str:
        return d.date().isoformat() if date_col else d.strftime("%Y-%m-%d %H:%M:%S")

    upper_text = text(cur)
    while cur < stop_t:
        lower_text = upper_text
        name, cur = _time_step(cur, unit, n, prefix)
        if unit != "DAY" and cur > stop_t:
            cur = stop_t
        upper_text = text(cur)
        emit(name, lower_text, upper_text)


def _time_step(cur: dt.datetime, unit: str, n: int, prefix: str) -> tuple[str, dt.datetime]:
    """The name of the partition starting at `cur`, and where the next one starts (WEEK, MONTH
    and YEAR snap to the start of their week, month, year before stepping)."""
    if unit == "HOUR":
        return prefix + cur.strftime("%Y%m%d%H"), cur + dt.timedelta(hours=n)
    if unit == "DAY":
        return prefix + cur.strftime("%Y%m%d"), cur + dt.timedelta(days=n)
    if unit == "WEEK":
        name = f"{prefix}{cur.year:04d}_{_week_of_year(cur):02d}"
        return name, cur - dt.timedelta(days=cur.weekday()) + dt.timedelta(weeks=n)
    if unit == "MONTH":
        return prefix + cur.strftime("%Y%m"), add_months(cur.replace(day=1), n)
    year_start = cur.replace(month=1, day=1)
    return prefix + f"{cur.year:04d}", year_start.replace(year=year_start.year + n)


# --------------------------------------------------------------------------- lists


def _list_key(
    values: Sequence[Any], types: Sequence[DataType], columns: Sequence[str], nullable: Sequence[bool], part: str
) -> PartitionKey:
    vals: list[Any] = []
    for v, t, col, null_ok in zip(values, types, columns, nullable):
        if _is_maxvalue_text(v, t):
            raise AnalysisError(f"MAXVALUE is not allowed in LIST partition [{part}]")
        if v is None:
            if not null_ok:
                raise AnalysisError(
                    f"Can not use NULL value in partition [{part}]: partition column [{col}] is NOT NULL"
                )
            vals.append(None)
        else:
            vals.append(parse_list_component(v, t))
    return PartitionKey(tuple(vals), tuple(types))


def parse_list_component(text: str, t: DataType) -> Any:
    """Type one LIST value as Doris's FE does (PartitionKey.createListPartitionKey):

    - DATE / DATETIME: `doris_types.parse_partition_date` (two-digit years; a DATE value with a time part
      is refused); the type minimum ('0000-01-01', which Python's dates cannot hold) is MIN. No
      row can hold it here (dorisql stores dates from 0001-01-01), so it routes nothing.
    - CHAR / VARCHAR: kept as written, even longer than the column (CREATE TABLE accepts
      `VALUES IN ("ddd")` on a CHAR(1) column and keeps "ddd": no row can match it, and a row
      'd' is not routed there). ADD PARTITION refuses such a value (`check_list_value_lengths`).
    """
    c = doris_types.canonical(t)
    if doris_types.is_date_like(c):
        if doris_types.is_min_text(text, c):
            return MIN
        return doris_types.parse_partition_date(text, c)
    if c.name in ("CHAR", "VARCHAR"):
        return text
    return doris_types.parse_value(text, c, full_range=True)


def check_list_value_lengths(item: ListPartition, types: Sequence[DataType]) -> None:
    """ADD PARTITION: a CHAR/VARCHAR list value longer than its column is refused (Doris
    LiteralExprUtils.normalizePartitionValueString; CREATE TABLE does not check it)."""
    for tup in item.values:
        for v, t in zip(tup, types):
            c = doris_types.canonical(t)
            if isinstance(v, str) and c.name in ("CHAR", "VARCHAR") and c.params and len(v) > c.params[0]:
                raise AnalysisError(
                    f"Partition value {v}'s length exceeds type length: {len(v)} > {c.params[0]} "
                    f"for {doris_types.type_sql(c)}"
                )


def add_list(
    existing: Sequence[ListDef],
    item: ListPartition,
    types: Sequence[DataType],
    *,
    columns: Sequence[str] | None = None,
    nullable: Sequence[bool] | None = None,
) -> ListDef:
    """A new LIST partition checked against `existing` (Doris ListPartitionInfo)."""
    return _add_list(_list_owners(existing), item, tuple(types), columns, nullable)


def _list_owners(defs: Iterable[ListDef]) -> dict[tuple, ListDef]:
    """Each value tuple of `defs` (by `_identity`) -> the (first) partition holding it."""
    owners: dict[tuple, ListDef] = {}
    for d in defs:
        for k in d.keys:
            owners.setdefault(_identity(k), d)
    return owners


#: Doris ListPartitionInfo.createAndCheckPartitionItem wraps a value that conflicts with another
#: partition's, or repeats in its own, in this (its suites: "Invalid list value format: ... is
#: conflict with current partitionKeys[...]").
LIST_VALUE_FORMAT = "Invalid list value format: "


def _conflict(key_sql: str, item: ListPartition, owner: ListDef) -> AnalysisError:
    return AnalysisError(
        f"{LIST_VALUE_FORMAT}The partition key[{key_sql}] in partition item[{_desc_sql(item, owner.keys[0].types)}] is "
        f"conflict with current partitionKeys[{owner.to_sql()}]"
    )


def _add_list(
    owners: dict[tuple, ListDef],
    item: ListPartition,
    types: tuple[DataType, ...],
    columns: Sequence[str] | None,
    nullable: Sequence[bool] | None,
) -> ListDef:
    columns = tuple(columns) if columns is not None else tuple(f"k{i}" for i in range(len(types)))
    nullable = tuple(nullable) if nullable is not None else tuple(True for _ in types)
    for tup in item.values:
        if len(tup) != len(types):
            raise AnalysisError(
                f"partition key desc list size[{len(tup)}] is not equal to partition column size[{len(types)}]"
            )
    return _list_def(owners, item, types, columns, nullable)


def _list_def(
    owners: dict[tuple, ListDef],
    item: ListPartition,
    types: tuple[DataType, ...],
    columns: tuple[str, ...],
    nullable: tuple[bool, ...],
) -> ListDef:
    if not item.values:
        # `PARTITION p` without VALUES IN: the default partition (one per table: its key is the
        # same all-minimum key as any other default's, so a second one conflicts)
        d = default_list(item.name, types)
        owner = owners.get(_identity(d.keys[0]))
        if owner is not None:
            raise _conflict(d.to_sql(), item, owner)
        return d
    keys: list[PartitionKey] = []
    for tup in item.values:
        key = _list_key(tup, types, columns, nullable, item.name)
        owner = owners.get(_identity(key))
        if owner is not None:
            raise _conflict(key.to_sql(), item, owner)
        if key in keys:
            raise AnalysisError(
                f"{LIST_VALUE_FORMAT}The partition key[{_desc_sql(item, types)}] has duplicate item [{key.to_sql()}]."
            )
        keys.append(key)
    return ListDef(item.name, tuple(keys))


def build_lists(
    items: Iterable[PartitionItem],
    types: Sequence[DataType],
    *,
    columns: Sequence[str] | None = None,
    nullable: Sequence[bool] | None = None,
    existing: Sequence[ListDef] = (),
) -> list[ListDef]:
    """The LIST partitions of a CREATE TABLE, added one by one in statement order (checked)."""
    types = tuple(types)
    owners = _list_owners(existing)
    out: list[ListDef] = []
    seen = {d.name.lower() for d in existing}
    for item in items:
        if not isinstance(item, ListPartition):
            raise AnalysisError(
                "partitions types is invalid, expected FIXED or LESS in range partitions and IN in list partitions"
            )
        if item.name.lower() in seen:
            raise AnalysisError(f"Duplicated named partition: {item.name}")
        seen.add(item.name.lower())
        d = _add_list(owners, item, types, columns, nullable)
        for k in d.keys:
            owners.setdefault(_identity(k), d)
        out.append(d)
    return out


# --------------------------------------------------------------------------- catalog text


def range_from_texts(name: str, lower: Sequence[str], upper: Sequence[str], types: Sequence[DataType]) -> RangeDef:
    return RangeDef(name, Range(parse_range_key(lower, types), parse_range_key(upper, types)))


def list_from_texts(name: str, values: Sequence[Sequence[str | None]], types: Sequence[DataType]) -> ListDef:
    """A LIST partition from its catalog texts (no values: the default partition)."""
    if not values:
        return default_list(name, types)
    keys = tuple(
        PartitionKey(tuple(None if v is None else parse_list_component(v, t) for v, t in zip(tup, types)), tuple(types))
        for tup in values
    )
    return ListDef(name, keys)


def from_meta(partitions: Iterable[Any], types: Sequence[DataType]) -> list[PartitionDef]:
    """RangeDef/ListDef for catalog PartitionMeta objects (LIST if `values` is set, else RANGE)."""
    out: list[PartitionDef] = []
    for p in partitions:
        if p.values is not None:
            out.append(list_from_texts(p.name, p.values, types))
        else:
            out.append(range_from_texts(p.name, p.lower, p.upper, types))
    return out


# --------------------------------------------------------------------------- routing


def _types_of(partitions: Sequence[PartitionDef]) -> tuple[DataType, ...]:
    p = partitions[0]
    return p.range.upper.types if isinstance(p, RangeDef) else p.keys[0].types


def route(row_key: Sequence[Any], partitions: Sequence[PartitionDef]) -> str | None:
    """The partition a row belongs to (typed values of the partition columns), or None.

    RANGE: left-closed right-open; a NULL component sorts below MIN, so NULL rows go to the
    partition whose lower bound is MIN, if any. LIST: exact membership, NULL matches NULL.
    The definition, by a scan of `partitions`; `Router` answers the same with an index.
    """
    if not partitions:
        return None
    if isinstance(partitions[0], RangeDef):
        key = range_key(tuple(row_key), _types_of(partitions))
        for p in partitions:
            if p.range.contains(key):  # type: ignore[union-attr]
                return p.name
        return None
    key = PartitionKey(tuple(row_key), _types_of(partitions))
    for p in partitions:
        if not p.default and key in p.keys:  # type: ignore[union-attr]
            return p.name
    # a row no value partition holds goes to the default partition, if there is one
    return next((p.name for p in partitions if p.default), None)  # type: ignore[union-attr]


class Router:
    """Routes many rows quickly, with the same answers as `route` (LIST: a dict lookup of the
    value tuple; RANGE: bisect over the ranges sorted by lower bound, `RangeIndex`)."""

    def __init__(self, partitions: Sequence[PartitionDef]):
        self.partitions = list(partitions)
        self.types = _types_of(self.partitions) if self.partitions else ()
        self.ranges: RangeIndex[str] | None = None
        self.lookup: dict[tuple, str] = {}
        self.default: str | None = None
        if self.partitions and isinstance(self.partitions[0], RangeDef):
            self.ranges = RangeIndex((p.range, p.name) for p in self.partitions)  # type: ignore[union-attr]
        else:
            for p in self.partitions:
                if p.default:  # type: ignore[union-attr]
                    self.default = self.default or p.name
                    continue
                for k in p.keys:  # type: ignore[union-attr]
                    self.lookup.setdefault(k.sort_key, p.name)

    def __call__(self, row_key: Sequence[Any]) -> str | None:
        if self.ranges is not None:
            found = self.ranges.containing(range_key(tuple(row_key), self.types))
            return None if found is None else found[1]
        return self.lookup.get(tuple(component_sort_key(v) for v in row_key), self.default)


# --------------------------------------------------------------------------- routing SQL


def _and(*xs: str) -> str:
    xs = tuple(x for x in xs if x != "TRUE")
    if "FALSE" in xs:
        return "FALSE"
    if not xs:
        return "TRUE"
    return xs[0] if len(xs) == 1 else "(" + " AND ".join(xs) + ")"


def _or(*xs: str) -> str:
    xs = tuple(x for x in xs if x != "FALSE")
    if "TRUE" in xs:
        return "TRUE"
    if not xs:
        return "FALSE"
    return xs[0] if len(xs) == 1 else "(" + " OR ".join(xs) + ")"


def _not(x: str) -> str:
    if x == "TRUE":
        return "FALSE"
    if x == "FALSE":
        return "TRUE"
    return f"(NOT {x})"


def _min_literal(t: DataType) -> str:
    c = doris_types.canonical(t)
    if c.name == "DATE":
        return "DATE'0000-01-01'"
    if c.name == "DATETIME":
        return "TIMESTAMP_NTZ'0000-01-01 00:00:00'"
    return doris_types.spark_literal(doris_types.min_value(c), c)


def _less(col: str, v: Any, t: DataType) -> str:
    """SQL for component `col < v` with NULL lowest; never NULL-valued."""
    # A LARGEINT beyond DECIMAL(38,0) is above (below) every stored value, as MAX (MIN) is.
    side = doris_types.beyond_storage(v, t)
    if v is MAX or side > 0:
        return "TRUE"
    if v is MIN or side < 0:
        return f"({col} IS NULL)"
    return f"({col} IS NULL OR {col} < {doris_types.spark_literal(v, t)})"


def _equal(col: str, v: Any, t: DataType) -> str:
    if v is MAX or doris_types.beyond_storage(doris_types.min_value(t) if v is MIN else v, t):
        return "FALSE"  # no stored value equals it
    lit = _min_literal(t) if v is MIN else doris_types.spark_literal(v, t)
    return f"({col} IS NOT NULL AND {col} = {lit})"


def _lex_less(cols: Sequence[str], key: PartitionKey) -> str:
    expr = "FALSE"
    for col, v, t in reversed(list(zip(cols, key.values, key.types))):
        expr = _or(_less(col, v, t), _and(_equal(col, v, t), expr))
    return expr


def range_condition(r: Range, cols: Sequence[str]) -> str:
    """SQL boolean (never NULL) for `row key in [lower, upper)`."""
    ge = "TRUE" if r.lower.is_min() else _not(_lex_less(cols, r.lower))
    return _and(ge, _lex_less(cols, r.upper))


def list_condition(d: ListDef, cols: Sequence[str]) -> str:
    if d.default:
        return "FALSE"  # routing_sql sends what no other partition holds to the default one
    if len(cols) == 1:
        t = d.keys[0].types[0]
        vals = [k.values[0] for k in d.keys if k.values[0] is not MIN]  # MIN: a date no row holds
        # nor can a row hold a LARGEINT beyond DECIMAL(38,0)
        lits = [doris_types.spark_literal(v, t) for v in vals if v is not None and not doris_types.beyond_storage(v, t)]
        parts = []
        if lits:
            parts.append(f"({cols[0]} IS NOT NULL AND {cols[0]} IN ({', '.join(lits)}))")
        if any(v is None for v in vals):
            parts.append(f"({cols[0]} IS NULL)")
        return _or(*parts)
    alts = []
    for k in d.keys:
        if any(v is MIN or doris_types.beyond_storage(v, t) for v, t in zip(k.values, k.types)):
            continue
        alts.append(
            _and(
                *(
                    f"({c} IS NULL)" if v is None else f"({c} IS NOT NULL AND {c} = {doris_types.spark_literal(v, t)})"
                    for c, v, t in zip(cols, k.values, k.types)
                )
            )
        )
    return _or(*alts)


def routing_sql(partitions: Any, column_sql_names: Sequence[str] | None = None) -> str:
    """A Spark SQL expression giving each row's partition name, or NULL when none fits.

    `partitions`: RangeDef/ListDef objects (they carry their types) with `column_sql_names`
    (SQL expressions for the partition columns, e.g. "`dt`"), or a catalog TableMeta (then
    columns are the table's back-quoted partition columns; an unpartitioned table routes
    everything to its single partition).
    """
    if hasattr(partitions, "definition"):
        meta = partitions
        definition = meta.definition
        if definition.partition is None:
            if not meta.partitions:
                return "CAST(NULL AS STRING)"
            return doris_types.spark_string(meta.partitions[0].name)
        _, ptypes = partition_columns(definition)
        partitions = from_meta(meta.partitions, ptypes)
        column_sql_names = ["`" + c.replace("`", "``") + "`" for c in definition.partition.columns]
    if not partitions:
        return "CAST(NULL AS STRING)"
    cols = list(column_sql_names or ())
    branches = []
    otherwise = "CAST(NULL AS STRING)"
    for p in partitions:
        if isinstance(p, ListDef) and p.default:
            if otherwise == "CAST(NULL AS STRING)":
                otherwise = doris_types.spark_string(p.name)
            continue
        cond = range_condition(p.range, cols) if isinstance(p, RangeDef) else list_condition(p, cols)
        if cond == "FALSE":
            continue
        branches.append(f"WHEN {cond} THEN {doris_types.spark_string(p.name)}")
    if not branches:
        return otherwise
    return "CASE " + " ".join(branches) + f" ELSE {otherwise} END"


# --------------------------------------------------------------------------- table-level helpers


def partition_columns(definition: Any) -> tuple[tuple[str, ...], tuple[DataType, ...]]:
    """(names, canonical types) of a CreateTable's partition columns, resolved case-insensitively."""
    if definition.partition is None:
        return (), ()
    by_name = {c.name.lower(): c for c in definition.columns}
    names, types = [], []
    for col in definition.partition.columns:
        c = by_name.get(col.lower())
        if c is None:
            raise AnalysisError(f"partition key {col} is not exists")
        names.append(c.name)
        types.append(doris_types.canonical(c.type))
    return tuple(names), tuple(types)


def partition_nullable(definition: Any) -> tuple[bool, ...]:
    by_name = {c.name.lower(): c for c in definition.columns}
    return tuple(by_name[col.lower()].nullable is not False for col in definition.partition.columns)


def build_partitions(definition: Any, *, prefix: str = MULTI_PARTITION_NAME_PREFIX) -> list[PartitionDef]:
    """The typed partitions declared in a CreateTable, in statement order (checked)."""
    if definition.partition is None:
        return []
    names, ptypes = partition_columns(definition)
    if definition.partition.kind.upper() == "RANGE":
        return list(_declared_ranges(tuple(definition.partition.items), ptypes, prefix))
    return list(_declared_lists(tuple(definition.partition.items), ptypes, names, partition_nullable(definition)))


# The parser's normalisation, the analyser and the engine each build the partitions of the same
# CREATE TABLE; the results are immutable, so the last few are kept (thousands of partitions
# then cost one build, not three). A statement that fails is not cached and fails each time.


@functools.lru_cache(maxsize=8)
def _declared_ranges(items: tuple, types: tuple[DataType, ...], prefix: str) -> tuple[RangeDef, ...]:
    return tuple(build_ranges(items, types, prefix=prefix))


@functools.lru_cache(maxsize=8)
def _declared_lists(
    items: tuple, types: tuple[DataType, ...], columns: tuple[str, ...], nullable: tuple[bool, ...]
) -> tuple[ListDef, ...]:
    return tuple(build_lists(items, types, columns=columns, nullable=nullable))


def table_partitions(meta: Any) -> list[PartitionDef]:
    """The live partitions of a catalog TableMeta, typed."""
    if meta.definition.partition is None:
        return []
    _, ptypes = partition_columns(meta.definition)
    return from_meta(meta.partitions, ptypes)


#: Doris's words when ADD PARTITION's values do not fit the table's partitioning
#: (RangePartitionInfo / ListPartitionInfo.createAndCheckPartitionItem).
RANGE_EXPECTED = 'Range partition expected \'VALUES [LESS THAN or [("xxx" ,...), ("xxx", ...))]\''
LIST_EXPECTED = 'List partition expected \'VALUES [IN or (("xxx", "xxx"), ...)]\''


def add_partition(meta: Any, item: RangePartition | ListPartition) -> PartitionDef:
    """ADD PARTITION against a table's live partitions: the new partition's typed definition."""
    definition = meta.definition
    if definition.partition is None:
        raise AnalysisError(f"Alter table [{meta.name}] failed. Not a partitioned table")  # Doris addPartition
    names, ptypes = partition_columns(definition)
    existing = table_partitions(meta)
    kind = definition.partition.kind.upper()
    if kind == "RANGE":
        if not isinstance(item, RangePartition):
            raise AnalysisError(RANGE_EXPECTED)
        return add_range(existing, item, ptypes)  # type: ignore[arg-type]
    if not isinstance(item, ListPartition):
        raise AnalysisError(LIST_EXPECTED)
    check_list_value_lengths(item, ptypes)
    return add_list(
        existing,  # type: ignore[arg-type]
        item,
        ptypes,
        columns=names,
        nullable=partition_nullable(definition),
    )


def _sorted_defs(defs: list[PartitionDef]) -> list[PartitionDef]:
    if defs and isinstance(defs[0], RangeDef):
        return sorted(defs, key=lambda d: (d.range.lower.sort_key, d.range.upper.sort_key))  # type: ignore[union-attr]
    return sorted(defs, key=lambda d: tuple(k.sort_key for k in d.keys))  # type: ignore[union-attr]


def to_item(d: PartitionDef) -> RangePartition | ListPartition:
    """An AST item for a typed partition (RANGE always as a fixed [lower, upper), as Doris's
    SHOW CREATE TABLE prints it)."""
    if isinstance(d, RangeDef):
        lo = tuple(MAX if v is MAX else component_text(v, t) for v, t in zip(d.range.lower.values, d.range.lower.types))
        hi = tuple(MAX if v is MAX else component_text(v, t) for v, t in zip(d.range.upper.values, d.range.upper.types))
        return RangePartition(name=d.name, upper=hi, lower=lo)
    if d.default:
        return ListPartition(name=d.name, values=())  # SHOW CREATE TABLE: `PARTITION p` (Doris #50489)
    return ListPartition(name=d.name, values=tuple(k.texts() for k in d.keys))


def partition_items(meta: Any) -> tuple:
    """AST items of a table's live partitions, sorted as Doris's SHOW CREATE TABLE sorts them."""
    return tuple(to_item(d) for d in _sorted_defs(table_partitions(meta)))


def partition_range_string(meta: Any, p: Any) -> str:
    """SHOW PARTITIONS' `Range` column for catalog partition `p` of `meta`."""
    if meta.definition.partition is None:
        return ""
    _, ptypes = partition_columns(meta.definition)
    return from_meta([p], ptypes)[0].show_text()


def sorted_partition_names(meta: Any) -> list[str]:
    """The table's partition names in key order (RANGE by range, LIST by their value tuples)."""
    if meta.definition.partition is None:
        return [p.name for p in meta.partitions]
    return [d.name for d in _sorted_defs(table_partitions(meta))]


def single_column_range(lower: Any, upper: Any, t: DataType) -> Range:
    """[lower, upper) of a single-column RANGE partition from plain values (None: no bound, MIN
    below and MAXVALUE above): how the dynamic planner's date bounds enter the key model."""
    types = (t,)
    return Range(
        min_key(types) if lower is None else range_key((lower,), types),
        max_key(types) if upper is None else range_key((upper,), types),
    )


def single_column_bounds(r: Range) -> tuple[Any, Any]:
    """The plain values of a single-column range's bounds; None for MIN / MAXVALUE."""
    lower, upper = r.lower.values[0], r.upper.values[0]
    return (None if lower is MIN else lower), (None if upper is MAX else upper)
