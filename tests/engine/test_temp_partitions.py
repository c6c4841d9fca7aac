"""Temporary partitions on real Spark and Delta: ADD / DROP / INSERT / SELECT / SHOW TEMPORARY
PARTITIONS, REPLACE PARTITION (strict_range, use_temp_partition_name), TRUNCATE."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, LoadError

from .conftest import rows, run

RANGE = """CREATE TABLE r (k INT NOT NULL, v VARCHAR(8)) DUPLICATE KEY(k)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20),
    PARTITION p3 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 2;
    INSERT INTO r VALUES (1, 'a'), (11, 'b'), (21, 'c')"""
LIST = """CREATE TABLE l (city VARCHAR(8) NOT NULL, n INT) DUPLICATE KEY(city)
    PARTITION BY LIST(city) (PARTITION p_a VALUES IN ('a1', 'a2'), PARTITION p_b VALUES IN ('b1'))
    DISTRIBUTED BY HASH(city) BUCKETS 1;
    INSERT INTO l VALUES ('a1', 1), ('b1', 2)"""


def names(engine, sql):
    return [r[1] for r in rows(engine, sql)]


def test_range_temporary_partitions_load_read_and_replace(engine):
    run(engine, RANGE)
    # may overlap formal partitions, not each other
    run(engine, "ALTER TABLE r ADD TEMPORARY PARTITION tp1 VALUES LESS THAN (20)")
    run(engine, "ALTER TABLE r ADD TEMPORARY PARTITION tp3 VALUES [(20), (30))")
    with pytest.raises(AnalysisError, match=r"^Range \[.*keys: \[15\].*\) is intersected with range: \[.*keys: \[20\]"):
        run(engine, "ALTER TABLE r ADD TEMPORARY PARTITION tpx VALUES [(15), (25))")
    with pytest.raises(AnalysisError, match="^Duplicate partition name p1$"):
        run(engine, "ALTER TABLE r ADD TEMPORARY PARTITION p1 VALUES [(40), (50))")
    with pytest.raises(AnalysisError, match="^Duplicate partition name tp1$"):
        run(engine, "ALTER TABLE r ADD PARTITION tp1 VALUES LESS THAN (40)")

    run(engine, "INSERT INTO r TEMPORARY PARTITION (tp1) VALUES (5, 'n5'), (15, 'n15')")
    with pytest.raises(LoadError, match="Insert has filtered data in strict mode"):
        run(engine, "INSERT INTO r TEMPORARY PARTITION (tp1) VALUES (25, 'no')")
    with pytest.raises(AnalysisError, match="Unknown partition 'p1' in table 'r'"):
        run(engine, "INSERT INTO r TEMPORARY PARTITION (p1) VALUES (1, 'no')")
    # invisible to ordinary queries and SHOW PARTITIONS; read by name
    assert rows(engine, "SELECT k FROM r ORDER BY k") == [(1,), (11,), (21,)]
    assert rows(engine, "SELECT k, v FROM r TEMPORARY PARTITION (tp1) ORDER BY k") == [(5, "n5"), (15, "n15")]
    assert names(engine, "SHOW PARTITIONS FROM r") == ["p1", "p2", "p3"]
    shown = rows(engine, "SHOW TEMPORARY PARTITIONS FROM r")
    assert [(r[1], r[-1]) for r in shown] == [("tp1", 2), ("tp3", 0)]

    # strict_range (default): the ranges must be the same keys
    with pytest.raises(AnalysisError, match=r"^2 range lists are not stricly matched\. "):
        run(engine, "ALTER TABLE r REPLACE PARTITION (p2) WITH TEMPORARY PARTITION (tp1)")
    run(engine, "ALTER TABLE r REPLACE PARTITION (p1, p2) WITH TEMPORARY PARTITION (tp1)")
    assert names(engine, "SHOW PARTITIONS FROM r") == ["tp1", "p3"]  # counts differ: temporary names
    assert rows(engine, "SELECT k, v FROM r ORDER BY k") == [(5, "n5"), (15, "n15"), (21, "c")]
    assert names(engine, "SHOW TEMPORARY PARTITIONS FROM r") == ["tp3"]

    # strict_range false: only no overlap with the partitions that stay; same count: old names
    run(engine, "INSERT INTO r TEMPORARY PARTITION (tp3) VALUES (22, 'n22')")
    with pytest.raises(AnalysisError, match=r"^Temp partition\[tpx\] does not exist$"):
        run(engine, "ALTER TABLE r REPLACE PARTITION (p3) WITH TEMPORARY PARTITION (tpx)")
    run(
        engine,
        "ALTER TABLE r REPLACE PARTITION (p3) WITH TEMPORARY PARTITION (tp3) PROPERTIES ('strict_range' = 'false')",
    )
    assert names(engine, "SHOW PARTITIONS FROM r") == ["tp1", "p3"]
    assert rows(engine, "SELECT k FROM r ORDER BY k") == [(5,), (15,), (22,)]
    assert run(engine, "ADMIN CHECK TABLE r").rows == []


def test_list_temporary_partitions_use_temp_name_drop_and_truncate(engine):
    run(engine, LIST)
    run(engine, "ALTER TABLE l ADD TEMPORARY PARTITION t1 VALUES IN ('a1', 'a2')")
    with pytest.raises(AnalysisError, match="Invalid list value format"):
        run(engine, "ALTER TABLE l ADD TEMPORARY PARTITION t2 VALUES IN ('a2')")
    run(engine, "ALTER TABLE l ADD TEMPORARY PARTITION t2 VALUES IN ('b1', 'b2')")
    run(engine, "INSERT INTO l TEMPORARY PARTITION (t1, t2) VALUES ('a2', 20), ('b2', 30)")
    with pytest.raises(
        AnalysisError, match=r"^The partition key\[\(\"a1\"\)\] is overlap with current \[types: \[VARCHAR\]"
    ):
        run(
            engine,
            "ALTER TABLE l REPLACE PARTITION (p_b) WITH TEMPORARY PARTITION (t1) PROPERTIES ('strict_range' = 'false')",
        )
    run(
        engine,
        "ALTER TABLE l REPLACE PARTITION (p_b) WITH TEMPORARY PARTITION (t2) "
        "PROPERTIES ('strict_range' = 'false', 'use_temp_partition_name' = 'true')",
    )
    assert names(engine, "SHOW PARTITIONS FROM l") == ["p_a", "t2"]
    assert rows(engine, "SELECT city, n FROM l ORDER BY city") == [("a1", 1), ("b2", 30)]

    with pytest.raises(AnalysisError, match="^Error in list of partitions to nope$"):
        run(engine, "ALTER TABLE l DROP TEMPORARY PARTITION nope")
    run(engine, "ALTER TABLE l DROP TEMPORARY PARTITION t1")
    assert names(engine, "SHOW TEMPORARY PARTITIONS FROM l") == []
    run(engine, "ALTER TABLE l ADD TEMPORARY PARTITION t3 VALUES IN ('a1')")
    run(engine, "INSERT INTO l TEMPORARY PARTITION (t3) VALUES ('a1', 7)")
    run(engine, "TRUNCATE TABLE l")  # Doris: truncating the whole table drops its temporary partitions
    assert names(engine, "SHOW TEMPORARY PARTITIONS FROM l") == []
    assert rows(engine, "SELECT count(*) FROM l") == [(0,)]
    assert run(engine, "ADMIN CHECK TABLE l").rows == []


def test_column_changes_wait_for_temp_partitions_and_recover_table_keeps_them(engine):
    """Doris: column changes are refused while the table has temporary partitions
    (SchemaChangeHandler); DROP TABLE recycles the whole table, temporary partitions included,
    so RECOVER TABLE brings their rows back (catalog_recycle_bin_p0/test_temp_partitions_table)."""
    run(engine, RANGE.replace("TABLE r", "TABLE rt").replace("INTO r", "INTO rt"))
    run(engine, "ALTER TABLE rt ADD TEMPORARY PARTITION tp VALUES LESS THAN (10)")
    run(engine, "INSERT INTO rt TEMPORARY PARTITION (tp) VALUES (7, 'tmp')")
    with pytest.raises(AnalysisError, match="^Can not alter table when there are temp partitions in table$"):
        run(engine, "ALTER TABLE rt ADD COLUMN c INT")
    run(engine, "ALTER TABLE rt MODIFY COLUMN v COMMENT 'allowed'")  # comments are not column changes
    run(engine, "DROP TABLE rt")
    run(engine, "RECOVER TABLE rt AS rt2")
    assert names(engine, "SHOW TEMPORARY PARTITIONS FROM rt2") == ["tp"]
    assert rows(engine, "SELECT k, v FROM rt2 TEMPORARY PARTITION (tp)") == [(7, "tmp")]
    assert rows(engine, "SELECT k, v FROM rt2 ORDER BY k") == [(1, "a"), (11, "b"), (21, "c")]
    assert run(engine, "ADMIN CHECK TABLE rt2").rows == []
    with pytest.raises(AnalysisError, match="^Can not alter table when there are temp partitions in table$"):
        run(engine, "ALTER TABLE rt2 ADD COLUMN c INT")
    run(engine, "ALTER TABLE rt2 DROP TEMPORARY PARTITION tp")
    run(engine, "ALTER TABLE rt2 ADD COLUMN c INT")
    assert run(engine, "ADMIN CHECK TABLE rt2").rows == []
