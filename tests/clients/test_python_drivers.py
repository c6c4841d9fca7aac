"""Python's MySQL drivers against a real ``dorisql server``: mysqlclient (MySQLdb, on MariaDB's C
library), PyMySQL, and mysql-connector-python with text and prepared (binary protocol)
statements, each passing every parameter type (int, float, Decimal, str, bytes, date, datetime,
time, timedelta, None, bool) into an INSERT and a WHERE, and reading typed values back."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from .conftest import run
from isolation import require_module

pytestmark = pytest.mark.spark

# Doris has no TIME column: time and timedelta values are stored in VARCHAR columns
TABLE = """CREATE TABLE drivers.p (
    id INT NOT NULL, i BIGINT, f DOUBLE, m DECIMAL(12, 4), s VARCHAR(50), b VARCHAR(50), d DATE,
    ts DATETIME(6), tm VARCHAR(20), td VARCHAR(20), n INT, flag BOOLEAN
) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")"""

INSERT = "INSERT INTO p VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"

VALUES = (
    2**40,
    0.25,
    Decimal("-12.3456"),
    "naïve ☃ 'quoted'",
    b"raw bytes",
    dt.date(2024, 2, 29),
    dt.datetime(2024, 2, 29, 13, 14, 15, 123456),
    dt.time(12, 34, 56),
    dt.timedelta(hours=1, minutes=2, seconds=3),
    None,
    True,
)

# What SELECT gives back: BOOLEAN is TINYINT(1), VARCHAR a str. A timedelta is the text the
# driver sends: MySQLdb writes MySQL's 'D H:M:S' TIME literal, the others 'HH:MM:SS'.
READ = (2**40, 0.25, Decimal("-12.3456"), "naïve ☃ 'quoted'", "raw bytes", dt.date(2024, 2, 29))
READ += (dt.datetime(2024, 2, 29, 13, 14, 15, 123456), "12:34:56")
TIMEDELTA = {1: "0 1:2:3", 2: "01:02:03", 3: "01:02:03", 4: "01:02:03"}

WHERE = (
    "SELECT id FROM p WHERE i = %s AND f = %s AND m = %s AND s = %s AND b = %s AND d = %s AND ts = %s"
    " AND tm = %s AND td = %s AND n IS NULL AND %s IS NULL AND id > %s ORDER BY id"
)


@pytest.fixture(scope="module")
def drivers(server):
    run(server, "CREATE DATABASE drivers", TABLE)
    return server


def connect(drivers, driver: str):
    port = drivers.port
    if driver == "mysqlclient":
        MySQLdb = require_module("MySQLdb")

        return MySQLdb.connect(host="127.0.0.1", port=port, user="root", password="", database="drivers")
    if driver == "pymysql":
        import pymysql

        return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database="drivers")
    import mysql.connector

    return mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database="drivers")


@pytest.mark.parametrize(
    "driver, row_id, prepared",
    [("mysqlclient", 1, False), ("pymysql", 2, False), ("mysql-connector", 3, False), ("mysql-connector", 4, True)],
)
def test_every_parameter_type_in_and_out(drivers, driver, row_id, prepared):
    conn = connect(drivers, driver)
    try:
        cur = conn.cursor(prepared=True) if prepared else conn.cursor()
        cur.execute(INSERT, (row_id, *VALUES))
        assert cur.rowcount == 1
        conn.commit()
        cur.execute("SELECT i, f, m, s, b, d, ts, tm, td, n, flag FROM p WHERE id = %s", (row_id,))
        rows = [tuple(r) for r in cur.fetchall()]
        assert rows == [(*READ, TIMEDELTA[row_id], None, 1)]
        cur.execute(WHERE, (*VALUES[:9], None, False))  # (False > 0 is False: every id)
        found = [r[0] for r in cur.fetchall()]
        assert found == [i for i in range(1, row_id + 1) if TIMEDELTA[i] == TIMEDELTA[row_id]]
        cur.execute("DELETE FROM p WHERE id = %s AND d = %s", (-row_id, dt.date(2024, 2, 29)))
        assert cur.rowcount == 0
        cur.close()
    finally:
        conn.close()


def test_a_bool_parameter_compares_with_a_boolean_column(drivers):
    with drivers.connect(database="drivers") as conn, conn.cursor() as cur:
        cur.execute("INSERT INTO p (id, flag) VALUES (%s, %s), (%s, %s)", (10, True, 11, False))
        cur.execute("SELECT id FROM p WHERE flag = %s AND id >= 10", (True,))  # PyMySQL sends TRUE as 1
        assert cur.fetchall() == ((10,),)


def test_mycli_metadata_queries(drivers):
    """mycli's start-up and completion queries (its SQLExecute), over PyMySQL as mycli sends them
    (mycli itself is not installed: its metadata is these statements). Its SHOW-completion query
    on mysql.help_topic is left out: mycli carries on without it when it fails."""
    import pymysql

    conn = pymysql.connect(
        host="127.0.0.1",
        port=drivers.port,
        user="root",
        password="",
        database="drivers",
        autocommit=True,
        client_flag=pymysql.constants.CLIENT.INTERACTIVE,
        program_name="mycli",
    )
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT @@VERSION")
            assert not cur.fetchone()[0].startswith("4")  # (mycli asks @@VERSION_COMMENT next, not SHOW VARIABLES)
            cur.execute("SELECT @@VERSION_COMMENT")
            assert "doris" in cur.fetchone()[0].lower()
            cur.execute("select connection_id()")
            assert cur.fetchone()[0] > 0
            cur.execute("SHOW DATABASES")
            assert {"drivers", "information_schema"} <= {r[0] for r in cur.fetchall()}
            cur.execute("SHOW TABLES")
            assert ("p",) in cur.fetchall()
            cur.execute(
                "select TABLE_NAME, COLUMN_NAME from information_schema.columns\n"
                "                                    where table_schema = 'drivers'\n"
                "                                    order by table_name,ordinal_position"
            )
            assert [r[1] for r in cur.fetchall() if r[0] == "p"] == [
                "id",
                "i",
                "f",
                "m",
                "s",
                "b",
                "d",
                "ts",
                "tm",
                "td",
                "n",
                "flag",
            ]
            cur.execute(
                'SELECT ROUTINE_NAME FROM INFORMATION_SCHEMA.ROUTINES\n    WHERE ROUTINE_TYPE="FUNCTION" AND ROUTINE_SCHEMA = "drivers"'
            )
            assert cur.fetchall() == ()
            cur.execute("""SELECT CONCAT("'", user, "'@'",host,"'") FROM mysql.user""")
            assert {"'root'@'%'", "'admin'@'%'"} <= {r[0] for r in cur.fetchall()}
    finally:
        conn.close()
