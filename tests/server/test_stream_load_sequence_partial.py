"""Stream Load into UNIQUE KEY tables through a real HttpListener and curl: a sequence column
orders rows whatever the load order (merge-on-write and merge-on-read), and ``partial_columns:
true`` updates some columns of existing rows, keeping the others (merge-on-write), each read
back through dorisql and, for merge-on-write, with ``deltalake`` as an outside reader."""

from __future__ import annotations

import pytest

from dorisql.server.http import HttpListener
from dorisql.tablets.tables import meta_dir

from httpkit import curl_stream_load

pytestmark = pytest.mark.spark

DDL = """
CREATE DATABASE sp;
CREATE TABLE sp.seq_mow (k INT NOT NULL, v VARCHAR(10), s BIGINT)
    UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ('function_column.sequence_col' = 's');
CREATE TABLE sp.seq_mor (k INT NOT NULL, v VARCHAR(10), s BIGINT)
    UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
    PROPERTIES ('function_column.sequence_col' = 's', 'enable_unique_key_merge_on_write' = 'false');
CREATE TABLE sp.users (id INT NOT NULL, name VARCHAR(10), balance INT, city VARCHAR(10) DEFAULT 'none')
    UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2;
CREATE TABLE sp.users_mor (id INT NOT NULL, name VARCHAR(10), balance INT)
    UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false');
"""


@pytest.fixture(scope="module")
def factory(tmp_path_factory, make_engine, spark):
    warehouse = tmp_path_factory.mktemp("stream_load_sequence_partial")

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
    return curl_stream_load(server.port, "sp", table, data, ("column_separator:,", *headers))


def _rows(factory, table):
    return [tuple(r) for r in factory().execute_sql(f"SELECT * FROM sp.{table} ORDER BY 1")[0].rows]


def _outside(factory, table, columns):
    """The table's rows as deltalake reads its files, sorted."""
    from deltalake import DeltaTable

    engine = factory()
    path = meta_dir(engine.warehouse, engine.catalog.load_table("sp", table))
    found = DeltaTable(str(path)).to_pyarrow_table(columns=list(columns)).to_pylist()
    return sorted(tuple(r[c] for c in columns) for r in found)


@pytest.mark.parametrize("table", ["seq_mow", "seq_mor"])
def test_the_largest_sequence_wins_whatever_the_load_order(listener, factory, tmp_path, table):
    first = _load(listener, table, "1,b,20\n2,old,1\n3,x,5\n3,y,3\n", tmp_path, f"label:{table}-1")
    assert first["Status"] == "Success", first
    # the header names the source of the sequence: the mapped column already orders the rows
    second = _load(
        listener,
        table,
        "1,a,10\n2,new,2\n4,n,\\N\n",
        tmp_path,
        f"label:{table}-2",
        "function_column.sequence_col:s",
    )
    assert second["Status"] == "Success", second
    expected = [(1, "b", 20), (2, "new", 2), (3, "x", 5), (4, "n", None)]
    assert _rows(factory, table) == expected
    if table == "seq_mow":  # merge-on-write: the files hold exactly the latest rows
        assert _outside(factory, table, ("k", "v", "s")) == sorted(expected, key=lambda r: r[0])
    # a columns header without the sequence column is refused, as Doris does
    out = _load(listener, table, "1,late\n", tmp_path, f"label:{table}-3", "columns:k,v")
    assert out["Status"] == "Fail", out
    assert f"Table {table} has sequence column, need to specify the sequence column" in out["Message"]
    assert _rows(factory, table) == expected


def test_partial_columns_keep_the_other_columns(listener, factory, tmp_path):
    out = _load(listener, "users", "1,ann,100,paris\n2,bob,200,rome\n", tmp_path, "label:users-1")
    assert out["Status"] == "Success", out
    out = _load(
        listener,
        "users",
        "1,150\n3,30\n",
        tmp_path,
        "label:users-2",
        "partial_columns:true",
        "columns:id,balance",
    )
    assert (out["Status"], out["NumberLoadedRows"]) == ("Success", 2), out
    # key 1 keeps its name and city; the new key 3 gets the defaults (APPEND)
    expected = [(1, "ann", 150, "paris"), (2, "bob", 200, "rome"), (3, None, 30, "none")]
    assert _rows(factory, "users") == expected
    assert _outside(factory, "users", ("id", "name", "balance", "city")) == expected

    # partial_update_new_key_behavior ERROR: a new key fails the load, which changes nothing
    out = _load(
        listener,
        "users",
        "2,250\n9,90\n",
        tmp_path,
        "label:users-3",
        "partial_columns:true",
        "columns:id,balance",
        "partial_update_new_key_behavior:ERROR",
    )
    assert out["Status"] == "Fail", out
    assert "Can't append new rows in partial update when partial_update_new_key_behavior is ERROR" in out["Message"]
    assert "Row with key=[9] is not in table." in out["Message"]
    assert _rows(factory, "users") == expected

    out = _load(listener, "users_mor", "1,5\n", tmp_path, "label:mor-1", "partial_columns:true", "columns:id,balance")
    assert (out["Status"], out["Message"]) == ("Fail", "Only unique key merge on write support partial update"), out
    assert _rows(factory, "users_mor") == []
