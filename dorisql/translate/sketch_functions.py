"""Doris's BITMAP, HLL and QUANTILE_STATE functions on Spark's own sketch functions (issue 30).

The stored values are those of :mod:`dorisql.translate.sketch_storage` (docs/storage.md):

- a BITMAP is ``ARRAY<STRUCT<bucket: BIGINT, bits: BINARY>>`` (Spark's ``bitmap_bucket_number``
  and 4096-byte ``bitmap_construct_agg`` buckets, sorted by bucket);
- an HLL is a DataSketches HLL sketch (``hll_sketch_agg(CAST(x AS STRING), 14)``);
- a QUANTILE_STATE is a DataSketches KLL double sketch (``kll_sketch_agg_double``).

Everything here is a rewrite of the parsed query into Spark SQL (no UDF, no JVM reflection):

- scalar BITMAP functions work on a bitmap's values as a sorted ``ARRAY<BIGINT>`` (Spark's
  array functions: ``array_intersect`` is ``bitmap_and``, ``array_except`` ``bitmap_and_not``);
  a stored bitmap is decoded into values, a result encoded back only when a BITMAP is wanted
  (``bitmap_count(bitmap_and(a, b))`` never builds the intermediate bitmap);
- ``bitmap_union`` / ``bitmap_union_count`` / ``intersect_count`` / ``orthogonal_bitmap_*`` need
  the buckets of one group OR-ed together (Spark's ``bitmap_or_agg`` is an aggregate, with no
  scalar OR of two bitmaps): the SELECT becomes two levels (`_rewrite_bitmap_aggregates`), the
  inner grouped by its keys and the bitmaps' buckets, the outer by its keys;
- HLL and QUANTILE_STATE functions map onto ``hll_*`` and ``kll_*``; ``hll_hash(x)`` and
  ``to_quantile_state(x, c)`` are values Spark builds only as aggregates, so they are read
  where an aggregate or a single value's answer is wanted (``hll_union_agg(hll_hash(x))`` is
  ``hll_sketch_agg(x)``'s estimate, ``hll_cardinality(hll_hash(x))`` is 1 or 0) and refused
  elsewhere with "not supported: ...".
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp

from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.syntax.cancel import checked
from dorisql.syntax.dialect import call_name, fill_placeholders, replace_node
from dorisql.translate.sketch_storage import BITMAP_SPARK_TYPE, EMPTY_BITMAP_SQL, EMPTY_HLL_SQL, HLL_LG_CONFIG_K

__all__ = ["PREAGGREGATION", "SKETCH_FUNCTIONS", "translate_sketch_functions"]

_BITMAP_TYPE = BITMAP_SPARK_TYPE
_EMPTY_BITMAP = EMPTY_BITMAP_SQL
_EMPTY_VALUES = "CAST(array() AS ARRAY<BIGINT>)"
_EMPTY_HLL = EMPTY_HLL_SQL
_HLL_LG_K = HLL_LG_CONFIG_K

#: Doris's arities of each function (a call with another number is refused with Doris's message).
_ARITIES: dict[str, tuple[int, ...]] = {
    # bitmap scalars
    "to_bitmap": (1,),
    "bitmap_from_string": (1,),
    "bitmap_empty": (0,),
    "bitmap_hash": (1,),
    "bitmap_count": (1,),
    "bitmap_not": (2,),
    "bitmap_and_not": (2,),
    "bitmap_andnot": (2,),
    "bitmap_and_not_count": (2,),
    "bitmap_andnot_count": (2,),
    "bitmap_contains": (2,),
    "bitmap_has_any": (2,),
    "bitmap_has_all": (2,),
    "bitmap_to_string": (1,),
    "bitmap_to_array": (1,),
    "bitmap_min": (1,),
    "bitmap_max": (1,),
    "bitmap_subset_in_range": (3,),
    "bitmap_subset_limit": (3,),
    "sub_bitmap": (3,),
    # bitmap aggregates
    "bitmap_union": (1,),
    "bitmap_union_count": (1,),
    "orthogonal_bitmap_union_count": (1,),
    "bitmap_intersect": (1,),
    "group_bitmap_xor": (1,),
    # hll
    "hll_hash": (1,),
    "hll_empty": (0,),
    "hll_cardinality": (1,),
    "hll_union_agg": (1,),
    "hll_raw_agg": (1,),
    "hll_union": (1,),
    "ndv": (1,),
    "approx_count_distinct": (1,),
    # quantile_state
    "to_quantile_state": (2,),
    "quantile_union": (1,),
    "quantile_percent": (2,),
}
#: Functions of two or more bitmaps (Doris's variadic signatures).
_VARIADIC = {
    "bitmap_and",
    "bitmap_or",
    "bitmap_xor",
    "bitmap_and_count",
    "bitmap_or_count",
    "bitmap_xor_count",
}
#: Functions of a bitmap, a filter column and one or more of its values.
_INTERSECTS = {"intersect_count", "orthogonal_bitmap_intersect", "orthogonal_bitmap_intersect_count"}

#: Every name this module translates (the allow-list of :mod:`dorisql.translate.functions`).
SKETCH_FUNCTIONS: frozenset[str] = frozenset(_ARITIES) | _VARIADIC | _INTERSECTS

#: The aggregates that OR or AND the buckets of a group's bitmaps (two grouping levels).
_BITMAP_AGGREGATES = frozenset(
    {"bitmap_union", "bitmap_union_count", "orthogonal_bitmap_union_count", "bitmap_intersect", "group_bitmap_xor"}
    | _INTERSECTS
)

#: Aggregates sqlglot reads as plain calls (Spark's sketches, this module's output).
_ANONYMOUS_AGGREGATES = frozenset(
    {
        "hll_sketch_agg",
        "hll_union_agg",
        "kll_sketch_agg_double",
        "kll_merge_agg_double",
        "bitmap_or_agg",
        "bitmap_and_agg",
        "bitmap_construct_agg",
        "collect_list",
        "collect_set",
        "group_concat",
        "percentile_approx",
        "any_value",
        "count_by_enum",
        "avg_weighted",
        "group_uniq_array",
        "group_array",
    }
)

# --------------------------------------------------------------------------- Spark SQL templates

#: 8190 hex zeros: the bytes around a single set byte of a 4096-byte bucket.
_ZEROS = "replace(format_string('%8190s', ''), ' ', '0')"
#: The 4096-byte bits of one position {p}.
_ONE_BIT = (
    "unhex(array_join(array(substr({z}, 1, 2 * ({p} >> 3)), format_string('%02X', 1 << ({p} & 7)), "
    "substr({z}, 1, 8190 - 2 * ({p} >> 3))), ''))"
)
#: to_bitmap(x) as a BITMAP: NULL, a negative or a non-number is the empty bitmap (Doris's
#: to_bitmap(-1) is empty; its values are unsigned).
_TO_BITMAP = (
    "element_at(transform(array(TRY_CAST(__dorisql_arg0 AS BIGINT)), __dorisql_tv -> "
    f"IF(__dorisql_tv IS NULL OR __dorisql_tv < 0, {_EMPTY_BITMAP}, "
    "array(named_struct('bucket', bitmap_bucket_number(__dorisql_tv), 'bits', "
    + _ONE_BIT.format(z=_ZEROS, p="bitmap_bit_position(__dorisql_tv)")
    + ")))), 1)"
)
_TO_BITMAP_VALUES = (
    "element_at(transform(array(TRY_CAST(__dorisql_arg0 AS BIGINT)), __dorisql_tv -> "
    f"IF(__dorisql_tv IS NULL OR __dorisql_tv < 0, {_EMPTY_VALUES}, array(__dorisql_tv))), 1)"
)
#: The values of one bucket entry: each non-zero 8-byte chunk of its hex, each set bit of it.
#: Bucket 0 holds 0 only; bucket b > 0 at position p holds (b - 1) * 32768 + p + 1.
_ENTRY_VALUES = (
    "element_at(transform(array(hex({bits})), __dorisql_h -> flatten(transform("
    "filter(sequence(0, 511), __dorisql_c -> substr(__dorisql_h, __dorisql_c * 16 + 1, 16) <> '0000000000000000'), "
    # the chunk's 8 bytes as two 4-byte words (byte 0 the high byte of the first)
    "__dorisql_c -> element_at(transform(array(array("
    "CAST(conv(substr(__dorisql_h, __dorisql_c * 16 + 1, 8), 16, 10) AS BIGINT), "
    "CAST(conv(substr(__dorisql_h, __dorisql_c * 16 + 9, 8), 16, 10) AS BIGINT))), __dorisql_ws -> "
    "filter(transform(sequence(0, 63), __dorisql_k -> "
    "IF((__dorisql_ws[__dorisql_k >> 5] >> (8 * (3 - ((__dorisql_k >> 3) & 3)) + (__dorisql_k & 7))) & 1 = 1, "
    "IF({bucket} = 0, -(__dorisql_c * 64 + __dorisql_k), ({bucket} - 1) * 32768 + __dorisql_c * 64 + __dorisql_k + 1), "
    "NULL)), __dorisql_x -> __dorisql_x IS NOT NULL)), 1)))), 1)"
)
#: A stored BITMAP's values, ascending (NULL stays NULL).
_DECODE = (
    "flatten(transform(__dorisql_arg0, __dorisql_e -> "
    + _ENTRY_VALUES.format(bits="__dorisql_e.bits", bucket="__dorisql_e.bucket")
    + "))"
)
#: One bucket's 4096 bytes as hex from its positions {P}, bound as __dorisql_p. A few positions
#: (the usual case of a function's result): each set byte's value after the zeros since the
#: one before; many: each byte from its 8 bits, looked up in a map of the positions.
_SPARSE_BYTES = (
    "element_at(transform(array(array_sort(array_distinct(transform(__dorisql_p, __dorisql_x -> __dorisql_x >> 3)))), "
    "__dorisql_q -> array_join(array(array_join(transform(__dorisql_q, (__dorisql_y, __dorisql_k) -> array_join(array("
    f"substr({_ZEROS}, 1, 2 * (__dorisql_y - IF(__dorisql_k = 0, -1, __dorisql_q[__dorisql_k - 1]) - 1)), "
    "format_string('%02X', aggregate(filter(__dorisql_p, __dorisql_x -> __dorisql_x >> 3 = __dorisql_y), 0, "
    "(__dorisql_a, __dorisql_x) -> __dorisql_a | (1 << (__dorisql_x & 7))))), '')), ''), "
    f"substr({_ZEROS}, 1, 2 * (4095 - __dorisql_q[size(__dorisql_q) - 1]))), '')), 1)"
)
_DENSE_BYTES = (
    "element_at(transform(array(map_from_entries(transform(__dorisql_p, __dorisql_x -> struct(__dorisql_x, true)))), "
    "__dorisql_m -> array_join(transform(sequence(0, 4095), __dorisql_i -> format_string('%02X', "
    "aggregate(sequence(0, 7), 0, (__dorisql_a, __dorisql_j) -> __dorisql_a | "
    "IF(map_contains_key(__dorisql_m, __dorisql_i * 8 + __dorisql_j), 1 << __dorisql_j, 0)))), '')), 1)"
)
#: Distinct non-negative values (any order) as a stored BITMAP: per bucket, its positions as bytes.
_ENCODE = (
    "element_at(transform(array(__dorisql_arg0), __dorisql_w -> IF(__dorisql_w IS NULL, NULL, "
    "transform(array_sort(array_distinct(transform(__dorisql_w, __dorisql_x -> bitmap_bucket_number(__dorisql_x)))), "
    "__dorisql_b -> named_struct('bucket', __dorisql_b, 'bits', "
    "element_at(transform(array(transform(filter(__dorisql_w, "
    "__dorisql_x -> bitmap_bucket_number(__dorisql_x) = __dorisql_b), "
    "__dorisql_x -> bitmap_bit_position(__dorisql_x))), __dorisql_p -> "
    f"unhex(IF(size(__dorisql_p) <= 512, {_SPARSE_BYTES}, {_DENSE_BYTES}))), 1))))), 1)"
)
#: bitmap_from_string('1,2,3'): comma-separated non-negative integers (blanks around them
#: allowed); anything else is NULL, '' the empty bitmap.
_FROM_STRING = (
    f"IF(trim(__dorisql_arg0) = '', {_EMPTY_VALUES}, "
    "element_at(transform(array(transform(split(__dorisql_arg0, ','), __dorisql_t -> "
    "IF(trim(__dorisql_t) RLIKE '^[0-9]+$', TRY_CAST(trim(__dorisql_t) AS BIGINT), NULL))), __dorisql_a -> "
    "IF(exists(__dorisql_a, __dorisql_x -> __dorisql_x IS NULL), NULL, array_sort(array_distinct(__dorisql_a)))), 1))"
)


@functools.lru_cache(maxsize=64)
def _parsed(sql: str) -> exp.Expr:
    return sqlglot.parse_one(sql, read="spark")


def _build(sql: str, *args: exp.Expr) -> exp.Expr:
    """The Spark SQL template `sql` with ``__dorisql_arg<i>`` replaced by `args` (the first use
    the node itself, later ones copies)."""
    tree = _parsed(sql).copy()
    fill_placeholders(tree, {f"__dorisql_arg{i}": a for i, a in enumerate(args)})
    return tree


# --------------------------------------------------------------------------- one call at a time


class _Values:
    """A bitmap-valued call translated: its values (sorted, distinct ``ARRAY<BIGINT>``) and, when
    cheaper than encoding them, the stored form itself."""

    def __init__(self, values: exp.Expr, stored: exp.Expr | None = None):
        self.values = values
        self.stored = stored


def _name(node: exp.Expr | None) -> str | None:
    return call_name(node) if isinstance(node, exp.Func) else None


def _args(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    return [a for a in [node.this, *node.expressions] if a is not None]


def _check_arity(name: str, args: list[exp.Expr]) -> None:
    if name in _VARIADIC:
        ok = len(args) >= 2
        shown = f"{name}(Expression, Expression, ...)"
    elif name in _INTERSECTS:
        ok = len(args) >= 3
        shown = f"{name}(Expression, Expression, Expression, ...)"
    else:
        arities = _ARITIES[name]
        ok = len(args) in arities
        shown = ", ".join(f"{name}({', '.join(['Expression'] * n)})" for n in arities)
    if not ok:
        raise AnalysisError(
            f"Can not found function '{name}' which has {len(args)} arity. Candidate functions are: [{shown}]"
        )


class _Translator:
    """The scalar pass: each call of this module's functions, innermost first, into Spark SQL.
    Bitmap-valued results are remembered (`forms`) so that their consumer reads their values."""

    def __init__(self) -> None:
        self.forms: dict[int, _Values] = {}

    def values(self, node: exp.Expr) -> exp.Expr:
        """The values of a bitmap argument."""
        form = self.forms.get(id(node))
        if form is not None:
            return form.values.copy()
        if isinstance(node, exp.Null):  # a NULL literal has no type to decode
            return _parsed("CAST(NULL AS ARRAY<BIGINT>)").copy()
        return _build(_DECODE, node.copy())

    def stored(self, node: exp.Expr) -> exp.Expr:
        form = self.forms.get(id(node))
        if form is None:
            return node
        if form.stored is not None:
            return form.stored
        return _build(_ENCODE, form.values.copy())

    def bitmap(self, values: exp.Expr, stored: exp.Expr | None = None) -> exp.Expr:
        """A bitmap result: stored form in the tree, its values remembered."""
        node = stored if stored is not None else _build(_ENCODE, values.copy())
        self.forms[id(node)] = _Values(values, stored)
        return node

    def translate(self, node: exp.Expr, name: str, args: list[exp.Expr]) -> exp.Expr | None:
        if name == "to_bitmap":
            return self.bitmap(_build(_TO_BITMAP_VALUES, args[0].copy()), _build(_TO_BITMAP, args[0]))
        if name == "bitmap_from_string":
            return self.bitmap(_build(_FROM_STRING, args[0]))
        if name == "bitmap_empty":
            return self.bitmap(_parsed(_EMPTY_VALUES).copy(), _parsed(_EMPTY_BITMAP).copy())
        if name == "bitmap_hash":
            raise NotSupportedError(
                "bitmap_hash: Doris hashes with MurmurHash3 under its own seed, which Spark's hash() cannot take"
            )
        if name in ("bitmap_and", "bitmap_or", "bitmap_xor"):
            return self.bitmap(self._combined(name, args))
        if name in ("bitmap_and_count", "bitmap_or_count", "bitmap_xor_count"):
            return _build("coalesce(size(__dorisql_arg0), 0)", self._combined(name[: -len("_count")], args))
        if name in ("bitmap_not", "bitmap_and_not", "bitmap_andnot"):
            return self.bitmap(_build("array_except(__dorisql_arg0, __dorisql_arg1)", *self._both(args)))
        if name in ("bitmap_and_not_count", "bitmap_andnot_count"):
            return _build("coalesce(size(array_except(__dorisql_arg0, __dorisql_arg1)), 0)", *self._both(args))
        if name == "bitmap_count":
            form = self.forms.get(id(args[0]))
            if form is not None and form.stored is None:
                return _build("coalesce(size(__dorisql_arg0), 0)", form.values.copy())
            # a stored bitmap: the buckets' counts, no decoding (NULL counts 0, as in Doris)
            return _build(
                "coalesce(aggregate(__dorisql_arg0, CAST(0 AS BIGINT), "
                "(__dorisql_n, __dorisql_e) -> __dorisql_n + bitmap_count(__dorisql_e.bits)), 0)",
                self.stored(args[0]),
            )
        if name == "bitmap_contains":
            return _build(
                "array_contains(__dorisql_arg0, CAST(__dorisql_arg1 AS BIGINT))", self.values(args[0]), args[1]
            )
        if name == "bitmap_has_any":
            return _build("arrays_overlap(__dorisql_arg0, __dorisql_arg1)", *self._both(args))
        if name == "bitmap_has_all":
            return _build("size(array_except(__dorisql_arg1, __dorisql_arg0)) = 0", *self._both(args))
        if name == "bitmap_to_string":
            return _build("array_join(__dorisql_arg0, ',')", self.values(args[0]))
        if name == "bitmap_to_array":
            return self.values(args[0])
        if name == "bitmap_min":
            return _build("array_min(__dorisql_arg0)", self.values(args[0]))
        if name == "bitmap_max":
            return _build("array_max(__dorisql_arg0)", self.values(args[0]))
        if name == "bitmap_subset_in_range":  # [start, end)
            return self.bitmap(
                _build(
                    "IF(__dorisql_arg1 IS NULL OR __dorisql_arg2 IS NULL, NULL, filter(__dorisql_arg0, __dorisql_x -> "
                    "__dorisql_x >= __dorisql_arg1 AND __dorisql_x < __dorisql_arg2))",
                    self.values(args[0]),
                    *args[1:],
                )
            )
        if name == "bitmap_subset_limit":  # the first `limit` values from `start` on
            return self.bitmap(
                _build(
                    "IF(__dorisql_arg2 < 0 OR __dorisql_arg1 < 0, NULL, slice(filter(__dorisql_arg0, __dorisql_x -> "
                    "__dorisql_x >= __dorisql_arg1), 1, CAST(__dorisql_arg2 AS INT)))",
                    self.values(args[0]),
                    *args[1:],
                )
            )
        if name == "sub_bitmap":  # `len` values from the `offset`-th (negative: from the end)
            return self.bitmap(self._sub_bitmap(args))
        return self._sketch(node, name, args)

    def _sub_bitmap(self, args: list[exp.Expr]) -> exp.Expr:
        return _build(
            "element_at(transform(array(__dorisql_arg0), __dorisql_sv -> "
            "IF(__dorisql_arg1 IS NULL OR __dorisql_arg2 IS NULL OR __dorisql_arg2 <= 0 "
            "OR __dorisql_arg1 >= size(__dorisql_sv) OR -__dorisql_arg1 > size(__dorisql_sv), NULL, "
            "slice(__dorisql_sv, CAST(IF(__dorisql_arg1 >= 0, __dorisql_arg1 + 1, __dorisql_arg1) AS INT), "
            "CAST(__dorisql_arg2 AS INT)))), 1)",
            self.values(args[0]),
            args[1],
            args[2],
        )

    def _both(self, args: list[exp.Expr]) -> list[exp.Expr]:
        return [self.values(args[0]), self.values(args[1])]

    def _combined(self, name: str, args: list[exp.Expr]) -> exp.Expr:
        """The values of bitmap_and / bitmap_or / bitmap_xor of `args`: AND and XOR are NULL when
        any argument is; OR skips NULLs (NULL when all are), as Doris's."""
        values = [self.values(a) for a in args]
        listed = exp.Array(expressions=values)
        if name == "bitmap_or":
            return _build(
                "element_at(transform(array(filter(__dorisql_arg0, __dorisql_x -> __dorisql_x IS NOT NULL)), "
                "__dorisql_l -> IF(size(__dorisql_l) = 0, NULL, array_sort(array_distinct(flatten(__dorisql_l))))), 1)",
                listed,
            )
        step = (
            "array_intersect(__dorisql_acc, __dorisql_x)"
            if name == "bitmap_and"
            else "array_sort(array_union(array_except(__dorisql_acc, __dorisql_x), "
            "array_except(__dorisql_x, __dorisql_acc)))"
        )
        return _build(
            "element_at(transform(array(__dorisql_arg0), __dorisql_l -> "
            "IF(exists(__dorisql_l, __dorisql_x -> __dorisql_x IS NULL), NULL, "
            "aggregate(slice(__dorisql_l, 2, size(__dorisql_l) - 1), __dorisql_l[0], "
            f"(__dorisql_acc, __dorisql_x) -> {step}))), 1)",
            listed,
        )

    def _sketch(self, node: exp.Expr, name: str, args: list[exp.Expr]) -> exp.Expr | None:
        """HLL and QUANTILE_STATE."""
        inner: exp.Expr = args[0] if args else exp.null()
        inner_name = _name(inner)
        if name == "hll_empty":
            return _parsed(_EMPTY_HLL).copy()
        if name == "hll_hash":
            if isinstance(node.parent, exp.Func) and _name(node.parent) in (
                "hll_union_agg",
                "hll_raw_agg",
                "hll_union",
                "hll_cardinality",
            ):
                return None  # its consumer reads it
            raise NotSupportedError(
                "hll_hash outside hll_union_agg, hll_raw_agg, hll_union or hll_cardinality "
                "(Spark builds an HLL sketch only as an aggregate)"
            )
        if name in ("ndv", "approx_count_distinct"):
            return _build(f"hll_sketch_estimate(hll_sketch_agg(CAST(__dorisql_arg0 AS STRING), {_HLL_LG_K}))", inner)
        if name == "hll_cardinality":
            if inner_name == "hll_hash":
                return _build("IF(__dorisql_arg0 IS NULL, 0, 1)", _args(inner)[0])
            return _build("coalesce(hll_sketch_estimate(__dorisql_arg0), 0)", inner)
        if name in ("hll_union_agg", "hll_raw_agg", "hll_union"):
            if inner_name == "hll_hash":
                sketch = _build(f"hll_sketch_agg(CAST(__dorisql_arg0 AS STRING), {_HLL_LG_K})", _args(inner)[0])
            else:
                sketch = _build("hll_union_agg(__dorisql_arg0, true)", inner)
            return _build("hll_sketch_estimate(__dorisql_arg0)", sketch) if name == "hll_union_agg" else sketch
        if name == "to_quantile_state":
            if isinstance(node.parent, exp.Func) and _name(node.parent) in ("quantile_union", "quantile_percent"):
                return None
            raise NotSupportedError(
                "to_quantile_state outside quantile_union or quantile_percent "
                "(Spark builds a KLL sketch only as an aggregate)"
            )
        if name == "quantile_union":
            if inner_name == "to_quantile_state":
                return _build("kll_sketch_agg_double(CAST(__dorisql_arg0 AS DOUBLE))", _args(inner)[0])
            return _build("kll_merge_agg_double(__dorisql_arg0)", inner)
        if name == "quantile_percent":
            if inner_name == "to_quantile_state":  # one value: every quantile is that value
                return _build("CAST(__dorisql_arg0 AS DOUBLE)", _args(inner)[0])
            return _build("kll_sketch_get_quantile_double(__dorisql_arg0, __dorisql_arg1)", inner, args[1])
        return None


# --------------------------------------------------------------------------- the pass


def _is_aggregate(node: exp.Expr) -> bool:
    if isinstance(node, exp.AggFunc):
        return True
    return isinstance(node, exp.Anonymous) and _name(node) in _ANONYMOUS_AGGREGATES


def translate_sketch_functions(tree: exp.Expr) -> None:
    """Rewrite, in place, every call of this module's functions into Spark SQL."""
    _mark_preaggregation(tree)
    translator = _Translator()
    for node in checked(reversed(list(tree.find_all(exp.Func, bfs=False)))):
        name = _name(node)
        if name not in SKETCH_FUNCTIONS:
            continue
        if isinstance(node.parent, exp.Table) and node.arg_key == "this":
            continue
        args = _args(node)
        _check_arity(name, args)
        if name in _BITMAP_AGGREGATES:
            continue  # the aggregate pass below
        if name == "to_bitmap" and isinstance(node.parent, exp.Func) and _name(node.parent) in _BITMAP_AGGREGATES:
            continue  # read by the aggregate pass as positions, no bitmap built per row
        built = translator.translate(node, name, args)
        if built is not None:
            form = translator.forms.get(id(built))
            replace_node(node, built)
            if form is not None:
                translator.forms[id(built)] = form
    for select in checked(reversed(list(tree.find_all(exp.Select, bfs=False)))):
        calls = _bitmap_aggregate_calls(select)
        if calls:
            _rewrite_bitmap_aggregates(select, calls, translator)


# --------------------------------------------------------------------------- preaggregation

#: The key of an ``exp.Table``'s meta marking a SELECT that may read its rows unmerged:
#: ``(unions, others)``, the columns read only as a sketch union's argument (with the
#: aggregation that union is) and every other name the SELECT reads (dorisql.query.planner
#: checks them against the table: an AGGREGATE table whose `others` are all keys).
PREAGGREGATION = "dorisql_preaggregation"

#: The union aggregates of a stored sketch column, by the aggregation of the column they equal.
_UNIONS = {
    "bitmap_union": "BITMAP_UNION",
    "bitmap_union_count": "BITMAP_UNION",
    "orthogonal_bitmap_union_count": "BITMAP_UNION",
    "hll_union_agg": "HLL_UNION",
    "hll_raw_agg": "HLL_UNION",
    "hll_union": "HLL_UNION",
}


def _mark_preaggregation(tree: exp.Expr) -> None:
    """Mark each one-table SELECT whose aggregates are all sketch unions of plain columns
    (``SELECT site, bitmap_union_count(user_ids) FROM agg WHERE day > ... GROUP BY site``): a
    union of unions is the union, so such a query reads the AGGREGATE table's stored rows without
    first merging them by key, as Doris's PREAGGREGATION: ON."""
    for select in tree.find_all(exp.Select):
        source = select.args.get("from_")
        table = source.this if source is not None else None
        if not isinstance(table, exp.Table) or not isinstance(table.this, exp.Identifier):
            continue
        if any(select.args.get(k) for k in ("joins", "laterals", "windows", "qualify", "distinct")):
            continue
        unions: dict[str, str] = {}
        others: set[str] = set()
        aliases = {e.alias.lower() for e in select.expressions if isinstance(e, exp.Alias)}
        usable = True
        for node in select.walk():
            if node is not select and isinstance(node, exp.Query | exp.Subquery | exp.Star | exp.Window):
                usable = False
                break
            name = _name(node)
            if isinstance(node, exp.Column):
                column = node.name.lower()
                parent = node.parent
                if _name(parent) in _UNIONS and parent is not None and _args(parent)[0] is node:
                    unions[column] = _UNIONS[_name(parent) or ""]
                elif not (column in aliases and node.find_ancestor(exp.Order)):  # ORDER BY an item
                    others.add(column)
            elif (_is_aggregate(node) or name in _BITMAP_AGGREGATES) and name not in _UNIONS:
                usable = False
                break
        if usable and unions and not set(unions) & others:
            table.meta[PREAGGREGATION] = (unions, frozenset(others))


# --------------------------------------------------------------------------- bitmap aggregates


def _own_nodes(select: exp.Select):
    """The nodes of `select`'s own SELECT list, HAVING and ORDER BY (not of nested queries)."""
    roots = [*select.expressions]
    for key in ("having", "order"):
        if select.args.get(key) is not None:
            roots.append(select.args[key])
    for root in roots:
        stack = [root]
        while stack:
            node = stack.pop()
            yield node
            for child in node.iter_expressions():
                if not isinstance(child, exp.Query | exp.Subquery):
                    stack.append(child)


def _bitmap_aggregate_calls(select: exp.Select) -> list[exp.Expr]:
    return [n for n in _own_nodes(select) if isinstance(n, exp.Anonymous) and _name(n) in _BITMAP_AGGREGATES]


_ENTRY = (
    "named_struct('i', CAST({i} AS INT), 'j', CAST({j} AS INT), 'b', CAST({b} AS BIGINT), "
    "'bits', CAST({bits} AS BINARY), 'p', CAST({p} AS BIGINT))"
)


def _col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table, quoted=False)


def _rewrite_bitmap_aggregates(select: exp.Select, calls: list[exp.Expr], translator: _Translator) -> None:
    """``SELECT keys, bitmap_union_count(b), count(*) FROM src WHERE w GROUP BY keys`` becomes

    ``SELECT g0, <bucket counts summed>, max(a0) FILTER (i = -1) FROM (SELECT keys AS g0, e.i,
    e.j, e.b, <the bucket's bits OR-ed>, count(*) FILTER (e.i = -1) AS a0 FROM src LATERAL VIEW
    explode(<one entry per bucket of each call's bitmap, and one entry i = -1 per row>) AS e
    WHERE w GROUP BY keys, e.i, e.j, e.b) GROUP BY g0``: the inner level groups each bitmap's
    buckets (``bitmap_or_agg`` of stored bits, ``bitmap_construct_agg`` of to_bitmap's
    positions), the other aggregates see each row once (its i = -1 entry)."""
    for key in ("windows", "qualify"):
        if select.args.get(key):
            raise NotSupportedError(f"{_name(calls[0])} with {key.upper()}")
    if any(isinstance(n, exp.Window) for n in _own_nodes(select)):
        raise NotSupportedError(f"{_name(calls[0])} beside a window function")
    group = select.args.get("group")
    if group is not None and any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets")):
        raise NotSupportedError(f"{_name(calls[0])} with ROLLUP, CUBE or GROUPING SETS")
    keys: list[exp.Expr] = []
    for g in group.expressions if group is not None else []:
        if isinstance(g, exp.Literal) and not g.is_string:  # GROUP BY 1: the first item
            item = select.expressions[int(g.this) - 1]
            g = item.this if isinstance(item, exp.Alias) else item
        keys.append(g)
    key_sql = {k.sql(dialect="spark"): f"__dorisql_g{n}" for n, k in enumerate(keys)}

    # inner level: the entries of every call
    entries = [_build(_ENTRY.format(i=-1, j=0, b=0, bits="NULL", p="NULL"))]
    for i, call in enumerate(calls):
        name = _name(call)
        args = list(call.expressions)
        bitmap = args[0]
        j, dropped = "0", "false"
        j_node: exp.Expr | None = None
        if name in _INTERSECTS:
            # the 1-based place of the filter value among the call's values (0: not among them)
            j, dropped = "__dorisql_arg1", "__dorisql_arg1 = 0"
            j_node = _build("array_position(__dorisql_arg0, __dorisql_arg1)", exp.Array(expressions=args[2:]), args[1])
        if name in ("bitmap_intersect", "group_bitmap_xor"):
            raise NotSupportedError(f"{name} (Spark has no AND or XOR of a group's bitmaps by row)")
        if isinstance(bitmap, exp.Anonymous) and _name(bitmap) == "to_bitmap":
            template = (
                "element_at(transform(array(TRY_CAST(__dorisql_arg0 AS BIGINT)), __dorisql_tv -> "
                f"IF(__dorisql_tv IS NULL OR __dorisql_tv < 0 OR {dropped}, array(), array("
                + _ENTRY.format(
                    i=i,
                    j=j,
                    b="bitmap_bucket_number(__dorisql_tv)",
                    bits="NULL",
                    p="bitmap_bit_position(__dorisql_tv)",
                )
                + "))), 1)"
            )
            entry = _build(template, bitmap.expressions[0], *([j_node] if j_node is not None else []))
        else:
            template = (
                f"IF({dropped}, array(), transform(coalesce(__dorisql_arg0, {_EMPTY_BITMAP}), __dorisql_be -> "
                + _ENTRY.format(i=i, j=j, b="__dorisql_be.bucket", bits="__dorisql_be.bits", p="NULL")
                + "))"
            )
            entry = _build(template, translator.stored(bitmap), *([j_node] if j_node is not None else []))
        entries.append(entry)

    inner = exp.Select()
    for arg in ("from_", "joins", "where", "laterals", "hint"):
        if select.args.get(arg) is not None:
            inner.set(arg, select.args[arg])
            select.set(arg, None)
    if inner.args.get("from_") is None:
        inner.set(
            "from_",
            exp.From(
                this=exp.Subquery(
                    this=_parsed("SELECT 1").copy(), alias=exp.TableAlias(this=exp.to_identifier("__dorisql_one"))
                )
            ),
        )
    explode = exp.Lateral(
        # (flatten, not concat: concat's results are size-checked by dorisql.translate.functions)
        this=exp.Explode(
            this=exp.Anonymous(
                this="flatten",
                expressions=[exp.Array(expressions=[exp.Array(expressions=[entries[0]]), *entries[1:]])],
            )
        ),
        view=True,
        alias=exp.TableAlias(this=exp.to_identifier("__dorisql_lv"), columns=[exp.to_identifier("__dorisql_e")]),
    )
    inner.set("laterals", [*(inner.args.get("laterals") or []), explode])
    items: list[exp.Expr] = [exp.alias_(k.copy(), f"__dorisql_g{n}") for n, k in enumerate(keys)]
    for field in ("i", "j", "b"):
        items.append(
            exp.alias_(exp.Dot(this=_col("__dorisql_e"), expression=exp.to_identifier(field)), f"__dorisql_{field}")
        )
    items.append(
        exp.alias_(
            _parsed(
                "IF(count(__dorisql_e.bits) > 0, bitmap_or_agg(__dorisql_e.bits), bitmap_construct_agg(__dorisql_e.p))"
            ).copy(),
            "__dorisql_bits",
        )
    )

    def is_minus_one(prefix: str) -> exp.Expr:
        return exp.EQ(
            this=_col(f"{prefix}i") if prefix else exp.Dot(this=_col("__dorisql_e"), expression=exp.to_identifier("i")),
            expression=exp.Literal.number(-1),
        )

    # outer level: other aggregates read from the inner one, keys by name, bitmap calls combined
    others: list[exp.Expr] = []

    def outer_expr(node: exp.Expr) -> exp.Expr:
        def visit(n: exp.Expr) -> exp.Expr:
            if isinstance(n, exp.Query | exp.Subquery):
                return n
            text = n.sql(dialect="spark") if not isinstance(n, exp.Literal) else None
            if text is not None and text in key_sql:
                return _col(key_sql[text])
            if id(n) in call_index:
                return _outer_call(call_index[id(n)], calls[call_index[id(n)]])
            if _is_aggregate(n) and not isinstance(n.parent, exp.Filter) or isinstance(n, exp.Filter):
                index = len(others)
                others.append(n.copy())
                read = exp.Filter(
                    this=exp.Max(this=_col(f"__dorisql_a{index}")),
                    expression=exp.Where(this=is_minus_one("__dorisql_")),
                )
                if isinstance(n, exp.Count):
                    return exp.Coalesce(this=read, expressions=[exp.Literal.number(0)])
                return read
            for key, value in list(n.args.items()):
                if isinstance(value, exp.Expr):
                    n.set(key, visit(value))
                elif isinstance(value, list):
                    n.set(key, [visit(v) if isinstance(v, exp.Expr) else v for v in value])
            return n

        return visit(node)

    call_index = {id(c): i for i, c in enumerate(calls)}
    new_items = [outer_expr(item) for item in select.expressions]
    having = select.args.get("having")
    order = select.args.get("order")
    select.set("expressions", new_items)
    if having is not None:
        select.set("having", outer_expr(having))
    if order is not None:
        select.set("order", outer_expr(order))
    for index, agg in enumerate(others):
        if agg.find(exp.Distinct):
            filtered = _without_distinct(agg)
            filtered.set(
                "expressions", [exp.Filter(this=filtered.expressions[0], expression=exp.Where(this=is_minus_one("")))]
            )
        else:
            filtered = exp.Filter(this=agg, expression=exp.Where(this=is_minus_one("")))
        items.append(exp.alias_(filtered, f"__dorisql_a{index}"))
    inner.set("expressions", items)
    inner_group = [k.copy() for k in keys] + [
        exp.Dot(this=_col("__dorisql_e"), expression=exp.to_identifier(f)) for f in ("i", "j", "b")
    ]
    inner.set("group", exp.Group(expressions=inner_group))
    select.set(
        "from_", exp.From(this=exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("__dorisql_l1"))))
    )
    select.set("group", exp.Group(expressions=[_col(f"__dorisql_g{n}") for n in range(len(keys))]) if keys else None)


def _without_distinct(agg: exp.Expr) -> exp.Expr:
    """``count(DISTINCT x)`` as ``size(collect_set(x))``: beside the inner level's bitmap
    aggregates, Spark's plan of a DISTINCT aggregate with FILTER (an Expand of every row per
    aggregate) took minutes where this takes a second."""
    distinct = agg.this if isinstance(agg, exp.Count) else None
    if isinstance(distinct, exp.Distinct) and len(distinct.expressions) == 1:
        return exp.Anonymous(
            this="size", expressions=[exp.Anonymous(this="collect_set", expressions=[distinct.expressions[0]])]
        )
    raise NotSupportedError(f"{agg.sql(dialect='spark')} beside a bitmap aggregate")


def _outer_call(i: int, call: exp.Expr) -> exp.Expr:
    """A bitmap aggregate's answer at the outer level, from the inner level's buckets of call `i`
    (columns __dorisql_i, __dorisql_j, __dorisql_b, __dorisql_bits)."""
    name = _name(call)
    mine = f"FILTER (WHERE __dorisql_i = {i})"
    if name in ("bitmap_union_count", "orthogonal_bitmap_union_count"):
        return _parsed(f"coalesce(sum(bitmap_count(__dorisql_bits)) {mine}, 0)").copy()
    if name == "bitmap_union":
        return _parsed(
            f"CAST(array_sort(collect_list(named_struct('bucket', __dorisql_b, 'bits', __dorisql_bits)) {mine}) "
            f"AS {_BITMAP_TYPE})"
        ).copy()
    # intersections: per bucket, the values present under every one of the n filter values
    n = len(call.expressions) - 2
    values = _ENTRY_VALUES.format(bits="__dorisql_y.bits", bucket="__dorisql_y.b")
    first = _ENTRY_VALUES.format(bits="__dorisql_ys[0].bits", bucket="__dorisql_ys[0].b")
    per_bucket = (
        f"flatten(transform(array_distinct(transform(__dorisql_all, __dorisql_z -> __dorisql_z.b)), __dorisql_bk -> "
        "element_at(transform(array(filter(__dorisql_all, __dorisql_z -> __dorisql_z.b = __dorisql_bk)), "
        f"__dorisql_ys -> IF(size(__dorisql_ys) < {n}, {_EMPTY_VALUES}, "
        f"aggregate(slice(__dorisql_ys, 2, size(__dorisql_ys) - 1), {first}, "
        f"(__dorisql_acc, __dorisql_y) -> array_intersect(__dorisql_acc, {values})))), 1)))"
    )
    collected = f"collect_list(named_struct('b', __dorisql_b, 'bits', __dorisql_bits)) {mine}"
    intersection = f"element_at(transform(array({collected}), __dorisql_all -> array_sort({per_bucket})), 1)"
    if name == "orthogonal_bitmap_intersect":
        return _build(_ENCODE, _parsed(intersection).copy())
    return _parsed(f"size({intersection})").copy()
