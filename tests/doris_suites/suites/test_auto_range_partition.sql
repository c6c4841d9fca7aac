-- Apache Doris regression suite "test_auto_range_partition", translated for dorisql by hand.
-- Source:   regression-test/suites/partition_p0/auto_partition/test_auto_range_partition.groovy
-- Expected: regression-test/data/partition_p0/auto_partition/test_auto_range_partition.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_partition_p0_auto_partition;
USE regression_test_partition_p0_auto_partition;

set enable_fallback_to_original_planner=false;

drop table if exists range_table1;
CREATE TABLE `range_table1` (
`TIME_STAMP` datetimev2 NOT NULL COMMENT '采集日期'
)
DUPLICATE KEY(`TIME_STAMP`)
auto partition by range (date_trunc(`TIME_STAMP`, 'day'))
(
)
DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
PROPERTIES (
"replication_allocation" = "tag.location.default: 1"
);
insert into range_table1 values ('2022-12-14'), ('2022-12-15'), ('2022-12-16'), ('2022-12-17'), ('2022-12-18'), ('2022-12-19'), ('2022-12-20');
insert into range_table1 values ('2122-12-14'), ('2122-12-15'), ('2122-12-16'), ('2122-12-17'), ('2122-12-18'), ('2122-12-19'), ('2122-12-20');

-- !select00
select * from range_table1 order by TIME_STAMP;
-- !select01
select * from range_table1 WHERE TIME_STAMP = '2022-12-15' order by TIME_STAMP;
-- !select02
select * from range_table1 WHERE TIME_STAMP > '2022-12-15' order by TIME_STAMP;

drop table if exists range_table_date;
CREATE TABLE `range_table_date` (
`TIME_STAMP` datev2 NOT NULL COMMENT '采集日期'
) ENGINE=OLAP
DUPLICATE KEY(`TIME_STAMP`)
COMMENT 'OLAP'
auto partition by range (date_trunc(`TIME_STAMP`, 'month'))
(
)
DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
PROPERTIES (
"replication_allocation" = "tag.location.default: 1"
);
insert into range_table_date values ('2022-11-14'), ('2022-12-15'), ('2022-12-16'), ('2022-12-17'), ('2022-05-18'), ('2022-12-19'), ('2022-12-20');
insert into range_table_date values ('2122-12-14'), ('2122-12-15'), ('2122-12-16'), ('2122-12-17'), ('2122-09-18'), ('2122-12-19'), ('2122-12-20');

-- !date1
select * from range_table_date order by TIME_STAMP;
-- !date2
select * from range_table_date WHERE TIME_STAMP = '2022-12-15' order by TIME_STAMP;
-- !date3
select * from range_table_date WHERE TIME_STAMP > '2022-12-15' order by TIME_STAMP;

drop table if exists range_table2;
CREATE TABLE `range_table2` (
`TIME_STAMP` datetimev2(3) NOT NULL COMMENT '采集日期'
) ENGINE=OLAP
DUPLICATE KEY(`TIME_STAMP`)
COMMENT 'OLAP'
auto partition by range (date_trunc(`TIME_STAMP`, 'day'))
(
)
DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
PROPERTIES (
"replication_allocation" = "tag.location.default: 1"
);
insert into range_table2 values ('2022-12-14 22:22:22.222'), ('2022-12-15 22:22:22.222'), ('2022-12-16 22:22:22.222'), ('2022-12-17 22:22:22.222'), ('2022-12-18 22:22:22.222'), ('2022-12-19 22:22:22.222'), ('2022-12-20 22:22:22.222');
insert into range_table2 values ('2122-12-14 22:22:22.222'), ('2122-12-15 22:22:22.222'), ('2122-12-16 22:22:22.222'), ('2122-12-17 22:22:22.222'), ('2122-12-18 22:22:22.222'), ('2122-12-19 22:22:22.222'), ('2122-12-20 22:22:22.222');
insert into range_table2 values ('2022-11-14 22:22:22.222'), ('2022-11-15 22:22:22.222'), ('2022-11-16 22:22:22.222'), ('2022-11-17 22:22:22.222'), ('2022-11-18 22:22:22.222'), ('2022-11-19 22:22:22.222'), ('2022-11-20 22:22:22.222');

-- !select10
select * from range_table2 order by TIME_STAMP;
-- !select11
select * from range_table2 WHERE TIME_STAMP = '2022-12-15 22:22:22.222' order by TIME_STAMP;
-- !select12
select * from range_table2 WHERE TIME_STAMP > '2022-12-15 22:22:22.222' order by TIME_STAMP;

drop table if exists right_bound;
create table right_bound(
    k0 datetime(6) not null
)
auto partition by range (date_trunc(k0, 'second'))
(
    partition pX values less than ("1970-01-01")
)
DISTRIBUTED BY HASH(`k0`) BUCKETS auto
properties("replication_num" = "1");
insert into right_bound values ('9999-12-31 23:59:59');
insert into right_bound values ('9999-12-31 23:59:59.999999');
-- !right_bound
select * from right_bound order by k0;
-- assertEquals(result2.size(), 2): pX and the second [9999-12-31 23:59:59, MAXVALUE)
-- rows 2
show partitions from right_bound;

drop table if exists week_range;
CREATE TABLE `week_range` (
`TIME_STAMP` datev2 NOT NULL
)
DUPLICATE KEY(`TIME_STAMP`)
auto partition by range (date_trunc(`TIME_STAMP`, 'week'))
(
)
DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
PROPERTIES (
"replication_allocation" = "tag.location.default: 1"
);
insert into week_range values (20240408), (20240409);
-- assertEquals(result2.size(), 1): 2024-04-08 is a Monday, both days in its week
-- rows 1
show partitions from week_range;

drop table if exists quarter_range;
CREATE TABLE `quarter_range` (
`TIME_STAMP` datev2 NOT NULL
)
DUPLICATE KEY(`TIME_STAMP`)
auto partition by range (date_trunc(`TIME_STAMP`, 'quarter'))
(
)
DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
PROPERTIES (
"replication_allocation" = "tag.location.default: 1"
);
insert into quarter_range values (20240102), (20240330), (20241001), (20241231);
-- assertEquals(result2.size(), 2)
-- rows 2
show partitions from quarter_range;

-- insert into select have multi sender in load
drop table if exists isit;
drop table if exists isit_src;
CREATE TABLE isit (
    k DATE NOT NULL
)
AUTO PARTITION BY RANGE (date_trunc(k, 'day'))()
DISTRIBUTED BY HASH(k) BUCKETS AUTO
PROPERTIES (
    "replication_allocation" = "tag.location.default: 1"
);
CREATE TABLE isit_src (
    k DATE NOT NULL
)
DISTRIBUTED BY HASH(k) BUCKETS AUTO
PROPERTIES (
    "replication_allocation" = "tag.location.default: 1"
);
insert into isit_src values (20201212);
insert into isit select * from isit_src;
sync;
-- !sql
select * from isit order by k;

drop table if exists awh_test_range_auto;
-- exception Auto Range Partition need FunctionCallExpr
CREATE TABLE awh_test_range_auto (
    DATE_ID BIGINT NOT NULL,
    LAST_UPLOAD_TIME DATETIME
)
AUTO PARTITION BY RANGE (DATE_ID)()
DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO
PROPERTIES (
    "replication_num" = "1"
);
-- exception auto create partition only support function call expr is
CREATE TABLE awh_test_range_auto (
    DATE_ID BIGINT NOT NULL,
    LAST_UPLOAD_TIME DATETIME
)
AUTO PARTITION BY RANGE (date(DATE_ID))()
DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO
PROPERTIES (
    "replication_num" = "1"
);
-- exception partition expr date_trunc is illegal!
CREATE TABLE awh_test_range_auto (
    DATE_ID BIGINT NOT NULL,
    LAST_UPLOAD_TIME DATETIME
)
AUTO PARTITION BY RANGE (date_trunc(DATE_ID))()
DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO
PROPERTIES (
    "replication_num" = "1"
);
-- exception partition expr date_trunc is illegal!
CREATE TABLE awh_test_range_auto (
    DATE_ID BIGINT NOT NULL,
    LAST_UPLOAD_TIME DATETIME
)
AUTO PARTITION BY RANGE (date_trunc(DATE_ID, 'year'))()
DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO
PROPERTIES (
    "replication_num" = "1"
);
-- Doris accepts an unknown date_trunc unit at CREATE TABLE; the first load refuses it.
CREATE TABLE awh_test_range_auto (
    DATE_ID BIGINT NOT NULL,
    LAST_UPLOAD_TIME DATETIME NOT NULL
)
AUTO PARTITION BY RANGE (date_trunc(LAST_UPLOAD_TIME, 'yeear'))()
DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO
PROPERTIES (
    "replication_num" = "1"
);
-- exception date_trunc function second param only support argument is
insert into awh_test_range_auto values (1,'20201212');
