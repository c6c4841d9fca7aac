-- Apache Doris regression suite "test_partition_add_mismatched", translated for dorisql by hand.
-- Source:   regression-test/suites/partition_p0/test_partition_add_mismatched.groovy
-- Expected: no .out (the suite checks only errors)
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_partition_p0;
USE regression_test_partition_p0;

drop table if exists test_partition_add_mismatched_list_tbl;
CREATE TABLE IF NOT EXISTS test_partition_add_mismatched_list_tbl (
    k1 int NOT NULL,
    k2 bigint NOT NULL
)
PARTITION BY LIST(k1,k2) ()
DISTRIBUTED BY HASH(k1) BUCKETS 5 properties("replication_num" = "1");

drop table if exists test_partition_add_mismatched_range_tbl;
CREATE TABLE IF NOT EXISTS test_partition_add_mismatched_range_tbl (
    k1 int NOT NULL,
    k2 bigint NOT NULL
)
PARTITION BY RANGE(k1,k2) ()
DISTRIBUTED BY HASH(k1) BUCKETS 5 properties("replication_num" = "1");

-- exception List partition expected 'VALUES [IN or (("xxx", "xxx"), ...)]'
alter table test_partition_add_mismatched_list_tbl add partition p0 values [("0"), ("2"));

-- exception Range partition expected 'VALUES [LESS THAN or [("xxx" ,...), ("xxx", ...))]'
alter table test_partition_add_mismatched_range_tbl add partition p0 values in (("0", "2"));
