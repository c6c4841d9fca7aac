-- Apache Doris regression suite "test_dynamic_partition_failed", translated for dorisql by hand.
-- Source:   regression-test/suites/partition_p0/dynamic_partition/test_dynamic_partition_failed.groovy
-- Expected: no .out in Doris (the suite asserts on results and errors)
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Translation notes:
-- * getFeConfig / setFeConfig are ADMIN SET FRONTEND CONFIG; the suite's warehouse is its own,
--   so the final "restore the old max_dynamic_partition_num" sets Doris's default, 500;
-- * sql_return_maparray("SHOW DYNAMIC PARTITION TABLES").find { TableName == ... }
--   .LastDropPartitionMsg.contains(...) is a "contains" check on the whole result (only this
--   table has such a message).

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_partition_p0_dynamic_partition;
USE regression_test_partition_p0_dynamic_partition;

DROP TABLE IF EXISTS test_dynamic_partition_failed_ok1 FORCE;
CREATE TABLE test_dynamic_partition_failed_ok1
      ( `k1` datetime NULL )
      PARTITION BY RANGE (k1)()
      DISTRIBUTED BY HASH(`k1`) BUCKETS 1
      PROPERTIES
      (
        "replication_num" = "1",
        "dynamic_partition.replication_num" = "1",
        "dynamic_partition.enable" = "true",
        "dynamic_partition.end" = "3",
        "dynamic_partition.time_unit" = "day",
        "dynamic_partition.prefix" = "p",
        "dynamic_partition.buckets" = "1",
        "dynamic_partition.start" = "-99999999",
        "dynamic_partition.history_partition_num" = "5",
        "dynamic_partition.create_history_partition" = "true"
      );

-- assertEquals(9, partitions.size())
-- rows 9
SHOW PARTITIONS FROM test_dynamic_partition_failed_ok1;
-- dynamicInfo.LastDropPartitionMsg.contains(...)
-- contains 'dynamic_partition.start' = -99999999, maybe it's too small, can use alter table sql to increase it.
SHOW DYNAMIC PARTITION TABLES;

-- setFeConfig('max_dynamic_partition_num', Integer.MAX_VALUE)
ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "2147483647");

DROP TABLE IF EXISTS test_dynamic_partition_failed_ok2 FORCE;
CREATE TABLE test_dynamic_partition_failed_ok2
      ( `k1` date NULL )
      PARTITION BY RANGE(k1) (
         PARTITION `phistory` VALUES less than ('2020-01-01')
      )
      DISTRIBUTED BY HASH(`k1`) BUCKETS 1
      PROPERTIES
      (
        "replication_num" = "1",
        "dynamic_partition.replication_num" = "1",
        "dynamic_partition.enable" = "true",
        "dynamic_partition.end" = "3",
        "dynamic_partition.time_unit" = "YEAR",
        "dynamic_partition.prefix" = "p",
        "dynamic_partition.buckets" = "1",
        "dynamic_partition.start" = "-10",
        "dynamic_partition.create_history_partition" = "true"
      );

DROP TABLE IF EXISTS test_dynamic_partition_failed_2;
-- check { assertTrue(msg.contains('date/datetime literal') && msg.contains('is invalid')) }
-- ('date/datetime literal [+271768-09-11 00:00:00] is invalid')
-- exception date/datetime literal
-- exception is invalid
CREATE TABLE test_dynamic_partition_failed_2
      ( `k1` datetime NULL )
      PARTITION BY RANGE (k1)()
      DISTRIBUTED BY HASH(`k1`) BUCKETS 1
      PROPERTIES
      (
        "replication_num" = "1",
        "dynamic_partition.replication_num" = "1",
        "dynamic_partition.enable" = "true",
        "dynamic_partition.end" = "3",
        "dynamic_partition.time_unit" = "day",
        "dynamic_partition.prefix" = "p",
        "dynamic_partition.buckets" = "1",
        "dynamic_partition.start" = "-99999999",
        "dynamic_partition.create_history_partition" = "true"
      );

-- finally { ... }
ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "500");
DROP TABLE IF EXISTS test_dynamic_partition_failed_ok1 FORCE;
DROP TABLE IF EXISTS test_dynamic_partition_failed_ok2 FORCE;
DROP TABLE IF EXISTS test_dynamic_partition_failed_2;
