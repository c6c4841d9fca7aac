"""What metadata tools send, unchanged, to a real ``dorisql server``: dbt-doris's catalog query
(``doris__get_catalog``) through mysql-connector, mycli's connect and completion queries through
PyMySQL, and information_schema.processlist / the privilege tables as another user sees them."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark

#: dbt-doris 's macro doris__get_catalog (dbt/include/doris/macros/adapters/metadata.sql),
#: rendered for one schema.
DBT_CATALOG_QUERY = """
    with tables as (
        select
            null as "table_database",
            table_schema,
            table_name,
            case when table_type = 'BASE TABLE' then 'table'
                 when table_type = 'VIEW' then 'view'
                 else table_type
            end as table_type,
            null as table_owner,
            table_comment
        from information_schema.tables
    ),
    columns as (
        select
            null as "table_database",
            table_schema as "table_schema",
            table_name as "table_name",
            column_name as "column_name",
            ordinal_position as "column_index",
            data_type as "column_type",
            column_comment as "column_comment"
        from information_schema.columns
    )
    select
        columns.table_database,
        columns.table_schema,
        columns.table_name,
        tables.table_type,
        tables.table_comment as "table_comment",
        tables.table_owner,
        columns.column_name,
        columns.column_index,
        columns.column_type,
        columns.column_comment
    from tables
    join columns using (table_schema, table_name)
    where tables.table_schema not in ('information_schema')
    and (upper(tables.table_schema) = upper('dbt_db'))
    order by column_index
"""

#: mycli's SQLExecute queries (mycli/sqlexecute.py), as it sends them.
MYCLI_QUERIES = {
    "databases": "SHOW DATABASES",
    "tables": "SHOW TABLES",
    "version": "SELECT @@VERSION",
    "version_comment": "SELECT @@VERSION_COMMENT",
    "users": """SELECT CONCAT("'", user, "'@'",host,"'") FROM mysql.user""",
    "functions": """SELECT ROUTINE_NAME FROM INFORMATION_SCHEMA.ROUTINES
    WHERE ROUTINE_TYPE="FUNCTION" AND ROUTINE_SCHEMA = "dbt_db\"""",
    "table_columns": """select TABLE_NAME, COLUMN_NAME from information_schema.columns
                                    where table_schema = 'dbt_db'
                                    order by table_name,ordinal_position""",
}


@pytest.fixture(scope="module")
def loaded(server):
    with server.connect(autocommit=True) as conn, conn.cursor() as cur:
        for sql in (
            "CREATE DATABASE dbt_db",
            "CREATE TABLE dbt_db.orders (id BIGINT NOT NULL COMMENT 'order id', amount DECIMAL(10, 2)) "
            "UNIQUE KEY(id) COMMENT 'one row per order' DISTRIBUTED BY HASH(id) BUCKETS 1",
            "CREATE TABLE dbt_db.users (name VARCHAR(20)) DUPLICATE KEY(name) DISTRIBUTED BY HASH(name) BUCKETS 1",
            "CREATE USER 'viewer'@'%' IDENTIFIED BY 'pw'",
            "GRANT SELECT_PRIV ON dbt_db.users TO 'viewer'@'%'",
            "GRANT LOAD_PRIV ON dbt_db.* TO 'viewer'@'%'",
        ):
            cur.execute(sql)
    return server


def test_dbt_catalog_query_through_mysql_connector(loaded):
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=loaded.port, user="root", password="")
    try:
        cur = conn.cursor()
        cur.execute(DBT_CATALOG_QUERY)
        names = [d[0] for d in cur.description]
        rows = sorted(cur.fetchall(), key=lambda r: (r[2], r[7]))
    finally:
        conn.close()
    # the names dbt-core's catalog reads (agate columns by name)
    assert names == [
        "table_database",
        "table_schema",
        "table_name",
        "table_type",
        "table_comment",
        "table_owner",
        "column_name",
        "column_index",
        "column_type",
        "column_comment",
    ]
    assert rows == [
        (None, "dbt_db", "orders", "table", "one row per order", None, "id", 1, "bigint", "order id"),
        (None, "dbt_db", "orders", "table", "one row per order", None, "amount", 2, "decimal", ""),
        (None, "dbt_db", "users", "table", "", None, "name", 1, "varchar", ""),
    ]


def test_mycli_connect_and_completion_queries(loaded):
    import pymysql

    conn = pymysql.connect(
        host="127.0.0.1", port=loaded.port, user="root", password="", database="dbt_db", program_name="mycli"
    )
    try:
        answers = {}
        with conn.cursor() as cur:
            for name, sql in MYCLI_QUERIES.items():
                cur.execute(sql)
                answers[name] = list(cur.fetchall())
            # mycli's SHOW completions read mysql.help_topic, which Doris does not have either:
            # an error it logs and skips, never a dropped connection
            with pytest.raises(pymysql.err.MySQLError, match="help_topic"):
                cur.execute("""SELECT name from mysql.help_topic WHERE name like "SHOW %\"""")
            cur.execute("select connection_id()")
            assert cur.fetchone()[0] > 0
    finally:
        conn.close()
    assert ("mysql",) in answers["databases"] and ("information_schema",) in answers["databases"]
    assert sorted(answers["tables"]) == [("orders",), ("users",)]
    assert sorted(answers["users"]) == [("'admin'@'%'",), ("'root'@'%'",), ("'viewer'@'%'",)]
    assert answers["functions"] == []
    assert answers["table_columns"] == [("orders", "id"), ("orders", "amount"), ("users", "name")]


def test_processlist_and_privileges_as_each_user_sees_them(loaded):
    import pymysql

    root = loaded.connect(autocommit=True)
    viewer = pymysql.connect(host="127.0.0.1", port=loaded.port, user="viewer", password="pw", database="mysql")
    try:
        with viewer.cursor() as cur:
            cur.execute("SELECT database()")
            assert cur.fetchone() == ("mysql",)
            cur.execute("SELECT CurrentConnected, User, Db FROM information_schema.processlist")
            assert cur.fetchall() == (("Yes", "viewer", "mysql"),)  # not root's connection
            cur.execute("SELECT * FROM information_schema.table_privileges")
            assert cur.fetchall() == (("'viewer'@'%'", "def", "dbt_db", "users", "SELECT", "NO"),)
            cur.execute("SELECT count(*) FROM information_schema.user_privileges")
            assert cur.fetchone() == (0,)  # no global privilege: Doris lists nothing
            cur.execute("SELECT User, Select_priv FROM mysql.user")
            assert cur.fetchall() == (("viewer", "N"),)  # its own row only
        with root.cursor() as cur:
            cur.execute("SELECT User, Db FROM information_schema.processlist ORDER BY Id")
            assert [r[0] for r in cur.fetchall()] == ["root", "viewer"]
            cur.execute("SELECT GRANTEE, TABLE_SCHEMA, PRIVILEGE_TYPE FROM information_schema.schema_privileges")
            assert cur.fetchall() == (("'viewer'@'%'", "dbt_db", "INSERT"),)
            cur.execute("SHOW CREATE DATABASE dbt_db")
            assert cur.fetchall() == (("dbt_db", "CREATE DATABASE `dbt_db`"),)
            with pytest.raises(pymysql.err.MySQLError, match="Access denied for user 'root'@'%' to database 'mysql'"):
                cur.execute("CREATE TABLE mysql.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
    finally:
        viewer.close()
        root.close()
