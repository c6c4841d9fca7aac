-- Dynamic partitions (seed 001, example 1): by day, keep the last 7 days, create 3 days ahead.
-- Run:  dorisql --warehouse /tmp/wh -f examples/dynamic_partitions.sql
-- Then age the table:  dorisql --warehouse /tmp/wh scheduler --once --now '2020-06-06 00:00:00'

SET dorisql_now = '2020-05-29 10:00:00';

CREATE DATABASE IF NOT EXISTS example_db;
USE example_db;
DROP TABLE IF EXISTS tbl1;

CREATE TABLE tbl1
(
    k1 DATE,
    k2 INT,
    v  VARCHAR(32)
)
DUPLICATE KEY(k1, k2)
PARTITION BY RANGE(k1) ()
DISTRIBUTED BY HASH(k1)
PROPERTIES
(
    "dynamic_partition.enable" = "true",
    "dynamic_partition.time_unit" = "DAY",
    "dynamic_partition.start" = "-7",
    "dynamic_partition.end" = "3",
    "dynamic_partition.prefix" = "p",
    "dynamic_partition.buckets" = "32"
);

-- p20200529 .. p20200601, one day each
SHOW PARTITIONS FROM tbl1;

SHOW DYNAMIC PARTITION TABLES;
