"""The Doris type catalogue: names, roles, Spark/Arrow mappings and literal parsing.

Pure Python (pyarrow is imported lazily by `arrow_type`). Everything here takes a
`dorisql.ast.DataType`; call `canonical(t)` first if the type may use an alias.

Decisions (each names the Doris behaviour it follows or departs from):

- Canonical names are Doris's user-facing names. The V2/V3 spellings are aliases:
  DATEV2 -> DATE, DATETIMEV2 -> DATETIME, DECIMALV2/DECIMALV3/NUMERIC -> DECIMAL,
  INTEGER -> INT, BOOL -> BOOLEAN, TEXT -> STRING, JSONB -> JSON, REAL -> FLOAT.
  Current Doris stores DATE as DATEV2 and prints `DATEV2` in SHOW PARTITIONS' type lists;
  dorisql prints the canonical name (`DATE`), as the seed documents do.
- Omitted parameters take Doris's defaults: VARCHAR -> VARCHAR(65533), CHAR -> CHAR(1),
  DECIMAL -> DECIMAL(9, 0) (Doris DECIMALV3 default), DATETIME -> DATETIME(0).
- DECIMAL precision is capped at 38 (Spark's limit); Doris's DECIMAL256 (p up to 76) raises
  NotSupportedError.
- LARGEINT (Doris: signed 128-bit, [-2^127, 2^127-1]) is stored as DECIMAL(38, 0), which holds
  only +-(10^38 - 1): Spark and Delta have no wider number that keeps comparisons, sorting and
  arithmetic right (docs/storage.md, "LARGEINT", with the measured cost). Catalog values take
  Doris's whole range (`parse_value(..., full_range=True)`: partition bounds and list values,
  which are never stored); a value to be stored (a DEFAULT, a DELETE condition's value, a
  loaded row) beyond +-(10^38 - 1) is refused naming the limit (`beyond_storage`).
- DATE values are `datetime.date`, DATETIME values naive `datetime.datetime` (Spark
  TIMESTAMP_NTZ, Arrow timestamp('us') without tz). Python dates start at 0001-01-01, so the
  Doris minimum '0000-01-01' exists only as a partition MIN_VALUE bound (keys.MIN), and a
  literal in year 0 raises NotSupportedError.
- JSON and VARIANT are stored as STRING. BITMAP, HLL and QUANTILE_STATE are stored on Spark's
  own sketches (dorisql.translate.sketch_storage; docs/storage.md, "BITMAP, HLL and
  QUANTILE_STATE"). AGG_STATE has no storage in dorisql (NotSupportedError from
  `spark_type`/`arrow_type`); it is still accepted by the analyser's type rules so the error is
  the storage one, not a bogus analysis error.
- IPV4 is stored as BIGINT (its unsigned 32-bit range does not fit INT), IPV6 as STRING.
- String lengths (CHAR(n), VARCHAR(n)) count UTF-8 bytes, as Doris does.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from dorisql.ast import DataType, StructField
from dorisql.errors import AnalysisError, NotSupportedError

# --------------------------------------------------------------------------- names

ALIASES: dict[str, str] = {
    "INTEGER": "INT",
    "DATEV1": "DATE",
    "DATEV2": "DATE",
    "DATETIMEV1": "DATETIME",
    "DATETIMEV2": "DATETIME",
    "DECIMALV2": "DECIMAL",
    "DECIMALV3": "DECIMAL",
    "NUMERIC": "DECIMAL",
    "BOOL": "BOOLEAN",
    "TEXT": "STRING",
    "JSONB": "JSON",
    "REAL": "FLOAT",
}

INTEGER_TYPES = ("TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT")
FLOAT_TYPES = ("FLOAT", "DOUBLE")
DATE_TYPES = ("DATE", "DATETIME")
STRING_TYPES = ("CHAR", "VARCHAR", "STRING")
COMPLEX_TYPES = ("ARRAY", "MAP", "STRUCT")
AGG_ONLY_TYPES = ("HLL", "BITMAP", "QUANTILE_STATE", "AGG_STATE")
SCALAR_TYPES = (
    ("BOOLEAN",)
    + INTEGER_TYPES
    + FLOAT_TYPES
    + ("DECIMAL",)
    + DATE_TYPES
    + STRING_TYPES
    + ("JSON", "VARIANT", "IPV4", "IPV6")
)
ALL_TYPES = SCALAR_TYPES + COMPLEX_TYPES + AGG_ONLY_TYPES

#: Inclusive ranges of the integer types (Doris's, except LARGEINT: see LARGEINT_STORAGE_*).
INT_RANGES: dict[str, tuple[int, int]] = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
    "LARGEINT": (-(2**127), 2**127 - 1),
}
#: What DECIMAL(38, 0) can hold: the LARGEINT values dorisql stores (catalog values take all of
#: INT_RANGES["LARGEINT"]).
LARGEINT_STORAGE_MAX = 10**38 - 1
LARGEINT_STORAGE_MIN = -LARGEINT_STORAGE_MAX


def beyond_storage(value: Any, t: DataType) -> int:
    """1 / -1 when `value` is above / below every value a column of type `t` can store, else 0.

    Only LARGEINT has such values: Doris's range is +-2^127, its DECIMAL(38,0) storage holds
    +-(10^38-1). A partition bound out there compares with stored values as MAXVALUE/MIN would."""
    if canonical(t).name != "LARGEINT" or not isinstance(value, int) or isinstance(value, bool):
        return 0
    if value > LARGEINT_STORAGE_MAX:
        return 1
    return -1 if value < LARGEINT_STORAGE_MIN else 0


def largeint_storage_error(text: str) -> str:
    """The refusal of a LARGEINT value dorisql cannot store, naming the value and the limit."""
    return (
        f"LARGEINT value [{text}] is outside the range dorisql can store: LARGEINT is kept as "
        f"DECIMAL(38,0), which holds [-{LARGEINT_STORAGE_MAX}, {LARGEINT_STORAGE_MAX}]"
    )


MAX_VARCHAR_LENGTH = 65533
MAX_CHAR_LENGTH = 255
MAX_DECIMAL_PRECISION = 38
DEFAULT_DECIMAL = (9, 0)

#: Bytes each type contributes to Doris's short key (Type.getIndexSize), for the default
#: DUPLICATE KEY rule (at most 3 columns / 36 bytes).
INDEX_SIZE = {
    "BOOLEAN": 1,
    "TINYINT": 1,
    "SMALLINT": 2,
    "INT": 4,
    "BIGINT": 8,
    "LARGEINT": 16,
    "FLOAT": 4,
    "DOUBLE": 8,
    "DECIMAL": 16,
    "DATE": 4,
    "DATETIME": 8,
    "IPV4": 4,
    "IPV6": 16,
}


@functools.lru_cache(maxsize=4096)
def canonical(t: DataType) -> DataType:
    """The type with canonical name and Doris's default parameters filled in (recursively).

    Cached: a table has few distinct types, and partition bounds, literals and routing ask for
    the canonical form of the same few types again and again."""
    name = t.name.upper()
    name = ALIASES.get(name, name)
    params = tuple(t.params)
    if name == "VARCHAR" and not params:
        params = (MAX_VARCHAR_LENGTH,)
    elif name == "CHAR" and not params:
        params = (1,)
    elif name == "DECIMAL":
        if not params:
            params = DEFAULT_DECIMAL
        elif len(params) == 1:
            params = (params[0], 0)
    elif name == "DATETIME" and not params:
        params = (0,)
    elif name == "DATE":
        params = ()
    args = tuple(canonical(a) for a in t.args)
    fields = tuple(StructField(f.name, canonical(f.type), f.comment) for f in t.fields)
    return DataType(name, params, args, fields)


def check_type(t: DataType, column: str | None = None) -> DataType:
    """Validate a column type (known name, parameter ranges). Returns `canonical(t)`."""
    c = canonical(t)
    where = f" for column '{column}'" if column else ""
    if c.name not in ALL_TYPES:
        if c.name == "TIME" or c.name == "TIMEV2":
            raise AnalysisError("Time type is not supported for olap table")
        raise AnalysisError(f"Unknown data type {t.name}{where}")
    if c.name == "VARCHAR":
        n = c.params[0]
        if n < 1 or n > MAX_VARCHAR_LENGTH:
            raise AnalysisError(f"varchar size must be between 1 and {MAX_VARCHAR_LENGTH}, got {n}{where}")
    elif c.name == "CHAR":
        n = c.params[0]
        if n < 1 or n > MAX_CHAR_LENGTH:
            raise AnalysisError(f"char size must be between 1 and {MAX_CHAR_LENGTH}, got {n}{where}")
    elif c.name == "DECIMAL":
        p, s = c.params[0], c.params[1]
        if p > MAX_DECIMAL_PRECISION and p <= 76:
            raise NotSupportedError(
                f"DECIMAL({p}, {s}){where}: precision above {MAX_DECIMAL_PRECISION} (Doris DECIMAL256) "
                f"cannot be stored in Spark/Delta"
            )
        if p < 1 or p > 76:
            raise AnalysisError(f"Precision of decimal must between 1 and 76. Precision was set to: {p}.")
        if s < 0 or s > p:
            raise AnalysisError(f"Scale of decimal must between 0 and precision. Scale was set to: {s}.")
    elif c.name == "DATETIME":
        if not 0 <= c.params[0] <= 6:
            raise AnalysisError(f"Scale of Datetime/Time must between 0 and 6. Scale was set to: {c.params[0]}")
    for a in c.args:
        check_type(a, column)
    for f in c.fields:
        check_type(f.type, column)
    return c


#: Types Doris refuses inside ARRAY / MAP / STRUCT (Type.supportSubType; regression suite
#: datatype_p0/nested_types/create_nestedtypes_with_unsupport_types).
UNSUPPORTED_SUB_TYPES = ("HLL", "BITMAP", "QUANTILE_STATE", "JSON")


def check_sub_types(t: DataType) -> None:
    """Doris's refusal of an ARRAY / MAP / STRUCT holding an aggregate-state or JSON type, or a
    MAP keyed by a complex type: "<PARENT> unsupported sub-type: <type>" (the type as Doris's
    catalog prints it, in lower case). A CREATE TABLE check only: stored types are not re-checked."""
    c = canonical(t)
    if c.name not in COMPLEX_TYPES:
        return
    children = [f.type for f in c.fields] if c.name == "STRUCT" else list(c.args)
    for i, child in enumerate(children):
        complex_key = c.name == "MAP" and i == 0 and child.name in COMPLEX_TYPES
        if child.name in UNSUPPORTED_SUB_TYPES or complex_key:
            raise AnalysisError(f"{c.name} unsupported sub-type: {type_sql(child).lower()}")
        check_sub_types(child)


def type_sql(t: DataType) -> str:
    """Doris SQL text of a type: VARCHAR(20), DECIMAL(27, 9), ARRAY<INT>, STRUCT<a:INT>."""
    if t.name in COMPLEX_TYPES:
        if t.name == "STRUCT":
            return "STRUCT<" + ", ".join(f"{f.name}:{type_sql(f.type)}" for f in t.fields) + ">"
        return f"{t.name}<" + ", ".join(type_sql(a) for a in t.args) + ">"
    if t.params:
        return f"{t.name}(" + ", ".join(str(p) for p in t.params) + ")"
    return t.name


def _name(t: DataType) -> str:
    return ALIASES.get(t.name.upper(), t.name.upper())


def primitive_name(t: DataType) -> str:
    """The type's name as Doris's messages print it (PrimitiveType): DECIMAL is DECIMALV3, named by
    its precision: DECIMAL32 (up to 9 digits), DECIMAL64 (18), DECIMAL128 (38), DECIMAL256."""
    c = canonical(t)
    if c.name != "DECIMAL":
        return c.name
    precision = c.params[0]
    if precision <= 9:
        return "DECIMAL32"
    if precision <= 18:
        return "DECIMAL64"
    return "DECIMAL128" if precision <= 38 else "DECIMAL256"


# --------------------------------------------------------------------------- roles


def is_integer(t: DataType) -> bool:
    return _name(t) in INTEGER_TYPES


def is_date_like(t: DataType) -> bool:
    return _name(t) in DATE_TYPES


def is_string_like(t: DataType) -> bool:
    return _name(t) in STRING_TYPES


def is_float(t: DataType) -> bool:
    return _name(t) in FLOAT_TYPES


def is_complex(t: DataType) -> bool:
    return _name(t) in COMPLEX_TYPES


def key_type_error(t: DataType, column: str) -> str | None:
    """Doris's message when `t` cannot be a key column (ColumnDefinition.checkKeyColumnType)."""
    n = _name(t)
    if n in FLOAT_TYPES:
        return "Float or double can not used as a key, use decimal instead."
    if n == "STRING":
        return f"String Type should not be used in key column[{column}]"
    if n == "ARRAY":
        return "Array can only be used in the non-key column of the duplicate table at present."
    if n in AGG_ONLY_TYPES:
        return f"Key column can not set complex type:{column}"
    if n == "JSON":
        return f"JsonType type should not be used in key column[{column}]."
    if n == "VARIANT":
        return f"Variant type should not be used in key column[{column}]."
    if n == "MAP":
        return "Map can only be used in the non-key column of the duplicate table at present."
    if n == "STRUCT":
        return "Struct can only be used in the non-key column of the duplicate table at present."
    return None


def valid_as_key(t: DataType) -> bool:
    return key_type_error(t, "") is None


def partition_type_error(t: DataType, column: str, kind: str) -> str | None:
    """Doris's message when `t` cannot be a RANGE/LIST partition column, else None.

    RANGE: TINYINT, SMALLINT, INT, BIGINT, LARGEINT, DATE, DATETIME (and their V2 aliases).
    LIST: those plus BOOLEAN, CHAR, VARCHAR. STRING is refused for both, as in current Doris
    (PartitionTableInfo.validatePartitionColumn).
    """
    n = _name(t)
    if n in FLOAT_TYPES:
        return "Floating point type column can not be partition column"
    if n == "STRING":
        return f"String Type should not be used in partition column[{column}]."
    if n in COMPLEX_TYPES:
        return f"Complex type column can't be partition column: {type_sql(canonical(t))}"
    if kind.upper() == "RANGE":
        if n not in INTEGER_TYPES and n not in DATE_TYPES:
            return f"Column[{column}] type[{primitive_name(t)}] cannot be a range partition key."
    else:
        if n not in INTEGER_TYPES and n not in DATE_TYPES and n not in ("CHAR", "VARCHAR", "BOOLEAN"):
            return f"Column[{column}] type[{primitive_name(t)}] cannot be a list partition key."
    return None


def valid_for_range_partition(t: DataType) -> bool:
    return partition_type_error(t, "", "RANGE") is None


def valid_for_list_partition(t: DataType) -> bool:
    return partition_type_error(t, "", "LIST") is None


def distribution_type_error(t: DataType, column: str) -> str | None:
    """Doris's message when `t` cannot be a HASH distribution column (HashDistributionDesc)."""
    n = _name(t)
    if n == "STRING":
        return f"String Type should not be used in distribution column[{column}]."
    if n == "ARRAY":
        return f"Array Type should not be used in distribution column[{column}]."
    if n == "MAP":
        return f"Map Type should not be used in distribution column[{column}]."
    if n == "STRUCT":
        return f"Struct Type should not be used in distribution column[{column}]."
    if n in FLOAT_TYPES:
        return f"Floating point type should not be used in distribution column[{column}]."
    if n in AGG_ONLY_TYPES or n in ("JSON", "VARIANT"):
        return f"{n} Type should not be used in distribution column[{column}]."
    return None


def valid_for_distribution(t: DataType) -> bool:
    return distribution_type_error(t, "") is None


def index_size(t: DataType) -> int:
    """Bytes of the type in Doris's short key (CHAR(n) counts n, VARCHAR 20 as in Doris)."""
    c = canonical(t)
    if c.name == "CHAR":
        return c.params[0]
    if c.name in ("VARCHAR", "STRING"):
        return 20
    return INDEX_SIZE.get(c.name, 16)


# --------------------------------------------------------------------------- string lengths


def max_byte_length(t: DataType) -> int | None:
    """The length limit of CHAR(n) / VARCHAR(n) values in UTF-8 bytes (Doris counts bytes, not
    characters: VARCHAR(5) holds '北京' but not '北京市'); None for every other type."""
    c = canonical(t)
    if c.name in ("CHAR", "VARCHAR"):
        return c.params[0]
    return None


def byte_length(text: str) -> int:
    """The length Doris checks against CHAR(n) / VARCHAR(n): UTF-8 bytes."""
    return len(text.encode("utf-8"))


# --------------------------------------------------------------------------- storage types


#: The Spark types BITMAP, HLL and QUANTILE_STATE are stored as (the builders of their values:
#: dorisql.translate.sketch_storage, which checks it names the same types).
SKETCH_STORAGE = {
    "BITMAP": "ARRAY<STRUCT<bucket: BIGINT, bits: BINARY>>",
    "HLL": "BINARY",
    "QUANTILE_STATE": "BINARY",
}


def is_sketch(t: DataType) -> bool:
    """BITMAP, HLL or QUANTILE_STATE: an aggregate-state type dorisql stores."""
    return canonical(t).name in SKETCH_STORAGE


def spark_type(t: DataType) -> str:
    """Spark SQL type text for a Doris type (DDL-usable, e.g. in a CAST or a schema string)."""
    c = canonical(t)
    n = c.name
    simple = {
        "BOOLEAN": "BOOLEAN",
        "TINYINT": "TINYINT",
        "SMALLINT": "SMALLINT",
        "INT": "INT",
        "BIGINT": "BIGINT",
        "LARGEINT": "DECIMAL(38,0)",
        "FLOAT": "FLOAT",
        "DOUBLE": "DOUBLE",
        "DATE": "DATE",
        "DATETIME": "TIMESTAMP_NTZ",
        "CHAR": "STRING",
        "VARCHAR": "STRING",
        "STRING": "STRING",
        "JSON": "STRING",
        "VARIANT": "STRING",
        "IPV4": "BIGINT",
        "IPV6": "STRING",
    }
    if n in simple:
        return simple[n]
    if n == "DECIMAL":
        check_type(c)
        return f"DECIMAL({c.params[0]},{c.params[1]})"
    if n == "ARRAY":
        return f"ARRAY<{spark_type(c.args[0])}>"
    if n == "MAP":
        return f"MAP<{spark_type(c.args[0])},{spark_type(c.args[1])}>"
    if n == "STRUCT":
        return "STRUCT<" + ",".join(f"`{f.name}`:{spark_type(f.type)}" for f in c.fields) + ">"
    if n in SKETCH_STORAGE:
        return SKETCH_STORAGE[n]
    if n in AGG_ONLY_TYPES:
        raise NotSupportedError(f"{n} columns (no storage for Doris's {n} type in Spark/Delta)")
    raise NotSupportedError(f"type {type_sql(c)}")


def arrow_type(t: DataType):
    """The pyarrow type storing a Doris type (DATETIME -> timestamp('us') without time zone)."""
    import pyarrow as pa

    c = canonical(t)
    n = c.name
    simple = {
        "BOOLEAN": pa.bool_,
        "TINYINT": pa.int8,
        "SMALLINT": pa.int16,
        "INT": pa.int32,
        "BIGINT": pa.int64,
        "FLOAT": pa.float32,
        "DOUBLE": pa.float64,
        "DATE": pa.date32,
        "CHAR": pa.string,
        "VARCHAR": pa.string,
        "STRING": pa.string,
        "JSON": pa.string,
        "VARIANT": pa.string,
        "IPV4": pa.int64,
        "IPV6": pa.string,
    }
    if n in simple:
        return simple[n]()
    if n == "LARGEINT":
        return pa.decimal128(38, 0)
    if n == "DATETIME":
        return pa.timestamp("us")
    if n == "DECIMAL":
        check_type(c)
        return pa.decimal128(c.params[0], c.params[1])
    if n == "ARRAY":
        return pa.list_(arrow_type(c.args[0]))
    if n == "MAP":
        return pa.map_(arrow_type(c.args[0]), arrow_type(c.args[1]))
    if n == "STRUCT":
        return pa.struct([pa.field(f.name, arrow_type(f.type)) for f in c.fields])
    if n == "BITMAP":  # SKETCH_STORAGE["BITMAP"]
        return pa.list_(pa.struct([pa.field("bucket", pa.int64()), pa.field("bits", pa.binary())]))
    if n in SKETCH_STORAGE:
        return pa.binary()
    if n in AGG_ONLY_TYPES:
        raise NotSupportedError(f"{n} columns (no storage for Doris's {n} type in Spark/Delta)")
    raise NotSupportedError(f"type {type_sql(c)}")


# --------------------------------------------------------------------------- minimum values

_MIN_TEXT = {
    "TINYINT": "-128",
    "SMALLINT": "-32768",
    "INT": "-2147483648",
    "BIGINT": "-9223372036854775808",
    "LARGEINT": "-170141183460469231731687303715884105728",
    "DATE": "0000-01-01",
    "BOOLEAN": "false",
    "CHAR": "",
    "VARCHAR": "",
    "STRING": "",
}


def min_text(t: DataType) -> str:
    """The type minimum as Doris prints it (LiteralExpr.createInfinity(type, false))."""
    c = canonical(t)
    if c.name == "DATETIME":
        scale = c.params[0] if c.params else 0
        return "0000-01-01 00:00:00" + ("." + "0" * scale if scale else "")
    if c.name in _MIN_TEXT:
        return _MIN_TEXT[c.name]
    raise AnalysisError(f"type {type_sql(c)} has no partition minimum value")


def is_min_text(text: str, t: DataType) -> bool:
    """True if `text` denotes the type minimum (also the unpadded DATETIME '0000-01-01 00:00:00')."""
    c = canonical(t)
    if c.name == "DATETIME":
        return text.strip() in ("0000-01-01", "0000-01-01 00:00:00") or text == min_text(c)
    if c.name == "DATE":
        return text.strip() in ("0000-01-01", "00000101")
    if c.name in INTEGER_TYPES:
        try:
            return int(text.strip()) == INT_RANGES[c.name][0]
        except ValueError:
            return False
    return False


def min_value(t: DataType) -> Any:
    """The type minimum as a Python value, or None where Python cannot hold it (DATE/DATETIME)."""
    c = canonical(t)
    if c.name in INTEGER_TYPES:
        return INT_RANGES[c.name][0]
    if c.name == "BOOLEAN":
        return False
    if c.name in STRING_TYPES:
        return ""
    return None


# --------------------------------------------------------------------------- literal parsing

_INT_RE = re.compile(r"^[+-]?\d+$")
_DATE_DASH = re.compile(r"^(\d{1,4})-(\d{1,2})-(\d{1,2})$")
_DATE_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_DATETIME_RE = re.compile(r"^(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?$")
_DATETIME_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,9}))?$")


def _parse_int(text: str, name: str, full_range: bool = False) -> int:
    s = text.strip()
    if not _INT_RE.match(s):
        raise AnalysisError(f"Invalid number format: {text}")
    v = int(s)
    lo, hi = INT_RANGES[name]
    if v < lo or v > hi:
        raise AnalysisError(f"Number out of range[{text}]. type: {name}")
    if not full_range and name == "LARGEINT" and not LARGEINT_STORAGE_MIN <= v <= LARGEINT_STORAGE_MAX:
        raise AnalysisError(largeint_storage_error(text))
    return v


def _make_date(text: str, y: str, m: str, d: str) -> dt.date:
    yi, mi, di = int(y), int(m), int(d)
    if yi == 0 and 1 <= mi <= 12 and 1 <= di <= 31:
        raise NotSupportedError(f"date literal [{text}] before 0001-01-01")
    try:
        return dt.date(yi, mi, di)
    except ValueError:
        raise AnalysisError(f"date literal [{text}] is invalid") from None


def parse_date(text: str) -> dt.date:
    """DATE literal: 'YYYY-MM-DD' (also 'YYYY-M-D'), 'YYYYMMDD', or a datetime (time dropped)."""
    s = text.strip()
    m = _DATE_DASH.match(s) or _DATE_COMPACT.match(s)
    if m:
        return _make_date(text, *m.groups())
    if _DATETIME_RE.match(s) or _DATETIME_COMPACT.match(s):
        # Doris accepts a datetime for a DATE column and keeps the date part.
        return parse_datetime(s, 6).date()
    raise AnalysisError(f"date literal [{text}] is invalid")


def parse_datetime(text: str, scale: int = 0) -> dt.datetime:
    """DATETIME literal: 'YYYY-MM-DD[ HH:MM[:SS[.f...]]]', 'YYYYMMDDHHMMSS', or 'YYYYMMDD'.

    Fractional seconds beyond `scale` are rounded half up, as Doris does.
    """
    s = text.strip()
    m = _DATETIME_RE.match(s) or _DATETIME_COMPACT.match(s)
    if not m:
        c = _DATE_COMPACT.match(s)
        if c:
            return dt.datetime.combine(_make_date(text, *c.groups()), dt.time())
        raise AnalysisError(f"date literal [{text}] is invalid")
    y, mo, d, hh, mi, ss, frac = m.groups()
    day = _make_date(text, y, mo, d)
    try:
        base = dt.datetime(day.year, day.month, day.day, int(hh or 0), int(mi or 0), int(ss or 0))
    except ValueError:
        raise AnalysisError(f"date literal [{text}] is invalid") from None
    if frac:
        q = Decimal("0." + frac).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
        micros = int((q * 1_000_000).to_integral_value())
        try:
            base = base + dt.timedelta(microseconds=micros)
        except OverflowError:
            raise AnalysisError(f"date literal [{text}] is invalid") from None
    return base


def _expand_two_digit_year(s: str) -> str:
    """Doris DateLiteral: a two-digit year in a dashed date is 1970-2069 (70-99 -> 19xx, 00-69 ->
    20xx; java.time appendValueReduced(YEAR, 2, 2, 1970))."""
    m = re.match(r"^(\d{2})-", s)
    if not m:
        return s
    yy = int(m.group(1))
    return f"{1900 + yy if yy >= 70 else 2000 + yy}{s[2:]}"


def parse_partition_date(text: str, t: DataType) -> dt.date | dt.datetime:
    """A DATE / DATETIME partition value (RANGE bound or LIST value), as Doris's FE types it
    (legacy DateLiteral via PartitionValue.getValue): a two-digit year means 1970-2069, and a DATE
    value with a time part is refused ("Invalid date value"), where a DATE column's insert value
    keeps only the date part (`parse_date`)."""
    c = canonical(t)
    s = _expand_two_digit_year(text.strip())
    if c.name == "DATE" and "-" in s and " " in s:
        raise AnalysisError(f"date literal [{text}] is invalid: Invalid date value: {text}")
    try:
        return parse_date(s) if c.name == "DATE" else parse_datetime(s, c.params[0] if c.params else 0)
    except AnalysisError:
        raise AnalysisError(f"date literal [{text}] is invalid") from None  # the value as written


def parse_bool(text: str) -> bool:
    s = text.strip().lower()
    if s in ("true", "1"):
        return True
    if s in ("false", "0"):
        return False
    raise AnalysisError(f"Invalid BOOLEAN literal: {text}")


def parse_decimal(text: str, precision: int, scale: int) -> Decimal:
    try:
        v = Decimal(text.strip())
    except InvalidOperation:
        raise AnalysisError(f"Invalid number format: {text}") from None
    if not v.is_finite():
        raise AnalysisError(f"Invalid number format: {text}")
    v = v.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    if abs(v) >= Decimal(10) ** (precision - scale):
        raise AnalysisError(f"Number out of range[{text}]. type: DECIMAL({precision}, {scale})")
    return v


def parse_value(text: str | None, t: DataType, *, full_range: bool = False) -> Any:
    """Type a literal's text (partition bound, default, insert value) for column type `t`.

    None (NULL) stays None. Returns int / bool / float / Decimal / date / datetime / str.
    Raises AnalysisError with Doris's message for malformed or out-of-range values.
    `full_range`: a catalog value (a partition bound or list value), which may be any LARGEINT;
    otherwise the value is to be stored and must fit LARGEINT's storage (`beyond_storage`).
    """
    if text is None:
        return None
    c = canonical(t)
    n = c.name
    if n in INTEGER_TYPES:
        return _parse_int(text, n, full_range)
    if n == "BOOLEAN":
        return parse_bool(text)
    if n in FLOAT_TYPES:
        try:
            return float(text.strip())
        except ValueError:
            raise AnalysisError(f"Invalid number format: {text}") from None
    if n == "DECIMAL":
        check_type(c)
        return parse_decimal(text, c.params[0], c.params[1])
    if n == "DATE":
        return parse_date(text)
    if n == "DATETIME":
        return parse_datetime(text, c.params[0])
    if n in ("CHAR", "VARCHAR"):
        limit = c.params[0]
        size = byte_length(text)
        if size > limit:
            raise AnalysisError(f"String '{text}' is too long for {n}({limit}): {size} bytes > {limit}")
        return text
    if n in ("STRING", "JSON", "VARIANT", "IPV6"):
        return text
    if n == "IPV4":
        parts = text.strip().split(".")
        if len(parts) != 4 or not all(p.isdigit() and int(p) < 256 for p in parts):
            raise AnalysisError(f"Invalid IPv4 value: {text}")
        a, b, cc, d = (int(p) for p in parts)
        return (a << 24) | (b << 16) | (cc << 8) | d
    raise NotSupportedError(f"literal of type {type_sql(c)}")


def format_value(value: Any, t: DataType) -> str:
    """Canonical text of a typed value, as Doris prints it (SHOW PARTITIONS, catalog bounds)."""
    if value is None:
        return "NULL"
    c = canonical(t)
    n = c.name
    if n == "BOOLEAN":
        return "true" if value else "false"
    if n in INTEGER_TYPES:
        return str(int(value))
    if n == "DECIMAL":
        return str(Decimal(value).quantize(Decimal(1).scaleb(-c.params[1])))
    if n == "DATE":
        if isinstance(value, dt.datetime):
            value = value.date()
        return value.isoformat()
    if n == "DATETIME":
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            value = dt.datetime.combine(value, dt.time())
        scale = c.params[0] if c.params else 0
        s = value.strftime("%Y-%m-%d %H:%M:%S")
        if scale:
            s += "." + f"{value.microsecond:06d}"[:scale]
        return s
    if n == "IPV4":
        v = int(value)
        return ".".join(str((v >> sh) & 255) for sh in (24, 16, 8, 0))
    if n in FLOAT_TYPES:
        return repr(float(value))
    return str(value)


def spark_literal(value: Any, t: DataType) -> str:
    """A Spark SQL literal for a typed value: DATE'..', TIMESTAMP_NTZ'..', escaped strings..."""
    if value is None:
        return f"CAST(NULL AS {spark_type(t)})"
    c = canonical(t)
    n = c.name
    if n == "BOOLEAN":
        return "TRUE" if value else "FALSE"
    if n == "TINYINT":
        return f"{int(value)}Y"
    if n == "SMALLINT":
        return f"{int(value)}S"
    if n == "INT":
        return f"{int(value)}" if int(value) != -(2**31) else "CAST(-2147483648 AS INT)"
    if n == "BIGINT":
        return f"{int(value)}L"
    if n == "LARGEINT":
        if beyond_storage(int(value), c):  # the cast would be NULL: callers compare such bounds in Python
            raise AnalysisError(largeint_storage_error(str(int(value))))
        return f"CAST('{int(value)}' AS DECIMAL(38,0))"
    if n == "DECIMAL":
        return f"CAST('{format_value(value, c)}' AS {spark_type(c)})"
    if n in FLOAT_TYPES:
        return f"CAST('{float(value)!r}' AS {spark_type(c)})"
    if n == "DATE":
        return f"DATE'{format_value(value, c)}'"
    if n == "DATETIME":
        v = value if isinstance(value, dt.datetime) else dt.datetime.combine(value, dt.time())
        return f"TIMESTAMP_NTZ'{v.strftime('%Y-%m-%d %H:%M:%S.%f')}'"
    if n == "IPV4":
        return f"{int(value)}L"
    return spark_string(str(value))


def spark_string(s: str) -> str:
    """A Spark SQL string literal (single quotes; backslash and quote escaped)."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"
