"""Dynamic partitioning: the ``dynamic_partition.*`` properties and the scheduler's planner.

Pure logic: no Spark, no I/O, no clock -- "now" is always an argument. Reproduces Apache Doris's
fe-core (read from apache/doris):

- ``common/util/DynamicPartitionUtil.java`` -- property validation and messages
  (``checkInputDynamicPartitionProperties``, ``analyzeDynamicPartition``), range borders
  (``getPartitionRangeString`` and ``getPartitionRangeOf{Hour,Day,Week,Month}``), partition names
  (``getFormattedPartitionName``), ``getRealStart``, reserved history periods;
- ``clone/DynamicPartitionScheduler.java`` -- which partitions to add
  (``getAddPartitionClause``) and drop (``getDropPartitionClause``);
- ``common/ErrorCode.java`` -- the ERROR_DYNAMIC_PARTITION_* texts.

Semantics, in short (offsets are in ``time_unit``s from the period containing "now"):

- "now" is taken in the table's ``dynamic_partition.time_zone``; borders are naive local
  dates (DATE columns) or datetimes (DATETIME columns) of that zone.
- Creation: offsets ``real_start .. end`` inclusive, where real_start is 0 unless
  ``create_history_partition`` is true, then ``max(start, -history_partition_num)`` (or ``start``
  when history_partition_num is unset). A new range that intersects any existing partition is not
  created (an identical range simply already exists; a partial overlap is a conflict, recorded
  as the create error -- also while the table is being created, which still succeeds). A border
  no DATE/DATETIME can hold is Doris's "date/datetime literal [...] is invalid": an error when
  creating (the table, while it is created), a recorded drop error for the START border.
- Dropping: only when ``start`` is set; a partition is kept if its range intersects
  ``[border(start), +inf)`` or one of ``reserved_history_periods`` (closed ranges), otherwise
  dropped -- i.e. partitions entirely before START go. ``history_partition_num`` plays no part.
- Borders: HOUR = now + offset hours on the instant timeline, truncated to the hour and shown in
  local time (so across a DST change an hour partition can span two local hours, and on the
  fall-back day one offset repeats a border and is skipped); DAY = local date + offset days;
  WEEK = local date + offset weeks, then moved to ``start_day_of_week`` *of that ISO week*
  (Monday-based: with a Wednesday start, on a Monday the "current" week partition begins on the
  coming Wednesday, exactly as Doris computes it); MONTH = local date + offset months (one month
  earlier if today's day < start_day_of_month), on ``start_day_of_month``; YEAR = January 1st of
  the local year + offset.
- Names: prefix + HOUR yyyyMMddHH | DAY yyyyMMdd | MONTH yyyyMM | YEAR yyyy | WEEK yyyy_ww, the
  week being java.util.Calendar's WEEK_OF_YEAR (en_US: weeks start on Sunday, week 1 is the week
  holding January 1st) of the partition's first day, with Doris's fix "week 1 in December ->
  +52" and the calendar year of that day: 2019-12-31 -> 2019_53, 2020-01-01 -> 2020_01.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dorisql import table_properties
from dorisql.ast import DataType
from dorisql.bucketing.bucket_limits import bucket_limit_error
from dorisql.errors import AnalysisError
from dorisql.partitioning import keys
from dorisql.partitioning.auto_partitions import parse_range_expression

# --------------------------------------------------------------------------- constants

PROPERTY_PREFIX = "dynamic_partition."

ENABLE = "dynamic_partition.enable"
TIME_UNIT = "dynamic_partition.time_unit"
TIME_ZONE = "dynamic_partition.time_zone"
START = "dynamic_partition.start"
END = "dynamic_partition.end"
PREFIX = "dynamic_partition.prefix"
BUCKETS = "dynamic_partition.buckets"
REPLICATION_NUM = "dynamic_partition.replication_num"
REPLICATION_ALLOCATION = "dynamic_partition.replication_allocation"
START_DAY_OF_WEEK = "dynamic_partition.start_day_of_week"
START_DAY_OF_MONTH = "dynamic_partition.start_day_of_month"
CREATE_HISTORY_PARTITION = "dynamic_partition.create_history_partition"
HISTORY_PARTITION_NUM = "dynamic_partition.history_partition_num"
RESERVED_HISTORY_PERIODS = "dynamic_partition.reserved_history_periods"
HOT_PARTITION_NUM = "dynamic_partition.hot_partition_num"
STORAGE_MEDIUM = "dynamic_partition.storage_medium"
STORAGE_POLICY = "dynamic_partition.storage_policy"

KNOWN_PROPERTIES = (
    ENABLE,
    TIME_UNIT,
    TIME_ZONE,
    START,
    END,
    PREFIX,
    BUCKETS,
    REPLICATION_NUM,
    REPLICATION_ALLOCATION,
    START_DAY_OF_WEEK,
    START_DAY_OF_MONTH,
    CREATE_HISTORY_PARTITION,
    HISTORY_PARTITION_NUM,
    RESERVED_HISTORY_PERIODS,
    HOT_PARTITION_NUM,
    STORAGE_MEDIUM,
    STORAGE_POLICY,
)

TIME_UNITS = ("HOUR", "DAY", "WEEK", "MONTH", "YEAR")

#: DynamicPartitionProperty.MIN_START_OFFSET (Integer.MIN_VALUE): "start not set, drop nothing".
MIN_START_OFFSET = -2147483648
#: DynamicPartitionProperty.MAX_END_OFFSET (Integer.MAX_VALUE).
MAX_END_OFFSET = 2147483647
#: history_partition_num not set.
NOT_SET_HISTORY_PARTITION_NUM = -1
#: reserved_history_periods not set (shown as NULL).
NOT_SET_RESERVED_HISTORY_PERIODS = "NULL"

#: FE config ``dynamic_partition_enable``. Current Doris (Config.java) defaults to true; the
#: seed's "default value is false" describes old releases. dorisql follows current Doris.
DYNAMIC_PARTITION_ENABLE = True
#: FE config ``dynamic_partition_check_interval_seconds``.
DYNAMIC_PARTITION_CHECK_INTERVAL_SECONDS = 600
#: FE config ``max_dynamic_partition_num``.
MAX_DYNAMIC_PARTITION_NUM = 500

#: What SHOW DYNAMIC PARTITION TABLES prints for an unset value (Doris FeConstants.null_string).
NULL_DISPLAY = "N/A"

DATE_FORMAT = "%Y-%m-%d"
DATETIME_FORMAT = "%Y-%m-%d %H:%M:%S"

#: Doris time zone aliases (TimeUtils.timeZoneAliasMap).
_ZONE_ALIASES = {"CST": "Asia/Shanghai", "PRC": "Asia/Shanghai", "UTC": "UTC", "GMT": "UTC"}
_OFFSET_ZONE = re.compile(r"^([+-])(\d{2}):(\d{2})$")
_INT = re.compile(r"^[+-]?\d+$")
#: FeNameFormat partition name rule (the prefix must itself be a valid partition name).
_PARTITION_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]{0,63}$")

_DAY_NAMES = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")

Bound = dt.date | dt.datetime


# --------------------------------------------------------------------------- small helpers


def _with_value(message: str, prop: str, value: object) -> str:
    """Doris's message, plus the property and the offending value when it does not name them."""
    if prop in message and f"{value}" in message:
        return message
    return f"{message} ({prop} = '{value}')"


def _fail(message: str, prop: str, value: object) -> AnalysisError:
    return AnalysisError(_with_value(message, prop, value))


def _parse_int(text: str) -> int | None:
    """Java Integer.parseInt: optional sign, digits, 32-bit range; None if not an int."""
    if text is None or not _INT.match(text):
        return None
    value = int(text)
    if value < MIN_START_OFFSET or value > MAX_END_OFFSET:
        return None
    return value


def _parse_bool(text: str) -> bool | None:
    if text is None:
        return None
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    return None


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th ... 11th, 12th, 13th ... 21st (Doris Util.ordinal)."""
    suffixes = ("th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th")
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{suffixes[n % 10]}"


def system_time_zone() -> str:
    """The machine's time zone name (Doris: TimeUtils.getSystemTimeZone), 'UTC' if unknown."""
    candidates = []
    env = os.environ.get("TZ")
    if env:
        candidates.append(env.lstrip(":"))
    try:
        with open("/etc/timezone", encoding="utf-8") as f:
            candidates.append(f.read().strip())
    except OSError:
        pass
    try:
        target = os.path.realpath("/etc/localtime")
        marker = "zoneinfo/"
        if marker in target:
            candidates.append(target.split(marker, 1)[1])
    except OSError:
        pass
    for name in candidates:
        if not name:
            continue
        try:
            ZoneInfo(name)
            return name
        except (ZoneInfoNotFoundError, ValueError):
            continue
    return "UTC"


def resolve_time_zone(name: str) -> dt.tzinfo:
    """A tzinfo for a Doris time zone value: an IANA name, an alias (CST, UTC) or '+08:00'.

    Raises AnalysisError (Doris: "Unknown or incorrect time zone: '...'").
    """
    text = (name or "").strip()
    m = _OFFSET_ZONE.match(text)
    if m:
        sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3))
        offset = dt.timedelta(hours=hours, minutes=minutes)
        if minutes >= 60 or offset > dt.timedelta(hours=14):
            raise _fail(f"Unknown or incorrect time zone: '{name}'", TIME_ZONE, name)
        return dt.timezone(-offset if sign == "-" else offset)
    zone = _ZONE_ALIASES.get(text.upper(), text)
    try:
        if not zone or zone.startswith("/") or ".." in zone:
            raise ValueError(zone)
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise _fail(f"Unknown or incorrect time zone: '{name}'", TIME_ZONE, name) from None


def normalize_column_type(type_name: str) -> str:
    """'DATE' or 'DATETIME' for the column types dynamic partitioning accepts, else AnalysisError."""
    name = (type_name or "").strip().upper()
    name = re.sub(r"\s*\(.*\)$", "", name)
    if name in ("DATE", "DATEV2"):
        return "DATE"
    if name in ("DATETIME", "DATETIMEV2"):
        return "DATETIME"
    raise AnalysisError(
        f"Dynamic partition only supports DATE and DATETIME partition columns, not {type_name} "
        f"(Doris also allows integer yyyyMMdd columns; dorisql does not)"
    )


# --------------------------------------------------------------------------- properties


@dataclass(frozen=True)
class DynamicPartitionProperties:
    """A table's validated ``dynamic_partition.*`` properties, with Doris's defaults filled in.

    ``buckets`` None means "not given": the engine uses the table's own BUCKETS (or AUTO).
    ``reserved_history_periods`` None means NULL (not set); otherwise the validated text.
    """

    time_unit: str
    end: int
    prefix: str
    time_zone: str
    enable: bool = True
    start: int = MIN_START_OFFSET
    buckets: int | None = None
    replication_num: int | None = None
    replication_allocation: str | None = None
    start_day_of_week: int = 1
    start_day_of_month: int = 1
    create_history_partition: bool = False
    history_partition_num: int = NOT_SET_HISTORY_PARTITION_NUM
    reserved_history_periods: str | None = None
    hot_partition_num: int = 0
    storage_medium: str | None = None
    storage_policy: str | None = None

    @property
    def start_is_set(self) -> bool:
        return self.start != MIN_START_OFFSET

    @property
    def zone(self) -> dt.tzinfo:
        return resolve_time_zone(self.time_zone)

    def reserved_periods(self) -> list[tuple[str, str]]:
        """The reserved history periods as (lower, upper) text pairs, sorted by lower."""
        if self.reserved_history_periods is None:
            return []
        return sorted(_RESERVED_ITEM[self.time_unit == "HOUR"].findall(self.reserved_history_periods))

    def sorted_reserved_history_periods(self) -> str:
        """The periods as SHOW prints them: sorted, or NULL when unset."""
        periods = self.reserved_periods()
        if not periods:
            return NOT_SET_RESERVED_HISTORY_PERIODS
        return ",".join(f"[{lo},{hi}]" for lo, hi in periods)

    def expected_create_partition_num(self) -> int:
        """Doris's expect_create_partition_num (checked against max_dynamic_partition_num)."""
        return _expected_num(self.create_history_partition, self.start, self.end, self.history_partition_num)

    def real_start(self) -> int:
        """The first offset created (DynamicPartitionUtil.getRealStart when history is on)."""
        if not self.create_history_partition:
            return 0
        if self.history_partition_num == NOT_SET_HISTORY_PARTITION_NUM:
            return self.start
        return max(self.start, -self.history_partition_num)

    def to_properties(self) -> dict[str, str]:
        """The canonical property map (for SHOW CREATE TABLE and for ALTER ... SET merges)."""
        out = {
            ENABLE: "true" if self.enable else "false",
            TIME_UNIT: self.time_unit,
            TIME_ZONE: self.time_zone,
            START: str(self.start),
            END: str(self.end),
            PREFIX: self.prefix,
        }
        if self.buckets is not None:
            out[BUCKETS] = str(self.buckets)
        if self.replication_num is not None:
            out[REPLICATION_NUM] = str(self.replication_num)
        if self.replication_allocation is not None:
            out[REPLICATION_ALLOCATION] = self.replication_allocation
        out[CREATE_HISTORY_PARTITION] = "true" if self.create_history_partition else "false"
        out[HISTORY_PARTITION_NUM] = str(self.history_partition_num)
        out[HOT_PARTITION_NUM] = str(self.hot_partition_num)
        out[RESERVED_HISTORY_PERIODS] = self.reserved_history_periods or NOT_SET_RESERVED_HISTORY_PERIODS
        if self.storage_medium is not None:
            out[STORAGE_MEDIUM] = self.storage_medium
        if self.storage_policy is not None:
            out[STORAGE_POLICY] = self.storage_policy
        if self.time_unit == "WEEK":
            out[START_DAY_OF_WEEK] = str(self.start_day_of_week)
        if self.time_unit == "MONTH":
            out[START_DAY_OF_MONTH] = str(self.start_day_of_month)
        return out


def _expected_num(create_history: bool, start: int, end: int, history_num: int) -> int:
    """expect_create_partition_num: end - 0 | end - max(start, -history_partition_num) | end - start."""
    if not create_history:
        return end - 0
    if history_num != NOT_SET_HISTORY_PARTITION_NUM:
        return end - max(start, -history_num)
    return end - start


_RESERVED_ITEM = {
    False: re.compile(r"\[([0-9]{4}-[0-9]{2}-[0-9]{2}),([0-9]{4}-[0-9]{2}-[0-9]{2})\]"),
    True: re.compile(
        r"\[([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2})"
        r",([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2})\]"
    ),
}

_RESERVED_INVALID = (
    'Invalid " {prop} " value {value}. It must be like "[yyyy-MM-dd,yyyy-MM-dd],[...,...]" while '
    'time_unit is DAY/WEEK/MONTH or "[yyyy-MM-dd HH:mm:ss,yyyy-MM-dd HH:mm:ss],[...,...]" while '
    "time_unit is HOUR."
)


def has_dynamic_properties(props: Mapping[str, str]) -> bool:
    """True when any ``dynamic_partition.*`` key is present."""
    return any(k.startswith(PROPERTY_PREFIX) for k in props)


def _check_reserved_history_periods(value: str, time_unit: str) -> str | None:
    if value is None or value == "":
        raise _fail("Dynamic reserved history periods is empty.", RESERVED_HISTORY_PERIODS, value)
    if value == NOT_SET_RESERVED_HISTORY_PERIODS:
        return None
    invalid = _RESERVED_INVALID.format(prop=RESERVED_HISTORY_PERIODS, value=value)
    if not value.startswith("[") or not value.endswith("]"):
        raise AnalysisError(invalid)
    hourly = time_unit == "HOUR"
    pairs = _RESERVED_ITEM[hourly].findall(value)
    for lo, hi in pairs:
        if lo > hi:
            raise _fail(
                f"The first date is larger than the second date, [{lo},{hi}] is invalid.",
                RESERVED_HISTORY_PERIODS,
                value,
            )
    if len(pairs) != len(value.split("],[")):
        raise AnalysisError(invalid)
    fmt = DATETIME_FORMAT if hourly else DATE_FORMAT
    for lo, hi in pairs:
        for text in (lo, hi):
            try:
                ok = dt.datetime.strptime(text, fmt).strftime(fmt) == text
            except ValueError:
                ok = False
            if not ok:
                raise _fail(
                    f"Invalid {RESERVED_HISTORY_PERIODS} value. It must be correct DATE value "
                    '"[yyyy-MM-dd,yyyy-MM-dd],[...,...]" while time_unit is DAY/WEEK/MONTH or '
                    '"[yyyy-MM-dd HH:mm:ss,yyyy-MM-dd HH:mm:ss],[...,...]" while time_unit is HOUR.',
                    RESERVED_HISTORY_PERIODS,
                    value,
                )
    return value


def parse_properties(
    props: Mapping[str, str],
    partition_column_type: str,
    *,
    partition_column: str = "k1",
    default_time_zone: str | None = None,
    max_dynamic_partition_num: int = MAX_DYNAMIC_PARTITION_NUM,
    auto_partition: bool = False,
) -> DynamicPartitionProperties | None:
    """Validate a table's ``dynamic_partition.*`` properties as Doris does (an AUTO PARTITION
    table may have dynamic_partition.end 0: its future partitions come from its loads).

    ``props`` may hold the table's other properties too; only ``dynamic_partition.*`` keys are
    read. Returns None when there are none. ``partition_column_type`` is 'DATE' or 'DATETIME'
    (DATEV2/DATETIMEV2 accepted); ``default_time_zone`` is used when time_zone is absent (Doris:
    the machine's zone; None here means ``system_time_zone()``). Raises AnalysisError with
    Doris's message, naming the property and value. The steps check in Doris's order, so the
    first error is Doris's.
    """
    dyn = {k: v for k, v in props.items() if k.startswith(PROPERTY_PREFIX)}
    if not dyn:
        return None
    _check_known(dyn)
    column_kind = normalize_column_type(partition_column_type)
    _check_required(dyn)
    # analyzeDynamicPartition, in Doris's order
    time_unit = _time_unit(dyn, column_kind, partition_column)
    prefix = _prefix(dyn)
    buckets = _buckets(dyn)
    enable = _enable(dyn)
    start = _start(dyn)
    end = _end(dyn, auto_partition)
    create_history = _create_history(dyn)
    history_num = _history_num(dyn)
    _check_partition_count(create_history, start, end, history_num, enable, max_dynamic_partition_num)
    start_day_of_month = _day_number(dyn, START_DAY_OF_MONTH, 28)
    start_day_of_week = _day_number(dyn, START_DAY_OF_WEEK, 7)
    time_zone = _given(dyn, TIME_ZONE) or default_time_zone or system_time_zone()
    resolve_time_zone(time_zone)
    replication_num = _replication_num(dyn)
    hot_partition_num = _hot_partition_num(dyn)
    _check_replica_allocation(dyn)
    reserved = None
    if RESERVED_HISTORY_PERIODS in dyn:
        reserved = _check_reserved_history_periods(dyn[RESERVED_HISTORY_PERIODS], time_unit)
    return DynamicPartitionProperties(
        time_unit=time_unit,
        end=end,
        prefix=prefix,
        time_zone=time_zone,
        enable=enable,
        start=start,
        buckets=buckets,
        replication_num=replication_num,
        replication_allocation=_given(dyn, REPLICATION_ALLOCATION),
        start_day_of_week=start_day_of_week,
        start_day_of_month=start_day_of_month,
        create_history_partition=create_history,
        history_partition_num=history_num,
        reserved_history_periods=reserved,
        hot_partition_num=hot_partition_num,
        storage_medium=_given(dyn, STORAGE_MEDIUM),
        storage_policy=_given(dyn, STORAGE_POLICY),
    )


def _given(dyn: Mapping[str, str], key: str) -> str | None:
    """The property's value, None when it is absent or empty."""
    value = dyn.get(key)
    return None if value is None or value == "" else value


def _check_known(dyn: Mapping[str, str]) -> None:
    unknown = {k: v for k, v in dyn.items() if k not in KNOWN_PROPERTIES}
    if unknown:
        listed = ", ".join(f"{k}={v}" for k, v in unknown.items())
        raise AnalysisError(f"Unknown properties: {{{listed}}}")


def _check_required(dyn: Mapping[str, str]) -> None:
    """checkInputDynamicPartitionProperties: the keys a dynamic partition table must set."""
    if _given(dyn, TIME_UNIT) is None:
        raise AnalysisError("Must assign dynamic_partition.time_unit properties")
    if _given(dyn, PREFIX) is None:
        raise AnalysisError("Must assign dynamic_partition.prefix properties")
    if _given(dyn, END) is None:
        raise AnalysisError("Must assign dynamic_partition.end properties")


def _time_unit(dyn: Mapping[str, str], column_kind: str, partition_column: str) -> str:
    unit_text = dyn[TIME_UNIT]
    time_unit = unit_text.upper()
    if time_unit not in TIME_UNITS:
        raise _fail(f"Unsupported time unit {unit_text}. Expect HOUR/DAY/WEEK/MONTH/YEAR.", TIME_UNIT, unit_text)
    if time_unit == "HOUR" and column_kind == "DATE":
        raise AnalysisError(f"{TIME_UNIT} could not be HOUR when type of partition column {partition_column} is DATE")
    return time_unit


def _prefix(dyn: Mapping[str, str]) -> str:
    prefix = dyn[PREFIX]
    if not _PARTITION_NAME.match(prefix):
        raise _fail(f"Invalid dynamic partition prefix: {prefix}.", PREFIX, prefix)
    return prefix


def _buckets(dyn: Mapping[str, str]) -> int | None:
    if BUCKETS not in dyn:
        return None
    text = dyn[BUCKETS]
    if text == "":
        raise _fail("Dynamic partition buckets is empty", BUCKETS, text)
    buckets = _parse_int(text)
    if buckets is None:
        raise _fail(f"Invalid dynamic partition buckets {text}", BUCKETS, text)
    if buckets <= 0:
        raise _fail("Dynamic partition buckets must greater than 0", BUCKETS, text)
    too_many = bucket_limit_error(buckets)
    if too_many:
        raise _fail(too_many, BUCKETS, text)
    return buckets


def _enable(dyn: Mapping[str, str]) -> bool:
    if ENABLE not in dyn:
        return True
    text = dyn[ENABLE]
    parsed = _parse_bool(text)
    if parsed is None:
        raise _fail(f"Invalid dynamic partition enable: {text}. Expected true or false", ENABLE, text)
    return parsed


def _start(dyn: Mapping[str, str]) -> int:
    if _given(dyn, START) is None:
        return MIN_START_OFFSET
    text = dyn[START]
    start = _parse_int(text)
    if start is None:
        raise _fail(f"Invalid dynamic partition start {text}", START, text)
    if start >= 0:
        raise _fail("Dynamic partition start must less than 0", START, text)
    return start


def _end(dyn: Mapping[str, str], auto_partition: bool) -> int:
    text = dyn[END]
    end = _parse_int(text)
    if end is None:
        raise _fail(f"Invalid dynamic partition end {text}", END, text)
    if end < 0 or (end == 0 and not auto_partition):
        raise _fail("Dynamic partition end must greater than 0", END, text)
    return end


def _create_history(dyn: Mapping[str, str]) -> bool:
    if CREATE_HISTORY_PARTITION not in dyn:
        return False
    text = dyn[CREATE_HISTORY_PARTITION]
    parsed = _parse_bool(text)
    if parsed is None:
        raise _fail(
            f"Invalid dynamic partition create_history_partition: {text}. Expected true or false",
            CREATE_HISTORY_PARTITION,
            text,
        )
    return parsed


def _history_num(dyn: Mapping[str, str]) -> int:
    if HISTORY_PARTITION_NUM not in dyn:
        return NOT_SET_HISTORY_PARTITION_NUM
    text = dyn[HISTORY_PARTITION_NUM]
    number = _parse_int(text)
    if number is None:
        raise _fail(f"Invalid properties: {HISTORY_PARTITION_NUM}", HISTORY_PARTITION_NUM, text)
    if number < 0 and number != NOT_SET_HISTORY_PARTITION_NUM:
        raise _fail("Dynamic history partition num must greater than 0", HISTORY_PARTITION_NUM, text)
    return number


def _check_partition_count(
    create_history: bool, start: int, end: int, history_num: int, enable: bool, limit: int
) -> None:
    """The history settings agree, and an enabled table would not make too many partitions
    (Doris checks the count here, before the remaining properties)."""
    if create_history and history_num == NOT_SET_HISTORY_PARTITION_NUM and start == MIN_START_OFFSET:
        raise AnalysisError("Provide start or history_partition_num property when creating history partition")
    expected = _expected_num(create_history, start, end, history_num)
    if enable and expected > limit:
        raise AnalysisError(too_many_message(expected, limit))


def _day_number(dyn: Mapping[str, str], key: str, last: int) -> int:
    """start_day_of_month (1..28) or start_day_of_week (1..7); 1 when absent."""
    if key not in dyn:
        return 1
    text = dyn[key]
    number = _parse_int(text) if text else None
    if number is None:
        raise _fail(f"Invalid properties: {key}", key, text)
    if number < 1 or number > last:
        raise _fail(f"{key} should between 1 and {last}", key, text)
    return number


def _replication_num(dyn: Mapping[str, str]) -> int | None:
    if REPLICATION_NUM not in dyn:
        return None
    text = dyn[REPLICATION_NUM]
    if text == "":
        raise _fail(f"Invalid properties: {REPLICATION_NUM}", REPLICATION_NUM, text)
    number = _parse_int(text)
    if number is None:
        raise _fail(f"Invalid dynamic partition replication num: {text}.", REPLICATION_NUM, text)
    if number <= 0:
        raise _fail("Dynamic partition replication num must greater than 0", REPLICATION_NUM, text)
    return number


def _hot_partition_num(dyn: Mapping[str, str]) -> int:
    if HOT_PARTITION_NUM not in dyn:
        return 0
    text = dyn[HOT_PARTITION_NUM]
    if text == "":
        raise _fail(f"Invalid properties: {HOT_PARTITION_NUM}", HOT_PARTITION_NUM, text)
    number = _parse_int(text)
    if number is None:
        raise _fail(f"Invalid {HOT_PARTITION_NUM} value", HOT_PARTITION_NUM, text)
    if number < 0:
        raise _fail(f"{HOT_PARTITION_NUM} must larger than 0.", HOT_PARTITION_NUM, text)
    return number


def _check_replica_allocation(dyn: Mapping[str, str]) -> None:
    """DynamicPartitionUtil.checkReplicaAllocation: backends must exist for every tag."""
    allocation = _given(dyn, REPLICATION_ALLOCATION)
    if allocation is not None:
        unavailable = table_properties.unavailable_replica_tags(allocation, _given(dyn, STORAGE_MEDIUM))
        if unavailable:
            raise AnalysisError(unavailable)


def too_many_message(expected: int, limit: int) -> str:
    """Doris's refusal text."""
    return f"Too many dynamic partitions: {expected}. Limit: {limit}"


def alter_properties(
    current: DynamicPartitionProperties, changes: Mapping[str, str], partition_column_type: str, **kw
) -> DynamicPartitionProperties:
    """The properties after ``ALTER TABLE ... SET (changes)``: merged by the rule the engine's
    ALTER TABLE SET uses (dorisql.table_properties.merge), then validated again."""
    merged = table_properties.merge(
        current.to_properties(), {k: v for k, v in changes.items() if k.startswith(PROPERTY_PREFIX)}
    )
    kw.setdefault("default_time_zone", current.time_zone)
    result = parse_properties(merged, partition_column_type, **kw)
    assert result is not None
    return result


def validate_properties(
    stmt,
    *,
    default_time_zone: str | None = None,
    max_dynamic_partition_num: int | None = None,
) -> DynamicPartitionProperties | None:
    """Check a CREATE TABLE (dorisql.ast.CreateTable) whose properties hold dynamic_partition.*.

    Returns None when there are no such properties; otherwise checks the table shape (RANGE on
    one DATE/DATETIME column declared in the statement) and returns the parsed properties.
    ``max_dynamic_partition_num`` None skips the partition-count limit: it is a frontend setting
    (ADMIN SET FRONTEND CONFIG) that only the engine knows, and the engine checks it when it
    creates the table.
    """
    if max_dynamic_partition_num is None:
        max_dynamic_partition_num = MAX_END_OFFSET
    props = dict(stmt.properties)
    if not has_dynamic_properties(props):
        return None
    part = stmt.partition
    if part is None:
        raise AnalysisError("Only support dynamic partition properties on range partition table")
    if part.kind.upper() != "RANGE" or len(part.columns) != 1:
        raise AnalysisError("Dynamic partition only support single-column range partition")
    column_name = part.columns[0]
    column = next((c for c in stmt.columns if c.name.lower() == column_name.lower()), None)
    if column is None:
        raise AnalysisError(f"Unknown column '{column_name}' in partition columns")
    try:
        kind = normalize_column_type(column.type.name)
    except AnalysisError:
        raise AnalysisError(
            f"Dynamic partition only supports DATE and DATETIME partition columns: column "
            f"{column.name} is {column.type.name}"
        ) from None
    parsed = parse_properties(
        props,
        kind,
        partition_column=column.name,
        default_time_zone=default_time_zone,
        max_dynamic_partition_num=max_dynamic_partition_num,
        auto_partition=part.auto_partition,
    )
    if parsed is not None and part.auto_partition and part.expressions:
        # Doris (DynamicPartitionUtil): the auto and the dynamic partitions must be the same size
        if parse_range_expression(part).unit != parsed.time_unit.lower():
            raise AnalysisError(
                "If support auto partition and dynamic partition at same time, they must have the same interval unit."
            )
    return parsed


# --------------------------------------------------------------------------- borders and names


def border(props: DynamicPartitionProperties, now_local: dt.datetime, offset: int) -> dt.datetime:
    """The lower border of the period ``offset`` units from the one holding ``now_local``.

    ``now_local`` is an aware datetime in the table's zone; the result is a naive local
    datetime (midnight for every unit but HOUR). DynamicPartitionUtil.getPartitionRangeString.
    """
    unit = props.time_unit
    if unit == "HOUR":
        instant = now_local.astimezone(dt.timezone.utc) + dt.timedelta(hours=offset)
        local = instant.astimezone(now_local.tzinfo)
        return local.replace(minute=0, second=0, microsecond=0, tzinfo=None, fold=0)
    today = now_local.date()
    if unit == "DAY":
        day = today + dt.timedelta(days=offset)
    elif unit == "WEEK":
        shifted = today + dt.timedelta(weeks=offset)
        day = shifted + dt.timedelta(days=props.start_day_of_week - shifted.isoweekday())
    elif unit == "MONTH":
        real = offset - 1 if today.day < props.start_day_of_month else offset
        day = keys.add_months(today, real).replace(day=props.start_day_of_month)
    elif unit == "YEAR":
        day = dt.date(today.year + offset, 1, 1)
    else:  # pragma: no cover - validated earlier
        raise ValueError(unit)
    return dt.datetime(day.year, day.month, day.day)


#: Days in 400 Gregorian years: the calendar (weekdays included) repeats with this period.
_DAYS_PER_400_YEARS = 146097


def _proleptic(ordinal: int) -> tuple[int, int, int]:
    """(year, month, day) of a proleptic Gregorian day number (``date.toordinal``), for any
    year: Python's dates stop at 1 and 9999, Doris's borders need not."""
    cycles = (ordinal - 1) // _DAYS_PER_400_YEARS
    d = dt.date.fromordinal(ordinal - cycles * _DAYS_PER_400_YEARS)
    return d.year + 400 * cycles, d.month, d.day


def border_text(props: DynamicPartitionProperties, now_local: dt.datetime, offset: int, kind: str) -> str:
    """The border ``offset`` units from now as Doris writes it (DynamicPartitionUtil's
    yyyy-MM-dd[ HH:mm:ss] pattern), for a border outside 0001..9999 that ``border`` cannot
    compute. Java prints the year of era, with a '+' past four digits: '+271768-09-11'."""
    unit, today, hour = props.time_unit, now_local.date(), 0
    if unit == "HOUR":
        utc = now_local.astimezone(dt.timezone.utc)
        ordinal, hour = divmod(utc.toordinal() * 24 + utc.hour + offset, 24)
        year, month, day = _proleptic(ordinal)
    elif unit == "DAY":
        year, month, day = _proleptic(today.toordinal() + offset)
    elif unit == "WEEK":
        shifted = today.toordinal() + 7 * offset
        weekday = today.isoweekday()  # shifting by whole weeks keeps the weekday
        year, month, day = _proleptic(shifted + props.start_day_of_week - weekday)
    elif unit == "MONTH":
        real = offset - 1 if today.day < props.start_day_of_month else offset
        year, month0 = divmod(today.year * 12 + today.month - 1 + real, 12)
        month, day = month0 + 1, props.start_day_of_month
    else:  # YEAR
        year, month, day = today.year + offset, 1, 1
    year_of_era = year if year > 0 else 1 - year
    text = f"{'+' if year_of_era > 9999 else ''}{year_of_era:04d}-{month:02d}-{day:02d}"
    return text + (f" {hour:02d}:00:00" if kind == "DATETIME" else "")


def invalid_border(props: DynamicPartitionProperties, now_local: dt.datetime, offset: int, kind: str) -> str:
    """Doris's refusal of a border no DATE/DATETIME can hold (DateLiteral's message)."""
    return f"date/datetime literal [{border_text(props, now_local, offset, kind)}] is invalid"


def java_week_of_year(d: dt.date) -> int:
    """java.util.Calendar WEEK_OF_YEAR with en_US rules (weeks start Sunday, week 1 holds Jan 1)."""
    sunday = d - dt.timedelta(days=d.isoweekday() % 7)
    if sunday + dt.timedelta(days=6) >= dt.date(d.year + 1, 1, 1):
        return 1  # the week holding next January 1st
    jan1 = dt.date(d.year, 1, 1)
    first_sunday = jan1 - dt.timedelta(days=jan1.isoweekday() % 7)
    return (sunday - first_sunday).days // 7 + 1


def week_suffix(d: dt.date) -> str:
    """Doris's yyyy_ww for a week partition starting on ``d`` (getFormattedPartitionName)."""
    week = java_week_of_year(d)
    if week <= 1 and d.month == 12:
        # JDK counts the last days of December as week 1 of the next year: make them week 53
        week += 52
    return f"{d.year}_{week:02d}"


def partition_suffix(time_unit: str, lower: dt.datetime) -> str:
    """The part of a dynamic partition's name after the prefix."""
    if time_unit == "HOUR":
        return lower.strftime("%Y%m%d%H")
    if time_unit == "DAY":
        return lower.strftime("%Y%m%d")
    if time_unit == "MONTH":
        return lower.strftime("%Y%m")
    if time_unit == "YEAR":
        return f"{lower.year:04d}"
    return week_suffix(lower.date())


def format_bound(value: Bound | None) -> str:
    """'2020-05-29' for a date, '2020-05-25 00:00:00' for a datetime, MAXVALUE/MINVALUE for None."""
    if value is None:
        return "MAXVALUE"
    if isinstance(value, dt.datetime):
        return value.strftime(DATETIME_FORMAT)
    return value.strftime(DATE_FORMAT)


def _as_bound(value: Bound, column_kind: str) -> Bound:
    """A border as a value of the partition column: a date, or a naive datetime (a date at
    midnight)."""
    if column_kind == "DATE":
        return value.date() if isinstance(value, dt.datetime) else value
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    return dt.datetime(value.year, value.month, value.day)


def _range_of(lower: Bound | None, upper: Bound | None, column_kind: str) -> keys.Range:
    """[lower, upper) in the partition key model (None: unbounded), as routing sees it."""
    return keys.single_column_range(
        None if lower is None else _as_bound(lower, column_kind),
        None if upper is None else _as_bound(upper, column_kind),
        DataType(column_kind),
    )


# --------------------------------------------------------------------------- planner


@dataclass(frozen=True)
class ExistingPartition:
    """A partition the table already has: [lower, upper); None = unbounded (MIN / MAXVALUE)."""

    name: str
    lower: Bound | None
    upper: Bound | None


@dataclass(frozen=True)
class PlannedPartition:
    """A partition the scheduler should add: [lower, upper), ``offset`` units from now."""

    name: str
    lower: Bound
    upper: Bound
    offset: int

    @property
    def is_history(self) -> bool:
        """True for a partition before the current period (create_history_partition)."""
        return self.offset < 0

    @property
    def source(self) -> str:
        return "history" if self.offset < 0 else "future"

    @property
    def lower_text(self) -> str:
        return format_bound(self.lower)

    @property
    def upper_text(self) -> str:
        return format_bound(self.upper)


@dataclass
class Plan:
    """What one scheduler pass should do. Apply ``to_drop`` first, then ``to_create`` in order."""

    to_create: list[PlannedPartition] = field(default_factory=list)
    to_drop: list[str] = field(default_factory=list)
    create_errors: list[str] = field(default_factory=list)
    drop_errors: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    #: "now" in the table's zone (aware).
    now_local: dt.datetime | None = None
    #: The name of the partition covering now (Doris excludes it from auto-bucket history).
    now_partition_name: str | None = None
    #: The START border (partitions entirely before it are dropped); None when start is unset.
    start_border: Bound | None = None

    @property
    def errors(self) -> list[str]:
        return self.create_errors + self.drop_errors

    @property
    def state(self) -> str:
        return "ERROR" if self.errors else "NORMAL"

    @property
    def last_create_partition_msg(self) -> str | None:
        return self.create_errors[-1] if self.create_errors else None

    @property
    def last_drop_partition_msg(self) -> str | None:
        return self.drop_errors[-1] if self.drop_errors else None


def localize_now(now: dt.datetime, zone: dt.tzinfo, now_zone: str | None = None) -> dt.datetime:
    """``now`` as an aware datetime in ``zone``.

    Aware input is converted. Naive input is a wall-clock time in ``now_zone`` when given, else
    in the table's own zone (so ``SET dorisql_now = '2020-05-29 10:00:00'`` means 10:00 on the
    table's clock, whatever the machine's zone).
    """
    if now.tzinfo is not None and now.utcoffset() is not None:
        return now.astimezone(zone)
    if now_zone is not None:
        return now.replace(tzinfo=resolve_time_zone(now_zone)).astimezone(zone)
    return now.replace(tzinfo=zone)


def _range_text(lower: Bound | None, upper: Bound | None) -> str:
    lo = "MINVALUE" if lower is None else format_bound(lower)
    return f"[{lo}, {format_bound(upper)})"


def plan(
    props: DynamicPartitionProperties,
    existing: Sequence[ExistingPartition],
    now: dt.datetime,
    partition_column_type: str,
    max_dynamic_partition_num: int = MAX_DYNAMIC_PARTITION_NUM,
    creating_table: bool = False,
    now_zone: str | None = None,
) -> Plan:
    """One dynamic-partition scheduler pass for a table (DynamicPartitionScheduler).

    ``existing``: the table's partitions now. ``now``: see ``localize_now``. With
    ``creating_table`` (the first pass, during CREATE TABLE) a conflict with an existing
    partition or too many partitions raises AnalysisError instead of being recorded.
    Disabled properties give an empty plan. Bucket counts are the engine's business.
    """
    kind = normalize_column_type(partition_column_type)
    zone = resolve_time_zone(props.time_zone)
    now_local = localize_now(now, zone, now_zone)
    result = Plan(now_local=now_local)
    result.now_partition_name = props.prefix + partition_suffix(props.time_unit, border(props, now_local, 0))
    if not props.enable:
        result.messages.append("dynamic partition is disabled for this table")
        return result

    existing_ranges = [(p, _range_of(p.lower, p.upper, kind)) for p in existing]

    # ---- partitions to add
    expected = props.expected_create_partition_num()
    if expected > max_dynamic_partition_num:
        message = too_many_message(expected, max_dynamic_partition_num)
        if creating_table:
            raise AnalysisError(message)
        result.create_errors.append(message)
    else:
        _plan_creations(props, existing_ranges, now_local, kind, creating_table, result)

    # ---- partitions to drop (only partitions that existed before this pass)
    if props.start_is_set:
        _plan_drops(props, existing_ranges, now_local, kind, result)
    return result


def _plan_creations(
    props: DynamicPartitionProperties,
    existing: list[tuple[ExistingPartition, keys.Range]],
    now_local: dt.datetime,
    kind: str,
    creating_table: bool,
    result: Plan,
) -> None:
    taken_names = {p.name.lower() for p, _ in existing}
    # every range so far, planned ones included, for bisect lookups (a table with thousands of
    # partitions is re-planned on every pass)
    index = keys.RangeIndex((r, p) for p, r in existing)
    column_type = (DataType(kind),)

    def bound(offset: int) -> tuple[dt.datetime, Bound, keys.PartitionKey]:
        border_at = border(props, now_local, offset)
        value = _as_bound(border_at, kind)
        return border_at, value, keys.range_key((value,), column_type)

    try:
        upper, hi_b, hi_key = bound(props.real_start())
    except (OverflowError, ValueError):  # a border before year 1 or after 9999
        message = invalid_border(props, now_local, props.real_start(), kind)
        if creating_table:
            raise AnalysisError(message) from None
        result.create_errors.append(message)
        return
    for offset in range(props.real_start(), props.end + 1):
        # each period's upper border is the next one's lower border
        lower, lo_b, lo_key = upper, hi_b, hi_key
        try:
            upper, hi_b, hi_key = bound(offset + 1)
        except (OverflowError, ValueError):
            message = invalid_border(props, now_local, offset + 1, kind)
            if creating_table:
                raise AnalysisError(message) from None
            result.create_errors.append(message)
            return
        name = props.prefix + partition_suffix(props.time_unit, lower)
        if lo_b >= hi_b:
            # HOUR across a DST fall-back: two offsets share a local border; nothing to create
            result.messages.append(f"skip {name}: empty range {_range_text(lo_b, hi_b)} (time zone transition)")
            continue
        new = keys.Range(lo_key, hi_key)
        clash = index.first_intersecting(new)
        if clash is not None:
            clash_range, part = clash
            if clash_range == new:
                result.messages.append(f"partition {part.name} already covers offset {offset}")
            else:
                # Doris (getAddPartitionClause) skips it and records the conflict, even while
                # the table is being created: CREATE TABLE succeeds.
                result.create_errors.append(
                    f"Range {_range_text(part.lower, part.upper)} of partition {part.name} "
                    f"is intersected with range: {_range_text(lo_b, hi_b)} of new "
                    f"partition {name}"
                )
            continue
        if name.lower() in taken_names:
            message = f"Duplicate partition name {name}: {_range_text(lo_b, hi_b)} not created"
            if creating_table:
                raise AnalysisError(message)
            result.create_errors.append(message)
            continue
        taken_names.add(name.lower())
        index.add(new, ExistingPartition(name, lo_b, hi_b))
        result.to_create.append(PlannedPartition(name, lo_b, hi_b, offset))


def _reserved_ranges(props: DynamicPartitionProperties, kind: str) -> list[tuple[keys.PartitionKey, keys.PartitionKey]]:
    """reserved_history_periods as closed [lo, hi] keys (getHistoryPartitionRangeString)."""
    out = []
    fmt = DATETIME_FORMAT if props.time_unit == "HOUR" else DATE_FORMAT
    column_type = (DataType(kind),)
    for lo_text, hi_text in props.reserved_periods():
        lo = dt.datetime.strptime(lo_text, fmt).replace(minute=0, second=0)
        hi = dt.datetime.strptime(hi_text, fmt).replace(minute=0, second=0)
        out.append(
            (keys.range_key((_as_bound(lo, kind),), column_type), keys.range_key((_as_bound(hi, kind),), column_type))
        )
    return out


def _plan_drops(
    props: DynamicPartitionProperties,
    existing: list[tuple[ExistingPartition, keys.Range]],
    now_local: dt.datetime,
    kind: str,
    result: Plan,
) -> None:
    try:
        start = _as_bound(border(props, now_local, props.start), kind)
    except (OverflowError, ValueError):
        # Doris (getDropPartitionClause) drops nothing and records why.
        result.drop_errors.append(
            f"'{START}' = {props.start}, maybe it's too small, can use alter table sql to increase it. "
            f", error: {invalid_border(props, now_local, props.start, kind)}"
        )
        return
    result.start_border = start
    start_key = keys.range_key((start,), (DataType(kind),))
    reserved = _reserved_ranges(props, kind)
    # Doris sorts by upper endpoint; MAXVALUE partitions last.
    for part, r in sorted(existing, key=lambda e: e[1].upper.sort_key):
        if r.upper > start_key:
            continue  # intersects [START, +inf)
        if any(r.lower <= r_hi and r.upper > r_lo for r_lo, r_hi in reserved):
            result.messages.append(f"keep {part.name}: in reserved_history_periods")
            continue
        result.to_drop.append(part.name)
        result.messages.append(
            f"drop {part.name}: {_range_text(part.lower, part.upper)} is before START {format_bound(start)}"
        )


# --------------------------------------------------------------------------- SHOW


SHOW_COLUMNS = (
    "TableName",
    "Enable",
    "TimeUnit",
    "Start",
    "End",
    "Prefix",
    "Buckets",
    "StartOf",
    "LastUpdateTime",
    "LastSchedulerTime",
    "State",
    "LastCreatePartitionMsg",
    "LastDropPartitionMsg",
    "ReservedHistoryPeriods",
)


def show_columns() -> list[str]:
    """The columns of SHOW DYNAMIC PARTITION TABLES."""
    return list(SHOW_COLUMNS)


def start_of_display(props: DynamicPartitionProperties) -> str:
    """StartOf: MONDAY..SUNDAY for WEEK, 1st..28th for MONTH, N/A otherwise."""
    if props.time_unit == "WEEK":
        return _DAY_NAMES[props.start_day_of_week - 1]
    if props.time_unit == "MONTH":
        return ordinal(props.start_day_of_month)
    return NULL_DISPLAY


def _time_text(value: dt.datetime | None) -> str:
    if value is None:
        return NULL_DISPLAY
    return value.strftime(DATETIME_FORMAT)


def format_show_row(
    table_name: str, props: DynamicPartitionProperties, state=None, buckets: int | None = None
) -> list[str]:
    """One SHOW DYNAMIC PARTITION TABLES row (text values, in ``show_columns()`` order).

    ``state``: a dorisql.catalog.model.DynamicState (or None: never scheduled). ``buckets``:
    shown when the properties carry no dynamic_partition.buckets (the table's bucket count).
    """
    shown_buckets = props.buckets if props.buckets is not None else buckets
    return [
        table_name,
        "true" if props.enable else "false",
        props.time_unit,
        str(props.start),
        str(props.end),
        props.prefix,
        NULL_DISPLAY if shown_buckets is None else str(shown_buckets),
        start_of_display(props),
        _time_text(getattr(state, "last_update_time", None)),
        _time_text(getattr(state, "last_scheduler_time", None)),
        getattr(state, "state", None) or "NORMAL",
        getattr(state, "last_create_partition_msg", None) or NULL_DISPLAY,
        getattr(state, "last_drop_partition_msg", None) or NULL_DISPLAY,
        props.sorted_reserved_history_periods(),
    ]
