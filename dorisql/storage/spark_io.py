"""Spark's view of a table's files: a DataFrame over a list of them, and the Arrow (= Delta)
schema of a Spark schema."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from dorisql.storage import fs
from dorisql.storage.layout import BUCKET_COLUMN, PARTITION_COLUMN
from dorisql.storage.snapshot import FileEntry

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

__all__ = ["read_files", "arrow_schema_from_spark"]


def read_files(spark, files: Iterable[FileEntry | str], spark_schema, *, base_path: str | None = None):
    """``spark.read.schema(schema).parquet(*paths)``; no files gives an empty DataFrame.

    With ``base_path`` (the table folder) the result also has ``__partition`` and ``__bucket``.
    """
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    uris = [f.uri if isinstance(f, FileEntry) else str(f) for f in files]
    schema = spark_schema
    if base_path is not None:
        schema = StructType(
            list(spark_schema.fields)
            + [StructField(PARTITION_COLUMN, StringType(), True), StructField(BUCKET_COLUMN, IntegerType(), True)]
        )
    if not uris:
        return spark.createDataFrame([], schema)
    reader = spark.read.schema(schema)
    if base_path is not None:
        reader = reader.option("basePath", fs.spark_uri(base_path))
    return reader.parquet(*uris)


def arrow_schema_from_spark(spark_schema, *, with_partition_columns: bool = True) -> pa.Schema:
    """The Arrow (= Delta) schema of a Spark schema, plus ``__partition`` string and ``__bucket`` int."""
    import pyarrow as pa

    fields = [pa.field(f.name, _arrow_type(f.dataType), nullable=f.nullable) for f in spark_schema.fields]
    if with_partition_columns:
        names = {f.name for f in fields}
        if PARTITION_COLUMN not in names:
            fields.append(pa.field(PARTITION_COLUMN, pa.string()))
        if BUCKET_COLUMN not in names:
            fields.append(pa.field(BUCKET_COLUMN, pa.int32()))
    return pa.schema(fields)


def _arrow_type(t) -> pa.DataType:
    import pyarrow as pa
    from pyspark.sql import types as spark_types

    simple = {
        spark_types.ByteType: pa.int8(),
        spark_types.ShortType: pa.int16(),
        spark_types.IntegerType: pa.int32(),
        spark_types.LongType: pa.int64(),
        spark_types.FloatType: pa.float32(),
        spark_types.DoubleType: pa.float64(),
        spark_types.BooleanType: pa.bool_(),
        spark_types.DateType: pa.date32(),
        spark_types.TimestampNTZType: pa.timestamp("us"),
        spark_types.TimestampType: pa.timestamp("us", tz="UTC"),
        spark_types.BinaryType: pa.binary(),
        spark_types.StringType: pa.string(),
        spark_types.VarcharType: pa.string(),
        spark_types.CharType: pa.string(),
    }
    for cls, at in simple.items():
        if isinstance(t, cls):
            return at
    if isinstance(t, spark_types.DecimalType):
        return pa.decimal128(t.precision, t.scale)
    if isinstance(t, spark_types.ArrayType):
        return pa.list_(_arrow_type(t.elementType))
    if isinstance(t, spark_types.MapType):
        return pa.map_(_arrow_type(t.keyType), _arrow_type(t.valueType))
    if isinstance(t, spark_types.StructType):
        return pa.struct([pa.field(f.name, _arrow_type(f.dataType), nullable=f.nullable) for f in t.fields])
    raise NotImplementedError(f"no Delta type for Spark type {t.simpleString()}")
