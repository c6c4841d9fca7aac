"""ADMIN COMPACT TABLE, SHOW TABLETS, SHOW PROC '/compactions': parsing and Doris's checks
(catalog only, no Spark)."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.errors import AnalysisError
from dorisql.syntax import parse

TABLE = """CREATE TABLE t (k INT NOT NULL, v INT SUM) AGGREGATE KEY(k)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
    DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("disable_auto_compaction" = "true")"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory, make_engine):
    eng = make_engine(tmp_path_factory.mktemp("wh"))
    eng.execute_sql(f"CREATE DATABASE d; USE d; {TABLE}")
    yield eng
    eng.close()


def test_parse():
    stmt = parse("ADMIN COMPACT TABLE d.t PARTITION p1 WHERE type = 'base'")[0]
    assert isinstance(stmt, ast.AdminCompactTable)
    assert stmt.table == ast.TableName("t", "d") and stmt.partitions == ("p1",)
    assert stmt.where == ast.Comparison("type", "=", ast.Literal("base", "string"))
    tablets = parse("SHOW TABLETS FROM t PARTITION (p1, p2)")[0]
    assert tablets == ast.ShowTablets(ast.TableName("t"), ("p1", "p2"), text=tablets.text) and tablets.reads_only


@pytest.mark.parametrize(
    "sql, message",
    [
        # Doris's AdminCompactTableStmt, in its order: the partition, then the WHERE clause
        ("ADMIN COMPACT TABLE t WHERE type = 'BASE'", "No partition selected for compaction"),
        (
            "ADMIN COMPACT TABLE t PARTITIONS (p1, p2) WHERE type = 'BASE'",
            "Only support single partition for compaction",
        ),
        (
            "ADMIN COMPACT TABLE t PARTITION p1",
            "Compaction type must be specified in Where clause like: type = 'BASE/CUMULATIVE'",
        ),
        (
            "ADMIN COMPACT TABLE t PARTITION p1 WHERE type = 'FULL'",
            "Where clause should looks like: type = 'BASE/CUMULATIVE'",
        ),
        (
            "ADMIN COMPACT TABLE t PARTITION p1 WHERE kind = 'BASE'",
            "Where clause should looks like: type = 'BASE/CUMULATIVE'",
        ),
        (
            "ADMIN COMPACT TABLE t PARTITION p1 WHERE type = 1",
            "Where clause should looks like: type = 'BASE/CUMULATIVE'",
        ),
        (
            "ADMIN COMPACT TABLE t PARTITION p1 WHERE type != 'BASE'",
            "Where clause should looks like: type = 'BASE/CUMULATIVE'",
        ),
        ("ADMIN COMPACT TABLE t PARTITION p9 WHERE type = 'BASE'", "Partition 'p9' does not exist in table 't'"),
        ("SHOW TABLETS FROM t PARTITION (p9)", "Partition 'p9' does not exist in table 't'"),
    ],
)
def test_doris_checks(engine, sql, message):
    with pytest.raises(AnalysisError) as info:
        engine.execute_sql(sql)
    assert str(info.value) == message


def test_settings_and_the_table_property(engine):
    engine.execute_sql('ADMIN SET FRONTEND CONFIG ("compaction_output_file_size_mbytes" = "64")')
    assert engine.frontend("compaction_output_file_size_mbytes") == "64"
    engine.execute_sql('ALTER TABLE t SET ("disable_auto_compaction" = "false")')
    with pytest.raises(AnalysisError, match="disable_auto_compaction"):
        engine.execute_sql('ALTER TABLE t SET ("disable_auto_compaction" = "maybe")')


def test_nothing_compacted_yet(engine):
    (result,) = engine.execute_sql("SHOW PROC '/compactions'")
    assert result.columns[:6] == ["Table", "PartitionName", "Bucket", "Type", "Trigger", "State"]


def test_show_tablets_of_an_empty_table(engine):
    result = engine.execute_sql("SHOW TABLETS FROM t PARTITION (p2)")[0]
    assert result.columns == [
        "PartitionName",
        "Bucket",
        "Version",
        "RowCount",
        "DataSize",
        "RowsetCount",
        "FileCount",
        "VersionRange",
        "CumulativePoint",
        "CumulativeScore",
        "BaseScore",
        "QueryHits",
    ]
    assert [tuple(r) for r in result.rows] == [("p2", b, 0, 0, 0, 0, 0, None, -1, 0, 0, 0) for b in (0, 1)]
    assert len(engine.execute_sql("SHOW TABLETS FROM t")[0].rows) == 4
