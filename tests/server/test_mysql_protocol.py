"""``dorisql server`` over the MySQL protocol with real clients: PyMySQL,
mysql-connector-python and the Debian ``mysql`` client, against one real server process."""

from __future__ import annotations

import datetime as dt
import json
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from decimal import Decimal

import pymysql
import pytest
from pymysql.constants import CLIENT

from dorisql.translate.variables import VERSION_COMMENT

from .serverkit import require_mysql_client
from waiting import wait_until

pytestmark = pytest.mark.spark

TABLE = (
    "CREATE TABLE t (k INT, big BIGINT, v VARCHAR(10), d DECIMAL(10,2), day DATE, ts DATETIME, f DOUBLE) "
    "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1')"
)


@pytest.fixture(scope="module")
def loaded(server):
    """Database ``srv`` with table ``t`` of two rows."""
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE srv")
        cur.execute("USE srv")
        cur.execute(TABLE)
        cur.execute(
            "INSERT INTO t VALUES (1, 9000000000, 'a', 1.50, '2024-01-02', '2024-01-02 03:04:05', 0.25),"
            " (2, NULL, NULL, NULL, NULL, NULL, NULL)"
        )
        assert cur.rowcount == 2
    return server


def error_of(cur, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.MySQLError) as info:
        cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def processlist(cur) -> dict[int, tuple]:
    """SHOW PROCESSLIST (on `cur`'s connection): its rows by connection id."""
    cur.execute("SHOW PROCESSLIST")
    return {row[1]: row for row in cur.fetchall()}


def wait_until_running(cur, connection_id: int, timeout: float = 60) -> dict[int, tuple]:
    """Until SHOW PROCESSLIST (on `cur`'s connection) shows `connection_id` running a query;
    the rows that showed it."""
    return wait_until(
        lambda: (rows := processlist(cur)).get(connection_id, ())[7:8] == ("Query",) and rows,
        timeout,
        f"connection {connection_id} to run its query",
        interval=0.1,
    )


def test_what_clients_send_on_connect(server):
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT @@version_comment LIMIT 1")
        assert cur.fetchall() == ((VERSION_COMMENT,),)
        cur.execute("SELECT DATABASE()")
        assert cur.description[0][0] == "DATABASE()" and cur.fetchall() == ((None,),)
        for sql in ("SET NAMES utf8mb4", "SET autocommit=1", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"):
            cur.execute(sql)
        cur.execute("SELECT @@session.transaction_isolation, @@version, CONNECTION_ID()")
        isolation, version, connection_id = cur.fetchone()
        assert (isolation, version) == ("REPEATABLE-READ", "5.7.99") and connection_id == conn.thread_id()
        cur.execute("SHOW VARIABLES LIKE 'lower_case_table_names'")
        assert cur.fetchall()[0][:2] == ("lower_case_table_names", "0")
        cur.execute("SHOW DATABASES")
        assert cur.fetchall() == (("information_schema",), ("mysql",))
        conn.commit()
        conn.rollback()
    # First in the module: the port opened before Spark started, and all of this needed no Spark
    assert "Spark ready" not in server.output(), "the answers waited for Spark"
    # A statement that needs Spark waits for its start; KILL QUERY ends that wait, and the
    # connection stays usable.
    with server.connect() as waiting, server.connect() as admin, admin.cursor() as cur:
        outcome: dict = {}
        runner = threading.Thread(
            target=lambda: outcome.update(
                error=error_of(waiting.cursor(), "SELECT count(*) FROM numbers('number' = '3')")
            )
        )
        runner.start()
        wait_until_running(cur, waiting.thread_id())
        cur.execute(f"KILL QUERY {waiting.thread_id()}")
        killed_before_spark = "Spark ready" not in server.output()
        runner.join(timeout=60)
        assert killed_before_spark, "Spark started before the KILL: the wait was not exercised"
        assert outcome.get("error") == (1317, "errCode = 2, detailMessage = Query execution was interrupted")
        with waiting.cursor() as again:
            again.execute("SELECT count(*) FROM numbers('number' = '3')")  # now waits for Spark, and runs
            assert again.fetchone() == (3,)


def test_ddl_dml_select_return_typed_values(loaded):
    with loaded.connect(database="srv") as conn, conn.cursor() as cur:
        cur.execute("SELECT k, big, v, d, day, ts, f FROM t ORDER BY k")
        assert cur.fetchall() == (
            (1, 9000000000, "a", Decimal("1.50"), dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5), 0.25),
            (2, None, None, None, None, None, None),
        )
        types = {d[0]: d[1] for d in cur.description}
        assert types == {"k": 3, "big": 8, "v": 253, "d": 246, "day": 10, "ts": 12, "f": 5}
        assert [d[5] for d in cur.description if d[0] == "d"] == [2]  # DECIMAL(10,2): scale 2
    with loaded.connect(database="srv", client_flag=CLIENT.MULTI_STATEMENTS) as conn, conn.cursor() as cur:
        cur.execute("SHOW TABLES; SHOW DATABASES")  # one result set per statement
        assert cur.fetchall() == (("t",),)
        assert cur.nextset() and ("srv",) in cur.fetchall() and not cur.nextset()
        cur.execute("SHOW CREATE TABLE t")
        assert "DUPLICATE KEY(`k`)" in cur.fetchone()[1]


def test_errors_carry_doris_codes_and_messages(loaded):
    with loaded.connect() as conn, conn.cursor() as cur:
        code, message = error_of(cur, "SELEC 1")
        assert code == 1064 and message.startswith("errCode = 2, detailMessage = Syntax error at line 1, column 1")
        assert error_of(cur, "SELECT * FROM srv.nope") == (1051, "errCode = 2, detailMessage = Unknown table 'nope'")
        assert error_of(cur, "USE nodb") == (1049, "errCode = 2, detailMessage = Unknown database 'nodb'")
        assert error_of(cur, "SELECT @@no_such_variable") == (
            1193,  # Doris's ERR_UNKNOWN_SYSTEM_VARIABLE
            "errCode = 2, detailMessage = Unknown system variable 'no_such_variable'",
        )
        cur.execute("SELECT DATABASE()")  # the connection is fine after errors
        assert cur.fetchone() == (None,)
    with pytest.raises(pymysql.MySQLError) as info:
        loaded.connect(database="nodb")
    assert info.value.args == (1049, "errCode = 2, detailMessage = Unknown database 'nodb'")
    with pytest.raises(pymysql.MySQLError) as info:
        pymysql.connect(host="127.0.0.1", port=loaded.port, user="nobody", password="x")
    assert info.value.args == (1045, "Access denied for user 'nobody'@'127.0.0.1' (using password: YES)")
    assert "Traceback" not in loaded.output()


def test_users_log_in_with_their_password_and_the_http_api_answers(loaded):
    with loaded.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE USER 'reader' IDENTIFIED BY 'pw1'")
    with pytest.raises(pymysql.MySQLError) as info:
        pymysql.connect(host="127.0.0.1", port=loaded.port, user="reader", password="wrong")
    assert info.value.args[0] == 1045
    with pymysql.connect(host="127.0.0.1", port=loaded.port, user="reader", password="pw1") as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT CURRENT_USER()")
            assert cur.fetchone() == ("'reader'@'%'",)
            code, message = error_of(cur, "SELECT * FROM srv.t")  # no grants: Doris's privilege error
            assert code in (1142, 1224, 1225, 1227) and message.startswith("errCode = 2, detailMessage = Access denied")
    with urllib.request.urlopen(f"http://127.0.0.1:{loaded.http_port}/api/health", timeout=30) as response:
        assert json.loads(response.read())["msg"] == "success"


def test_each_connection_has_its_own_database_and_variables(loaded):
    with loaded.connect(database="srv") as a, loaded.connect() as b:
        ca, cb = a.cursor(), b.cursor()
        ca.execute("SET enable_insert_strict = false")
        ca.execute("SET dorisql_now = '2030-05-06 07:08:09'")
        ca.execute("SELECT DATABASE(), @@enable_insert_strict, @@dorisql_now")
        db_a, strict_a, now_a = ca.fetchone()
        cb.execute("SELECT DATABASE(), @@enable_insert_strict, @@dorisql_now")
        db_b, strict_b, now_b = cb.fetchone()
        assert (db_a, db_b) == ("srv", None)
        assert str(strict_a).lower() in ("0", "false") and str(strict_b).lower() in ("1", "true")
        assert now_a == "2030-05-06 07:08:09" and not now_b
        assert error_of(cb, "SELECT count(*) FROM t")[1] == "errCode = 2, detailMessage = No database selected"


def test_processlist_and_kill_query_keep_the_connection(loaded):
    with loaded.connect(database="srv") as busy, loaded.connect() as admin:
        busy_id = busy.thread_id()
        outcome: dict = {}

        def long_query():
            try:
                with busy.cursor() as cur:
                    cur.execute('SELECT count(*) FROM numbers("number" = "1000000000000")')
                    outcome["rows"] = cur.fetchall()
            except pymysql.MySQLError as exc:
                outcome["error"] = exc.args

        runner = threading.Thread(target=long_query)
        runner.start()
        try:
            cur = admin.cursor()
            rows = wait_until_running(cur, busy_id)
            assert [d[0] for d in cur.description] == [
                "CurrentConnected",
                "Id",
                "User",
                "Host",
                "LoginTime",
                "Catalog",
                "Db",
                "Command",
                "Time",
                "State",
                "QueryId",
                "Info",
            ]
            row = rows[busy_id]
            assert row[0] == "No" and row[2] == "root" and row[5:8] == ("internal", "srv", "Query")
            assert row[11].startswith("SELECT count(*) FROM numbers")
            assert rows[admin.thread_id()][0] == "Yes"
            # KILL QUERY is to meet a statement whose Spark job runs, not one still being planned; the
            # server shows no sign of its Spark job (dorisql runs Spark without its web UI), so this
            # stays a second of running time, on purpose
            time.sleep(1)
            cur.execute(f"KILL QUERY {busy_id}")
            runner.join(timeout=60)
            assert not runner.is_alive()
            assert outcome.get("error") == (1317, "errCode = 2, detailMessage = Query execution was interrupted")
            with busy.cursor() as again:  # the connection survives KILL QUERY
                # statements right after it, for longer than KILL keeps cancelling, are never hit
                ends = time.monotonic() + 1.5
                while time.monotonic() < ends:
                    again.execute("SELECT count(*) FROM t")
                    assert again.fetchone() == (2,)
            assert error_of(cur, "KILL 999999")[0] == 1094
        finally:  # never leave the query running (closing its connection would wait for it)
            if runner.is_alive():
                admin.cursor().execute(f"KILL {busy_id}")
                runner.join(timeout=60)


def test_a_short_statement_is_not_queued_behind_a_long_one(loaded):
    """Spark's FAIR scheduler with a pool per connection: a statement whose 20,000 short tasks
    keep both cores busy for minutes does not hold back another connection's short Spark
    statements (Spark's FIFO would run them after all 20,000), and KILL QUERY still stops it."""
    long_sql = 'SELECT sum(number) FROM numbers("number" = "200000000000", "backend_num" = "20000")'
    # (behind a FIFO queue the short statements would wait: the read timeout makes that a failure)
    with loaded.connect(database="srv") as busy, loaded.connect(database="srv", read_timeout=120) as other:
        busy_id = busy.thread_id()
        outcome: dict = {}

        def long_query():
            try:
                with busy.cursor() as cur:
                    cur.execute(long_sql)
                    outcome["rows"] = cur.fetchall()
            except pymysql.MySQLError as exc:
                outcome["error"] = exc.args

        runner = threading.Thread(target=long_query)
        runner.start()
        try:
            with other.cursor() as cur:
                wait_until_running(cur, busy_id)
                # Several in a row: the later ones surely meet the long statement's job running.
                for _ in range(3):
                    cur.execute("SELECT count(*), sum(k) FROM t")  # a Spark job: no point query
                    assert cur.fetchall() == ((2, 3),)
                    assert runner.is_alive() and not outcome, outcome
                assert processlist(cur)[busy_id][7] == "Query"
                cur.execute(f"KILL QUERY {busy_id}")
            runner.join(timeout=60)
            assert not runner.is_alive()
            assert outcome.get("error") == (1317, "errCode = 2, detailMessage = Query execution was interrupted")
        finally:  # never leave the query running (closing its connection would wait for it)
            if runner.is_alive():
                with loaded.connect() as admin:
                    admin.cursor().execute(f"KILL {busy_id}")
                runner.join(timeout=60)


def test_a_client_that_hangs_up_cancels_its_statement(loaded):
    gone = loaded.connect()
    gone_id = gone.thread_id()
    runner = threading.Thread(
        target=error_of, args=(gone.cursor(), 'SELECT count(*) FROM numbers("number" = "1000000000000")')
    )
    runner.start()
    with loaded.connect() as admin, admin.cursor() as cur:
        wait_until_running(cur, gone_id)
        gone._sock.shutdown(socket.SHUT_RDWR)  # the client goes away mid-statement
        wait_until(
            lambda: gone_id not in processlist(cur),
            60,
            "the statement of a client that hung up to end (and its connection with it)",
            interval=0.2,
        )
    runner.join(timeout=10)


def test_malformed_packets_do_not_stop_the_server(loaded):
    for garbage in (b"\xff" * 64, b"\x05\x00\x00\x01\x03SEL", b"\x00\x00\x00\x00" + b"junk" * 100):
        with socket.create_connection(("127.0.0.1", loaded.port), timeout=10) as raw:
            raw.recv(4096)  # the handshake
            raw.sendall(garbage)
            raw.shutdown(socket.SHUT_WR)
            while raw.recv(4096):
                pass
    with loaded.connect() as conn, conn.cursor() as cur:  # a logged-in client sends an unknown command
        conn._write_bytes(b"\x01\x00\x00\x00\x63")  # command 0x63: no such command
        conn._next_seq_id = 1
        with pytest.raises(pymysql.MySQLError) as info:
            conn._read_packet()
        assert info.value.args[0] == 1047
        cur.execute("SELECT DATABASE()")
    with loaded.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW DATABASES")
        assert ("srv",) in cur.fetchall()


def test_mysql_connector_python(loaded):
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=loaded.port, user="root", password="", database="srv")
    try:
        cur = conn.cursor()
        cur.execute("SELECT k, d, day, ts FROM t WHERE k = 1")
        assert cur.fetchall() == [(1, Decimal("1.50"), dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5))]
        prepared = conn.cursor(prepared=True)  # the binary protocol: COM_STMT_PREPARE / EXECUTE
        prepared.execute("SELECT k, big, v FROM t WHERE v = %s", ("a",))
        assert prepared.fetchall() == [(1, 9000000000, "a")]
    finally:
        conn.close()


def test_sqlalchemy_inspector_and_pandas_read_sql(loaded):
    """SQLAlchemy's MySQL dialect browses databases and tables and reflects columns (it parses
    SHOW CREATE TABLE, whose lower-case types it knows); pandas.read_sql gets typed columns."""
    import pandas as pd
    import sqlalchemy as sa
    from sqlalchemy.dialects import mysql

    engine = sa.create_engine(f"mysql+pymysql://root:@127.0.0.1:{loaded.port}/srv")
    try:
        inspector = sa.inspect(engine)
        assert {"srv", "information_schema"} <= set(inspector.get_schema_names())
        assert inspector.get_table_names() == ["t"] and inspector.get_table_names(schema="srv") == ["t"]
        assert inspector.has_table("t") and not inspector.has_table("nope")
        assert inspector.get_view_names() == []
        # SQLAlchemy warns about the Doris lines it does not know (DUPLICATE KEY, PROPERTIES...)
        with pytest.warns(sa.exc.SAWarning, match="Unknown schema content"):
            columns = inspector.get_columns("t", schema="srv")
        assert [(c["name"], repr(c["type"]), c["nullable"]) for c in columns] == [
            ("k", repr(mysql.INTEGER()), True),
            ("big", repr(mysql.BIGINT()), True),
            ("v", repr(mysql.VARCHAR(length=10)), True),
            ("d", repr(mysql.DECIMAL(precision=10, scale=2)), True),
            ("day", repr(mysql.DATE()), True),
            ("ts", repr(mysql.DATETIME()), True),
            ("f", repr(mysql.DOUBLE(asdecimal=True)), True),
        ]
        with loaded.connect() as conn, conn.cursor() as cur:
            cur.execute(
                "CREATE TABLE srv.u (k INT NOT NULL, s STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
                "PROPERTIES ('replication_num' = '1')"
            )
        try:
            fresh = sa.inspect(engine)
            with pytest.warns(sa.exc.SAWarning, match="Unknown schema content"):
                columns = fresh.get_columns("u", schema="srv")
            assert [(c["name"], repr(c["type"]), c["nullable"]) for c in columns] == [
                ("k", repr(mysql.INTEGER()), False),
                ("s", repr(mysql.TEXT()), True),
            ]
            # Doris's `UNIQUE KEY(`k`)` line is not MySQL's `PRIMARY KEY (...)`: no key reflected
            assert fresh.get_pk_constraint("u", schema="srv")["constrained_columns"] == []
        finally:
            with loaded.connect() as conn, conn.cursor() as cur:
                cur.execute("DROP TABLE srv.u FORCE")
        frame = pd.read_sql("SELECT k, big, v, d, day, ts, f FROM t ORDER BY k", engine)
        assert frame["k"].dtype == "int64" and frame["k"].tolist() == [1, 2]
        assert str(frame["ts"].dtype).startswith("datetime64") and frame["ts"][0] == pd.Timestamp("2024-01-02 03:04:05")
        first = frame.iloc[0]
        assert (first["big"], first["v"], first["d"], first["day"], first["f"]) == (
            9000000000,
            "a",
            1.5,  # DECIMAL arrives as Decimal; read_sql's coerce_float makes it a float
            dt.date(2024, 1, 2),
            0.25,
        )
        assert frame.iloc[1].drop("k").isna().all()
        with engine.connect() as conn:  # SQLAlchemy's own statements: text() with parameters
            assert conn.execute(sa.text("SELECT v FROM t WHERE k = :k"), {"k": 1}).scalar_one() == "a"
    finally:
        engine.dispose()


def test_mysql_command_line_client(loaded):
    client = require_mysql_client()
    base = [client, "-h", "127.0.0.1", "-P", str(loaded.port), "-u", "root", "--batch"]
    done = subprocess.run(
        [*base, "srv", "-e", "SELECT k, v FROM t ORDER BY k; SHOW TABLES"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "k\tv\n1\ta\n2\tNULL\nTables_in_srv\nt\n"
    # a statement whose OK packet carries an info text (DELETE's label and status) and the
    # statements after it in the same script (the info is a length-encoded string, as Doris sends it)
    done = subprocess.run(
        [*base, "-vv", "srv", "-e", "DELETE FROM t WHERE k = 9; SELECT count(*) FROM t"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "'status':'VISIBLE'" in done.stdout
    assert lines[lines.index("count(*)") + 1] == "2"  # the script went on after the DELETE
    done = subprocess.run([*base, "-e", "SELECT * FROM srv.nope"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    # (MariaDB's client echoes the failed statement above the error line)
    assert (
        done.stderr.strip().splitlines()[-1]
        == "ERROR 1051 (42S02) at line 1: errCode = 2, detailMessage = Unknown table 'nope'"
    )


def test_sigterm_stops_the_server_cleanly(loaded):
    """Last in the module: a running statement is cancelled, the server ends with status 0 and
    serves no more."""
    busy = loaded.connect()
    runner = threading.Thread(
        target=error_of, args=(busy.cursor(), 'SELECT count(*) FROM numbers("number" = "1000000000000")')
    )
    runner.start()
    with loaded.connect() as admin, admin.cursor() as cur:
        wait_until_running(cur, busy.thread_id())
    loaded.process.send_signal(signal.SIGTERM)
    # well within the 30 s grace for a statement to end: it is cancelled, not waited for, even
    # when its Spark job starts after the first cancel
    assert loaded.process.wait(timeout=20) == 0, loaded.output()
    runner.join(timeout=10)
    assert not runner.is_alive()
    assert "Traceback" not in loaded.output()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", loaded.port), timeout=2).close()
