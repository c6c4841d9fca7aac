"""CREATE TABLE ... AS SELECT, CREATE TABLE ... LIKE and UPDATE on a real engine (issue 14, item 5).

Doris's rules: CreateTableCommand / CreateTableInfo.validateCreateTableAsSelect (CTAS column types,
HASH(first column) BUCKETS 10), InternalCatalog.createTableLike, UpdateCommand (only UNIQUE KEY
tables, only value columns). One engine for the module; tables are small.
"""

from __future__ import annotations

import threading

import pytest

from dorisql.errors import AnalysisError, DorisqlError

from .conftest import delta, rows, run, table_folders
from .test_crash_consistency import assert_consistent, killed_dorisql

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def src(engine):
    run(
        engine,
        """CREATE TABLE src (k INT NOT NULL, name VARCHAR(20), note STRING, amount DECIMAL(10, 2))
        UNIQUE KEY(k)
        PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (100))
        DISTRIBUTED BY HASH(k) BUCKETS 2;
        INSERT INTO src VALUES (1, 'a', 'x', 1.50), (2, 'b', NULL, 2.00), (11, 'c', 'z', 3.25)""",
    )
    return "src"


def desc(engine, table):
    return [(r[0], r[1], r[2], r[3]) for r in rows(engine, f"DESC {table}")]


def test_ctas_columns_types_defaults_and_rows(engine, src):
    run(engine, "CREATE TABLE c1 AS SELECT k, name, note, amount, concat(name, '!') AS shout, NULL AS nothing FROM src")
    assert desc(engine, "c1") == [
        ("k", "int", "No", "true"),  # NOT NULL kept from the source column
        ("name", "varchar(20)", "Yes", "true"),  # a table column keeps its type
        ("note", "text", "Yes", "false"),
        ("amount", "decimal(10,2)", "Yes", "false"),
        ("shout", "varchar(65533)", "Yes", "false"),  # an expression string: VARCHAR(65533)
        ("nothing", "tinyint", "Yes", "false"),  # NULL literal: TINYINT
    ]
    create = rows(engine, "SHOW CREATE TABLE c1")[0][1]
    assert "DUPLICATE KEY(`k`, `name`)" in create
    assert "DISTRIBUTED BY HASH(`k`) BUCKETS 10" in create
    assert sorted(rows(engine, "SELECT k, name, shout FROM c1")) == [(1, "a", "a!"), (2, "b", "b!"), (11, "c", "c!")]
    assert delta(engine, "c1").version() == 2  # CREATE (versions 0, 1: properties), the rows in one commit


def test_ctas_first_string_column_and_clauses(engine, src):
    run(
        engine,
        """CREATE TABLE c2 UNIQUE KEY(note) PARTITION BY LIST(note) (PARTITION px VALUES IN ('x'),
        PARTITION pz VALUES IN ('z')) DISTRIBUTED BY HASH(note) BUCKETS 3 PROPERTIES ("replication_num" = "1")
        AS SELECT note, k FROM src WHERE note IS NOT NULL""",
    )
    assert desc(engine, "c2")[0] == ("note", "varchar(65533)", "Yes", "true")  # STRING first: VARCHAR(65533)
    assert sorted(rows(engine, "SELECT note, k FROM c2 PARTITION (pz)")) == [("z", 11)]
    assert {r[1]: r[8] for r in rows(engine, "SHOW PARTITIONS FROM c2")} == {"px": 3, "pz": 3}


def test_ctas_failure_leaves_nothing(engine, src):
    folders = table_folders(engine)
    # rows that fit no partition: the load fails, so does the CTAS, and no table or folder stays
    with pytest.raises(DorisqlError, match="^Failed to execute CTAS Reason: Insert has filtered data"):
        run(
            engine,
            "CREATE TABLE bad PARTITION BY RANGE(k) (PARTITION p VALUES LESS THAN (5)) "
            "DISTRIBUTED BY HASH(k) BUCKETS 1 AS SELECT k FROM src",
        )
    with pytest.raises(AnalysisError, match="Duplicate column name 'k'"):
        run(engine, "CREATE TABLE bad AS SELECT k, k FROM src")
    assert "bad" not in engine.catalog.list_tables("d")
    assert table_folders(engine) == folders
    with pytest.raises(DorisqlError, match="Table 'src' already exists"):
        run(engine, "CREATE TABLE src AS SELECT 1 AS k")
    run(engine, "CREATE TABLE IF NOT EXISTS src AS SELECT 1 AS k")  # nothing happens
    assert len(rows(engine, "SELECT * FROM src")) == 3


def test_like_copies_definition_and_partitions_without_rows(engine, src):
    run(engine, "ALTER TABLE src ADD PARTITION p3 VALUES LESS THAN (200)")
    run(engine, "CREATE TABLE l1 LIKE src")
    source = rows(engine, "SHOW CREATE TABLE src")[0][1]
    copy = rows(engine, "SHOW CREATE TABLE l1")[0][1]
    assert copy == source.replace("CREATE TABLE `src`", "CREATE TABLE `l1`")
    assert [r[1] for r in rows(engine, "SHOW PARTITIONS FROM l1")] == ["p1", "p2", "p3"]
    assert rows(engine, "SELECT count(*) FROM l1") == [(0,)]
    run(engine, "CREATE TABLE IF NOT EXISTS l1 LIKE src")
    with pytest.raises(DorisqlError, match="Table 'l1' already exists"):
        run(engine, "CREATE TABLE l1 LIKE src")
    with pytest.raises(DorisqlError, match=r"^Failed to execute CREATE TABLE LIKE nope\. Reason: Unknown table 'nope'"):
        run(engine, "CREATE TABLE l2 LIKE nope")


def test_update_value_columns(engine, src):
    run(engine, "CREATE TABLE u LIKE src; INSERT INTO u SELECT * FROM src")
    result = run(engine, "UPDATE u SET amount = amount * 2, note = concat(name, '-new') WHERE k < 10")
    assert result.affected_rows == 2
    assert sorted(rows(engine, "SELECT k, note, amount FROM u")) == [
        (1, "a-new", pytest.approx(3.0)),
        (2, "b-new", pytest.approx(4.0)),
        (11, "z", pytest.approx(3.25)),
    ]
    # UPDATE ... FROM: the joined table decides the new value
    run(
        engine,
        "CREATE TABLE fix (id INT, v STRING) DISTRIBUTED BY HASH(id) BUCKETS 1; INSERT INTO fix VALUES (11, 'q')",
    )
    run(engine, "UPDATE u t SET t.note = fix.v FROM fix WHERE t.k = fix.id")
    assert sorted(rows(engine, "SELECT k, note FROM u")) == [(1, "a-new"), (2, "b-new"), (11, "q")]


@pytest.mark.parametrize(
    "sql, message",
    [
        ("UPDATE u SET k = 5 WHERE k = 1", "Only value columns of unique table could be updated"),
        ("UPDATE u SET nope = 5", "unknown column in assignment list: nope"),
        ("UPDATE u SET other.note = 'x'", "column in assignment list is invalid, other.note"),
        ("UPDATE fix SET v = 'x'", "Only unique table could be updated."),
    ],
)
def test_update_refusals(engine, src, sql, message):
    if "u" not in engine.catalog.list_tables("d"):
        test_update_value_columns(engine, src)
    before = delta(engine, "u").version()
    with pytest.raises(AnalysisError) as info:
        run(engine, sql)
    assert str(info.value) == message
    assert delta(engine, "u").version() == before


def test_concurrent_updates_each_commit_once(engine, src):
    """Two sessions updating different columns of the same rows: both commit, one version each;
    the later commit's row wins (UNIQUE merge)."""
    run(engine, "CREATE TABLE cu LIKE src; INSERT INTO cu SELECT * FROM src")
    before = delta(engine, "cu").version()
    errors: list[BaseException] = []

    def work(sql):
        try:
            run(engine, sql)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=work, args=("UPDATE cu SET amount = 9 WHERE k = 1",)),
        threading.Thread(target=work, args=("UPDATE cu SET name = 'zz' WHERE k = 2",)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert delta(engine, "cu").version() == before + 2
    got = dict((r[0], (r[1], float(r[2]))) for r in rows(engine, "SELECT k, name, amount FROM cu"))
    assert got[1] == ("a", 9.0) and got[2] == ("zz", 2.0)


def test_ctas_killed_before_the_catalog_entry_leaves_no_table(engine, src):
    """The rows are committed into the new Delta table, then the process dies before the catalog
    entry: no table, only an unreferenced folder (a LEFTOVER for the trash job); the CTAS then
    runs again to completion."""
    sql = "CREATE TABLE crashed AS SELECT k, name FROM src"
    killed_dorisql(engine.warehouse, sql, "before:dorisql.catalog.store:SqliteCatalog.create_table")
    assert "crashed" not in engine.catalog.list_tables("d")
    assert_consistent(engine)
    run(engine, sql)
    assert len(rows(engine, "SELECT * FROM crashed")) == 3


def test_ctas_keeps_a_source_columns_default_and_comment(engine):
    """InternalCatalog.createTableAsSelect: a column read as-is keeps its DEFAULT and COMMENT
    (Doris's test_ctas.out: `test_default_timestamp` datetime NULL DEFAULT CURRENT_TIMESTAMP);
    an expression gets neither. Loads into the new table then fill the defaults."""
    run(
        engine,
        """CREATE TABLE dsrc (k INT, ts DATETIME DEFAULT CURRENT_TIMESTAMP COMMENT 'made at',
        n INT DEFAULT "7" COMMENT 'seven') DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1;
        INSERT INTO dsrc (k) VALUES (1)""",
    )
    run(engine, "CREATE TABLE dcopy AS SELECT k, ts AS made, n, n + 1 AS m FROM dsrc")
    create = rows(engine, "SHOW CREATE TABLE dcopy")[0][1]
    assert '`made` datetime NULL DEFAULT CURRENT_TIMESTAMP COMMENT "made at",' in create
    assert '`n` int NULL DEFAULT "7" COMMENT "seven",' in create
    (m_line,) = [line for line in create.splitlines() if line.startswith("  `m` ")]
    assert "DEFAULT" not in m_line and "COMMENT" not in m_line  # an expression: neither
    run(engine, "INSERT INTO dcopy (k) VALUES (2)")
    ((k, made, n, m),) = rows(engine, "SELECT k, made, n, m FROM dcopy WHERE k = 2")
    assert made is not None and n == 7 and m is None
