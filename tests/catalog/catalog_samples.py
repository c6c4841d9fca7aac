"""Hand-built statement and catalog values for the catalog tests (no parser involved)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from dorisql import ast
from dorisql.ast import MAXVALUE
from dorisql.bucketing.auto_buckets import BucketDecision
from dorisql.catalog.model import DynamicState, PartitionMeta, TableMeta

T0 = dt.datetime(2020, 5, 29, 10, 0, 0, 123456)


def nested_type() -> ast.DataType:
    """ARRAY<MAP<STRING, STRUCT<a: DECIMAL(27, 9), b: ARRAY<DATETIME(3)>>>>"""
    struct = ast.DataType(
        "STRUCT",
        fields=(
            ast.StructField("a", ast.DataType("DECIMAL", (27, 9)), comment="money"),
            ast.StructField("b", ast.DataType("ARRAY", args=(ast.DataType("DATETIME", (3,)),))),
        ),
    )
    return ast.DataType("ARRAY", args=(ast.DataType("MAP", args=(ast.DataType("STRING"), struct)),))


def create_table(
    db: str = "db1",
    name: str = "t",
    *,
    with_items: bool = True,
    properties: ast.Properties = (("replication_num", "1"),),
) -> ast.CreateTable:
    items = ()
    if with_items:
        items = (
            ast.RangePartition("p1", upper=("2017-02-01",)),
            ast.RangePartition(
                "p2",
                upper=("2017-03-01",),
                lower=("2017-02-01",),
                if_not_exists=True,
                properties=(("storage_medium", "SSD"),),
            ),
            ast.RangePartition("pmax", upper=(MAXVALUE,)),
            ast.BatchRangePartition(start=("2018-01-01",), end=("2018-02-01",), interval=1, unit="DAY"),
        )
    return ast.CreateTable(
        table=ast.TableName(name, db),
        columns=(
            ast.ColumnDef("k1", ast.DataType("DATE"), nullable=False),
            ast.ColumnDef("k2", ast.DataType("VARCHAR", (20,)), default=ast.Literal(None, "null")),
            ast.ColumnDef("id", ast.DataType("BIGINT"), auto_increment=True, auto_increment_start=100),
            ast.ColumnDef(
                "ts",
                ast.DataType("DATETIME", (3,)),
                default=ast.Literal("CURRENT_TIMESTAMP(3)", "function"),
                on_update="CURRENT_TIMESTAMP(3)",
            ),
            ast.ColumnDef("v", ast.DataType("BIGINT"), agg_type="SUM", comment="a 'quoted' \"comment\" ünïcode"),
            ast.ColumnDef("x", nested_type(), nullable=True),
        ),
        indexes=(ast.IndexDef("idx_k2", ("k2",), using="INVERTED", properties=(("parser", "english"),)),),
        if_not_exists=True,
        engine="OLAP",
        keys=ast.KeysDesc("AGGREGATE", ("k1", "k2")),
        comment=None,
        partition=ast.PartitionBy("RANGE", ("k1",), items),
        distribution=ast.DistributedBy("HASH", ("k1", "k2"), buckets=None, auto=True),
        rollups=(ast.RollupDef("r1", ("k1", "v")),),
        properties=properties,
        pos=ast.Pos(3, 1),
        text="CREATE TABLE ...",
    )


def list_create_table() -> ast.CreateTable:
    return ast.CreateTable(
        table=ast.TableName("lt"),
        columns=(ast.ColumnDef("city", ast.DataType("VARCHAR", (20,))), ast.ColumnDef("n", ast.DataType("INT"))),
        partition=ast.PartitionBy(
            "LIST",
            ("city", "n"),
            (
                ast.ListPartition("p_null", values=((None, "1"), ("Beijing", None))),
                ast.ListPartition("p_sh", values=(("Shanghai", "2"),)),
            ),
        ),
        distribution=ast.DistributedBy("RANDOM", buckets=3),
    )


def partitions(count: int, *, start: dt.date = dt.date(2020, 1, 1), buckets: int = 10) -> tuple[PartitionMeta, ...]:
    """`count` daily RANGE partitions with id 0 (the catalog assigns ids)."""
    out = []
    for i in range(count):
        day = start + dt.timedelta(days=i)
        out.append(
            PartitionMeta(
                id=0,
                name=f"p{day:%Y%m%d}",
                buckets=buckets,
                lower=(f"DATE '{day:%Y-%m-%d}'",),
                upper=(f"DATE '{day + dt.timedelta(days=1):%Y-%m-%d}'",),
                created_at=T0,
                visible_version=2,
                visible_version_time=T0,
                bucket_decision=BucketDecision(
                    "auto-initial",
                    buckets,
                    estimate_bytes=10 << 30,
                    n=1,
                    m=2,
                    reason="estimate 10 GB",
                    history_bytes=(1, 2, 3),
                ),
            )
        )
    return tuple(out)


def table_meta(
    db: str = "db1", name: str = "t", *, n_partitions: int = 3, properties: ast.Properties = (("replication_num", "1"),)
) -> TableMeta:
    ct = create_table(db, name, properties=properties)
    ct = replace(ct, partition=replace(ct.partition, items=()))
    return TableMeta(
        id=0,
        db=db,
        name=name,
        definition=ct,
        partitions=partitions(n_partitions),
        created_at=T0,
        dynamic_state=DynamicState(last_update_time=T0, state="NORMAL", last_create_partition_msg=None),
    )
