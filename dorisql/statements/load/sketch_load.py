"""Loads into BITMAP, HLL and QUANTILE_STATE columns: Doris's load functions and the
pre-aggregation that builds the stored sketches (docs/storage.md, "BITMAP, HLL and
QUANTILE_STATE").

A load's value for such a column is either one of Doris's load functions (``to_bitmap(x)``,
``bitmap_from_string(s)``, ``bitmap_empty()``, ``hll_hash(x)``, ``hll_empty()``,
``to_quantile_state(x, c)``), which becomes the array of values the sketch is built from
(dorisql.translate.sketch_storage.load_inputs: in VALUES through translate.literals.value_sql,
in a SELECT through `select_rewriter`, in Stream Load's columns header), or a stored sketch (a column of
another table, a sketch-valued function). Spark builds HLL and KLL sketches only as aggregates,
so `pre_aggregate` groups the load's rows before they are stored, as Doris's memtable does:

- an AGGREGATE KEY table's rows by key, each other value column by its aggregation (SUM, MAX,
  MIN; REPLACE / REPLACE_IF_NOT_NULL: the load's last (non-NULL) value), as the key-model
  merge would on read;
- any other table's row by row (each keeps its own sketch).

Each sketch column's values become entries of one exploded array (a column tag and the value or
stored part), grouped twice: by (row group, column, bitmap bucket) and then by row group, so a
table with several sketch columns needs one shuffle per level, not one join per column. The
rows keep their order (a later row's REPLACE wins, as loaded).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError
from dorisql.syntax.generator import quote_name
from dorisql.tablets.merge import key_model
from dorisql.translate import sketch_storage as sketches
from dorisql.translate.literals import is_default
from dorisql.types import canonical, is_sketch

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["ROWS_COLUMN", "as_shown", "has_sketches", "pre_aggregate", "select_rewriter", "values_rows"]


def has_sketches(target: list[ast.ColumnDef]) -> bool:
    return any(is_sketch(c.type) for c in target)


def _is_stored_sketch(data_type) -> bool:
    """Whether a query's output column holds stored sketches: a BITMAP's bucket array or an HLL /
    QUANTILE_STATE sketch (BINARY: no Doris type gives a query binary values)."""
    from pyspark.sql import types as T

    if isinstance(data_type, T.BinaryType):
        return True
    if isinstance(data_type, T.ArrayType) and isinstance(data_type.elementType, T.StructType):
        return [f.name for f in data_type.elementType.fields] == ["bucket", "bits"]
    return False


def as_shown(df: DataFrame) -> DataFrame:
    """A query's result with its BITMAP / HLL / QUANTILE_STATE columns NULL (BINARY), as Doris
    returns such a column selected directly to a MySQL client (return_object_data_as_binary
    off): the stored sketches are never fetched."""
    sketch = [_is_stored_sketch(f.dataType) for f in df.schema.fields]
    if not any(sketch):
        return df
    names = df.columns
    positional = df.toDF(*[f"__c{i}" for i in range(len(names))])  # names may repeat
    return positional.selectExpr(
        *[
            f"CAST(NULL AS BINARY) AS {quote_name(n)}" if shown else f"`__c{i}` AS {quote_name(n)}"
            for i, (n, shown) in enumerate(zip(names, sketch))
        ]
    )


def values_rows(rows, target: list[ast.ColumnDef]):
    """INSERT ... VALUES rows with DEFAULT in a BITMAP / HLL column as its load function's
    empty value (every row of such a column then gives input values: see the module notes)."""
    empties = {"BITMAP": "bitmap_empty()", "HLL": "hll_empty()"}
    names = [empties.get(canonical(c.type).name) if is_sketch(c.type) else None for c in target]
    if not any(names):
        return rows
    return [
        tuple(ast.Literal(names[i], "expr") if names[i] and is_default(v) else v for i, v in enumerate(row))
        if len(row) == len(target)
        else row
        for row in rows
    ]


def select_rewriter(target: list[ast.ColumnDef], prepare):
    """A query planner `prepare` step for an INSERT ... SELECT: `prepare`, then each sketch
    column's item of the outer SELECT (of each branch of a UNION) as its load function's input
    values (sketch_storage.load_inputs)."""
    kinds = {i: canonical(c.type).name for i, c in enumerate(target) if is_sketch(c.type)}

    def rewrite(tree):
        if prepare is not None:
            prepare(tree)
        selects = [tree] if isinstance(tree, exp.Select) else list(tree.find_all(exp.Select))
        for select in selects:
            if select.parent_select is not None:
                continue  # a subquery's SELECT: only the outer ones give the loaded values
            items = select.expressions
            for i, kind in kinds.items():
                if i < len(items):
                    item = items[i]
                    inner = item.this if isinstance(item, exp.Alias) else item
                    built = sketches.load_inputs(inner, kind)
                    if built is not None:
                        inner.replace(built)

    return rewrite


#: The number of source rows a pre-aggregated row stands for: a load counts its source rows, as
#: Doris's (NumberLoadedRows, the rows an INSERT reports), not the rows it stores.
ROWS_COLUMN = "__dorisql_rows"

_ENTRY_TYPE = "STRUCT<c: INT, v: BIGINT, s: STRING, d: DOUBLE, b: BIGINT, bits: BINARY, sk: BINARY>"


def _entry(c: int, **parts: str) -> str:
    fields = {"v": "BIGINT", "s": "STRING", "d": "DOUBLE", "b": "BIGINT", "bits": "BINARY", "sk": "BINARY"}
    values = ", ".join(f"'{k}', CAST({parts.get(k, 'NULL')} AS {t})" for k, t in fields.items())
    return f"named_struct('c', {c}, {values})"


def pre_aggregate(spark, meta: TableMeta, source: DataFrame, target: list[ast.ColumnDef]) -> DataFrame:
    """`source` (``__src{i}`` per `target` column) with its sketch columns built: one row per
    group of rows (see the module notes), each sketch column holding its stored value."""
    from pyspark.sql import types as T

    names = source.columns
    fields = {f.name: f.dataType for f in source.schema.fields}
    sketch_cols = [i for i, c in enumerate(target) if is_sketch(c.type)]
    others = [i for i in range(len(target)) if i not in sketch_cols]
    entries, level1, level2 = [], [], []
    for j, i in enumerate(sketch_cols):
        col, kind = quote_name(names[i]), canonical(target[i].type).name
        dtype = fields[names[i]]
        inputs = isinstance(dtype, T.ArrayType) and not isinstance(dtype.elementType, T.StructType)
        if not inputs and not isinstance(dtype, (T.ArrayType, T.BinaryType, T.NullType, T.StringType)):
            raise AnalysisError(
                f"column {target[i].name} of type {kind} takes {kind}'s load functions or {kind} values, "
                f"not {dtype.simpleString()}"
            )
        if isinstance(dtype, (T.NullType, T.StringType)):  # NULL: refused by the NOT NULL check
            entries.append("array()")
            level1.append(f"CAST(NULL AS {sketches.spark_type(kind)}) AS `__k{j}`")
            level2.append(f"CAST(NULL AS {sketches.spark_type(kind)}) AS {col}")
            continue
        filt = f"FILTER (WHERE e.c = {j})"
        if kind == "BITMAP":
            if inputs:
                entries.append(f"transform({col}, x -> {_entry(j, v='x')})")
                level1.append(f"{sketches.bitmap_entries_sql(value='e.v')} {filt} AS `__k{j}`")
            else:
                entries.append(f"transform({col}, x -> {_entry(j, b='x.bucket', bits='x.bits')})")
                level1.append(f"{sketches.bitmap_entries_sql(stored_bits='e.bits')} {filt} AS `__k{j}`")
            bucket = f"CASE WHEN `__c` = {j} THEN `__bkt` END"
            level2.append(f"{sketches.bitmap_collect_sql(bucket, f'`__k{j}`')} AS {col}")
        elif kind == "HLL":
            if inputs:
                entries.append(f"transform({col}, x -> {_entry(j, s='x')})")
                level1.append(f"{sketches.hll_build_agg('e.s')} {filt} AS `__k{j}`")
            else:
                entries.append(f"array({_entry(j, sk=col)})")
                level1.append(f"hll_union_agg(e.sk, true) {filt} AS `__k{j}`")
            level2.append(f"hll_union_agg(`__k{j}`, true) AS {col}")
        else:
            if inputs:
                entries.append(f"transform({col}, x -> {_entry(j, d='x')})")
                level1.append(f"{sketches.quantile_build_agg('e.d')} {filt} AS `__k{j}`")
            else:
                entries.append(f"array({_entry(j, sk=col)})")
                level1.append(f"kll_merge_agg_double(e.sk) {filt} AS `__k{j}`")
            level2.append(f"kll_merge_agg_double(`__k{j}`) AS {col}")
    # NULL arrays and NULL elements add nothing (a NULL value is an empty sketch's input)
    all_entries = f"filter(concat({', '.join(f'coalesce({e}, array())' for e in entries)}), e -> e IS NOT NULL)"
    aggregate = key_model(meta) == "AGGREGATE"
    if aggregate:
        # by key (a constant `__g` keeps the grouping non-empty when the load names no key);
        # each other value column by its aggregation, in two phases like the sketches
        key_set = {k.lower() for k in (meta.definition.keys.columns if meta.definition.keys else ())}
        keys = [quote_name(names[i]) for i in others if target[i].name.lower() in key_set]
        group = [*keys, "`__g`"]
        partials, finals = [], []
        once = "FILTER (WHERE coalesce(x.pos, 0) = 0)"  # each source row once (see `__rows`)
        for i in others:
            if target[i].name.lower() in key_set:
                continue
            col, agg = quote_name(names[i]), (target[i].agg_type or "REPLACE").upper()
            if agg in ("SUM", "MAX", "MIN"):
                partials.append(f"{agg.lower()}({col}) {once} AS `__p{i}`")
                finals.append(f"{agg.lower()}(`__p{i}`) AS {col}")
            else:  # REPLACE and REPLACE_IF_NOT_NULL: the load's last (non-NULL) value
                order = "`__rid`" if agg != "REPLACE_IF_NOT_NULL" else f"CASE WHEN {col} IS NOT NULL THEN `__rid` END"
                partials += [f"max_by({col}, {order}) {once} AS `__p{i}`", f"max({order}) {once} AS `__o{i}`"]
                finals.append(f"max_by(`__p{i}`, `__o{i}`) AS {col}")
        carried, carried2 = [*keys, "`__g`", *partials], [*keys, *finals]
    else:  # a non-AGGREGATE table's group is the row (its __rid)
        group = ["`__rid`"]
        carried = [f"first({quote_name(names[i])}) AS {quote_name(names[i])}" for i in others]
        carried2 = carried
    bitmap_tags = [j for j, i in enumerate(sketch_cols) if canonical(target[i].type).name == "BITMAP"]
    is_bitmap = f"e.c IN ({', '.join(map(str, bitmap_tags))})" if bitmap_tags else "false"
    bucket = f"CASE WHEN {is_bitmap} THEN coalesce(bitmap_bucket_number(e.v), e.b) END"
    rows = (
        f"SELECT *, monotonically_increasing_id() AS `__rid`, 0 AS `__g`, "
        f"CAST({all_entries} AS ARRAY<{_ENTRY_TYPE}>) AS `__entries` FROM {{src}}"
    )
    first = (
        f"SELECT {''.join(c + ', ' for c in carried)}max(`__rid`) AS `__rid`, "
        f"CASE WHEN {is_bitmap} THEN e.c END AS `__c`, {bucket} AS `__bkt`, {', '.join(level1)}, "
        # each source row once: in its first entry's group (no entry: exploded as NULL, pos NULL)
        "count_if(coalesce(x.pos, 0) = 0) AS `__rows` "
        f"FROM ({rows}) LATERAL VIEW OUTER posexplode(`__entries`) x AS pos, e "
        f"GROUP BY {', '.join(group)}, `__c`, `__bkt`"  # Spark groups by the select's aliases
    )
    # level two: per row group
    second = (
        f"SELECT {''.join(c + ', ' for c in carried2)}"
        f"max(`__rid`) AS `__order`, sum(`__rows`) AS `{ROWS_COLUMN}`, {', '.join(level2)} "
        f"FROM ({first}) GROUP BY {', '.join(group)}"
    )
    ordered = f"SELECT {', '.join(quote_name(n) for n in [*names, ROWS_COLUMN])} FROM ({second}) ORDER BY `__order`"
    return spark.sql(ordered, src=source)
