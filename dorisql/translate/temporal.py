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
- ``YYYYMMDD`` and ``YYYYMMDDHHMMSS[.f]`` (strings or integers) are dates and datetimes.

`cast_sql` is the one cast every load path (INSERT VALUES and SELECT, Stream Load, CTAS,
UPDATE, AUTO PARTITION) applies to a DATE / DATETIME column's value; `translate_casts` gives
a query's ``CAST(... AS DATE / DATETIME(p))`` the same values.
"""

from __future__ import annotations

import datetime as dt

from sqlglot import exp, parse_one

from dorisql.ast import DataType
from dorisql.errors import DorisqlError
from dorisql.types import canonical, parse_date, parse_datetime, spark_string, spark_type

__all__ = ["cast_sql", "round_sql", "translate_casts"]

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


def _normalised(text_sql: str) -> str:
    """A string value with its compact forms given separators (anything else unchanged)."""
    value = f"trim({text_sql})"
    for pattern, replacement in (_COMPACT_DATETIME, _COMPACT_DATE):
        value = f"regexp_replace({value}, {spark_string(pattern)}, {spark_string(replacement)})"
    return value


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
        text = value_sql if source in _STRINGS else f"CAST({value_sql} AS STRING)"
        value = f"try_cast({_normalised(text)} AS {spark})"
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


def translate_casts(tree: exp.Expr) -> exp.Expr:
    """Rewrite, in place, the casts to DATE / DATETIME(p) into Doris's values: a string or
    integer literal folded as Doris's FE folds it (compact forms, rounding to the scale), any
    other value of DATETIME(p < 6) rounded. Returns the tree."""
    for node in reversed(list(tree.find_all(exp.Cast))):  # inner casts first
        target = _cast_target(node.to)
        if target is None:
            continue
        this = node.this
        if isinstance(this, exp.Literal) and (this.is_string or this.name.isdigit()):
            source = "string" if this.is_string else "bigint"
            sql = _folded(this.name, target) or cast_sql(this.sql(dialect="spark"), source, target)
        elif target.name == "DATETIME" and _scale(target) < 6:
            sql = round_sql(f"CAST({this.sql(dialect='spark')} AS TIMESTAMP_NTZ)", _scale(target))
        else:
            continue
        node.replace(parse_one(sql, read="spark"))
    return tree
