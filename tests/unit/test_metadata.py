"""Metadata statements of MySQL clients and tools, on the catalog only (no Spark): shapes and
values as Doris shows them (fe-core ShowColumnStmt, ShowTableStatusStmt, ShowVariablesStmt,
FrontendsProcNode, BackendsProcDir)."""

from __future__ import annotations

import pytest

from dorisql.errors import DorisqlError
from dorisql.syntax import parse

SETUP = """
CREATE DATABASE d; USE d;
CREATE TABLE t1 (k INT NOT NULL COMMENT 'the key', v VARCHAR(20), amount DECIMAL(10, 2) DEFAULT "0")
  DUPLICATE KEY(k) COMMENT 'first' DISTRIBUTED BY HASH(k) BUCKETS 2;
CREATE TABLE t2 (k INT, s BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1;
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory, make_engine):
    eng = make_engine(tmp_path_factory.mktemp("wh"))
    eng.execute_sql(SETUP)
    yield eng
    assert not eng.spark_started  # none of these statements needs Spark
    eng.close()


def run(engine, sql):
    return engine.execute_sql(sql)[-1]


def test_show_columns_plain_and_full(engine):
    plain = run(engine, "SHOW COLUMNS FROM t1")
    assert plain.columns == ["Field", "Type", "Null", "Key", "Default", "Extra"]
    assert plain.rows == [
        ("k", "int", "NO", "YES", None, ""),
        ("v", "varchar(20)", "YES", "NO", None, ""),
        ("amount", "decimal(10,2)", "YES", "NO", "0", ""),
    ]
    full = run(engine, "SHOW FULL FIELDS FROM t2 FROM d LIKE 's'")
    assert full.columns == ["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"]
    assert full.rows == [("s", "bigint", "", "YES", "NO", None, "SUM", "", "")]
    assert run(engine, "SHOW FULL COLUMNS IN d.t1 WHERE Field = 'k'").rows[0][-1] == "the key"


def test_desc_extra_is_the_aggregation_of_each_key_model(engine):
    """DESC's Extra (IndexSchemaProcNode): nothing for a key column, else the aggregation type
    Doris keeps (ColumnDefinition.validate): NONE on DUPLICATE and merge-on-write UNIQUE tables,
    REPLACE on merge-on-read ones, the written one on AGGREGATE tables; Default is SQL NULL."""
    assert run(engine, "DESC t1").rows == [
        ("k", "int", "No", "true", None, ""),
        ("v", "varchar(20)", "Yes", "false", None, "NONE"),
        ("amount", "decimal(10,2)", "Yes", "false", "0", "NONE"),
    ]
    assert run(engine, "DESC t2").rows == [
        ("k", "int", "Yes", "true", None, ""),
        ("s", "bigint", "Yes", "false", None, "SUM"),
    ]
    engine.execute_sql(
        """CREATE TABLE mor (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
        PROPERTIES ("enable_unique_key_merge_on_write" = "false");
        CREATE TABLE mow (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"""
    )
    try:
        assert [r[5] for r in run(engine, "DESCRIBE mor").rows] == ["", "REPLACE"]
        assert [r[5] for r in run(engine, "DESC mow").rows] == ["", "NONE"]
        every = run(engine, "DESC mor ALL")
        assert every.rows[0][:2] == ("mor", "UNIQUE_KEYS") and every.rows[1][:2] == ("", "")
        assert [(r[2], r[8]) for r in every.rows] == [("k", ""), ("v", "REPLACE")]
    finally:  # the module's other tests list d's tables
        engine.execute_sql("DROP TABLE mor FORCE; DROP TABLE mow FORCE")


def test_show_full_tables_and_databases(engine):
    full = run(engine, "SHOW FULL TABLES FROM `d`")
    assert full.columns == ["Tables_in_d", "Table_type"]
    assert full.rows == [("t1", "BASE TABLE"), ("t2", "BASE TABLE")]
    assert run(engine, "SHOW TABLES LIKE 't2'").rows == [("t2",)]
    assert run(engine, "SHOW DATABASES").rows == [("d",), ("information_schema",), ("mysql",)]


def test_show_table_status(engine):
    result = run(engine, "SHOW TABLE STATUS LIKE 't%'")
    assert result.columns[:5] == ["Name", "Engine", "Version", "Row_format", "Rows"]
    assert result.columns[-5:] == ["Check_time", "Collation", "Checksum", "Create_options", "Comment"]
    assert len(result.columns) == 18
    t1 = dict(zip(result.columns, result.rows[0]))
    assert (t1["Name"], t1["Engine"], t1["Rows"], t1["Data_length"], t1["Collation"], t1["Comment"]) == (
        "t1",
        "Doris",
        0,
        0,
        "utf-8",
        "first",
    )
    assert [r[0] for r in run(engine, "SHOW TABLE STATUS FROM d WHERE Name = 't2'").rows] == ["t2"]


def test_show_variables_like_and_where(engine):
    result = run(engine, "SHOW VARIABLES LIKE 'sql_mode'")
    assert result.columns == ["Variable_name", "Value"]
    assert result.rows == [("sql_mode", "ONLY_FULL_GROUP_BY")]
    names = [r[0] for r in run(engine, "SHOW SESSION VARIABLES WHERE Variable_name LIKE 'character_set_%'").rows]
    assert names == [
        "character_set_client",
        "character_set_connection",
        "character_set_database",
        "character_set_results",
        "character_set_server",
    ]
    every = dict(run(engine, "SHOW VARIABLES").rows)
    for name in ("lower_case_table_names", "max_allowed_packet", "autocommit", "tx_isolation", "wait_timeout"):
        assert name in every
    assert every["enable_insert_strict"] == "true"  # dorisql's own session variables too
    run(engine, "SET enable_insert_strict = false")
    assert run(engine, "SHOW VARIABLES LIKE 'enable_insert_strict'").rows == [("enable_insert_strict", "false")]
    assert run(engine, "SHOW GLOBAL VARIABLES LIKE 'enable_insert_strict'").rows == [("enable_insert_strict", "true")]
    run(engine, "SET enable_insert_strict = true")


def test_session_values_in_select_without_spark(engine):
    result = run(engine, "SELECT @@version_comment LIMIT 1")
    assert result.columns == ["@@version_comment"]
    assert result.rows[0][0].startswith("dorisql version")
    result = run(engine, "select @@session.tx_isolation, @@lower_case_table_names AS casing, @@autocommit")
    assert result.columns == ["@@session.tx_isolation", "casing", "@@autocommit"]
    assert result.rows == [("REPEATABLE-READ", 0, 1)]
    result = run(engine, "SELECT DATABASE(), VERSION(), CONNECTION_ID()")
    assert result.rows == [("d", "5.7.99", engine.connection_id)]
    with pytest.raises(DorisqlError, match="Unknown system variable 'no_such_thing'"):
        run(engine, "SELECT @@no_such_thing")


def test_show_warnings_and_errors_keep_the_previous_statement(engine):
    with pytest.raises(DorisqlError) as failed:
        run(engine, "SHOW COLUMNS FROM missing")
    errors = run(engine, "SHOW ERRORS")
    assert errors.columns == ["Level", "Code", "Message"]
    assert errors.rows == [("Error", failed.value.code, str(failed.value))]
    assert run(engine, "SHOW WARNINGS").rows == errors.rows  # SHOW WARNINGS does not clear them
    run(engine, "SHOW TABLES")
    assert run(engine, "SHOW WARNINGS").rows == []


def test_show_frontends_and_backends(engine):
    fe = run(engine, "SHOW FRONTENDS")
    assert fe.columns[:7] == ["Name", "IP", "HostName", "EditLogPort", "HttpPort", "QueryPort", "RpcPort"]
    assert len(fe.columns) == 18 and len(fe.rows) == 1
    row = dict(zip(fe.columns, fe.rows[0]))
    assert (row["Role"], row["IsMaster"], row["Alive"], row["CurrentConnected"]) == ("FOLLOWER", "true", "true", "Yes")
    be = run(engine, "SHOW BACKENDS")
    assert be.columns[0] == "BackendId" and be.columns[-1] == "NodeRole" and len(be.columns) == 28
    backend = dict(zip(be.columns, be.rows[0]))
    # Spark has not started: one local backend holding every tablet (2 + 1 buckets)
    assert len(be.rows) == 1
    assert (backend["Alive"], backend["TabletNum"], backend["NodeRole"]) == ("true", 3, "mix")


def test_information_schema_is_a_read_only_database(engine):
    try:
        assert run(engine, "USE information_schema").message == "Database changed"
        assert [row[0] for row in run(engine, "SHOW TABLES").rows] == [
            "character_sets",
            "collations",
            "columns",
            "engines",
            "key_column_usage",
            "partitions",
            "processlist",
            "referential_constraints",
            "routines",
            "schema_privileges",
            "schemata",
            "statistics",
            "table_constraints",
            "table_privileges",
            "tables",
            "user_privileges",
            "views",
        ]
        assert run(engine, "DESC schemata").rows[:1] == [("CATALOG_NAME", "varchar(*)", "YES", "NO", None, "")]
        assert run(engine, "SHOW COLUMNS FROM tables").rows[:2] == [
            ("TABLE_CATALOG", "varchar(*)", "YES", "NO", None, ""),
            ("TABLE_SCHEMA", "varchar(*)", "YES", "NO", None, ""),
        ]
        for statement in (
            "CREATE TABLE x (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
            "DROP TABLE tables",
            "INSERT INTO tables (TABLE_NAME) VALUES ('x')",
            "DROP DATABASE information_schema",
        ):
            with pytest.raises(
                DorisqlError, match="Access denied for user 'root'@'%' to database 'information_schema'"
            ):
                run(engine, statement)
        with pytest.raises(DorisqlError, match="Can't create database 'information_schema'; database exists") as e:
            run(engine, "CREATE DATABASE information_schema")
        assert e.value.code == 1007
        assert engine.catalog.list_databases() == ["d"]
    finally:
        run(engine, "USE d")


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW FULL TABLES FROM d LIKE 'a%'",
        "SHOW FULL COLUMNS FROM t FROM d LIKE 'k%'",
        "SHOW TABLE STATUS FROM d WHERE Name = 't'",
        "SHOW GLOBAL VARIABLES WHERE Variable_name = 'x' OR Value LIKE 'y%'",
        "SHOW ERRORS LIMIT 1",
        "SHOW FRONTENDS",
        "SHOW BACKENDS",
    ],
)
def test_the_statements_parse(sql):
    assert len(parse(sql)) == 1


def test_set_names_and_collations(engine):
    assert run(engine, "SET NAMES utf8mb4").affected_rows == 0
    run(engine, "SET NAMES 'utf8' COLLATE 'utf8_general_ci'")
    with pytest.raises(DorisqlError, match="Unknown character set: 'latin1'") as e:
        run(engine, "SET NAMES latin1")
    assert e.value.code == 1115
    collation = run(engine, "SHOW COLLATION LIKE 'utf8mb4%'")
    assert collation.columns == ["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"]
    assert collation.rows[0][:2] == ("utf8mb4_0900_bin", "utf8mb4")
    charset = run(engine, "SHOW CHARACTER SET")
    assert charset.columns == ["Charset", "Description", "Default collation", "Maxlen"]
    assert run(engine, "SHOW CHARSET WHERE Charset = 'latin1'").rows == []
