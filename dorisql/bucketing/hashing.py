"""The one bucket hash of dorisql: ``__bucket = pmod(hash(cols...), buckets)``.

Every table (and every literal used for bucket pruning or colocation) uses Spark's built-in
``hash`` function: Murmur3 x86_32 with seed 42, folded over the columns left to right (the running
hash is the seed of the next column; a NULL column is skipped, so the seed carries through).

Types matter: ``hash(CAST(1 AS INT)) != hash(CAST(1 AS BIGINT))``. Callers therefore always cast
each column to its Doris-declared Spark type before hashing, both in Spark
(:func:`bucket_expr_sql`) and in Python (:func:`bucket_of`, given those same type names).

:func:`bucket_of` reproduces Spark exactly, without Spark, for:
``tinyint/byte, smallint/short, int/integer, bigint/long, boolean, date, timestamp_ntz,
timestamp`` (UTC instant), ``float, double, string/varchar/char, binary`` and ``decimal(p,s)``
(including ``decimal(38,0)`` for Doris LARGEINT), and for NULL of any type.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import math
import re
import struct
from collections.abc import Sequence
from typing import Any

__all__ = ["SEED", "bucket_expr_sql", "bucket_of", "spark_hash"]

#: Spark's seed for ``hash(...)`` (Murmur3Hash default).
SEED = 42

_C1 = 0xCC9E2D51
_C2 = 0x1B873593
_M32 = 0xFFFFFFFF
_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH_NTZ = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
#: Spark hashes a decimal of precision <= 18 through its unscaled long value.
_MAX_LONG_DIGITS = 18


def bucket_expr_sql(columns: Sequence[str], buckets_sql: str) -> str:
    """Spark SQL for the bucket of a row: ``pmod(hash(c1, c2, ...), n)``.

    ``columns`` are Spark SQL expressions already cast to their Doris-declared Spark types
    (e.g. ``"CAST(`k1` AS INT)"``); ``buckets_sql`` is the bucket count as SQL (a literal such as
    ``"8"`` or an expression such as a per-partition bucket count column). The result is an INT in
    ``[0, n)`` and never NULL (rows whose columns are all NULL land in bucket ``pmod(42, n)``).
    """
    if not columns:
        raise ValueError("bucket_expr_sql needs at least one column")
    return f"pmod(hash({', '.join(columns)}), {buckets_sql})"


def bucket_of(values: Sequence[Any], spark_types: Sequence[str], buckets: int) -> int:
    """The bucket (``pmod(hash(values...), buckets)``) Spark computes for these values.

    ``spark_types`` are the Spark type names the columns are cast to (``"int"``, ``"bigint"``,
    ``"string"``, ``"date"``, ``"timestamp_ntz"``, ``"decimal(38,0)"``, ...). Values are Python
    objects of the matching kind (int, str, datetime.date, datetime.datetime, Decimal, bool, bytes,
    float) or None. Pure Python: a point query computes its bucket without Spark.
    """
    if buckets <= 0:
        raise ValueError(f"bucket count must be positive, got {buckets}")
    return spark_hash(values, spark_types) % buckets  # Python % with n > 0 is Spark's pmod


def spark_hash(values: Sequence[Any], spark_types: Sequence[str], seed: int = SEED) -> int:
    """Spark's ``hash(values...)`` as a signed 32-bit int."""
    if len(values) != len(spark_types):
        raise ValueError("values and spark_types must have the same length")
    h = seed & _M32
    for value, type_name in zip(values, spark_types):
        if value is None:
            continue  # Spark skips NULLs: the running hash carries through
        h = _hash_value(value, _normalise_type(type_name), h)
    return _signed(h)


# --------------------------------------------------------------------------- type dispatch

_DECIMAL_RE = re.compile(r"^decimal\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$")
_ALIASES = {
    "byte": "tinyint",
    "short": "smallint",
    "integer": "int",
    "long": "bigint",
    "bool": "boolean",
    "real": "float",
    "largeint": "decimal(38,0)",
    "datetime": "timestamp_ntz",
    "text": "string",
}


def _normalise_type(type_name: str) -> str:
    t = type_name.strip().lower()
    t = _ALIASES.get(t, t)
    if t.startswith(("varchar", "char")):
        return "string"
    if t == "decimal":
        return "decimal(10,0)"
    return t


def _hash_value(value: Any, t: str, h: int) -> int:
    if t in ("int", "smallint", "tinyint"):
        return _hash_int(_as_int(value), h)
    if t == "bigint":
        return _hash_long(_as_int(value), h)
    if t == "boolean":
        return _hash_int(1 if value else 0, h)
    if t == "date":
        return _hash_int(_days(value), h)
    if t == "timestamp_ntz":
        return _hash_long(_micros_ntz(value), h)
    if t == "timestamp":
        return _hash_long(_micros_utc(value), h)
    if t == "string":
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        return _hash_bytes(data, h)
    if t == "binary":
        return _hash_bytes(bytes(value), h)
    if t == "float":
        f = float(value)
        if f == 0.0:
            f = 0.0  # Spark normalises -0.0
        bits = 0x7FC00000 if math.isnan(f) else struct.unpack("<i", struct.pack("<f", f))[0]
        return _hash_int(bits, h)
    if t == "double":
        d = float(value)
        if d == 0.0:
            d = 0.0
        bits = 0x7FF8000000000000 if math.isnan(d) else struct.unpack("<q", struct.pack("<d", d))[0]
        return _hash_long(bits, h)
    m = _DECIMAL_RE.match(t)
    if m:
        precision, scale = int(m.group(1)), int(m.group(2) or 0)
        unscaled = _unscaled(value, scale)
        if precision <= _MAX_LONG_DIGITS:
            return _hash_long(unscaled, h)
        return _hash_bytes(_java_bigint_bytes(unscaled), h)
    raise ValueError(f"bucket_of does not support Spark type {t!r}")


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, _decimal.Decimal) and value == value.to_integral_value():
        return int(value)
    if isinstance(value, str):
        return int(value.strip())
    raise TypeError(f"not an integer: {value!r}")


def _days(value: Any) -> int:
    if isinstance(value, _dt.datetime):
        value = value.date()
    if isinstance(value, str):
        value = _dt.date.fromisoformat(value.strip())
    return (value - _EPOCH_DATE).days


def _micros(delta: _dt.timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _micros_ntz(value: Any) -> int:
    if isinstance(value, str):
        value = _dt.datetime.fromisoformat(value.strip())
    elif not isinstance(value, _dt.datetime):
        value = _dt.datetime(value.year, value.month, value.day)
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return _micros(value - _EPOCH_NTZ)


def _micros_utc(value: Any) -> int:
    if isinstance(value, str):
        value = _dt.datetime.fromisoformat(value.strip())
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    return _micros(value - _EPOCH_UTC)


def _unscaled(value: Any, scale: int) -> int:
    ctx = _decimal.Context(prec=100, rounding=_decimal.ROUND_HALF_UP)
    d = value if isinstance(value, _decimal.Decimal) else ctx.create_decimal(str(value))
    return int(ctx.quantize(ctx.scaleb(d, scale), _decimal.Decimal(1)))


def _java_bigint_bytes(n: int) -> bytes:
    """java.math.BigInteger.toByteArray(): minimal big-endian two's complement."""
    length = (n + (n < 0)).bit_length() // 8 + 1
    return n.to_bytes(length, "big", signed=True)


# --------------------------------------------------------------------------- Murmur3 x86_32


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _mix_k1(k1: int) -> int:
    k1 = (k1 * _C1) & _M32
    k1 = _rotl(k1, 15)
    return (k1 * _C2) & _M32


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = _rotl(h1, 13)
    return (h1 * 5 + 0xE6546B64) & _M32


def _fmix(h1: int, length: int) -> int:
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _M32
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _M32
    h1 ^= h1 >> 16
    return h1


def _hash_int(value: int, seed: int) -> int:
    return _fmix(_mix_h1(seed, _mix_k1(value & _M32)), 4)


def _hash_long(value: int, seed: int) -> int:
    value &= 0xFFFFFFFFFFFFFFFF
    h1 = _mix_h1(seed, _mix_k1(value & _M32))
    h1 = _mix_h1(h1, _mix_k1(value >> 32))
    return _fmix(h1, 8)


def _hash_bytes(data: bytes, seed: int) -> int:
    """Spark's Murmur3_x86_32.hashUnsafeBytes (its legacy tail: one signed byte per step)."""
    n = len(data)
    aligned = n - n % 4
    h1 = seed
    for (k,) in struct.iter_unpack("<I", data[:aligned]):
        h1 = _mix_h1(h1, _mix_k1(k))
    for i in range(aligned, n):
        b = data[i]
        if b >= 128:
            b -= 256
        h1 = _mix_h1(h1, _mix_k1(b & _M32))
    return _fmix(h1, n)


def _signed(h: int) -> int:
    return h - (1 << 32) if h & 0x80000000 else h
