"""The MariaDB/MySQL command-line client (Debian's mariadb-client) against a real ``dorisql
server``: a script piped in (DDL, INSERT, DELETE, UPDATE, `source`, `\\G`) with its output compared
byte for byte, `-e` with several statements, and the interactive client, whose table and column
completion reads every table's columns with COM_FIELD_LIST."""

from __future__ import annotations

import subprocess
import sys

import pexpect
import pytest
from server.serverkit import require_mysql_client

from .conftest import run

pytestmark = pytest.mark.spark

SCRIPT = """\
CREATE TABLE t (k INT NOT NULL, v VARCHAR(20), d DECIMAL(10, 2))
UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1");
INSERT INTO t VALUES (1, 'a', 1.50), (2, 'b', 2.25), (3, 'c', NULL);
DELETE FROM t WHERE k = 2;
UPDATE t SET v = 'z', d = d + 1 WHERE k IN (1, 3);
source other.sql
SELECT * FROM t ORDER BY k;
SELECT k, v, d FROM t WHERE k = 1\\G
DROP TABLE t;
SHOW TABLES;
"""

OTHER = """\
-- read by the client itself: `source` sends this file's statements
INSERT INTO t (k, v) VALUES (4, 'd');
SELECT count(*) AS n FROM t;
"""

# mysql -B (stdin is not a terminal): tab-separated rows under their header, \\G vertical,
# an empty result (SHOW TABLES after the DROP) prints nothing
EXPECTED = """\
n
3
k\tv\td
1\tz\t2.50
3\tz\tNULL
4\td\tNULL
*************************** 1. row ***************************
k: 1
v: z
d: 2.50
"""


@pytest.fixture(scope="module")
def mysql(server):
    client = require_mysql_client()
    run(server, "CREATE DATABASE cli")
    return [client, "-h127.0.0.1", f"-P{server.port}", "-uroot"]


def test_a_script_with_source_and_vertical_output(mysql, tmp_path):
    (tmp_path / "script.sql").write_text(SCRIPT)
    (tmp_path / "other.sql").write_text(OTHER)
    with open(tmp_path / "script.sql") as script:
        done = subprocess.run([*mysql, "cli"], stdin=script, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == EXPECTED


def test_dash_e_runs_every_statement_and_stops_at_an_error(mysql):
    statements = (
        "CREATE TABLE cli.e (k INT, s STRING) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');"
        " INSERT INTO cli.e VALUES (1, 'x'), (2, 'y'); DELETE FROM cli.e WHERE k = 1;"
        " SELECT * FROM cli.e; SHOW TABLES FROM cli LIKE 'e'"
    )
    done = subprocess.run([*mysql, "-e", statements], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "k\ts\n2\ty\nTables_in_cli\ne\n"  # (Doris's header has no "(e)")
    # -vv: each statement's status line; DELETE's OK packet carries Doris's label and status text
    done = subprocess.run(
        [*mysql, "-vv", "cli", "-e", "DELETE FROM e WHERE k = 5; SELECT count(*) FROM e; SELECT * FROM nope; SELECT 1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert "Query OK, 0 rows affected" in done.stdout and "'status':'VISIBLE'" in done.stdout
    assert "count(*)\n1\n1 row in set" in done.stdout and "SELECT 1" not in done.stdout  # stopped at the error
    assert done.stderr.strip().splitlines()[-1] == (
        "ERROR 1051 (42S02) at line 1: errCode = 2, detailMessage = Unknown table 'nope'"
    )


def test_interactive_client_completes_every_column(mysql, server):
    """At start-up the interactive client reads each table's columns (COM_FIELD_LIST) for its
    completion: the table's last column completes."""
    run(
        server,
        "CREATE TABLE cli.w (k INT, s STRING, zebra_last_column INT) DISTRIBUTED BY HASH(k) BUCKETS 1"
        " PROPERTIES ('replication_num' = '1')",
        "INSERT INTO cli.w VALUES (1, 'x', 7)",
    )
    child = pexpect.spawn(mysql[0], [*mysql[1:], "--auto-rehash", "cli"], encoding="utf-8", timeout=120)
    try:
        child.logfile_read = sys.stdout
        child.expect("Reading table information for completion")
        child.expect(r"\[cli\]> ")
        child.send("SELECT zebra_l\t FROM w;\r")  # Tab completes the column name
        child.expect(r"\| zebra_last_column \|\r\n\+-+\+\r\n\|\s+7 \|")
        child.expect(r"\[cli\]> ")
        child.send("SELECT s, k FROM w\\G\r")
        child.expect(r"\*+ 1\. row \*+\r\ns: x\r\nk: 1\r\n")
        child.expect(r"\[cli\]> ")
        child.sendline("exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
