-- Apache Doris regression suite "test_auto_list_partition_null", translated for dorisql by hand.
-- Source:   regression-test/suites/partition_p0/auto_partition/test_auto_list_partition_null.groovy
-- Expected: the suite's own assertions; its regression-test/data/.../test_auto_list_partition_null.out
-- is not in the reference index, so its two order_qt checks are counted (the suite's comments
-- say which rows each returns) instead of compared.
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_partition_p0_auto_partition;
USE regression_test_partition_p0_auto_partition;

-- MAXVALUE is not allowed in LIST partition values when creating a table,
-- it can only be used in RANGE partition's VALUES LESS THAN (MAXVALUE).
-- exception MAXVALUE is not allowed in LIST partition
CREATE TABLE list_table_maxvalue_err (
    id int null,
    k largeint null
)
PARTITION BY LIST (`id`, `k`)
(
    PARTITION p1 VALUES IN ((NULL, MAXVALUE))
)
DISTRIBUTED BY HASH(`k`) BUCKETS 16
PROPERTIES (
    "replication_allocation" = "tag.location.default: 1"
);

DROP TABLE IF EXISTS list_table_null;

CREATE TABLE list_table_null (
    id int null,
    k largeint null
)
AUTO PARTITION BY LIST (`id`, `k`)
(
)
DISTRIBUTED BY HASH(`k`) BUCKETS 16
PROPERTIES (
    "replication_allocation" = "tag.location.default: 1"
);
ALTER TABLE `list_table_null` ADD PARTITION `p1` VALUES IN ((NULL, "1")) ("version_info" = "1") DISTRIBUTED BY HASH(`k`) BUCKETS 16;
ALTER TABLE `list_table_null` ADD PARTITION `p2` VALUES IN (("1", NULL)) ("version_info" = "1") DISTRIBUTED BY HASH(`k`) BUCKETS 16;
ALTER TABLE `list_table_null` ADD PARTITION `p3` VALUES IN ((NULL, NULL)) ("version_info" = "1") DISTRIBUTED BY HASH(`k`) BUCKETS 16;
-- MAXVALUE is not allowed in LIST partition values, it can only be used in RANGE
-- partition's VALUES LESS THAN (MAXVALUE).
-- exception MAXVALUE is not allowed in LIST partition
ALTER TABLE `list_table_null` ADD PARTITION `p4` VALUES IN ((NULL, MAXVALUE)) ("version_info" = "1") DISTRIBUTED BY HASH(`k`) BUCKETS 16;
-- exception MAXVALUE is not allowed in LIST partition
ALTER TABLE `list_table_null` ADD PARTITION `p5` VALUES IN ((MAXVALUE, NULL)) ("version_info" = "1") DISTRIBUTED BY HASH(`k`) BUCKETS 16;
-- exception MAXVALUE is not allowed in LIST partition
ALTER TABLE `list_table_null` ADD PARTITION `p6` VALUES IN (("1", MAXVALUE)) ("version_info" = "1") DISTRIBUTED BY HASH(`k`) BUCKETS 16;
-- exception MAXVALUE is not allowed in LIST partition
ALTER TABLE `list_table_null` ADD PARTITION `p7` VALUES IN ((MAXVALUE, "1")) ("version_info" = "1") DISTRIBUTED BY HASH(`k`) BUCKETS 16;

-- assertTrue(res[0][1].contains(...)) for p3, p1 and p2
-- contains PARTITION p3 VALUES IN ((NULL, NULL))
show create table list_table_null;
-- contains PARTITION p1 VALUES IN ((NULL, "1"))
show create table list_table_null;
-- contains PARTITION p2 VALUES IN (("1", NULL))
show create table list_table_null;

-- Insert into a table containing NULL list partitions should not fail.
-- (NULL, "1") -> p1, ("1", NULL) -> p2, (NULL, NULL) -> p3,
-- ("2", "2") matches no predefined partition and is auto-created since the table is AUTO.
insert into list_table_null values (null, "1"), ("1", null), (null, null), ("2", "2");

-- order_qt_select_all: the four rows
-- rows 4
select * from list_table_null order by id, k;

-- Predicate on the partition columns must not crash partition pruning.
-- order_qt_select_with_predicate: the row ("2", "2")
-- rows 1
select * from list_table_null where id = 2 and k = 2 order by id, k;
-- (the same, each row in the partition the suite's comment names)
-- rows 1
select * from list_table_null partition (p1) where id is null and k = 1;
-- rows 1
select * from list_table_null partition (p2) where id = 1 and k is null;
-- rows 1
select * from list_table_null partition (p3) where id is null and k is null;
-- rows 4
show partitions from list_table_null;
