"""SHOW CREATE TABLE as current Doris prints it (no Spark): the normalised PROPERTIES list in
Doris's order and defaults (Env.addOlapTablePropertyInfo; expected output of Doris's
regression-test/suites/show_p0/test_show_create_table_and_views), no default ``COMMENT 'OLAP'``
(apache/doris#35855), a table comment in single quotes -- and the text still re-creates the same
table."""

from __future__ import annotations

import pytest

from dorisql.statements.show.objects import shown_properties
from dorisql.syntax import parse_one


@pytest.fixture
def engine(tmp_path, make_engine):
    e = make_engine(tmp_path / "wh")
    e.execute_sql("CREATE DATABASE d; USE d; SET dorisql_now = '2024-05-10 10:00:00'")
    yield e
    e.close()


def show_create(engine, table: str) -> str:
    ((name, text),) = engine.execute_sql(f"SHOW CREATE TABLE {table}")[-1].rows
    assert name == table
    return text


def test_plain_table_prints_doris_properties(engine):
    engine.execute_sql(
        "CREATE TABLE t (k INT NOT NULL, v VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"
    )
    assert show_create(engine, "t") == (
        "CREATE TABLE `t` (\n"
        "  `k` int NOT NULL,\n"
        "  `v` varchar(10) NULL\n"
        ") ENGINE=OLAP\n"
        "DUPLICATE KEY(`k`)\n"
        "DISTRIBUTED BY HASH(`k`) BUCKETS 2\n"
        "PROPERTIES (\n"
        '"replication_allocation" = "tag.location.default: 1",\n'
        '"min_load_replica_num" = "-1",\n'
        '"is_being_synced" = "false",\n'
        '"storage_medium" = "hdd",\n'
        '"storage_format" = "V2",\n'
        '"inverted_index_storage_format" = "V2",\n'
        '"light_schema_change" = "true",\n'
        '"disable_auto_compaction" = "false",\n'
        '"enable_single_replica_compaction" = "false",\n'
        '"group_commit_interval_ms" = "10000",\n'
        '"group_commit_data_bytes" = "134217728"\n'
        ");"
    )


def test_comment_unique_and_replicas(engine):
    engine.execute_sql(
        'CREATE TABLE u (k INT, v INT) UNIQUE KEY(k) COMMENT "it\'s mine" DISTRIBUTED BY HASH(k) BUCKETS 1 '
        'PROPERTIES ("replication_num" = "3", "bloom_filter_columns" = "v,k", "compression" = "zstd")'
    )
    text = show_create(engine, "u")
    assert "\nCOMMENT 'it\\'s mine'\n" in text
    props = parse_one(text.rstrip(";")).properties
    assert [k for k, _ in props] == [
        "replication_allocation",
        "min_load_replica_num",
        "bloom_filter_columns",
        "is_being_synced",
        "storage_medium",
        "storage_format",
        "inverted_index_storage_format",
        "compression",
        "enable_unique_key_merge_on_write",
        "light_schema_change",
        "disable_auto_compaction",
        "enable_single_replica_compaction",
        "group_commit_interval_ms",
        "group_commit_data_bytes",
        "enable_mow_light_delete",
    ]
    assert dict(props)["replication_allocation"] == "tag.location.default: 3"
    assert dict(props)["bloom_filter_columns"] == "v, k" and dict(props)["compression"] == "ZSTD"
    # re-created from the text: same text, same replicas per partition
    engine.execute_sql(text.replace("CREATE TABLE `u`", "CREATE TABLE `u2`", 1))
    assert show_create(engine, "u2") == text.replace("`u`", "`u2`", 1)
    replicas = [r[9] for r in engine.execute_sql("SHOW PARTITIONS FROM u2")[-1].rows]
    assert replicas == [3]


def test_column_types_print_lower_case_as_current_doris(engine):
    """Type names and parameters as current Doris prints them (Column.toSql with
    Type.hideVersionForVersionColumn, fe-type): lower case, decimal(p,s) without a space, STRING
    as text, DATETIME(0) as datetime, nested types without spaces; keywords stay upper case. The
    text re-creates a table that prints the same."""
    engine.execute_sql(
        "CREATE TABLE ty (k1 LARGEINT NOT NULL, k2 VARCHAR(20), i INTEGER, c CHAR(3), b BOOLEAN, "
        "d DECIMALV3(10, 2), dt DATETIME, dt3 DATETIMEV2(3), dv DATEV2, s STRING REPLACE, tx TEXT REPLACE, "
        "j JSONB REPLACE, db DOUBLE REPLACE, a ARRAY<INT> REPLACE, m MAP<STRING, DECIMAL(5,1)> REPLACE, "
        "st STRUCT<a:INT, `b c`:VARCHAR(3)> REPLACE, v_sum BIGINT SUM DEFAULT '0') "
        "AGGREGATE KEY(k1, k2, i, c, b, d, dt, dt3, dv) "
        "DISTRIBUTED BY HASH(k1) BUCKETS 1"
    )
    text = show_create(engine, "ty")
    assert text.splitlines()[1:19] == [
        "  `k1` largeint NOT NULL,",
        "  `k2` varchar(20) NULL,",
        "  `i` int NULL,",
        "  `c` char(3) NULL,",
        "  `b` boolean NULL,",
        "  `d` decimal(10,2) NULL,",
        "  `dt` datetime NULL,",
        "  `dt3` datetime(3) NULL,",
        "  `dv` date NULL,",
        "  `s` text REPLACE NULL,",
        "  `tx` text REPLACE NULL,",
        "  `j` json REPLACE NULL,",
        "  `db` double REPLACE NULL,",
        "  `a` array<int> REPLACE NULL,",
        "  `m` map<text,decimal(5,1)> REPLACE NULL,",
        "  `st` struct<a:int,`b c`:varchar(3)> REPLACE NULL,",
        '  `v_sum` bigint SUM NULL DEFAULT "0"',
        ") ENGINE=OLAP",
    ]
    engine.execute_sql(text.replace("CREATE TABLE `ty`", "CREATE TABLE `ty2`", 1))
    assert show_create(engine, "ty2") == text.replace("CREATE TABLE `ty`", "CREATE TABLE `ty2`", 1)


def test_no_comment_means_no_comment_line(engine):
    engine.execute_sql("CREATE TABLE n (k INT) DUPLICATE KEY(k) DISTRIBUTED BY RANDOM BUCKETS 1")
    assert "COMMENT" not in show_create(engine, "n")


def test_dynamic_partition_properties_round_trip(engine):
    engine.execute_sql(
        "CREATE TABLE dp (d DATE NOT NULL, k INT) DUPLICATE KEY(d) PARTITION BY RANGE(d) () "
        "DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("
        '"dynamic_partition.time_unit" = "DAY", "dynamic_partition.start" = "-3", '
        '"dynamic_partition.end" = "2", "dynamic_partition.prefix" = "p", '
        '"dynamic_partition.time_zone" = "Asia/Shanghai")'
    )
    text = show_create(engine, "dp")
    body = text[text.index("PROPERTIES (") :]
    assert body.splitlines()[1:17] == [
        '"replication_allocation" = "tag.location.default: 1",',
        '"min_load_replica_num" = "-1",',
        '"is_being_synced" = "false",',
        '"dynamic_partition.enable" = "true",',
        '"dynamic_partition.time_unit" = "DAY",',
        '"dynamic_partition.time_zone" = "Asia/Shanghai",',
        '"dynamic_partition.start" = "-3",',
        '"dynamic_partition.end" = "2",',
        '"dynamic_partition.prefix" = "p",',
        '"dynamic_partition.replication_allocation" = "tag.location.default: 1",',
        '"dynamic_partition.buckets" = "4",',
        '"dynamic_partition.create_history_partition" = "false",',
        '"dynamic_partition.history_partition_num" = "-1",',
        '"dynamic_partition.hot_partition_num" = "0",',
        '"dynamic_partition.reserved_history_periods" = "NULL",',
        '"dynamic_partition.storage_policy" = "",',
    ]
    engine.execute_sql(text.replace("CREATE TABLE `dp`", "CREATE TABLE `dp2`", 1))
    assert show_create(engine, "dp2") == text.replace("`dp`", "`dp2`", 1)

    def partitions(table):
        return [(r[1], r[6], r[8]) for r in engine.execute_sql(f"SHOW PARTITIONS FROM {table}")[-1].rows]

    assert partitions("dp2") == partitions("dp") and len(partitions("dp")) == 3


def test_shown_properties_are_a_fixed_point():
    """Printing what was printed changes nothing (the text round-trips)."""
    stmt = parse_one(
        "CREATE TABLE t (d DATETIME NOT NULL, k INT) DUPLICATE KEY(d) PARTITION BY RANGE(d) () "
        "DISTRIBUTED BY HASH(k) BUCKETS AUTO PROPERTIES ("
        '"dynamic_partition.time_unit" = "WEEK", "dynamic_partition.end" = "3", '
        '"dynamic_partition.prefix" = "p", "compaction_policy" = "time_series")'
    )
    once = shown_properties(stmt, system_zone="UTC")
    import dataclasses

    assert shown_properties(dataclasses.replace(stmt, properties=once), system_zone="Asia/Tokyo") == once
    shown = dict(once)
    assert shown["dynamic_partition.start"] == "-2147483648" and shown["dynamic_partition.time_zone"] == "UTC"
    assert shown["dynamic_partition.start_day_of_week"] == "1" and "dynamic_partition.buckets" not in shown
    assert shown["time_series_compaction_goal_size_mbytes"] == "1024"
