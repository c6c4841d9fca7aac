"""Every example statement of the seed documents (tests/syntax/golden/*.sql) parses and
survives generate -> parse; key statements parse to exactly the expected objects."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.ast import MAXVALUE
from dorisql.syntax import parse, parse_one
from dorisql.syntax.generator import to_sql

from .helpers import GOLDEN

FILES = sorted(GOLDEN.glob("*.sql"))
STATEMENTS = [(f.name, s) for f in FILES for s in parse(f.read_text(encoding="utf-8"), check=False)]


def _stmt(file: str, index: int) -> ast.Statement:
    return [s for f, s in STATEMENTS if f == file][index]


def test_golden_files_exist():
    assert {f.name[:8] for f in FILES} >= {"seed_000", "seed_001", "seed_003", "seed_004"}


@pytest.mark.parametrize("stmt", [s for _, s in STATEMENTS], ids=[f"{f}:{s.pos.line}" for f, s in STATEMENTS])
def test_round_trip(stmt):
    assert parse_one(to_sql(stmt), check=False) == stmt


def test_example_range_tbl():
    s = _stmt("seed_003_data_partition.sql", 0)
    assert isinstance(s, ast.CreateTable)
    assert s.table == ast.TableName("example_range_tbl", "example_db")
    assert s.if_not_exists and s.engine == "OLAP"
    assert s.keys == ast.KeysDesc("AGGREGATE", ("user_id", "date", "timestamp", "city", "age", "sex"))
    assert s.partition == ast.PartitionBy(
        "RANGE",
        ("date",),
        (
            ast.RangePartition("p201701", ("2017-02-01",)),
            ast.RangePartition("p201702", ("2017-03-01",)),
            ast.RangePartition("p201703", ("2017-04-01",)),
            ast.RangePartition("p2018", ("2019-01-01",), ("2018-01-01",)),
        ),
    )
    assert s.distribution == ast.DistributedBy("HASH", ("user_id",), 16)
    assert ast.props(s.properties) == {
        "replication_num": "3",
        "storage_medium": "SSD",
        "storage_cooldown_time": "2018-01-01 12:00:00",
    }
    cost = s.columns[7]
    assert cost == ast.ColumnDef(
        "cost",
        ast.DataType("BIGINT"),
        agg_type="SUM",
        default=ast.Literal("0", "string"),
        comment="Total user consumption",
    )
    assert s.columns[0].nullable is False and s.columns[3].nullable is None
    assert s.columns[3].type == ast.DataType("VARCHAR", (20,))


def test_example_list_tbl():
    s = _stmt("seed_003_data_partition.sql", 1)
    assert s.partition == ast.PartitionBy(
        "LIST",
        ("city",),
        (
            ast.ListPartition("p_cn", (("Beijing",), ("Shanghai",), ("Hong Kong",))),
            ast.ListPartition("p_usa", (("New York",), ("San Francisco",))),
            ast.ListPartition("p_jp", (("Tokyo",),)),
        ),
    )


def test_multi_column_partitions():
    rng = next(s for _, s in STATEMENTS if isinstance(s, ast.CreateTable) and s.table.name == "multi_col_range_tbl")
    assert rng.partition.items[0] == ast.RangePartition("p201701_1000", ("2017-02-01", "1000"))
    assert rng.partition.items[2] == ast.RangePartition("p201703_all", ("2017-04-01",))
    lst = next(s for _, s in STATEMENTS if isinstance(s, ast.CreateTable) and s.table.name == "multi_col_list_tbl")
    assert lst.partition.items[1] == ast.ListPartition("p2_city", (("2", "Beijing"), ("2", "Shanghai")))


def test_batch_and_null_partitions():
    batch = next(s for _, s in STATEMENTS if isinstance(s, ast.CreateTable) and s.table.name == "batch_range_tbl")
    assert batch.partition.items == (ast.BatchRangePartition(("2022-01-03",), ("2022-01-06",), 1, "DAY"),)
    null_list = next(s for _, s in STATEMENTS if isinstance(s, ast.CreateTable) and s.table.name == "null_list")
    assert null_list.partition.items == (ast.ListPartition("pX", ((None,),)),)
    null_range = next(s for _, s in STATEMENTS if isinstance(s, ast.CreateTable) and s.table.name == "null_range")
    assert [i.upper for i in null_range.partition.items] == [("10",), ("100",), (MAXVALUE,)]


def test_dynamic_partition_table():
    s = _stmt("seed_001_dynamic_partition.sql", 2)
    assert s.partition == ast.PartitionBy("RANGE", ("k1",), ())
    assert s.distribution == ast.DistributedBy("HASH", ("k1",))
    assert ast.props(s.properties)["dynamic_partition.start"] == "-7"
    show = _stmt("seed_001_dynamic_partition.sql", 6)
    assert show == ast.ShowDynamicPartitionTables()


def test_auto_buckets():
    fixed = _stmt("seed_000_auto_bucket.sql", 0)
    auto = _stmt("seed_000_auto_bucket.sql", 1)
    assert fixed.distribution == ast.DistributedBy("HASH", ("site",), 20)
    assert auto.distribution == ast.DistributedBy("HASH", ("site",), None, auto=True)
    assert auto.properties == (("estimate_partition_size", "100G"),)


def test_colocation_statements():
    statements = [s for f, s in STATEMENTS if f == "seed_004_colocation.sql"]
    assert statements[0].distribution == ast.DistributedBy("HASH", ("k1",), 8)
    assert statements[2] == ast.ShowProc("/colocation_group")
    assert statements[3] == ast.ShowProc("/colocation_group/10005.10008")
    assert statements[5] == ast.AlterTable(ast.TableName("tbl"), (ast.SetProperties((("colocate_with", ""),)),))
    assert statements[6].columns[2] == ast.ColumnDef(
        "v1", ast.DataType("INT", (11,)), agg_type="SUM", nullable=False, comment=""
    )
    explain = statements[8]
    assert isinstance(explain, ast.Explain)
    assert explain.query.tables == (ast.TableName("tbl1"), ast.TableName("tbl2"))


def test_seed_alter_and_dml():
    statements = [s for f, s in STATEMENTS if f == "seed_003_data_partition.sql"]
    add = statements[3]
    assert add == ast.AlterTable(
        ast.TableName("example_range_tbl", "example_db"),
        (ast.AddPartition(ast.RangePartition("p201705", ("2017-06-01",))),),
    )
    assert statements[2] == ast.Help("CREATE TABLE")
    insert = next(s for s in statements if isinstance(s, ast.Insert))
    assert insert.rows == ((ast.Literal(None, "null"),),)
    select = next(s for s in statements if isinstance(s, ast.Query) and "partition" in s.sql)
    assert select.tables == (ast.TableName("null_range"),)
