"""SHOW ALTER TABLE COLUMN | ROLLUP [FROM db] [WHERE] [ORDER BY] [LIMIT] with Doris's rules
(ShowAlterTableCommand, SchemaChangeProcDir), over the jobs of real schema changes.

The engine's clock is fixed and moved an hour between the ALTERs, so CreateTime filters have
distinct times to tell apart.
"""

from __future__ import annotations

import datetime as dt

import pytest

from dorisql.clock import FixedClock
from dorisql.errors import AnalysisError, UnknownDatabaseError

from .conftest import rows, run

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def engine(spark, tmp_path_factory, make_engine):
    clock = FixedClock(dt.datetime(2024, 1, 1, 10, 0, 0))
    eng = make_engine(tmp_path_factory.mktemp("wh"), spark=spark, clock=clock)
    eng.execute_sql(
        """CREATE DATABASE d; USE d;
        CREATE TABLE a (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1;
        CREATE TABLE b (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1;
        ALTER TABLE a ADD COLUMN c INT"""
    )
    clock.advance(hours=1)
    eng.execute_sql("ALTER TABLE b ADD COLUMN c INT")
    clock.advance(hours=1)
    eng.execute_sql("ALTER TABLE a MODIFY COLUMN v BIGINT")
    yield eng
    eng.close()


def jobs(engine, where: str = "") -> list[tuple[str, str]]:
    """(TableName, CreateTime) of each row SHOW ALTER TABLE COLUMN `where` lists, in its order."""
    return [(r[1], r[2]) for r in rows(engine, "SHOW ALTER TABLE COLUMN " + where)]


A1, B1, A2 = ("a", "2024-01-01 10:00:00"), ("b", "2024-01-01 11:00:00"), ("a", "2024-01-01 12:00:00")


def test_all_jobs_in_job_order(engine):
    assert jobs(engine) == [A1, B1, A2]
    assert jobs(engine, "FROM d") == [A1, B1, A2]


def test_where_on_names_and_state(engine):
    assert jobs(engine, "WHERE TableName = 'a'") == [A1, A2]
    assert jobs(engine, "WHERE tablename != 'a'") == [B1]
    assert jobs(engine, "WHERE IndexName = 'b' AND State = 'FINISHED'") == [B1]
    assert jobs(engine, "WHERE State = 'CANCELLED'") == []
    # Doris compares the text exactly
    assert jobs(engine, "WHERE TableName = 'A'") == []


def test_where_on_times_keeps_every_condition(engine):
    between = "WHERE CreateTime >= '2024-01-01 11:00:00' AND CreateTime < '2024-01-01 12:00'"
    assert jobs(engine, between) == [B1]
    assert jobs(engine, "WHERE CreateTime > '2024-01-01'") == [A1, B1, A2]
    assert jobs(engine, "WHERE FinishTime <= '2024-01-01 11:00:00'") == [A1, B1]
    assert jobs(engine, "WHERE CreateTime != '2024-01-01 10:00:00' AND TableName = 'a'") == [A2]
    assert jobs(engine, "WHERE CreateTime = '20240101110000'") == [B1]


def test_order_by_and_limit(engine):
    assert jobs(engine, "ORDER BY TableName DESC, CreateTime") == [B1, A1, A2]
    assert jobs(engine, "WHERE TableName = 'a' ORDER BY CreateTime DESC LIMIT 1") == [A2]
    assert jobs(engine, "ORDER BY createtime DESC LIMIT 1 OFFSET 1") == [B1]
    assert jobs(engine, "LIMIT 1, 2") == [B1, A2]
    assert jobs(engine, "LIMIT 5 OFFSET 3") == []
    # Doris applies a LIMIT only above 0 (ShowAlterTableCommand: limit > 0)
    assert jobs(engine, "LIMIT 0") == [A1, B1, A2]


def test_rollup_jobs_are_none(engine):
    result = run(engine, "SHOW ALTER TABLE ROLLUP FROM d WHERE TableName = 'a' ORDER BY JobId LIMIT 3")
    assert result.columns[4:6] == ["BaseIndexName", "RollupIndexName"] and result.rows == []
    assert run(engine, "SHOW ALTER TABLE MATERIALIZED VIEW").rows == []


@pytest.mark.parametrize(
    "tail, message",
    [
        ("WHERE TableName = 'a' OR TableName = 'b'", "Only allow compound predicate with operator AND"),
        ("WHERE TableName LIKE 'a%'", r"The operator =\|>=\|<=\|>\|<\|!= are supported."),
        ("WHERE JobId = 1", "The columns of TableName/IndexName/CreateTime/FinishTime/State/BaseIndexName/"),
        ("WHERE Msg = ''", "The columns of TableName/IndexName/CreateTime/FinishTime/State/BaseIndexName/"),
        ("WHERE TableName > 'a'", 'Where clause : TableName = "table1" or State = "FINISHED|CANCELLED'),
        ("WHERE State = 1", 'Where clause : TableName = "table1" or State = "FINISHED|CANCELLED'),
        ("WHERE CreateTime > 20240101", r'Where clause : CreateTime/FinishTime =\|>=\|<=\|>\|<\|!= "2019-12-02'),
        ("WHERE CreateTime > 'yesterday'", r"datetime literal \[yesterday\] is invalid"),
        ("WHERE FinishTime < '2024-02-30'", r"datetime literal \[2024-02-30\] is invalid"),
        ("ORDER BY nope", r"Title name\[nope\] does not exist"),
        # Doris checks WHERE before it looks the database up
        ("FROM nodb WHERE JobId = 1", "The columns of TableName/"),
    ],
)
def test_refusals(engine, tail, message):
    with pytest.raises(AnalysisError, match=message):
        run(engine, "SHOW ALTER TABLE COLUMN " + tail)


def test_unknown_database(engine):
    with pytest.raises(UnknownDatabaseError, match="Unknown database 'nodb'"):
        run(engine, "SHOW ALTER TABLE COLUMN FROM nodb WHERE TableName = 'a'")
