"""Explicit transactions through a real ``dorisql server`` and real drivers: PyMySQL's begin() /
commit() / rollback(), mysql-connector's start_transaction() (which reads SERVER_STATUS_IN_TRANS
from the server's OK packets), a disconnect that rolls back, and a server SIGKILLed in the middle
of a two-table COMMIT (after the first table's Delta commit) whose restart shows every row of
both tables, never one table's alone."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import mysql.connector
import pymysql
import pytest
from pymysql.constants import SERVER_STATUS

from .serverkit import Server, start_server, stop_server
from crashkit import hook_env


def _stop(server: Server) -> None:
    stop_server(server.process)
    try:
        os.killpg(server.process.pid, signal.SIGKILL)  # what the process group left (a killed server's JVM)
    except ProcessLookupError:
        pass


#: The server SIGKILLs itself after its third DeltaStore.commit_prepared: one two-table COMMIT
#: (two calls) precedes, so it dies between the next COMMIT's first and second table.
KILL_AT = "after:dorisql.storage.delta:DeltaStore.commit_prepared#3"


def _rows(conn, table: str) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(f"SELECT k, v FROM {table} ORDER BY k")
        return [tuple(r) for r in cur.fetchall()]


def _intents(warehouse: Path) -> int:
    with sqlite3.connect(warehouse / "_catalog" / "catalog.db") as db:
        return db.execute("SELECT count(*) FROM txn_intents").fetchone()[0]


@pytest.mark.spark  # the servers start Spark
def test_drivers_transactions_and_a_server_killed_during_commit(tmp_path):
    warehouse = tmp_path / "wh"
    server = start_server(tmp_path, warehouse, hook_env(kill_at=KILL_AT), own_group=True)
    try:
        setup = server.connect(autocommit=True)
        with setup.cursor() as cur:
            for sql in (
                "CREATE DATABASE t",
                "USE t",
                "CREATE TABLE a (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
                "CREATE TABLE b (k INT, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
            ):
                cur.execute(sql)
        onlooker = server.connect(database="t", autocommit=True)

        # PyMySQL: begin() sends BEGIN; the OK packets say a transaction is open until COMMIT.
        conn = server.connect(database="t")
        conn.begin()
        assert conn.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS
        with conn.cursor() as cur:
            assert cur.execute("INSERT INTO a VALUES (1, 'one'), (2, 'two')") == 2
            cur.execute("INSERT INTO b VALUES (1, 'one')")
        assert (_rows(onlooker, "a"), _rows(onlooker, "b")) == ([], [])
        conn.rollback()
        assert not conn.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS
        assert (_rows(onlooker, "a"), _rows(onlooker, "b")) == ([], [])
        conn.begin()
        with conn.cursor() as cur:
            cur.execute("INSERT INTO a VALUES (1, 'one'), (2, 'two')")
            cur.execute("INSERT INTO b VALUES (1, 'one')")
            with_error = None
            try:
                cur.execute("SELECT 1")
            except pymysql.err.MySQLError as exc:
                with_error = str(exc)
            assert "This is in a transaction, only insert, update, delete, commit, rollback is acceptable." in (
                with_error or ""
            )
        conn.commit()  # commit_prepared #1 and #2
        assert (_rows(onlooker, "a"), _rows(onlooker, "b")) == ([(1, "one"), (2, "two")], [(1, "one")])

        # A connection that ends inside a transaction rolls it back.
        gone = server.connect(database="t")
        gone.begin()
        with gone.cursor() as cur:
            cur.execute("INSERT INTO a VALUES (99, 'lost')")
        gone.close()
        assert _rows(onlooker, "a") == [(1, "one"), (2, "two")]

        # mysql-connector: start_transaction() refuses to start twice by the IN_TRANS flag.
        mc = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="", database="t")
        mc.start_transaction()
        assert mc.in_transaction
        cur = mc.cursor()
        cur.execute("INSERT INTO a VALUES (3, 'three')")
        cur.execute("INSERT INTO b VALUES (3, 'three'), (4, 'four')")
        assert _rows(onlooker, "b") == [(1, "one")]
        try:  # the server dies after a's Delta commit (#3), before b's
            mc.commit()
        except mysql.connector.Error:
            pass
        server.process.wait(timeout=120)
        assert server.process.returncode == -signal.SIGKILL, server.output()[-3000:]
    finally:
        _stop(server)

    # The intent outlived the kill: the transaction is committed, b's part not yet in its log.
    assert _intents(warehouse) == 1
    again = start_server(tmp_path, warehouse, own_group=True)
    try:
        reader = again.connect(database="t", autocommit=True)
        # Reading b first: its rows are there, and so are a's: never one table's alone.
        assert _rows(reader, "b") == [(1, "one"), (3, "three"), (4, "four")]
        assert _rows(reader, "a") == [(1, "one"), (2, "two"), (3, "three")]
        assert _intents(warehouse) == 0
    finally:
        _stop(again)
