-- Apache Doris regression suite "test_update_mow", translated for dorisql by hand.
-- Source:   regression-test/suites/update/test_update_mow.groovy
-- Expected: regression-test/data/update/test_update_mow.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- The UPDATEs of test_update_unique on merge-on-write UNIQUE tables, then UPDATE of a
-- two-column key table with DATETIME and VARCHAR values (under Doris's old planner and Nereids:
-- one planner here, so the two halves are the same statements).

CREATE DATABASE IF NOT EXISTS regression_test_update;
USE regression_test_update;

set enable_nereids_planner=true;
set enable_fallback_to_original_planner=false;
DROP TABLE IF EXISTS test_update_mow_1;
CREATE TABLE IF NOT EXISTS test_update_mow_1 (
    k int,
    value1 int,
    value2 int,
    date_value date
)
UNIQUE KEY(k)
DISTRIBUTED BY HASH(k) BUCKETS 5 properties(
    "replication_num" = "1",
    "enable_unique_key_merge_on_write" = "true"
);
insert into test_update_mow_1 values(1, 1, 1, '2000-01-01');
insert into test_update_mow_1 values(2, 1, 1, '2000-01-01');
UPDATE test_update_mow_1 SET value1 = 2 WHERE k=1;
UPDATE test_update_mow_1 SET value1 = value1+1 WHERE k=2;
UPDATE test_update_mow_1 SET date_value = '1999-01-01' WHERE k in (1,2);
-- !select_uniq_table
select * from test_update_mow_1 order by k;
UPDATE test_update_mow_1 SET date_value = '1998-01-01' WHERE k is null or k is not null;
-- !select_uniq_table
select * from test_update_mow_1 order by k;
-- !desc_uniq_table
desc test_update_mow_1;
DROP TABLE test_update_mow_1;

DROP TABLE IF EXISTS test_update_mow_1;
DROP TABLE IF EXISTS test_update_mow_2;
DROP TABLE IF EXISTS test_update_mow_3;
DROP TABLE IF EXISTS test_update_mow_4;

-- test complex update syntax
create table test_update_mow_1 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1', 'enable_unique_key_merge_on_write' = 'true');
create table test_update_mow_2 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1', 'enable_unique_key_merge_on_write' = 'true');
create table test_update_mow_3 (id int) distributed by hash (id) properties('replication_num'='1');
create table test_update_mow_4 (id int) distributed by hash (id) properties('replication_num'='1');
insert into test_update_mow_1 values(1, 1, '1', 1.0, '2000-01-01'),(2, 2, '2', 2.0, '2000-01-02'),(3, 3, '3', 3.0, '2000-01-03');
insert into test_update_mow_2 values(1, 10, '10', 10.0, '2000-01-10'),(2, 20, '20', 20.0, '2000-01-20'),(3, 30, '30', 30.0, '2000-01-30'),(4, 4, '4', 4.0, '2000-01-04'),(5, 5, '5', 5.0, '2000-01-05');
insert into test_update_mow_3 values(1), (4), (5);
insert into test_update_mow_4 values(2), (4), (5);

update test_update_mow_1 set test_update_mow_1.c1 = test_update_mow_2.c1, test_update_mow_1.c3 = test_update_mow_2.c3 * 100 from test_update_mow_2 inner join test_update_mow_3 on test_update_mow_2.id = test_update_mow_3.id where test_update_mow_1.id = test_update_mow_2.id;

-- !complex_update
select * from test_update_mow_1 order by id;

update test_update_mow_1 t1a set t1a.c1 = test_update_mow_2.c1, t1a.c3 = test_update_mow_2.c3 * 100 from test_update_mow_2 inner join test_update_mow_4 on test_update_mow_2.id = test_update_mow_4.id where t1a.id = test_update_mow_2.id;

-- !complex_update_by_alias
select * from test_update_mow_1 order by id;

DROP TABLE IF EXISTS test_update_mow_1;
DROP TABLE IF EXISTS test_update_mow_2;
DROP TABLE IF EXISTS test_update_mow_3;
DROP TABLE IF EXISTS test_update_mow_4;

set experimental_enable_nereids_planner=false;
set enable_nereids_planner=false;
sync;
DROP TABLE IF EXISTS test_update_mow_5;
CREATE TABLE test_update_mow_5 (
        k1 varchar(100) NOT NULL,
        k2 int(11) NOT NULL,
        v1 datetime NULL,
        v2 varchar(100) NULL,
        v3 int NULL) ENGINE=OLAP UNIQUE KEY(k1, k2) COMMENT 'OLAP'
        DISTRIBUTED BY HASH(k1, k2) BUCKETS 3
        PROPERTIES (
        "replication_allocation" = "tag.location.default: 1",
        "enable_unique_key_merge_on_write" = "true",
        "light_schema_change" = "true",
        "store_row_column" = "true",
        "enable_single_replica_compaction" = "false");
insert into test_update_mow_5 values
    ("a",1,"2023-11-12 00:00:00","test1",1),
    ("b",2,"2023-11-12 00:00:00","test2",2),
    ("c",3,"2023-11-12 00:00:00","test3",3);
-- !sql
select * from test_update_mow_5 order by k1,k2;
update test_update_mow_5 set v3=999 where k1="a" and k2=1;
-- !sql
select * from test_update_mow_5 order by k1,k2;
update test_update_mow_5 set v2="update value", v1="2022-01-01 00:00:00" where k1="c" and k2=3;
-- !sql
select * from test_update_mow_5 order by k1,k2;

DROP TABLE IF EXISTS test_update_mow_5;

set enable_nereids_planner=true;
set enable_fallback_to_original_planner=false;
sync;
DROP TABLE IF EXISTS test_update_mow_6;
CREATE TABLE test_update_mow_6 (
        k1 varchar(100) NOT NULL,
        k2 int(11) NOT NULL,
        v1 datetime NULL,
        v2 varchar(100) NULL,
        v3 int NULL) ENGINE=OLAP UNIQUE KEY(k1, k2) COMMENT 'OLAP'
        DISTRIBUTED BY HASH(k1, k2) BUCKETS 3
        PROPERTIES (
        "replication_allocation" = "tag.location.default: 1",
        "enable_unique_key_merge_on_write" = "true",
        "light_schema_change" = "true",
        "store_row_column" = "true",
        "enable_single_replica_compaction" = "false");
insert into test_update_mow_6 values
    ("a",1,"2023-11-12 00:00:00","test1",1),
    ("b",2,"2023-11-12 00:00:00","test2",2),
    ("c",3,"2023-11-12 00:00:00","test3",3);
-- !sql
select * from test_update_mow_6 order by k1,k2;
update test_update_mow_6 set v3=999 where k1="a" and k2=1;
-- !sql
select * from test_update_mow_6 order by k1,k2;
update test_update_mow_6 set v2="update value", v1="2022-01-01 00:00:00" where k1="c" and k2=3;
-- !sql
select * from test_update_mow_6 order by k1,k2;

DROP TABLE IF EXISTS test_update_mow_6;
