-- Apache Doris regression suite "test_autobucket", translated for dorisql by hand.
-- Source:   regression-test/suites/autobucket/test_autobucket.groovy
-- Expected: no .out in Doris (the suite asserts on SHOW results); the blocks of
--           test_autobucket.out hold the values its assertions expect.
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_autobucket;
USE regression_test_autobucket;

-- dorisql only: the cluster BUCKETS AUTO sizes against. Doris asks its backends; dorisql
-- sizes against the machine unless told (docs/auto_bucket.md). One backend with one 10T
-- disk: enough disks that the estimates below are not capped by them, as on Doris's
-- regression cluster.
ADMIN SET FRONTEND CONFIG ("cluster_backends" = "1", "cluster_disks_per_backend" = "1", "cluster_disk_capacity" = "10T");

drop table if exists autobucket_test;
CREATE TABLE `autobucket_test` (
  `user_id` largeint(40) NOT NULL
) ENGINE=OLAP
DUPLICATE KEY(`user_id`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`user_id`) BUCKETS AUTO
PROPERTIES (
  "replication_allocation" = "tag.location.default: 1"
);

-- assertTrue(result.toString().containsIgnoreCase("BUCKETS AUTO"))
-- contains BUCKETS AUTO
show create table autobucket_test;

-- assertEquals(Integer.valueOf(result.get(0).get(8)), 10)   (pos 8: Buckets)
-- !default_buckets columns Buckets
show partitions from autobucket_test;

drop table if exists autobucket_test;


ADMIN SET FRONTEND CONFIG ('autobucket_min_buckets' = '5');
drop table if exists autobucket_test_min_buckets;
CREATE TABLE `autobucket_test_min_buckets` (
  `user_id` largeint(40) NOT NULL
) ENGINE=OLAP
DUPLICATE KEY(`user_id`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`user_id`) BUCKETS AUTO
PROPERTIES (
  "replication_allocation" = "tag.location.default: 1",
  "estimate_partition_size" = "1M"
);

-- assertEquals(Integer.valueOf(result.get(0).get(8)), 5)
-- !min_buckets columns Buckets
show partitions from autobucket_test_min_buckets;
ADMIN SET FRONTEND CONFIG ('autobucket_min_buckets' = '1');
drop table if exists autobucket_test_min_buckets;

ADMIN SET FRONTEND CONFIG ('autobucket_max_buckets' = '200');
drop table if exists autobucket_test_max_buckets;
CREATE TABLE `autobucket_test_max_buckets` (
  `user_id` largeint(40) NOT NULL
) ENGINE=OLAP
DUPLICATE KEY(`user_id`)
COMMENT 'OLAP'
DISTRIBUTED BY HASH(`user_id`) BUCKETS AUTO
PROPERTIES (
  "replication_allocation" = "tag.location.default: 1",
  "estimate_partition_size" = "100000G"
);

-- assertEquals(Integer.valueOf(result.get(0).get(8)), 200)
-- !max_buckets columns Buckets
show partitions from autobucket_test_max_buckets;
drop table if exists autobucket_test_max_buckets;
