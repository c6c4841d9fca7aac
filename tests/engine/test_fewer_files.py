"""A load writes about one file per tablet per target file size, whatever its source's shape
(docs/storage.md "Fewer files"): real Spark, real Delta, files counted in the Delta log."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from dorisql.engine import dml
from dorisql.storage.delta import DeltaStore

from .conftest import rows, run, table_path

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
    """A small source is written by one task (no shuffle by tablet); a large one keeps the shuffle."""
    small = engine.spark.range(60)
    assert dml._small_source(engine, small)
    assert not dml._small_source(engine, engine.spark.range(10**11))  # 745 GiB as Spark sees it
    assert not dml._small_source(engine, small.crossJoin(engine.spark.range(10**7)))


@pytest.mark.parametrize("one_task_max", [dml.ONE_TASK_MAX_BYTES, 0], ids=["one task", "shuffle by bucket"])
def test_overwriting_one_partition_from_many_files_writes_one_file_per_tablet(
    engine, many_files, one_task_max, monkeypatch
):
    """INSERT OVERWRITE of one partition writes its folder split by bucket only: one task for a
    small source, else a shuffle by bucket; either way a tablet gets one file per target size."""
    monkeypatch.setattr(dml, "ONE_TASK_MAX_BYTES", one_task_max)
    name = f"ow_{'one' if one_task_max else 'shuffle'}"
    run(engine, DDL.format(name=name))
    run(engine, f"INSERT INTO {name} VALUES (1, 1), (40, 40)")
    # 21 small source files (one task each when scanned), 30 rows for p1
    run(engine, f"INSERT OVERWRITE TABLE {name} PARTITION (p1) SELECT k, v + 1 FROM {many_files} WHERE k < 30")
    assert sorted(files_per_tablet(engine, name).values()) == [1, 1, 1]  # p1's 2 tablets, p2's one row
    assert rows(engine, f"SELECT k, v FROM {name} ORDER BY k") == [(k, k * 10 + 1) for k in range(30)] + [(40, 40)]
    # a small target size: several files a tablet, each full but the last (3 rows a file)
    run(engine, 'ADMIN SET FRONTEND CONFIG ("target_file_size_bytes" = "36")')
    try:
        run(engine, f"INSERT OVERWRITE TABLE {name} PARTITION (p1) SELECT * FROM {many_files} WHERE k < 30")
    finally:
        run(engine, 'ADMIN SET FRONTEND CONFIG ("target_file_size_bytes" = "268435456")')
    counts: dict = {}
    for f in files_of(engine, name):
        counts.setdefault((f.partition, f.bucket), []).append(f.num_records)
    p1_files = [c for c in counts.values() if sum(c) != 1]
    assert len(p1_files) == 2 and all(len(c) == math.ceil(sum(c) / 3) and max(c) <= 3 for c in p1_files)
