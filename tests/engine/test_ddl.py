"""CREATE/DROP DATABASE and TABLE, names that try to leave the warehouse, the Doris -> Delta type map."""

from __future__ import annotations

import json
import os
from decimal import Decimal

import pytest

from dorisql.errors import AlreadyExistsError, AnalysisError, CatalogError, DorisqlError, LoadError

from .conftest import delta, delta_rows, delta_version, rows, run, table_folders, table_path


def _tree(path) -> set[str]:
    out = set()
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            rel = os.path.relpath(os.path.join(root, name), path)
            if "_locks" not in rel.split(os.sep) and not rel.endswith(".lock"):  # advisory lock files
                out.add(rel)
    return out


def test_database_lifecycle(engine):
    run(engine, "CREATE DATABASE db_life")
    assert (engine.warehouse / "db_life").is_dir()
    with pytest.raises(AlreadyExistsError):
        run(engine, "CREATE DATABASE db_life")
    run(engine, "CREATE DATABASE IF NOT EXISTS db_life")
    assert ("db_life",) in rows(engine, "SHOW DATABASES")
    run(engine, "CREATE TABLE db_life.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 2")
    assert delta_version(engine, "t", db="db_life") >= 0
    run(engine, "DROP DATABASE db_life")
    # The folder waits in the recycle bin (RECOVER DATABASE; tests/engine/test_recycle_bin.py).
    assert (engine.warehouse / "db_life").is_dir()
    assert ("db_life",) not in rows(engine, "SHOW DATABASES")
    with pytest.raises(CatalogError):
        run(engine, "DROP DATABASE db_life")
    run(engine, "DROP DATABASE IF EXISTS db_life")
    # The name is free again and the old table is gone with its database.
    run(engine, "CREATE DATABASE db_life")
    assert rows(engine, "SHOW TABLES FROM db_life") == []
    run(engine, "DROP DATABASE db_life")


def test_table_lifecycle_and_if_not_exists(engine):
    run(engine, "CREATE TABLE life (k INT, v VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    run(engine, "INSERT INTO life VALUES (1, 'a')")
    with pytest.raises(AlreadyExistsError):
        run(engine, "CREATE TABLE life (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1")
    # IF NOT EXISTS only checks the name (seed 003 "Other"): the old table and its rows stay.
    run(engine, "CREATE TABLE IF NOT EXISTS life (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1")
    assert [c[0] for c in rows(engine, "DESC life")] == ["k", "v"]
    assert rows(engine, "SELECT * FROM life") == [(1, "a")]
    assert ("life",) in rows(engine, "SHOW TABLES")
    life_path = table_path(engine, "life")
    run(engine, "DROP TABLE life")
    assert os.path.exists(life_path)  # in the recycle bin until it expires
    assert ("life",) not in rows(engine, "SHOW TABLES")
    with pytest.raises(CatalogError):
        run(engine, "DROP TABLE life")
    run(engine, "DROP TABLE IF EXISTS life")
    # Re-creating the name gives a new, empty table.
    run(engine, "CREATE TABLE life (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
    assert rows(engine, "SELECT count(*) FROM life") == [(0,)]
    assert delta(engine, "life").to_pyarrow_table().num_rows == 0
    run(engine, "DROP TABLE life")


ESCAPES = ["../x", "..", "/abs", "/tmp/abs", "a/b", "a\\b", ".hidden", "_catalog", "a b", "a.b", "x\ny", "é", "a;b"]


@pytest.mark.parametrize("name", ESCAPES)
def test_names_that_leave_the_warehouse_are_refused(engine, name):
    parent = engine.warehouse.parent
    before_parent, before_wh = _tree(parent), _tree(engine.warehouse)
    quoted = "`" + name.replace("`", "``") + "`"
    statements = [
        f"CREATE DATABASE {quoted}",
        f"CREATE TABLE {quoted} (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
        f"CREATE TABLE {quoted}.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
        f"CREATE TABLE esc (k INT) PARTITION BY RANGE(k) (PARTITION {quoted} VALUES LESS THAN (10)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    ]
    for sql in statements:
        with pytest.raises(DorisqlError):
            run(engine, sql)
    assert _tree(parent) == before_parent
    assert _tree(engine.warehouse) == before_wh
    assert not os.path.exists("/abs") and not os.path.exists("/tmp/abs")


def test_rename_and_add_partition_to_escaping_names_are_refused(engine):
    run(
        engine,
        "CREATE TABLE esc2 (k INT) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    before = _tree(engine.warehouse.parent)
    for sql in [
        "ALTER TABLE esc2 RENAME `../esc3`",
        "ALTER TABLE esc2 RENAME `/tmp/esc3`",
        "ALTER TABLE esc2 ADD PARTITION `../p2` VALUES LESS THAN (20)",
        "ALTER TABLE esc2 RENAME PARTITION p1 `../p9`",
    ]:
        with pytest.raises(DorisqlError):
            run(engine, sql)
    assert _tree(engine.warehouse.parent) == before
    assert [r[1] for r in rows(engine, "SHOW PARTITIONS FROM esc2")] == ["p1"]
    run(engine, "DROP TABLE esc2")


def test_type_map_in_the_delta_schema(engine):
    run(
        engine,
        """CREATE TABLE types (
        k INT, ti TINYINT, si SMALLINT, bi BIGINT, li LARGEINT, f FLOAT, d DOUBLE,
        dec DECIMAL(10, 2), dt DATE, ts DATETIME, ts3 DATETIME(3), c CHAR(5), vc VARCHAR(20), s STRING, b BOOLEAN)
        DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""",
    )
    log = os.path.join(table_path(engine, "types"), "_delta_log", "00000000000000000000.json")
    with open(log) as f:
        meta = next(json.loads(line)["metaData"] for line in f if "metaData" in line)
    fields = {fd["name"]: fd["type"] for fd in json.loads(meta["schemaString"])["fields"]}
    assert fields["ts"] == "timestamp_ntz"  # DATETIME has no time zone
    assert fields["ts3"] == "timestamp_ntz"
    assert fields["dt"] == "date"
    assert fields["li"] == "decimal(38,0)"
    assert fields["dec"] == "decimal(10,2)"
    assert (fields["ti"], fields["si"], fields["k"], fields["bi"]) == ("byte", "short", "integer", "long")
    assert fields["vc"] == "string" and fields["b"] == "boolean"
    assert fields["__partition"] == "string" and fields["__bucket"] == "integer"
    assert meta["partitionColumns"] == ["__partition", "__bucket"]
    # A DATETIME value is stored as written, whatever the session time zone.
    run(engine, "INSERT INTO types (k, ts, ts3, li) VALUES (1, '2024-03-10 02:30:00', '2024-03-10 02:30:00.123', 7)")
    stored = delta_rows(engine, "types", columns=["ts", "ts3"])
    import datetime as dt

    assert stored == [{"ts": dt.datetime(2024, 3, 10, 2, 30), "ts3": dt.datetime(2024, 3, 10, 2, 30, 0, 123000)}]
    assert rows(engine, "SELECT ts FROM types") == [(dt.datetime(2024, 3, 10, 2, 30),)]
    import pyarrow as pa

    schema = delta(engine, "types").schema().to_arrow()
    ts_type = pa.schema(schema).field("ts").type
    assert ts_type.tz is None


def test_largeint_limits(engine):
    run(engine, "CREATE TABLE big (k INT, li LARGEINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    top = 10**38 - 1
    run(engine, f"INSERT INTO big VALUES (1, {top}), (2, -{top}), (3, 0)")
    assert sorted(r["li"] for r in delta_rows(engine, "big", columns=["li"])) == [
        Decimal(-top),
        Decimal(0),
        Decimal(top),
    ]
    assert rows(engine, "SELECT li FROM big WHERE k = 1") == [(Decimal(top),)]
    version = delta_version(engine, "big")
    for value in (f"{10**38}", f"-{10**38}", "170141183460469231731687303715884105727"):
        with pytest.raises(LoadError) as err:
            run(engine, f"INSERT INTO big VALUES (9, {value})")
        text = str(err.value)
        assert "li" in text and "LARGEINT" in text, text
        assert value in text, text  # the offending value is shown as given
        assert "10^38" in text or str(top) in text, text
    assert delta_version(engine, "big") == version
    assert rows(engine, "SELECT count(*) FROM big") == [(3,)]


def test_catalog_only_statements_on_unknown_objects(engine):
    with pytest.raises(CatalogError):
        run(engine, "CREATE TABLE nodb.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
    assert not (engine.warehouse / "nodb").exists()
    with pytest.raises(DorisqlError):
        run(engine, "SELECT * FROM no_such_table")
    with pytest.raises(AnalysisError):
        run(
            engine,
            "CREATE TABLE bad (k INT) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), "
            'PARTITION p2 VALUES [("5"), ("20"))) DISTRIBUTED BY HASH(k) BUCKETS 1',
        )
    assert ("bad",) not in rows(engine, "SHOW TABLES")
    # No folder is left by the failed CREATE: every folder is a table's, live or in the recycle bin.
    d_id = engine.catalog.get_database("d").id
    recycled = {
        str(engine.warehouse / "d" / str(r[3]))
        for r in rows(engine, "SHOW CATALOG RECYCLE BIN")
        if r[0] == "Table" and r[2] == d_id
    }
    assert table_folders(engine) == {table_path(engine, name) for (name,) in rows(engine, "SHOW TABLES")} | recycled
