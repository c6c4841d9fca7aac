"""SHOW PROC '/', '/dbs', '/dbs/<DbId>', '/statistic' (catalog-only engine: no Spark), with
Doris's columns (common/proc: DbsProcDir, TablesProcDir, StatisticProcNode) and errors."""

from __future__ import annotations

import pytest

from dorisql.errors import DorisqlError


@pytest.fixture
def engine(tmp_path, make_engine):
    eng = make_engine(tmp_path / "wh")
    eng.execute_sql(
        "CREATE DATABASE b; CREATE DATABASE a;"
        "CREATE TABLE a.t (k INT, d DATE) DUPLICATE KEY(k) PARTITION BY RANGE(d) ("
        "PARTITION p1 VALUES LESS THAN ('2024-01-01'), PARTITION p2 VALUES LESS THAN ('2025-01-01'))"
        " DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ('replication_num' = '1');"
        "CREATE TABLE a.u (k INT) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ('replication_num' = '1')"
    )
    yield eng
    eng.close()


def proc(engine, path):
    (result,) = engine.execute_sql(f"SHOW PROC '{path}'")
    return result.columns, [tuple(r) for r in result.rows]


def test_root_dbs_tables_and_statistic(engine):
    ids = {name: engine.catalog.get_database(name).id for name in ("a", "b")}
    assert proc(engine, "/") == (["name"], [("dbs",), ("statistic",), ("colocation_group",), ("compactions",)])

    columns, rows = proc(engine, "/dbs")
    assert columns[:4] == ["DbId", "DbName", "TableNum", "Size"] and columns[-1] == "LastUpdateTime"
    assert [r[:3] for r in rows] == [(str(ids["b"]), "b", "0"), (str(ids["a"]), "a", "2")]  # by DbId
    assert rows[1][4:10] == ("1024.000 TB", "\\N", "8", "1073741824", "0", "1000")  # 2*3 + 1*2 replicas
    assert proc(engine, "//dbs//") == proc(engine, "/dbs/")  # as ProcService.open reads paths

    columns, rows = proc(engine, f"/dbs/{ids['a']}")
    assert columns == [
        "TableId",
        "TableName",
        "IndexNum",
        "PartitionColumnName",
        "PartitionNum",
        "State",
        "Type",
        "LastConsistencyCheckTime",
        "ReplicaCount",
    ]
    assert [r[1:] for r in rows] == [
        ("t", "1", "d", "2", "NORMAL", "OLAP", "\\N", "6"),
        ("u", "1", "\\N", "1", "NORMAL", "OLAP", "\\N", "2"),
    ]

    columns, rows = proc(engine, "/statistic")
    assert columns == ["DbId", "DbName", "TableNum", "PartitionNum", "IndexNum", "TabletNum", "ReplicaNum"]
    assert rows == [  # by database name, then the total (its second cell: the number of databases)
        (str(ids["a"]), "a", "2", "3", "3", "8", "8"),
        (str(ids["b"]), "b", "0", "0", "0", "0", "0"),
        ("Total", "2", "2", "3", "3", "8", "8"),
    ]


@pytest.mark.parametrize(
    ("path", "code", "message"),
    [
        ("/nope", 5001, "Proc path '/nope' doesn't exist"),  # ERR_WRONG_PROC_PATH
        ("dbs", 1105, "Path(dbs) does not start with '/'"),
        ("/dbs/abc", 1105, "Invalid db id format: abc"),
        ("/dbs/999999", 1105, "Database 999999 does not exist"),
        ("/statistic/1", 1105, "/statistic is not a directory"),
    ],
)
def test_paths_doris_refuses(engine, path, code, message):
    with pytest.raises(DorisqlError) as info:
        proc(engine, path)
    assert (info.value.code, str(info.value)) == (code, message)
