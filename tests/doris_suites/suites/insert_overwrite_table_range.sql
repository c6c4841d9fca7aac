-- Apache Doris regression suite "test_iot_range", translated for dorisql by hand.
-- Source:   regression-test/suites/insert_overwrite_p0/insert_overwrite_table_range.groovy
-- Expected: regression-test/data/insert_overwrite_p0/insert_overwrite_table_range.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Translation notes:
-- * Each `try { sql ...; throw ... } catch (SQLException)` is an `-- exception` (any error).
-- * The suite's `finally` block (dropping the tables and the database) runs at the end.

drop database if exists test_iot_db;
create database test_iot_db;
use test_iot_db;

CREATE TABLE IF NOT EXISTS test_iot (
  `test_datetime` datetime NULL,
  `test_varchar` varchar(150) NULL,
  `test_text` text NULL
) ENGINE=OLAP
UNIQUE KEY(`test_datetime`)
PARTITION BY RANGE (`test_datetime`)
(
PARTITION p1 VALUES [('2023-04-20 00:00:00'),('2023-04-21 00:00:00')),
PARTITION p2 VALUES [('2023-04-24 00:00:00'),('2023-04-25 00:00:00'))
)
DISTRIBUTED BY HASH(`test_datetime`) BUCKETS 3
PROPERTIES (
  "replication_allocation" = "tag.location.default: 1",
  "in_memory" = "false",
  "storage_format" = "V2"
);

CREATE TABLE IF NOT EXISTS test_iot1 (
  `test_datetime` datetime NULL,
  `test_varchar` varchar(150) NULL,
  `test_text` text NULL
) ENGINE=OLAP
UNIQUE KEY(`test_datetime`)
DISTRIBUTED BY HASH(`test_datetime`) BUCKETS 3
PROPERTIES (
  "replication_allocation" = "tag.location.default: 1",
  "in_memory" = "false",
  "storage_format" = "V2"
);

CREATE TABLE IF NOT EXISTS test_iot_err (
  `test_int` int NULL,
  `test_varchar` varchar(150) NULL,
  `test_text` text NULL
) ENGINE=OLAP
UNIQUE KEY(`test_int`)
DISTRIBUTED BY HASH(`test_int`) BUCKETS 3
PROPERTIES (
  "replication_allocation" = "tag.location.default: 1",
  "in_memory" = "false",
  "storage_format" = "V2"
);

-- overwrite not existed table
-- exception
INSERT OVERWRITE TABLE test_iot_wrong select * from test_iot1;

-- overwrite with unqualified data
INSERT INTO test_iot_err(test_int, test_varchar, test_text) VALUES (111,'aaa','aaa'),(333,'ccc','ccc');
-- exception
INSERT OVERWRITE TABLE test_iot select * from test_iot_err;

-- overwrite with empty data
INSERT OVERWRITE TABLE test_iot select * from test_iot1;
-- !select order
select * from test_iot;

-- overwrite with values list
INSERT OVERWRITE TABLE test_iot VALUES ('2023-04-20 16:00:00','aaa','aaa'),('2023-04-24 16:00:00','ccc','ccc');
-- !select order
select * from test_iot;

-- overwrite with origin data
INSERT OVERWRITE TABLE test_iot select '2023-04-20 16:00:00','aaa','aaa';
-- !select order
select * from test_iot;

-- overwrite with another table
INSERT INTO test_iot1 (test_datetime, test_varchar, test_text) VALUES ('2023-04-20 16:00:00','aaa','aaa'),('2023-04-24 16:00:00','ccc','ccc');
INSERT OVERWRITE TABLE test_iot select * from test_iot1;
-- !select order
select * from test_iot;

-- overwrite table with some cols
INSERT OVERWRITE TABLE test_iot (test_datetime, test_varchar) select test_datetime, test_varchar from test_iot1;
-- !select order
select * from test_iot;

-- overwrite with label
INSERT OVERWRITE TABLE test_iot WITH LABEL `label1` (test_datetime, test_varchar, test_text) select * from test_iot1;
-- !select order
select * from test_iot;

-- overwrite not existed partition
-- exception
INSERT OVERWRITE TABLE test_iot PARTITION(p3) select * from test_iot1;

-- overwrite with data which is not in partition's range
-- exception
INSERT OVERWRITE TABLE test_iot PARTITION(p1) select * from test_iot1 where test_varchar = 'ccc';

-- overwrite partition with values list
INSERT OVERWRITE TABLE test_iot PARTITION(p1) VALUES ('2023-04-20 16:00:00','aaa','aaa');
-- !select order
select * from test_iot;

-- overwrite partition with origin data
INSERT OVERWRITE TABLE test_iot PARTITION(p1) select '2023-04-20 16:00:00','aaa','aaa';
-- !select order
select * from test_iot;

-- overwrite partition with another table
INSERT OVERWRITE TABLE test_iot PARTITION(p1) select * from test_iot1 where test_varchar = 'aaa';
-- !select order
select * from test_iot partition p1;

-- overwrite tow partitions with another table
INSERT OVERWRITE TABLE test_iot PARTITION(p1,p2) select * from test_iot1;
-- !select order
select * from test_iot partition p1;
-- !select order
select * from test_iot partition p2;

-- overwrite partition with some cols
INSERT OVERWRITE TABLE test_iot PARTITION(p1) (test_datetime, test_varchar) select test_datetime, test_varchar from test_iot1 where test_varchar = 'aaa';
-- !select order
select * from test_iot;

-- overwrite partition with label
INSERT OVERWRITE TABLE test_iot PARTITION(p1) WITH LABEL `label2` (test_datetime, test_varchar, test_text) select * from test_iot1 where test_varchar = 'aaa';
-- !select order
select * from test_iot;

DROP TABLE IF EXISTS test_iot;
DROP TABLE IF EXISTS test_iot1;
DROP DATABASE IF EXISTS test_iot_db;
