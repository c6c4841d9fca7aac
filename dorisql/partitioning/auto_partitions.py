"""AUTO PARTITION: which partitions a load needs, with Doris's names and bounds (pure).

Doris (PartitionExprUtil.getAddPartitionClauseFromPartitionValues, 2.1+):
- AUTO RANGE PARTITION BY RANGE (date_trunc(col, 'unit')): a row's partition is
  [date_trunc(value, unit), + one unit), named ``p`` + ``%04d%02d%02d%02d%02d%02d`` of the lower
  bound (p20240101000000); an upper bound past 9999-12-31 is MAXVALUE. The column must be
  DATE/DATETIME and NOT NULL ("AUTO RANGE PARTITION doesn't support NULL column").
- AUTO LIST PARTITION BY LIST (cols): one partition per new value combination, named ``p`` +
  the escaped concatenation of each value followed by its length (NULL: ``X``), so 'Beijing' ->
  pBeijing7, 1 -> p11, NULL -> pX, (-1) -> p_2d12; letters and digits stay, any other character
  becomes its code point in hex, a leading '-' gives a leading '_'. With a string partition column
  a name longer than 50 characters is cut to 50 plus ``_`` and the hex of Java's String.hashCode
  of the whole name.
- max_auto_partition_num (FE config, default 2000) caps a table's partitions:
  "create partition failed. partition numbers will exceed limit variable max_auto_partition_num".
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from dorisql import ast
from dorisql import types as doris_types
from dorisql.errors import AnalysisError
from dorisql.partitioning import keys as K

#: PartitionExprUtil.getRangeEnd's units (date_trunc's, in Doris's spelling).
UNITS = ("year", "quarter", "month", "week", "day", "hour", "minute", "second")
MAX_PARTITION_NAME_LENGTH = 50
DEFAULT_MAX_AUTO_PARTITION_NUM = 2000
LIMIT_MESSAGE = "create partition failed. partition numbers will exceed limit variable max_auto_partition_num"

_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$", re.DOTALL)
_SLOT = re.compile(r"^(?:`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)$")
_STRING = re.compile(r"^(['\"])(.*)\1$", re.DOTALL)
UNIT_MESSAGE = "date_trunc function second param only support argument is " + "|".join(UNITS)


@dataclass(frozen=True)
class AutoRange:
    column: str
    unit: str  # lower case, as written: `check_unit` refuses an unknown one when a load uses it


def _arguments(text: str) -> list[str]:
    """A call's arguments: `text` cut at the commas outside quotes, backticks and brackets."""
    args: list[str] = []
    depth, quote, start = 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return args + [last] if last or args else args


def parse_range_expression(partition: ast.PartitionBy) -> AutoRange:
    """The column and unit of AUTO PARTITION BY RANGE (date_trunc(col, 'unit')), with Doris's
    refusals at CREATE TABLE: PartitionDesc.getColNamesFromExpr (a range function with one
    column), then PartitionTableInfo's (the call binds to date_trunc(datetime, varchar) without a
    cast; the column's type is checked by dorisql.analysis.checks). The unit is not checked here:
    Doris accepts 'yeear' at CREATE TABLE and refuses the first load (`check_unit`)."""
    if partition.columns and not partition.expressions:
        raise AnalysisError("Auto Range Partition need FunctionCallExpr")
    if len(partition.expressions) != 1:
        raise AnalysisError(
            "auto create partition only support one slotRef in function expr. " + ", ".join(partition.expressions)
        )
    text = partition.expressions[0]
    call = _CALL.match(text)
    # (of Doris's range functions, dorisql implements date_trunc)
    if call is None or call.group(1).lower() != "date_trunc":
        raise AnalysisError(
            "auto create partition only support function call expr is date_trunc/date_floor/date_ceil. " + text
        )
    name, args = call.group(1), _arguments(call.group(2))
    slots = [a for a in args if _SLOT.match(a)]
    if len(slots) > 1:
        raise AnalysisError("auto create partition only support one slotRef in function expr. " + text)
    if not slots:
        raise AnalysisError("auto create partition have not find any partition columns. " + text)
    unit = _STRING.match(args[1]) if len(args) == 2 else None
    if not _SLOT.match(args[0]) or unit is None:
        raise AnalysisError(f"partition expr {name} is illegal!")
    column = args[0]
    if column.startswith("`"):
        column = column[1:-1].replace("``", "`")
    return AutoRange(column, unit.group(2).lower())


def check_unit(unit: str) -> None:
    """DateTrunc's check of its unit, made when a load evaluates the partition expression."""
    if unit not in UNITS:
        raise AnalysisError(UNIT_MESSAGE)


def range_unit(partition: ast.PartitionBy) -> str:
    """The date_trunc unit an AUTO RANGE load partitions by (an unknown one refused)."""
    unit = parse_range_expression(partition).unit
    check_unit(unit)
    return unit


def check_list_expressions(partition: ast.PartitionBy) -> None:
    if partition.expressions:
        bad = next(e for e in partition.expressions if not re.match(r"^\s*`?[^\s(),`]+`?\s*$", e))
        raise AnalysisError("auto create partition only support slotRef in list partitions. " + bad)


# ---------------------------------------------------------------------- RANGE


def truncate(value: dt.datetime, unit: str) -> dt.datetime:
    """date_trunc(value, unit); weeks start on Monday."""
    if unit == "year":
        return value.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    if unit == "quarter":
        return value.replace(month=(value.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0, second=0, microsecond=0)
    if unit == "month":
        return value.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    if unit == "week":
        day = value - dt.timedelta(days=value.weekday())
        return day.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "day":
        return value.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "hour":
        return value.replace(minute=0, second=0, microsecond=0)
    if unit == "minute":
        return value.replace(second=0, microsecond=0)
    return value.replace(microsecond=0)


def _plus_months(value: dt.datetime, months: int) -> dt.datetime | None:
    index = value.year * 12 + value.month - 1 + months
    year, month = divmod(index, 12)
    if year > 9999:
        return None
    return value.replace(year=year, month=month + 1)


def range_end(begin: dt.datetime, unit: str) -> dt.datetime | None:
    """The exclusive upper bound one unit after `begin`; None past 9999-12-31 (MAXVALUE)."""
    if unit == "year":
        return _plus_months(begin, 12)
    if unit == "quarter":
        return _plus_months(begin, 3)
    if unit == "month":
        return _plus_months(begin, 1)
    step = {
        "week": dt.timedelta(days=7),
        "day": dt.timedelta(days=1),
        "hour": dt.timedelta(hours=1),
        "minute": dt.timedelta(minutes=1),
        "second": dt.timedelta(seconds=1),
    }[unit]
    try:
        return begin + step
    except OverflowError:
        return None


@dataclass(frozen=True)
class NewRange:
    name: str
    lower: str
    upper: str | None  # None: MAXVALUE


def range_partition(value: dt.date | dt.datetime, unit: str, column_type: ast.DataType) -> NewRange:
    """The auto range partition holding `value` of a DATE/DATETIME column."""
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    begin = truncate(value, unit)
    end = range_end(begin, unit)
    is_date = column_type.name.upper() in ("DATE", "DATEV2")

    def text(v: dt.datetime) -> str:
        day = f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
        return day if is_date else f"{day} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"

    name = "p" + f"{begin.year:04d}{begin.month:02d}{begin.day:02d}{begin.hour:02d}{begin.minute:02d}{begin.second:02d}"
    return NewRange(name, text(begin), None if end is None else text(end))


# ---------------------------------------------------------------------- LIST


def _escape(value: str) -> str:
    """PartitionExprUtil.getFormatPartitionValue."""
    out = ["_"] if value.startswith("-") else []
    units = value.encode("utf-16-le")
    chars = [int.from_bytes(units[i : i + 2], "little") for i in range(0, len(units), 2)]
    for i, ch in enumerate(chars):
        c = chr(ch) if ch < 0xD800 or ch > 0xDFFF else ""
        if c and (("A" <= c <= "Z") or ("a" <= c <= "z") or ("0" <= c <= "9")):
            out.append(c)
        elif 0xD800 <= ch <= 0xDBFF and i + 1 < len(chars) and 0xDC00 <= chars[i + 1] <= 0xDFFF:
            out.append(format(0x10000 + ((ch - 0xD800) << 10) + (chars[i + 1] - 0xDC00), "x"))  # codePointAt
        else:
            out.append(format(ch, "x"))
    return "".join(out)


def java_string_hash(text: str) -> int:
    """Java's String.hashCode (over UTF-16 code units, 32-bit signed)."""
    h = 0
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i : i + 2], "little")) & 0xFFFFFFFF
    return h


def _java_hex(n: int) -> str:
    """Integer.toHexString: the two's complement bits of a 32-bit int."""
    return format(n & 0xFFFFFFFF, "x")


def _java_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def list_partition_name(values: tuple[str | None, ...], has_string_column: bool) -> str:
    """Doris's name of the auto list partition of one value combination (values as Doris's text)."""
    joined = "".join("X" if v is None else v + str(_java_length(v)) for v in values)
    name = "p" + _escape(joined)
    if has_string_column and len(name) > MAX_PARTITION_NAME_LENGTH:
        name = name[:MAX_PARTITION_NAME_LENGTH] + "_" + _java_hex(java_string_hash(name))
    return name


def check_limit(existing: int, adding: int, limit: int) -> None:
    if existing + adding > limit:
        raise AnalysisError(LIMIT_MESSAGE)


# ---------------------------------------------------------------------- planning a load


def needed_items(meta, values: list[tuple]) -> list[ast.RangePartition | ast.ListPartition]:
    """The partitions to create so every value combination of a load (typed Python values of
    the partition columns, distinct) has one: those no live partition holds, one each, in value
    order, as ADD PARTITION items with Doris's names."""

    definition = meta.definition
    part = definition.partition
    _, ptypes = K.partition_columns(definition)
    existing = K.table_partitions(meta)
    made: dict[str, ast.RangePartition | ast.ListPartition] = {}
    if part.kind.upper() == "RANGE":
        unit = range_unit(part) if part.expressions else "day"
        for (value,) in sorted(v for v in values if v[0] is not None):
            if K.route((value,), existing) is not None:
                continue
            new = range_partition(value, unit, ptypes[0])
            if new.name not in made:
                upper = (ast.MAXVALUE,) if new.upper is None else (new.upper,)
                made[new.name] = ast.RangePartition(new.name, upper, lower=(new.lower,), if_not_exists=True)
        return list(made.values())
    has_string = any(doris_types.canonical(t).name in doris_types.STRING_TYPES for t in ptypes)
    for combo in sorted(values, key=lambda v: tuple((x is not None, str(x)) for x in v)):
        if K.route(combo, existing) is not None:
            continue
        texts = tuple(None if v is None else doris_types.format_value(v, t) for v, t in zip(combo, ptypes))
        name = list_partition_name(texts, has_string)
        if name not in made:
            made[name] = ast.ListPartition(name, (texts,), if_not_exists=True)
    return list(made.values())


# ---------------------------------------------------------------------- retention

#: AUTO RANGE tables: keep only the N historical partitions with the largest values (Doris's
#: partition.retention_count, applied by its dynamic partition scheduler).
RETENTION_COUNT = "partition.retention_count"


def retention_count(properties) -> int | None:
    """The table's partition.retention_count as a positive number, else None (not set)."""
    text = dict((k.lower(), v) for k, v in properties).get(RETENTION_COUNT)
    if text is None or not text.strip().isdigit() or int(text) <= 0:
        return None
    return int(text)


def retention_drops(partitions, now: dt.datetime, keep: int) -> list[str]:
    """Names of the historical partitions (upper bound <= now) beyond the `keep` with the largest
    values; current and future partitions (and MAXVALUE ones) always stay. `partitions`:
    catalog PartitionMeta of a one-column range table."""
    historical = []
    for p in partitions:
        if not p.upper or p.upper[0] in (None, "MAXVALUE"):
            continue
        try:
            upper = dt.datetime.fromisoformat(p.upper[0])
        except ValueError:
            continue
        if upper <= now:
            historical.append((upper, p.name))
    historical.sort(reverse=True)
    return [name for _, name in historical[keep:]]
