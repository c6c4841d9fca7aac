"""Key-model merge: the rows of a table as Doris returns them.

The data files of a table may hold several rows per key (one per load, until compaction merges
them). Reading applies the table's key model, all inside Spark (no collect on the driver):

- DUPLICATE KEY (and tables without a key clause): every row.
- UNIQUE KEY: per key, the latest row: max (``__commit_seq``, ``__load_seq``, ``__row_seq``), so
  the load that committed last wins (Doris's version order), then the last row of that load;
  with a sequence column (tables.sequence_column) the row of the largest sequence value first.
- AGGREGATE KEY: rows with equal keys merged into one; each value column by its aggregation:
  SUM, MAX, MIN, REPLACE (the latest row's value), REPLACE_IF_NOT_NULL (the latest non-NULL
  value; NULL when all are NULL), HLL_UNION / BITMAP_UNION / QUANTILE_UNION (the union of the
  stored sketches: translate.sketch_storage). GENERIC: not supported.

Hidden columns (tablets.tables.HIDDEN_COLUMNS) never come out.

After a compaction most rows sit in one merged rowset per tablet (`MergedRows`): those whose key
no later rowset repeats pass without the merge's shuffle (`merge_with_merged`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.syntax.generator import quote_name
from dorisql.tablets.merge_on_write import is_merge_on_write
from dorisql.tablets.tables import (
    COMMIT_SEQ_COLUMN,
    HIDDEN_COLUMNS,
    LOAD_SEQ_COLUMN,
    ROW_SEQ_COLUMN,
    df_column,
    sequence_column,
)
from dorisql.translate import sketch_storage as sketches

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = [
    "LOAD_SEQ_COLUMN",
    "ROW_SEQ_COLUMN",
    "HIDDEN_COLUMNS",
    "key_model",
    "merge_rows",
    "needs_merge",
    "declared_columns",
    "MergedRows",
    "merge_with_merged",
]


_SUPPORTED_AGGS = {"SUM", "MAX", "MIN", "REPLACE", "REPLACE_IF_NOT_NULL"}


def key_model(meta: TableMeta) -> str:
    """ "DUPLICATE" | "UNIQUE" | "AGGREGATE" (no key clause: DUPLICATE, as in Doris)."""
    keys = meta.definition.keys
    return keys.type.upper() if keys is not None else "DUPLICATE"


def needs_merge(meta: TableMeta) -> bool:
    """Whether a read merges rows per key: not for a merge-on-write UNIQUE table, whose current
    files hold one row per key (dorisql.tablets.merge_on_write)."""
    return key_model(meta) in ("UNIQUE", "AGGREGATE") and not is_merge_on_write(meta)


def _key_columns(meta: TableMeta) -> list[str]:
    """The key columns a UNIQUE/AGGREGATE merge groups by, as declared."""
    keys = meta.definition.keys
    return list(keys.columns) if keys is not None else []


def merge_rows(df: DataFrame, meta: TableMeta) -> DataFrame:
    """`df` (rows of `meta` as stored, hidden columns included or not) merged by the key model.

    Returns the table's declared columns, in declaration order, named as declared.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    model = key_model(meta)
    if not needs_merge(meta):
        return declared_columns(df, meta)
    columns = [c.name for c in meta.definition.columns]
    out_cols = [F.col(quote_name(df_column(df, c))).alias(c) for c in columns]

    for hidden in (LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN):
        if hidden not in df.columns:
            raise AnalysisError(f"table {meta.db}.{meta.name} ({model} KEY) has no {hidden} column in its data files")
    key_names = _key_columns(meta)
    key_cols = [F.col(quote_name(df_column(df, k))) for k in key_names]
    # Commit order first (the later commit wins, as Doris's versions), then load and row order.
    commit_seq = F.col(COMMIT_SEQ_COLUMN) if COMMIT_SEQ_COLUMN in df.columns else F.lit(0)
    order = F.struct(commit_seq, F.col(LOAD_SEQ_COLUMN), F.col(ROW_SEQ_COLUMN))

    if model == "UNIQUE":
        # A sequence column orders first: its larger value wins whatever the load order (a NULL
        # is the smallest: desc puts it last); equal values fall back to the load order.
        sequence = sequence_column(meta.definition)
        by_sequence = [F.col(quote_name(df_column(df, sequence))).desc_nulls_last()] if sequence else []
        w = Window.partitionBy(*key_cols).orderBy(
            *by_sequence, commit_seq.desc(), F.col(LOAD_SEQ_COLUMN).desc(), F.col(ROW_SEQ_COLUMN).desc()
        )
        latest = df.withColumn("__rn", F.row_number().over(w)).where(F.col("__rn") == 1)
        return latest.select(*out_cols)

    if model != "AGGREGATE":
        raise NotSupportedError(f"{model} KEY tables")

    key_set = {k.lower() for k in key_names}
    aggs = []
    bitmaps: list[str] = []
    for col in meta.definition.columns:
        if col.name.lower() in key_set:
            continue
        agg = (col.agg_type or "").upper()
        c = F.col(quote_name(df_column(df, col.name)))
        dtype = df.schema[df_column(df, col.name)].dataType
        if agg == "SUM":
            expr = F.sum(c).cast(dtype)  # Doris keeps the declared type (Spark widens INT sums)
        elif agg == "MAX":
            expr = F.max(c)
        elif agg == "MIN":
            expr = F.min(c)
        elif agg == "REPLACE":
            expr = F.max_by(c, order)
        elif agg == "REPLACE_IF_NOT_NULL":
            expr = F.max_by(c, F.when(c.isNotNull(), order))
        elif agg == "HLL_UNION":
            expr = F.expr(sketches.hll_merge_agg(quote_name(df_column(df, col.name))))
        elif agg == "QUANTILE_UNION":
            expr = F.expr(sketches.quantile_merge_agg(quote_name(df_column(df, col.name))))
        elif agg == "BITMAP_UNION":
            bitmaps.append(col.name)  # two grouping levels of its own: joined on the keys below
            continue
        elif agg in ("GENERIC", "AGG_STATE"):
            raise NotSupportedError(f"reading {agg} column '{col.name}' of AGGREGATE KEY table {meta.name}")
        elif not agg:
            raise AnalysisError(f"value column '{col.name}' of AGGREGATE KEY table {meta.name} has no aggregation type")
        else:
            raise NotSupportedError(f"aggregation type {agg} (column '{col.name}')")
        aggs.append(expr.alias(col.name))
    if not aggs:
        merged = df.select(*[F.col(quote_name(df_column(df, k))).alias(k) for k in key_names]).distinct()
    else:
        merged = df.groupBy(*[F.col(quote_name(df_column(df, k))).alias(k) for k in key_names]).agg(*aggs)
    for name in bitmaps:
        merged = _with_bitmap_union(merged, df, key_names, name)
    return merged.select(*[F.col(quote_name(c)) for c in columns])


def _with_bitmap_union(merged: DataFrame, df: DataFrame, key_names: list[str], name: str) -> DataFrame:
    """`merged` (one row per key) with the BITMAP_UNION column `name` of `df`'s rows per key:
    their buckets OR-ed (Spark's bitmap_or_agg has no scalar form, so the union is its own two
    grouping levels, translate.sketch_storage.bitmap_union_query), joined on the keys (NULL keys
    equal, as the grouping's)."""
    keys = [f"{quote_name(df_column(df, k))} AS {quote_name(f'__key{i}')}" for i, k in enumerate(key_names)]
    relation = f"(SELECT {', '.join(keys + [quote_name(df_column(df, name)) + ' AS `__bitmap`'])} FROM {{rows}})"
    union_keys = [quote_name(f"__key{i}") for i in range(len(key_names))]
    unions = df.sparkSession.sql(sketches.bitmap_union_query(relation, union_keys, "`__bitmap`", "`__union`"), rows=df)
    if not key_names:
        return merged.crossJoin(unions.withColumnRenamed("__union", name))
    same = None
    for i, k in enumerate(key_names):
        test = merged[quote_name(k)].eqNullSafe(unions[f"__key{i}"])
        same = test if same is None else same & test
    joined = merged.join(unions, same, "left")
    return joined.select(*[merged[quote_name(c)] for c in merged.columns], unions["__union"].alias(name))


def declared_columns(df: DataFrame, meta: TableMeta) -> DataFrame:
    """Rows that need no merge (DUPLICATE, or one compaction's merged output): the table's
    declared columns, in declaration order, named as declared.

    One SQL statement over `df` (a Column object per column cost a Py4J round trip per call)."""
    return df.sparkSession.sql(f"SELECT {_declared_sql(df, meta)} FROM {{rows}}", rows=df)


def _declared_sql(df: DataFrame, meta: TableMeta, alias: str = "") -> str:
    """The select list of `declared_columns` (columns of `alias`, when given)."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(
        f"{prefix}{quote_name(df_column(df, c.name))} AS {quote_name(c.name)}" for c in meta.definition.columns
    )


@dataclass(frozen=True)
class MergedRows:
    """Stored rows with one row per key (a compaction's output; dorisql.tablets.read.scan_table),
    and whether they are all of the scan (`alone`: no other rowset to merge them with)."""

    frame: DataFrame
    alone: bool
    #: In every tablet these rows are older than all its other rows (tablets.rowsets.
    #: merged_are_oldest): under UNIQUE KEY they then supersede none of them.
    oldest: bool = False


def merge_with_merged(df: DataFrame, merged: MergedRows | None, meta: TableMeta) -> DataFrame:
    """`merge_rows` of `df` and `merged` together, without shuffling the merged rows whose key
    `df` lacks: those pass as they are (a broadcast anti join on the keys: `df` is small, as after
    a compaction); only the merged rows whose key recurs in `df` are merged with it."""
    if merged is None:
        return merge_rows(df, meta)
    if merged.alone:
        return declared_columns(merged.frame, meta)
    keys = _key_columns(meta)
    # (with a sequence column an older row can win: the general merge below decides)
    if merged.oldest and key_model(meta) == "UNIQUE" and sequence_column(meta.definition) is None:
        return _latest_over_oldest(merged.frame, df, keys, meta)
    # no DISTINCT: semi and anti joins ignore repeated keys, and it would cost a shuffle
    later_keys = ", ".join(f"{quote_name(df_column(df, k))} AS `__key{i}`" for i, k in enumerate(keys))
    base = merged.frame
    same_key = _same_key_sql(base, "b", keys, meta)

    def join(kind: str, columns: str) -> DataFrame:
        # `n` is small by construction (dml.MERGE_JOIN_MAX_BYTES): broadcast, no shuffle of `base`
        return df.sparkSession.sql(
            f"WITH n AS (SELECT {later_keys} FROM {{later}}) "
            f"SELECT /*+ BROADCAST(n) */ {columns} FROM {{base}} b LEFT {kind} JOIN n ON {same_key}",
            later=df,
            base=base,
        )

    untouched, touched = join("ANTI", _declared_sql(base, meta, "b")), join("SEMI", "b.*")
    return untouched.unionByName(merge_rows(touched.unionByName(df), meta))


def _latest_over_oldest(oldest: DataFrame, later: DataFrame, keys: list[str], meta: TableMeta) -> DataFrame:
    """UNIQUE KEY's latest row per key with no shuffle at all, when `oldest` holds one row per key
    and every row of `later` is later than all of them (MergedRows.oldest), and `later` is small
    enough to broadcast (dml.UNIQUE_ANTI_JOIN_MAX_ROWS):

    - a row of `oldest` survives unless `later` has its key (any such row is later): an anti
      join on the keys, so the merged rows need no order columns (``__commit_seq`` comes from
      each row's file name) and are read as they are stored;
    - a row of `later` survives unless a row of `later` has its key and a later (commit, load,
      row) order (no row of `oldest` is later).

    The merged rows are read once, probed against a hash table, and never sorted or shuffled.
    (Spark builds two hash tables of `later`: its keys, and its keys with their order.) One SQL
    statement: each Column call would be a Py4J round trip."""
    order_columns = [quote_name(c) for c in (COMMIT_SEQ_COLUMN, LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN)]
    order, own_order = ", ".join(order_columns), ", ".join(f"l.{c}" for c in order_columns)
    newer_keys = ", ".join(f"{quote_name(df_column(later, k))} AS `__key{i}`" for i, k in enumerate(keys))
    sql = f"""
        WITH newer AS (SELECT {newer_keys}, struct({order}) AS `__order` FROM {{later}})
        SELECT /*+ BROADCAST(n) */ {_declared_sql(oldest, meta, "o")}
        FROM {{oldest}} o LEFT ANTI JOIN newer n
          ON {_same_key_sql(oldest, "o", keys, meta)}
        UNION ALL
        SELECT /*+ BROADCAST(n) */ {_declared_sql(later, meta, "l")}
        FROM {{later}} l LEFT ANTI JOIN newer n
          ON {_same_key_sql(later, "l", keys, meta)} AND n.`__order` > struct({own_order})
    """
    return later.sparkSession.sql(sql, later=later, oldest=oldest)


def _same_key_sql(rows: DataFrame, alias: str, keys: list[str], meta: TableMeta) -> str:
    """`alias`'s keys equal to ``n.__key<i>``. NULL keys are keys too (null-safe equality, as
    the merge's grouping treats them), except for NOT NULL columns (a load refuses NULLs there):
    plain equality lets Spark carry a query's filter on the key (a point query) to the broadcast
    side too, which then holds only the matching rows."""
    not_null = {c.name.lower() for c in meta.definition.columns if c.nullable is False}
    return " AND ".join(
        f"{alias}.{quote_name(df_column(rows, k))} {'=' if k.lower() in not_null else '<=>'} n.`__key{i}`"
        for i, k in enumerate(keys)
    )
