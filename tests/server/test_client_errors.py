"""What the real mysql command-line client sees from a ``dorisql server``: an INSERT's OK packet
with Doris's info line and its warning count (issue 27, item 9), then the rest of the script;
Spark's refusals as Doris's ``errCode = 2, detailMessage = ...`` with no path of the server's
disk in any of them (item 10)."""

from __future__ import annotations

import re
import subprocess

import pymysql
import pytest

from .serverkit import require_mysql_client

pytestmark = pytest.mark.spark


def test_the_mysql_client_reads_the_insert_info_and_warnings_then_runs_on(server):
    client = require_mysql_client()
    mysql = [client, "-h127.0.0.1", f"-P{server.port}", "-uroot"]
    setup = "CREATE DATABASE cli; CREATE TABLE cli.t (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    done = subprocess.run([*mysql, "-e", setup], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, "")
    script = (
        "INSERT INTO t VALUES (1); SET enable_insert_strict = false; INSERT INTO t VALUES (2), ('x'); "
        "SHOW WARNINGS; SELECT count(*) FROM t; SELECT /*+ SET_VAR(query_timeout = 5) */ @@query_timeout"
    )
    # --comments: the client sends the hint (it strips comments otherwise)
    done = subprocess.run(
        [*mysql, "-vvv", "--comments", "cli", "-e", script], capture_output=True, text=True, timeout=300
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    label = r"\{'label':'label_[0-9a-f]+_[0-9a-f]+', 'status':'VISIBLE', 'txnId':'\d+'\}"
    assert re.search(r"Query OK, 1 row affected \([^)]*sec\)\n" + label + "\n", done.stdout), done.stdout
    assert re.search(r"Query OK, 1 row affected, 1 warning \([^)]*sec\)\n" + label + "\n", done.stdout), done.stdout
    assert "| Warning | 1105 | 1 rows filtered (enable_insert_strict = false) |" in done.stdout
    assert re.search(r"\| count\(\*\) \|\n\+-+\+\n\|\s+2 \|", done.stdout), done.stdout
    assert re.search(r"\| @@query_timeout \|\n\+-+\+\n\|\s+5 \|", done.stdout), done.stdout


def test_errors_reach_a_client_in_doris_words_without_server_paths(server):
    refused = [
        "SELECT nope FROM t",
        "SELECT k, count(*) FROM t",
        "SELECT a.k FROM t a JOIN t b ON a.k = b.k WHERE k > 0",
        "SELECT (SELECT k FROM t) FROM t",
        "SELECT k FROM t WHERE k >= (SELECT max(nope) FROM t)",
        "SELECT /*+ SET_VAR(no_such_variable = 1) */ 1",
        # a correlated scalar subquery of more than one row, which Spark 4.0 may fail on
        # internally (a LeftSingle join built on the wrong side): whatever it says, the client
        # sees no path of the server's disk
        "SELECT k FROM t o WHERE k = (SELECT i.k FROM t i WHERE i.k >= o.k)",
    ]
    seen = []
    with server.connect(database="cli", autocommit=True) as conn, conn.cursor() as cur:
        for sql in refused:
            with pytest.raises(pymysql.err.MySQLError) as caught:
                cur.execute(sql)
                pytest.fail(f"{sql} ran")
            code, message = caught.value.args
            seen.append(message)
            assert message.startswith("errCode = 2, detailMessage = "), (sql, message)
            assert str(server.warehouse) not in message and "/.local/state" not in message, (sql, message)
            assert not re.search(r"(?<![\w.])/\w+/\w+", message), (sql, message)
            assert "Traceback" not in message and "Exception" not in message, (sql, message)
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchall() == ((2,),)
    assert seen[0].endswith("Unknown column 'nope' in 'table list'")
    assert seen[3].endswith("Expected LE 1 to be returned by expression: a scalar subquery returned more than one row")
    assert seen[5].endswith("Can not set session variable 'no_such_variable' = '1'")
