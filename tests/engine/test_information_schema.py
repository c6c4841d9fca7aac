"""information_schema queried with ordinary SELECTs (WHERE, ORDER BY, joins of its tables) and
SHOW TABLE STATUS after a load: row counts and sizes from the Delta log."""

from __future__ import annotations

import pytest

from dorisql.errors import DorisqlError

from .conftest import rows, run


@pytest.fixture(scope="module")
def loaded(engine):
    engine.execute_sql(
        """
        CREATE TABLE sales (k INT NOT NULL, city VARCHAR(16) COMMENT 'where', amount DECIMAL(10, 2))
          DUPLICATE KEY(k) COMMENT 'sales rows'
          PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
          DISTRIBUTED BY HASH(k) BUCKETS 1;
        CREATE TABLE totals (city VARCHAR(16), n BIGINT SUM) AGGREGATE KEY(city) DISTRIBUTED BY HASH(city) BUCKETS 1;
        INSERT INTO sales VALUES (1, 'a', 1.50), (2, 'b', 2.50), (15, 'c', 3.00);
        """
    )
    return engine


def test_tables_and_columns_joined(loaded):
    assert rows(
        loaded,
        "SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS, TABLE_COMMENT FROM information_schema.tables "
        "WHERE table_schema = database() ORDER BY table_name",
    ) == [("sales", "BASE TABLE", "Doris", 3, "sales rows"), ("totals", "BASE TABLE", "Doris", 0, "")]
    assert rows(
        loaded,
        "SELECT c.column_name, c.ordinal_position, c.data_type, c.column_type, c.column_key, c.is_nullable, "
        "c.character_maximum_length, c.numeric_precision, c.numeric_scale, c.column_comment "
        "FROM information_schema.columns c JOIN information_schema.tables t "
        "ON c.table_schema = t.table_schema AND c.table_name = t.table_name "
        "WHERE t.table_comment = 'sales rows' ORDER BY c.ordinal_position",
    ) == [
        ("k", 1, "int", "int", "DUP", "NO", None, 10, 0, ""),
        ("city", 2, "varchar", "varchar(16)", "", "YES", 16, None, None, "where"),
        ("amount", 3, "decimal", "decimal(10,2)", "", "YES", None, 10, 2, ""),
    ]


def test_schemata_partitions_and_views(loaded):
    assert rows(loaded, "SELECT SCHEMA_NAME FROM information_schema.schemata ORDER BY 1") == [
        ("d",),
        ("information_schema",),
        ("mysql",),
    ]
    assert rows(
        loaded,
        "SELECT partition_name, partition_method, table_rows, bucket_num FROM information_schema.partitions "
        "WHERE table_name = 'sales' ORDER BY partition_ordinal_position",
    ) == [("p1", "RANGE", 2, 1), ("p2", "RANGE", 1, 1)]
    assert rows(loaded, "SELECT count(*) FROM information_schema.views") == [(0,)]


def test_use_information_schema_then_unqualified_names(loaded):
    try:
        run(loaded, "USE information_schema")
        assert rows(loaded, "SELECT count(*) AS n FROM tables WHERE table_schema = 'd'") == [(2,)]
        with pytest.raises(DorisqlError, match=r"Table \[nope\] does not exist in database \[information_schema\]"):
            run(loaded, "SELECT * FROM nope")
    finally:
        run(loaded, "USE d")


def test_show_table_status_counts_the_loaded_rows(loaded):
    result = run(loaded, "SHOW TABLE STATUS LIKE 'sales'")
    status = dict(zip(result.columns, result.rows[0]))
    assert status["Rows"] == 3
    assert status["Data_length"] > 0
    assert status["Avg_row_length"] == status["Data_length"] // 3


def test_show_backends_lists_the_running_spark(loaded):
    spark = loaded.running_spark
    result = run(loaded, "SHOW BACKENDS")
    backends = [dict(zip(result.columns, row)) for row in result.rows]
    # local mode: the driver is the one executor
    assert len(backends) == 1
    assert backends[0]["BePort"] > 0 and backends[0]["Alive"] == "true"
    # the executor's cores (local[2]), not spark.default.parallelism (4 in the tests' session)
    assert backends[0]["CpuCores"] == 2 and spark.sparkContext.defaultParallelism == 4
    assert backends[0]["TabletNum"] == 3  # sales: 2 partitions x 1 bucket, totals: 1
