-- Apache Doris regression suite "nereids_test_ctas_decimalv3", translated for dorisql by hand.
-- Source:   regression-test/suites/nereids_p0/create_table/test_ctas_decimalv3.groovy
-- Expected: the suite has no .out of its own; its two blocks are those of the same statements
--           in regression-test/data/nereids_p0/create_table/test_ctas.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- CTAS of DECIMALV3 columns: every column keeps its precision and scale.

CREATE DATABASE IF NOT EXISTS regression_test_nereids_p0_create_table;
USE regression_test_nereids_p0_create_table;

set enable_nereids_planner=true;
set enable_fallback_to_original_planner=false;

CREATE TABLE test_uniq_tab_decimalv3 (
    c1 DECIMALV3(7,1) NULL,
    c2 DECIMALV3(15,5) NULL,
    c3 DECIMALV3(30,1) NULL,
    v1 DECIMALV3(7,6) NULL COMMENT "",
    v2 DECIMALV3(18,6) NULL COMMENT "",
    v3 DECIMALV3(30,6) NULL COMMENT ""
) ENGINE=OLAP
DUPLICATE KEY(c1,c2,c3)
COMMENT "OLAP"
DISTRIBUTED BY HASH(c1,c2,c3) BUCKETS 3
PROPERTIES (
    "replication_allocation" = "tag.location.default: 1",
    "in_memory" = "false",
    "storage_format" = "V2"
);

insert into test_uniq_tab_decimalv3 values (1.1,1.2,1.3,1.4,1.5,1.6);
insert into test_uniq_tab_decimalv3 values (2.1,2.2,2.3,2.4,2.5,2.6);
insert into test_uniq_tab_decimalv3 values (1.1,1.2,1.3,1.4,1.5,1.6);
insert into test_uniq_tab_decimalv3 values (2.1,2.2,2.3,2.4,2.5,2.6);

-- !select
select * from test_uniq_tab_decimalv3 order by c1;

CREATE TABLE IF NOT EXISTS `test_uniq_tab_decimalv3_2`
PROPERTIES (
    "replication_allocation" = "tag.location.default: 1",
    "in_memory" = "false",
    "storage_format" = "V2"
) as select * from test_uniq_tab_decimalv3;

-- !select
select * from test_uniq_tab_decimalv3_2 order by c1;

DROP TABLE IF EXISTS test_uniq_tab_decimalv3;
DROP TABLE IF EXISTS test_uniq_tab_decimalv3_2;
