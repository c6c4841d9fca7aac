"""Merge-on-write UNIQUE KEY tables (Doris 2.1's default): each load removes the rows it
supersedes in its own Delta commit, so dorisql and an outside Delta reader see one row per key,
and the rows are Doris's: the same as a merge-on-read table's after the same statements."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from deltalake import DeltaTable

from dorisql.compaction import service
from dorisql.errors import DorisqlError
from dorisql.storage import delta as delta_mod
from dorisql.tablets import merge_on_write

from .conftest import rows, run, table_path
from .test_commit_order import _load_paused_before_commit

DDL = """CREATE TABLE {name} (k INT NOT NULL, s VARCHAR(8) NULL, v INT) UNIQUE KEY(k, s)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (100), PARTITION p2 VALUES LESS THAN (10000))
    DISTRIBUTED BY HASH(k) BUCKETS 2 {properties}"""
MOR = 'PROPERTIES ("enable_unique_key_merge_on_write" = "false")'


def ordered(found) -> list[tuple]:
    return sorted(found, key=lambda r: (r[0], r[1] or "", r[2]))


def outside(engine, table: str) -> list[tuple]:
    """The table's rows as an outside Delta reader (deltalake) sees them."""
    got = DeltaTable(table_path(engine, table)).to_pyarrow_table(columns=["k", "s", "v"]).to_pylist()
    return ordered((r["k"], r["s"], r["v"]) for r in got)


def both(engine, sql: str) -> None:
    """Run `sql` (naming the table `{t}`) on the merge-on-write and the merge-on-read table."""
    for name in ("mow", "mor"):
        run(engine, sql.replace("{t}", name))


def same_rows(engine) -> list[tuple]:
    """mow's rows equal mor's (Doris's), through dorisql, and an outside reader sees just them."""
    seen = ordered(rows(engine, "SELECT k, s, v FROM mow"))
    assert seen == ordered(rows(engine, "SELECT k, s, v FROM mor"))
    assert outside(engine, "mow") == seen
    return seen


@pytest.fixture(scope="module")
def tables(engine):
    run(engine, DDL.format(name="mow", properties=""))
    run(engine, DDL.format(name="mor", properties=MOR))
    run(engine, "CREATE TABLE src (k INT, s VARCHAR(8), v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3")
    assert engine.catalog.load_table("d", "mow").merge_on_write
    assert not engine.catalog.load_table("d", "mor").merge_on_write
    yield
    run(engine, 'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "33554432")')


def test_loads_of_the_same_keys_keep_the_latest_row_on_disk(engine, tables):
    # one load repeating a key (the last row wins), a NULL key column (NULL equals NULL)
    both(
        engine,
        "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 1), (1, 'a', 2), (3, NULL, 1), (3, NULL, 2), (150, 'x', 1)",
    )
    assert same_rows(engine) == [(1, "a", 2), (2, "b", 1), (3, None, 2), (150, "x", 1)]
    both(engine, "INSERT INTO {t} VALUES (2, 'b', 3), (3, NULL, 3), (4, 'd', 3)")
    assert same_rows(engine) == [(1, "a", 2), (2, "b", 3), (3, None, 3), (4, "d", 3), (150, "x", 1)]
    # INSERT ... SELECT, small (collected, pyarrow) and then large (Spark's write), both partitions
    run(engine, "INSERT INTO src SELECT number % 300, 'q', number FROM numbers('number' = '600')")
    both(engine, "INSERT INTO {t} SELECT k, s, v FROM src WHERE k < 200")
    same_rows(engine)
    run(engine, 'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "0")')
    both(engine, "INSERT INTO {t} SELECT k, s, v + 1000 FROM src")
    both(engine, "INSERT INTO {t} SELECT k, 'a', 7 FROM src WHERE k < 5")
    seen = same_rows(engine)
    run(engine, 'ADMIN SET FRONTEND CONFIG ("small_load_max_bytes" = "33554432")')
    assert (
        len(seen) == len({(k, s) for k, s, _ in seen}) == 300 + 5 + 4
    )  # 'q' keys, 'a' keys 0-4, (2,'b') (3,NULL) (4,'d') (150,'x')
    assert (7, "q", 1307) in seen and (1, "a", 7) in seen
    # INSERT OVERWRITE of a partition with a repeated key
    both(engine, "INSERT OVERWRITE TABLE {t} PARTITION (p1) VALUES (5, 'e', 1), (5, 'e', 2)")
    assert [r for r in same_rows(engine) if r[0] < 100] == [(5, "e", 2)]
    # a read merges nothing: EXPLAIN shows no merge for the merge-on-write table
    assert "merge:" not in "\n".join(r[0] for r in rows(engine, "EXPLAIN SELECT * FROM mow"))
    assert "merge: UNIQUE KEY" in "\n".join(r[0] for r in rows(engine, "EXPLAIN SELECT * FROM mor"))


def test_delete_by_a_value_column_and_compaction(engine, tables):
    both(engine, "TRUNCATE TABLE {t}")
    both(engine, "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 1), (200, 'd', 1)")
    both(engine, "INSERT INTO {t} VALUES (1, 'a', 2), (3, 'c', 5)")
    # Doris takes any predicate on a merge-on-write table: rows whose current value matches go
    both(engine, "DELETE FROM {t} WHERE v = 2")
    assert ordered(rows(engine, "SELECT k, s, v FROM mow")) == [(3, "c", 5), (200, "d", 1)]
    # (both a key delete, as Doris's delete-sign load; an outside reader sees the rows until compaction)
    assert ordered(rows(engine, "SELECT k, s, v FROM mor")) == [(3, "c", 5), (200, "d", 1)]
    both(engine, "INSERT INTO {t} VALUES (1, 'a', 9)")  # a later load of a deleted key is visible
    assert ordered(rows(engine, "SELECT k, s, v FROM mow")) == [(1, "a", 9), (3, "c", 5), (200, "d", 1)]
    # compaction packs the files and drops the deleted rows; results unchanged
    service.full_compaction(engine, engine.catalog.load_table("d", "mow"))
    assert ordered(rows(engine, "SELECT k, s, v FROM mow")) == [(1, "a", 9), (3, "c", 5), (200, "d", 1)]
    assert outside(engine, "mow") == [(1, "a", 9), (3, "c", 5), (200, "d", 1)]
    both(engine, "INSERT INTO {t} VALUES (3, 'c', 6)")
    assert same_rows(engine) == [(1, "a", 9), (3, "c", 6), (200, "d", 1)]


def test_transaction_inserts_of_the_same_key(engine, tables):
    both(engine, "TRUNCATE TABLE {t}")
    both(engine, "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 1)")
    run(engine, "BEGIN; INSERT INTO mow VALUES (1, 'a', 10), (3, 'c', 10); INSERT INTO mow VALUES (1, 'a', 20)")
    assert outside(engine, "mow") == [(1, "a", 1), (2, "b", 1)]  # nothing visible before COMMIT
    run(engine, "COMMIT")
    assert ordered(rows(engine, "SELECT k, s, v FROM mow")) == [(1, "a", 20), (2, "b", 1), (3, "c", 10)]
    assert outside(engine, "mow") == [(1, "a", 20), (2, "b", 1), (3, "c", 10)]


def test_a_table_of_an_older_dorisql_stays_merge_on_read(engine, tables):
    """A UNIQUE table an earlier dorisql created carries the property but merge-on-read files:
    without the catalog's marker it keeps merging on read."""
    run(engine, DDL.format(name="old", properties=""))
    engine.catalog.update_table("d", "old", lambda m: dataclasses.replace(m, merge_on_write=False))
    run(engine, "INSERT INTO old VALUES (1, 'a', 1); INSERT INTO old VALUES (1, 'a', 2)")
    assert rows(engine, "SELECT k, s, v FROM old") == [(1, "a", 2)]
    assert outside(engine, "old") == [(1, "a", 1), (1, "a", 2)]  # both versions on disk


def test_racing_loads_and_delete_resolve_in_commit_order(engine, spark, make_engine, tables, monkeypatch):
    both(engine, "TRUNCATE TABLE {t}")
    run(engine, "INSERT INTO mow VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0)")
    other = make_engine(engine.warehouse, spark=spark)  # a second session on the same warehouse
    other.execute_sql("USE d")
    # the first load pauses before its commit; another load of the same keys and a DELETE commit
    resume, finish = _load_paused_before_commit(monkeypatch, engine, "INSERT INTO mow VALUES (1, 'a', 1), (2, 'b', 1)")
    other.execute_sql("INSERT INTO mow VALUES (1, 'a', 2), (3, 'c', 2)")
    other.execute_sql("DELETE FROM mow WHERE v = 0")  # (2, 'b', 0) goes; the paused load's rows come later
    monkeypatch.setattr(delta_mod, "before_commit", None)
    resume()
    finish()
    expected = [(1, "a", 1), (2, "b", 1), (3, "c", 2)]
    assert ordered(rows(engine, "SELECT k, s, v FROM mow")) == expected
    assert outside(engine, "mow") == expected
    # a compaction between a paused load's write and its commit: the load looks up the output
    resume, finish = _load_paused_before_commit(monkeypatch, engine, "INSERT INTO mow VALUES (1, 'a', 3)")
    service.full_compaction(other, other.catalog.load_table("d", "mow"))
    monkeypatch.setattr(delta_mod, "before_commit", None)
    resume()
    finish()
    expected = [(1, "a", 3), (2, "b", 1), (3, "c", 2)]
    assert ordered(rows(engine, "SELECT k, s, v FROM mow")) == expected
    assert outside(engine, "mow") == expected
    other.close()


@pytest.mark.parametrize("at", ["looked up", "copied"])
def test_a_failure_under_the_lock_changes_nothing(engine, tables, monkeypatch, at):
    both(engine, "TRUNCATE TABLE {t}")
    run(engine, "INSERT INTO mow VALUES (1, 'a', 0), (2, 'b', 0)")
    folder = Path(table_path(engine, "mow"))
    version, files_before = DeltaTable(str(folder)).version(), set(folder.rglob("*.parquet"))

    def fail(step):
        if step == at:
            raise OSError(f"disk gone at {step}")

    monkeypatch.setattr(merge_on_write, "step", fail)
    with pytest.raises((DorisqlError, OSError)):
        run(engine, "INSERT INTO mow VALUES (1, 'a', 5)")
    monkeypatch.setattr(merge_on_write, "step", None)
    assert DeltaTable(table_path(engine, "mow")).version() == version
    assert ordered(rows(engine, "SELECT k, s, v FROM mow")) == [(1, "a", 0), (2, "b", 0)]
    # the load's files and the copies are gone again: nothing left behind
    assert set(folder.rglob("*.parquet")) == files_before
