"""ALTER TABLE ADD/DROP/MODIFY COLUMN, comments, MODIFY PARTITION on a real engine and Delta table.

One engine, one small table per concern. Old files are read with the new schema: added columns
get their DEFAULT for rows loaded before (Doris fills the default), a dropped and re-added column
does not bring old values back, an outside reader (deltalake) sees the new schema, and a process
killed in the middle of an ALTER leaves the old schema.
"""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, NotSupportedError

from .conftest import delta, rows, run
from crashkit import killed_dorisql

pytestmark = pytest.mark.spark


def test_add_drop_readd_modify_and_loads(engine):
    run(
        engine,
        """CREATE TABLE t (k INT, v INT, s VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2;
        INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')""",
    )
    run(engine, "ALTER TABLE t ADD COLUMN c INT DEFAULT '7'")
    # rows of older files get the DEFAULT; a later load's NULL stays NULL
    run(engine, "INSERT INTO t VALUES (3, 30, 'c', NULL)")
    assert rows(engine, "SELECT k, c FROM t ORDER BY k") == [(1, 7), (2, 7), (3, None)]
    # outside reader: the new schema (older rows have no value in their files)
    assert delta(engine, "t").schema().to_arrow().names[:4] == ["k", "v", "s", "c"]

    run(engine, "ALTER TABLE t DROP COLUMN c")
    assert rows(engine, "SELECT * FROM t ORDER BY k") == [(1, 10, "a"), (2, 20, "b"), (3, 30, "c")]
    assert "c" not in delta(engine, "t").schema().to_arrow().names
    # added again: a new column, never the dropped one's values (row 3 had NULL in its file)
    run(engine, "ALTER TABLE t ADD COLUMN c INT DEFAULT '5' AFTER k")
    run(engine, "INSERT INTO t (k, v, s, c) VALUES (4, 40, 'd', 44)")
    assert rows(engine, "SELECT k, c FROM t ORDER BY k") == [(1, 5), (2, 5), (3, 5), (4, 44)]

    run(engine, "ALTER TABLE t MODIFY COLUMN v BIGINT")
    assert rows(engine, "SELECT sum(v) FROM t") == [(100,)]
    run(engine, "INSERT INTO t VALUES (5, 5, 9000000000, 'e')")
    assert rows(engine, "SELECT v FROM t WHERE k = 5") == [(9000000000,)]
    table = delta(engine, "t").to_pyarrow_table()
    assert table.schema.field("v").type.bit_width == 64 and sorted(table.column("v").to_pylist())[-1] == 9000000000

    run(engine, "ALTER TABLE t MODIFY COLUMN s COMMENT 'text'; ALTER TABLE t MODIFY COMMENT 'facts'")
    ddl = rows(engine, "SHOW CREATE TABLE t")[0][1]
    assert '`s` varchar(10) NULL COMMENT "text"' in ddl and "COMMENT 'facts'" in ddl
    assert [r[0] for r in rows(engine, "DESC t")] == ["k", "c", "v", "s"]

    jobs = run(engine, "SHOW ALTER TABLE COLUMN")
    assert jobs.columns[:4] == ["JobId", "TableName", "CreateTime", "FinishTime"]
    mine = [r for r in jobs.rows if r[1] == "t"]
    assert len(mine) == 4 and {r[9] for r in mine} == {"FINISHED"}
    assert [r[7] for r in mine] == ["1:0", "2:0", "3:0", "4:0"]


def test_refusals_change_nothing(engine):
    run(engine, "CREATE TABLE u (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    before = engine.catalog.load_table("d", "u")
    with pytest.raises(AnalysisError, match="Can not drop key column in Unique data model table"):
        run(engine, "ALTER TABLE u DROP COLUMN k")
    with pytest.raises(AnalysisError, match="Can not change INT to TINYINT"):
        run(engine, "ALTER TABLE u ADD COLUMN c INT, MODIFY COLUMN v TINYINT")
    with pytest.raises(NotSupportedError):  # Doris rewrites the data for INT -> VARCHAR; dorisql not yet
        run(engine, "ALTER TABLE u MODIFY COLUMN v VARCHAR(20)")
    after = engine.catalog.load_table("d", "u")
    assert after.definition == before.definition and after.schema_jobs == ()
    assert delta(engine, "u").schema().to_arrow().names[:2] == ["k", "v"]


def test_rename_column_keeps_data_and_merge_order(engine):
    run(
        engine,
        """CREATE TABLE r (k INT, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1;
        INSERT INTO r VALUES (1, 'old'), (2, 'two');
        INSERT INTO r VALUES (1, 'new')""",
    )
    run(engine, "ALTER TABLE r RENAME COLUMN v w")
    assert rows(engine, "SELECT k, w FROM r ORDER BY k") == [(1, "new"), (2, "two")]
    assert [r[0] for r in rows(engine, "DESC r")] == ["k", "w"]
    # outside reader: the new name, with the data (files rewritten in the same commit); the table
    # is merge-on-write, so (1, 'old') is no longer stored
    stored = delta(engine, "r").to_pyarrow_table(columns=["k", "w"]).to_pylist()
    assert sorted((x["k"], x["w"]) for x in stored) == [(1, "new"), (2, "two")]
    run(engine, "INSERT INTO r VALUES (2, 'later')")
    assert rows(engine, "SELECT k, w FROM r ORDER BY k") == [(1, "new"), (2, "later")]
    # the old name added again, of another type, is a new column: its DEFAULT, and the old
    # files' VARCHAR values under that name are never read
    run(engine, "ALTER TABLE r ADD COLUMN v INT DEFAULT '9'")
    assert rows(engine, "SELECT k, w, v FROM r ORDER BY k") == [(1, "new", 9), (2, "later", 9)]
    run(engine, "INSERT INTO r VALUES (3, 'three', 33)")
    assert rows(engine, "SELECT k, v FROM r WHERE k >= 2 ORDER BY k") == [(2, 9), (3, 33)]


def test_modify_partition(engine):
    run(
        engine,
        """CREATE TABLE p (k INT, v INT) DUPLICATE KEY(k)
        PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
        DISTRIBUTED BY HASH(k) BUCKETS 1""",
    )
    run(engine, "ALTER TABLE p MODIFY PARTITION p1 SET ('storage_medium' = 'SSD')")
    run(engine, "ALTER TABLE p MODIFY PARTITION (*) SET ('storage_cooldown_time' = '2999-01-01 00:00:00')")
    shown = run(engine, "SHOW PARTITIONS FROM p")
    medium, cooldown = shown.columns.index("StorageMedium"), shown.columns.index("CooldownTime")
    assert [(r[1], r[medium], r[cooldown]) for r in shown.rows] == [
        ("p1", "SSD", "2999-01-01 00:00:00"),
        ("p2", "HDD", "2999-01-01 00:00:00"),
    ]
    with pytest.raises(AnalysisError, match=r"Partition\[p9\] does not exist in table\[p\]"):
        run(engine, "ALTER TABLE p MODIFY PARTITION (p1, p9) SET ('storage_medium' = 'HDD')")
    with pytest.raises(AnalysisError, match="Not support set 'in_memory'='true' now!"):
        run(engine, "ALTER TABLE p MODIFY PARTITION p2 SET ('in_memory' = 'true')")
    with pytest.raises(AnalysisError, match="Unknown properties"):
        run(engine, "ALTER TABLE p MODIFY PARTITION p2 SET ('bucket_num' = '3')")


@pytest.mark.parametrize(
    "kill_at",
    ["before:dorisql.storage.delta:DeltaStore.change_schema", "after:dorisql.storage.delta:DeltaStore.change_schema"],
)
def test_killed_alter_leaves_the_old_schema(engine, kill_at):
    name = "k_before" if kill_at.startswith("before") else "k_after"
    run(engine, f"CREATE TABLE {name} (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(engine, f"INSERT INTO {name} VALUES (1, 10)")
    killed_dorisql(engine.warehouse, f"ALTER TABLE {name} ADD COLUMN c INT DEFAULT '3'", kill_at)
    meta = engine.catalog.load_table("d", name)
    assert [c.name for c in meta.definition.columns] == ["k", "v"] and meta.schema_jobs == ()
    assert rows(engine, f"SELECT * FROM {name}") == [(1, 10)]
    run(engine, f"INSERT INTO {name} VALUES (2, 20)")  # loads go on with the old schema
    # the retry finishes the change; every row older than it gets the DEFAULT
    run(engine, f"ALTER TABLE {name} ADD COLUMN c INT DEFAULT '3'")
    assert rows(engine, f"SELECT * FROM {name} ORDER BY k") == [(1, 10, 3), (2, 20, 3)]
    assert delta(engine, name).schema().to_arrow().names[:3] == ["k", "v", "c"]
