-- Apache Doris regression suite "test_iot_auto_detect", translated for dorisql by hand.
-- Source:   regression-test/suites/insert_overwrite_p0/insert_overwrite_auto_detect.groovy
-- Expected: regression-test/data/insert_overwrite_p0/insert_overwrite_auto_detect.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Translation notes:
-- * The nereids switches (SET enable_nereids_planner ...) are left out: one planner here.
-- * The labels iot_auto_txn<random> are fixed names (a suite runs in a fresh warehouse). The
--   suite's loop on SHOW LOAD until the three labelled overwrites are FINISHED is left out:
--   INSERT records no load job in dorisql, and each INSERT OVERWRITE has committed when it returns.
-- * A `try {} catch` or `test { check }` accepting either "Insert has filtered data in strict
--   mode" or "Cannot found origin partitions in auto detect overwriting" checks the first, which
--   is what dorisql answers for rows that fit no partition.

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_insert_overwrite_p0;
USE regression_test_insert_overwrite_p0;

-- range
drop table if exists range1;
create table range1(
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
insert into range1 values (1), (2), (15), (100), (200);
-- !sql
select * from range1 order by k0;
insert overwrite table range1 partition(*) values (3), (1234);
-- !sql
select * from range1 order by k0;
insert overwrite table range1 partition(*) values (1), (2), (333), (444), (555);
-- !sql
select * from range1 order by k0;
insert overwrite table range1 partition(*) values (-100), (-100), (333), (444), (555);
-- !sql
select * from range1 order by k0;
insert into range1 values (-12345), (12345);
insert overwrite table range1 partition(*) values (-100), (-100), (333), (444), (555);
-- !sql
select * from range1 order by k0;

-- list
drop table if exists list1;
create table list1(
   k0 varchar null
)
partition by list (k0)
(
   PARTITION p1 values in (("Beijing"), ("BEIJING")),
   PARTITION p2 values in (("Shanghai"), ("SHANGHAI")),
   PARTITION p3 values in (("xxx"), ("XXX")),
   PARTITION p4 values in (("list"), ("LIST")),
   PARTITION p5 values in (("1234567"), ("7654321"))
)
DISTRIBUTED BY HASH(`k0`) BUCKETS 1
properties("replication_num" = "1");
insert into list1 values ("Beijing"),("Shanghai"),("xxx"),("list"),("1234567");
-- !sql
select * from list1 order by k0;
insert overwrite table list1 partition(*) values ("BEIJING");
-- !sql
select * from list1 order by k0;
insert overwrite table list1 partition(*) values ("7654321"), ("7654321"), ("7654321");
-- !sql
select * from list1 order by k0;
insert overwrite table list1 partition(*) values ("7654321"), ("list"), ("list"), ("LIST"), ("LIST");
-- !sql
select * from list1 order by k0;
insert overwrite table list1 partition(*) values ("BEIJING"), ("SHANGHAI"), ("XXX"), ("LIST"), ("7654321");
-- !sql
select * from list1 order by k0;

-- with label - transactions
insert overwrite table list1 partition(*) with label `iot_auto_txn1` values ("BEIJING"), ("7654321");
insert overwrite table list1 partition(*) with label `iot_auto_txn2` values ("SHANGHAI"), ("LIST");
insert overwrite table list1 partition(*) with label `iot_auto_txn3` values  ("XXX");
-- !sql
select * from list1 order by k0;

-- long partition value
drop table if exists list_long;
create table list_long(
   k0 varchar null
)
partition by list (k0)
(
   PARTITION p1 values in (("Beijing"), ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")),
   PARTITION p2 values in (("nonono"))
)
DISTRIBUTED BY HASH(`k0`) BUCKETS 1
properties("replication_num" = "1");
insert into list_long values ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
insert overwrite table list_long partition(*) values ("Beijing");
-- !sql
select * from list_long order by k0;
insert overwrite table list_long partition(*) values ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
-- !sql
select * from list_long order by k0;

-- miss partitions
-- exception Insert has filtered data in strict mode
insert overwrite table list1 partition(*) values ("BEIJING"), ("invalid");

drop table if exists dt;
create table dt(
   k0 date null
)
partition by range (k0)
(
   PARTITION p10 values less than ("2010-01-01"),
   PARTITION p100 values less than ("2020-01-01"),
   PARTITION pMAX values less than ("2030-01-01")
)
DISTRIBUTED BY HASH(`k0`) BUCKETS 1
properties("replication_num" = "1");
insert into dt values ("2005-01-01"), ("2013-02-02"), ("2022-03-03");
insert overwrite table dt partition(*) values ("2008-01-01"), ("2008-02-02");
-- !sql
select * from dt order by k0;
-- exception Insert has filtered data in strict mode
insert overwrite table dt partition(*) values ("2023-02-02"), ("3000-12-12");
-- test no rows(no partition hits) overwrite
drop table if exists dt2;
create table dt2 like dt;
insert overwrite table dt2 partition(*) select * from dt2;
insert overwrite table dt partition(*) select * from dt2;
insert overwrite table dt partition(p10, pMAX) select * from dt2;
insert overwrite table dt select * from dt2;
