"""Rows per data file (storage.sizing): the target size over a row's stored size."""

from __future__ import annotations

import pyarrow as pa
import pytest

from dorisql.errors import AnalysisError
from dorisql.settings import FRONTEND_DEFAULTS, check_frontend_setting
from dorisql.storage.sizing import (
    DEFAULT_TARGET_FILE_SIZE,
    MIN_SAMPLE_ROWS,
    explained_bytes,
    row_bytes,
    rows_per_file,
    schema_row_bytes,
)

SCHEMA = pa.schema(
    [("k", pa.int32()), ("v", pa.int64()), ("d", pa.decimal128(20, 2)), ("s", pa.string()), ("b", pa.bool_())]
)


def test_rows_per_file_is_the_target_over_the_row_size_and_never_zero():
    assert rows_per_file(1000, 10.0) == 100
    assert rows_per_file(1000, 3.0) == 333
    assert rows_per_file(5, 10.0) == 1  # a row larger than the target still gets a file
    assert rows_per_file(1000, 0.0) == 1000  # a row is at least one byte
    with pytest.raises(ValueError):
        rows_per_file(0, 10.0)


def test_a_rows_width_comes_from_its_column_types():
    # INT 4 + BIGINT 8 + DECIMAL 16 + a string (16, it varies) + BOOLEAN 1
    assert schema_row_bytes(SCHEMA) == 45
    nested = pa.schema([("s", pa.struct([("a", pa.int16()), ("t", pa.string())])), ("l", pa.list_(pa.int32()))])
    assert schema_row_bytes(nested) == 2 + 16 + 16
    assert schema_row_bytes(pa.schema([])) == 1


def test_the_tables_own_average_wins_once_it_has_enough_rows():
    assert row_bytes(total_bytes=50_000, total_rows=MIN_SAMPLE_ROWS, schema=SCHEMA) == 50.0
    # too few rows: their files are mostly footers, so the schema decides
    assert row_bytes(total_bytes=50_000, total_rows=MIN_SAMPLE_ROWS - 1, schema=SCHEMA) == 45.0
    assert row_bytes(total_bytes=0, total_rows=0, schema=SCHEMA) == 45.0


def test_the_target_is_a_frontend_setting_of_256_mib_by_default():
    assert int(FRONTEND_DEFAULTS["target_file_size_bytes"]) == DEFAULT_TARGET_FILE_SIZE == 256 * 2**20
    assert check_frontend_setting("target_file_size_bytes", "1048576") == "1048576"
    with pytest.raises(AnalysisError, match="must be positive"):
        check_frontend_setting("target_file_size_bytes", "0")


def test_a_plans_estimated_size_is_the_optimized_plans_root_from_explain_cost():
    text = """== Analyzed Logical Plan ==
Project [k#1], Statistics(sizeInBytes=9.0 EiB)
== Optimized Logical Plan ==
Filter (k#1 > 3), Statistics(sizeInBytes=1363.3 KiB)
+- Relation [k#1] parquet, Statistics(sizeInBytes=2.5 MiB)
"""
    assert explained_bytes(text) == 1363.3 * 1024
    assert (
        explained_bytes("== Optimized Logical Plan ==\nLocalRelation [a#4], Statistics(sizeInBytes=32.0 B, rowCount=1)")
        == 32
    )
    assert explained_bytes("Range (0, 10), Statistics(sizeInBytes=7.5 GiB, rowCount=1.00E+9)") == 7.5 * 2**30
    assert explained_bytes("== Optimized Logical Plan ==\nno statistics") is None
