"""Helpers for the storage tests: a typed sample DataFrame with __partition/__bucket."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from dorisql.bucketing.hashing import bucket_expr_sql

DATA_DDL = (
    "id INT, big BIGINT, s STRING, d DATE, ts TIMESTAMP_NTZ, large DECIMAL(38,0), "
    "amount DECIMAL(10,2), flag BOOLEAN, tiny TINYINT"
)
TYPES = ["int", "bigint", "string", "date", "timestamp_ntz", "decimal(38,0)", "decimal(10,2)", "boolean", "tinyint"]


def sample_rows(n: int = 60, offset: int = 0):
    rows = []
    for i in range(offset, offset + n):
        rows.append(
            (
                i,
                None if i % 7 == 3 else i * 10_000_000_000,
                None if i % 5 == 1 else f"name-{i:04d}-é",
                None if i % 11 == 4 else dt.date(2020, 1, 1) + dt.timedelta(days=i),
                None
                if i % 13 == 5
                else dt.datetime(2020, 5, 29, 10) + dt.timedelta(seconds=i * 3601, microseconds=i * 7),
                None if i % 6 == 2 else Decimal((10**30 + i) * (-1 if i % 2 else 1)),
                None if i % 9 == 8 else Decimal(i * 125).scaleb(-2),
                None if i % 4 == 3 else bool(i % 2),
                None if i % 10 == 9 else (i % 240) - 120,
            )
        )
    return rows


def with_layout(df, partitions=("p1", "p2", "p3"), buckets: int = 4):
    """Add __partition (by id) and __bucket (pmod(hash(id), buckets)) as the engine would."""
    cases = " ".join(f"WHEN id % {len(partitions)} = {i} THEN '{p}'" for i, p in enumerate(partitions))
    return df.selectExpr("*", f"CASE {cases} END AS __partition").selectExpr(
        "*", f"{bucket_expr_sql(['CAST(id AS INT)'], str(buckets))} AS __bucket"
    )


@pytest.fixture
def sample_df(spark):
    def make(n: int = 60, offset: int = 0, partitions=("p1", "p2", "p3"), buckets: int = 4):
        return with_layout(spark.createDataFrame(sample_rows(n, offset), DATA_DDL), partitions, buckets)

    return make


@pytest.fixture
def table(spark, warehouse):
    """An empty dorisql Delta table with the sample schema, stamped with a DDL property."""
    from dorisql.storage.delta import DeltaStore
    from dorisql.storage.spark_io import arrow_schema_from_spark

    schema = spark.createDataFrame([], DATA_DDL).schema
    store = DeltaStore.create(
        warehouse / "db" / "t", arrow_schema_from_spark(schema), properties={"dorisql.ddl": "CREATE TABLE t (...)"}
    )
    store.spark_schema = schema
    return store
