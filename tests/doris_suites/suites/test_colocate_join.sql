-- Apache Doris regression suite "test_colocate_join", translated for dorisql by hand.
-- Source:   regression-test/suites/correctness_p0/test_colocate_join.groovy
-- Expected: regression-test/data/correctness_p0/test_colocate_join.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Colocate joins in a database group (a chain of five tables, a join with a subquery) and in a
-- global group (`__global__group1`) across two databases, before and after ADD PARTITION, and
-- the joins that stop being colocated when a member leaves the group or moves to another one.
--
-- EXPLAIN: Doris's suite checks its plan text with `explain { contains "..." }`. dorisql's
-- EXPLAIN is not Doris's plan (no node ids, no `|` tree), but each join says what Doris's
-- verbose explain says: `colocate: true` for a colocated join, or (as Doris's legacy planner)
-- `colocate: false, reason: <Doris's reason>`. So Doris's `contains "COLOCATE"` and `contains
-- "n:VHASH JOIN\n  |  join op: INNER JOIN(COLOCATE[])[]"` are written `contains colocate: true`
-- here (the runner's contains ignores case, and COLOCATE alone would also match dorisql's
-- `colocate: false` line); `contains "Tables are not in the same group"` stays as it is.
-- Where Doris's check names several joins (the chain of five), one `colocate: true` line is
-- what the runner can check; tests/colocation/test_colocate_join.py checks every join of such
-- chains.

-- The suite drops and makes its own two databases.
drop database if exists test_colocate_join_db1;
drop database if exists test_colocate_join_db2;
create database if not exists test_colocate_join_db1;
create database if not exists test_colocate_join_db2;
use test_colocate_join_db1;

-- this case check explain, so we disable nereids (Doris's comment; one planner here)
set enable_nereids_planner=false;

DROP TABLE IF EXISTS `test_colo1`;
DROP TABLE IF EXISTS `test_colo2`;
DROP TABLE IF EXISTS `test_colo3`;
DROP TABLE IF EXISTS `test_colo4`;
DROP TABLE IF EXISTS `test_colo5`;
DROP TABLE IF EXISTS `test_global_tbl1`;
DROP TABLE IF EXISTS `test_global_tbl2`;
DROP TABLE IF EXISTS test_colocate_join_db2.`test_global_tbl3`;

CREATE TABLE `test_colo1` (
`id` varchar(64) NULL,
`name` varchar(64) NULL,
`age` int NULL
) ENGINE=OLAP
DUPLICATE KEY(`id`,`name`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`id`,`name`) BUCKETS 4
PROPERTIES (
"replication_allocation" = "tag.location.default: 1",
"colocate_with" = "group",
"in_memory" = "false",
"storage_format" = "V2",
"disable_auto_compaction" = "false"
);

CREATE TABLE `test_colo2` (
`id` varchar(64) NULL,
`name` varchar(64) NULL,
`age` int NULL
) ENGINE=OLAP
DUPLICATE KEY(`id`,`name`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`id`,`name`) BUCKETS 4
PROPERTIES (
"replication_allocation" = "tag.location.default: 1",
"colocate_with" = "group",
"in_memory" = "false",
"storage_format" = "V2",
"disable_auto_compaction" = "false"
);

CREATE TABLE `test_colo3` (
`id` varchar(64) NULL,
`name` varchar(64) NULL,
`age` int NULL
) ENGINE=OLAP
DUPLICATE KEY(`id`,`name`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`id`,`name`) BUCKETS 4
PROPERTIES (
"replication_allocation" = "tag.location.default: 1",
"colocate_with" = "group",
"in_memory" = "false",
"storage_format" = "V2",
"disable_auto_compaction" = "false"
);

CREATE TABLE `test_colo4` (
`id` varchar(64) NULL,
`name` varchar(64) NULL,
`age` int NULL
) ENGINE=OLAP
DUPLICATE KEY(`id`,`name`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`id`,`name`) BUCKETS 4
PROPERTIES (
"replication_allocation" = "tag.location.default: 1",
"colocate_with" = "group",
"in_memory" = "false",
"storage_format" = "V2",
"disable_auto_compaction" = "false"
);

CREATE TABLE `test_colo5` (
`id` varchar(64) NULL,
`name` varchar(64) NULL,
`age` int NULL
) ENGINE=OLAP
DUPLICATE KEY(`id`,`name`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`id`,`name`) BUCKETS 4
PROPERTIES (
"replication_allocation" = "tag.location.default: 1",
"colocate_with" = "group",
"in_memory" = "false",
"storage_format" = "V2",
"disable_auto_compaction" = "false"
);

create table test_global_tbl1 (
    id int,
    name varchar(100),
    dt date
)
distributed by hash(id, name) buckets 4
properties("colocate_with" = "__global__group1",
    "replication_num" = "1");

create table test_global_tbl2 (
    id int,
    name varchar(20),
    dt date,
    age bigint
)
distributed by hash(id, name) buckets 4
properties("colocate_with" = "__global__group1",
    "replication_num" = "1");

create table test_colocate_join_db2.test_global_tbl3 (
    id int,
    name varchar(50),
    dt date,
    age bigint
)
partition by range(dt) (
    partition p1 values less than("2022-02-01"),
    partition p2 values less than("2022-03-01"),
    partition p3 values less than("2022-04-01")
)
distributed by hash(id, name) buckets 4
properties("colocate_with" = "__global__group1",
    "replication_num" = "1");

insert into test_colo1 values('1','a',12);
insert into test_colo2 values('1','a',12);
insert into test_colo3 values('1','a',12);
insert into test_colo4 values('1','a',12);
insert into test_colo5 values('1','a',12);

-- Doris: each of its four joins is `INNER JOIN(COLOCATE[])[]` (nodes 8, 6, 4 and 2)
-- contains colocate: true
explain select * from test_colo1 a inner join test_colo2 b on a.id = b.id and a.name = b.name inner join test_colo3 c on a.id=c.id and a.name= c.name inner join test_colo4 d on a.id=d.id and a.name= d.name inner join test_colo5 e on a.id=e.id and a.name= e.name;

-- Doris: the INNER JOIN (node 4) and the LEFT OUTER JOIN inside the subquery (node 3) colocated.
-- dorisql colocates the LEFT JOIN inside the subquery (the `colocate: true` found here); the
-- join of test_colo1 with the subquery runs as Spark's join (docs/colocation.md: a subquery
-- side is not planned bucket by bucket), a known difference from Doris.
-- contains colocate: true
explain select a.id,a.name,t1.id,t1.name,cid,cname from test_colo1 a join (select b.id,b.name,c.id as cid,c.name as cname from test_colo2 b left join test_colo3 c on b.id = c.id and b.name = c.name) t1 on a.id=t1.id and a.name= t1.name;

/* test join same table but hit different rollup, should disable colocate join */
DROP TABLE IF EXISTS `test_query_colocate`;

CREATE TABLE `test_query_colocate` (
  `datekey` int(11) NULL,
  `rollup_1_condition` int null,
  `rollup_2_condition` int null,
  `sum_col1` bigint(20) SUM NULL,
  `sum_col2` bigint(20) SUM NULL
) ENGINE=OLAP
AGGREGATE KEY(`datekey`,`rollup_1_condition`,`rollup_2_condition`)
COMMENT ""
PARTITION BY RANGE(`datekey`)
(PARTITION p20220102 VALUES [("20220101"), ("20220102")),
PARTITION p20220103 VALUES [("20220102"), ("20220103")))
DISTRIBUTED BY HASH(`datekey`) BUCKETS 1
rollup (
rollup_1(datekey, sum_col1),
rollup_2(datekey, sum_col2)
)
PROPERTIES (
    "replication_allocation" = "tag.location.default: 1",
    "in_memory" = "false",
    "storage_format" = "V2"
);

insert into test_query_colocate values
        (20220101, 102, 200, 200, 100),
        (20220101, 101, 200, 200, 100),
        (20220101, 102, 202, 200, 100),
        (20220101, 101, 202, 200, 100);

-- Left out for now (a known difference, reported): Doris's check that the join of two
-- aggregating subqueries of this table is not colocated (`explain { contains "Tables are not
-- in the same group" }` on the statement below). dorisql refuses its /*+SET_VAR(...)*/ hint ("Can not found function
-- 'set_var'"), and without the hint its EXPLAIN shows no join block for a join of two
-- subqueries (it lists the joins of two tables only), so there is no reason to find.
-- explain select /*+SET_VAR(parallel_fragment_exec_instance_num=1,parallel_pipeline_task_num=1)*/  sum_col1,sum_col2 from (select datekey,sum(sum_col1) as sum_col1  from test_query_colocate where datekey=20220101 group by datekey) t1 left join (select datekey,sum(sum_col2) as sum_col2 from test_query_colocate where datekey=20220101 group by datekey) t2 on t1.datekey = t2.datekey;

DROP TABLE IF EXISTS `test_query_colocate`;

/* test no rollup is selected */
DROP TABLE IF EXISTS `tbl1`;
DROP TABLE IF EXISTS `tbl2`;

create table tbl1(k1 int, k2 varchar(32), v bigint sum) AGGREGATE KEY(k1,k2) distributed by hash(k1) buckets 1 properties('replication_num' = '1');

create table tbl2(k3 int, k4 varchar(32)) DUPLICATE KEY(k3) distributed by hash(k3) buckets 1 properties('replication_num' = '1');

-- contains INNER JOIN
explain select * from tbl1 join tbl2 on tbl1.k1 = tbl2.k3;

DROP TABLE IF EXISTS `tbl1`;
DROP TABLE IF EXISTS `tbl2`;

insert into test_colocate_join_db1.test_global_tbl1 values
        (1,"jack", "2022-01-01"),
        (2,"jack1", "2022-01-02"),
        (3,"jack2", "2022-01-03"),
        (4,"jack3", "2022-02-01"),
        (5,"jack4", "2022-02-01"),
        (6, null, "2022-03-01");

insert into test_colocate_join_db1.test_global_tbl2 values
        (1,"jack", "2022-01-01", 10),
        (2,"jack1", "2022-01-02", 11),
        (3,"jack2", "2022-01-03", 12),
        (4,"jack3", "2022-02-01", 13),
        (5,"jack4", "2022-02-01", 14),
        (6,null, "2022-03-01", 15);

insert into test_colocate_join_db2.test_global_tbl3 values
        (1,"jack", "2022-01-01", 10),
        (2,"jack1", "2022-01-02", 11),
        (3,"jack2", "2022-01-03", 12),
        (4,"jack3", "2022-02-01", 13),
        (5,"jack4", "2022-02-01", 14),
        (6,null, "2022-03-01", 15);

-- !global1 order
select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db1.test_global_tbl2 b on a.id = b.id and a.name = b.name;
-- !global2 order
select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db2.test_global_tbl3 b on a.id = b.id and a.name = b.name;

-- contains colocate: true
explain select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db1.test_global_tbl2 b on a.id = b.id and a.name = b.name;
-- contains colocate: true
explain select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db2.test_global_tbl3 b on a.id = b.id and a.name = b.name;

/* add partition */
alter table test_colocate_join_db2.test_global_tbl3 add partition p4 values less than("2022-05-01");
insert into test_colocate_join_db2.test_global_tbl3 values (7, "jack7", "2022-04-01", 16);
-- !global3 order
select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db2.test_global_tbl3 b on a.id = b.id and a.name = b.name;
-- contains colocate: true
explain select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db2.test_global_tbl3 b on a.id = b.id and a.name = b.name;

/* modify group: unset */
alter table test_colocate_join_db2.test_global_tbl3 set ("colocate_with" = "");
-- contains Tables are not in the same group
explain select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db2.test_global_tbl3 b on a.id = b.id and a.name = b.name;

/* modify group: from global to database level */
alter table test_colocate_join_db1.test_global_tbl2 set ("colocate_with" = "db_level_group");
-- contains Tables are not in the same group
explain select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db1.test_global_tbl2 b on a.id = b.id and a.name = b.name;
