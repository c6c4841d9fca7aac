"""Text whose bytes are not UTF-8 is never loaded as U+FFFD (issue 25, item 16).

Doris's CSV reader filters such a row ("Invalid file encoding: all CSV files must be UTF-8
encoded") and counts it in the load's filtered rows. dorisql does the same wherever a load's
bytes come from a file: a Stream Load CSV body (through a real HttpListener) and ``INSERT ...
SELECT ... FROM local(...)`` (CSV and JSON; a JSON line that is not JSON at all is filtered
too). Valid non-ASCII text (and a U+FFFD that really is in the file, as
its UTF-8 bytes) loads as it is."""

from __future__ import annotations

import base64
import urllib.request

import pytest

from dorisql.errors import LoadError
from dorisql.server.http import HttpListener

from .conftest import rows, run
from httpkit import put_stream_load

#: a valid row, a row with bytes that are not UTF-8, a valid non-ASCII row, a real U+FFFD
BODY = b"1,plain\n2,caf\xe9\n3,caf\xc3\xa9\n4,\xef\xbf\xbd\n"
GOOD = [(1, "plain"), (3, "caf\u00e9"), (4, "\ufffd")]


@pytest.fixture
def utf8_table(engine):
    run(engine, "DROP TABLE IF EXISTS u8 FORCE")
    run(engine, "CREATE TABLE u8 (k INT, v VARCHAR(20)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    yield "u8"
    run(engine, "SET enable_insert_strict = true")


def test_local_csv_load_filters_the_row_that_is_not_utf8(engine, utf8_table, tmp_path, monkeypatch):
    secure = tmp_path / "files"
    secure.mkdir()
    (secure / "body.csv").write_bytes(BODY)
    (secure / "named.csv").write_bytes(b"k,caf\xc3\xa9\n" + BODY)
    monkeypatch.setitem(engine.config.frontend, "user_files_secure_path", str(secure))
    source = "local('file_path' = 'body.csv', 'format' = 'csv', 'column_separator' = ',')"
    # strict mode (the default): the load is refused, naming the row and the cause; nothing loaded
    with pytest.raises(LoadError) as refused:
        run(engine, f"INSERT INTO u8 SELECT c1, c2 FROM {source}")
    message = str(refused.value)
    assert message.startswith("Insert has filtered data in strict mode: 1 of 4 rows"), message
    assert "(2, caf\ufffd): column `v`: invalid file encoding: the value is not UTF-8" in message
    assert rows(engine, "SELECT count(*) FROM u8") == [(0,)]
    # not strict: the other rows load, the bad one is counted as filtered
    run(engine, "SET enable_insert_strict = false")
    result = run(engine, f"INSERT INTO u8 SELECT c1, c2 FROM {source}")
    assert result.affected_rows == 3 and "1 rows filtered" in " ".join(result.warnings), result
    assert sorted(rows(engine, "SELECT k, v FROM u8")) == GOOD
    # a header line's non-ASCII name is read as UTF-8 too
    named = "local('file_path' = 'named.csv', 'format' = 'csv_with_names', 'column_separator' = ',')"
    assert [c for c in run(engine, f"SELECT * FROM {named} LIMIT 1").columns] == ["k", "caf\u00e9"]


#: the rows of BODY as JSON lines, and a line that is not JSON at all
JSON_BODY = (
    b'{"k": 1, "v": "plain"}\n{"k": 2, "v": "caf\xe9"}\n{"k": 3, "v": "caf\xc3\xa9"}\n'
    b'{"k": 4, "v": "\xef\xbf\xbd"}\n{"k": 5, "v": oops\n'
)


def test_local_json_load_filters_the_row_that_is_not_utf8_or_not_json(engine, utf8_table, tmp_path, monkeypatch):
    secure = tmp_path / "files"
    secure.mkdir()
    (secure / "body.json").write_bytes(JSON_BODY)
    monkeypatch.setitem(engine.config.frontend, "user_files_secure_path", str(secure))
    source = "local('file_path' = 'body.json', 'format' = 'json')"
    # a plain SELECT never shows Spark's corrupt-record column
    assert run(engine, f"SELECT * FROM {source}").columns == ["k", "v"]
    # strict mode (the default): the load is refused, naming the rows and the cause; nothing loaded
    with pytest.raises(LoadError) as refused:
        run(engine, f"INSERT INTO u8 SELECT k, v FROM {source}")
    message = str(refused.value)
    assert message.startswith("Insert has filtered data in strict mode: 2 of 5 rows"), message
    assert "(2, caf\ufffd): column `v`: invalid file encoding: the value is not UTF-8" in message
    assert 'column `k`: \'\ufffdnot valid JSON: {"k": 5, "v": oops\' is not a INT' in message, message
    assert rows(engine, "SELECT count(*) FROM u8") == [(0,)]
    # not strict: the other rows load, the bad ones are counted as filtered
    run(engine, "SET enable_insert_strict = false")
    result = run(engine, f"INSERT INTO u8 SELECT k, v FROM {source}")
    assert result.affected_rows == 3 and "2 rows filtered" in " ".join(result.warnings), result
    assert sorted(rows(engine, "SELECT k, v FROM u8")) == GOOD


@pytest.fixture
def listener(engine, make_engine, spark):
    with HttpListener(lambda: make_engine(engine.warehouse, spark=spark), "127.0.0.1", 0) as server:
        yield server


def _put(server, body: bytes, headers: dict):
    return put_stream_load(server.port, "d", "u8", body, headers)[1]


def test_stream_load_csv_filters_the_row_that_is_not_utf8(engine, utf8_table, listener):
    refused = _put(listener, BODY, {"label": "u8-strict", "column_separator": ","})
    assert refused["Status"] == "Fail" and "too many filtered rows" in refused["Message"], refused
    assert (refused["NumberTotalRows"], refused["NumberFilteredRows"]) == (4, 1)
    assert rows(engine, "SELECT count(*) FROM u8") == [(0,)]
    out = _put(listener, BODY, {"label": "u8-ratio", "column_separator": ",", "max_filter_ratio": "0.5"})
    assert out["Status"] == "Success", out
    assert (out["NumberTotalRows"], out["NumberLoadedRows"], out["NumberFilteredRows"]) == (4, 3, 1)
    assert sorted(rows(engine, "SELECT k, v FROM u8")) == GOOD
    with urllib.request.urlopen(
        urllib.request.Request(
            out["ErrorURL"], headers={"Authorization": "Basic " + base64.b64encode(b"root:").decode()}
        ),
        timeout=60,
    ) as answer:
        log = answer.read().decode("utf-8", "replace").splitlines()
    assert (
        len(log) == 1
        and "Invalid file encoding: all CSV files must be UTF-8 encoded" in log[0]
        and "src line [2," in log[0]
    ), log


def test_stream_load_json_filters_the_row_that_is_not_utf8(engine, utf8_table, listener):
    body = b'{"k": 1, "v": "plain"}\n{"k": 2, "v": "caf\xe9"}\n{"k": 3, "v": "caf\xc3\xa9"}\n'
    headers = {"label": "u8-json", "format": "json", "read_json_by_line": "true", "max_filter_ratio": "0.5"}
    out = _put(listener, body, headers)
    assert out["Status"] == "Success", out
    assert (out["NumberTotalRows"], out["NumberLoadedRows"], out["NumberFilteredRows"]) == (3, 2, 1)
    assert sorted(rows(engine, "SELECT k, v FROM u8")) == [(1, "plain"), (3, "caf\u00e9")]
