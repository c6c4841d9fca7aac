"""Stream Load bodies left by killed loads (issue 25, item 7), and label expiry (item 15).

A real load process is SIGKILLed while it receives its body: its ``_staging/stream_load/<txn>.body``
is reported by ADMIN CHECK TABLE and removed by ADMIN CLEAN TRASH, while the body of a load that
is receiving right now (in this process, holding its body's lock) is left alone. No Spark: the
loads end before they read their bodies."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from dorisql.catalog.base import LoadRecord
from dorisql.statements.load.stream_load import body_dir, label_expired, stream_load
from dorisql.statements.load.stream_load_options import parse_options

from httpkit import put_stream_load
from isolation import dorisql_env, mount_tmpfs, unmount

DDL = "CREATE DATABASE d; CREATE TABLE d.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"

_KILLED_LOAD = textwrap.dedent(
    """
    import sys, time
    from dorisql.config import Config
    from dorisql.engine import Engine
    from dorisql.statements.load.stream_load import stream_load
    from dorisql.statements.load.stream_load_options import parse_options

    engine = Engine(Config(warehouse=sys.argv[1]))

    def receive(path):
        with open(path, "wb") as out:
            out.write(b"1,1\\n" * 250_000)  # 1 MB of a body still arriving
            out.flush()
            print(path, flush=True)
            time.sleep(600)  # SIGKILLed here
        return 0

    stream_load(engine, "d", "t", parse_options({"label": "killed"}), receive, lambda name: name)
    """
)


def _age(path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_bodies_of_killed_loads_are_reported_and_removed_but_not_a_running_loads(warehouse, make_engine, tmp_path):
    engine = make_engine(warehouse)
    engine.execute_sql(DDL)

    # A load process killed while its body arrives.
    killed = subprocess.Popen(
        [sys.executable, "-c", _KILLED_LOAD, str(warehouse)],
        env=dorisql_env(tmp_path / "home"),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        dead_body = body_dir(warehouse) / os.path.basename(killed.stdout.readline().strip())
    finally:
        killed.kill()
        killed.wait()
    assert dead_body.is_file() and dead_body.stat().st_size == 1_000_000
    assert engine.catalog.get_load("d", "killed").state == "LOADING"

    # A load receiving its body right now, in this process (it holds its body's lock).
    receiving, finish = threading.Event(), threading.Event()
    seen = {}

    def receive(path):
        path.write_bytes(b"2,2\n")
        seen["path"] = path
        receiving.set()
        finish.wait(60)
        raise OSError("the client went away")  # the load ends before Spark reads the body

    answers = []
    live = threading.Thread(
        target=lambda: answers.append(
            stream_load(make_engine(warehouse), "d", "t", parse_options({"label": "live"}), receive, str)
        )
    )
    live.start()
    try:
        assert receiving.wait(60)
        live_body = seen["path"]
        for body in (dead_body, live_body):  # old enough to be judged, whatever its mtime says
            _age(body, 3600)

        found = engine.execute_sql("ADMIN CHECK TABLE d.t")[0].rows
        leftovers = [r for r in found if r[2] == "STREAM_LOAD_BODY_LEFTOVER"]
        assert len(leftovers) == 1 and leftovers[0][3] == "LEFTOVER", found
        assert "1 Stream Load body file(s)" in leftovers[0][4] and "label killed" in leftovers[0][4]
        assert str(warehouse) not in leftovers[0][4]

        cleaned = engine.execute_sql("ADMIN CLEAN TRASH")[0]
        assert not dead_body.exists(), cleaned.message
        assert live_body.is_file()  # the running load's body stays
        assert "(1000000 bytes)" in cleaned.message or "1 files" in cleaned.message, cleaned.message
        again = engine.execute_sql("ADMIN CHECK TABLE d.t")[0].rows
        assert not [r for r in again if r[2] == "STREAM_LOAD_BODY_LEFTOVER"]
    finally:
        finish.set()
        live.join(60)
    assert answers and answers[0].status == "Fail"
    assert not live_body.exists()  # its own load removed it
    assert list(body_dir(warehouse).glob("*.body")) == []


def test_a_fresh_body_is_not_judged(warehouse, make_engine):
    # A body younger than a minute may belong to a load that created it an instant ago.
    engine = make_engine(warehouse)
    engine.execute_sql(DDL)
    folder = body_dir(warehouse)
    folder.mkdir(parents=True)
    fresh, old = folder / "90001.body", folder / "90002.body"
    fresh.write_bytes(b"x")
    old.write_bytes(b"y")
    _age(old, 120)
    engine.execute_sql("ADMIN CLEAN TRASH")
    assert fresh.exists() and not old.exists()


# ---------------------------------------------------------------------- label expiry (item 15)


def _record(txn: int, label: str, state: str, ended: dt.datetime | None, started: dt.datetime) -> LoadRecord:
    return LoadRecord("d", label, "t", txn, state, started, finished_at=ended)


def test_label_expired_is_doris_label_keep_max_second_with_the_clock_as_an_argument():
    start = dt.datetime(2024, 1, 1, 12, 0, 0)
    done = _record(1, "a", "FINISHED", start + dt.timedelta(minutes=5), start)
    keep = 3 * 24 * 3600
    ended = start + dt.timedelta(minutes=5)
    assert not label_expired(done, ended + dt.timedelta(seconds=keep), keep)  # exactly the keep time: kept
    assert label_expired(done, ended + dt.timedelta(seconds=keep + 1), keep)
    failed = _record(2, "b", "CANCELLED", None, start)  # no end recorded: its start counts
    assert label_expired(failed, start + dt.timedelta(days=4), keep)
    loading = _record(3, "c", "LOADING", None, start)  # may be a commit not yet recorded: never
    assert not label_expired(loading, start + dt.timedelta(days=400), keep)


def test_the_trash_pass_forgets_labels_after_label_keep_max_second(warehouse, make_engine):
    engine = make_engine(warehouse)
    engine.execute_sql(DDL)
    start = dt.datetime(2024, 1, 1, 12, 0, 0)
    for record in (
        _record(101, "old_done", "FINISHED", start + dt.timedelta(seconds=30), start),
        _record(102, "old_failed", "CANCELLED", start + dt.timedelta(seconds=30), start),
        _record(103, "old_loading", "LOADING", None, start),
        _record(104, "recent", "FINISHED", start + dt.timedelta(days=2, hours=23), start + dt.timedelta(days=2)),
    ):
        assert engine.catalog.claim_load(record) is None

    engine.execute_sql("SET dorisql_now = '2024-01-04 11:00:00'")  # 2 days 23 hours later: all kept
    engine.execute_sql("ADMIN CLEAN TRASH")
    assert {r.label for r in engine.catalog.list_loads("d")} == {"old_done", "old_failed", "old_loading", "recent"}

    engine.execute_sql("SET dorisql_now = '2024-01-04 12:01:00'")  # three days and a minute after the first two ended
    cleaned = engine.execute_sql("ADMIN CLEAN TRASH")[0]
    assert "2 load labels expired" in cleaned.message, cleaned.message
    assert {r.label for r in engine.catalog.list_loads("d")} == {"old_loading", "recent"}
    assert engine.catalog.get_load("d", "old_done") is None  # the label may be used again

    # A label claimed again after the pass read it keeps its new record.
    stale = engine.catalog.get_load("d", "recent")
    fresh = _record(105, "recent", "LOADING", None, start + dt.timedelta(days=5))
    assert engine.catalog.claim_load(fresh, replace_states=("FINISHED",)) is None
    assert engine.catalog.forget_loads([stale]) == 0
    assert engine.catalog.get_load("d", "recent").txn_id == 105


# ---------------------------------------------------------------------- a full disk (item 6)


@pytest.fixture
def small_disk(tmp_path):
    """A warehouse on an 8 MiB tmpfs (isolation.mount_tmpfs: fails in CI, skips elsewhere
    without root)."""
    root = tmp_path / "small"
    mount_tmpfs(root, "8m")
    try:
        yield root / "wh"
    finally:
        unmount(root)


def _put(port: int, body: bytes, label: str):
    return put_stream_load(port, "d", "t", body, {"label": label, "column_separator": ","}, timeout=120)


def _disk_full_answer(status: int, answer: dict, warehouse) -> None:
    assert status == 200, answer
    assert answer["Status"] == "Fail" and "Label" in answer and "NumberLoadedRows" in answer, answer
    assert answer["Message"].startswith("[DISK_REACH_CAPACITY_LIMIT]No space left on device"), answer
    assert str(warehouse) not in json.dumps(answer) and "Error" not in answer["Message"]


def test_a_full_disk_is_a_stream_load_failure_in_dorises_shape(small_disk, make_engine):
    from dorisql.server.http import HttpListener

    small_disk.mkdir()
    make_engine(small_disk).execute_sql(DDL)
    with HttpListener(lambda: make_engine(small_disk), "127.0.0.1", 0) as listener:
        # The body does not fit: it cannot be stored.
        status, answer = _put(listener.port, b"1,1\n" * (4 * 1024 * 1024), "too_big")
        _disk_full_answer(status, answer, small_disk)
        assert list(body_dir(small_disk).glob("*.body")) == []  # its partial body is gone
        assert make_engine(small_disk).catalog.get_load("d", "too_big").state == "CANCELLED"  # free again

        # Nothing left at all: the catalog itself cannot record the label.
        filler = small_disk / "filler"
        with contextlib.suppress(OSError), open(filler, "wb") as out:
            while True:
                out.write(b"\0" * 4096)
                out.flush()
        status, answer = _put(listener.port, b"2,2\n", "no_room")
        _disk_full_answer(status, answer, small_disk)

        # Reads keep working; the label is not taken (no record, or one a retry frees: no commit).
        reader = make_engine(small_disk)
        assert reader.catalog.table_exists("d", "t")
        record = reader.catalog.get_load("d", "no_room")
        assert record is None or record.state in ("CANCELLED", "LOADING")
        assert list(body_dir(small_disk).glob("*.body")) == []
        filler.unlink()


def test_an_internal_failure_names_no_server_path(warehouse, make_engine):
    # An engine that cannot start Spark (the pure tier has no Java: tests/conftest.py): the load fails, in Doris's
    # shape, without the server's log path that the failure's own message carries.
    from dorisql.server.http import HttpListener

    make_engine(warehouse).execute_sql(DDL)
    with HttpListener(lambda: make_engine(warehouse), "127.0.0.1", 0) as listener:
        status, answer = _put(listener.port, b"1,1\n", "no_spark")
    assert status == 200 and answer["Status"] == "Fail", answer
    assert answer["Message"] == "[INTERNAL_ERROR]the load failed; the server's log has the details", answer
    assert make_engine(warehouse).catalog.get_load("d", "no_spark").state == "CANCELLED"
