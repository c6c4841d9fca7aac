-- Apache Doris regression suite "test_autobucket_dynamic_partition", translated for dorisql by hand.
-- Source:   regression-test/suites/autobucket/test_autobucket_dynamic_partition.groovy
-- Expected: no .out in Doris (the suite asserts on SHOW results); the blocks of
--           test_autobucket_dynamic_partition.out hold the values its assertions expect.
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_autobucket;
USE regression_test_autobucket;

-- dorisql only: the cluster BUCKETS AUTO sizes against (see test_autobucket.sql).
ADMIN SET FRONTEND CONFIG ("cluster_backends" = "1", "cluster_disks_per_backend" = "1", "cluster_disk_capacity" = "10T");

drop table if exists test_autobucket_dynamic_partition;
CREATE TABLE
test_autobucket_dynamic_partition (k1 DATETIME)
PARTITION BY
RANGE (k1) () DISTRIBUTED BY HASH (k1) BUCKETS AUTO
PROPERTIES (
    "dynamic_partition.enable" = "true",
    "dynamic_partition.time_unit" = "WEEK",
    "dynamic_partition.start" = "-2",
    "dynamic_partition.end" = "2",
    "dynamic_partition.prefix" = "p",
    "replication_allocation" = "tag.location.default: 1"
);

-- assertTrue(result.toString().containsIgnoreCase("BUCKETS AUTO"))
-- contains BUCKETS AUTO
show create table test_autobucket_dynamic_partition;

-- assertEquals(result.size(), 3)
-- assertEquals(Integer.valueOf(result.get(i).get(8)), 10) for i = 0, 1, 2   (pos 8: Buckets)
-- rows 3
-- !buckets columns Buckets
show partitions from test_autobucket_dynamic_partition;

drop table if exists test_autobucket_dynamic_partition;
