"""INSERT OVERWRITE: whole table, named partitions, PARTITION (*); one Delta commit of removes +
adds; a refused load leaves the old rows; a concurrent load into another partition is kept and a
concurrent DROP PARTITION of a target makes it fail cleanly (real Spark, real Delta)."""

from __future__ import annotations

import pytest

from dorisql.errors import CommitConflictError, LoadError
from dorisql.storage import delta as delta_mod

from .conftest import delta, rows, run, table_path

TABLE = """CREATE TABLE {name} (k INT NOT NULL, v VARCHAR(8)) DUPLICATE KEY(k)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20),
    PARTITION p3 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 2"""
SEED = "INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (11, 'c'), (21, 'd')"


def fresh(engine, name):
    run(engine, f"DROP TABLE IF EXISTS {name} FORCE; {TABLE.format(name=name)}; {SEED.format(name=name)}")


def content(engine, name):
    return rows(engine, f"SELECT k, v FROM {name} ORDER BY k")


def last_commit(engine, name):
    table = delta(engine, name)
    return table.version(), table.history(1)[0]


def actions(engine, name, version):
    """The kinds of action in one Delta commit file."""
    import json
    from pathlib import Path

    log = Path(table_path(engine, name)) / "_delta_log" / f"{version:020d}.json"
    return [next(iter(json.loads(line))) for line in log.read_text().splitlines() if line.strip()]


def test_overwrite_named_partition_is_one_commit_and_a_refused_row_keeps_the_old_rows(engine):
    fresh(engine, "t1")
    before, _ = last_commit(engine, "t1")
    assert run(engine, "INSERT OVERWRITE TABLE t1 PARTITION (p1) VALUES (3, 'x'), (4, 'y')").affected_rows == 2
    version, info = last_commit(engine, "t1")
    assert version == before + 1 and info["dorisql.operation"] == "dorisql INSERT OVERWRITE"
    assert set(actions(engine, "t1", version)) == {"add", "remove", "commitInfo"}
    assert content(engine, "t1") == [(3, "x"), (4, "y"), (11, "c"), (21, "d")]
    # an outside reader sees the same rows
    assert sorted(delta(engine, "t1").to_pyarrow_table().column("k").to_pylist()) == [3, 4, 11, 21]

    # Doris: rows outside the named partitions are filtered, so strict mode refuses the load
    with pytest.raises(LoadError, match="Insert has filtered data in strict mode") as err:
        run(engine, "INSERT OVERWRITE TABLE t1 PARTITION (p1) VALUES (5, 'z'), (15, 'out')")
    assert "its partition p2 is not one of PARTITION (p1)" in str(err.value)
    assert last_commit(engine, "t1")[0] == version
    assert content(engine, "t1") == [(3, "x"), (4, "y"), (11, "c"), (21, "d")]


def test_overwrite_whole_table_and_auto_detected_partitions(engine):
    fresh(engine, "t2")
    run(engine, "INSERT OVERWRITE TABLE t2 PARTITION (*) SELECT k + 1, 'n' FROM t2 WHERE k > 10")
    # (*): p2 and p3 (where the new rows fall) replaced, p1 untouched
    assert content(engine, "t2") == [(1, "a"), (2, "b"), (12, "n"), (22, "n")]
    run(engine, "INSERT OVERWRITE TABLE t2 (v, k) VALUES ('w', 25)")
    assert content(engine, "t2") == [(25, "w")]
    # an empty result still replaces the named partition (it becomes empty)
    run(engine, "INSERT OVERWRITE TABLE t2 PARTITION (p3) SELECT k, v FROM t2 WHERE k < 0")
    assert content(engine, "t2") == []
    with pytest.raises(Exception, match="Unknown partition 'px' in table 't2'"):
        run(engine, "INSERT OVERWRITE TABLE t2 PARTITION (px) VALUES (1, 'a')")


def _interleave(monkeypatch, action):
    """Run `action` (a real statement) once, right before the overwrite takes the commit lock."""
    done = []

    def interleaved(store, staged, overwrite):
        if overwrite and not done:
            done.append(True)
            action()

    monkeypatch.setattr(delta_mod, "before_commit", interleaved)


def test_concurrent_load_into_another_partition_is_kept(engine, make_engine, spark, monkeypatch):
    fresh(engine, "t3")
    other = make_engine(engine.warehouse, spark=spark)
    run(other, "USE d")
    _interleave(monkeypatch, lambda: run(other, "INSERT INTO t3 VALUES (12, 'load'), (5, 'p1load')"))
    run(engine, "INSERT OVERWRITE TABLE t3 PARTITION (p1) VALUES (3, 'x')")
    # the load's row in p2 stays; its row in p1 committed before the overwrite, which replaced it
    assert content(engine, "t3") == [(3, "x"), (11, "c"), (12, "load"), (21, "d")]


def test_concurrent_drop_of_a_target_partition_fails_the_overwrite(engine, make_engine, spark, monkeypatch):
    fresh(engine, "t4")
    other = make_engine(engine.warehouse, spark=spark)
    run(other, "USE d")
    _interleave(monkeypatch, lambda: run(other, "ALTER TABLE t4 DROP PARTITION p2 FORCE"))
    with pytest.raises(CommitConflictError, match="Partition p2 of table 't4' was dropped or replaced while loading"):
        run(engine, "INSERT OVERWRITE TABLE t4 PARTITION (p1, p2) VALUES (3, 'x'), (13, 'y')")
    assert content(engine, "t4") == [(1, "a"), (2, "b"), (21, "d")]
    assert run(engine, "ADMIN CHECK TABLE t4").rows == []
