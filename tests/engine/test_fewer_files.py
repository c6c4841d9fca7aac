"""A load writes about one file per tablet per target file size, whatever its source's shape
(docs/storage.md "Fewer files"): real Spark, real Delta, files counted in the Delta log."""

from __future__ import annotations

import math
from collections import Counter

import pyarrow.parquet as pq
import pytest

from dorisql.statements.load import insert as dml
from dorisql.storage.delta import DeltaStore

from .conftest import delta, rows, run, table_path

DDL = """CREATE TABLE {name} (k INT NOT NULL, v BIGINT) DUPLICATE KEY(k)
PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("30"), PARTITION p2 VALUES LESS THAN ("60"))
DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")"""


def files_of(engine, table: str):
    return DeltaStore(table_path(engine, table)).snapshot().files


def files_per_tablet(engine, table: str) -> Counter:
    return Counter((f.partition, f.bucket) for f in files_of(engine, table))


@pytest.fixture(scope="module")
def many_files(engine):
    """Table `src`: 60 rows in 4 tablets, written with a 36-byte target (INT + BIGINT = 12 bytes a
    row, so 3 rows a file): 21 small files, the shape that thousands of small loads leave."""
    run(engine, DDL.format(name="src"))
    run(engine, 'ADMIN SET FRONTEND CONFIG ("target_file_size_bytes" = "36")')
    try:
        run(engine, 'INSERT INTO src SELECT number, number * 10 FROM numbers("number" = "60")')
    finally:
        run(engine, 'ADMIN SET FRONTEND CONFIG ("target_file_size_bytes" = "268435456")')
    return "src"


def test_a_tablet_larger_than_the_target_size_gets_several_files(engine, many_files):
    files = files_of(engine, many_files)
    per_tablet: dict = {}
    for f in files:
        per_tablet.setdefault((f.partition, f.bucket), []).append(f.num_records)
    assert len(per_tablet) == 4
    for counts in per_tablet.values():
        assert max(counts) <= 3
        assert len(counts) == math.ceil(sum(counts) / 3)  # full files, but for the last one
    assert sum(f.num_records for f in files) == 60


def test_insert_select_from_a_many_file_source_writes_one_file_per_tablet(engine, many_files):
    assert sum(files_per_tablet(engine, many_files).values()) >= 20  # small files: one task each
    run(engine, DDL.format(name="dst"))
    run(engine, f"INSERT INTO dst SELECT * FROM {many_files}")
    assert sorted(files_per_tablet(engine, "dst").values()) == [1, 1, 1, 1]
    assert rows(engine, "SELECT k, v FROM dst ORDER BY k") == [(k, k * 10) for k in range(60)]


def test_a_table_function_over_many_files_loads_one_file_per_tablet(engine, spark, tmp_path, monkeypatch):
    monkeypatch.setitem(engine.config.frontend, "user_files_secure_path", str(tmp_path))
    source = tmp_path / "many.parquet"
    spark.range(40).selectExpr("CAST(id AS INT) AS k", "id * 10 AS v").repartition(8).write.parquet(str(source))
    assert len(list(source.glob("*.parquet"))) == 8
    run(engine, DDL.format(name="from_files"))
    run(engine, f'INSERT INTO from_files SELECT * FROM local("file_path" = "{source}/*.parquet", "format" = "parquet")')
    assert sorted(files_per_tablet(engine, "from_files").values()) == [1, 1, 1, 1]
    assert rows(engine, "SELECT k, v FROM from_files ORDER BY k") == [(k, k * 10) for k in range(40)]


def test_small_and_large_sources_by_sparks_estimate(engine):
    """A small source is collected and written by pyarrow; a large one by Spark, shuffled by tablet."""

    def is_small(source) -> bool:
        with dml._as_view(engine, source) as relation:
            return dml._small_source(engine.spark, relation, 32 * 2**20)

    small = engine.spark.range(60)
    assert is_small(small)
    assert not is_small(engine.spark.range(10**11))  # 745 GiB as Spark sees it
    assert not is_small(small.crossJoin(engine.spark.range(10**7)))


def written_by(engine, table: str) -> set[str]:
    """The writers of the table's files, from their Parquet footers (pyarrow or Spark's parquet-mr)."""
    folder = table_path(engine, table)
    return {
        pq.ParquetFile(f"{folder}/{f.path}").metadata.created_by.split(" version")[0] for f in files_of(engine, table)
    }


@pytest.mark.parametrize(
    ("small_max", "writer"), [("33554432", "parquet-cpp-arrow"), ("0", "parquet-mr")], ids=["collected", "shuffled"]
)
def test_overwriting_one_partition_from_many_files_writes_one_file_per_tablet(engine, many_files, small_max, writer):
    """INSERT OVERWRITE of one partition writes its folder split by bucket only: a small source
    is collected and written by pyarrow, else Spark writes after a shuffle by bucket (every load,
    with `small_load_max_bytes` 0); either way a tablet gets one file per target size."""
    name = f"ow_{'small' if small_max != '0' else 'shuffle'}"
    run(engine, f'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "{small_max}")')
    try:
        run(engine, DDL.format(name=name))
        run(engine, f"INSERT INTO {name} VALUES (1, 1), (40, 40)")
        # 21 small source files (one task each when scanned), 30 rows for p1
        run(engine, f"INSERT OVERWRITE TABLE {name} PARTITION (p1) SELECT k, v + 1 FROM {many_files} WHERE k < 30")
        assert sorted(files_per_tablet(engine, name).values()) == [1, 1, 1]  # p1's 2 tablets, p2's one row
        assert written_by(engine, name) == {writer}
        assert rows(engine, f"SELECT k, v FROM {name} ORDER BY k") == [(k, k * 10 + 1) for k in range(30)] + [(40, 40)]
        # a small target size: several files a tablet, each full but the last (3 rows a file)
        run(engine, 'ADMIN SET FRONTEND CONFIG ("target_file_size_bytes" = "36")')
        try:
            run(engine, f"INSERT OVERWRITE TABLE {name} PARTITION (p1) SELECT * FROM {many_files} WHERE k < 30")
        finally:
            run(engine, 'ADMIN SET FRONTEND CONFIG ("target_file_size_bytes" = "268435456")')
    finally:
        run(engine, 'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "33554432")')
    counts: dict = {}
    for f in files_of(engine, name):
        counts.setdefault((f.partition, f.bucket), []).append(f.num_records)
    p1_files = [c for c in counts.values() if sum(c) != 1]
    assert len(p1_files) == 2 and all(len(c) == math.ceil(sum(c) / 3) and max(c) <= 3 for c in p1_files)


TYPES_DDL = """CREATE TABLE {name} (
k INT, ti TINYINT, si SMALLINT, bi BIGINT, li LARGEINT, f FLOAT, d DOUBLE, d9 DECIMAL(9, 2),
d18 DECIMAL(18, 4), d30 DECIMAL(30, 5), dt DATE, ts DATETIME(6), c CHAR(5), s STRING, b BOOLEAN,
a ARRAY<INT>, m MAP<STRING, INT>, st STRUCT<x: INT, y: STRING>)
DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"""
TYPES_ROWS = (
    "(1, -128, 32767, 9000000000, 99999999999999999999999999999999999999, 1.5, 2.25, 1234567.89, "
    "12345678901234.5678, 1234567890123456789012345.12345, '0001-01-01', '2024-03-10 02:30:00.123456', 'ab', "
    "'ünï', true, [1, NULL, 3], {'a': 1, 'b': NULL}, {1, 'x'}), "
    "(2, NULL, NULL, NULL, -5, NULL, NULL, -0.01, NULL, NULL, '9999-12-31', NULL, NULL, NULL, false, [], {}, NULL)"
)


def test_a_small_load_is_stored_as_sparks_write_stores_it(engine):
    """The same VALUES written by pyarrow (a small load) and by Spark (`small_load_max_bytes` 0):
    the same rows for dorisql and for an outside Delta reader, the same Parquet column types."""
    run(engine, TYPES_DDL.format(name="by_arrow"))
    run(engine, TYPES_DDL.format(name="by_spark"))
    run(engine, f"INSERT INTO by_arrow VALUES {TYPES_ROWS}")
    run(engine, 'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "0")')
    try:
        run(engine, f"INSERT INTO by_spark VALUES {TYPES_ROWS}")
    finally:
        run(engine, 'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "33554432")')
    assert written_by(engine, "by_arrow") == {"parquet-cpp-arrow"}
    assert written_by(engine, "by_spark") == {"parquet-mr"}
    assert rows(engine, "SELECT * FROM by_arrow ORDER BY k") == rows(engine, "SELECT * FROM by_spark ORDER BY k")
    assert len(rows(engine, "SELECT * FROM by_arrow")) == 2

    def outside(table: str) -> list:
        found = delta(engine, table).to_pyarrow_table()
        return sorted(found.drop_columns(["__partition", "__bucket"]).to_pylist(), key=lambda r: r["k"])

    assert outside("by_arrow") == outside("by_spark")

    def physical(table: str) -> set:
        folder = table_path(engine, table)
        return {
            (c.path, c.physical_type, str(c.logical_type))
            for f in files_of(engine, table)
            for c in pq.ParquetFile(f"{folder}/{f.path}").schema
        }

    assert physical("by_arrow") == physical("by_spark")
