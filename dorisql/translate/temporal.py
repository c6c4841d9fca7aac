"""DATE and DATETIME(p) values as Doris stores them, as Spark SQL: pure text and tree work.

Spark keeps every TIMESTAMP_NTZ to the microsecond and casts neither a compact date
(``'20240408'``) nor an integer (``20240408``) to a DATE. Doris does both, and a DATETIME(p)
column holds its value rounded to p fractional digits (DateTimeV2Literal.roundMicroSecond on
the FE, DateV2Value::from_date_str_base on the BE):

- the fraction is rounded half up to the scale, the carry going into the second, minute, hour,
  day, month and year (``'2022-12-31 23:59:59.5'`` into DATETIME is ``2023-01-01 00:00:00``);
- digits beyond the sixth count for DATETIME(6) (``.1234567`` is ``.123457``);
- a carry past ``9999-12-31 23:59:59`` leaves the type's range: the value is invalid (NULL,
  which strict mode refuses), while ``'9999-12-31 23:59:59.999999'`` fits DATETIME(6);
- ``YYYYMMDD`` and ``YYYYMMDDHHMMSS[.f]`` (strings or integers) are dates and datetimes; an
  integer of 6 or 12 digits is ``YYMMDD[HHMMSS]`` (years 70-99 are 19xx, 00-69 20xx).

`cast_sql` is the one cast every load path (INSERT VALUES and SELECT, Stream Load, CTAS,
UPDATE, AUTO PARTITION) applies to a DATE / DATETIME column's value; `translate_casts` gives
a query's ``CAST(... AS DATE / DATETIME(p))`` the same values, of literals and of any other
value (a string or integer column read as its text, as Doris's BE reads it), and ``now(p)`` its
p digits. `datetime_scale` is Doris's scale of an expression's DATETIME value (a column's p, a
cast's, ``now(p)``'s, what MAX/MIN/COALESCE/IF/CASE keep): results show exactly p digits.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from sqlglot import exp, parse_one

from dorisql.ast import DataType
from dorisql.errors import DorisqlError
from dorisql.types import canonical, parse_date, parse_datetime, spark_string, spark_type

__all__ = ["SCALE_METADATA", "ColumnType", "cast_sql", "datetime_scale", "round_sql", "translate_casts"]

#: The Spark field metadata key holding a DATETIME column's scale p (a result shows p digits).
SCALE_METADATA = "dorisql.datetime_scale"

#: The Doris type of a column a query names (None: not known).
ColumnType = Callable[[exp.Column], DataType | None]

#: ``YYYYMMDDHHMMSS[.f]`` and ``YYYYMMDD``, rewritten with the separators Spark's cast needs.
_COMPACT_DATETIME = (
    r"^([0-9]{4})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([.][0-9]*)?$",
    "$1-$2-$3 $4:$5:$6$7",
)
_COMPACT_DATE = (r"^([0-9]{4})([0-9]{2})([0-9]{2})$", "$1-$2-$3")
#: A seventh fractional digit of 5 or more: DATETIME(6) rounds it up (Spark drops it).
_SEVENTH_DIGIT_UP = r"[.][0-9]{6}[5-9]"
_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_STRINGS = ("string", "void")


def _scale(target: DataType) -> int:
    return canonical(target).params[0]


def _normalised(text_sql: str, digits_only: bool = True) -> str:
    """A string value with its compact forms given separators (anything else unchanged). Digits
    alone are a date only as ``YYMMDD[HHMMSS]`` (read as that integer is: `_integer_text`) or
    ``YYYYMMDD[HHMMSS]``: Spark's cast would read ``240408`` as the year 240408. `digits_only`
    False: the value is an integer's text already."""
    value = f"trim({text_sql})"
    if digits_only:
        value = (
            f"CASE WHEN {value} RLIKE '^([0-9]{{6}}|[0-9]{{12}})$' THEN {_integer_text(value)} "
            f"WHEN {value} RLIKE '^([0-9]{{8}}|[0-9]{{14}})$' OR {value} NOT RLIKE '^[0-9]+$' THEN {value} END"
        )
    for pattern, replacement in (_COMPACT_DATETIME, _COMPACT_DATE):
        value = f"regexp_replace({value}, {spark_string(pattern)}, {spark_string(replacement)})"
    return value


#: Doris's standardize_timevalue (MySQL's number_to_datetime): an integer's ranges, each
#: invalid (None) or read with this added; YYMMDD and YYMMDDHHMMSS years 70-99 are 19xx,
#: 00-69 20xx.
_INTEGER_RANGES = (
    (100, None),
    (691231, 20000000),
    (700100, None),
    (991231, 19000000),
    (10000100, None),
    (99991231, 0),
    (100999999, None),
    (691231235959, 20000000000000),
    (700101000000 - 1, None),
    (991231235959, 19000000000000),
)


def _integer_text(value_sql: str) -> str:
    """An integer date or datetime (``20240408``, ``240408``, ``20240408121314``) as the
    ``YYYYMMDD`` / ``YYYYMMDDHHMMSS`` text the compact forms read, NULL where Doris's
    DateV2Value::from_date_int64 reads no value."""
    n = f"CAST({value_sql} AS BIGINT)"
    cases = " ".join(
        f"WHEN {n} <= {limit} THEN " + ("NULL" if add is None else f"CAST({n} + {add} AS STRING)")
        for limit, add in _INTEGER_RANGES
    )
    # (a 13-digit value is YYYYMMDDHHMMSS with a 3-digit year; beyond 14 digits no year fits)
    return f"CASE {cases} WHEN {n} <= 99999999999999 THEN lpad(CAST({n} AS STRING), 14, '0') END"


def round_sql(value_sql: str, scale: int) -> str:
    """A TIMESTAMP_NTZ rounded half up to `scale` fractional digits; NULL when the carry leaves
    year 9999. The rounding reads the second's fraction (EXTRACT SECOND): no time zone in it."""
    if scale >= 6:
        return value_sql
    unit = 10 ** (6 - scale)
    half = unit // 2
    # rounded up from here on, the value would be 10000-01-01 00:00:00
    limit = dt.datetime(9999, 12, 31, 23, 59, 59) + dt.timedelta(microseconds=1_000_000 - half)
    micros = f"CAST(extract(SECOND FROM {value_sql}) * 1000000 AS BIGINT)"
    delta = f"{half} - pmod({micros} + {half}, {unit})"  # -f, or unit - f when f >= half
    return (
        f"CASE WHEN {value_sql} < TIMESTAMP_NTZ'{limit:%Y-%m-%d %H:%M:%S.%f}' "
        f"THEN timestampadd(MICROSECOND, {delta}, {value_sql}) END"
    )


def cast_sql(value_sql: str, source: str | None, target: DataType) -> str:
    """`value_sql` (of Spark type `source`, e.g. ``string``, ``int``, ``timestamp_ntz``; None:
    unknown, read as its text) as the DATE / DATETIME(p) column `target` stores it: NULL when it is
    no such value. Any other target type: Spark's ``try_cast``."""
    c = canonical(target)
    if c.name not in ("DATE", "DATETIME"):
        return f"try_cast({value_sql} AS {spark_type(c)})"
    spark = "DATE" if c.name == "DATE" else "TIMESTAMP_NTZ"
    source = source.lower() if source else None
    if source is None or source in _STRINGS or source in _INTEGRAL:
        if source in _INTEGRAL:
            text = _integer_text(value_sql)
        else:
            text = value_sql if source in _STRINGS else f"CAST({value_sql} AS STRING)"
        value = f"try_cast({_normalised(text, source not in _INTEGRAL)} AS {spark})"
        if c.name == "DATETIME" and _scale(c) == 6:
            last = "TIMESTAMP_NTZ'9999-12-31 23:59:59.999999'"
            return (
                f"CASE WHEN {text} RLIKE {spark_string(_SEVENTH_DIGIT_UP)} THEN "
                f"CASE WHEN {value} < {last} THEN timestampadd(MICROSECOND, 1, {value}) END ELSE {value} END"
            )
    elif (source == "date" and c.name == "DATE") or (source == "timestamp_ntz" and c.name == "DATETIME"):
        value = value_sql
    else:
        value = f"try_cast({value_sql} AS {spark})"
    return value if c.name == "DATE" else round_sql(value, _scale(c))


# --------------------------------------------------------------------------- a query's casts


def _cast_target(to: exp.DataType) -> DataType | None:
    """The Doris DATE / DATETIME(p) a sqlglot cast target names, else None."""
    if to.this == exp.DataType.Type.DATE:
        return DataType("DATE")
    if to.this == exp.DataType.Type.DATETIME:
        params = [p.this for p in to.expressions if isinstance(p, exp.DataTypeParam)]
        scale = int(params[0].name) if params and isinstance(params[0], exp.Literal) else 0
        return canonical(DataType("DATETIME", (scale,)))
    return None


def _folded(text: str, target: DataType) -> str | None:
    """A literal's value as the FE folds it (Spark SQL), or None where dorisql's parser does
    not read it (Spark's cast then decides)."""
    try:
        if target.name == "DATE":
            return f"DATE'{parse_date(text).isoformat()}'"
        value = parse_datetime(text, _scale(target))
    except (DorisqlError, ValueError, OverflowError):
        return None
    return f"TIMESTAMP_NTZ'{value:%Y-%m-%d %H:%M:%S.%f}'"


#: Where a rewritten cast keeps the DATETIME scale of its value (sqlglot's ``node.meta``).
_SCALE_META = "datetime_scale"
#: Doris's current-time functions: DATETIME(p) with p their argument (0 without one).
_NOW = ("now", "current_timestamp", "localtime", "localtimestamp")
#: Functions whose value is one of their arguments': the DATETIME scale is the widest of them.
_KEEPS_ARGUMENT = (exp.Max, exp.Min, exp.AnyValue, exp.First, exp.Last, exp.Coalesce, exp.Greatest, exp.Least)


def _source_type(node: exp.Expr, column_type: ColumnType | None) -> str | None:
    """The Spark type `cast_sql` reads `node` as: a column's or an earlier cast's; None (read as
    text, which every type Doris casts from gives) where not known."""
    if isinstance(node, exp.Paren):
        return _source_type(node.this, column_type)
    if _SCALE_META in node.meta:
        return "timestamp_ntz"
    typed = None
    if isinstance(node, exp.Column) and column_type is not None:
        typed = column_type(node)
    elif isinstance(node, exp.Cast):
        typed = _cast_target(node.to)
        if typed is None and node.to.is_type(*exp.DataType.TEXT_TYPES):
            return "string"
        if typed is None and node.to.is_type(*exp.DataType.INTEGER_TYPES):
            return "bigint"
    if typed is None:
        return None
    c = canonical(typed)
    if c.name in ("DATE", "DATETIME"):
        return "date" if c.name == "DATE" else "timestamp_ntz"
    if c.name in ("CHAR", "VARCHAR", "STRING"):
        return "string"
    return "bigint" if c.name in ("TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT") else None


def _now_scale(node: exp.Expr) -> int | None:
    """p of ``now(p)`` / ``current_timestamp(p)`` (0 without p), None for any other node."""
    if isinstance(node, (exp.CurrentTimestamp, exp.Localtime, exp.Localtimestamp)):
        arg = node.this
    elif isinstance(node, exp.Anonymous) and node.name.lower() in _NOW:
        arg = node.expressions[0] if node.expressions else None
    else:
        return None
    if arg is None:
        return 0
    return int(arg.name) if isinstance(arg, exp.Literal) and arg.name.isdigit() else None


def _truncated_now(scale: int) -> str:
    """The current time with `scale` fractional digits (Doris truncates: DateV2Value::from_unixtime)."""
    now = "current_timestamp()"
    if scale >= 6:
        return now
    micros = f"CAST(extract(SECOND FROM {now}) * 1000000 AS BIGINT)"
    return f"timestampadd(MICROSECOND, -pmod({micros}, {10 ** (6 - scale)}), {now})"


def translate_casts(tree: exp.Expr, column_type: ColumnType | None = None) -> exp.Expr:
    """Rewrite, in place, the casts to DATE / DATETIME(p) into Doris's values: a string or
    integer literal folded as Doris's FE folds it (compact forms, rounding to the scale), any
    other value cast as `cast_sql` casts a load's (`column_type` says what a column holds; an
    unknown value is read as its text); ``now(p)`` with p digits. Returns the tree."""
    for call in list(tree.find_all(exp.CurrentTimestamp, exp.Localtime, exp.Localtimestamp, exp.Anonymous)):
        scale = _now_scale(call)
        written = call.expressions if isinstance(call, exp.Anonymous) else [call.this] if call.this else []
        if scale is not None and written:  # Spark's now() takes no p
            call.replace(parse_one(_truncated_now(scale), read="spark"))
    for node in reversed(list(tree.find_all(exp.Cast))):  # inner casts first
        target = _cast_target(node.to)
        if target is None:
            continue
        this = node.this
        if isinstance(this, exp.Literal) and (this.is_string or this.name.isdigit()):
            source = "string" if this.is_string else "bigint"
            sql = _folded(this.name, target) or cast_sql(this.sql(dialect="spark"), source, target)
        elif this.find(exp.Query) is not None:
            continue  # a subquery's tables are the planner's resolved nodes: not re-parsed
        else:
            sql = cast_sql(this.sql(dialect="spark"), _source_type(this, column_type), target)
        replacement = parse_one(sql, read="spark")
        if target.name == "DATETIME":
            replacement.meta[_SCALE_META] = _scale(target)
        node.replace(replacement)
    return tree


def datetime_scale(node: exp.Expr, column_type: ColumnType) -> int | None:
    """Doris's scale p of `node`'s DATETIME(p) value, read before `translate_casts`: a column's,
    a cast's, ``now(p)``'s, the widest of the arguments a function returns one of (MAX, MIN,
    COALESCE, IF, CASE ...). None: no DATETIME, or not known."""
    if isinstance(node, (exp.Alias, exp.Paren)):
        return datetime_scale(node.this, column_type)
    if isinstance(node, exp.Column):
        typed = column_type(node)
        c = canonical(typed) if typed is not None else None
        return _scale(c) if c is not None and c.name == "DATETIME" else None
    if isinstance(node, exp.Cast):
        target = _cast_target(node.to)
        return _scale(target) if target is not None and target.name == "DATETIME" else None
    if _SCALE_META in node.meta:
        return node.meta[_SCALE_META]
    now = _now_scale(node)
    if now is not None:
        return now
    if isinstance(node, _KEEPS_ARGUMENT):
        values = [node.this, *node.expressions]
    elif isinstance(node, exp.If):
        values = [node.args.get("true"), node.args.get("false")]
    elif isinstance(node, exp.Case):
        values = [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]
    elif isinstance(node, exp.Nullif):
        values = [node.this]
    else:
        return None
    scales = [s for v in values if isinstance(v, exp.Expr) and (s := datetime_scale(v, column_type)) is not None]
    return max(scales) if scales else None
