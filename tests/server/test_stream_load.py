"""Stream Load through a real HttpListener on 127.0.0.1, with real curl and urllib: typed
columns, filtered rows and their ErrorURL, JSON with columns/where, labels (reuse, after a
restart, racing requests, a load that died before or after its commit), authentication and
LOAD privilege, and malformed requests answered while the listener keeps serving."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import json
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from decimal import Decimal

import pytest

from dorisql.catalog.base import LoadRecord
from dorisql.server.http import HttpListener

pytestmark = pytest.mark.spark

DDL = """
CREATE DATABASE sl;
CREATE TABLE sl.orders (id INT, day DATE, amount DECIMAL(10, 2), note VARCHAR(6))
    DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ('replication_num' = '1');
CREATE TABLE sl.zoned (k INT, ts DATETIME, f DATETIME, n DATETIME)
    DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
CREATE USER 'loader'@'%' IDENTIFIED BY 'load-pw';
GRANT LOAD_PRIV, SELECT_PRIV ON sl.* TO 'loader'@'%';
CREATE USER 'reader'@'%' IDENTIFIED BY 'read-pw';
GRANT SELECT_PRIV ON sl.* TO 'reader'@'%';
"""


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    return tmp_path_factory.mktemp("stream_load")


@pytest.fixture(scope="module")
def factory(warehouse, make_engine, spark):
    def make():
        return make_engine(warehouse, spark=spark)

    engine = make()
    engine.execute_sql(DDL)
    return make


@pytest.fixture(scope="module")
def listener(factory):
    with HttpListener(factory, "127.0.0.1", 0) as server:
        yield server


def _url(server, path="/api/sl/orders/_stream_load"):
    return f"http://127.0.0.1:{server.port}{path}"


def _curl(server, data_file, *headers, user="loader:load-pw"):
    args = ["curl", "-sS", "--location-trusted", "-u", user]
    for h in headers:
        args += ["-H", h]
    args += ["-T", str(data_file), "-XPUT", _url(server)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _put(server, body: bytes, headers: dict, user=("loader", "load-pw"), table="orders"):
    token = base64.b64encode(f"{user[0]}:{user[1]}".encode()).decode()
    request = urllib.request.Request(
        _url(server, f"/api/sl/{table}/_stream_load"),
        data=body,
        method="PUT",
        headers={"Authorization": f"Basic {token}", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=300) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _rows(factory, where="1 = 1"):
    return factory().execute_sql(f"SELECT id, day, amount, note FROM sl.orders WHERE {where} ORDER BY id")[0].rows


def test_curl_loads_typed_columns_and_lists_the_filtered_rows(listener, factory, tmp_path):
    data = tmp_path / "orders.csv"
    data.write_text(
        "1,2024-01-05,10.50,a\n2,2024-02-30,3,b\n3,2024-01-06,\\N,toolong\n4,2024-01-07\n5,2024-01-08,7,e\n"
    )
    out = _curl(listener, data, "label:csv1", "column_separator:,", "max_filter_ratio:0.6", "Expect:100-continue")
    assert out["Status"] == "Success" and out["Message"] == "OK" and out["Label"] == "csv1"
    assert (out["NumberTotalRows"], out["NumberLoadedRows"], out["NumberFilteredRows"]) == (5, 2, 3)
    assert out["LoadBytes"] == data.stat().st_size and out["TwoPhaseCommit"] == "false"
    assert _rows(factory, "id IN (1, 5)") == [
        (1, dt.date(2024, 1, 5), Decimal("10.50"), "a"),
        (5, dt.date(2024, 1, 8), Decimal("7.00"), "e"),
    ]
    log = subprocess.run(["curl", "-sS", "-u", "loader:load-pw", out["ErrorURL"]], capture_output=True, text=True)
    lines = log.stdout.splitlines()
    assert len(lines) == 3
    assert any("'2024-02-30' is not a valid DATE" in line and "src line [2,2024-02-30,3,b]" in line for line in lines)
    assert any("'toolong' is longer than VARCHAR(6)" in line for line in lines)
    assert any("actual column number in csv file is 2, but schema column number is 4" in line for line in lines)
    # the same label again: nothing loaded
    again = _curl(listener, data, "label:csv1", "column_separator:,", "max_filter_ratio:0.6")
    assert again["Status"] == "Label Already Exists" and again["ExistingJobStatus"] == "FINISHED"
    assert again["TxnId"] == out["TxnId"] and "has already been used" in again["Message"]
    assert len(_rows(factory, "id IN (1, 5)")) == 2


def test_the_timezone_header_is_the_loads_time_zone(listener, factory):
    """now(), from_unixtime() and a datetime written with its zone give the wall time of the
    ``timezone`` header's zone (Doris: the load's time zone); without it, the server's (UTC here)."""
    body = b"1|2024-01-01 00:00:00+00:00|0\n2|2024-01-01 00:00:00|3600\n3|2024-01-01 08:00:00 Asia/Shanghai|0\n"
    columns = {"column_separator": "|", "columns": "k, ts, u, f = from_unixtime(u), n = now()"}
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    status, out = _put(listener, body, {"label": "tz-shanghai", "timezone": "Asia/Shanghai", **columns}, table="zoned")
    assert (status, out["Status"], out["NumberLoadedRows"]) == (200, "Success", 3), out
    again = body.replace(b"1|2024", b"4|2024").replace(b"2|2024", b"5|2024").replace(b"3|2024", b"6|2024")
    status, out = _put(listener, again, {"label": "tz-default", **columns}, table="zoned")
    assert (status, out["Status"]) == (200, "Success")
    rows = factory().execute_sql("SELECT k, ts, f, n FROM sl.zoned ORDER BY k")[0].rows
    eight = dt.timedelta(hours=8)
    assert [r[:3] for r in rows] == [
        (1, dt.datetime(2024, 1, 1, 8), dt.datetime(1970, 1, 1, 8)),
        (2, dt.datetime(2024, 1, 1), dt.datetime(1970, 1, 1, 9)),
        (3, dt.datetime(2024, 1, 1, 8), dt.datetime(1970, 1, 1, 8)),
        (4, dt.datetime(2024, 1, 1), dt.datetime(1970, 1, 1)),
        (5, dt.datetime(2024, 1, 1), dt.datetime(1970, 1, 1, 1)),
        (6, dt.datetime(2024, 1, 1), dt.datetime(1970, 1, 1)),
    ]
    assert abs(rows[0][3] - eight - before) < dt.timedelta(minutes=5)  # now() in Shanghai
    assert abs(rows[3][3] - before) < dt.timedelta(minutes=5)
    status, out = _put(listener, body, {"label": "tz-bad", "timezone": "Mars/Olympus", **columns}, table="zoned")
    assert (out["Status"], out["Message"]) == ("Fail", "Unknown or incorrect time zone: 'Mars/Olympus'")


def test_too_many_filtered_rows_fails_and_loads_nothing_csv_with_names(listener, factory):
    body = b"id\tday\tamount\tnote\n6\t2024-01-01\t1\tf\n7\tnot-a-date\t1\tg\n"  # a header line first
    status, out = _put(listener, body, {"label": "strict1", "format": "csv_with_names"})
    assert status == 200 and out["Status"] == "Fail"
    assert out["Message"] == "[DATA_QUALITY_ERROR]too many filtered rows"
    assert (out["NumberTotalRows"], out["NumberLoadedRows"], out["NumberFilteredRows"]) == (2, 0, 1)
    assert "ErrorURL" in out
    assert _rows(factory, "id IN (6, 7)") == []
    listed = factory().execute_sql("SHOW STREAM LOAD FROM sl WHERE Label = 'strict1'")[0]
    assert [dict(zip(listed.columns, r))["Status"] for r in listed.rows] == ["Fail"]


def test_json_with_columns_and_where_after_a_load_that_died_before_its_commit(listener, factory):
    # A process killed after claiming the label and before its Delta commit left this record.
    engine = factory()
    dead = LoadRecord("sl", "json1", "orders", engine.catalog.next_id(), "LOADING", engine.now())
    assert engine.catalog.claim_load(dead) is None
    body = json.dumps([{"id": 20, "cents": 1250, "day": "2024-03-01"}, {"id": 21, "cents": 5, "day": "2024-03-02"}])
    status, out = _put(
        listener,
        body.encode(),
        {
            "label": "json1",
            "format": "json",
            "strip_outer_array": "true",
            "columns": "id, cents, day, amount = cents / 100, note = 'json'",
            "where": "cents > 100",
        },
    )
    assert status == 200 and out["Status"] == "Success", out
    assert (out["NumberTotalRows"], out["NumberLoadedRows"], out["NumberUnselectedRows"]) == (2, 1, 1)
    assert _rows(factory, "id >= 20") == [(20, dt.date(2024, 3, 1), Decimal("12.50"), "json")]


def test_a_load_that_died_after_its_commit_keeps_its_label(listener, factory):
    # The load committed to Delta; its process died before the catalog said FINISHED.
    engine = factory()
    record = engine.catalog.get_load("sl", "csv1")
    engine.catalog.update_load(dataclasses.replace(record, state="LOADING", finished_at=None))
    status, out = _put(listener, b"1\t2024-01-05\t10.5\ta\n", {"label": "csv1"})
    assert out["Status"] == "Label Already Exists" and out["ExistingJobStatus"] == "FINISHED"
    recovered = engine.catalog.get_load("sl", "csv1")
    assert recovered.state == "FINISHED" and recovered.delta_version is not None
    assert len(_rows(factory, "id = 1")) == 1


def test_labels_survive_a_restart(factory):
    with HttpListener(factory, "127.0.0.1", 0) as restarted:  # a new listener, new engines
        status, out = _put(restarted, b"1\t2024-01-05\t10.5\ta\n", {"label": "csv1"})
        assert status == 200 and out["Status"] == "Label Already Exists"
    assert len(_rows(factory, "id = 1")) == 1


def test_two_racing_requests_with_one_label_load_once(listener, factory):
    answers = []
    start = threading.Barrier(2)

    def send():
        start.wait()
        answers.append(_put(listener, b"30\t2024-04-01\t1\tr\n31\t2024-04-02\t2\tr\n", {"label": "race1"})[1])

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a["Status"] for a in answers) == ["Label Already Exists", "Success"]
    assert len(_rows(factory, "id IN (30, 31)")) == 2


def test_wrong_password_and_missing_load_privilege_are_refused(listener, factory):
    status, out = _put(listener, b"40\t2024-01-01\t1\tx\n", {"label": "auth1"}, user=("loader", "wrong"))
    assert status == 401 and out["data"] == "Access denied for user 'loader'@'127.0.0.1' (using password: YES)"
    status, out = _put(listener, b"40\t2024-01-01\t1\tx\n", {"label": "auth2"}, user=("reader", "read-pw"))
    assert status == 401
    assert out["data"] == (
        "Access denied; you need (at least one of) the (LOAD) privilege(s) on table sl.orders for this operation"
    )
    assert factory().catalog.get_load("sl", "auth2") is None  # nothing claimed, nothing loaded


def _raw(server, request: bytes, shut_write: bool = False) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(request)
        if shut_write:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            piece = s.recv(65536)
            if not piece:
                break
            chunks.append(piece)
            if b"\r\n\r\n" in b"".join(chunks) and not shut_write:
                break
    return b"".join(chunks)


def test_malformed_requests_get_errors_and_the_listener_keeps_serving(listener, factory):
    auth = base64.b64encode(b"loader:load-pw").decode()
    head = f"PUT /api/sl/orders/_stream_load HTTP/1.1\r\nHost: x\r\nAuthorization: Basic {auth}\r\n"
    # a body cut short: the label is released, nothing loaded
    answer = _raw(listener, (head + "label: cut1\r\nContent-Length: 100\r\n\r\n41\t2024").encode(), shut_write=True)
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["Status"] == "Fail" and "cut short: 7 of 100 bytes" in body["Message"]
    assert factory().catalog.get_load("sl", "cut1").state == "CANCELLED"
    # a bad header value, an unknown path, a bad request line
    status, out = _put(listener, b"x", {"label": "bad1", "max_filter_ratio": "lots"})
    assert out["Status"] == "Fail" and "Invalid max_filter_ratio 'lots'" in out["Message"]
    # header expressions follow a query's rules: no Java reflection, no table or file read by path
    row = b"51\t2024-01-05\t10.5\tx\n"
    status, out = _put(listener, row, {"label": "evil1", "where": "reflect('java.lang.System', 'exit', 3) IS NULL"})
    assert out["Status"] == "Fail" and "Can not found function 'reflect'" in out["Message"], out
    sneaky = "id, day, amount, note = (SELECT max(value) FROM text.`/etc/passwd`)"
    status, out = _put(listener, row[:-3] + b"\n", {"label": "evil2", "columns": sneaky})
    assert out["Status"] == "Fail" and "Invalid expression in the columns header" in out["Message"], out
    assert _rows(factory, "id = 51") == []
    assert b"404" in _raw(listener, b"GET /api/nothing/here HTTP/1.1\r\nHost: x\r\n\r\n").split(b"\r\n")[0]
    assert b"400" in _raw(listener, b"NONSENSE\r\n\r\n", shut_write=True).split(b"\r\n")[0]
    with urllib.request.urlopen(_url(listener, "/api/health"), timeout=30) as answer:
        assert json.loads(answer.read())["msg"] == "success"
