"""store: the catalog — databases, tables, conditional commits, ids, config, groups — on both
backends (SQLite and PostgreSQL: conftest.py); the SQLite-only tests say so in their name."""

from __future__ import annotations

import multiprocessing
import sqlite3
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from dorisql.ast import DataType, props
from dorisql.catalog import codec
from dorisql.catalog.model import PartitionMeta
from dorisql.catalog.store import FIRST_ID, SCHEMA_VERSION, ColocationGroup
from dorisql.catalog.store import SqliteCatalog as Catalog
from dorisql.errors import (
    AlreadyExistsError,
    AnalysisError,
    CatalogError,
    CommitConflictError,
    UnknownDatabaseError,
    UnknownTableError,
)
from dorisql.warehouse import InvalidNameError

sys.path.insert(0, str(Path(__file__).parent))
import catalog_samples as samples  # noqa: E402
import catalog_workers as workers  # noqa: E402


@pytest.fixture
def cat(open_cat):
    c = open_cat()
    c.create_database("db1")
    return c


# --------------------------------------------------------------------------- layout


def test_catalog_file_and_wal(warehouse):
    with Catalog(warehouse) as c:
        c.create_database("d")
    path = warehouse / "_catalog" / "catalog.db"
    assert path.exists()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_newer_schema_is_refused(open_cat, raw_db):
    open_cat().close()
    raw_db.set_schema_version(99)
    with pytest.raises(
        CatalogError, match=rf"has schema version 99, newer than this dorisql understands \({SCHEMA_VERSION}\); upgrade"
    ):
        open_cat()


# --------------------------------------------------------------------------- databases


def test_databases(open_cat):
    c = open_cat()
    assert c.list_databases() == []
    d = c.create_database("b_db", properties={"replication_num": "1"})
    assert d.id > FIRST_ID and d.properties == (("replication_num", "1"),)
    c.create_database("a_db")
    assert c.list_databases() == ["a_db", "b_db"]
    assert c.database_exists("a_db") and not c.database_exists("zzz")
    assert c.get_database("b_db") == d

    with pytest.raises(AlreadyExistsError) as info:
        c.create_database("a_db")
    assert str(info.value) == "Can't create database 'a_db'; database exists" and info.value.code == 1007
    assert c.create_database("a_db", if_not_exists=True).name == "a_db"

    with pytest.raises(UnknownDatabaseError) as info:
        c.get_database("nope")
    assert str(info.value) == "Unknown database 'nope'" and info.value.code == 1049

    with pytest.raises(UnknownDatabaseError) as info:
        c.drop_database("nope")
    assert str(info.value) == "Can't drop database 'nope'; database doesn't exist" and info.value.code == 1008
    assert c.drop_database("nope", if_exists=True) == []

    with pytest.raises(InvalidNameError, match="Incorrect database name '../x'"):
        c.create_database("../x")


def test_drop_database_drops_its_tables(cat):
    cat.create_database("db2")
    t1 = cat.create_table(samples.table_meta("db1", "t1"))
    t2 = cat.create_table(samples.table_meta("db1", "t2"))
    other = cat.create_table(samples.table_meta("db2", "t1"))
    dropped = cat.drop_database("db1", force=True)
    assert [m.id for m in dropped] == [t1.id, t2.id]
    assert cat.list_databases() == ["db2"]
    assert [m.id for m in cat.list_table_metas()] == [other.id]
    with pytest.raises(UnknownDatabaseError):
        cat.load_table("db1", "t1")
    cat.create_database("db1")
    assert cat.list_tables("db1") == []


# --------------------------------------------------------------------------- tables


def test_create_load_list(cat):
    meta = samples.table_meta("db1", "t", n_partitions=3)
    created = cat.create_table(meta)
    assert created.id > FIRST_ID and created.version == 1
    ids = [p.id for p in created.partitions]
    assert len(set(ids)) == 3 and all(i > created.id for i in ids) and ids == sorted(ids)
    assert replace(created, id=0, version=0, partitions=meta.partitions) == meta
    assert cat.load_table("db1", "t") == created
    assert cat.list_tables("db1") == ["t"]
    assert cat.list_table_metas() == [created] == cat.list_table_metas("db1")
    assert cat.table_exists("db1", "t") and not cat.table_exists("db1", "u")


def test_create_table_errors(cat):
    cat.create_table(samples.table_meta("db1", "t"))
    with pytest.raises(AlreadyExistsError) as info:
        cat.create_table(samples.table_meta("db1", "t"))
    assert str(info.value) == "Table 't' already exists" and info.value.code == 1050
    existing = cat.load_table("db1", "t")
    assert cat.create_table(samples.table_meta("db1", "t", n_partitions=7), if_not_exists=True) == existing

    with pytest.raises(UnknownDatabaseError, match="Unknown database 'nodb'"):
        cat.create_table(samples.table_meta("nodb", "t"))
    with pytest.raises(InvalidNameError, match=r"Incorrect table name '\.\./x'"):
        cat.create_table(replace(samples.table_meta("db1", "t2"), name="../x"))
    bad_part = samples.table_meta("db1", "t3")
    bad_part = replace(bad_part, partitions=(replace(bad_part.partitions[0], name="../p"),))
    with pytest.raises(InvalidNameError, match="Incorrect partition name"):
        cat.create_table(bad_part)
    assert cat.list_tables("db1") == ["t"]


def test_load_unknown(cat):
    with pytest.raises(UnknownTableError) as info:
        cat.load_table("db1", "nope")
    assert str(info.value) == "Unknown table 'nope'" and info.value.code == 1146
    with pytest.raises(UnknownDatabaseError):
        cat.load_table("nodb", "t")
    with pytest.raises(UnknownDatabaseError):
        cat.list_tables("nodb")
    with pytest.raises(UnknownDatabaseError):
        cat.list_table_metas("nodb")


def test_names_are_case_sensitive_like_doris(cat):
    cat.create_table(samples.table_meta("db1", "T"))
    cat.create_table(samples.table_meta("db1", "t"))
    assert cat.list_tables("db1") == ["T", "t"]


def test_keyword_names_are_plain_names(cat):
    cat.create_database("range")
    cat.create_table(samples.table_meta("range", "select"))
    assert cat.load_table("range", "select").name == "select"


def test_commit_bumps_version_and_assigns_new_partition_ids(cat):
    v1 = cat.create_table(samples.table_meta("db1", "t", n_partitions=2))
    extra = PartitionMeta(
        id=0, name="p_new", buckets=5, lower=("DATE '2021-01-01'",), upper=("DATE '2021-01-02'",), created_at=samples.T0
    )
    v2 = cat.commit_table(replace(v1, partitions=v1.partitions + (extra,)))
    assert v2.version == 2
    assert v2.partitions[:2] == v1.partitions
    assert v2.partitions[2].id > max(p.id for p in v1.partitions)
    assert cat.load_table("db1", "t") == v2
    v3 = cat.commit_table(replace(v2, partitions=v2.partitions[1:]), expected_version=2)
    assert v3.version == 3 and [p.name for p in v3.partitions] == [v1.partitions[1].name, "p_new"]


def test_commit_conflict_changes_nothing(cat, open_cat):
    cat.create_table(samples.table_meta("db1", "t"))
    a = cat.load_table("db1", "t")
    b = cat.load_table("db1", "t")
    assert a.version == b.version == 1
    won = cat.commit_table(workers.increment(a, 1))
    assert won.version == 2
    next_before = cat.next_id()
    loser = replace(
        workers.increment(b, 2),
        partitions=b.partitions + (PartitionMeta(id=0, name="px", buckets=1, created_at=samples.T0),),
    )
    with pytest.raises(CommitConflictError) as info:
        cat.commit_table(loser)
    msg = str(info.value)
    assert "db1.t" in msg and "version is 2" in msg and "version 1" in msg and "nothing was committed" in msg
    assert cat.load_table("db1", "t") == won
    # the failed commit's partition id allocation was rolled back too
    assert cat.next_id() == next_before + 1
    # also with a fresh Catalog (no cache)
    assert open_cat().load_table("db1", "t") == won


def test_commit_conflict_after_drop_and_recreate(cat):
    old = cat.create_table(samples.table_meta("db1", "t"))
    cat.drop_table("db1", "t")
    with pytest.raises(CommitConflictError, match="dropped by another session"):
        cat.commit_table(old)
    new = cat.create_table(samples.table_meta("db1", "t"))
    with pytest.raises(CommitConflictError, match="dropped and re-created"):
        cat.commit_table(old)
    assert cat.load_table("db1", "t") == new


def test_rename_table(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    cat.create_table(samples.table_meta("db1", "other"))
    r = cat.rename_table("db1", "t", "t2")
    assert r.id == t.id and r.version == 2 and r.name == "t2" and r.definition.table.name == "t2"
    assert cat.list_tables("db1") == ["other", "t2"]
    with pytest.raises(UnknownTableError):
        cat.load_table("db1", "t")
    with pytest.raises(AlreadyExistsError, match=r"Table name\[other\] is already used"):
        cat.rename_table("db1", "t2", "other")
    with pytest.raises(AnalysisError, match="Same table name"):
        cat.rename_table("db1", "t2", "t2")
    with pytest.raises(InvalidNameError):
        cat.rename_table("db1", "t2", "../evil")
    with pytest.raises(CommitConflictError):
        cat.rename_table("db1", "t2", "t3", expected_version=1)
    assert cat.load_table("db1", "t2") == r


def test_drop_table(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    with pytest.raises(CommitConflictError):
        cat.drop_table("db1", "t", expected_version=7)
    assert cat.drop_table("db1", "t", expected_version=1) == t
    assert cat.list_tables("db1") == []
    with pytest.raises(UnknownTableError) as info:
        cat.drop_table("db1", "t")
    assert str(info.value) == "Unknown table 't'" and info.value.code == 1051
    assert cat.drop_table("db1", "t", if_exists=True) is None
    with pytest.raises(UnknownDatabaseError):
        cat.drop_table("nodb", "t", if_exists=True)


def test_persistence_across_instances(open_cat):
    c1 = open_cat()
    c1.create_database("db1", properties=(("k", "v"),))
    t = c1.create_table(samples.table_meta("db1", "t", n_partitions=4))
    t = c1.commit_table(workers.increment(t, 1))
    c1.set_config("dynamic_partition_enable", "false")
    last = c1.next_id()
    c1.close()

    c2 = open_cat()
    assert c2.list_databases() == ["db1"]
    assert c2.get_database("db1").properties == (("k", "v"),)
    assert c2.load_table("db1", "t") == t and c2.load_table("db1", "t").version == 2
    assert c2.get_config("dynamic_partition_enable") == "false"
    assert c2.next_id() == last + 1


def test_cache_sees_changes_from_other_instances(open_cat):
    a, b = open_cat(), open_cat()
    a.create_database("db1")
    a.create_table(samples.table_meta("db1", "t"))
    assert len(a.list_table_metas()) == 1
    changed = b.commit_table(workers.increment(b.load_table("db1", "t"), 2))
    b.create_table(samples.table_meta("db1", "u"))
    metas = a.list_table_metas()
    assert [m.name for m in metas] == ["t", "u"] and metas[0] == changed
    assert props(a.load_table("db1", "t").definition.properties)["counter"] == "1"
    b.drop_table("db1", "u")
    assert [m.name for m in a.list_table_metas("db1")] == ["t"]


# --------------------------------------------------------------------------- ids, config


def test_ids_are_monotonic_and_unique(cat):
    ids = [cat.next_id() for _ in range(5)] + list(cat.next_ids(10)) + [cat.next_id()]
    assert ids == sorted(ids) and len(set(ids)) == 16 and ids[0] > FIRST_ID
    assert list(cat.next_ids(0)) == []


def test_ids_from_threads(cat):
    got: list[int] = []
    lock = threading.Lock()

    def run():
        mine = [cat.next_id() for _ in range(50)]
        with lock:
            got.extend(mine)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == len(set(got)) == 200


def test_frontend_config(cat):
    assert cat.get_config("dynamic_partition_enable") is None
    assert cat.get_config("dynamic_partition_enable", "true") == "true"
    cat.set_config("dynamic_partition_enable", False)
    cat.set_configs({"cluster_backends": 3, "dynamic_partition_check_interval_seconds": "600"})
    cat.set_config("cluster_backends", "4")
    assert cat.all_config() == {
        "cluster_backends": "4",
        "dynamic_partition_enable": "false",
        "dynamic_partition_check_interval_seconds": "600",
    }
    cat.unset_config("cluster_backends")
    assert cat.get_config("cluster_backends") is None


# --------------------------------------------------------------------------- colocation groups


_GROUP_TYPES = (DataType("INT"), DataType("VARCHAR", (20,)))


def _group(name="g1", buckets=8, types=_GROUP_TYPES):
    return ColocationGroup(name=name, db="db1", buckets=buckets, distribution_types=types)


def test_colocation_group_crud(cat):
    g = cat.create_colocation_group(_group())
    assert g.id > FIRST_ID
    assert cat.get_colocation_group("db1", "g1") == g
    assert cat.get_colocation_group("db2", "g1") is None
    with pytest.raises(AlreadyExistsError):
        cat.create_colocation_group(_group())
    gg = cat.create_colocation_group(_group("__global__g"))
    assert gg.db == "" and cat.get_colocation_group("any_db", "__global__g") == gg
    g2 = cat.update_colocation_group(replace(g, is_stable=False, buckets=16))
    assert g2.buckets == 16 and not g2.is_stable and g2.id == g.id
    assert [x.name for x in cat.list_colocation_groups()] == ["__global__g", "g1"]
    assert cat.drop_colocation_group("db1", "g1")
    assert not cat.drop_colocation_group("db1", "g1", if_exists=True)
    with pytest.raises(CatalogError):
        cat.drop_colocation_group("db1", "g1")


def _colocated(name: str, group: str = "g1", db: str = "db1", buckets: int | None = None, replication: int = 1):
    meta = samples.table_meta(db, name, properties=(("replication_num", str(replication)), ("colocate_with", group)))
    partitions = tuple(replace(p, replication_num=replication, buckets=buckets or p.buckets) for p in meta.partitions)
    return replace(meta, partitions=partitions)


def test_create_table_founds_and_joins_its_group_atomically(cat):
    a = cat.create_table(_colocated("a"))
    group = cat.get_colocation_group("db1", "g1")
    assert group is not None and group.buckets == 10 and group.replication_num == 1
    assert group.distribution_types == (DataType("DATE"), DataType("VARCHAR", (20,)))
    cat.create_table(_colocated("b"))
    assert cat.get_colocation_group("db1", "g1").id == group.id
    assert [m.name for m in cat.colocation_group_tables("db1", "g1")] == ["a", "b"]

    # Doris's ColocateGroupSchema messages; nothing is created
    with pytest.raises(AnalysisError, match=r"^Colocate tables must have same bucket num: 4 should be 10$"):
        cat.create_table(_colocated("c", buckets=4))
    with pytest.raises(
        AnalysisError,
        match=r"^Colocate tables must have same replication allocation: \{ tag.location.default: 2 \} "
        r"should be \{ tag.location.default: 1 \}$",
    ):
        cat.create_table(_colocated("c", replication=2))
    bigint = _colocated("c")
    columns = tuple(
        replace(col, type=DataType("BIGINT")) if col.name == "k1" else col for col in bigint.definition.columns
    )
    with pytest.raises(
        AnalysisError,
        match=r"^Colocate tables distribution columns must have the same data type: k1\(bigint\) should be datev2$",
    ):
        cat.create_table(replace(bigint, definition=replace(bigint.definition, columns=columns)))
    assert not cat.table_exists("db1", "c")
    # another database has its own group of that name
    cat.create_database("db2")
    cat.create_table(_colocated("c", db="db2", buckets=4))
    assert cat.get_colocation_group("db2", "g1").buckets == 4

    # leaving the group by ALTER ... SET ("colocate_with" = "") and dropping the last table removes it
    cat.commit_table(replace(a, definition=replace(a.definition, properties=(("colocate_with", ""),))))
    assert [m.name for m in cat.colocation_group_tables("db1", "g1")] == ["b"]
    cat.drop_table("db1", "b", force=True)
    assert cat.get_colocation_group("db1", "g1") is None


def test_a_dropped_table_stays_in_its_group_until_the_bin_erases_it(cat):
    a = cat.create_table(_colocated("a"))
    cat.drop_table("db1", "a")
    group = cat.get_colocation_group("db1", "g1")
    assert group is not None  # Doris: removeTable only when the bin erases the table
    with pytest.raises(AnalysisError, match="same bucket num"):
        cat.create_table(_colocated("b", buckets=3))
    recovered = cat.recover_table(a.id)
    assert cat.colocation_group_tables("db1", "g1") == [recovered]
    cat.drop_table("db1", "a")
    cat.erase_recycled([a.id])
    assert cat.get_colocation_group("db1", "g1") is None


def test_a_dropped_database_keeps_its_groups_out_of_reach_until_erased(cat):
    cat.create_table(_colocated("a"))
    cat.create_table(_colocated("g", group="__global__g"))
    db_id = cat.get_database("db1").id
    cat.drop_database("db1")
    names = sorted(g.name for g in cat.list_colocation_groups())
    assert names == ["__global__g", "g1"]
    # a new database of the same name starts afresh (Doris keys groups by database id)
    cat.create_database("db1")
    assert cat.get_colocation_group("db1", "g1") is None
    cat.drop_database("db1", force=True)
    db, tables = cat.recover_database(db_id)
    assert cat.get_colocation_group("db1", "g1") is not None
    assert [t.name for t in cat.colocation_group_tables("db1", "__global__g")] == ["g"]
    cat.drop_database("db1")
    cat.erase_recycled([db_id])
    assert cat.list_colocation_groups() == []


# --------------------------------------------------------------------------- concurrency


def test_two_processes_no_lost_update(open_cat, catalog_spec):
    rounds = 100
    c = open_cat()
    c.create_database("db1")
    c.create_table(samples.table_meta("db1", "counter", n_partitions=1))
    c.close()

    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(2)  # both children ready (imported, catalog open) before either starts
    results = ctx.Queue()
    procs = [ctx.Process(target=workers.bump_counter, args=(catalog_spec, w, rounds, start, results)) for w in (1, 2)]
    for p in procs:
        p.start()
    out = [results.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0

    c = open_cat()
    final = c.load_table("db1", "counter")
    assert props(final.definition.properties)["counter"] == str(2 * rounds)
    assert final.version == 1 + 2 * rounds
    all_ids = [i for _, _, ids in out for i in ids]
    assert len(all_ids) == len(set(all_ids)), "an id was handed out twice"
    tables = c.list_tables("db1")
    assert "shared" in tables and len(tables) == 2 + 2 * (rounds // 10)
    conflicts = sum(n for _, n, _ in out)
    print(f"\n2 processes x {rounds} increments: {conflicts} commit conflicts retried")


def test_threads_share_a_catalog(cat):
    cat.create_table(samples.table_meta("db1", "counter", n_partitions=1))
    errors = []

    def run(worker):
        try:
            for _ in range(25):
                while True:
                    meta = cat.load_table("db1", "counter")
                    try:
                        cat.commit_table(workers.increment(meta, worker))
                        break
                    except CommitConflictError:
                        pass
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert props(cat.load_table("db1", "counter").definition.properties)["counter"] == "100"


# --------------------------------------------------------------------------- many tables
# (how long this takes is bench/scheduler.py's business: it times passes over the same shape)


def test_list_table_metas_200_tables_x_365_partitions(warehouse):
    c = Catalog(warehouse)
    c.create_database("db1")
    template = samples.table_meta("db1", "t", n_partitions=365)
    ids = iter(c.next_ids(200 * 366))
    conn = sqlite3.connect(c.path)
    rows = []
    for i in range(200):
        m = replace(
            template,
            id=next(ids),
            name=f"t{i:03d}",
            version=1,
            partitions=tuple(replace(p, id=next(ids)) for p in template.partitions),
        )
        rows.append((m.id, m.db, m.name, m.version, codec.encode(m), ""))
    with conn:
        conn.executemany("INSERT INTO tables (id, db, name, version, meta, updated_at) VALUES (?,?,?,?,?,?)", rows)
    conn.close()

    fresh = Catalog(warehouse)
    metas = fresh.list_table_metas()
    again = fresh.list_table_metas()
    fresh.commit_table(workers.increment(metas[7], 1))
    after_one_change = fresh.list_table_metas()

    assert len(metas) == 200 and all(len(m.partitions) == 365 for m in metas)
    assert [m.name for m in metas] == [f"t{i:03d}" for i in range(200)]
    assert again == metas
    assert after_one_change[7].version == 2 and props(after_one_change[7].definition.properties)["counter"] == "1"
    assert after_one_change[:7] + after_one_change[8:] == metas[:7] + metas[8:]


def test_list_table_metas_orders_by_db_then_name(cat, open_cat):
    cat.create_database("a_db")
    for db, name in [("db1", "z"), ("a_db", "y"), ("db1", "b"), ("a_db", "c")]:
        cat.create_table(samples.table_meta(db, name))
    assert [(m.db, m.name) for m in cat.list_table_metas()] == [
        ("a_db", "c"),
        ("a_db", "y"),
        ("db1", "b"),
        ("db1", "z"),
    ]
    assert [m.name for m in open_cat().list_table_metas("db1")] == ["b", "z"]


def test_open_catalog_gives_the_sqlite_backend_of_the_interface(tmp_path):
    import dorisql.catalog as pkg

    opened = pkg.open_catalog(tmp_path / "w")
    assert isinstance(opened, Catalog) and isinstance(opened, pkg.Catalog)
    assert opened.path == tmp_path / "w" / "_catalog" / "catalog.db"
    opened.close()


def test_busy_catalog_is_a_clean_error(warehouse):
    c = Catalog(warehouse, timeout=0.2)
    blocker = sqlite3.connect(c.path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(CatalogError, match="busy"):
            c.create_database("d")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    c.create_database("d")  # the connection is usable again
    assert c.list_databases() == ["d"]


# ---------------------------------------------------------------------- update_table: the one door


def test_update_table_retries_a_change_over_a_concurrent_commit(cat, open_cat):
    cat.create_table(samples.table_meta("db1", "t"))
    other = open_cat()  # another session on the same warehouse
    seen_versions = []

    def add_comment(meta):
        seen_versions.append(meta.version)
        if len(seen_versions) == 1:  # another session commits between our read and our commit
            other.update_table("db1", "t", lambda m: replace(m, created_at=m.created_at))
        return replace(meta, definition=replace(meta.definition, comment=f"v{meta.version}"))

    result = cat.update_table("db1", "t", add_comment)
    assert seen_versions == [1, 2]  # re-read after the conflict, change applied to the fresh version
    assert result.version == 3 and result.definition.comment == "v2"
    assert cat.load_table("db1", "t") == result


def test_update_table_with_nothing_to_change_writes_nothing(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    assert cat.update_table("db1", "t", lambda m: m) == t
    assert cat.update_table("db1", "t", lambda m: None) == t
    assert cat.load_table("db1", "t").version == 1


def test_update_table_change_that_raises_writes_nothing(cat):
    cat.create_table(samples.table_meta("db1", "t"))

    def refuse(meta):
        raise AnalysisError("Duplicate partition name p1")

    with pytest.raises(AnalysisError, match="Duplicate partition name"):
        cat.update_table("db1", "t", refuse)
    assert cat.load_table("db1", "t").version == 1


def test_update_table_refuses_a_recreated_table_and_a_stale_expected_version(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    cat.drop_table("db1", "t")
    cat.create_table(samples.table_meta("db1", "t"))
    with pytest.raises(CommitConflictError, match="dropped and re-created"):
        cat.update_table("db1", "t", lambda m: replace(m, created_at=m.created_at), table_id=t.id)
    with pytest.raises(CommitConflictError, match="based on version 7"):
        cat.update_table("db1", "t", lambda m: replace(m, created_at=m.created_at), expected_version=7)
    with pytest.raises(UnknownTableError):
        cat.update_table("db1", "gone", lambda m: m)


def test_update_table_gives_up_after_the_retry_budget(cat, open_cat):
    cat.create_table(samples.table_meta("db1", "t"))
    other = open_cat()
    calls = []

    def always_beaten(meta):
        calls.append(meta.version)
        other.update_table("db1", "t", lambda m: replace(m, created_at=m.created_at))
        return replace(meta, created_at=meta.created_at)

    with pytest.raises(CommitConflictError):
        cat.update_table("db1", "t", always_beaten, retries=3)
    assert len(calls) == 3
