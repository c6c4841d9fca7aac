"""How BITMAP, HLL and QUANTILE_STATE values are stored in Delta, and the Spark SQL that builds,
unions and reads them (pure text building: no Spark here).

Doris's aggregate types sit on Spark's own sketches, so every step runs inside the JVM and other
engines read the stored values as plain data (docs/storage.md, "BITMAP, HLL and QUANTILE_STATE"):

- BITMAP (a set of unsigned 64-bit integers in Doris; dorisql holds 0..9223372036854775807, the
  BIGINT range's non-negative half): ``ARRAY<STRUCT<bucket: BIGINT, bits: BINARY>>``, one entry
  per non-empty bucket, sorted by bucket. ``bucket = bitmap_bucket_number(v)`` and ``bits`` is
  Spark's ``bitmap_construct_agg(bitmap_bit_position(v))`` over that bucket's values (4096
  bytes, 32768 positions, bit ``p`` in byte ``p / 8`` at ``1 << (p % 8)``). Decoding: bucket 0
  holds only 0 (position 0); bucket ``b > 0`` at position ``p`` holds ``(b - 1) * 32768 + p + 1``.
  An empty bitmap is an empty array; NULL stays NULL.
- HLL: BINARY, an Apache DataSketches HLL sketch as ``hll_sketch_agg(CAST(x AS STRING), 14)``
  builds it (lgConfigK 14: 16384 registers, Doris's precision; the value's string form is hashed,
  so 123 and '123' count once, as Doris's hll_hash of a string).
- QUANTILE_STATE: BINARY, an Apache DataSketches KLL double sketch as
  ``kll_sketch_agg_double(CAST(x AS DOUBLE))`` builds it (default k).

A BITMAP can be built from one value by a scalar expression (`bitmap_of_value`); HLL and KLL
sketches cannot, so building them from values is always an aggregate (a load pre-aggregates by
key, as Doris's memtable does). Unions of stored BITMAPs need two grouping levels (entries by
bucket, then buckets by key): `bitmap_entries_sql` and `bitmap_collect_sql` give the two steps'
expressions; `bitmap_union_query` composes them over a relation.

Every function takes and returns Spark SQL text; arguments are expressions already in Spark SQL.
"""

from __future__ import annotations

from sqlglot import exp

from dorisql.syntax.dialect import call_name
from dorisql.types import SKETCH_STORAGE

__all__ = [
    "BITMAP_BUCKET_BITS",
    "BITMAP_MAX_VALUE",
    "BITMAP_SPARK_TYPE",
    "EMPTY_BITMAP_SQL",
    "EMPTY_HLL_SQL",
    "EMPTY_QUANTILE_STATE_SQL",
    "HLL_LG_CONFIG_K",
    "HLL_SPARK_TYPE",
    "QUANTILE_STATE_SPARK_TYPE",
    "SKETCH_TYPES",
    "bitmap_collect_sql",
    "bitmap_count_sql",
    "bitmap_entries_sql",
    "bitmap_of_value",
    "bitmap_union_query",
    "empty_value_sql",
    "hll_build_agg",
    "load_inputs",
    "hll_estimate_sql",
    "hll_merge_agg",
    "quantile_build_agg",
    "quantile_sql",
    "quantile_merge_agg",
    "spark_type",
]

#: Doris's type names these builders serve.
SKETCH_TYPES = ("BITMAP", "HLL", "QUANTILE_STATE")

# the column types of dorisql.types (one definition)
BITMAP_SPARK_TYPE = SKETCH_STORAGE["BITMAP"]
HLL_SPARK_TYPE = SKETCH_STORAGE["HLL"]
QUANTILE_STATE_SPARK_TYPE = SKETCH_STORAGE["QUANTILE_STATE"]

#: Positions per bucket of Spark's bitmap functions (bitmap_bucket_number / bitmap_bit_position).
BITMAP_BUCKET_BITS = 32768
_BITMAP_BYTES = BITMAP_BUCKET_BITS // 8
#: The largest value a dorisql BITMAP holds (Doris's go up to 2^64 - 1; larger ones are refused
#: as Doris refuses invalid input).
BITMAP_MAX_VALUE = 9223372036854775807

#: Doris's HLL precision: 2^14 registers.
HLL_LG_CONFIG_K = 14

EMPTY_BITMAP_SQL = f"CAST(array() AS {BITMAP_SPARK_TYPE})"
# The bytes Spark's aggregates give over no rows (checked by tests/translate/test_sketch_storage.py):
# a constant, so that bitmap_empty()/hll_empty() need no aggregate.
EMPTY_HLL_SQL = "X'0201070E030400080000000000000000000000000000000000000000000000000000000000000000'"
EMPTY_QUANTILE_STATE_SQL = "X'02010F01C8000800'"


def spark_type(doris_type: str) -> str:
    """The Spark type a BITMAP / HLL / QUANTILE_STATE column is stored as."""
    name = doris_type.upper()
    if name == "BITMAP":
        return BITMAP_SPARK_TYPE
    if name == "HLL":
        return HLL_SPARK_TYPE
    if name == "QUANTILE_STATE":
        return QUANTILE_STATE_SPARK_TYPE
    raise ValueError(f"not a sketch type: {doris_type}")


def empty_value_sql(doris_type: str) -> str:
    """bitmap_empty() / hll_empty() / an empty QUANTILE_STATE, as a constant."""
    name = doris_type.upper()
    if name == "BITMAP":
        return EMPTY_BITMAP_SQL
    if name == "HLL":
        return EMPTY_HLL_SQL
    if name == "QUANTILE_STATE":
        return EMPTY_QUANTILE_STATE_SQL
    raise ValueError(f"not a sketch type: {doris_type}")


# -- BITMAP ---------------------------------------------------------------------------------------


def bitmap_of_value(value: str) -> str:
    """A BITMAP holding one BIGINT `value` (to_bitmap(v) as a scalar): one bucket whose 4096-byte
    `bits` has the value's position set. NULL gives NULL; the caller checks the range."""
    pos = f"bitmap_bit_position({value})"
    byte = f"lpad(hex(shiftleft(1, {pos} % 8)), 2, '0')"
    bits = f"unhex(concat(repeat('00', {pos} DIV 8), {byte}, repeat('00', {_BITMAP_BYTES - 1} - {pos} DIV 8)))"
    return (
        f"CASE WHEN ({value}) IS NOT NULL THEN "
        f"CAST(array(named_struct('bucket', bitmap_bucket_number({value}), 'bits', {bits})) AS {BITMAP_SPARK_TYPE}) END"
    )


def bitmap_entries_sql(*, value: str | None = None, stored_bits: str | None = None) -> str:
    """Step one of building a BITMAP, grouped by (keys, bucket): the aggregate giving the bucket's
    ``bits``. With `value` (a BIGINT per row, the relation grouped by ``bitmap_bucket_number(value)``):
    ``bitmap_construct_agg`` of the positions; with `stored_bits` (the ``bits`` of exploded stored
    entries, grouped by their ``bucket``): their ``bitmap_or_agg``."""
    if (value is None) == (stored_bits is None):
        raise ValueError("bitmap_entries_sql takes one of value= or stored_bits=")
    if value is not None:
        return f"bitmap_construct_agg(bitmap_bit_position({value}))"
    return f"bitmap_or_agg({stored_bits})"


def bitmap_collect_sql(bucket: str, bits: str) -> str:
    """Step two, grouped by the keys: the bucket entries (NULL buckets skipped) as one BITMAP,
    sorted by bucket; no entries gives the empty bitmap."""
    entry = f"CASE WHEN {bucket} IS NOT NULL THEN named_struct('bucket', CAST({bucket} AS BIGINT), 'bits', {bits}) END"
    return f"CAST(array_sort(collect_list({entry})) AS {BITMAP_SPARK_TYPE})"


def bitmap_union_query(relation: str, keys: list[str], bitmap: str, alias: str) -> str:
    """A query over `relation` (a table name or a parenthesised subquery): per `keys` (Spark SQL
    expressions, output under their own text; none: one row), the union of the stored BITMAP
    `bitmap` as `alias`. Keys whose values are all NULL get NULL, as Doris's union of NULLs."""
    key_list = "".join(f"{k}, " for k in keys)
    group1 = f"GROUP BY {key_list}e.bucket" if keys else "GROUP BY e.bucket"
    group2 = f"GROUP BY {', '.join(keys)}" if keys else ""
    key_out = "".join(f"{k}, " for k in keys)
    collect = bitmap_collect_sql("__bucket", "__bits")
    entries = bitmap_entries_sql(stored_bits="e.bits")
    return (
        f"SELECT {key_out}CASE WHEN max(__present) THEN {collect} END AS {alias} FROM ("
        f"SELECT {key_out}e.bucket AS __bucket, {entries} AS __bits, true AS __present "
        f"FROM {relation} LATERAL VIEW explode({bitmap}) x AS e {group1} "
        f"UNION ALL SELECT {key_out}NULL, NULL, ({bitmap}) IS NOT NULL FROM {relation}"
        f") {group2}"
    )


def bitmap_count_sql(bitmap: str) -> str:
    """The number of values in a stored BITMAP (bitmap_count): the sum of its buckets' counts."""
    return f"aggregate({bitmap}, CAST(0 AS BIGINT), (acc, e) -> acc + bitmap_count(e.bits))"


# -- HLL ------------------------------------------------------------------------------------------


def hll_build_agg(value: str) -> str:
    """hll_hash(value) over a group: the HLL sketch of the values' string forms (NULLs skipped)."""
    return f"hll_sketch_agg(CAST({value} AS STRING), {HLL_LG_CONFIG_K})"


def hll_merge_agg(sketch: str) -> str:
    """The union of stored HLL sketches over a group; NULL when all are NULL (Spark's union of
    no sketch is an empty sketch)."""
    return f"CASE WHEN count({sketch}) > 0 THEN hll_union_agg({sketch}, true) END"


def hll_estimate_sql(sketch: str) -> str:
    """The distinct-count estimate of one stored HLL sketch (hll_cardinality)."""
    return f"hll_sketch_estimate({sketch})"


# -- QUANTILE_STATE -------------------------------------------------------------------------------


def quantile_build_agg(value: str) -> str:
    """to_quantile_state(value, ...) over a group: the KLL sketch of the values (NULLs skipped)."""
    return f"kll_sketch_agg_double(CAST({value} AS DOUBLE))"


def quantile_merge_agg(sketch: str) -> str:
    """The union of stored QUANTILE_STATE sketches over a group; NULL when all are NULL."""
    return f"CASE WHEN count({sketch}) > 0 THEN kll_merge_agg_double({sketch}) END"


def quantile_sql(sketch: str, fraction: str) -> str:
    """quantile_percent: the value at `fraction` (0..1) of one stored sketch; NULL for an empty one."""
    # Spark's getter refuses an empty sketch
    quantile = f"kll_sketch_get_quantile_double({sketch}, {fraction})"
    return f"CASE WHEN kll_sketch_get_n_double({sketch}) > 0 THEN {quantile} END"


# -- loads ----------------------------------------------------------------------------------------

#: The load functions of each type and the type of the values their sketch is built from.
_LOAD_FUNCTIONS = {
    "BITMAP": ({"to_bitmap", "bitmap_from_string"}, "bitmap_empty", "BIGINT"),
    "HLL": ({"hll_hash"}, "hll_empty", "STRING"),
    "QUANTILE_STATE": ({"to_quantile_state"}, None, "DOUBLE"),
}


def load_inputs(node: exp.Expr, doris_type: str) -> exp.Expr | None:
    """A load's value `node` (a parsed Doris expression) for a column of sketch type
    `doris_type`, when it is one of Doris's load functions (to_bitmap, bitmap_from_string,
    bitmap_empty, hll_hash, hll_empty, to_quantile_state): the array of the values its sketch is
    built from (NULL elements are skipped), which the load pre-aggregates into the sketch
    (dorisql.statements.load.sketch_load), as Doris's memtable does. None: no load function (a
    stored sketch, another sketch-valued function, NULL): loaded as it is."""
    functions, empty, element = _LOAD_FUNCTIONS[doris_type.upper()]
    name = (call_name(node) or "").lower() if isinstance(node, exp.Func) else ""
    if name and name == empty:
        return exp.cast(exp.Array(expressions=[]), exp.DataType.build(f"ARRAY<{element}>", dialect="spark"))
    if name not in functions:
        return None
    if doris_type.upper() == "BITMAP":  # the values of the bitmap the function gives
        return exp.Anonymous(this="bitmap_to_array", expressions=[node.copy()])
    arg = node.expressions[0] if node.expressions else node.this
    if not isinstance(arg, exp.Expr):
        arg = exp.null()
    return exp.Array(expressions=[exp.cast(arg.copy(), exp.DataType.build(element, dialect="spark"))])
