-- dorisql quickstart: the two tables of Doris's "Data Partition" guide, loaded and queried.
-- Run it with:  dorisql -f examples/quickstart.sql

CREATE DATABASE IF NOT EXISTS example_db;
USE example_db;

-- Range partitions on `date`; rows with equal keys are merged (AGGREGATE KEY).
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

-- List partitions on `city`.
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

-- Load 3,000 generated visits (examples/data/visits.csv; paths are relative to this script).
INSERT INTO example_range_tbl
SELECT * FROM local("file_path" = "data/visits.csv", "format" = "csv_with_names", "column_separator" = ",");

INSERT INTO example_list_tbl
SELECT * FROM local("file_path" = "data/visits.csv", "format" = "csv_with_names", "column_separator" = ",");

SHOW PARTITIONS FROM example_range_tbl;
SHOW PARTITIONS FROM example_list_tbl WHERE PartitionName = "p_cn";

-- Partition pruning: only p201702 is read.
SELECT count(*) AS visits, sum(cost) AS cost FROM example_range_tbl WHERE `date` >= "2017-02-01" AND `date` < "2017-03-01";

SELECT city, count(*) AS visits, sum(cost) AS cost
FROM example_list_tbl PARTITION (p_cn, p_jp)
GROUP BY city ORDER BY city;

EXPLAIN SELECT * FROM example_range_tbl WHERE `date` = "2017-03-15" AND user_id = 10042;

SHOW CREATE TABLE example_range_tbl;
