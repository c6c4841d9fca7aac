"""A PostgreSQL catalog stopped and started under a running dorisql (issue 25, item 5).

The server's connections die with the restart and are found dead only when next used. A Stream
Load label's lock (an advisory lock on the process's lock connection) must then reconnect, or
fail with a retryable error while the catalog is down: never read as "another request holds the
label", which Stream Load answers with "Label Already Exists" (RUNNING) and Doris's clients take
for "already loaded" (data loss). A real PostgreSQL server of this module's own (tests/pgserver.py),
stopped and started with pg_ctl."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dorisql.catalog import open_catalog
from dorisql.catalog.postgres import AdvisoryLocks
from dorisql.errors import CatalogError, CommitConflictError
from dorisql.storage.locks import file_lock, use_lock_service

from httpkit import put_stream_load
from waiting import wait_until


class RestartablePostgres:
    """The module's own PostgreSQL server (restarting the session's would disturb other tests)."""

    def __init__(self):
        from pgserver import PostgresServer, require_postgres

        self.server = PostgresServer(require_postgres()).start()

    def _ctl(self, *args: str) -> None:
        self.server._run(str(self.server.bindir / "pg_ctl"), "-D", str(self.server.data), *args)

    def restart(self) -> None:
        self.stop()
        self.start()

    def stop(self) -> None:
        self._ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        server = self.server  # the options of PostgresServer.start (pg_ctl start does not keep them)
        options = (
            f"-p {server.port} -k {server.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c synchronous_commit=off -c max_connections=200"
        )
        self._ctl("-l", str(server.folder / "log"), "-w", "-o", options, "start")

    def new_database(self) -> str:
        return self.server.new_database()

    def close(self) -> None:
        self.server.stop()


@pytest.fixture(scope="module")
def pg():
    server = RestartablePostgres()
    yield server
    server.close()


@pytest.fixture
def warehouse_on_pg(pg, tmp_path):
    root = tmp_path / "wh"
    root.mkdir()
    url = pg.new_database()
    yield root, url
    use_lock_service(root, None)


def _lock_once(path: Path) -> None:
    with file_lock(str(path), 0.0, "label l1"):
        pass


def test_a_label_lock_reconnects_after_a_restart_and_is_retryable_while_down(pg, warehouse_on_pg):
    root, url = warehouse_on_pg
    catalog = open_catalog(root, url)
    lock = root / "_staging" / "stream_load" / "labels" / "l1.lock"
    _lock_once(lock)  # the process's lock connection now exists
    assert catalog.get_load("d", "l1") is None  # and this thread's catalog connection

    pg.restart()
    _lock_once(lock)  # not CommitConflictError ("the label is held"): a new lock connection
    assert catalog.get_load("d", "l1") is None  # the first read after the restart works too

    pg.stop()
    try:
        with pytest.raises(CatalogError) as down:
            _lock_once(lock)
        assert not isinstance(down.value, CommitConflictError)
        assert "retry" in str(down.value) and "postgresql://dorisql@127.0.0.1" in str(down.value)
        with pytest.raises(CatalogError, match="catalog postgresql://"):
            catalog.get_load("d", "l1")
    finally:
        pg.start()
    _lock_once(lock)
    assert catalog.get_load("d", "l1") is None

    # A lock another process holds is still a conflict (what Stream Load answers RUNNING for).
    other = AdvisoryLocks(url)
    try:
        assert other.try_acquire(os.path.relpath(lock, root))
        with pytest.raises(CommitConflictError):
            _lock_once(lock)
    finally:
        other.close()
    catalog.close()


# ---------------------------------------------------------------------- end to end, with Spark


def _put(port: int, body: bytes, label: str):
    return put_stream_load(port, "sl", "t", body, {"label": label, "column_separator": ","})


@pytest.mark.spark
def test_stream_loads_with_new_labels_load_after_a_catalog_restart(pg, warehouse_on_pg, make_engine, spark):
    from dorisql.server.http import HttpListener

    root, url = warehouse_on_pg

    def factory():
        return make_engine(root, spark=spark, catalog=url)

    factory().execute_sql(
        "CREATE DATABASE sl; CREATE TABLE sl.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    )
    with HttpListener(factory, "127.0.0.1", 0) as listener:
        status, first = _put(listener.port, b"1,1\n", "before_restart")
        assert status == 200 and first["Status"] == "Success", first

        pg.restart()
        status, second = _put(listener.port, b"2,2\n", "after_restart")
        assert status == 200 and second["Status"] == "Success", second

        pg.stop()
        try:
            status, down = _put(listener.port, b"3,3\n", "while_down")
            assert down["Status"] == "Fail", down  # retryable: never "Label Already Exists"
            assert "catalog" in down["Message"] and "/" not in down["Message"].split("postgresql://")[0]
        finally:
            pg.start()
        status, retried = _put(listener.port, b"3,3\n", "while_down")
        assert status == 200 and retried["Status"] == "Success", retried
        status, again = _put(listener.port, b"3,3\n", "while_down")
        assert again["Status"] == "Label Already Exists" and again["ExistingJobStatus"] == "FINISHED"
    rows = factory().execute_sql("SELECT k FROM sl.t ORDER BY k")[0].rows
    assert [tuple(r) for r in rows] == [(1,), (2,), (3,)]


def test_forget_loads_removes_only_the_records_it_was_given(open_cat):
    # Label expiry (label_keep_max_second) on both backends: a label claimed again keeps its record.
    import datetime as dt

    from dorisql.catalog.base import LoadRecord

    catalog = open_cat()
    when = dt.datetime(2024, 1, 1)
    old = LoadRecord("d", "a", "t", 1, "FINISHED", when, finished_at=when)
    other = LoadRecord("d", "b", "t", 2, "CANCELLED", when, finished_at=when)
    assert catalog.claim_load(old) is None and catalog.claim_load(other) is None
    again = LoadRecord("d", "b", "t", 3, "LOADING", when)
    assert catalog.claim_load(again, replace_states=("CANCELLED",)) is None
    assert catalog.forget_loads([old, other]) == 1
    assert catalog.get_load("d", "a") is None
    assert catalog.get_load("d", "b").txn_id == 3


# ---------------------------------------------------------------------- a real `dorisql server`


@pytest.mark.spark
def test_a_server_on_a_restarted_catalog_logs_in_loads_and_names_the_catalog_while_it_is_down(pg, tmp_path):
    # The reproduction: `dorisql server --catalog postgresql://...`, labelled Stream Loads
    # with curl-like PUTs before and after a restart, and logins while the catalog is down.
    import subprocess

    import pymysql
    from server.serverkit import DORISQL, free_port, stop_server, wait_for_port

    from isolation import dorisql_env

    url = pg.new_database()
    port, http_port = free_port(), free_port()
    log = tmp_path / "server.log"
    env = {**dorisql_env(tmp_path / "home"), "DORISQL_MASTER": "local[2]"}
    command = [DORISQL, "server", "--warehouse", str(tmp_path / "wh"), "--catalog", url]
    command += ["--query-port", str(port), "--http-port", str(http_port)]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(process, port, log)

        def sql(text: str):
            with pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True) as conn:
                with conn.cursor() as cur:
                    cur.execute(text)
                    return cur.fetchall()

        sql("CREATE DATABASE sl")
        sql("CREATE TABLE sl.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        assert _put(http_port, b"1,1\n", "srv_before")[1]["Status"] == "Success"

        pg.restart()
        status, answer = _put(http_port, b"2,2\n", "srv_after")
        assert answer["Status"] == "Success", answer  # not "Label Already Exists" (RUNNING)

        pg.stop()
        try:
            with pytest.raises(pymysql.err.OperationalError) as refused:
                sql("SELECT 1")
            code, message = refused.value.args
            assert code == 1105 and "catalog postgresql://dorisql@127.0.0.1" in message, message
            assert "internal error" not in message.lower()
            status, answer = _put(http_port, b"3,3\n", "srv_down")
            assert answer["Status"] == "Fail" and "catalog" in answer["Message"], answer
        finally:
            pg.start()
        assert _put(http_port, b"3,3\n", "srv_down")[1]["Status"] == "Success"
        assert sorted(sql("SELECT k FROM sl.t")) == [(1,), (2,), (3,)]
    finally:
        stop_server(process)


def test_a_body_held_through_the_postgresql_lock_service_is_not_an_orphan(pg, warehouse_on_pg, make_engine):
    # With a PostgreSQL catalog a load's body lock is an advisory lock (no lock file): a body
    # another process's load holds stays; once that process's session ends, it is an orphan.
    import time

    from dorisql.statements.load.stream_load import body_dir, orphan_bodies

    root, url = warehouse_on_pg
    engine = make_engine(root, catalog=url)
    folder = body_dir(root)
    folder.mkdir(parents=True)
    body = folder / "70001.body"
    body.write_bytes(b"1,1\n")
    then = time.time() - 3600
    os.utime(body, (then, then))
    loader = AdvisoryLocks(url)  # another process's lock session
    try:
        assert loader.try_acquire(os.path.relpath(body, root))
        assert orphan_bodies(engine, time.time(), remove=True) == [] and body.exists()
    finally:
        loader.close()  # the process died: the server releases its locks as that backend exits
    # (asynchronously: the next lock attempt may still find it held for a moment)
    found = wait_until(lambda: orphan_bodies(engine, time.time(), remove=True), what="the body judged an orphan")
    assert [b.path for b in found] == [body]
    assert not body.exists()
    engine.close()
