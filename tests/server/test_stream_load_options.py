"""Stream Load's options through a real HttpListener and curl, each read back from the table:
merge_type DELETE / MERGE with ``delete``, jsonpaths with json_root, enclose / escape /
trim_double_quotes / skip_lines, the headers dorisql refuses (naming them, nothing changed), and
the client's address recorded with the load."""

from __future__ import annotations

import json

import pytest

from dorisql.server.http import HttpListener

from httpkit import curl_stream_load

pytestmark = pytest.mark.spark

DDL = """
CREATE DATABASE so;
CREATE TABLE so.u (k INT, v VARCHAR(10), flag INT)
    UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ('replication_num' = '1');
CREATE TABLE so.d (k INT, v VARCHAR(10))
    DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
CREATE TABLE so.j (id INT NOT NULL, name VARCHAR(10) NOT NULL, city VARCHAR(10))
    DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ('replication_num' = '1');
CREATE TABLE so.c (k INT, a VARCHAR(20), b VARCHAR(20))
    DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
"""


@pytest.fixture(scope="module")
def factory(tmp_path_factory, make_engine, spark):
    warehouse = tmp_path_factory.mktemp("stream_load_options")

    def make():
        return make_engine(warehouse, spark=spark)

    make().execute_sql(DDL)
    return make


@pytest.fixture(scope="module")
def listener(factory):
    with HttpListener(factory, "127.0.0.1", 0) as server:
        yield server


def _load(server, table, body: str, tmp_path, *headers):
    data = tmp_path / f"{table}.body"
    data.write_text(body, encoding="utf-8")
    return curl_stream_load(server.port, "so", table, data, headers)


def _rows(factory, table):
    return factory().execute_sql(f"SELECT * FROM so.{table} ORDER BY 1")[0].rows


def test_merge_type_delete_and_merge_delete_keys_in_one_labelled_commit(listener, factory, tmp_path):
    out = _load(listener, "u", "1,a,0\n2,b,0\n3,c,0\n4,d,0\n", tmp_path, "label:u1", "column_separator:,")
    assert out["Status"] == "Success" and out["NumberLoadedRows"] == 4
    # DELETE: every row deletes the row of its key, whatever its values
    out = _load(listener, "u", "1,x,9\n2,y,9\n", tmp_path, "label:u-del", "column_separator:,", "merge_type:DELETE")
    assert (out["Status"], out["NumberLoadedRows"]) == ("Success", 2), out
    assert _rows(factory, "u") == [(3, "c", 0), (4, "d", 0)]
    again = _load(listener, "u", "3,x,9\n", tmp_path, "label:u-del", "column_separator:,", "merge_type:DELETE")
    assert again["Status"] == "Label Already Exists" and _rows(factory, "u") == [(3, "c", 0), (4, "d", 0)]
    # the deleted key loaded again is back (the delete hides only earlier rows)
    _load(listener, "u", "1,again,0\n", tmp_path, "label:u2", "column_separator:,")
    assert _rows(factory, "u")[0] == (1, "again", 0)
    # MERGE: the rows matching the delete condition delete; here all do
    out = _load(
        listener, "u", "3,x,1\n", tmp_path, "label:u-m1", "column_separator:,", "merge_type:MERGE", "delete:flag=1"
    )
    assert out["Status"] == "Success", out
    # MERGE whose rows match nothing: an upsert
    out = _load(
        listener, "u", "4,new,0\n", tmp_path, "label:u-m2", "column_separator:,", "merge_type:MERGE", "delete:flag=1"
    )
    assert out["Status"] == "Success", out
    assert _rows(factory, "u") == [(1, "again", 0), (4, "new", 0)]
    # a MERGE that both deletes and upserts is refused: nothing changes, the label stays free
    mixed = ("1,x,1\n5,e,0\n", "column_separator:,", "merge_type:MERGE", "delete:flag=1")
    out = _load(listener, "u", mixed[0], tmp_path, "label:u-m3", *mixed[1:])
    assert out["Status"] == "Fail" and "merge_type MERGE whose rows both delete and upsert" in out["Message"]
    assert _rows(factory, "u") == [(1, "again", 0), (4, "new", 0)]
    # a key that is no value of its column is a filtered row
    out = _load(listener, "u", "abc,x,1\n", tmp_path, "label:u-bad", "column_separator:,", "merge_type:DELETE")
    assert out["Status"] == "Fail" and out["NumberFilteredRows"] == 1 and "ErrorURL" in out
    # Doris's rules: UNIQUE tables only; DELETE takes no condition
    out = _load(listener, "d", "1,a\n", tmp_path, "label:d-del", "column_separator:,", "merge_type:DELETE")
    assert (out["Status"], out["Message"]) == ("Fail", "load by MERGE or DELETE is only supported in unique tables.")
    out = _load(listener, "u", "1,a,0\n", tmp_path, "label:u-x", "merge_type:DELETE", "delete:flag=1")
    assert out["Message"] == "Not support DELETE ON clause when merge type is not MERGE."
    assert _rows(factory, "d") == [] and _rows(factory, "u") == [(1, "again", 0), (4, "new", 0)]
    # the client's address is recorded with the load (SHOW STREAM LOAD's ClientIp)
    assert factory().catalog.get_load("so", "u-del").client_ip == "127.0.0.1"
    shown = factory().execute_sql("SHOW STREAM LOAD FROM so WHERE Label = 'u-del'")[0]
    assert [dict(zip(shown.columns, row))["ClientIp"] for row in shown.rows] == ["127.0.0.1"]


def test_jsonpaths_and_json_root_pick_nested_fields(listener, factory, tmp_path):
    body = json.dumps(
        {
            "meta": {"n": 2},
            "data": [
                {"id": 1, "info": {"name": "ann", "addr": {"city": "Oslo"}}},
                {"id": 2, "info": {"name": "bob"}},
                "not an object",
            ],
        }
    )
    out = _load(
        listener,
        "j",
        body,
        tmp_path,
        "label:j1",
        "format:json",
        "strip_outer_array:true",
        "json_root:$.data",
        'jsonpaths:["$.id", "$.info.name", "$.info.addr.city"]',
        "max_filter_ratio:0.5",
    )
    assert (out["Status"], out["NumberLoadedRows"], out["NumberFilteredRows"]) == ("Success", 2, 1), out
    lines = '{"id": 3, "who": {"name": "cy"}}\n{"id": 4, "who": {"name": "di"}}\n'
    out = _load(
        listener,
        "j",
        lines,
        tmp_path,
        "label:j2",
        "format:json",
        "read_json_by_line:true",
        "columns:id, name",
        'jsonpaths:["$.id", "$.who.name"]',
    )
    assert out["Status"] == "Success", out
    assert _rows(factory, "j") == [(1, "ann", "Oslo"), (2, "bob", None), (3, "cy", None), (4, "di", None)]


def test_enclose_escape_trim_double_quotes_and_skip_lines(listener, factory, tmp_path):
    body = "k,a,b\n-- a second header line\n1,'x,y','it\\'s'\n2,plain,'a|b'\n3,\\N,''\n"
    out = _load(
        listener, "c", body, tmp_path, "label:c1", "column_separator:,", "enclose:'", "escape:\\", "skip_lines:2"
    )
    assert (out["Status"], out["NumberLoadedRows"]) == ("Success", 3), out
    quoted = '4,"q,",\\N\n5,"\\N","z"\n'  # trim_double_quotes alone: the comma still splits
    out = _load(
        listener,
        "c",
        quoted,
        tmp_path,
        "label:c2",
        "column_separator:,",
        "trim_double_quotes:true",
        "max_filter_ratio:1",
    )
    assert (out["NumberLoadedRows"], out["NumberFilteredRows"]) == (1, 1), out
    assert _rows(factory, "c") == [
        (1, "x,y", "it's"),
        (2, "plain", "a|b"),
        (3, None, ""),
        (5, "\\N", "z"),  # a quoted \N is the text, not NULL (Doris's converted_from_string)
    ]


def test_refused_headers_name_themselves_and_change_nothing(listener, factory, tmp_path):
    cases = [
        (("function_column.sequence_col:flag",), "There is no sequence column in the table u"),
        (("unique_key_update_mode:UPDATE_FLEXIBLE_COLUMNS",), "UPDATE_FLEXIBLE_COLUMNS"),
        (
            ("partial_columns:true", "partial_update_new_key_behavior:maybe"),
            "Invalid partial_update_new_key_behavior MAYBE, must be one of {'APPEND', 'ERROR'}",
        ),
        (("partial_columns:true", "columns:v, flag"), "Partial update should include all key columns, missing: k"),
        (("compress_type:gz",), "compress_type"),
        (("hidden_columns:__DORIS_DELETE_SIGN__",), "hidden_columns"),
    ]
    before = _rows(factory, "u")
    for i, (headers, message) in enumerate(cases):
        out = _load(listener, "u", "9,z,0\n", tmp_path, f"label:refused{i}", "column_separator:,", *headers)
        assert out["Status"] == "Fail" and message in out["Message"], (headers, out)
    out = _load(listener, "d", "9,z\n", tmp_path, "label:refused-d", "column_separator:,", "partial_columns:true")
    assert out["Message"] == "Only unique key merge on write support partial update"
    assert _rows(factory, "u") == before and _rows(factory, "d") == []
