"""Views (CREATE [OR REPLACE] VIEW, ALTER VIEW, DROP VIEW, SHOW CREATE VIEW), end to end through
the engine on real Delta tables: expanded by the planner as derived tables (partition pruning
inside), listed as Doris lists them (SHOW FULL TABLES, information_schema), one namespace with
tables, Doris's messages, privileges, and what dbt-doris sends."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from dorisql import ast
from dorisql.errors import AccessDeniedError, AlreadyExistsError, DorisqlError

from .conftest import rows, run

T = """CREATE TABLE vt (k INT, dt DATE, v VARCHAR(10)) DUPLICATE KEY(k)
    PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ('2024-02-01'),
                            PARTITION p2 VALUES LESS THAN ('2024-03-01'))
    DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")"""


def _error(engine, sql: str) -> DorisqlError:
    with pytest.raises(DorisqlError) as err:
        run(engine, sql)
    return err.value


def test_views_read_list_and_refuse_as_doris(engine, make_engine, spark):
    run(engine, T)
    run(engine, "INSERT INTO vt VALUES (1, '2024-01-05', 'a'), (2, '2024-02-05', 'b')")
    # dbt-doris's view materialization: create or replace, backquoted and qualified
    run(engine, "create or replace view `d`.`v1` as select k, dt, upper(v) from vt")
    assert rows(engine, "SELECT * FROM v1 ORDER BY k") == [(1, dt.date(2024, 1, 5), "A"), (2, dt.date(2024, 2, 5), "B")]
    assert run(engine, "SELECT * FROM v1").columns == ["k", "dt", "upper(v)"]
    # a column list renames; OR REPLACE changes the query
    run(engine, "CREATE OR REPLACE VIEW v1 (kk COMMENT 'key', d, u) COMMENT 'c1' AS SELECT k, dt, upper(v) FROM vt")
    assert rows(engine, "SELECT kk, u FROM v1 WHERE d > '2024-01-31'") == [(2, "B")]
    # the WHERE over the view prunes the table's partitions inside it
    plan = "\n".join(r[0] for r in run(engine, "EXPLAIN SELECT * FROM v1 WHERE d = '2024-01-05'").rows)
    assert "partitions=1/2 (p1)" in plan
    # views on views, joined with a table
    run(engine, "CREATE VIEW v2 AS SELECT a.kk, b.v FROM v1 a JOIN vt b ON a.kk = b.k")
    assert rows(engine, "SELECT * FROM v2 ORDER BY kk") == [(1, "a"), (2, "b")]
    # how Doris shows them
    create = "CREATE VIEW `v1` (`kk` COMMENT 'key', `d`, `u`) COMMENT 'c1' AS SELECT k, dt, upper(v) FROM vt"
    shown = run(engine, "SHOW CREATE VIEW v1")
    assert shown.columns == ["View", "Create View", "character_set_client", "collation_connection"]
    assert [tuple(r) for r in shown.rows] == [("v1", create, "utf8mb4", "utf8mb4_0900_bin")]
    assert [tuple(r) for r in run(engine, "SHOW CREATE TABLE v1").rows] == [tuple(r) for r in shown.rows]
    assert rows(engine, "DESC v1") == [
        ("kk", "int", "Yes", "false", None, ""),
        ("d", "date", "Yes", "false", None, ""),
        ("u", "varchar(65533)", "Yes", "false", None, ""),
    ]
    assert ("v1", "VIEW") in rows(engine, "SHOW FULL TABLES")
    assert ("vt", "BASE TABLE") in rows(engine, "SHOW FULL TABLES")
    assert rows(engine, "SHOW TABLES LIKE 'v_'") == [("v1",), ("v2",), ("vt",)]
    # dbt-doris lists relations and tells views from tables by information_schema.tables
    assert rows(
        engine,
        "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'd' "
        "AND table_name LIKE 'v%' ORDER BY table_name",
    ) == [("v1", "VIEW"), ("v2", "VIEW"), ("vt", "BASE TABLE")]
    assert rows(
        engine, "SELECT table_name, view_definition, check_option FROM information_schema.views WHERE table_name='v2'"
    ) == [("v2", "SELECT a.kk, b.v FROM v1 a JOIN vt b ON a.kk = b.k", "NONE")]
    # one namespace; the wrong DROP; a bad query changes nothing
    assert str(_error(engine, "DROP TABLE v1")) == "'d.v1' is not TABLE. Use 'DROP VIEW d.v1'."
    assert _error(engine, "DROP TABLE v1").code == 1347
    assert str(_error(engine, "DROP VIEW vt")) == "'d.vt' is not VIEW. Use 'DROP TABLE d.vt'."
    err = _error(engine, "CREATE TABLE v1 (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
    assert isinstance(err, AlreadyExistsError) and str(err) == "Table 'v1' already exists"
    assert str(_error(engine, "CREATE VIEW vt AS SELECT 1")) == "Table 'vt' already exists"
    assert str(_error(engine, "CREATE VIEW v1 AS SELECT 1")) == "Table 'v1' already exists"
    run(engine, "CREATE VIEW IF NOT EXISTS v1 AS SELECT 1")  # nothing done
    assert "no_such" in str(_error(engine, "CREATE VIEW bad AS SELECT no_such FROM vt"))
    assert "different column counts" in str(_error(engine, "CREATE VIEW bad (a, b) AS SELECT k FROM vt"))
    assert engine.catalog.get_view("d", "bad") is None
    # ALTER VIEW replaces the query (the comment stays); the view survives a new engine
    run(engine, "ALTER VIEW v1 (kk, d, u) AS SELECT k, dt, lower(v) FROM vt")
    again = make_engine(engine.warehouse, spark=spark)
    again.execute_sql("USE d")
    assert rows(again, "SELECT u FROM v1 ORDER BY kk") == [("a",), ("b",)]
    assert engine.catalog.get_view("d", "v1").comment == "c1"
    # the underlying table gone: the view fails when read, not before
    run(engine, "CREATE TABLE vx (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1')")
    run(engine, "CREATE VIEW v3 AS SELECT k FROM vx")
    run(engine, "DROP TABLE vx")
    assert "vx" in str(_error(engine, "SELECT * FROM v3"))
    # dbt's drop, and DROP VIEW without IF EXISTS on a missing view
    run(engine, "drop view if exists `d`.`v3`")
    run(engine, "drop view if exists `d`.`v3`")
    assert _error(engine, "DROP VIEW v3").code == 1051
    assert ("v3",) not in rows(engine, "SHOW TABLES")


def test_a_view_is_read_with_select_on_the_view_only(engine, make_engine, spark):
    run(
        engine,
        "CREATE TABLE IF NOT EXISTS secret (k INT, s VARCHAR(8)) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        "PROPERTIES ('replication_num' = '1')",
    )
    run(engine, "INSERT INTO secret VALUES (1, 'x'), (2, 'y')")
    run(engine, "CREATE VIEW pub AS SELECT k FROM secret")
    run(engine, "CREATE USER IF NOT EXISTS vu; GRANT SELECT_PRIV ON d.pub TO vu")
    user = make_engine(engine.warehouse, spark=spark)
    user.user = ast.UserIdentity("vu", "%")
    user.execute_sql("USE d")
    assert rows(user, "SELECT * FROM pub ORDER BY k") == [(1,), (2,)]
    assert rows(user, "SHOW TABLES") == [("pub",)]
    with pytest.raises(AccessDeniedError):
        run(user, "SELECT * FROM secret")
    with pytest.raises(AccessDeniedError):  # CREATE VIEW needs CREATE on the view
        run(user, "CREATE VIEW mine AS SELECT k FROM pub")


def test_a_view_lists_its_columns_and_is_no_target(engine, make_engine, spark):
    run(
        engine,
        "CREATE TABLE vc (k INT NOT NULL, s VARCHAR(10), m DECIMAL(10, 2)) UNIQUE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1')",
    )
    run(engine, "INSERT INTO vc VALUES (1, 'a', 1.5)")
    run(engine, "CREATE VIEW vcv (a COMMENT 'the key', b, total) AS SELECT k, s, m * 2 FROM vc")
    # information_schema.columns (dbt's catalog query, SQLAlchemy): the view's columns as DESC shows them
    columns = (
        "SELECT table_name, column_name, ordinal_position, is_nullable, data_type, column_type, "
        "character_maximum_length, numeric_precision, numeric_scale, column_key, column_comment "
        "FROM information_schema.columns WHERE table_schema = 'd' AND table_name LIKE 'vc%' "
        "ORDER BY table_name, ordinal_position"
    )
    assert rows(engine, columns) == [
        ("vc", "k", 1, "NO", "int", "int", None, 10, 0, "UNI", ""),
        ("vc", "s", 2, "YES", "varchar", "varchar(10)", 10, None, None, "", ""),
        ("vc", "m", 3, "YES", "decimal", "decimal(10,2)", None, 10, 2, "", ""),
        ("vcv", "a", 1, "NO", "int", "int", None, 10, 0, "", "the key"),
        ("vcv", "b", 2, "YES", "varchar", "varchar(10)", 10, None, None, "", ""),
        ("vcv", "total", 3, "YES", "decimal", "decimal(12,2)", None, 12, 2, "", ""),
    ]
    assert [(r[0], r[1]) for r in rows(engine, "DESC vcv")] == [
        ("a", "int"),
        ("b", "varchar(10)"),
        ("total", "decimal(12,2)"),
    ]
    # a user sees the columns of the views (and tables) they may see, only
    run(engine, "CREATE USER IF NOT EXISTS vcu; GRANT SELECT_PRIV ON d.vcv TO vcu")
    user = make_engine(engine.warehouse, spark=spark)
    user.user = ast.UserIdentity("vcu", "%")
    assert {r[0] for r in rows(user, "SELECT table_name FROM information_schema.columns WHERE table_schema = 'd'")} == {
        "vcv"
    }
    # INSERT into a view, ALTER TABLE on a view, a view as REPLACE WITH TABLE's table: Doris's
    # refusals (BindSink; Alter.processAlterTable; getTableOrMetaException), nothing changed
    before = engine.catalog.load_table("d", "vc").version
    for sql, message in [
        ("INSERT INTO vcv VALUES (2, 'b', 1)", "the target table of insert into is not an OLAP table"),
        ("INSERT INTO vcv WITH LABEL l_vcv SELECT * FROM vc", "the target table of insert into is not an OLAP table"),
        ("INSERT OVERWRITE TABLE vcv SELECT * FROM vc", "the target table of insert into is not an OLAP table"),
        ("ALTER TABLE vcv RENAME vcv2", "Do not support alter VIEW table[vcv]"),
        ("ALTER TABLE vcv ADD COLUMN x INT", "Do not support alter VIEW table[vcv]"),
        ("CREATE INDEX ix ON vcv (b)", "Do not support alter VIEW table[vcv]"),
        (
            "ALTER TABLE vc REPLACE WITH TABLE vcv",
            "Type of vcv doesn't match, expected data tables=[OLAP, MATERIALIZED_VIEW]",
        ),
    ]:
        err = _error(engine, sql)
        assert str(err) == message and err.code == 1105, sql
    assert rows(engine, "SELECT * FROM vcv") == [(1, "a", Decimal("3.00"))]
    assert engine.catalog.load_table("d", "vc").version == before
    assert engine.catalog.get_view("d", "vcv2") is None and engine.catalog.get_load("d", "l_vcv") is None
    assert _error(engine, "ALTER TABLE nope RENAME x").code == 1146  # a missing table is still unknown
