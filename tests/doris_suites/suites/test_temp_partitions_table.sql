-- Apache Doris regression suite "test_temp_partitions_table", translated for dorisql by hand.
-- Source:   regression-test/suites/catalog_recycle_bin_p0/test_temp_partitions_table.groovy
-- Expected: regression-test/data/catalog_recycle_bin_p0/test_temp_partitions_table.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Translation notes:
-- * PARTITION p1 without brackets is Doris's single-partition form, kept as written.

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_catalog_recycle_bin_p0;
USE regression_test_catalog_recycle_bin_p0;

CREATE TABLE test_temp_partitions_table  (
    id BIGINT,
    val BIGINT,
    str VARCHAR(114)
) DUPLICATE KEY(`id`)
PARTITION BY RANGE(`id`)
(
    PARTITION `p1` VALUES LESS THAN ('5'),
    PARTITION `p2` VALUES LESS THAN ('10')
)
DISTRIBUTED BY HASH(`id`) BUCKETS 3
PROPERTIES (
"replication_num"="1"
);

ALTER TABLE test_temp_partitions_table   ADD TEMPORARY PARTITION tp1 VALUES [("15"), ("20"));

INSERT INTO test_temp_partitions_table   VALUES(1, 1,'1');
INSERT INTO test_temp_partitions_table   VALUES(7, 1,'3');
INSERT INTO test_temp_partitions_table   TEMPORARY PARTITION(tp1) values(16,1234, 't');
SYNC;
-- !sql_1
SELECT * FROM test_temp_partitions_table   PARTITION p1;
-- !sql_2
SELECT * FROM test_temp_partitions_table   PARTITION p2;
-- !sql_3
select * from test_temp_partitions_table   temporary partition(tp1);
DROP table test_temp_partitions_table ;
recover table test_temp_partitions_table ;

-- !sql_recover1
SELECT * FROM test_temp_partitions_table   PARTITION p1;
-- !sql_recover2
SELECT * FROM test_temp_partitions_table   PARTITION p2;
-- !sql_recover3
select * from test_temp_partitions_table   temporary partition(tp1);

DROP table test_temp_partitions_table ;
recover table test_temp_partitions_table  as test_temp_partitions_table_2;

-- !sql_newrecover1
SELECT * FROM test_temp_partitions_table_2   PARTITION p1;
-- !sql_newrecover2
SELECT * FROM test_temp_partitions_table_2   PARTITION p2;
-- !sql_newrecover3
select * from test_temp_partitions_table_2   temporary partition(tp1);
