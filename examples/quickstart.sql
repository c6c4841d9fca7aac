-- dorisql quickstart: the two tables of Doris's "Data Partition" guide, loaded and queried.
-- Run it with:  dorisql -f examples/quickstart.sql
-- (on a terminal each statement is shown with its result; piped, the output is tab-separated)
CREATE DATABASE IF NOT EXISTS example_db;
USE example_db;

-- 1. Partitions by RANGE of `date` (three months and a year), each in 16 buckets by `user_id`.
--    AGGREGATE KEY: rows with equal keys merge into one (cost summed, the latest visit kept).
CREATE TABLE IF NOT EXISTS example_db.example_range_tbl
(
    `user_id` LARGEINT NOT NULL COMMENT "User ID",
    `date` DATE NOT NULL COMMENT "Date when the data are imported",
    `timestamp` DATETIME NOT NULL COMMENT "Timestamp when the data are imported",
    `city` VARCHAR(20) COMMENT "User location city",
    `age` SMALLINT COMMENT "User age",
    `sex` TINYINT COMMENT "User gender",
    `last_visit_date` DATETIME REPLACE DEFAULT "1970-01-01 00:00:00" COMMENT "User last visit time",
    `cost` BIGINT SUM DEFAULT "0" COMMENT "Total user consumption",
    `max_dwell_time` INT MAX DEFAULT "0" COMMENT "Maximum user dwell time",
    `min_dwell_time` INT MIN DEFAULT "99999" COMMENT "Minimum user dwell time"
)
ENGINE=olap
AGGREGATE KEY(`user_id`, `date`, `timestamp`, `city`, `age`, `sex`)
PARTITION BY RANGE(`date`)
(
    PARTITION `p201701` VALUES LESS THAN ("2017-02-01"),
    PARTITION `p201702` VALUES LESS THAN ("2017-03-01"),
    PARTITION `p201703` VALUES LESS THAN ("2017-04-01"),
    PARTITION `p2018` VALUES [("2018-01-01"), ("2019-01-01"))
)
DISTRIBUTED BY HASH(`user_id`) BUCKETS 16
PROPERTIES
(
    "replication_num" = "1"
);

-- 2. The same columns, partitioned by LIST of `city`.
CREATE TABLE IF NOT EXISTS example_db.example_list_tbl
(
    `user_id` LARGEINT NOT NULL COMMENT "User ID",
    `date` DATE NOT NULL COMMENT "Date when the data are imported",
    `timestamp` DATETIME NOT NULL COMMENT "Timestamp when the data are imported",
    `city` VARCHAR(20) NOT NULL COMMENT "User location city",
    `age` SMALLINT COMMENT "User Age",
    `sex` TINYINT COMMENT "User gender",
    `last_visit_date` DATETIME REPLACE DEFAULT "1970-01-01 00:00:00" COMMENT "User last visit time",
    `cost` BIGINT SUM DEFAULT "0" COMMENT "Total user consumption",
    `max_dwell_time` INT MAX DEFAULT "0" COMMENT "Maximum user dwell time",
    `min_dwell_time` INT MIN DEFAULT "99999" COMMENT "Minimum user dwell time"
)
ENGINE=olap
AGGREGATE KEY(`user_id`, `date`, `timestamp`, `city`, `age`, `sex`)
PARTITION BY LIST(`city`)
(
    PARTITION `p_cn` VALUES IN ("Beijing", "Shanghai", "Hong Kong"),
    PARTITION `p_usa` VALUES IN ("New York", "San Francisco"),
    PARTITION `p_jp` VALUES IN ("Tokyo")
)
DISTRIBUTED BY HASH(`user_id`) BUCKETS 16
PROPERTIES
(
    "replication_num" = "1"
);

-- 3. Load 3,000 generated visits into each (examples/data/visits.csv, beside this script).
INSERT INTO example_range_tbl
SELECT * FROM local("file_path" = "data/visits.csv", "format" = "csv_with_names", "column_separator" = ",");

INSERT INTO example_list_tbl
SELECT * FROM local("file_path" = "data/visits.csv", "format" = "csv_with_names", "column_separator" = ",");

-- 4. Each row went to the partition its date falls in.
SELECT PARTITION_NAME, PARTITION_DESCRIPTION, TABLE_ROWS
FROM information_schema.partitions
WHERE TABLE_SCHEMA = "example_db" AND TABLE_NAME = "example_range_tbl"
ORDER BY PARTITION_ORDINAL_POSITION;

-- All that Doris tells about one partition (\G: one field a line).
SHOW PARTITIONS FROM example_list_tbl WHERE PartitionName = "p_cn"\G

-- 5. A query on February reads only partition p201702.
SELECT count(*) AS visits, sum(cost) AS cost FROM example_range_tbl WHERE `date` >= "2017-02-01" AND `date` < "2017-03-01";

-- 6. Or name the partitions to read.
SELECT city, count(*) AS visits, sum(cost) AS cost
FROM example_list_tbl PARTITION (p_cn, p_jp)
GROUP BY city ORDER BY city;

-- 7. What a point query reads: 1 of 4 partitions, 1 of its 16 tablets (the bucket of user 10042),
--    merged by the AGGREGATE KEY; then Spark's plan.
EXPLAIN SELECT * FROM example_range_tbl WHERE `date` = "2017-03-15" AND user_id = 10042;

-- 8. The table as Doris keeps it, its defaults filled in.
SHOW CREATE TABLE example_range_tbl\G
