"""Statement by statement: what the parser produces, and that to_sql gives it back."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.ast import MAXVALUE, Literal, TableName
from dorisql.errors import SqlSyntaxError
from dorisql.syntax import parse_one
from dorisql.syntax.generator import to_sql, type_sql


def p(sql):
    stmt = parse_one(sql, check=False)
    again = parse_one(to_sql(stmt), check=False)
    assert again == stmt, to_sql(stmt)
    return stmt


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("CREATE DATABASE IF NOT EXISTS db1 PROPERTIES ('a' = 'b')", ast.CreateDatabase("db1", True, (("a", "b"),))),
        ("create schema d", ast.CreateDatabase("d")),
        ("DROP DATABASE IF EXISTS db1 FORCE", ast.DropDatabase("db1", True, True)),
        ("USE `my-db`", ast.Use("my-db")),
        ("DROP TABLE IF EXISTS db.t FORCE", ast.DropTable(TableName("t", "db"), True, True)),
        ("TRUNCATE TABLE t PARTITION (p1, p2)", ast.TruncateTable(TableName("t"), ("p1", "p2"))),
        ("TRUNCATE TABLE t PARTITION p1", ast.TruncateTable(TableName("t"), ("p1",))),
        ("TRUNCATE TABLE t PARTITION (p1) FORCE", ast.TruncateTable(TableName("t"), ("p1",), force=True)),
        ("TRUNCATE TABLE t FORCE", ast.TruncateTable(TableName("t"), force=True)),
        ("SHOW DATABASES LIKE 'd%'", ast.ShowDatabases("d%")),
        ("SHOW TABLES FROM db LIKE 't%'", ast.ShowTables("db", "t%")),
        ("SHOW TABLES IN db", ast.ShowTables("db")),
        ("SHOW CREATE TABLE db.t", ast.ShowCreateTable(TableName("t", "db"))),
        ("SHOW DYNAMIC PARTITION TABLES FROM db", ast.ShowDynamicPartitionTables("db")),
        ("SHOW PROC '/colocation_group'", ast.ShowProc("/colocation_group")),
        ("SHOW DATA", ast.ShowData()),
        ("SHOW DATA FROM db.t", ast.ShowData(TableName("t", "db"))),
        ("DESC t", ast.Describe(TableName("t"))),
        ("DESCRIBE db.t ALL", ast.Describe(TableName("t", "db"), all=True)),
        (
            'ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "true")',
            ast.AdminSetFrontendConfig((("dynamic_partition_enable", "true"),)),
        ),
        ("SET dorisql_now = '2020-05-29 10:00:00'", ast.SetVariable("dorisql_now", Literal("2020-05-29 10:00:00"))),
        ("SET GLOBAL x = 10", ast.SetVariable("x", Literal("10", "number"), "GLOBAL")),
        ("SET @@session.time_zone = '+08:00'", ast.SetVariable("time_zone", Literal("+08:00"), "SESSION")),
        ("SET @@x = -1", ast.SetVariable("x", Literal("-1", "number"))),
        ("SET LOCAL y = ON", ast.SetVariable("y", Literal("ON", "expr"), "SESSION")),
        ("SET z = true", ast.SetVariable("z", Literal("TRUE", "bool"))),
        ("SET z = NULL", ast.SetVariable("z", Literal(None, "null"))),
        ("HELP CREATE TABLE", ast.Help("CREATE TABLE")),
        ("help 'SHOW PARTITIONS'", ast.Help("SHOW PARTITIONS")),
    ],
)
def test_simple_statements(sql, expected):
    assert p(sql) == expected


def test_show_partitions():
    s = p(
        "SHOW PARTITIONS FROM db.t WHERE PartitionName = 'p1' AND (State != 'NORMAL' OR Buckets >= 3) "
        "AND ReplicationNum <> 1 ORDER BY PartitionName DESC, Buckets LIMIT 10 OFFSET 5"
    )
    assert s.table == TableName("t", "db")
    assert s.where == ast.BoolOp(
        "AND",
        (
            ast.Comparison("PartitionName", "=", Literal("p1")),
            ast.BoolOp(
                "OR",
                (
                    ast.Comparison("State", "!=", Literal("NORMAL")),
                    ast.Comparison("Buckets", ">=", Literal("3", "number")),
                ),
            ),
            ast.Comparison("ReplicationNum", "<>", Literal("1", "number")),
        ),
    )
    assert s.order_by == (ast.OrderItem("PartitionName", True), ast.OrderItem("Buckets"))
    assert (s.limit, s.offset) == (10, 5)
    assert p("SHOW PARTITIONS FROM t LIMIT 2, 10") == ast.ShowPartitions(TableName("t"), limit=10, offset=2)
    assert p("SHOW TEMPORARY PARTITIONS FROM t WHERE PartitionName like 'p%'") == ast.ShowPartitions(
        TableName("t"), where=ast.Comparison("PartitionName", "LIKE", Literal("p%")), temporary=True
    )


def test_alter_table_actions():
    s = p(
        "ALTER TABLE db.t ADD PARTITION IF NOT EXISTS p3 VALUES LESS THAN ('2020-01-01') "
        "DISTRIBUTED BY HASH(k) BUCKETS 4, DROP PARTITION IF EXISTS p1 FORCE, SET ('a'='b'), "
        "RENAME PARTITION p2 p22"
    )
    assert s.actions == (
        ast.AddPartition(
            ast.RangePartition("p3", ("2020-01-01",), if_not_exists=True), ast.DistributedBy("HASH", ("k",), 4)
        ),
        ast.DropPartition("p1", if_exists=True, force=True),
        ast.SetProperties((("a", "b"),)),
        ast.RenamePartition("p2", "p22"),
    )
    assert p("ALTER TABLE t RENAME t2").actions == (ast.RenameTable("t2"),)
    s = p("ALTER TABLE t ADD PARTITION p VALUES IN ((1, 'a'), (NULL, MAXVALUE)) ('version_info' = '1')")
    assert s.actions[0].partition == ast.ListPartition(
        "p", (("1", "a"), (None, MAXVALUE)), properties=(("version_info", "1"),)
    )
    s = p("ALTER TABLE t ADD PARTITION p VALUES [('1'), ('10')) DISTRIBUTED BY RANDOM BUCKETS AUTO")
    assert s.actions[0] == ast.AddPartition(
        ast.RangePartition("p", ("10",), ("1",)), ast.DistributedBy("RANDOM", auto=True)
    )


def test_create_table_everything():
    s = p("""
        CREATE TABLE IF NOT EXISTS t (
          k1 INT NOT NULL AUTO_INCREMENT(10) COMMENT 'a',
          k2 DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
          k3 DOUBLE DEFAULT PI,
          k4 BITMAP BITMAP_UNION NOT NULL DEFAULT BITMAP_EMPTY,
          k5 STRUCT<a:INT COMMENT 'x', b:MAP<STRING, ARRAY<DECIMAL(27, 9)>>>,
          k6 JSONB, k7 INT DEFAULT -1, k8 DECIMALV3(10,2) DEFAULT "1.5", k9 IPV6 NULL, k10 VARIANT,
          k11 DATE DEFAULT CURRENT_DATE, k12 ARRAY<ARRAY<INT>>, k13 text, k14 integer KEY, k15 LARGEINT(40),
          k16 QUANTILE_STATE QUANTILE_UNION NOT NULL, k17 HLL HLL_UNION, k18 STRING REPLACE_IF_NOT_NULL NULL,
          k19 DATETIME DEFAULT CURRENT_TIMESTAMP, k20 BOOLEAN DEFAULT "true", k21 DATEV2, k22 CHAR,
          INDEX idx1 (k1, k2) USING INVERTED PROPERTIES ("parser" = "english") COMMENT 'idx'
        ) ENGINE=olap UNIQUE KEY(k1) COMMENT 'tbl'
        PARTITION BY LIST(k1, k2) (PARTITION p1 VALUES IN ((1, "a"), (NULL, NULL)), PARTITION p3)
        DISTRIBUTED BY HASH(k1) BUCKETS AUTO
        ROLLUP (r1 (k1, k2) DUPLICATE KEY(k1) PROPERTIES ("x" = "y"), r2(k1))
        PROPERTIES ("estimate_partition_size" = "100G", "escaped\\"" = "a\\\\b\\nc")
    """)
    c = {col.name: col for col in s.columns}
    assert c["k1"] == ast.ColumnDef(
        "k1", ast.DataType("INT"), nullable=False, auto_increment=True, auto_increment_start=10, comment="a"
    )
    assert c["k2"].default == Literal("CURRENT_TIMESTAMP(3)", "function")
    assert c["k2"].on_update == "CURRENT_TIMESTAMP(3)"
    assert c["k3"].default == Literal("PI", "function")
    assert c["k4"].agg_type == "BITMAP_UNION" and c["k4"].default == Literal("BITMAP_EMPTY", "function")
    assert c["k5"].type == ast.DataType(
        "STRUCT",
        fields=(
            ast.StructField("a", ast.DataType("INT"), "x"),
            ast.StructField(
                "b",
                ast.DataType(
                    "MAP",
                    args=(ast.DataType("STRING"), ast.DataType("ARRAY", args=(ast.DataType("DECIMAL", (27, 9)),))),
                ),
            ),
        ),
    )
    assert c["k6"].type == ast.DataType("JSON")
    assert c["k7"].default == Literal("-1", "number")
    assert c["k8"].type == ast.DataType("DECIMALV3", (10, 2))
    assert c["k12"].type == ast.DataType("ARRAY", args=(ast.DataType("ARRAY", args=(ast.DataType("INT"),)),))
    assert c["k13"].type == ast.DataType("STRING") and c["k14"].type == ast.DataType("INT")
    assert c["k15"].type == ast.DataType("LARGEINT", (40,))
    assert c["k18"].agg_type == "REPLACE_IF_NOT_NULL" and c["k18"].nullable is True
    assert s.indexes == (ast.IndexDef("idx1", ("k1", "k2"), "INVERTED", (("parser", "english"),), "idx"),)
    assert s.keys == ast.KeysDesc("UNIQUE", ("k1",)) and s.comment == "tbl"
    assert s.partition.items == (ast.ListPartition("p1", (("1", "a"), (None, None))), ast.ListPartition("p3", ()))
    assert s.distribution == ast.DistributedBy("HASH", ("k1",), None, auto=True)
    assert s.rollups == (ast.RollupDef("r1", ("k1", "k2"), ("k1",), (("x", "y"),)), ast.RollupDef("r2", ("k1",)))
    assert s.properties == (("estimate_partition_size", "100G"), ('escaped"', "a\\b\nc"))


@pytest.mark.parametrize("elements", ["k1 INT,", "k1 INT,\n  k2 INT,\n", "k1 INT, INDEX i (k1) USING INVERTED,"])
def test_a_trailing_comma_after_the_last_column_or_index_is_accepted(elements):
    """As in Doris: DorisParser.g4 `LEFT_PAREN columnDefs (COMMA indexDefs)? COMMA? RIGHT_PAREN`
    (apache/doris#29167 kept the legacy parser's behaviour). Two commas are still an error."""
    trailing = p(f"CREATE TABLE t ({elements}) DISTRIBUTED BY HASH(k1) BUCKETS 1")
    assert trailing == p(f"CREATE TABLE t ({elements.rstrip().rstrip(',')}) DISTRIBUTED BY HASH(k1) BUCKETS 1")
    with pytest.raises(SqlSyntaxError, match="unexpected ','"):
        parse_one(f"CREATE TABLE t ({elements},) DISTRIBUTED BY HASH(k1) BUCKETS 1")
    with pytest.raises(SqlSyntaxError, match="column 17: unexpected ','"):
        parse_one("CREATE TABLE t (,) DISTRIBUTED BY HASH(k1) BUCKETS 1")


def test_range_partition_forms():
    s = p(
        "CREATE TABLE t (k INT, d DATE) PARTITION BY RANGE(k, d) ("
        "PARTITION p0 VALUES LESS THAN MAXVALUE, PARTITION p1 VALUES LESS THAN (-5, MAXVALUE), "
        "PARTITION p2 VALUES [(1, '2020-01-01'), (2, '2020-01-01')) ('replication_num' = '1'), "
        'PARTITION IF NOT EXISTS p3 VALUES LESS THAN ("7"), '
        "FROM (1) TO (100) INTERVAL 10, FROM ('2020-01-01') TO ('2020-02-01') INTERVAL 1 week) "
        "DISTRIBUTED BY RANDOM"
    )
    assert s.partition.items == (
        ast.RangePartition("p0", (MAXVALUE,)),
        ast.RangePartition("p1", ("-5", MAXVALUE)),
        ast.RangePartition("p2", ("2", "2020-01-01"), ("1", "2020-01-01"), properties=(("replication_num", "1"),)),
        ast.RangePartition("p3", ("7",), if_not_exists=True),
        ast.BatchRangePartition(("1",), ("100",), 10),
        ast.BatchRangePartition(("2020-01-01",), ("2020-02-01",), 1, "WEEK"),
    )
    assert s.distribution == ast.DistributedBy("RANDOM")


def test_names_and_quoting():
    s = p(
        "CREATE TABLE `db`.`my ``odd`` table` (`key` INT, `2021_sales` INT, 2021_x INT, 中文 INT, "
        "`CAST(``o`` AS BIGINT)` INT)"
    )
    assert s.table == TableName("my `odd` table", "db")
    assert [c.name for c in s.columns] == ["key", "2021_sales", "2021_x", "中文", "CAST(`o` AS BIGINT)"]
    s = p(
        "CREATE TABLE t (date DATE, comment VARCHAR(10), status INT, value INT, type INT) "
        "DUPLICATE KEY(date) PARTITION BY RANGE(date) () DISTRIBUTED BY HASH(date)"
    )
    assert s.keys.columns == ("date",)


def test_insert():
    s = p("INSERT INTO t VALUES (1, 'a', NULL, true), (-1, now(), cast(1 as int), [1,2], {'a':1}, 1.5e3)")
    assert s.rows == (
        (Literal("1", "number"), Literal("a"), Literal(None, "null"), Literal("TRUE", "bool")),
        (
            Literal("-1", "expr"),
            Literal("now()", "expr"),
            Literal("cast(1 as int)", "expr"),
            Literal("[1,2]", "expr"),
            Literal("{'a':1}", "expr"),
            Literal("1.5e3", "number"),
        ),
    )
    s = p("INSERT INTO db.t PARTITION (p1, p2) WITH LABEL l1 (a, b) VALUES (1, 'x')")
    assert (s.table, s.partitions, s.label, s.columns) == (TableName("t", "db"), ("p1", "p2"), "l1", ("a", "b"))
    s = p("INSERT OVERWRITE TABLE t SELECT * FROM s PARTITION (p1) WHERE x = 1")
    assert s.overwrite and s.rows is None
    assert s.query == ast.Query("SELECT * FROM s PARTITION (p1) WHERE x = 1", (TableName("s"),))
    s = p("INSERT INTO t (a, b) WITH c AS (SELECT 1 a, 2 b) SELECT * FROM c JOIN db2.u ON 1=1")
    assert s.columns == ("a", "b") and s.query.tables == (TableName("u", "db2"),)
    s = p("INSERT INTO t WITH LABEL lbl (SELECT * FROM s)")
    assert s.label == "lbl" and s.query.sql == "(SELECT * FROM s)"


def test_queries_and_explain():
    s = p("SELECT * FROM t1 PARTITION (p1, p2) JOIN db.t2 PARTITIONS (p3) ON t1.a = t2.a")
    assert isinstance(s, ast.Query) and s.tables == (TableName("t1"), TableName("t2", "db"))
    s = p("WITH x AS (SELECT * FROM base) SELECT sum(v) OVER (PARTITION BY k) FROM x, y TEMPORARY PARTITION tp")
    assert s.tables == (TableName("base"), TableName("y"))
    s = p("select 'PARTITION (x); FROM nowhere' from t -- PARTITION p")
    assert s.tables == (TableName("t"),)
    e = p("EXPLAIN VERBOSE SELECT * FROM t")
    assert e == ast.Explain(ast.Query("SELECT * FROM t", (TableName("t"),)), verbose=True)
    assert p("DESC SELECT 1") == ast.Explain(ast.Query("SELECT 1"))
    assert p("(SELECT a FROM t) UNION ALL (SELECT a FROM u)").tables == (TableName("t"), TableName("u"))


def test_statement_position_and_text():
    s = parse_one("\n\n  -- hi\n  SHOW DATA;", check=False)
    assert s.pos == ast.Pos(4, 3) and s.text == "SHOW DATA"


@pytest.mark.parametrize(
    "t, sql",
    [
        (ast.DataType("DECIMAL", (27, 9)), "DECIMAL(27, 9)"),
        (ast.DataType("VARCHAR", (20,)), "VARCHAR(20)"),
        (ast.DataType("ARRAY", args=(ast.DataType("INT"),)), "ARRAY<INT>"),
        (ast.DataType("MAP", args=(ast.DataType("STRING"), ast.DataType("INT"))), "MAP<STRING, INT>"),
        (
            ast.DataType("STRUCT", fields=(ast.StructField("a", ast.DataType("INT"), "c"),)),
            'STRUCT<`a`:INT COMMENT "c">',
        ),
    ],
)
def test_type_sql(t, sql):
    assert type_sql(t) == sql
    assert to_sql(t) == sql


def test_create_table_is_pretty():
    s = parse_one(
        "create table db.t (k date not null comment 'x', v int sum default '0') aggregate key(k) "
        "partition by range(k) (partition p1 values less than ('2020-01-01'), "
        "partition p2 values [('2020-01-01'), ('2020-02-01'))) distributed by hash(k) buckets 16 "
        "properties ('replication_num' = '1', 'dynamic_partition.enable' = 'false')",
        check=False,
    )
    assert (
        to_sql(s)
        == """CREATE TABLE `db`.`t` (
  `k` date NOT NULL COMMENT "x",
  `v` int SUM DEFAULT "0"
)
AGGREGATE KEY(`k`)
PARTITION BY RANGE(`k`)
(PARTITION p1 VALUES LESS THAN ("2020-01-01"),
PARTITION p2 VALUES [("2020-01-01"), ("2020-02-01")))
DISTRIBUTED BY HASH(`k`) BUCKETS 16
PROPERTIES (
"replication_num" = "1",
"dynamic_partition.enable" = "false"
)"""
    )


def test_generator_quotes_what_needs_quoting():
    s = ast.CreateTable(
        TableName("t"),
        (ast.ColumnDef("a", ast.DataType("INT"), comment='say "hi"\\ \n'),),
        partition=ast.PartitionBy("LIST", ("a",), (ast.ListPartition("range", (("x'y",),)),)),
        properties=(("k", "tab\there"),),
    )
    assert parse_one(to_sql(s), check=False) == s
    assert "PARTITION `range`" in to_sql(s)
    assert parse_one(to_sql(ast.SetVariable("select", Literal("1", "number"))), check=False).name == "select"


def test_sync():
    """Doris's SYNC (every load in its regression suites is followed by it) is a statement."""
    from dorisql.syntax import parse

    assert parse("SYNC; sync ;") == [ast.Sync(), ast.Sync()]
    assert to_sql(ast.Sync()) == "SYNC" and ast.Sync.reads_only
    with pytest.raises(SqlSyntaxError):
        parse("SYNC t")
