-- Apache Doris regression suite "test_colocate_join_of_column_order", translated for dorisql by hand.
-- Source:   regression-test/suites/correctness_p0/test_colocate_join_of_column_order.groovy
-- Expected: no .out in Doris (every check is on EXPLAIN)
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Two tables of one group bucketed by (k1, k2) and by (k2, k1): a join is colocated only when
-- its ON pairs the bucket columns in bucket-column order (a.k1 = b.k2 AND a.k2 = b.k1), other
-- conditions besides allowed.
--
-- EXPLAIN: each join of dorisql's EXPLAIN says `colocate: true`, as Doris's verbose explain
-- does, or `colocate: false, reason: ...`, as its legacy planner does (Doris's normal explain
-- writes `join op: INNER JOIN(COLOCATE[])[]` instead). So `explain { contains "COLOCATE" }` is
-- `-- contains colocate: true` and `explain { notContains "COLOCATE" }` is `-- contains
-- colocate: false` (the runner's contains ignores case: COLOCATE alone matches both lines).
-- `waitForColocateGroupStable(...)` (the balancer's work on Doris's replicas) is left out: a
-- group here is stable unless an administrator marks it otherwise (docs/colocation.md).

CREATE DATABASE IF NOT EXISTS regression_test_correctness_p0;
USE regression_test_correctness_p0;

DROP TABLE IF EXISTS `test_colocate_join_of_column_order_t1`;
-- distributed by k1,k2
CREATE TABLE IF NOT EXISTS `test_colocate_join_of_column_order_t1` (
`k1` varchar(64) NULL,
`k2` varchar(64) NULL,
`v` int NULL
) ENGINE=OLAP
DUPLICATE KEY(`k1`,`k2`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`k1`,`k2`) BUCKETS 1
PROPERTIES (
    "replication_num" = "1",
    "colocate_with" = "group_column_order"
);
DROP TABLE IF EXISTS `test_colocate_join_of_column_order_t2`;
-- distributed by k2,k1
CREATE TABLE IF NOT EXISTS `test_colocate_join_of_column_order_t2` (
`k1` varchar(64) NULL,
`k2` varchar(64) NULL,
`v` int NULL
) ENGINE=OLAP
DUPLICATE KEY(`k1`,`k2`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`k2`,`k1`) BUCKETS 1
PROPERTIES (
    "replication_num" = "1",
    "colocate_with" = "group_column_order"
);
insert into test_colocate_join_of_column_order_t1 values('k1','k2',11);
insert into test_colocate_join_of_column_order_t2 values('k1','k2',11);

set enable_nereids_planner=true;
-- contains colocate: false
explain select * from test_colocate_join_of_column_order_t1 a join test_colocate_join_of_column_order_t2 b on a.k1=b.k1 and a.k2=b.k2;
-- contains colocate: false
explain select * from test_colocate_join_of_column_order_t1 a join test_colocate_join_of_column_order_t2 b on a.k1=b.k2;
-- contains colocate: false
explain select * from test_colocate_join_of_column_order_t1 a join test_colocate_join_of_column_order_t2 b on a.k1=b.k1;
-- contains colocate: false
explain select * from test_colocate_join_of_column_order_t1 a join test_colocate_join_of_column_order_t2 b on a.k1=b.k2 and a.v=b.v;
-- contains colocate: true
explain select * from test_colocate_join_of_column_order_t1 a join test_colocate_join_of_column_order_t2 b on a.k1=b.k2 and a.k2=b.k1;
-- contains colocate: true
explain select * from test_colocate_join_of_column_order_t1 a join test_colocate_join_of_column_order_t2 b on a.k1=b.k2 and a.k2=b.k1 and a.v=b.v;

DROP TABLE IF EXISTS `test_colocate_join_of_column_order_t1`;
DROP TABLE IF EXISTS `test_colocate_join_of_column_order_t2`;

-- multi tables
DROP TABLE IF EXISTS `test_colocate_join_of_column_order_ta`;
CREATE TABLE IF NOT EXISTS `test_colocate_join_of_column_order_ta` ( `c1` bigint NULL, `c2` bigint NULL)
    DISTRIBUTED BY HASH(c1) PROPERTIES ( "replication_num" = "1", "colocate_with" = "group_column_order3");
DROP TABLE IF EXISTS `test_colocate_join_of_column_order_tb`;
CREATE TABLE IF NOT EXISTS `test_colocate_join_of_column_order_tb` ( `c1` bigint NULL, `c2` bigint NULL)
    DISTRIBUTED BY HASH(c1) PROPERTIES ( "replication_num" = "1", "colocate_with" = "group_column_order3");
DROP TABLE IF EXISTS `test_colocate_join_of_column_order_tc`;
CREATE TABLE IF NOT EXISTS `test_colocate_join_of_column_order_tc` ( `c1` bigint NULL, `c2` bigint NULL)
    DISTRIBUTED BY HASH(c1) PROPERTIES ( "replication_num" = "1", "colocate_with" = "group_column_order3");
insert into test_colocate_join_of_column_order_ta values(1,1);
insert into test_colocate_join_of_column_order_tb values(1,1);
insert into test_colocate_join_of_column_order_tc values(1,1);

-- Left out for now (a known difference, reported): Doris's `contains "COLOCATE"` on the
-- statement below. dorisql does not read Doris's join hints (`join [shuffle]`: "Syntax error
-- ... Expected table name but got '['"), and it plans a join bucket by bucket only between
-- tables (here one side is a subquery of test_colocate_join_of_column_order_tb and the other
-- join's key comes through it).
-- explain select /*+ set_var(disable_join_reorder=true, parallel_pipeline_task_num=1) */ * from test_colocate_join_of_column_order_ta join [shuffle] (select cast((c2 + 1) as bigint) c2 from test_colocate_join_of_column_order_tb) test_colocate_join_of_column_order_tb  on test_colocate_join_of_column_order_ta.c1 = test_colocate_join_of_column_order_tb.c2 join [shuffle] test_colocate_join_of_column_order_tc on test_colocate_join_of_column_order_tb.c2 = test_colocate_join_of_column_order_tc.c1;

DROP TABLE IF EXISTS `test_colocate_join_of_column_order_ta`;
DROP TABLE IF EXISTS `test_colocate_join_of_column_order_tb`;
DROP TABLE IF EXISTS `test_colocate_join_of_column_order_tc`;
