"""Colocation groups through real statements (catalog-only engine: no Spark needed).

Doris's rules and messages (ColocateGroupSchema, InternalCatalog, Env.modifyTableColocate):
the first table founds a group, later ones must match; ALTER TABLE SET joins and leaves; a
group lives while a member exists, in the recycle bin too; SHOW PROC shows it.
"""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, DorisqlError


@pytest.fixture
def engine(tmp_path, make_engine):
    eng = make_engine(tmp_path / "wh")
    eng.execute_sql("CREATE DATABASE d; USE d")
    yield eng
    eng.close()


def run(engine, sql):
    return engine.execute_sql(sql)[-1]


def rows(engine, sql):
    return [tuple(r) for r in run(engine, sql).rows]


def create(
    engine,
    name,
    cols="k1 INT, k2 VARCHAR(10), v BIGINT",
    dist="HASH(k1, k2) BUCKETS 4",
    props='"colocate_with" = "g"',
    extra="",
):
    run(engine, f"CREATE TABLE {name} ({cols}) DUPLICATE KEY(k1) {extra} DISTRIBUTED BY {dist} PROPERTIES ({props})")


def groups(engine):
    return rows(engine, "SHOW PROC '/colocation_group'")


def test_first_table_founds_the_group_and_show_proc_lists_it(engine):
    create(engine, "a")
    create(engine, "b", cols="k1 INT, k2 VARCHAR(20), v INT")  # any varchar length: they hash alike
    result = run(engine, "SHOW PROC '/colocation_group'")
    assert result.columns == [
        "GroupId",
        "GroupName",
        "TableIds",
        "BucketsNum",
        "ReplicationNum",
        "DistCols",
        "IsStable",
    ]
    db_id = engine.catalog.get_database("d").id
    a, b = engine.catalog.load_table("d", "a"), engine.catalog.load_table("d", "b")
    (row,) = result.rows
    group_id = engine.catalog.get_colocation_group("d", "g").id
    assert tuple(row) == (f"{db_id}.{group_id}", f"{db_id}_g", f"{a.id}, {b.id}", "4", "1", "int, varchar(10)", "true")
    detail = rows(engine, f"SHOW PROC '/colocation_group/{db_id}.{group_id}'")
    assert detail == [(str(i), "local") for i in range(4)]
    assert "colocate_with" in rows(engine, "SHOW CREATE TABLE b")[0][1]
    with pytest.raises(AnalysisError, match="Invalid group id: 1.2"):
        run(engine, "SHOW PROC '/colocation_group/1.2'")


@pytest.mark.parametrize(
    ("cols", "dist", "props", "message"),
    [
        (
            "k1 INT, k2 VARCHAR(10), v INT",
            "HASH(k1, k2) BUCKETS 8",
            '"colocate_with" = "g"',
            "Colocate tables must have same bucket num: 8 should be 4",
        ),
        (
            "k1 INT, k2 VARCHAR(10), v INT",
            "HASH(k1) BUCKETS 4",
            '"colocate_with" = "g"',
            "Colocate tables distribution columns size must be same: 1 should be 2",
        ),
        (
            "k1 BIGINT, k2 VARCHAR(10), v INT",
            "HASH(k1, k2) BUCKETS 4",
            '"colocate_with" = "g"',
            "Colocate tables distribution columns must have the same data type: k1(bigint) should be int",
        ),
        (
            "k1 INT, k2 VARCHAR(10), v INT",
            "HASH(k1, k2) BUCKETS 4",
            '"colocate_with" = "g", "replication_num" = "3"',
            "Colocate tables must have same replication allocation: { tag.location.default: 3 } should be { tag.location.default: 1 }",
        ),
        (
            "k1 INT, k2 VARCHAR(10), v INT",
            "RANDOM BUCKETS 4",
            '"colocate_with" = "g2"',
            "Random distribution for colocate table is unsupported",
        ),
    ],
)
def test_a_table_that_does_not_fit_the_group_is_refused_and_not_created(engine, cols, dist, props, message):
    create(engine, "a")
    with pytest.raises(AnalysisError) as err:
        create(engine, "c", cols=cols, dist=dist, props=props)
    assert str(err.value.message if hasattr(err.value, "message") else err.value) == message
    assert not engine.catalog.table_exists("d", "c")
    assert len(groups(engine)) == 1


def test_groups_are_per_database_unless_global(engine):
    run(engine, "CREATE DATABASE e")
    create(engine, "a")
    create(engine, "e.a", dist="HASH(k1, k2) BUCKETS 7")  # e's own group g
    create(engine, "x", props='"colocate_with" = "__global__gg"')
    with pytest.raises(AnalysisError, match="same bucket num: 7 should be 4"):
        create(engine, "e.y", dist="HASH(k1, k2) BUCKETS 7", props='"colocate_with" = "__global__gg"')
    create(engine, "e.y", props='"colocate_with" = "__global__gg"')
    names = sorted(r[1] for r in groups(engine))
    d_id, e_id = engine.catalog.get_database("d").id, engine.catalog.get_database("e").id
    assert names == sorted(["__global__gg", f"{d_id}_g", f"{e_id}_g"])
    glob = next(r for r in groups(engine) if r[1] == "__global__gg")
    assert glob[0].startswith("0.")
    run(engine, "DROP DATABASE e FORCE")
    assert sorted(r[1] for r in groups(engine)) == sorted(["__global__gg", f"{d_id}_g"])


def test_alter_set_joins_and_leaves_groups(engine):
    create(engine, "a")
    create(engine, "b", props='"replication_num" = "1"')
    run(engine, 'ALTER TABLE b SET ("colocate_with" = "g")')
    assert groups(engine)[0][2].count(",") == 1
    with pytest.raises(AnalysisError, match="table b is colocate table, cannot change replicationNum"):
        run(engine, 'ALTER TABLE b SET ("replication_num" = "2")')
    run(engine, 'ALTER TABLE b SET ("colocate_with" = "")')
    run(engine, 'ALTER TABLE a SET ("colocate_with" = "h")')  # a new group of its own; g is gone
    assert [r[1].split("_", 1)[1] for r in groups(engine)] == ["h"]
    create(engine, "c", dist="HASH(k1) BUCKETS 4", props='"replication_num" = "1"')
    with pytest.raises(AnalysisError, match="distribution columns size must be same: 1 should be 2"):
        run(engine, 'ALTER TABLE c SET ("colocate_with" = "h")')
    assert "colocate_with" not in str(engine.catalog.load_table("d", "c").definition.properties)


def test_partitions_of_members_follow_the_group(engine):
    run(
        engine,
        """CREATE TABLE p (k1 INT, k2 VARCHAR(10), v INT) DUPLICATE KEY(k1)
        PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN (10))
        DISTRIBUTED BY HASH(k1, k2) BUCKETS 4 PROPERTIES ("colocate_with" = "g")""",
    )
    with pytest.raises(AnalysisError, match="Colocate tables must have same bucket num: 3 should be 4"):
        run(engine, "ALTER TABLE p ADD PARTITION p2 VALUES LESS THAN (20) DISTRIBUTED BY HASH(k1, k2) BUCKETS 3")
    run(engine, "ALTER TABLE p ADD PARTITION p2 VALUES LESS THAN (20)")
    assert [p.buckets for p in engine.catalog.load_table("d", "p").partitions] == [4, 4]
    # BUCKETS AUTO joining an existing group takes the group's count
    run(
        engine,
        """CREATE TABLE q (k1 INT, k2 VARCHAR(10), v INT) DUPLICATE KEY(k1)
        DISTRIBUTED BY HASH(k1, k2) BUCKETS AUTO PROPERTIES ("colocate_with" = "g")""",
    )
    assert [p.buckets for p in engine.catalog.load_table("d", "q").partitions] == [4]
    with pytest.raises(
        AnalysisError,
        match="Dynamic partition buckets must equal the distribution buckets if creating a colocate table: 4",
    ):
        run(
            engine,
            """CREATE TABLE r (k1 DATE, k2 VARCHAR(10), v INT) DUPLICATE KEY(k1)
            PARTITION BY RANGE(k1) () DISTRIBUTED BY HASH(k1, k2) BUCKETS 4
            PROPERTIES ("colocate_with" = "gd", "dynamic_partition.time_unit" = "DAY", "dynamic_partition.end" = "2",
            "dynamic_partition.prefix" = "p", "dynamic_partition.buckets" = "5")""",
        )


def test_the_group_lives_while_a_member_is_in_the_recycle_bin(engine):
    create(engine, "a")
    a_id = engine.catalog.load_table("d", "a").id
    run(engine, "DROP TABLE a")
    assert groups(engine)[0][2] == str(a_id)  # Doris: removed from the group when erased
    run(engine, "RECOVER TABLE a")
    run(engine, "ALTER TABLE a RENAME a2")
    assert groups(engine)[0][2] == str(a_id)
    run(engine, "DROP TABLE a2 FORCE")
    assert groups(engine) == []
    create(engine, "b")
    run(engine, "DROP DATABASE d")
    assert len(groups(engine)) == 1
    run(engine, "CREATE DATABASE d; USE d")
    create(engine, "c", dist="HASH(k1, k2) BUCKETS 9")  # the dropped database's group is out of reach
    run(engine, "DROP DATABASE d FORCE")
    run(engine, "RECOVER DATABASE d; USE d")
    assert [r[3] for r in groups(engine)] == ["4"]


def test_admin_set_colocation_group_stability(engine):
    create(engine, "a")
    run(engine, "ADMIN SET COLOCATION GROUP g UNSTABLE")
    assert groups(engine)[0][6] == "false"
    run(engine, "ADMIN SET COLOCATION GROUP d.g STABLE")
    assert groups(engine)[0][6] == "true"
    with pytest.raises(DorisqlError, match="Colocate group 'nope' does not exist"):
        run(engine, "ADMIN SET COLOCATION GROUP nope STABLE")
    run(engine, 'ADMIN SET FRONTEND CONFIG ("disable_colocate_join" = "true")')
    assert engine.frontend("disable_colocate_join") == "true"
