"""The catalog recycle bin and the trash, on real Spark and real Delta tables.

DROP DATABASE / TABLE / PARTITION then RECOVER gives back exactly the rows (what dorisql answers
and what an outside Delta reader sees); after the retention period, on the engine's injected
clock, the data is gone from disk; FORCE skips the bin; a table under repeated loads, drops and
truncates stays bounded on disk while the trash job runs.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dorisql.errors import AlreadyExistsError, AnalysisError, CatalogError, CommitConflictError, UnknownTableError

from .conftest import delta, parquet_files_on_disk, partition_key, rows, run, table_path

TABLE = """CREATE TABLE {name} (k INT, v VARCHAR(10), n BIGINT) UNIQUE KEY(k)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20),
                           PARTITION p3 VALUES LESS THAN (30))
    DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("enable_unique_key_merge_on_write" = "false")"""
# (merge-on-read: the tests count a partition's files on disk as its data; a merge-on-write table's
# folders also hold the files its loads superseded, until the trash pass deletes them)

#: Three loads; the later ones update keys of the first, so merge order (commit order) matters.
LOADS = (
    "INSERT INTO {name} VALUES (1, 'a', 1), (11, 'b', 1), (12, 'c', 1), (21, 'd', 1)",
    "INSERT INTO {name} VALUES (11, 'b2', 2), (13, 'e', 2), (22, 'f', 2)",
    "INSERT INTO {name} VALUES (12, 'c3', 3), (2, 'g', 3)",
)


@pytest.fixture
def engine(spark, tmp_path, make_engine):
    eng = make_engine(tmp_path / "wh", spark=spark)
    eng.execute_sql("CREATE DATABASE d; USE d")
    yield eng
    eng.close()


def make_table(engine, name: str = "t", db: str = "d") -> None:
    run(engine, TABLE.format(name=f"{db}.{name}"))
    for load in LOADS:
        run(engine, load.format(name=f"{db}.{name}"))


def query(engine, name: str = "t", db: str = "d") -> list[tuple]:
    return rows(engine, f"SELECT k, v, n FROM {db}.{name} ORDER BY k")


def stored(engine, name: str = "t", db: str = "d") -> list[tuple]:
    """Every stored row as an outside Delta reader sees it, with its Delta partition value."""
    table = delta(engine, name, db).to_pyarrow_table(columns=["k", "v", "n", "__partition", "__bucket"])
    return sorted(tuple(r.values()) for r in table.to_pylist())


def recycle_bin(engine, where: str = "") -> list[tuple]:
    return rows(engine, "SHOW CATALOG RECYCLE BIN" + where)


def at(engine, when: dt.datetime) -> None:
    run(engine, f"SET dorisql_now = '{when:%Y-%m-%d %H:%M:%S}'")


def real_now() -> dt.datetime:
    return dt.datetime.now().replace(microsecond=0)


def files_of(engine, folder: str, key: str) -> set[str]:
    return {f for f in parquet_files_on_disk(folder) if f.startswith(f"__partition={key}/")}


# --------------------------------------------------------------------------- partitions


def test_drop_partition_then_recover_gives_back_exactly_the_rows(engine):
    make_table(engine)
    before, before_stored = query(engine), stored(engine)
    key = partition_key(engine, "t", "p2")
    version = {r[1]: r[2] for r in rows(engine, "SHOW PARTITIONS FROM t")}["p2"]
    folder = table_path(engine, "t")
    p2_files = files_of(engine, folder, key)
    assert p2_files

    run(engine, "ALTER TABLE t DROP PARTITION p2")
    assert query(engine) == [r for r in before if not 10 <= r[0] < 20]
    assert stored(engine) == [r for r in before_stored if r[3] != key]  # the Delta log removed them
    assert files_of(engine, folder, key) == p2_files  # ... and the files wait on disk
    meta = engine.catalog.load_table("d", "t")
    [row] = recycle_bin(engine)
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in p2_files)
    assert row[:5] == ("Partition", "p2", engine.catalog.get_database("d").id, meta.id, int(key))
    assert row[6:] == (size, 0)

    run(engine, "RECOVER PARTITION p2 FROM t")
    assert query(engine) == before
    assert stored(engine) == before_stored
    assert {r[1]: r[2] for r in rows(engine, "SHOW PARTITIONS FROM t")}["p2"] == version
    assert recycle_bin(engine) == []
    # The recovered partition takes loads as before; the later commit wins the key.
    run(engine, "INSERT INTO t VALUES (11, 'new', 4)")
    assert (11, "new", 4) in query(engine)


def test_truncate_recycles_the_old_partitions_and_force_does_not(engine):
    """Doris's truncateTable: each truncated partition is replaced by a new, empty one (a new id,
    VisibleVersion 1) and the old one goes into the recycle bin; the whole table also recycles
    its temporary partitions. With FORCE nothing is recycled and empty partitions are left alone."""
    make_table(engine)
    before, before_stored = query(engine), stored(engine)
    old_key = partition_key(engine, "t", "p2")
    folder = table_path(engine, "t")
    p2_files = files_of(engine, folder, old_key)

    run(engine, "TRUNCATE TABLE t PARTITION (p2)")
    assert query(engine) == [r for r in before if not 10 <= r[0] < 20]
    new_key = partition_key(engine, "t", "p2")
    assert new_key != old_key and files_of(engine, folder, old_key) == p2_files
    assert {r[1]: r[2] for r in rows(engine, "SHOW PARTITIONS FROM t")}["p2"] == 1
    [row] = recycle_bin(engine)
    assert row[:2] == ("Partition", "p2") and row[4] == int(old_key)
    with pytest.raises(CatalogError, match=r"^partition\[p2\] already exist in table\[t\]$"):
        run(engine, "RECOVER PARTITION p2 FROM t")
    run(engine, "INSERT INTO t VALUES (15, 'after', 5)")  # the new partition takes loads
    run(engine, "ALTER TABLE t DROP PARTITION p2 FORCE")
    run(engine, "RECOVER PARTITION p2 FROM t")
    assert query(engine) == before and stored(engine) == before_stored
    assert run(engine, "ADMIN CHECK TABLE t").rows == []

    # The whole table, with a temporary partition: everything recycled, rows and all.
    run(engine, "ALTER TABLE t ADD TEMPORARY PARTITION tp VALUES LESS THAN (10)")
    run(engine, "INSERT INTO t TEMPORARY PARTITION (tp) VALUES (7, 'tmp', 7)")
    run(engine, "TRUNCATE TABLE t")
    assert query(engine) == [] and rows(engine, "SHOW TEMPORARY PARTITIONS FROM t") == []
    assert sorted(r[1] for r in recycle_bin(engine)) == ["p1", "p2", "p3", "tp"]
    run(engine, "ALTER TABLE t DROP PARTITION p1 FORCE")
    run(engine, "RECOVER PARTITION tp AS p1 FROM t")  # a recycled temporary partition comes back as a formal one
    assert query(engine) == [(7, "tmp", 7)]

    # FORCE: the old partitions skip the bin; an empty partition keeps its id.
    empty_key = partition_key(engine, "t", "p3")
    bin_before = recycle_bin(engine)
    run(engine, "TRUNCATE TABLE t FORCE")
    assert query(engine) == [] and recycle_bin(engine) == bin_before
    assert partition_key(engine, "t", "p3") == empty_key
    assert run(engine, "ADMIN CHECK TABLE t").rows == []


def test_replace_partition_recycles_the_replaced_ones_unless_force(engine):
    """Doris's OlapTable.replaceTempPartitions: without FORCE the replaced formal partition goes
    into the recycle bin (rows, id and all) while the temporary one takes its name; RECOVER then
    needs the name free. With FORCE nothing is recycled."""
    make_table(engine)
    before, before_stored = query(engine), stored(engine)
    old_key = partition_key(engine, "t", "p2")
    folder = table_path(engine, "t")
    p2_files = files_of(engine, folder, old_key)

    run(engine, "ALTER TABLE t ADD TEMPORARY PARTITION tp VALUES [(10), (20))")
    run(engine, "INSERT INTO t TEMPORARY PARTITION (tp) VALUES (15, 'tmp', 9)")
    run(engine, "ALTER TABLE t REPLACE PARTITION (p2) WITH TEMPORARY PARTITION (tp)")
    assert query(engine) == sorted([r for r in before if not 10 <= r[0] < 20] + [(15, "tmp", 9)])
    assert partition_key(engine, "t", "p2") != old_key and files_of(engine, folder, old_key) == p2_files
    [row] = recycle_bin(engine)
    assert row[:2] == ("Partition", "p2") and row[4] == int(old_key) and row[6] > 0  # DataSize: its files
    with pytest.raises(CatalogError, match=r"^partition\[p2\] already exist in table\[t\]$"):
        run(engine, "RECOVER PARTITION p2 FROM t")
    run(engine, "ALTER TABLE t DROP PARTITION p2 FORCE")
    run(engine, "RECOVER PARTITION p2 FROM t")
    assert query(engine) == before and stored(engine) == before_stored
    assert run(engine, "ADMIN CHECK TABLE t").rows == []

    # FORCE: the replaced partition's files become ordinary removed files, the bin is unchanged.
    run(engine, "ALTER TABLE t ADD TEMPORARY PARTITION tq VALUES [(20), (30))")
    run(engine, "ALTER TABLE t REPLACE PARTITION (p3) WITH TEMPORARY PARTITION (tq) FORCE")
    assert query(engine) == [r for r in before if r[0] < 20] and recycle_bin(engine) == []
    assert run(engine, "ADMIN CHECK TABLE t").rows == []


def test_insert_overwrite_recycles_nothing_as_current_doris(engine):
    """Current Doris (apache/doris#62510, 2026: InsertOverwriteUtil.replacePartition with
    isForce = true) drops the partitions an INSERT OVERWRITE replaces without the recycle bin:
    whole table, named partitions and PARTITION (*) alike. RECOVER then finds nothing."""
    make_table(engine)
    run(engine, "INSERT OVERWRITE TABLE t VALUES (3, 'x', 1)")
    run(engine, "INSERT OVERWRITE TABLE t PARTITION (p1) VALUES (4, 'y', 1)")
    run(engine, "INSERT OVERWRITE TABLE t PARTITION (*) VALUES (5, 'z', 1)")
    assert query(engine) == [(5, "z", 1)] and recycle_bin(engine) == []
    run(engine, "ALTER TABLE t DROP PARTITION p2 FORCE")  # RECOVER asks for a free name first, as Doris
    with pytest.raises(CatalogError, match=r"^No partition named 'p2' or partition id '-1' in table t$"):
        run(engine, "RECOVER PARTITION p2 FROM t")
    assert run(engine, "ADMIN CHECK TABLE t").rows == []


def test_recover_partition_by_id_name_taken_and_range_conflicts(engine):
    make_table(engine)
    first = query(engine)
    run(engine, "ALTER TABLE t DROP PARTITION p1")
    run(engine, "ALTER TABLE t ADD PARTITION p1 VALUES LESS THAN (10)")
    run(engine, "INSERT INTO t VALUES (5, 'second', 9)")
    run(engine, "ALTER TABLE t DROP PARTITION p1")
    first_id, second_id = [r[4] for r in recycle_bin(engine)]

    run(engine, "ALTER TABLE t ADD PARTITION p1 VALUES [(0), (5))")
    with pytest.raises(CatalogError, match=r"^partition\[p1\] already exist in table\[t\]$"):
        run(engine, "RECOVER PARTITION p1 FROM t")
    with pytest.raises(CatalogError, match=r"^Can not recover partition\[p1\]\. Partition item conflict\.$"):
        run(engine, "RECOVER PARTITION p1 AS p1_old FROM t")
    with pytest.raises(CatalogError, match=r"^No partition named 'p9' or partition id '-1' in table t$"):
        run(engine, "RECOVER PARTITION p9 FROM t")
    with pytest.raises(CatalogError, match=rf"^No partition named 'p1' or partition id '{first_id + 1000}'"):
        run(engine, f"RECOVER PARTITION p1 {first_id + 1000} AS p1_old FROM t")
    with pytest.raises(UnknownTableError, match="Unknown table 'nope'"):
        run(engine, "RECOVER PARTITION p1 FROM nope")
    before_failures = stored(engine)

    run(engine, "ALTER TABLE t DROP PARTITION p1 FORCE")  # not into the bin
    assert [r[4] for r in recycle_bin(engine)] == [first_id, second_id]
    run(engine, f"RECOVER PARTITION p1 {first_id} AS p1_first FROM t")  # by id: the older one
    assert query(engine) == first
    assert [r[4] for r in recycle_bin(engine)] == [second_id]
    assert len(stored(engine)) == len(before_failures) + 2  # keys 1 and 2 of the first p1


def test_recover_partition_is_safe_to_retry_after_a_crash_between_its_commits(engine, monkeypatch):
    """The process dies after RECOVER PARTITION's Delta commit, before its catalog commit."""
    from dorisql.storage.delta import DeltaStore

    make_table(engine)
    before, before_stored = query(engine), stored(engine)
    run(engine, "ALTER TABLE t DROP PARTITION p2")
    dropped = stored(engine)
    real_restore = DeltaStore.restore_files

    class Crash(BaseException):
        pass

    def restore_then_die(self, *args, **kwargs):
        real_restore(self, *args, **kwargs)
        raise Crash()

    monkeypatch.setattr(DeltaStore, "restore_files", restore_then_die)
    with pytest.raises(Crash):
        run(engine, "RECOVER PARTITION p2 FROM t")
    monkeypatch.undo()
    # Half done: the files are back in the Delta log, the catalog does not list p2 (so dorisql
    # does not show its rows) and p2 is still in the recycle bin.
    assert stored(engine) == before_stored
    assert query(engine) == [r for r in before if not 10 <= r[0] < 20]
    assert [r[1] for r in recycle_bin(engine)] == ["p2"]
    # The next access to the table (here the trash job) undoes the half: back to "dropped".
    run(engine, "ADMIN CLEAN TRASH")
    assert stored(engine) == dropped
    assert [r[1] for r in recycle_bin(engine)] == ["p2"]
    # The retry does both steps.
    run(engine, "RECOVER PARTITION p2 FROM t")
    assert query(engine) == before and stored(engine) == before_stored

    # A retry straight after the crash works too (it settles the table first).
    run(engine, "ALTER TABLE t DROP PARTITION p3")
    monkeypatch.setattr(DeltaStore, "restore_files", restore_then_die)
    with pytest.raises(Crash):
        run(engine, "RECOVER PARTITION p3 FROM t")
    monkeypatch.undo()
    run(engine, "RECOVER PARTITION p3 FROM t")
    assert query(engine) == before and stored(engine) == before_stored


def test_a_drop_partition_that_crashed_before_its_delta_commit_is_recoverable(engine, monkeypatch):
    """The process dies after DROP PARTITION's catalog commit (partition in the bin), before its
    Delta removes: the bin entry already lists the files, and RECOVER settles the table first."""
    from dorisql.storage.delta import DeltaStore

    make_table(engine)
    before, before_stored = query(engine), stored(engine)

    class Crash(BaseException):
        pass

    def die(self, *args, **kwargs):
        raise Crash()

    monkeypatch.setattr(DeltaStore, "drop_partitions", die)
    with pytest.raises(Crash):
        run(engine, "ALTER TABLE t DROP PARTITION p2")
    monkeypatch.undo()
    assert [r[1] for r in recycle_bin(engine)] == ["p2"]
    assert stored(engine) == before_stored  # the Delta removes never happened
    run(engine, "RECOVER PARTITION p2 FROM t")
    assert query(engine) == before and stored(engine) == before_stored


def test_a_recover_partition_whose_catalog_commit_fails_changes_nothing(engine, monkeypatch):
    make_table(engine)
    run(engine, "ALTER TABLE t DROP PARTITION p2")
    dropped, shown = stored(engine), query(engine)
    real_update = engine.catalog.update_table

    def conflicting(*args, **kwargs):
        if kwargs.get("restore") is not None:
            raise CommitConflictError("another session changed the table")
        return real_update(*args, **kwargs)

    monkeypatch.setattr(engine.catalog, "update_table", conflicting)
    with pytest.raises(CommitConflictError):
        run(engine, "RECOVER PARTITION p2 FROM t")
    monkeypatch.undo()
    assert stored(engine) == dropped and query(engine) == shown
    assert [r[1] for r in recycle_bin(engine)] == ["p2"]


# --------------------------------------------------------------------------- tables


def test_drop_table_then_recover_gives_back_exactly_the_rows(engine):
    make_table(engine)
    before, before_stored = query(engine), stored(engine)
    meta = engine.catalog.load_table("d", "t")
    folder = table_path(engine, "t")
    run(engine, "DROP TABLE t")
    assert ("t",) not in rows(engine, "SHOW TABLES") and os.path.isdir(folder)
    [row] = recycle_bin(engine)
    assert row[:5] == ("Table", "t", engine.catalog.get_database("d").id, meta.id, "")
    assert row[6] == sum(os.path.getsize(os.path.join(folder, f)) for f in parquet_files_on_disk(folder))

    # The name is free for a new table, with its own folder; the old one then comes back AS.
    run(engine, "CREATE TABLE t (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1")
    run(engine, "INSERT INTO t VALUES (42)")
    assert table_path(engine, "t") != folder
    with pytest.raises(AlreadyExistsError, match=r"^Table 't' already exists$"):
        run(engine, "RECOVER TABLE t")
    run(engine, "RECOVER TABLE t AS t_old")
    assert query(engine, "t_old") == before and stored(engine, "t_old") == before_stored
    assert table_path(engine, "t_old") == folder
    assert rows(engine, "SELECT * FROM t") == [(42,)]
    run(engine, "INSERT INTO t_old VALUES (3, 'h', 5)")
    assert (3, "h", 5) in query(engine, "t_old")

    with pytest.raises(CatalogError, match=r"^Unknown table 't' or table id '-1' in d$"):
        run(engine, "RECOVER TABLE t AS t3")
    with pytest.raises(CatalogError, match=r"^Unknown database 'nodb'$"):
        run(engine, "RECOVER TABLE nodb.t")


def test_recover_table_by_id_picks_that_one(engine):
    run(engine, "CREATE TABLE t (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1; INSERT INTO t VALUES (1)")
    first = engine.catalog.load_table("d", "t").id
    run(engine, "DROP TABLE t")
    run(engine, "CREATE TABLE t (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1; INSERT INTO t VALUES (2)")
    run(engine, "DROP TABLE t")
    run(engine, f"RECOVER TABLE d.t {first}")
    assert rows(engine, "SELECT * FROM t") == [(1,)]
    run(engine, "RECOVER TABLE t AS t2")  # the other (latest) one
    assert rows(engine, "SELECT * FROM t2") == [(2,)]


def test_a_dropped_tables_partitions_come_back_with_it(engine):
    make_table(engine)
    before, before_stored = query(engine), stored(engine)
    run(engine, "ALTER TABLE t DROP PARTITION p1")
    run(engine, "DROP TABLE t")
    assert sorted(r[0] for r in recycle_bin(engine)) == ["Partition", "Table"]
    run(engine, "RECOVER TABLE t")
    run(engine, "RECOVER PARTITION p1 FROM t")
    assert query(engine) == before and stored(engine) == before_stored


# --------------------------------------------------------------------------- databases


def test_drop_database_then_recover_gives_back_exactly_the_rows(engine):
    run(engine, "CREATE DATABASE shop")
    make_table(engine, "t", db="shop")
    make_table(engine, "u", db="shop")
    before = {name: (query(engine, name, "shop"), stored(engine, name, "shop")) for name in ("t", "u")}
    db_id = engine.catalog.get_database("shop").id
    run(engine, "USE shop; DROP DATABASE shop")
    assert ("shop",) not in rows(engine, "SHOW DATABASES") and engine.current_db is None
    shown = recycle_bin(engine)
    assert [r[:3] for r in shown] == [("Database", "shop", db_id), ("Table", "t", db_id), ("Table", "u", db_id)]
    assert shown[0][6] == shown[1][6] + shown[2][6] > 0

    run(engine, "RECOVER DATABASE shop")
    assert engine.catalog.get_database("shop").id == db_id
    assert {name: (query(engine, name, "shop"), stored(engine, name, "shop")) for name in ("t", "u")} == before

    # Dropped again while a new database takes its name: it comes back under another name, its
    # tables' folders move with it.
    run(engine, "DROP DATABASE shop; CREATE DATABASE shop")
    with pytest.raises(CatalogError, match=r"^Database\[shop\] already exist\.$"):
        run(engine, "RECOVER DATABASE shop")
    with pytest.raises(CatalogError, match=r"^Unknown database 'gone' or database id '-1'$"):
        run(engine, "RECOVER DATABASE gone")
    run(engine, f"RECOVER DATABASE shop {db_id} AS shop_old")
    assert rows(engine, "SHOW TABLES FROM shop_old") == [("t",), ("u",)]
    assert {name: (query(engine, name, "shop_old"), stored(engine, name, "shop_old")) for name in ("t", "u")} == before
    assert table_path(engine, "t", "shop_old").startswith(str(engine.warehouse / "shop_old"))
    assert rows(engine, "SHOW TABLES FROM shop") == [] and recycle_bin(engine) == []


def test_a_failed_recover_database_as_leaves_the_folders_where_they_were(engine, monkeypatch):
    run(
        engine,
        "CREATE DATABASE shop; CREATE TABLE shop.t (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1; "
        "INSERT INTO shop.t VALUES (7)",
    )
    folder = table_path(engine, "t", "shop")
    run(engine, "DROP DATABASE shop")

    def refuse(*args, **kwargs):
        raise CatalogError("Database[shop2] already exist.")

    monkeypatch.setattr(engine.catalog, "recover_database", refuse)
    with pytest.raises(CatalogError):
        run(engine, "RECOVER DATABASE shop AS shop2")
    monkeypatch.undo()
    assert os.path.isdir(folder) and not (engine.warehouse / "shop2" / os.path.basename(folder)).exists()
    run(engine, "RECOVER DATABASE shop AS shop2")
    assert rows(engine, "SELECT * FROM shop2.t") == [(7,)]
    assert not os.path.exists(folder)


# --------------------------------------------------------------------------- FORCE


def test_force_skips_the_recycle_bin(engine):
    make_table(engine)
    folder = table_path(engine, "t")
    key = partition_key(engine, "t", "p2")
    p2_files = files_of(engine, folder, key)
    run(engine, "ALTER TABLE t DROP PARTITION p2 FORCE")
    assert recycle_bin(engine) == []
    with pytest.raises(CatalogError, match="No partition named 'p2'"):
        run(engine, "RECOVER PARTITION p2 FROM t")
    # Its files are ordinary removed files: kept for trash_file_expire_time_sec, then deleted.
    run(engine, "ADMIN CLEAN TRASH")
    assert files_of(engine, folder, key) == p2_files
    at(engine, real_now() + dt.timedelta(days=1, hours=2))
    run(engine, "ADMIN CLEAN TRASH")
    assert files_of(engine, folder, key) == set() and stored(engine)  # the rest of the table stays
    assert not os.path.exists(os.path.join(folder, f"__partition={key}"))  # emptied tablet folders go too

    run(engine, "DROP TABLE t FORCE")
    assert not os.path.exists(folder) and recycle_bin(engine) == []
    with pytest.raises(CatalogError, match="Unknown table 't' or table id '-1' in d"):
        run(engine, "RECOVER TABLE t")

    run(engine, "CREATE DATABASE gone")
    make_table(engine, "t", db="gone")
    run(engine, "DROP DATABASE gone FORCE")
    assert not (engine.warehouse / "gone").exists() and recycle_bin(engine) == []


# --------------------------------------------------------------------------- retention


DORISQL = str(Path(sys.executable).with_name("dorisql"))


def test_after_the_retention_period_the_files_are_gone(engine):
    # The recycle bin keeps a day (the default); removed files are kept two days here.
    run(engine, 'ADMIN SET FRONTEND CONFIG ("trash_file_expire_time_sec" = "172800")')
    base = real_now()
    at(engine, base)
    make_table(engine, "t")
    make_table(engine, "u")
    make_table(engine, "kept")
    run(engine, "CREATE DATABASE shop")
    make_table(engine, "s", db="shop")
    t_folder, u_folder, kept_folder = (table_path(engine, n) for n in ("t", "u", "kept"))
    shop_folder = engine.warehouse / "shop"
    u_key, kept_key = partition_key(engine, "u", "p2"), partition_key(engine, "kept", "p3")
    u_p2 = files_of(engine, u_folder, u_key)
    truncated = files_of(engine, kept_folder, kept_key)
    run(
        engine,
        "DROP TABLE t; ALTER TABLE u DROP PARTITION p2; DROP DATABASE shop; TRUNCATE TABLE kept PARTITION (p3) FORCE",
    )
    kept_rows, u_rows = query(engine, "kept"), query(engine, "u")
    everything = parquet_files_on_disk(str(engine.warehouse))

    # Inside the retention period nothing goes, however often the trash runs.
    at(engine, base + dt.timedelta(hours=23, minutes=59))
    run(engine, "ADMIN CLEAN TRASH")
    assert parquet_files_on_disk(str(engine.warehouse)) == everything
    assert sorted(r[1] for r in recycle_bin(engine)) == ["p2", "s", "shop", "t"]

    # A day later, on the scheduler's clock: what the recycle bin held is gone.
    later = base + dt.timedelta(days=1, minutes=1)
    env = {**os.environ, "XDG_CONFIG_HOME": "/nonexistent-dorisql-test"}
    done = subprocess.run(
        [
            DORISQL,
            "--warehouse",
            str(engine.warehouse),
            "scheduler",
            "--once",
            "--job",
            "trash",
            "--now",
            f"{later:%Y-%m-%d %H:%M:%S}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "trash: 4 recycle bin entries expired" in done.stdout
    assert not os.path.exists(t_folder) and not shop_folder.exists()
    assert files_of(engine, u_folder, u_key) == set() and u_p2
    assert recycle_bin(engine) == []
    with pytest.raises(CatalogError):
        run(engine, "RECOVER TABLE t")
    # The truncated files have their own, longer retention.
    assert files_of(engine, kept_folder, kept_key) == truncated
    at(engine, base + dt.timedelta(days=2, minutes=1))
    run(engine, "ADMIN CLEAN TRASH")
    assert files_of(engine, kept_folder, kept_key) == set() and truncated
    # What is live stays, and reads the same.
    assert query(engine, "kept") == kept_rows and query(engine, "u") == u_rows
    live = parquet_files_on_disk(kept_folder)
    assert live and all(os.path.exists(os.path.join(kept_folder, f)) for f in live)


def test_recycled_partitions_outlive_a_shorter_file_retention(engine):
    """Removed files may go at once, but not those a recycle-bin partition holds."""
    run(engine, 'ADMIN SET FRONTEND CONFIG ("trash_file_expire_time_sec" = "0")')
    make_table(engine)
    before, before_stored = query(engine), stored(engine)
    folder = table_path(engine, "t")
    p2_key, p3_key = partition_key(engine, "t", "p2"), partition_key(engine, "t", "p3")
    p2_files = files_of(engine, folder, p2_key)
    run(engine, "ALTER TABLE t DROP PARTITION p2; TRUNCATE TABLE t PARTITION (p3) FORCE")
    at(engine, real_now() + dt.timedelta(hours=2))  # Delta's vacuum counts whole hours
    run(engine, "ADMIN CLEAN TRASH")
    assert files_of(engine, folder, p3_key) == set()  # removed files: no retention asked for
    assert files_of(engine, folder, p2_key) == p2_files
    run(engine, "RECOVER PARTITION p2 FROM t")
    assert query(engine) == [r for r in before if not 20 <= r[0] < 30]
    assert stored(engine) == [r for r in before_stored if r[3] != p3_key]


def test_disk_usage_stays_bounded_under_loads_drops_and_truncates(engine):
    """Twelve half-days of churn with the trash job after each: the bytes on disk stop growing."""
    base = real_now()
    at(engine, base)
    run(
        engine,
        "CREATE TABLE churn (k INT, v STRING) DUPLICATE KEY(k) PARTITION BY RANGE(k) () "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    folder = table_path(engine, "churn")
    payload = "x" * 2000
    sizes, loaded = [], 0
    for day in range(12):
        at(engine, base + dt.timedelta(hours=12 * day))
        run(engine, f"ALTER TABLE churn ADD PARTITION p{day} VALUES [({day * 100}), ({day * 100 + 100}))")
        values = ", ".join(f"({day * 100 + i}, '{payload}{i}')" for i in range(40))
        run(engine, f"INSERT INTO churn VALUES {values}")
        run(engine, f"INSERT INTO churn VALUES {values}")
        if day >= 1 and day % 2 == 1:  # even partitions are truncated (into the bin), then dropped empty ...
            run(engine, f"TRUNCATE TABLE churn PARTITION (p{day - 1})")
        if day >= 2:  # ... odd ones go to the recycle bin with their files
            run(engine, f"ALTER TABLE churn DROP PARTITION p{day - 2}")
        if day % 4 == 3:  # a whole table dropped and made again
            run(engine, "DROP TABLE IF EXISTS side")
        if day % 4 == 0:
            run(engine, "CREATE TABLE side (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
            run(engine, f"INSERT INTO side VALUES {', '.join(f'({i})' for i in range(50))}")
        run(engine, "ADMIN CLEAN TRASH")
        loaded += sum(
            os.path.getsize(os.path.join(folder, f))
            for f in parquet_files_on_disk(folder)
            if f.startswith(f"__partition={partition_key(engine, 'churn', f'p{day}')}/")
        )
        sizes.append(
            sum(
                os.path.getsize(os.path.join(root, f))
                for root, _, files in os.walk(engine.warehouse)
                for f in files
                if f.endswith(".parquet")
            )
        )
    # Without the trash every loaded byte would still be on disk; with it, a few days' worth
    # (truncated partitions wait in the recycle bin a day, as dropped ones do).
    per_day = loaded / 12
    assert max(sizes[4:]) <= 6 * per_day, (sizes, per_day)
    assert sizes[-1] < loaded / 2, (sizes, loaded)
    assert max(sizes[6:]) <= max(sizes[3:6]) * 1.25, sizes  # no upward trend
    assert rows(engine, "SELECT count(*) FROM churn") == [(80,)]


# --------------------------------------------------------------------------- crash leftovers


def _age(path: Path, days: float) -> None:
    when = (dt.datetime.now() - dt.timedelta(days=days)).timestamp()
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files + dirs:
            os.utime(os.path.join(root, name), (when, when))
    os.utime(path, (when, when))


def test_leftovers_of_crashes_go_after_the_grace_period(engine):
    run(engine, "CREATE TABLE t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1; INSERT INTO t VALUES (1), (2)")
    folder = Path(table_path(engine, "t"))
    live = parquet_files_on_disk(str(folder))
    [tablet] = {os.path.dirname(f) for f in live}
    # A load that died before its commit: its staging folder, and a file it had moved in place.
    old_staging = folder / "_staging" / "deadbeef"
    old_staging.mkdir(parents=True)
    (old_staging / "part-0.parquet").write_bytes(b"x" * 100)
    uncommitted = folder / tablet / "part-99999-dead.c000.snappy.parquet"
    uncommitted.write_bytes(b"y" * 100)
    # A CREATE TABLE that died before its catalog entry: a Delta table folder nobody lists.
    orphan = engine.warehouse / "d" / "99999"
    (orphan / "_delta_log").mkdir(parents=True)
    (orphan / "_delta_log" / "00000000000000000000.json").write_text("{}")
    # Something of the user's that is no table folder.
    notes = engine.warehouse / "d" / "notes"
    notes.mkdir()
    for path in (old_staging, uncommitted, orphan, notes):
        _age(path, days=2)
    young_staging = folder / "_staging" / "cafe"
    young_staging.mkdir()
    young_orphan = engine.warehouse / "d" / "99998"
    young_orphan.mkdir()

    # Even a clock far ahead does not make what was written in the last hour look old.
    at(engine, real_now() + dt.timedelta(days=30))
    run(engine, "ADMIN CLEAN TRASH")
    assert not old_staging.exists() and not uncommitted.exists() and not orphan.exists()
    assert young_staging.exists() and young_orphan.exists() and notes.exists()
    assert parquet_files_on_disk(str(folder)) == live
    assert sorted(rows(engine, "SELECT k FROM t")) == [(1,), (2,)]


# --------------------------------------------------------------------------- SHOW and settings


def test_show_catalog_recycle_bin_filters_by_name(engine):
    for name in ("apple", "apricot", "banana"):
        run(engine, f"CREATE TABLE {name} (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1; DROP TABLE {name}")
    assert [r[1] for r in recycle_bin(engine)] == ["apple", "apricot", "banana"]
    assert [r[1] for r in recycle_bin(engine, " WHERE NAME = 'APPLE'")] == ["apple"]
    assert [r[1] for r in recycle_bin(engine, " WHERE name LIKE 'ap%'")] == ["apple", "apricot"]
    result = run(engine, "SHOW CATALOG RECYCLE BIN")
    assert result.columns == [
        "Type",
        "Name",
        "DbId",
        "TableId",
        "PartitionId",
        "DropTime",
        "DataSize",
        "RemoteDataSize",
    ]
    for where in (" WHERE Name != 'x'", " WHERE DbId = 1", " WHERE Name = 'a' AND Name = 'b'", " WHERE Name = ''"):
        with pytest.raises(AnalysisError, match='^Where clause should like: Name = "name",  or Name LIKE "matcher"$'):
            run(engine, "SHOW CATALOG RECYCLE BIN" + where)


def test_retention_settings_and_the_job_switch(engine):
    from dorisql.jobs.runner import run_job
    from dorisql.jobs.scheduler import TRASH

    run(engine, 'ADMIN SET FRONTEND CONFIG ("catalog_trash_expire_second" = "60", "trash_enable" = "off")')
    assert engine.frontend("catalog_trash_expire_second") == "60" and engine.frontend("trash_enable") == "false"
    run(engine, 'ADMIN SET FRONTEND CONFIG ("trash_file_expire_time_sec" = "0")')
    with pytest.raises(AnalysisError):
        run(engine, 'ADMIN SET FRONTEND CONFIG ("trash_check_interval_seconds" = "0")')
    base = real_now()
    at(engine, base)
    run(engine, "CREATE TABLE t (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1; INSERT INTO t VALUES (1)")
    folder = table_path(engine, "t")
    run(engine, "DROP TABLE t")
    at(engine, base + dt.timedelta(seconds=61))
    assert run_job(TRASH, engine).disabled  # the background job is off ...
    assert os.path.isdir(folder) and len(recycle_bin(engine)) == 1
    result = run(engine, "ADMIN CLEAN TRASH")  # ... but asked for, a pass runs
    assert result.message.startswith("trash: 1 recycle bin entries expired")
    assert recycle_bin(engine) == [] and not os.path.exists(folder)
