-- Apache Doris regression suite "test_alter_table_modify_column", translated for dorisql by hand.
-- Source:   regression-test/suites/schema_change_p0/test_alter_table_modify_column.groovy
-- Expected: regression-test/data/schema_change_p0/test_alter_table_modify_column.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- The suite's MODIFY COLUMN rules are Doris 3.0's (the KEY of the clause decides whether the
-- column is a key). Left out: the rollup of the duplicate table (ADD ROLLUP and its wait; dorisql
-- has no rollups, docs/compatibility.md) and the one check that needs it (MODIFY COLUMN ... FROM
-- the rollup); the waits for the schema change jobs (dorisql's finish with the statement).

CREATE DATABASE IF NOT EXISTS regression_test_schema_change_p0;
USE regression_test_schema_change_p0;

DROP TABLE IF EXISTS test_alter_table_modify_column_unique FORCE;
CREATE TABLE `test_alter_table_modify_column_unique`
(
    `siteid` INT DEFAULT '10',
    `citycode` SMALLINT,
    `username` VARCHAR(32) DEFAULT 'test',
    `pv` BIGINT DEFAULT '0'
)
UNIQUE KEY(`siteid`, `citycode`, `username`)
DISTRIBUTED BY HASH(siteid) BUCKETS 1
PROPERTIES (
    "replication_num" = "1"
);

INSERT INTO test_alter_table_modify_column_unique VALUES
        (1, 1, "xxx", 1),
        (2, 2, "xxx", 2),
        (3, 3, "xxx", 3);

-- !order
select * from test_alter_table_modify_column_unique order by siteid;

-- exception Can not assign aggregation method on column in Unique data model table
alter table test_alter_table_modify_column_unique modify COLUMN siteid INT SUM DEFAULT '0';

DROP TABLE IF EXISTS test_alter_table_modify_column_unique FORCE;

DROP TABLE IF EXISTS test_alter_table_modify_column_agg FORCE;
CREATE TABLE `test_alter_table_modify_column_agg`
(
    `siteid` INT DEFAULT '10',
    `citycode` SMALLINT,
    `username` VARCHAR(32) DEFAULT 'test',
    `pv` BIGINT SUM DEFAULT '0'
)
AGGREGATE KEY(`siteid`, `citycode`, `username`)
DISTRIBUTED BY HASH(siteid) BUCKETS 1
PROPERTIES (
    "replication_num" = "1"
);

INSERT INTO test_alter_table_modify_column_agg VALUES
        (1, 1, "xxx", 1),
        (2, 2, "xxx", 2),
        (3, 3, "xxx", 3);

-- !order
select * from test_alter_table_modify_column_agg order by siteid;

-- exception Key column can not set aggregation type
alter table test_alter_table_modify_column_agg modify COLUMN siteid INT key SUM DEFAULT '0';

-- exception Can not change aggregation typ
alter table test_alter_table_modify_column_agg modify COLUMN pv BIGINT DEFAULT '0';

DROP TABLE IF EXISTS test_alter_table_modify_column_agg FORCE;

DROP TABLE IF EXISTS test_alter_table_modify_column_dup FORCE;
CREATE TABLE `test_alter_table_modify_column_dup`
(
    `citycode` SMALLINT DEFAULT '10',
    `siteid` INT DEFAULT '10',
    `username` VARCHAR(32) DEFAULT 'test',
    `pv` BIGINT DEFAULT '0'
)
DUPLICATE KEY(`citycode`, `siteid`, `username`)
DISTRIBUTED BY HASH(siteid) BUCKETS 1
PROPERTIES (
    "replication_num" = "1"
);

INSERT INTO test_alter_table_modify_column_dup VALUES
        (1, 1, "xxx", 1),
        (2, 2, "xxx", 2),
        (3, 3, "xxx", 3);

-- !order
select * from test_alter_table_modify_column_dup order by siteid;

-- exception Can not assign aggregation method on column in Duplicate data model table
alter table test_alter_table_modify_column_dup modify COLUMN siteid INT SUM DEFAULT '0';

-- exception Index[not_exist_rollup] does not exist in table
alter table test_alter_table_modify_column_dup modify COLUMN siteid BIGINT from not_exist_rollup;

-- exception Column[not_exist_column] does not exists
alter table test_alter_table_modify_column_dup modify COLUMN not_exist_column BIGINT;

-- exception Column[not_exist_column] does not exists
alter table test_alter_table_modify_column_dup modify COLUMN siteid BIGINT after not_exist_column;

-- exception Invalid column order. value should be after key
alter table test_alter_table_modify_column_dup modify COLUMN citycode BIGINT DEFAULT '10' first;

-- exception Can not modify distribution column
alter table test_alter_table_modify_column_dup modify COLUMN siteid BIGINT key DEFAULT '10' first;

alter table test_alter_table_modify_column_dup modify COLUMN username VARCHAR(32) key DEFAULT 'test' first;

INSERT INTO test_alter_table_modify_column_dup VALUES
        ("yyy", 4, 4, 4);

-- !order
select * from test_alter_table_modify_column_dup order by siteid;

alter table test_alter_table_modify_column_dup order by(citycode, siteid, username, pv);

INSERT INTO test_alter_table_modify_column_dup VALUES
        (5, 5, "zzz", 5);

-- !order
select * from test_alter_table_modify_column_dup order by siteid;

DROP TABLE IF EXISTS test_alter_table_modify_column_dup FORCE;
