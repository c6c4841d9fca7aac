"""Delta per-file statistics from a Parquet footer (never the data).

The result is the JSON text of an ``add`` action's ``stats``:
``{"numRecords": n, "minValues": {...}, "maxValues": {...}, "nullCount": {...}}``.

Formats follow what Delta readers expect:

- dates ``"2020-01-31"``; timestamps with millisecond precision like Delta Spark, ``TIMESTAMP``
  as ``"2020-01-31T10:00:00.123Z"`` and ``TIMESTAMP_NTZ`` as ``"2020-01-31T10:00:00.123"``. The
  minimum is rounded down and the maximum rounded *up* to the millisecond, so both stay true bounds
  for every reader (Delta Spark widens the max by 1 ms anyway; delta-rs does not).
- decimals as exact JSON numbers; integers and floats as numbers (NaN bounds are left out).
- strings: the minimum is cut to its first 32 characters (still a lower bound); a maximum longer
  than 32 characters is left out, as a cut maximum would not be an upper bound.
- booleans get min/max; binary and nested columns get only nullCount.

A column whose bounds are missing in any row group that holds values gets no min/max.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
from typing import TYPE_CHECKING, Any

from dorisql.storage import fs

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa
    import pyarrow.parquet as pq

__all__ = ["FooterStats", "read_footer_stats", "STRING_PREFIX_LENGTH"]

STRING_PREFIX_LENGTH = 32
_EPOCH = dt.datetime(1970, 1, 1)
_UNIT_PER_MS = {"s": None, "ms": 1, "us": 1000, "ns": 1_000_000}


class FooterStats:
    """What one Parquet file holds: row count, size and the Delta stats JSON."""

    __slots__ = ("num_records", "size", "stats_json")

    def __init__(self, num_records: int, size: int, stats_json: str):
        self.num_records = num_records
        self.size = size
        self.stats_json = stats_json


def read_footer_stats(path: str) -> FooterStats:
    """Read only the footer of one Parquet file and build its Delta stats."""
    import pyarrow.parquet as pq

    with fs.open_input(path) as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(0)
        md = pq.read_metadata(f)
    return FooterStats(md.num_rows, size, stats_json(md))


def stats_json(md: pq.FileMetaData) -> str:
    import pyarrow as pa

    arrow_schema = md.schema.to_arrow_schema()
    leaf_index: dict[str, int] = {}
    for i in range(md.num_columns):
        path = md.schema.column(i).path
        if "." not in path:
            leaf_index[path] = i
    mins: dict[str, Any] = {}
    maxs: dict[str, Any] = {}
    nulls: dict[str, int] = {}
    for field in arrow_schema:
        j = leaf_index.get(field.name)
        if j is None or pa.types.is_nested(field.type):
            continue  # nested columns: no stats (Delta would need nested JSON objects)
        lo, hi, null_count, bounds_ok, nulls_ok = None, None, 0, True, True
        for r in range(md.num_row_groups):
            rg = md.row_group(r)
            col = rg.column(j)
            st = col.statistics
            if st is None:
                bounds_ok = nulls_ok = False
                break
            if st.has_null_count:
                null_count += st.null_count
            else:
                nulls_ok = False
            values_here = rg.num_rows - (st.null_count if st.has_null_count else 0)
            if values_here <= 0:
                continue
            if not st.has_min_max:
                bounds_ok = False
                continue
            vmin, vmax = _bound(field.type, st, "min"), _bound(field.type, st, "max")
            if vmin is _SKIP or vmax is _SKIP:
                bounds_ok = False
                continue
            lo = vmin if lo is None or vmin < lo else lo
            hi = vmax if hi is None or vmax > hi else hi
        if nulls_ok:
            nulls[field.name] = null_count
        if bounds_ok and lo is not None:
            lo_json = _to_json_bound(field.type, lo, upper=False)
            hi_json = _to_json_bound(field.type, hi, upper=True)
            if lo_json is not _SKIP:
                mins[field.name] = lo_json
            if hi_json is not _SKIP:
                maxs[field.name] = hi_json
    return _dumps({"numRecords": md.num_rows, "minValues": mins, "maxValues": maxs, "nullCount": nulls})


class _Skip:
    pass


_SKIP = _Skip()


def _bound(t: pa.DataType, st, which: str):
    import pyarrow as pa

    if pa.types.is_timestamp(t):
        raw = st.min_raw if which == "min" else st.max_raw
        return int(raw)  # in the column's unit
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return _SKIP
    value = st.min if which == "min" else st.max
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return _SKIP
    if isinstance(value, float) and math.isnan(value):
        return _SKIP
    return value


def _to_json_bound(t: pa.DataType, value, *, upper: bool):
    import pyarrow as pa

    if pa.types.is_timestamp(t):
        per_ms = _UNIT_PER_MS[t.unit]
        ms = value * 1000 if per_ms is None else (-(-value // per_ms) if upper else value // per_ms)
        try:
            text = (_EPOCH + dt.timedelta(milliseconds=ms)).isoformat(timespec="milliseconds")
        except OverflowError:  # 9999-12-31 23:59:59.999999 rounded up: no bound rather than a wrong one
            return _SKIP
        return text + "Z" if t.tz is not None else text
    if pa.types.is_date(t):
        return value.isoformat()
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        if len(value) <= STRING_PREFIX_LENGTH:
            return value
        return _SKIP if upper else value[:STRING_PREFIX_LENGTH]
    if isinstance(value, float) and math.isinf(value):
        return _SKIP
    return value


def _dumps(obj) -> str:
    """JSON text with Decimals written as exact numbers."""

    def enc(v) -> str:
        if isinstance(v, dict):
            return "{" + ",".join(json.dumps(k) + ":" + enc(x) for k, x in v.items()) + "}"
        if isinstance(v, decimal.Decimal):
            return format(v, "f")
        return json.dumps(v, allow_nan=False)

    return enc(obj)
