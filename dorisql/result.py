"""What executing one statement returns: rows and column names, or a status message."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


class Float32(float):
    """A value of a FLOAT column (Spark hands every float over as a Python double).

    Doris prints a FLOAT with the fewest digits that read back as the same float32
    (``38.638844``), a DOUBLE with the fewest that read back as the same double
    (``38.63884353637695``): be/src/util/mysql_row_buffer.cpp writes both with
    ``FastFloatToBuffer`` / ``FastDoubleToBuffer`` (gutil/strings/numbers.cc), that is fmt's
    shortest round-trip ``{}`` format. `float_text` renders both.
    """

    __slots__ = ()


def _to_float32(value: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:  # rounds beyond FLT_MAX
        return math.copysign(math.inf, value)


def _fmt_text(shortest: str) -> str:
    """Python's shortest repr in fmt's ``{}`` spelling: no ``.0`` on whole numbers (``1``,
    ``-0``, ``1e+16`` as they are). Both switch to exponents below 1e-4 and from 1e16 on."""
    return shortest[:-2] if shortest.endswith(".0") else shortest


def float_text(value: float) -> str:
    """A FLOAT (`Float32`) or DOUBLE value as Doris prints it: ``NaN``, ``Infinity``,
    ``-Infinity``, else the shortest digits that round-trip in the value's own width."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if not isinstance(value, Float32):
        return _fmt_text(repr(float(value)))
    single = _to_float32(value)
    for digits in range(1, 10):  # 9 significant digits always round-trip a float32
        text = format(single, f".{digits}g")
        if _to_float32(float(text)) == single:
            return _fmt_text(repr(float(text)))
    return _fmt_text(repr(single))  # pragma: no cover - unreachable (9 digits suffice)


class ScaledDatetime(dt.datetime):
    """A value of a DATETIME(p) result column, with its scale p: Doris shows exactly p
    fractional digits (``12:11:11.112`` in DATETIME(3), none in DATETIME(0); be/src/vec/
    runtime/vdatetime_value.cpp, DateV2Value::to_string with the type's scale)."""

    #: (a value made by datetime arithmetic on one keeps no scale: shown with all six digits)
    scale: int = 6

    @classmethod
    def of(cls, value: dt.datetime, scale: int) -> ScaledDatetime:
        shown = cls(*value.timetuple()[:6], value.microsecond)
        shown.scale = max(0, min(6, scale))
        return shown


def datetime_text(value: dt.datetime, scale: int) -> str:
    """A DATETIME(`scale`) value as Doris prints it: `scale` fractional digits (truncated: a
    stored value already has no more)."""
    return value.isoformat(sep=" ")[:19] + (f".{value.microsecond:06d}"[: scale + 1] if scale > 0 else "")


def float_json(value: float) -> float:
    """The double whose shortest repr is `float_text`'s digits (for JSON numbers)."""
    return float(float_text(value)) if isinstance(value, Float32) else float(value)


@dataclass
class Result:
    """The outcome of one statement.

    A query-like statement (SELECT, SHOW, DESC, EXPLAIN) has `columns` and `rows`; a command
    (DDL, INSERT) has no columns and reports `affected_rows` (MySQL's "Query OK, N rows
    affected"). `message` carries extra notes (e.g. rows filtered in non-strict mode) and
    `warnings` anything the user should see but that did not fail the statement.
    """

    columns: Sequence[str] | None = None
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    affected_rows: int = 0
    message: str | None = None
    warnings: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    #: A SELECT's column types as Spark SQL names (``DataType.simpleString()``: ``int``,
    #: ``decimal(10,2)``, ``timestamp``), when known: the server sends them as MySQL types.
    column_types: Sequence[str] | None = None

    @property
    def is_query(self) -> bool:
        return self.columns is not None

    @classmethod
    def ok(cls, affected_rows: int = 0, message: str | None = None) -> Result:
        return cls(affected_rows=affected_rows, message=message)

    @classmethod
    def table(cls, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> Result:
        return cls(columns=list(columns), rows=list(rows))


def time_text(value: dt.datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "NULL"


def size_text(size: int) -> str:
    """Doris's DebugUtil.getByteUint + DECIMAL_FORMAT_SCALE_3: '0.000 ', '1.500 KB', '2.000 GB'."""
    units = ((1 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB"))
    if size == 0:
        return "0.000 "
    for limit, unit in units:
        if size > limit:
            return f"{size / limit:.3f} {unit}"
    return f"{float(size):.3f} B"


def render_value(value: Any, null: str = "NULL") -> str:
    """One value as the mysql client shows it."""
    if value is None:
        return null
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):  # FLOAT and DOUBLE digits as Doris prints them
        return float_text(value)
    if isinstance(value, ScaledDatetime):
        return datetime_text(value, value.scale)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(jsonable(value), ensure_ascii=False, separators=(", ", ":"))
    return str(value)


def jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return float_json(value) if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {render_value(k): jsonable(v) for k, v in value.items()}
    return render_value(value)
