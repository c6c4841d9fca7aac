-- Seed 003 (data partitioning), every statement as written (mysql> / -> prompts removed).
-- The multi-column and batch partition clauses, shown alone in the seed, are completed into
-- CREATE TABLE statements; "add/delete partition" sentences are written as ALTER TABLE.

-- Range Partition

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
"replication_num" = "3",
"storage_medium" = "SSD",
"storage_cooldown_time" = "2018-01-01 12:00:00"
);


-- List Partition

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
"replication_num" = "3",
"storage_medium" = "SSD",
"storage_cooldown_time" = "2018-01-01 12:00:00"
);

HELP CREATE TABLE;

ALTER TABLE example_db.example_range_tbl ADD PARTITION p201705 VALUES LESS THAN ("2017-06-01");
ALTER TABLE example_db.example_range_tbl DROP PARTITION p201703;
ALTER TABLE example_db.example_range_tbl DROP PARTITION p201702;
ALTER TABLE example_db.example_range_tbl ADD PARTITION p201702new VALUES LESS THAN ("2017-03-01");
ALTER TABLE example_db.example_range_tbl DROP PARTITION p201701;
ALTER TABLE example_db.example_range_tbl ADD PARTITION p201612 VALUES LESS THAN ("2017-01-01");

CREATE TABLE example_db.multi_col_range_tbl
(
`date` DATE NOT NULL,
`id` INT NOT NULL,
`cost` BIGINT SUM DEFAULT "0"
)
AGGREGATE KEY(`date`, `id`)
 PARTITION BY RANGE(`date`, `id`)
(
PARTITION `p201701_1000` VALUES LESS THAN ("2017-02-01", "1000"),
PARTITION `p201702_2000` VALUES LESS THAN ("2017-03-01", "2000"),
PARTITION `p201703_all` VALUES LESS THAN ("2017-04-01")
)
DISTRIBUTED BY HASH(`id`) BUCKETS 16;

CREATE TABLE example_db.batch_range_tbl
(
`date` DATE NOT NULL,
`id` INT NOT NULL
)
DUPLICATE KEY(`date`)
PARTITION BY RANGE(`date`)
(
FROM ("2022-01-03") TO ("2022-01-06") INTERVAL 1 DAY
)
DISTRIBUTED BY HASH(`id`) BUCKETS 16;

ALTER TABLE example_db.example_list_tbl ADD PARTITION p_uk VALUES IN ("London");
ALTER TABLE example_db.example_list_tbl DROP PARTITION p_jp;

CREATE TABLE example_db.multi_col_list_tbl
(
`id` INT NOT NULL,
`city` VARCHAR(20) NOT NULL
)
DUPLICATE KEY(`id`, `city`)
    PARTITION BY LIST(`id`, `city`)
    (
    PARTITION `p1_city` VALUES IN (("1", "Beijing"), ("1", "Shanghai")),
    PARTITION `p2_city` VALUES IN (("2", "Beijing"), ("2", "Shanghai")),
    PARTITION `p3_city` VALUES IN (("3", "Beijing"), ("3", "Shanghai"))
    )
DISTRIBUTED BY HASH(`id`) BUCKETS 16;

show data;

create table null_list(
k0 varchar null
)
partition by list (k0)
(
PARTITION pX values in ((NULL))
)
DISTRIBUTED BY HASH(`k0`) BUCKETS 1
properties("replication_num" = "1");

insert into null_list values (null);

select * from null_list;

create table null_range(
k0 int null
)
partition by range (k0)
(
PARTITION p10 values less than (10),
PARTITION p100 values less than (100),
PARTITION pMAX values less than (maxvalue)
)
DISTRIBUTED BY HASH(`k0`) BUCKETS 1
properties("replication_num" = "1");

insert into null_range values (null);

select * from null_range partition(p10);

create table null_range2(
k0 int null
)
partition by range (k0)
(
PARTITION p200 values [("100"), ("200"))
)
DISTRIBUTED BY HASH(`k0`) BUCKETS 1
properties("replication_num" = "1");

insert into null_range2 values (null);
