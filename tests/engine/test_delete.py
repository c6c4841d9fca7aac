"""DELETE FROM as a delete version (dorisql.tablets.deletes): merge-on-read on all three key
models, partitions, NULLs, later reloads, a load committed after the delete, the colocate join,
SHOW DELETE, retiring a delete version after its rows are gone, and a process killed around
the commit. One engine for the module; a few small tables."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError
from dorisql.storage.delta import DeltaStore
from dorisql.tablets.deletes import DeleteVersion, apply_deletes, delete_versions, retire_delete_versions

from .conftest import delta_rows, delta_version, rows, run, table_path

pytestmark = pytest.mark.spark

DUP = """CREATE TABLE dup (k INT, s VARCHAR(8), v INT) DUPLICATE KEY(k)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
    DISTRIBUTED BY HASH(k) BUCKETS 2"""
UNI = """CREATE TABLE uni (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k)
    DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("colocate_with" = "g")"""
AGG = """CREATE TABLE agg (k INT NOT NULL, d DATE NOT NULL, n BIGINT SUM DEFAULT "0") AGGREGATE KEY(k, d)
    DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("colocate_with" = "g")"""


@pytest.fixture(scope="module")
def eng(engine):
    run(engine, DUP)
    run(engine, UNI)
    run(engine, AGG)
    run(engine, "INSERT INTO dup VALUES (1, 'a', 1), (2, NULL, 2), (3, 'c', 3), (11, 'a', 11), (12, NULL, 12)")
    run(engine, "INSERT INTO uni VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    run(engine, "INSERT INTO agg VALUES (1, '2024-01-01', 5), (2, '2024-01-01', 7)")
    run(engine, "INSERT INTO agg VALUES (1, '2024-01-01', 10), (1, '2024-01-02', 1)")
    return engine


def test_duplicate_value_column_partition_and_nulls(eng):
    # a value column, one partition named: p2's 'a' row stays
    result = run(eng, "DELETE FROM dup PARTITION p1 WHERE s = 'a'")
    assert result.affected_rows == 0 and "'status':'VISIBLE'" in result.message
    assert sorted(rows(eng, "SELECT k FROM dup")) == [(2,), (3,), (11,), (12,)]
    # IS NULL, no PARTITION clause: every partition
    run(eng, "DELETE FROM dup WHERE s IS NULL")
    assert sorted(rows(eng, "SELECT k FROM dup")) == [(3,), (11,)]
    # `s != 'c'` does not match NULL rows (none left) nor 'c'; pruning by k keeps p2 only
    run(eng, "DELETE FROM dup WHERE k >= 11 AND s != 'c'")
    assert sorted(rows(eng, "SELECT k, s FROM dup")) == [(3, "c")]
    # rows loaded later are not deleted, even when they match
    run(eng, "INSERT INTO dup VALUES (1, 'a', 100), (12, NULL, 120)")
    assert sorted(rows(eng, "SELECT k, v FROM dup")) == [(1, 100), (3, 3), (12, 120)]
    # the outside reader still sees the deleted rows (until compaction)
    assert len(delta_rows(eng, "dup")) == 7
    shown = rows(eng, "SHOW DELETE")
    dup = [r for r in shown if r[0] == "dup"]
    assert [(r[1], r[3], r[4]) for r in dup] == [
        ("p1", 's EQ "a"', "FINISHED"),
        ("*", "s IS NULL", "FINISHED"),
        ("*", 'k GE "11", s NE "c"', "FINISHED"),
    ]


def test_delete_that_matches_nothing_commits_nothing(eng):
    before = delta_version(eng, "dup")
    assert run(eng, "DELETE FROM dup WHERE k = NULL").message.endswith("'txnId':'-1'}")
    assert run(eng, "DELETE FROM dup WHERE k = 100").message.endswith("'txnId':'-1'}")  # no partition holds 100
    assert delta_version(eng, "dup") == before
    # matches no row, but a partition may hold one: recorded, nothing changes
    run(eng, "DELETE FROM dup WHERE k = 5")
    assert sorted(rows(eng, "SELECT k FROM dup")) == [(1,), (3,), (12,)]


def test_unique_delete_by_key_then_reload(eng):
    run(eng, "INSERT INTO uni VALUES (2, 'y2')")
    run(eng, "DELETE FROM uni WHERE k IN (2, 3)")
    assert rows(eng, "SELECT k, v FROM uni") == [(1, "x")]
    # a later load of a deleted key is visible again; its older versions stay deleted
    run(eng, "INSERT INTO uni VALUES (2, 'again')")
    assert sorted(rows(eng, "SELECT k, v FROM uni")) == [(1, "x"), (2, "again")]
    with pytest.raises(AnalysisError, match="Right expr of binary predicate should be value"):
        run(eng, "DELETE FROM dup WHERE k = k")


def test_null_safe_equal_deletes_what_doris_deletes(eng):
    """Doris's test_delete_nullsafe_eq: `k <=> 1` is `k = 1` (a NULL k stays), `k <=> NULL` is
    `k IS NULL`; both are delete versions SHOW DELETE lists."""
    run(eng, "CREATE TABLE nse (k1 INT, v1 INT) DUPLICATE KEY(k1) DISTRIBUTED BY HASH(k1) BUCKETS 1")
    run(eng, "INSERT INTO nse VALUES (1, 10), (2, 20), (NULL, 30)")
    run(eng, "DELETE FROM nse WHERE k1 <=> 1")
    assert sorted(rows(eng, "SELECT k1, v1 FROM nse"), key=str) == [(2, 20), (None, 30)]
    run(eng, "DELETE FROM nse WHERE NULL <=> k1")
    assert rows(eng, "SELECT k1, v1 FROM nse") == [(2, 20)]
    assert [r[3] for r in rows(eng, "SHOW DELETE") if r[0] == "nse"] == ['k1 EQ "1"', "k1 IS NULL"]
    with pytest.raises(AnalysisError, match="Left expr of binary predicate should be column name"):
        run(eng, "DELETE FROM nse WHERE abs(k1) = 2")  # no key delete on a DUPLICATE table


def test_unique_delete_with_any_where_deletes_keys_whose_latest_row_matches(eng):
    """On a UNIQUE KEY table a WHERE outside the delete-predicate rules (a function, OR, a value
    column) deletes the keys whose *latest* row matches (Doris's delete-sign load): an older
    version of a key that matched stays hidden behind its latest row, NULL keys are deleted
    too, later loads show a key again, and SHOW DELETE lists none of it."""
    run(
        eng,
        """CREATE TABLE uk (k INT, s VARCHAR(8), v INT) UNIQUE KEY(k, s)
        PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
        DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("enable_unique_key_merge_on_write" = "false")""",
    )
    run(eng, "INSERT INTO uk VALUES (1, 'a', 1), (2, 'b', 2), (11, 'c', 3), (NULL, 'd', 4), (3, NULL, 5)")
    run(eng, "INSERT INTO uk VALUES (1, 'a', 100)")  # key (1, 'a') now v = 100
    before = delta_version(eng, "uk")
    result = run(eng, "DELETE FROM uk WHERE v < 10 AND (length(s) = 1 OR s IS NULL)")
    assert result.affected_rows == 4 and "'status':'VISIBLE'" in result.message
    assert delta_version(eng, "uk") == before + 1  # one commit, no data file
    assert rows(eng, "SELECT k, s, v FROM uk") == [(1, "a", 100)]
    # a later load of deleted keys shows them again; the older rows stay deleted
    run(eng, "INSERT INTO uk VALUES (2, 'b', 22), (NULL, 'd', 44), (3, NULL, 55)")
    assert sorted(rows(eng, "SELECT k, s, v FROM uk"), key=str) == [
        (1, "a", 100),
        (2, "b", 22),
        (3, None, 55),
        (None, "d", 44),
    ]
    # PARTITION: only that partition's keys; a value column alone is a key delete too
    run(eng, "INSERT INTO uk VALUES (12, 'e', 7)")
    run(eng, "DELETE FROM uk PARTITION p2 WHERE v > 0")
    assert not [r for r in rows(eng, "SELECT k FROM uk") if r[0] is not None and r[0] >= 10]
    run(eng, "DELETE FROM uk WHERE v = 100")
    assert sorted(rows(eng, "SELECT k, v FROM uk"), key=str) == [(2, 22), (3, 55), (None, 44)]
    # nothing matches: nothing committed
    before = delta_version(eng, "uk")
    assert run(eng, "DELETE FROM uk WHERE v > 1000").message.endswith("'txnId':'-1'}")
    assert delta_version(eng, "uk") == before
    assert not [r for r in rows(eng, "SHOW DELETE") if r[0] == "uk"]
    # the raw rows are all still stored; compaction-free reads hide them
    assert len(delta_rows(eng, "uk")) == 10


def test_delete_using_joins_other_tables_on_unique_tables_only(eng):
    """DELETE FROM t [alias] USING <tables> WHERE ... (Doris's DeleteFromUsingCommand, as in its
    suite delete_p0/test_delete_using): the keys of t whose latest row joins the USING tables
    are deleted, a key column named like another table's resolves to t's; DUPLICATE and
    AGGREGATE tables refuse it with Doris's message and keep every row."""
    run(eng, "CREATE TABLE du1 (id INT, c1 BIGINT, c2 STRING) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3")
    run(eng, "CREATE TABLE du2 (id INT, c1 BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2")
    run(eng, "CREATE TABLE du3 (id INT) DISTRIBUTED BY HASH(id) BUCKETS 2")
    run(eng, "INSERT INTO du1 VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c'), (4, 4, 'd')")
    run(eng, "INSERT INTO du2 VALUES (1, 10), (2, 20), (3, 30), (5, 50)")
    run(eng, "INSERT INTO du3 VALUES (1), (3), (5)")
    result = run(eng, "DELETE FROM du1 USING du2 INNER JOIN du3 ON du2.id = du3.id WHERE du1.id = du2.id")
    assert result.affected_rows == 2 and "'status':'VISIBLE'" in result.message
    assert rows(eng, "SELECT id, c2 FROM du1 ORDER BY id") == [(2, "b"), (4, "d")]
    # an alias for the target, a condition on its value column and on a USING table's
    run(eng, "DELETE FROM du1 x USING du2 WHERE x.id = du2.id AND du2.c1 > 10 AND x.c2 = 'b'")
    assert rows(eng, "SELECT id FROM du1 ORDER BY id") == [(4,)]
    # nothing joins: nothing committed
    before = delta_version(eng, "du1")
    assert run(eng, "DELETE FROM du1 USING du3 WHERE du1.id = du3.id").message.endswith("'txnId':'-1'}")
    assert delta_version(eng, "du1") == before
    for table in ("dup", "agg"):
        kept = rows(eng, f"SELECT count(*) FROM {table}")
        with pytest.raises(AnalysisError, match="delete command on with using clause only supports unique key model"):
            run(eng, f"DELETE FROM {table} USING du3 WHERE {table}.k = du3.id")
        assert rows(eng, f"SELECT count(*) FROM {table}") == kept


def test_aggregate_delete_removes_merged_row_and_later_loads_start_fresh(eng):
    run(eng, "DELETE FROM agg WHERE k = 1 AND d = '2024-01-01'")
    assert sorted(rows(eng, "SELECT k, CAST(d AS STRING), n FROM agg")) == [(1, "2024-01-02", 1), (2, "2024-01-01", 7)]
    run(eng, "INSERT INTO agg VALUES (1, '2024-01-01', 3)")
    assert (1, "2024-01-01", 3) in rows(eng, "SELECT k, CAST(d AS STRING), n FROM agg")
    with pytest.raises(AnalysisError, match=r"but Table\[agg\] is an Aggregate table\."):
        run(eng, "DELETE FROM agg WHERE n = 3")


def test_colocate_join_applies_deletes(eng):
    """The colocate join reads the files itself (pyarrow): it drops the deleted rows too."""
    run(eng, UNI.replace("uni", "cu").replace('"g"', '"g2"'))
    run(eng, AGG.replace("agg", "ca").replace('"g"', '"g2"'))
    run(eng, "INSERT INTO cu VALUES (1, 'x'), (2, 'y'), (3, 'z'); INSERT INTO cu VALUES (2, 'y2')")
    run(eng, "INSERT INTO ca VALUES (1, '2024-01-01', 5), (2, '2024-01-01', 7), (3, '2024-01-02', 1)")
    run(eng, "DELETE FROM cu WHERE k = 2; DELETE FROM ca WHERE d = '2024-01-02'")
    run(eng, "INSERT INTO ca VALUES (3, '2024-01-02', 4)")
    query = "SELECT u.k, u.v, a.n FROM cu u JOIN ca a ON u.k = a.k"
    plan = "\n".join(r[0] for r in rows(eng, f"EXPLAIN {query}"))
    assert "colocate: true" in plan
    assert plan.count("delete versions: 1") == 2
    # the AGGREGATE table merges its loads on read; the merge-on-write UNIQUE one has nothing to merge
    assert "merge: AGGREGATE KEY (merge on read)" in plan and "merge: UNIQUE" not in plan
    assert sorted(rows(eng, query)) == [(1, "x", 5), (3, "z", 4)]


def test_load_committed_after_delete_is_not_affected(eng):
    """A load staged before the DELETE that commits after it keeps its rows: it is a later version."""
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    run(eng, "CREATE TABLE c (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(eng, "INSERT INTO c VALUES (7, 1)")
    store = DeltaStore(table_path(eng, "c"))
    key = eng.catalog.load_table("d", "c").partition_keys()["c"]
    staging = store.new_staging_dir()
    folder = os.path.join(staging, f"__partition={key}", "__bucket=0")
    os.makedirs(folder)
    pq.write_table(pa.table({"k": pa.array([7], pa.int32()), "v": pa.array([2], pa.int32())}), f"{folder}/a.parquet")
    run(eng, "DELETE FROM c WHERE k = 7")
    assert rows(eng, "SELECT k, v FROM c") == []
    assert store.commit_staged(staging).committed
    assert rows(eng, "SELECT k, v FROM c") == [(7, 2)]


def _killed_delete(eng, kill_at: str) -> None:
    from .test_crash_consistency import killed_dorisql

    killed_dorisql(eng.warehouse, "DELETE FROM k WHERE k = 1", kill_at)


def test_killed_before_commit_changes_nothing_after_commit_is_done(eng):
    from .test_crash_consistency import assert_consistent

    run(eng, "CREATE TABLE k (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(eng, "INSERT INTO k VALUES (1, 1), (2, 2)")
    before = delta_version(eng, "k")
    _killed_delete(eng, "before:dorisql.storage.delta:DeltaStore.commit_properties")
    assert delta_version(eng, "k") == before
    assert sorted(rows(eng, "SELECT k FROM k")) == [(1,), (2,)]
    # killed after the Delta commit, before the catalog's VisibleVersion bump: the delete is done
    _killed_delete(eng, "after:dorisql.storage.delta:DeltaStore.commit_properties")
    assert delta_version(eng, "k") == before + 1
    assert rows(eng, "SELECT k FROM k") == [(2,)]
    assert_consistent(eng)
    run(eng, "DELETE FROM k WHERE k = 1")  # the retry is harmless
    assert rows(eng, "SELECT k FROM k") == [(2,)]
    assert run(eng, "ADMIN CHECK TABLE k").rows == []


def test_apply_and_retire(eng, spark):
    """Rewriting the older files without the deleted rows, then retiring the delete versions,
    leaves the rows deleted (what base compaction will do)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from dorisql.storage.spark_io import read_files

    run(eng, "CREATE TABLE r (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(eng, "INSERT INTO r VALUES (1, 1), (2, 2), (3, 3)")
    run(eng, "DELETE FROM r WHERE k = 2")
    store = DeltaStore(table_path(eng, "r"))
    deletes = delete_versions(store)
    assert [(d.predicate, d.partitions) for d in deletes] == [("`k` = 2", None)]
    snap = store.snapshot()
    schema = T.StructType([T.StructField("k", T.IntegerType()), T.StructField("v", T.IntegerType())])
    raw = read_files(spark, snap.files, schema, base_path=store.path)
    stamped = raw.withColumn("__commit_seq", F.lit(deletes[0].version - 1))
    kept = apply_deletes(stamped, deletes).drop("__commit_seq")
    store.rewrite(snap.version, snap.files, kept, data_change=True)
    retired = retire_delete_versions(store, [d.version for d in deletes])
    assert retired is not None and delete_versions(store) == ()
    assert retire_delete_versions(store, [d.version for d in deletes]) is None
    assert sorted(rows(eng, "SELECT k FROM r")) == [(1,), (3,)]
    assert sorted(r["k"] for r in delta_rows(eng, "r")) == [1, 3]
    assert isinstance(deletes[0], DeleteVersion)
