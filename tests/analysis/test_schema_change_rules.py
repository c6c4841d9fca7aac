"""ALTER TABLE ... COLUMN rules and Doris's messages (pure: dorisql.analysis.schema_change_rules, no Spark).

Messages as Doris's fe SchemaChangeHandler / Column.checkSchemaChangeAllowed give them
(regression-test/suites/schema_change_p0: test_alter_table_column*, test_*_schema_*_modify*).
"""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.analysis.checks import normalize_create_table
from dorisql.analysis.schema_change_rules import apply_action, doris_allows_type_change, in_place_widening
from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.syntax import parse_one
from dorisql.syntax.generator import to_sql

AGG = """CREATE TABLE a (k1 INT, k2 VARCHAR(10), v1 BIGINT SUM DEFAULT "0", v2 INT REPLACE)
AGGREGATE KEY(k1, k2) PARTITION BY RANGE(k1) () DISTRIBUTED BY HASH(k2) BUCKETS 2"""
UNI = "CREATE TABLE u (k INT, v INT, s VARCHAR(10)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"
DUP = "CREATE TABLE d (k INT, v INT, s VARCHAR(10), f FLOAT, m DECIMAL(10, 2)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"


def table(sql: str) -> ast.CreateTable:
    return normalize_create_table(parse_one(sql))


def alter(definition: ast.CreateTable, clause: str) -> ast.CreateTable:
    stmt = parse_one(f"ALTER TABLE {definition.table.name} {clause}")
    for action in stmt.actions:
        definition = apply_action(definition, action)
    return definition


def names(definition: ast.CreateTable) -> list[str]:
    return [c.name for c in definition.columns]


def refused(definition, clause: str, message: str, error=AnalysisError) -> None:
    with pytest.raises(error) as info:
        alter(definition, clause)
    assert info.value.message == message


@pytest.mark.parametrize(
    "clause",
    [
        "ADD COLUMN c INT KEY DEFAULT '1' COMMENT 'x' AFTER b",
        "ADD COLUMN (c1 INT SUM DEFAULT '0', c2 VARCHAR(10))",
        "DROP COLUMN c",
        "MODIFY COLUMN c BIGINT NULL FIRST",
        "MODIFY COLUMN c COMMENT 'hi'",
        "RENAME COLUMN a b",
        "MODIFY COMMENT 'tc'",
        "MODIFY PARTITION p1 SET ('storage_medium' = 'SSD')",
        "MODIFY PARTITION (p1, p2) SET ('replication_num' = '1')",
        "MODIFY PARTITION (*) SET ('in_memory' = 'false')",
        "ADD COLUMN c INT FIRST, DROP COLUMN d",
    ],
)
def test_alter_clauses_round_trip(clause):
    stmt = parse_one(f"ALTER TABLE t {clause}")
    assert parse_one(to_sql(stmt)) == stmt


def test_show_alter_table_column_parses():
    assert parse_one("SHOW ALTER TABLE COLUMN FROM db") == ast.ShowAlterTableColumn(db="db")
    assert parse_one("show alter table column") == ast.ShowAlterTableColumn()
    full = parse_one(
        "SHOW ALTER TABLE COLUMN IN db WHERE TableName = 't' AND CreateTime >= '2024-01-01' "
        "ORDER BY CreateTime DESC, JobId LIMIT 2, 5"
    )
    assert full == ast.ShowAlterTableColumn(
        db="db",
        where=ast.BoolOp(
            "AND",
            (
                ast.Comparison("TableName", "=", ast.Literal("t")),
                ast.Comparison("CreateTime", ">=", ast.Literal("2024-01-01")),
            ),
        ),
        order_by=(ast.OrderItem("CreateTime", True), ast.OrderItem("JobId")),
        limit=5,
        offset=2,
    )
    assert parse_one(to_sql(full)) == full
    rollup = parse_one("SHOW ALTER TABLE MATERIALIZED VIEW LIMIT 1")
    assert rollup == ast.ShowAlterTableColumn(limit=1, kind="MATERIALIZED VIEW")
    assert parse_one(to_sql(rollup)) == rollup


def test_add_value_column_goes_last_key_column_after_the_keys():
    d = table(DUP)
    assert names(alter(d, "ADD COLUMN c INT DEFAULT '1'")) == ["k", "v", "s", "f", "m", "c"]
    added = alter(d, "ADD COLUMN c INT KEY DEFAULT '1'")
    assert names(added) == ["k", "c", "v", "s", "f", "m"]
    assert added.keys.columns == ("k", "c")
    assert alter(d, "ADD COLUMN c INT KEY FIRST").keys.columns == ("c", "k")
    refused(d, "ADD COLUMN c INT FIRST", "Invalid column order. value should be after key. index[d]")
    assert names(alter(d, "ADD COLUMN c INT AFTER v")) == ["k", "v", "c", "s", "f", "m"]
    assert names(alter(d, "ADD COLUMN (c1 INT, c2 INT)"))[-2:] == ["c1", "c2"]


def test_aggregate_table_add_rules():
    a = table(AGG)
    # without an aggregation type the new column is a key column, placed after the keys
    added = alter(a, "ADD COLUMN k3 INT DEFAULT '0'")
    assert names(added) == ["k1", "k2", "k3", "v1", "v2"] and added.keys.columns == ("k1", "k2", "k3")
    assert alter(a, "ADD COLUMN v3 INT MAX DEFAULT '0'").columns[-1].agg_type == "MAX"
    refused(
        a,
        "ADD COLUMN k3 INT DEFAULT '0' AFTER v2",
        "Invalid column order. value should be after key. index[a]",
    )
    refused(a, "ADD COLUMN k3 INT KEY SUM", "Key column can not set aggregation type: k3")  # test_agg_schema_key_add
    refused(
        a, "ADD COLUMN v3 INT SUM DEFAULT '5'", "The default value of 'v3' with SUM aggregation function must be zero"
    )


def test_unique_and_duplicate_refuse_aggregation_types():
    refused(
        table(UNI), "ADD COLUMN c INT SUM", "Can not assign aggregation method on column in Unique data model table: c"
    )
    refused(
        table(DUP),
        "ADD COLUMN c INT MAX",
        "Can not assign aggregation method on column in Duplicate data model table: c",
    )


def test_add_existing_and_not_null_without_default():
    refused(table(DUP), "ADD COLUMN v INT", "Can not add column which already exists in base table: v")
    refused(table(DUP), "ADD COLUMN c INT NOT NULL", "Can not add not null column without default value: c")
    assert alter(table(DUP), "ADD COLUMN c INT NOT NULL DEFAULT '3'").columns[-1].nullable is False
    refused(table(DUP), "ADD COLUMN c INT AFTER nope", "Column[nope] does not found")


def test_drop_rules():
    refused(table(UNI), "DROP COLUMN k", "Can not drop key column in Unique data model table")
    refused(
        table(AGG),
        "DROP COLUMN k2",
        "Can not drop key column when table has value column with REPLACE aggregation method",
    )
    refused(
        table(AGG.replace("v2 INT REPLACE", "v2 INT MAX")),
        "DROP COLUMN k1",
        "Partition column[k1] cannot be dropped. index[a]",
    )
    refused(table(DUP), "DROP COLUMN k", "Distribution column[k] cannot be dropped. index[d]")
    refused(table(DUP), "DROP COLUMN nope", "Column does not exists: nope")
    assert names(alter(table(DUP), "DROP COLUMN s")) == ["k", "v", "f", "m"]


def test_modify_widenings_and_refusals():
    d = table(DUP)
    assert alter(d, "MODIFY COLUMN v BIGINT").columns[1].type == ast.DataType("BIGINT")
    assert alter(d, "MODIFY COLUMN s VARCHAR(20)").columns[2].type == ast.DataType("VARCHAR", (20,))
    assert alter(d, "MODIFY COLUMN f DOUBLE").columns[3].type == ast.DataType("DOUBLE")
    assert alter(d, "MODIFY COLUMN m DECIMAL(12, 2)").columns[4].type == ast.DataType("DECIMAL", (12, 2))
    refused(d, "MODIFY COLUMN v TINYINT", "Can not change INT to TINYINT")
    refused(d, "MODIFY COLUMN f CHAR(15)", "Can not change FLOAT to CHAR")
    refused(d, "MODIFY COLUMN s VARCHAR(5)", "Cannot shorten string length")
    refused(d, "MODIFY COLUMN v BIGINT NOT NULL", "Can not change from nullable to non-nullable")
    refused(d, "MODIFY COLUMN v BIGINT DEFAULT '1'", "Can not change default value")
    refused(d, "MODIFY COLUMN k BIGINT KEY", "Can not modify distribution column[k]. index[d]")
    refused(d, "MODIFY COLUMN nope INT", "Column[nope] does not exists")
    # Doris allows INT -> VARCHAR (a heavy schema change that rewrites the data); dorisql does not yet
    with pytest.raises(NotSupportedError):
        alter(d, "MODIFY COLUMN v VARCHAR(20)")


def test_modify_on_aggregate_table():
    a = table(AGG)
    # no aggregation method on an AGGREGATE table: a key column (Doris's ColumnDef), so a value
    # column without one changes its aggregation type
    refused(a, "MODIFY COLUMN v1 BIGINT DEFAULT '0'", "Can not change aggregation type")
    refused(a, "MODIFY COLUMN v1 BIGINT MAX DEFAULT '0'", "Can not change aggregation type")
    refused(a, "MODIFY COLUMN k1 INT KEY SUM", "Key column can not set aggregation type: k1")
    refused(a, "MODIFY COLUMN k1 BIGINT", "Can not modify partition column[k1]. index[a]")
    refused(a, "ADD COLUMN k3 INT KEY SUM DEFAULT '0'", "Key column can not set aggregation type: k3")
    assert alter(a, "MODIFY COLUMN v2 BIGINT REPLACE").columns[3].type == ast.DataType("BIGINT")


def test_comments_and_rename():
    d = table(DUP)
    assert alter(d, "MODIFY COLUMN s COMMENT 'text'").columns[2].comment == "text"
    assert alter(d, "MODIFY COMMENT 'the table'").comment == "the table"
    renamed = alter(d, "RENAME COLUMN k kk")
    assert names(renamed)[0] == "kk" and renamed.keys.columns == ("kk",) and renamed.distribution.columns == ("kk",)
    refused(d, "RENAME COLUMN v s", "Column name[s] is already used")


def test_several_actions_apply_in_order():
    d = alter(table(DUP), "ADD COLUMN c INT, DROP COLUMN s, MODIFY COLUMN v BIGINT")
    assert names(d) == ["k", "v", "f", "m", "c"]


@pytest.mark.parametrize(
    "old,new,allowed,in_place",
    [
        ("INT", "BIGINT", True, True),
        ("TINYINT", "INT", True, True),
        ("INT", "VARCHAR", True, False),
        ("BIGINT", "INT", False, False),
        ("DATE", "DATETIME", True, False),
        ("STRING", "VARCHAR", False, True),
    ],
)
def test_type_matrix(old, new, allowed, in_place):
    assert doris_allows_type_change(ast.DataType(old), ast.DataType(new)) is allowed
    if allowed:
        assert in_place_widening(ast.DataType(old), ast.DataType(new)) is in_place


# Doris's regression-test/suites/schema_change_p0/test_alter_table_modify_column.groovy (its dup table)
DUP3 = """CREATE TABLE d3 (citycode SMALLINT DEFAULT '10', siteid INT DEFAULT '10', username VARCHAR(32) DEFAULT 'test',
pv BIGINT DEFAULT '0') DUPLICATE KEY(citycode, siteid, username) DISTRIBUTED BY HASH(siteid) BUCKETS 1"""


def test_modify_column_key_flag_comes_from_the_clause():
    d = table(DUP3)
    # a key column written without KEY becomes a value: first, it stands before the keys
    refused(
        d,
        "MODIFY COLUMN citycode BIGINT DEFAULT '10' FIRST",
        "Invalid column order. value should be after key. index[d3]",
    )
    # in an order Doris accepts, the key flag itself cannot change
    refused(d, "MODIFY COLUMN username VARCHAR(32) DEFAULT 'test'", "Can not change aggregation type")
    refused(d, "MODIFY COLUMN pv BIGINT KEY DEFAULT '0'", "Can not change aggregation type")
    moved = alter(d, "MODIFY COLUMN username VARCHAR(32) KEY DEFAULT 'test' FIRST")
    assert names(moved) == ["username", "citycode", "siteid", "pv"]
    assert moved.keys.columns == ("username", "citycode", "siteid")


def test_modify_column_positions():
    d = table(DUP3)
    refused(d, "MODIFY COLUMN siteid BIGINT AFTER not_exist_column", "Column[not_exist_column] does not exists")
    refused(d, "MODIFY COLUMN pv BIGINT DEFAULT '0' AFTER pv", "Column[pv] modify position is invalid")
    refused(
        d,
        "MODIFY COLUMN citycode SMALLINT KEY DEFAULT '10' AFTER pv",
        "Invalid column order. value should be after key. index[d3]",
    )
    # the distribution column may move, not change
    refused(
        d, "MODIFY COLUMN siteid BIGINT KEY DEFAULT '10' FIRST", "Can not modify distribution column[siteid]. index[d3]"
    )
    moved = alter(d, "MODIFY COLUMN siteid INT KEY DEFAULT '10' AFTER username")
    assert names(moved) == ["citycode", "username", "siteid", "pv"]


def test_order_by_reorders_every_column_keys_first():
    d = table(DUP3)
    reordered = alter(d, "ORDER BY (siteid, citycode, username, pv)")
    assert names(reordered) == ["siteid", "citycode", "username", "pv"]
    assert reordered.keys.columns == ("siteid", "citycode", "username")
    assert parse_one(to_sql(parse_one("ALTER TABLE t ORDER BY (a, b)"))) == parse_one("ALTER TABLE t ORDER BY (a, b)")
    refused(
        d, "ORDER BY (siteid, pv, username, citycode)", "Invalid column order. value should be after key. index[d3]"
    )
    refused(d, "ORDER BY (siteid, citycode, username)", "Reorder stmt should contains all columns")
    refused(d, "ORDER BY (siteid, citycode, siteid, pv)", "Reduplicative column[siteid]")
    refused(d, "ORDER BY (siteid, citycode, nope, pv)", "Column[nope] not exists")
