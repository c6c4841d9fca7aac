"""What metadata tools send, unchanged, to a real ``dorisql server``: dbt-doris's catalog query
(``doris__get_catalog``) through mysql-connector, mycli's connect and completion queries through
PyMySQL, information_schema.processlist / the privilege tables as another user sees them, views
through PyMySQL, and SQLAlchemy's inspector and pandas' to_sql / read_sql."""

from __future__ import annotations

import pytest

from isolation import require_module

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


def test_views_through_pymysql(loaded):
    """dbt-doris's view statements, and how a client lists and describes a view."""
    with loaded.connect(autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE views_db")
        cur.execute("USE views_db")
        cur.execute("CREATE TABLE t (k INT NOT NULL, s VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        cur.execute("create or replace view `views_db`.`v` as select k from t")
        cur.execute("create or replace view `views_db`.`v` as select k, upper(s) as u from t where k > 1")
        cur.execute("SELECT * FROM v")
        assert cur.fetchall() == ((2, "B"),)
        cur.execute("SHOW FULL TABLES")
        assert [d[0] for d in cur.description] == ["Tables_in_views_db", "Table_type"]
        assert cur.fetchall() == (("t", "BASE TABLE"), ("v", "VIEW"))
        cur.execute("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'views_db'")
        assert sorted(cur.fetchall()) == [("t", "BASE TABLE"), ("v", "VIEW")]
        cur.execute(
            "SELECT column_name, ordinal_position, is_nullable, data_type, column_type FROM information_schema.columns "
            "WHERE table_schema = 'views_db' AND table_name = 'v' ORDER BY ordinal_position"
        )
        assert cur.fetchall() == (("k", 1, "NO", "int", "int"), ("u", 2, "YES", "varchar", "varchar(65533)"))
        cur.execute("SHOW FULL COLUMNS FROM v")
        assert [r[:5] for r in cur.fetchall()] == [
            ("k", "int", "", "NO", "NO"),
            ("u", "varchar(65533)", "", "YES", "NO"),
        ]
        cur.execute("DESC v")
        assert [r[:3] for r in cur.fetchall()] == [("k", "int", "No"), ("u", "varchar(65533)", "Yes")]


@pytest.fixture(scope="module")
def tools(loaded):
    """tools_db: a table with an index and a view on it."""
    with loaded.connect(autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE tools_db")
        cur.execute(
            "CREATE TABLE tools_db.t (k INT, s VARCHAR(10), INDEX ix_s (s) USING INVERTED COMMENT 'words') "
            "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
        )
        cur.execute("CREATE VIEW tools_db.v AS SELECT k, upper(s) AS u FROM tools_db.t")
    return loaded


def _inspected_view(engine) -> None:
    import sqlalchemy as sa

    inspector = sa.inspect(engine)
    tables = inspector.get_table_names()  # (pandas' p too, once it ran)
    assert inspector.get_view_names() == ["v"] and "t" in tables and "v" not in tables
    assert [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns("v")] == [
        ("k", "INTEGER", True),
        ("u", "VARCHAR(65533)", True),
    ]


@pytest.mark.filterwarnings("ignore:Unknown schema content")  # the MySQL dialect reading Doris's SHOW CREATE TABLE
def test_sqlalchemy_inspector_and_pandas(tools):
    """SQLAlchemy's inspector (the MySQL dialect) on a view, and pandas' to_sql / read_sql, with
    the statements they send as they send them."""
    import pandas as pd
    import sqlalchemy as sa

    mysql = sa.create_engine(f"mysql+pymysql://root:@127.0.0.1:{tools.port}/tools_db")
    sent: list[str] = []
    sa.event.listen(mysql, "before_cursor_execute", lambda _c, _cur, statement, *_a: sent.append(statement.strip()))
    try:
        _inspected_view(mysql)  # the view's columns by DESCRIBE
        # the MySQL dialect looks for KEY lines in SHOW CREATE TABLE, which Doris's INDEX lines
        # are not: no index, as against Doris (pydoris's dialect reads SHOW INDEX, below)
        assert sa.inspect(mysql).get_indexes("t") == []

        frame = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None], "c": [1.5, None, 2.5]})
        for _ in range(2):  # the second time replaces the table
            sent.clear()
            assert frame.to_sql("p", mysql, index=True, if_exists="replace") == 3
            ddl = [s for s in sent if s.split()[0] in ("CREATE", "DROP")]
            back = pd.read_sql("SELECT * FROM p ORDER BY `index`", mysql)
            assert back.drop(columns="c").to_dict("list") == {"index": [0, 1, 2], "a": [1, 2, 3], "b": ["x", "y", None]}
            assert back["c"][0] == 1.5 and pd.isna(back["c"][1]) and back["c"][2] == 2.5  # NULL: NaN in a float column
        # pandas' DDL, unchanged: a CREATE TABLE without key or distribution (Doris's defaults:
        # DUPLICATE KEY of the leading columns, RANDOM BUCKETS AUTO) and the index of its index
        assert [" ".join(s.split()) for s in ddl] == [
            "DROP TABLE p",
            "CREATE TABLE p ( `index` BIGINT, a BIGINT, b TEXT, c FLOAT(53) )",
            "CREATE INDEX ix_p_index ON p (`index`)",
        ]
        with mysql.connect() as conn:
            create = conn.exec_driver_sql("SHOW CREATE TABLE p").fetchone()[1]
        assert "DUPLICATE KEY(`index`, `a`)" in create and "DISTRIBUTED BY RANDOM BUCKETS AUTO" in create
        assert "INDEX `ix_p_index` (`index`) USING INVERTED" in create
    finally:
        mysql.dispose()


def test_pydoris_inspector(tools):
    """pydoris's doris:// dialect (over mysqlclient): a view's columns by SHOW COLUMNS, the
    table's index by SHOW INDEX."""
    import sqlalchemy as sa

    require_module("MySQLdb")
    require_module("pydoris.sqlalchemy")
    doris = sa.create_engine(f"doris://root:@127.0.0.1:{tools.port}/tools_db")
    try:
        _inspected_view(doris)
        assert sa.inspect(doris).get_indexes("t") == [
            {"name": "ix_s", "column_names": ["s"], "unique": False, "type": "INVERTED"}
        ]
    finally:
        doris.dispose()
