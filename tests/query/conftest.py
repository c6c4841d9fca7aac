"""Helpers for query-layer tests: hand-built TableMeta and real small tables on local Spark.

Tables are written the way the storage layer lays them out: Parquet under
`<root>/<db>/<table>/__partition=<p>/__bucket=<b>/`, with `__bucket = pmod(hash(cast cols), n)`
computed by Spark with each partition's own bucket count, and `__load_seq` / `__row_seq` for
UNIQUE and AGGREGATE tables. The scan reads exactly the chosen tablet folders; `Lake.sources`
is what the planner reads the lake through.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pytest

from dorisql import ast
from dorisql.bucketing.hashing import bucket_expr_sql
from dorisql.catalog.model import PartitionMeta, TableMeta
from dorisql.query.sources import QuerySources
from dorisql.tablets.read import TableScan
from dorisql.types import spark_type


def col(name: str, type_name: str, *params: int, agg: str | None = None) -> ast.ColumnDef:
    return ast.ColumnDef(name=name, type=ast.DataType(type_name, tuple(params)), agg_type=agg)


def rng(name: str, lower: Sequence[str] | None, upper: Sequence[str], buckets: int = 4, pid: int = 0) -> PartitionMeta:
    return PartitionMeta(
        id=pid, name=name, buckets=buckets, lower=tuple(lower) if lower is not None else None, upper=tuple(upper)
    )


def lst(name: str, values, buckets: int = 4, pid: int = 0) -> PartitionMeta:
    return PartitionMeta(id=pid, name=name, buckets=buckets, values=tuple(tuple(v) for v in values))


def table(
    name: str,
    columns,
    *,
    keys=("k",),
    model="DUPLICATE",
    part_kind=None,
    part_cols=(),
    partitions=(),
    dist="HASH",
    dist_cols=("k",),
    buckets=4,
    db="db",
) -> TableMeta:
    partitions = tuple(partitions)
    if not partitions:  # an unpartitioned table: one partition named like the table
        partitions = (PartitionMeta(id=1, name=name, buckets=buckets),)
    definition = ast.CreateTable(
        table=ast.TableName(name, db),
        columns=tuple(columns),
        keys=ast.KeysDesc(model, tuple(keys)),
        partition=ast.PartitionBy(part_kind, tuple(part_cols)) if part_kind else None,
        distribution=ast.DistributedBy(dist, tuple(dist_cols) if dist == "HASH" else (), buckets),
    )
    return TableMeta(id=abs(hash((db, name))) % 10_000, db=db, name=name, definition=definition, partitions=partitions)


def _ddl(meta: TableMeta) -> str:
    return ", ".join(f"`{c.name}` {spark_type(c.type).lower()}" for c in meta.definition.columns)


class Lake:
    """A tiny warehouse: write loads, read tablets back (the scan callback), resolve tables."""

    def __init__(self, spark, root):
        self.spark = spark
        self.root = str(root)
        self.tables: dict[tuple[str, str], TableMeta] = {}
        self.load_seq = 0
        self.scans: list[tuple[str, list, dict | None]] = []

    def path(self, meta: TableMeta) -> str:
        return os.path.join(self.root, meta.db, meta.name)

    def add(self, meta: TableMeta) -> TableMeta:
        self.tables[(meta.db, meta.name)] = meta
        return meta

    def resolve(self, name: ast.TableName) -> TableMeta | None:
        return self.tables.get((name.db, name.name))

    def sources(self, db: str | None) -> QuerySources:
        """The lake as the query planner reads it, `db` the current database."""
        return QuerySources(resolve_table=self.resolve, scan=self.table_scan, current_db=db)

    def table_scan(self, meta: TableMeta, partitions, buckets) -> TableScan:
        """`scan` as a TableScan: the rows read and the files Spark lists for them."""
        frame = self.scan(meta, partitions, buckets)
        return TableScan(meta, frame, tuple(frame.inputFiles()))

    def load(self, meta: TableMeta, rows: Sequence[tuple], partition_of) -> None:
        """Append one load. `partition_of(row)` names each row's partition."""
        from pyspark.sql import functions as F

        self.load_seq += 1
        merged = meta.definition.keys.type in ("UNIQUE", "AGGREGATE")
        data = []
        for i, r in enumerate(rows):
            data.append(tuple(r) + (partition_of(r), self.load_seq, i))
        hidden = ", `__partition` string, `__load_seq` bigint, `__row_seq` bigint"
        df = self.spark.createDataFrame(data, _ddl(meta) + hidden)
        counts = {p.name: p.buckets for p in meta.partitions}
        count_col = F.create_map(*[x for name, n in counts.items() for x in (F.lit(name), F.lit(n))])
        df = df.withColumn("__n", count_col[F.col("__partition")])
        dist = meta.definition.distribution
        if dist.kind == "HASH":
            types = {c.name: spark_type(c.type).lower() for c in meta.definition.columns}
            cols = [f"CAST(`{c}` AS {types[c]})" for c in dist.columns]
            df = df.withColumn("__bucket", F.expr(bucket_expr_sql(cols, "__n")))
        else:
            df = df.withColumn("__bucket", F.pmod(F.lit(self.load_seq), F.col("__n")))
        df = df.drop("__n")
        if not merged:
            df = df.drop("__load_seq", "__row_seq")
        df.repartition(1).write.mode("append").partitionBy("__partition", "__bucket").parquet(self.path(meta))

    def scan(self, meta: TableMeta, partitions, buckets):
        self.scans.append((meta.name, partitions, buckets))
        merged = meta.definition.keys.type in ("UNIQUE", "AGGREGATE")
        schema = (
            _ddl(meta)
            + (", `__load_seq` bigint, `__row_seq` bigint" if merged else "")
            + ", `__partition` string, `__bucket` int"
        )
        base = self.path(meta)
        names = partitions if partitions is not None else [p.name for p in meta.partitions]
        folders = []
        for name in names:
            part = meta.partition(name)
            chosen = buckets[name] if buckets is not None else range(part.buckets)
            for b in sorted(chosen):
                folder = os.path.join(base, f"__partition={name}", f"__bucket={b}")
                if os.path.isdir(folder):
                    folders.append(folder)
        if not folders:
            return self.spark.createDataFrame([], schema)
        return self.spark.read.schema(schema).option("basePath", base).parquet(*folders)


@pytest.fixture
def lake(spark, tmp_path):
    return Lake(spark, tmp_path / "warehouse")
