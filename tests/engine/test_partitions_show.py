"""Partition lifecycle on Delta (DROP PARTITION, TRUNCATE, RENAME) and the SHOW commands, with
DataSize / RowCount checked against what `deltalake` reports."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from dorisql import ast
from dorisql.analysis.checks import normalize_create_table
from dorisql.errors import AnalysisError, CatalogError
from dorisql.syntax import parse_one

from .conftest import (
    delta,
    delta_rows,
    delta_version,
    parquet_files_on_disk,
    partition_key,
    partition_names,
    rows,
    run,
    table_path,
)

DORIS_SHOW_PARTITIONS = [
    "PartitionId",
    "PartitionName",
    "VisibleVersion",
    "VisibleVersionTime",
    "State",
    "PartitionKey",
    "Range",
    "DistributionKey",
    "Buckets",
    "ReplicationNum",
    "StorageMedium",
    "CooldownTime",
    "RemoteStoragePolicy",
    "LastConsistencyCheckTime",
    "DataSize",
    "IsInMemory",
    "ReplicaAllocation",
    "IsMutable",
    "SyncWithBaseTables",
    "UnsyncTables",
    "CommittedVersion",
    "RowCount",
]

ORDERS = """CREATE TABLE orders (
    id BIGINT NOT NULL COMMENT "order id", day DATE NOT NULL, shop VARCHAR(12) NOT NULL DEFAULT "main",
    qty INT SUM DEFAULT "0", price DECIMAL(10, 2) MAX, seen DATETIME REPLACE)
    AGGREGATE KEY(id, day, shop)
    PARTITION BY RANGE(day) (
        PARTITION p202401 VALUES LESS THAN ("2024-02-01"),
        PARTITION p202402 VALUES LESS THAN ("2024-03-01"),
        PARTITION p202403 VALUES LESS THAN ("2024-04-01"),
        PARTITION p202404 VALUES LESS THAN ("2024-05-01"))
    DISTRIBUTED BY HASH(id) BUCKETS 3
    PROPERTIES ("replication_num" = "1", "storage_medium" = "HDD")"""


def _size_text(size: int) -> str:
    """Doris's byte formatting, written independently of dorisql.statements.show.objects."""
    for limit, unit in ((1 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if size > limit:
            return f"{size / limit:.3f} {unit}"
    return "0.000 " if size == 0 else f"{size:.3f} B"


def _delta_partition_stats(engine, table: str) -> dict[str, tuple[int, int]]:
    """{partition: (bytes, rows)} from deltalake's own view of the table's add actions."""
    import pyarrow as pa

    adds = pa.table(delta(engine, table).get_add_actions(flatten=True)).to_pylist()
    names = partition_names(engine, table)
    out: dict[str, list[int]] = {}
    for a in adds:
        acc = out.setdefault(names[a["partition.__partition"]], [0, 0])
        acc[0] += a["size_bytes"]
        acc[1] += a["num_records"]
    return {k: (v[0], v[1]) for k, v in out.items()}


def _show(engine, sql: str) -> list[dict]:
    result = run(engine, sql)
    return [dict(zip(result.columns, r)) for r in result.rows]


@pytest.fixture(scope="module")
def orders(engine):
    run(engine, ORDERS)
    values = ", ".join(
        f"({i}, '2024-0{1 + i % 4}-{1 + i % 28:02d}', 's{i % 2}', {i}, {i}.25, '2024-05-01 00:00:00')"
        for i in range(80)
    )
    run(engine, f"INSERT INTO orders VALUES {values}")
    run(engine, "INSERT INTO orders (id, day, qty) VALUES (1000, '2024-01-01', 5), (1001, '2024-02-01', 6)")
    return "orders"


def test_show_partitions_columns_and_sizes(engine, orders):
    result = run(engine, "SHOW PARTITIONS FROM orders")
    assert list(result.columns) == DORIS_SHOW_PARTITIONS
    shown = [dict(zip(result.columns, r)) for r in result.rows]
    assert [r["PartitionName"] for r in shown] == ["p202401", "p202402", "p202403", "p202404"]
    stats = _delta_partition_stats(engine, orders)
    for r in shown:
        size, count = stats[r["PartitionName"]]
        assert r["RowCount"] == count
        assert r["DataSize"] == _size_text(size)
        assert r["Buckets"] == 3 and r["ReplicationNum"] == 1 and r["State"] == "NORMAL"
        assert r["PartitionKey"] == "day" and r["DistributionKey"] == "id"
        assert r["VisibleVersion"] == r["CommittedVersion"]
    assert sum(r["RowCount"] for r in shown) == 82
    # Two loads touched p202401 and p202402, one touched the others.
    assert {r["PartitionName"]: r["VisibleVersion"] for r in shown} == {
        "p202401": 3,
        "p202402": 3,
        "p202403": 2,
        "p202404": 2,
    }
    assert shown[0]["Range"] == ("[types: [DATE]; keys: [0000-01-01]; ..types: [DATE]; keys: [2024-02-01]; )")


def test_show_partitions_where_order_limit(engine, orders):
    assert [
        r["PartitionName"] for r in _show(engine, 'SHOW PARTITIONS FROM orders WHERE PartitionName = "p202403"')
    ] == ["p202403"]
    assert [
        r["PartitionName"] for r in _show(engine, 'SHOW PARTITIONS FROM orders WHERE PartitionName LIKE "%03"')
    ] == ["p202403"]
    assert [r["PartitionName"] for r in _show(engine, "SHOW PARTITIONS FROM orders ORDER BY PartitionName DESC")] == [
        "p202404",
        "p202403",
        "p202402",
        "p202401",
    ]
    assert [
        r["PartitionName"] for r in _show(engine, "SHOW PARTITIONS FROM orders ORDER BY PartitionName DESC LIMIT 2")
    ] == ["p202404", "p202403"]
    assert [
        r["PartitionName"] for r in _show(engine, "SHOW PARTITIONS FROM orders ORDER BY PartitionName LIMIT 1, 2")
    ] == ["p202402", "p202403"]
    assert [
        r["PartitionName"]
        for r in _show(engine, "SHOW PARTITIONS FROM orders WHERE VisibleVersion = 3 ORDER BY PartitionName")
    ] == ["p202401", "p202402"]
    assert [
        r["PartitionName"]
        for r in _show(engine, 'SHOW PARTITIONS FROM orders WHERE PartitionName = "p202401" OR Buckets > 5')
    ] == ["p202401"]
    with pytest.raises(AnalysisError):
        run(engine, "SHOW PARTITIONS FROM orders WHERE NoSuchColumn = 1")


def test_show_databases_tables_desc_data(engine, orders):
    assert ("d",) in rows(engine, "SHOW DATABASES")
    assert rows(engine, 'SHOW DATABASES LIKE "d"') == [("d",)]
    assert ("orders",) in rows(engine, "SHOW TABLES")
    assert rows(engine, 'SHOW TABLES LIKE "ord%"') == [("orders",)]
    desc = run(engine, "DESC orders")
    assert list(desc.columns) == ["Field", "Type", "Null", "Key", "Default", "Extra"]
    # Doris: types as SHOW CREATE TABLE spells them, no default is SQL NULL (not the text)
    assert desc.rows == [
        ("id", "bigint", "No", "true", None, ""),
        ("day", "date", "No", "true", None, ""),
        ("shop", "varchar(12)", "No", "true", "main", ""),
        ("qty", "int", "Yes", "false", "0", "SUM"),
        ("price", "decimal(10,2)", "Yes", "false", None, "MAX"),
        ("seen", "datetime", "Yes", "false", None, "REPLACE"),
    ]
    every = run(engine, "DESC orders ALL")
    assert every.columns == ["IndexName", "IndexKeysType", "Field", "Type", "InternalType", "Null", "Key"] + [
        "Default",
        "Extra",
        "Visible",
        "DefineExpr",
        "WhereClause",
    ]
    assert every.rows[0] == ("orders", "AGG_KEYS", "id", "bigint", "bigint", "No", "true", None, "", "true", "", "")
    assert [r[:5] for r in every.rows[1:3]] == [
        ("", "", "day", "date", "datev2"),
        ("", "", "shop", "varchar(12)", "varchar(12)"),
    ]
    assert [r[4] for r in every.rows[4:]] == ["decimalv3(10,2)", "datetimev2(0)"]
    data = run(engine, "SHOW DATA FROM orders")
    assert list(data.columns) == ["TableName", "IndexName", "Size", "ReplicaCount", "RowCount", "RemoteSize"]
    stats = _delta_partition_stats(engine, orders)
    total_size, total_rows = sum(s for s, _ in stats.values()), sum(n for _, n in stats.values())
    assert data.rows[0][:5] == ("orders", "orders", _size_text(total_size), 12, total_rows)
    whole = {r[0]: r for r in rows(engine, "SHOW DATA")}
    assert whole["orders"][1] == _size_text(total_size)


def test_show_create_table_round_trips(engine, orders):
    ((name, text),) = rows(engine, "SHOW CREATE TABLE orders")
    assert name == "orders" and text.startswith("CREATE TABLE `orders`")
    shown = parse_one(text.rstrip(";"))
    original = parse_one(ORDERS)

    def norm(stmt):
        n = normalize_create_table(dataclasses.replace(stmt, table=ast.TableName("t")))
        return dataclasses.replace(n, partition=dataclasses.replace(n.partition, items=()))

    assert norm(shown).columns == norm(original).columns
    assert norm(shown).keys == norm(original).keys
    assert norm(shown).distribution == norm(original).distribution
    # Doris's normalised properties: the ones given, in Doris's spelling, with its defaults
    shown_props = dict(norm(shown).properties)
    assert shown_props["replication_allocation"] == "tag.location.default: 1"
    assert shown_props["storage_medium"] == "hdd"
    assert list(shown_props)[:4] == [
        "replication_allocation",
        "min_load_replica_num",
        "is_being_synced",
        "storage_medium",
    ]
    assert norm(shown) == dataclasses.replace(norm(original), properties=norm(shown).properties)
    # Re-creating the table from SHOW CREATE TABLE gives the same partitions and the same text.
    run(engine, text.replace("CREATE TABLE `orders`", "CREATE TABLE `orders_clone`"))
    ((_, again),) = rows(engine, "SHOW CREATE TABLE orders_clone")
    assert again == text.replace("`orders`", "`orders_clone`", 1)

    def ranges(t):
        return [(r[1], r[6]) for r in rows(engine, f"SHOW PARTITIONS FROM {t}")]

    assert ranges("orders_clone") == ranges("orders")
    # The Delta table describes itself: its properties carry the Doris DDL.
    config = delta(engine, orders).metadata().configuration
    assert "CREATE TABLE" in config["dorisql.ddl"] and "orders" in config["dorisql.ddl"]
    run(engine, "DROP TABLE orders_clone")


def test_drop_partition_is_a_metadata_only_commit(engine, orders):
    run(engine, ORDERS.replace("orders", "dropme"))
    run(engine, "INSERT INTO dropme SELECT * FROM orders")
    path = table_path(engine, "dropme")
    on_disk = parquet_files_on_disk(path)
    p2_id = engine.catalog.load_table("d", "dropme").partition("p202402").id
    p2_files = {f for f in on_disk if f.startswith(f"__partition={p2_id}/")}
    assert p2_files
    version = delta_version(engine, "dropme")
    run(engine, "ALTER TABLE dropme DROP PARTITION p202402")
    assert delta_version(engine, "dropme") == version + 1
    with open(os.path.join(path, "_delta_log", f"{version + 1:020d}.json")) as f:
        actions = [json.loads(line) for line in f if line.strip()]
    kinds = {next(iter(a)) for a in actions}
    assert kinds == {"remove", "commitInfo"}
    removed = {a["remove"]["path"] for a in actions if "remove" in a}
    assert removed == p2_files
    assert parquet_files_on_disk(path) == on_disk  # still on disk until vacuum
    assert str(p2_id) not in {r["__partition"] for r in delta_rows(engine, "dropme", columns=["__partition"])}
    assert rows(engine, "SELECT count(*) FROM dropme WHERE day >= '2024-02-01' AND day < '2024-03-01'") == [(0,)]
    assert "p202402" not in [r[1] for r in rows(engine, "SHOW PARTITIONS FROM dropme")]
    assert rows(engine, "SELECT count(*) FROM dropme") == [(82 - 21,)]
    with pytest.raises(AnalysisError):
        run(engine, "ALTER TABLE dropme DROP PARTITION p202402")
    run(engine, "ALTER TABLE dropme DROP PARTITION IF EXISTS p202402")
    assert delta_version(engine, "dropme") == version + 1
    # A partition re-added under the same name starts empty: the old files do not come back.
    run(engine, 'ALTER TABLE dropme ADD PARTITION p202402 VALUES [("2024-02-01"), ("2024-03-01"))')
    assert rows(engine, "SELECT count(*) FROM dropme PARTITION (p202402)") == [(0,)]
    assert partition_key(engine, "dropme", "p202402") != str(p2_id)  # a new partition, a new id
    # Vacuum deletes the dropped files.
    from dorisql.storage.delta import DeltaStore

    DeltaStore(path).vacuum(retention_hours=0)
    assert not (parquet_files_on_disk(path) & p2_files)
    assert rows(engine, "SELECT count(*) FROM dropme") == [(82 - 21,)]


def test_truncate_table_and_partition(engine, orders):
    run(engine, ORDERS.replace("orders", "trunc"))
    run(engine, "INSERT INTO trunc SELECT * FROM orders")
    version = delta_version(engine, "trunc")
    run(engine, "TRUNCATE TABLE trunc PARTITION (p202401, p202403)")
    assert delta_version(engine, "trunc") == version + 1
    left = {r["__partition"] for r in delta_rows(engine, "trunc", columns=["__partition"])}
    assert left == {"p202402", "p202404"}
    assert [r[1] for r in rows(engine, "SHOW PARTITIONS FROM trunc")] == ["p202401", "p202402", "p202403", "p202404"]
    run(engine, "TRUNCATE TABLE trunc")
    assert delta_version(engine, "trunc") == version + 2
    assert delta_rows(engine, "trunc") == []
    assert rows(engine, "SELECT count(*) FROM trunc") == [(0,)]
    # Still loadable afterwards.
    run(engine, "INSERT INTO trunc (id, day) VALUES (1, '2024-04-04')")
    assert rows(engine, "SELECT id, shop, qty FROM trunc") == [(1, "main", 0)]


def test_rename_table(engine, orders):
    run(engine, ORDERS.replace("orders", "ren_a"))
    run(engine, "INSERT INTO ren_a SELECT * FROM orders")
    before = rows(engine, "SELECT * FROM ren_a ORDER BY id, day, shop")
    folder, version = table_path(engine, "ren_a"), delta_version(engine, "ren_a")
    run(engine, "ALTER TABLE ren_a RENAME ren_b")
    assert rows(engine, "SELECT * FROM ren_b ORDER BY id, day, shop") == before
    assert len(delta_rows(engine, "ren_b")) == 82
    # A catalog change only: the folder is keyed by the table id, no file or commit moves.
    assert table_path(engine, "ren_b") == folder and delta_version(engine, "ren_b") == version
    with pytest.raises(CatalogError):
        run(engine, "SELECT * FROM ren_a")
    assert ("ren_a",) not in rows(engine, "SHOW TABLES") and ("ren_b",) in rows(engine, "SHOW TABLES")
    run(engine, "INSERT INTO ren_b (id, day) VALUES (5000, '2024-01-09')")
    assert rows(engine, "SELECT count(*) FROM ren_b") == [(83,)]
    with pytest.raises(CatalogError):
        run(engine, "ALTER TABLE ren_b RENAME orders")


def test_rename_partition(engine, orders):
    run(engine, ORDERS.replace("orders", "ren_p"))
    run(engine, "INSERT INTO ren_p SELECT * FROM orders")
    before = rows(engine, "SELECT * FROM ren_p PARTITION (p202401) ORDER BY id, day, shop")
    version = delta_version(engine, "ren_p")
    jan_id = engine.catalog.load_table("d", "ren_p").partition("p202401").id
    run(engine, "ALTER TABLE ren_p RENAME PARTITION p202401 jan")
    assert delta_version(engine, "ren_p") == version  # files are keyed by partition id: no Delta commit
    assert engine.catalog.load_table("d", "ren_p").partition("jan").id == jan_id
    assert rows(engine, "SELECT * FROM ren_p PARTITION (jan) ORDER BY id, day, shop") == before
    assert {r["__partition"] for r in delta_rows(engine, "ren_p", columns=["__partition"])} == {
        "jan",
        "p202402",
        "p202403",
        "p202404",
    }
    assert [r[1] for r in rows(engine, "SHOW PARTITIONS FROM ren_p")][0] == "jan"
    run(engine, "INSERT INTO ren_p (id, day) VALUES (7000, '2024-01-09')")
    assert ("jan",) == tuple(
        {r["__partition"] for r in delta_rows(engine, "ren_p", columns=["id", "__partition"]) if r["id"] == 7000}
    )
    with pytest.raises(AnalysisError):
        run(engine, "ALTER TABLE ren_p RENAME PARTITION jan p202402")
