"""Key-model merge on real Spark: DUPLICATE keeps rows, UNIQUE keeps the latest, AGGREGATE merges."""

from __future__ import annotations

import pytest

from dorisql.errors import NotSupportedError
from dorisql.tablets.merge import merge_rows

from .conftest import col, table


def _rows(df):
    return sorted((tuple(r) for r in df.collect()), key=lambda r: [(v is not None, v) for v in r])


def _read(lake, meta):
    return merge_rows(lake.scan(meta, None, None), meta)


def test_duplicate_keeps_every_row_and_hides_columns(lake):
    t = lake.add(table("dup", [col("k", "INT"), col("v", "VARCHAR", 10)], buckets=3))
    lake.load(t, [(1, "a"), (1, "a"), (2, "b")], lambda r: "dup")
    lake.load(t, [(1, "c")], lambda r: "dup")
    df = _read(lake, t)
    assert df.columns == ["k", "v"]
    assert _rows(df) == [(1, "a"), (1, "a"), (1, "c"), (2, "b")]


def test_unique_latest_row_per_key_across_and_within_loads(lake):
    t = lake.add(table("u", [col("k", "INT"), col("v", "VARCHAR", 10), col("n", "INT")], model="UNIQUE", buckets=4))
    lake.load(t, [(1, "a", 1), (2, "b", 1), (1, "a2", 2)], lambda r: "u")  # within a load: last wins
    lake.load(t, [(2, None, 3), (3, "c", 3)], lambda r: "u")  # later load replaces the whole row
    df = _read(lake, t)
    assert df.columns == ["k", "v", "n"]
    assert _rows(df) == [(1, "a2", 2), (2, None, 3), (3, "c", 3)]


def test_aggregate_merges_by_agg_type(lake):
    cols = [
        col("k", "INT"),
        col("s", "INT", agg="SUM"),
        col("mx", "INT", agg="MAX"),
        col("mn", "INT", agg="MIN"),
        col("r", "VARCHAR", 10, agg="REPLACE"),
        col("rn", "VARCHAR", 10, agg="REPLACE_IF_NOT_NULL"),
    ]
    t = lake.add(table("agg", cols, model="AGGREGATE", buckets=2))
    lake.load(t, [(1, 10, 5, 5, "first", "x"), (2, 1, 1, 1, "b1", None)], lambda r: "agg")
    lake.load(t, [(1, 5, 9, 2, None, None), (1, 1, 7, 3, "third", "y")], lambda r: "agg")
    lake.load(t, [(1, None, None, None, "last", None)], lambda r: "agg")
    df = _read(lake, t)
    assert df.columns == ["k", "s", "mx", "mn", "r", "rn"]
    assert dict(df.dtypes)["s"] == "int"  # SUM keeps the declared type
    assert _rows(df) == [(1, 16, 9, 2, "last", "y"), (2, 1, 1, 1, "b1", None)]


def test_aggregate_with_null_keys_and_replace_order(lake):
    cols = [col("k1", "INT"), col("k2", "VARCHAR", 5), col("r", "INT", agg="REPLACE")]
    t = lake.add(table("agg2", cols, keys=("k1", "k2"), model="AGGREGATE", dist_cols=("k1",), buckets=3))
    lake.load(t, [(1, None, 1), (1, "a", 1)], lambda r: "agg2")
    lake.load(t, [(1, None, 2), (1, None, 3)], lambda r: "agg2")
    assert _rows(_read(lake, t)) == [(1, None, 3), (1, "a", 1)]


def test_unsupported_agg_type(lake):
    # AGG_STATE's GENERIC aggregation has no storage here (HLL/BITMAP/QUANTILE_STATE do: test_sketch_columns)
    t = table("h", [col("k", "INT"), col("h", "INT", agg="GENERIC")], model="AGGREGATE")
    df = lake.spark.createDataFrame([(1, 2, 1, 1)], "k int, h int, __load_seq bigint, __row_seq bigint")
    with pytest.raises(NotSupportedError, match="reading GENERIC column 'h'"):
        merge_rows(df, t)
