"""ALTER TABLE a REPLACE WITH TABLE b (Doris Alter.processReplaceTable), end to end on real Delta
tables: the names exchange (swap, the default) or b takes a's name and a is dropped (recycle bin,
or for good with FORCE); dbt-doris's table materialization; one catalog transaction under a
kill -9 and a racing reader."""

from __future__ import annotations

import threading

import pytest

from dorisql.auth.privileges import ALTER, required
from dorisql.catalog.store import SqliteCatalog
from dorisql.errors import DorisqlError, UnknownTableError
from dorisql.syntax.parser import parse_statement
from dorisql.tablets.tables import meta_dir

from .conftest import rows, run
from crashkit import killed_dorisql

A = """CREATE TABLE {name} (k INT, v VARCHAR(8)) DUPLICATE KEY(k)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
    DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")"""
B = """CREATE TABLE {name} (id BIGINT, w INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3
    PROPERTIES ("replication_num" = "1")"""


def _pair(engine, a: str, b: str) -> None:
    run(engine, f"DROP TABLE IF EXISTS {a} FORCE; DROP TABLE IF EXISTS {b} FORCE")
    run(engine, A.format(name=a) + "; " + B.format(name=b))
    run(engine, f"INSERT INTO {a} VALUES (1, 'x'), (11, 'y'); INSERT INTO {b} VALUES (7, 70)")


def test_swap_exchanges_names_data_and_definitions(engine):
    _pair(engine, "sa", "sb")
    ids = {n: engine.catalog.load_table("d", n).id for n in ("sa", "sb")}
    run(engine, "ALTER TABLE sa REPLACE WITH TABLE sb")
    assert rows(engine, "SELECT * FROM sa") == [(7, 70)]
    assert sorted(rows(engine, "SELECT * FROM sb")) == [(1, "x"), (11, "y")]
    assert {n: engine.catalog.load_table("d", n).id for n in ("sa", "sb")} == {"sa": ids["sb"], "sb": ids["sa"]}
    # SHOW CREATE TABLE follows the data; the unpartitioned table's one partition takes its new name
    assert rows(engine, "SHOW CREATE TABLE sa")[0][1].startswith("CREATE TABLE `sa` (\n  `id` bigint")
    assert "PARTITION p1 VALUES" in rows(engine, "SHOW CREATE TABLE sb")[0][1]
    assert [r[1] for r in rows(engine, "SHOW PARTITIONS FROM sa")] == ["sa"]
    # loads go on into the tables under their new names; explicit swap=true swaps back
    run(engine, "INSERT INTO sa VALUES (8, 80); INSERT INTO sb VALUES (2, 'z')")
    run(engine, "ALTER TABLE sb REPLACE WITH TABLE sa PROPERTIES ('swap' = 'TRUE')")
    assert sorted(rows(engine, "SELECT * FROM sb")) == [(7, 70), (8, 80)]
    assert sorted(rows(engine, "SELECT * FROM sa")) == [(1, "x"), (2, "z"), (11, "y")]
    assert rows(engine, "ADMIN CHECK TABLE sa") == [] and rows(engine, "ADMIN CHECK TABLE sb") == []


def test_without_swap_the_replaced_table_goes_to_the_recycle_bin_or_for_good(engine):
    _pair(engine, "na", "nb")
    old_a = engine.catalog.load_table("d", "na")
    # dbt-doris writes the value as Jinja renders `not True`: 'False' (Boolean.parseBoolean)
    run(engine, "ALTER TABLE na REPLACE WITH TABLE `nb` PROPERTIES('swap' = 'False');")
    assert rows(engine, "SELECT * FROM na") == [(7, 70)]
    assert "nb" not in engine.catalog.list_tables("d")
    assert [(r[0], r[1], str(r[3])) for r in rows(engine, "SHOW CATALOG RECYCLE BIN") if r[1] == "na"] == [
        ("Table", "na", str(old_a.id))
    ]
    assert meta_dir(engine.warehouse, old_a).is_dir()  # the bin keeps its data: RECOVER under a new name
    run(engine, "RECOVER TABLE na AS na_old")
    assert sorted(rows(engine, "SELECT * FROM na_old")) == [(1, "x"), (11, "y")]
    # FORCE: the replaced table is erased, its folder removed after the catalog commit
    run(engine, B.format(name="nc") + "; INSERT INTO nc VALUES (9, 90)")
    current = engine.catalog.load_table("d", "na")
    run(engine, "ALTER TABLE na REPLACE WITH TABLE nc PROPERTIES ('swap' = 'false') FORCE")
    assert rows(engine, "SELECT * FROM na") == [(9, 90)]
    assert not meta_dir(engine.warehouse, current).exists()
    assert all(str(r[3]) != str(current.id) for r in rows(engine, "SHOW CATALOG RECYCLE BIN"))


def test_bad_statements_change_nothing(engine):
    _pair(engine, "ea", "eb")
    before = {n: engine.catalog.load_table("d", n).version for n in ("ea", "eb")}
    cases = [
        ("ALTER TABLE ea REPLACE WITH TABLE eb PROPERTIES ('swap' = 'true', 'x' = '1')", "Unknown properties: [x]"),
        ("ALTER TABLE ea REPLACE WITH TABLE nope", "table not found, tableName=nope"),
        ("ALTER TABLE ea REPLACE WITH TABLE ea", "Can not replace table 'ea' with itself"),
        (
            "ALTER TABLE ea REPLACE WITH TABLE eb, ADD PARTITION p3 VALUES LESS THAN (30)",
            "Alter operation ADD_PARTITION conflicts with operation REPLACE_TABLE",
        ),
    ]
    for sql, message in cases:
        with pytest.raises(DorisqlError, match=message.replace("(", r"\(").replace("[", r"\[")):
            run(engine, sql)
    with pytest.raises(UnknownTableError):
        run(engine, "ALTER TABLE nope REPLACE WITH TABLE eb")
    assert {n: engine.catalog.load_table("d", n).version for n in ("ea", "eb")} == before


def test_dbt_table_materialization_runs_again_and_again(engine):
    """What dbt-doris 1.0.0 sends for a table model (materializations/table/table.sql and
    adapters/relation.sql): the first run renames the intermediate table, later runs and
    --full-refresh exchange it in with swap = False, then drop it if it exists."""
    run(engine, "DROP TABLE IF EXISTS model FORCE")

    def dbt_run(value: int) -> None:
        run(engine, "drop table if exists `d`.`model__dbt_tmp`")
        run(
            engine,
            "create table `d`.`model__dbt_tmp` DUPLICATE KEY (id) DISTRIBUTED BY HASH (id) BUCKETS 1 "
            f'PROPERTIES ("replication_num" = "1") as select {value} as id',
        )
        if "model" in engine.catalog.list_tables("d"):
            run(engine, "ALTER TABLE `d`.`model` REPLACE WITH TABLE `model__dbt_tmp` PROPERTIES('swap' = 'False');")
        else:
            run(engine, "drop table if exists `d`.`model`")
            run(engine, "alter table `d`.`model__dbt_tmp` rename model")
        run(engine, "drop table if exists `d`.`model__dbt_tmp`")

    for value in (1, 2, 3):
        dbt_run(value)
        assert rows(engine, "SELECT id FROM model") == [(value,)]
    assert "model__dbt_tmp" not in engine.catalog.list_tables("d")


def test_replace_needs_alter_on_both_tables():
    """Doris checks ALTER on the ALTERed table only; here the other table's rows would become
    readable under the first one's grants, so it needs ALTER too (docs/security.md)."""
    needs = required(parse_statement("ALTER TABLE a REPLACE WITH TABLE b"), "d")
    assert [(n.privileges, n.db, n.table) for n in needs] == [
        (frozenset((ALTER,)), "d", "a"),
        (frozenset((ALTER,)), "d", "b"),
    ]


def test_killed_inside_the_catalog_transaction_changes_nothing(spark, tmp_path, make_engine):
    """SIGKILL after the replaced table's row is deleted and the other one renamed, before the
    transaction commits (at the recycle-bin insert): both tables as they were."""
    warehouse = tmp_path / "wh"
    setup = make_engine(warehouse, spark=spark)
    run(setup, "CREATE DATABASE d; USE d")
    _pair(setup, "ka", "kb")
    killed_dorisql(
        warehouse,
        "ALTER TABLE ka REPLACE WITH TABLE kb PROPERTIES ('swap' = 'false')",
        "before:dorisql.catalog.store:SqliteCatalog._put_in_bin",
    )
    engine = make_engine(warehouse, spark=spark)
    run(engine, "USE d")
    assert sorted(rows(engine, "SELECT * FROM ka")) == [(1, "x"), (11, "y")]
    assert rows(engine, "SELECT * FROM kb") == [(7, 70)]
    assert rows(engine, "SHOW CATALOG RECYCLE BIN") == []
    # the statement runs again to its end
    run(engine, "ALTER TABLE ka REPLACE WITH TABLE kb PROPERTIES ('swap' = 'false')")
    assert rows(engine, "SELECT * FROM ka") == [(7, 70)]


def test_killed_after_the_commit_of_a_forced_replace(spark, tmp_path, make_engine):
    """SIGKILL after the catalog commit, before FORCE removes the replaced folder: the statement
    has happened; the folder is an unreferenced leftover, not a table."""
    warehouse = tmp_path / "wh"
    setup = make_engine(warehouse, spark=spark)
    run(setup, "CREATE DATABASE d; USE d")
    _pair(setup, "fa", "fb")
    old = setup.catalog.load_table("d", "fa")
    killed_dorisql(
        warehouse,
        "ALTER TABLE fa REPLACE WITH TABLE fb PROPERTIES ('swap' = 'false') FORCE",
        "after:dorisql.catalog.store:SqliteCatalog.replace_table",
    )
    engine = make_engine(warehouse, spark=spark)
    run(engine, "USE d")
    assert engine.catalog.list_tables("d") == ["fa"]
    assert rows(engine, "SELECT * FROM fa") == [(7, 70)] and rows(engine, "ADMIN CHECK TABLE fa") == []
    assert meta_dir(engine.warehouse, old).is_dir() and rows(engine, "SHOW CATALOG RECYCLE BIN") == []


def test_a_racing_reader_never_sees_a_name_missing_or_doubled(spark, tmp_path, make_engine):
    """Another connection lists and loads the tables while one session swaps them 40 times: each
    read sees both names, each on its own table."""
    warehouse = tmp_path / "wh"
    engine = make_engine(warehouse, spark=spark)
    run(engine, "CREATE DATABASE d; USE d")
    run(engine, B.format(name="ra") + "; " + B.format(name="rb"))
    ids = {engine.catalog.load_table("d", n).id for n in ("ra", "rb")}
    reader = SqliteCatalog(warehouse)
    done = threading.Event()
    seen: list[object] = []

    def read() -> None:
        while not done.is_set():
            try:
                names = reader.list_tables("d")
                metas = reader.list_table_metas("d")
            except Exception as exc:  # noqa: BLE001 - reported by the assertion below
                seen.append(exc)
                return
            seen.append((tuple(names), tuple(sorted((m.name, m.id) for m in metas))))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for _ in range(20):
            run(engine, "ALTER TABLE ra REPLACE WITH TABLE rb; ALTER TABLE rb REPLACE WITH TABLE ra")
    finally:
        done.set()
        thread.join()
    assert seen
    for observed in seen:
        assert not isinstance(observed, Exception), observed
        names, metas = observed
        assert names == ("ra", "rb") and [m[0] for m in metas] == ["ra", "rb"] and {m[1] for m in metas} == ids


def test_replace_is_refused_in_the_catalog_when_a_name_moved_meanwhile(tmp_path):
    """The statement found (a, b) by id; another session replaced them since: nothing commits."""
    from dorisql.catalog.model import TableMeta
    from dorisql.errors import CommitConflictError

    catalog = SqliteCatalog(tmp_path)
    catalog.create_database("d")
    definition = parse_statement(B.format(name="x"))
    made = [
        catalog.create_table(TableMeta(id=catalog.next_id(), db="d", name=n, definition=definition)) for n in ("x", "y")
    ]
    with pytest.raises(CommitConflictError):
        catalog.replace_table("d", "x", "y", swap=True, table_ids=(made[1].id, made[0].id))
    assert [(t.name, t.id) for t in catalog.list_table_metas("d")] == [("x", made[0].id), ("y", made[1].id)]
