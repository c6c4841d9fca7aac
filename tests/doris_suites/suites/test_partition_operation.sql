-- Apache Doris regression suite "test_partition_operation", translated for dorisql by hand.
-- Source:   regression-test/suites/partition_p0/test_partition_operation.groovy
-- Expected: regression-test/data/partition_p0/test_partition_operation.out (sql1 .. sql9);
--           the load_* blocks are its resultFile "./multi_partition/partition_table.out"
--           (regression-test/data/partition_p0/multi_partition/partition_table.out)
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Translation notes:
-- * streamLoad of partition_table.csv (regression-test/data/partition_p0/multi_partition/) is an
--   INSERT of the same 30 rows: dorisql has no stream load;
-- * the suite's random bucket counts (random.nextInt(300) + 1) are fixed numbers here;
-- * its loops are written out.

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_partition_p0;
USE regression_test_partition_p0;


-- add partition, insert, check

DROP TABLE IF EXISTS test_add_partition_1;
CREATE TABLE IF NOT EXISTS test_add_partition_1 (
  k1 TINYINT NOT NULL,
  k2 SMALLINT NOT NULL,
  k3 INT NOT NULL,
  k4 BIGINT NOT NULL,
  k5 LARGEINT NOT NULL,
  k6 DATETIME NOT NULL,
  v1 DATE REPLACE NOT NULL,
  v2 CHAR REPLACE NOT NULL,
  v3 VARCHAR(4096) REPLACE NOT NULL,
  v4 FLOAT SUM NOT NULL,
  v5 DOUBLE SUM NOT NULL,
  v6 DECIMAL(20,7) SUM NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5,k6)
PARTITION BY RANGE(k3) (
  PARTITION partition_a VALUES LESS THAN ("50"),
  PARTITION partition_b VALUES LESS THAN ("200"),
  PARTITION partition_c VALUES LESS THAN ("1000"),
  PARTITION partition_d VALUES LESS THAN ("65535000") )
DISTRIBUTED BY HASH(k1) BUCKETS 13
PROPERTIES("replication_allocation" = "tag.location.default: 1");
-- streamLoad { file "partition_table.csv" }
INSERT INTO test_add_partition_1 VALUES
(1, 10, 100, 1000, 100000, '2011-01-01 00:00:00', '2010-01-01', 't', 'ynqnzeowymt', 38.638843, 180.998031, 7395.231067),
(2, 20, 200, 2000, 200000, '2012-01-01 00:00:00', '2010-01-02', 'f', 'hfkfwlr', 506.044046, 539.922834, 2080.504502),
(3, 30, 300, 3000, 300000, '2013-01-01 00:00:00', '2010-01-03', 't', 'uoclasp', 377.793209, 577.044148, 4605.253205),
(4, 40, 400, 4000, 400000, '2014-01-01 00:00:00', '2010-01-04', 'n', 'iswngzeodfhptjzgswsddt', 871.354536, 919.067864, 7291.703724),
(5, 50, 500, 5000, 500000, '2015-01-01 00:00:00', '2010-01-05', 'a', 'sqodagzlyrmcelyxgcgcsfuxadcdt', 462.067902, 929.660783, 3903.906901),
(6, 60, 600, 6000, 600000, '2016-01-01 00:00:00', '2010-01-06', 'm', 'obdrei', 921.867848, 882.708491, 6514.405051),
(7, 70, 700, 7000, 700000, '2017-01-01 00:00:00', '2010-01-07', 'a', 'cuobdhvrgkugknj', 141.656421, 209.420112, 8604.198677),
(8, 80, 800, 8000, 800000, '2018-01-01 00:00:00', '2010-01-08', 'z', 'phcxztwgjllhmj', 762.813376, 285.664871, 7784.859446),
(9, 90, 900, 9000, 900000, '2019-01-01 00:00:00', '2010-01-09', 'b', 'nbarqjwilbkelk', 92.702403, 535.285510, 4846.735593),
(10, 100, 1000, 10000, 1000000, '2020-01-01 00:00:00', '2010-01-10', 's', 'zucprgdnlgzzfl', 26.874738, 155.861217, 7996.434686),
(11, 110, 1100, 11000, 1100000, '2021-01-01 00:00:00', '2010-01-11', 'j', 'zabbwiimqemk', 369.819134, 558.999245, 3821.278705),
(12, 120, 1200, 12000, 1200000, '2022-01-01 00:00:00', '2010-01-12', 'd', 'elvkhacywhdzrazcvyunkjajnx', 536.045037, 181.877653, 9334.300973),
(13, 130, 1300, 13000, 1300000, '2023-01-01 00:00:00', '2010-01-13', 'x', 'cylgmxlmkkrkk', 990.836863, 909.667873, 9103.804406),
(14, 140, 1400, 14000, 1400000, '2024-01-01 00:00:00', '2010-01-14', 's', 'vpzwml', 763.615167, 295.541079, 9823.062496),
(15, 150, 1500, 15000, 1500000, '2025-01-01 00:00:00', '2010-01-15', 'f', 'yvvstxajxtgrimmrveljjbwo', 380.419929, 391.329557, 5859.241974),
(16, 160, 1600, 16000, 1600000, '2026-01-01 00:00:00', '2010-01-16', 'b', 'yxtowesbeqyejvpfhkixpdw', 312.933953, 328.666079, 9430.138013),
(17, 170, 1700, 17000, 1700000, '2027-01-01 00:00:00', '2010-01-17', 'd', 'nrrzcgygjplgttf', 472.844369, 799.528036, 3135.292842),
(18, 180, 1800, 18000, 1800000, '2028-01-01 00:00:00', '2010-01-18', 'e', 'wfknyaxplas', 971.549437, 844.025534, 9855.813711),
(19, 190, 1900, 19000, 1900000, '2029-01-01 00:00:00', '2010-01-19', 'f', 'qtznw', 37.568959, 502.584396, 3086.573874),
(20, 200, 2000, 20000, 2000000, '2030-01-01 00:00:00', '2010-01-20', 'i', 'nwznneizhtmzemy', 632.512198, 972.561324, 2698.863638),
(21, 210, 2100, 21000, 2100000, '2031-01-01 00:00:00', '2010-01-21', 'q', 'sqqeanrmafdoheeizljifwsj', 942.888716, 933.754744, 5185.373039),
(22, 220, 2200, 22000, 2200000, '2032-01-01 00:00:00', '2010-01-22', 'h', 'tirlgqmwrchusfyxitxttvxlioknz', 654.955955, 69.032071, 6221.348291),
(23, 230, 2300, 23000, 2300000, '2033-01-01 00:00:00', '2010-01-23', 's', 'imnrusvqy', 468.780338, 24.626005, 7481.574657),
(24, 240, 2400, 24000, 2400000, '2034-01-01 00:00:00', '2010-01-24', 's', 'irpbe', 537.906124, 396.750845, 3585.208809),
(25, 250, 2500, 25000, 2500000, '2035-01-01 00:00:00', '2010-01-25', 'w', 'drpjerrdlel', 662.123247, 202.007097, 6982.796060),
(26, 260, 2600, 26000, 2600000, '2036-01-01 00:00:00', '2010-01-26', 'v', 'vmzutsaifmlimicshgjpsvhiowjnq', 115.145598, 64.115478, 3046.839203),
(27, 270, 2700, 27000, 2700000, '2037-01-01 00:00:00', '2010-01-27', 'd', 'yrxspxgcwgbnjnmqkcido', 362.227207, 519.383701, 9921.135045),
(28, 280, 2800, 28000, 2800000, '2038-01-01 00:00:00', '2010-01-28', 'w', 'udfzebgnnxfjnoujtvlib', 443.030856, 998.471600, 4633.258698),
(29, 290, 2900, 29000, 2900000, '2039-01-01 00:00:00', '2010-01-29', 'p', 'jfgvke', 8.602754, 248.265099, 5465.010345),
(30, 300, 3000, 30000, 3000000, '2040-01-01 00:00:00', '2010-01-30', 'd', 'tbuvpobzluhbwkljlhwnrkrhowybk', 949.575593, 976.266490, 2579.668636);
sync;
-- resultFile "./multi_partition/partition_table.out"
-- !load_test_add_partition_1
select * from test_add_partition_1 order by k1, k2;
ALTER TABLE test_add_partition_1 ADD PARTITION add_1 VALUES LESS THAN ("65536000");
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_partition_1 WHERE PartitionName = 'add_1';
insert into test_add_partition_1 values (50, 500, 5000, 65535990, 5000000, '2060-01-01 00:00:00', '2010-02-28', '=', 'asdfg', 50.555, 505.55522, 545.005);
-- !sql1
select * from test_add_partition_1 order by k1;

-- add partition value overlap
-- exception is intersected with range
ALTER TABLE test_add_partition_1 ADD PARTITION add_1_err VALUES LESS THAN ("100");
-- exception is intersected with range
ALTER TABLE test_add_partition_1 ADD PARTITION add_1_err VALUES LESS THAN ("50");
-- add partition with different bucket num, become bigger,smaller ok
ALTER TABLE test_add_partition_1 ADD PARTITION add_2 VALUES LESS THAN ("65537000")
        DISTRIBUTED BY HASH(k1) BUCKETS 20;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_partition_1 WHERE PartitionName = 'add_2';
insert into test_add_partition_1 values(60, 600, 6000, 65536990, 6000000, '2070-01-01 00:00:00', '2010-03-01', '-', 'qwert', 60.555, 605.55522, 645.005);
-- !sql2
select * from test_add_partition_1 order by k1;
ALTER TABLE test_add_partition_1 ADD PARTITION add_3 VALUES LESS THAN ("65538000")
        DISTRIBUTED BY HASH(k1) BUCKETS 37;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_partition_1 WHERE PartitionName = 'add_3';
insert into test_add_partition_1 values(70, 700, 7000, 65537990, 7000000, '2080-01-01 00:00:00', '2010-03-02', '+', 'zxcvb', 70.555, 705.55522, 745.005);
-- !sql3
select * from test_add_partition_1 order by k1;
ALTER TABLE test_add_partition_1 ADD PARTITION add_4 VALUES LESS THAN ("65540000")
        DISTRIBUTED BY HASH(k1) BUCKETS 7;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_partition_1 WHERE PartitionName = 'add_4';
insert into test_add_partition_1 values(80, 800, 8000, 65539990, 8000000, '2090-01-01 00:00:00', '2010-03-03', '>', 'uiopy', 80.555, 805.55522, 845.005);
-- !sql4
select * from test_add_partition_1 order by k1;
-- add partition with 0 bucket
-- exception Cannot assign hash distribution buckets less than 1
ALTER TABLE test_add_partition_1 ADD PARTITION add_0_err VALUES LESS THAN ("2147483647")
        DISTRIBUTED BY HASH(k1) BUCKETS 0;

-- add partition with different distribution key
-- exception Cannot assign hash distribution with different distribution cols
ALTER TABLE test_add_partition_1 ADD PARTITION add_2_err VALUES LESS THAN ("2147483647")
        DISTRIBUTED BY HASH(k1, k2) BUCKETS 13;
-- add partition with different ditribution type: hash -> random
-- exception Cannot assign different distribution type. default is: HASH
ALTER TABLE test_add_partition_1 ADD PARTITION add_2_err VALUES LESS THAN ("2147483647")
        DISTRIBUTED BY RANDOM BUCKETS 13;

-- test drop partitions

DROP TABLE IF EXISTS test_drop_partition_1;
CREATE TABLE IF NOT EXISTS test_drop_partition_1 (
  k1 TINYINT NOT NULL,
  k2 SMALLINT NOT NULL,
  k3 INT NOT NULL,
  k4 BIGINT NOT NULL,
  k5 LARGEINT NOT NULL,
  k6 DATETIME NOT NULL,
  v1 DATE REPLACE NOT NULL,
  v2 CHAR REPLACE NOT NULL,
  v3 VARCHAR(4096) REPLACE NOT NULL,
  v4 FLOAT SUM NOT NULL,
  v5 DOUBLE SUM NOT NULL,
  v6 DECIMAL(20,7) SUM NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5,k6)
PARTITION BY RANGE(k3) (
  PARTITION partition_a VALUES LESS THAN ("50"),
  PARTITION partition_b VALUES LESS THAN ("200"),
  PARTITION partition_c VALUES LESS THAN ("1000"),
  PARTITION partition_d VALUES LESS THAN ("65535000") )
DISTRIBUTED BY HASH(k1) BUCKETS 13
PROPERTIES("replication_allocation" = "tag.location.default: 1");
-- streamLoad { file "partition_table.csv" }
INSERT INTO test_drop_partition_1 VALUES
(1, 10, 100, 1000, 100000, '2011-01-01 00:00:00', '2010-01-01', 't', 'ynqnzeowymt', 38.638843, 180.998031, 7395.231067),
(2, 20, 200, 2000, 200000, '2012-01-01 00:00:00', '2010-01-02', 'f', 'hfkfwlr', 506.044046, 539.922834, 2080.504502),
(3, 30, 300, 3000, 300000, '2013-01-01 00:00:00', '2010-01-03', 't', 'uoclasp', 377.793209, 577.044148, 4605.253205),
(4, 40, 400, 4000, 400000, '2014-01-01 00:00:00', '2010-01-04', 'n', 'iswngzeodfhptjzgswsddt', 871.354536, 919.067864, 7291.703724),
(5, 50, 500, 5000, 500000, '2015-01-01 00:00:00', '2010-01-05', 'a', 'sqodagzlyrmcelyxgcgcsfuxadcdt', 462.067902, 929.660783, 3903.906901),
(6, 60, 600, 6000, 600000, '2016-01-01 00:00:00', '2010-01-06', 'm', 'obdrei', 921.867848, 882.708491, 6514.405051),
(7, 70, 700, 7000, 700000, '2017-01-01 00:00:00', '2010-01-07', 'a', 'cuobdhvrgkugknj', 141.656421, 209.420112, 8604.198677),
(8, 80, 800, 8000, 800000, '2018-01-01 00:00:00', '2010-01-08', 'z', 'phcxztwgjllhmj', 762.813376, 285.664871, 7784.859446),
(9, 90, 900, 9000, 900000, '2019-01-01 00:00:00', '2010-01-09', 'b', 'nbarqjwilbkelk', 92.702403, 535.285510, 4846.735593),
(10, 100, 1000, 10000, 1000000, '2020-01-01 00:00:00', '2010-01-10', 's', 'zucprgdnlgzzfl', 26.874738, 155.861217, 7996.434686),
(11, 110, 1100, 11000, 1100000, '2021-01-01 00:00:00', '2010-01-11', 'j', 'zabbwiimqemk', 369.819134, 558.999245, 3821.278705),
(12, 120, 1200, 12000, 1200000, '2022-01-01 00:00:00', '2010-01-12', 'd', 'elvkhacywhdzrazcvyunkjajnx', 536.045037, 181.877653, 9334.300973),
(13, 130, 1300, 13000, 1300000, '2023-01-01 00:00:00', '2010-01-13', 'x', 'cylgmxlmkkrkk', 990.836863, 909.667873, 9103.804406),
(14, 140, 1400, 14000, 1400000, '2024-01-01 00:00:00', '2010-01-14', 's', 'vpzwml', 763.615167, 295.541079, 9823.062496),
(15, 150, 1500, 15000, 1500000, '2025-01-01 00:00:00', '2010-01-15', 'f', 'yvvstxajxtgrimmrveljjbwo', 380.419929, 391.329557, 5859.241974),
(16, 160, 1600, 16000, 1600000, '2026-01-01 00:00:00', '2010-01-16', 'b', 'yxtowesbeqyejvpfhkixpdw', 312.933953, 328.666079, 9430.138013),
(17, 170, 1700, 17000, 1700000, '2027-01-01 00:00:00', '2010-01-17', 'd', 'nrrzcgygjplgttf', 472.844369, 799.528036, 3135.292842),
(18, 180, 1800, 18000, 1800000, '2028-01-01 00:00:00', '2010-01-18', 'e', 'wfknyaxplas', 971.549437, 844.025534, 9855.813711),
(19, 190, 1900, 19000, 1900000, '2029-01-01 00:00:00', '2010-01-19', 'f', 'qtznw', 37.568959, 502.584396, 3086.573874),
(20, 200, 2000, 20000, 2000000, '2030-01-01 00:00:00', '2010-01-20', 'i', 'nwznneizhtmzemy', 632.512198, 972.561324, 2698.863638),
(21, 210, 2100, 21000, 2100000, '2031-01-01 00:00:00', '2010-01-21', 'q', 'sqqeanrmafdoheeizljifwsj', 942.888716, 933.754744, 5185.373039),
(22, 220, 2200, 22000, 2200000, '2032-01-01 00:00:00', '2010-01-22', 'h', 'tirlgqmwrchusfyxitxttvxlioknz', 654.955955, 69.032071, 6221.348291),
(23, 230, 2300, 23000, 2300000, '2033-01-01 00:00:00', '2010-01-23', 's', 'imnrusvqy', 468.780338, 24.626005, 7481.574657),
(24, 240, 2400, 24000, 2400000, '2034-01-01 00:00:00', '2010-01-24', 's', 'irpbe', 537.906124, 396.750845, 3585.208809),
(25, 250, 2500, 25000, 2500000, '2035-01-01 00:00:00', '2010-01-25', 'w', 'drpjerrdlel', 662.123247, 202.007097, 6982.796060),
(26, 260, 2600, 26000, 2600000, '2036-01-01 00:00:00', '2010-01-26', 'v', 'vmzutsaifmlimicshgjpsvhiowjnq', 115.145598, 64.115478, 3046.839203),
(27, 270, 2700, 27000, 2700000, '2037-01-01 00:00:00', '2010-01-27', 'd', 'yrxspxgcwgbnjnmqkcido', 362.227207, 519.383701, 9921.135045),
(28, 280, 2800, 28000, 2800000, '2038-01-01 00:00:00', '2010-01-28', 'w', 'udfzebgnnxfjnoujtvlib', 443.030856, 998.471600, 4633.258698),
(29, 290, 2900, 29000, 2900000, '2039-01-01 00:00:00', '2010-01-29', 'p', 'jfgvke', 8.602754, 248.265099, 5465.010345),
(30, 300, 3000, 30000, 3000000, '2040-01-01 00:00:00', '2010-01-30', 'd', 'tbuvpobzluhbwkljlhwnrkrhowybk', 949.575593, 976.266490, 2579.668636);
sync;
-- resultFile "./multi_partition/partition_table.out"
-- !load_test_drop_partition_1
select * from test_drop_partition_1 order by k1, k2;
-- drop a not exists partition
-- exception Error in list of partitions to not_exists_partition
ALTER TABLE test_drop_partition_1 DROP PARTITION not_exists_partition;
-- drop all exists partition
ALTER TABLE test_drop_partition_1 DROP PARTITION partition_a;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_1 WHERE PartitionName = 'partition_a';
ALTER TABLE test_drop_partition_1 DROP PARTITION partition_b;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_1 WHERE PartitionName = 'partition_b';
ALTER TABLE test_drop_partition_1 DROP PARTITION partition_c, DROP PARTITION partition_d;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_1 WHERE PartitionName = 'partition_c';
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_1 WHERE PartitionName = 'partition_d';
-- !sql5
select * from test_drop_partition_1 order by k1, k2;
-- after drop all partition, add a partiion
ALTER TABLE test_drop_partition_1 ADD PARTITION add_1 VALUES LESS THAN ("0");
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_drop_partition_1 WHERE PartitionName = 'add_1';


DROP TABLE IF EXISTS test_drop_partition_2;
CREATE TABLE IF NOT EXISTS test_drop_partition_2 (
  k1 TINYINT NOT NULL,
  k2 SMALLINT NOT NULL,
  k3 INT NOT NULL,
  k4 BIGINT NOT NULL,
  k5 LARGEINT NOT NULL,
  k6 DATETIME NOT NULL,
  v1 DATE REPLACE NOT NULL,
  v2 CHAR REPLACE NOT NULL,
  v3 VARCHAR(4096) REPLACE NOT NULL,
  v4 FLOAT SUM NOT NULL,
  v5 DOUBLE SUM NOT NULL,
  v6 DECIMAL(20,7) SUM NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5,k6)
PARTITION BY RANGE(k3) (
  PARTITION partition_a VALUES LESS THAN ("300"),
  PARTITION partition_b VALUES LESS THAN ("500"),
  PARTITION partition_c VALUES LESS THAN ("900"),
  PARTITION partition_d VALUES LESS THAN ("2200"),
  PARTITION partition_e VALUES LESS THAN ("2300"),
  PARTITION partition_f VALUES LESS THAN ("2800"),
  PARTITION partition_g VALUES LESS THAN ("4000") )
DISTRIBUTED BY HASH(k1) BUCKETS 13
PROPERTIES("replication_allocation" = "tag.location.default: 1");
-- streamLoad { file "partition_table.csv" }
INSERT INTO test_drop_partition_2 VALUES
(1, 10, 100, 1000, 100000, '2011-01-01 00:00:00', '2010-01-01', 't', 'ynqnzeowymt', 38.638843, 180.998031, 7395.231067),
(2, 20, 200, 2000, 200000, '2012-01-01 00:00:00', '2010-01-02', 'f', 'hfkfwlr', 506.044046, 539.922834, 2080.504502),
(3, 30, 300, 3000, 300000, '2013-01-01 00:00:00', '2010-01-03', 't', 'uoclasp', 377.793209, 577.044148, 4605.253205),
(4, 40, 400, 4000, 400000, '2014-01-01 00:00:00', '2010-01-04', 'n', 'iswngzeodfhptjzgswsddt', 871.354536, 919.067864, 7291.703724),
(5, 50, 500, 5000, 500000, '2015-01-01 00:00:00', '2010-01-05', 'a', 'sqodagzlyrmcelyxgcgcsfuxadcdt', 462.067902, 929.660783, 3903.906901),
(6, 60, 600, 6000, 600000, '2016-01-01 00:00:00', '2010-01-06', 'm', 'obdrei', 921.867848, 882.708491, 6514.405051),
(7, 70, 700, 7000, 700000, '2017-01-01 00:00:00', '2010-01-07', 'a', 'cuobdhvrgkugknj', 141.656421, 209.420112, 8604.198677),
(8, 80, 800, 8000, 800000, '2018-01-01 00:00:00', '2010-01-08', 'z', 'phcxztwgjllhmj', 762.813376, 285.664871, 7784.859446),
(9, 90, 900, 9000, 900000, '2019-01-01 00:00:00', '2010-01-09', 'b', 'nbarqjwilbkelk', 92.702403, 535.285510, 4846.735593),
(10, 100, 1000, 10000, 1000000, '2020-01-01 00:00:00', '2010-01-10', 's', 'zucprgdnlgzzfl', 26.874738, 155.861217, 7996.434686),
(11, 110, 1100, 11000, 1100000, '2021-01-01 00:00:00', '2010-01-11', 'j', 'zabbwiimqemk', 369.819134, 558.999245, 3821.278705),
(12, 120, 1200, 12000, 1200000, '2022-01-01 00:00:00', '2010-01-12', 'd', 'elvkhacywhdzrazcvyunkjajnx', 536.045037, 181.877653, 9334.300973),
(13, 130, 1300, 13000, 1300000, '2023-01-01 00:00:00', '2010-01-13', 'x', 'cylgmxlmkkrkk', 990.836863, 909.667873, 9103.804406),
(14, 140, 1400, 14000, 1400000, '2024-01-01 00:00:00', '2010-01-14', 's', 'vpzwml', 763.615167, 295.541079, 9823.062496),
(15, 150, 1500, 15000, 1500000, '2025-01-01 00:00:00', '2010-01-15', 'f', 'yvvstxajxtgrimmrveljjbwo', 380.419929, 391.329557, 5859.241974),
(16, 160, 1600, 16000, 1600000, '2026-01-01 00:00:00', '2010-01-16', 'b', 'yxtowesbeqyejvpfhkixpdw', 312.933953, 328.666079, 9430.138013),
(17, 170, 1700, 17000, 1700000, '2027-01-01 00:00:00', '2010-01-17', 'd', 'nrrzcgygjplgttf', 472.844369, 799.528036, 3135.292842),
(18, 180, 1800, 18000, 1800000, '2028-01-01 00:00:00', '2010-01-18', 'e', 'wfknyaxplas', 971.549437, 844.025534, 9855.813711),
(19, 190, 1900, 19000, 1900000, '2029-01-01 00:00:00', '2010-01-19', 'f', 'qtznw', 37.568959, 502.584396, 3086.573874),
(20, 200, 2000, 20000, 2000000, '2030-01-01 00:00:00', '2010-01-20', 'i', 'nwznneizhtmzemy', 632.512198, 972.561324, 2698.863638),
(21, 210, 2100, 21000, 2100000, '2031-01-01 00:00:00', '2010-01-21', 'q', 'sqqeanrmafdoheeizljifwsj', 942.888716, 933.754744, 5185.373039),
(22, 220, 2200, 22000, 2200000, '2032-01-01 00:00:00', '2010-01-22', 'h', 'tirlgqmwrchusfyxitxttvxlioknz', 654.955955, 69.032071, 6221.348291),
(23, 230, 2300, 23000, 2300000, '2033-01-01 00:00:00', '2010-01-23', 's', 'imnrusvqy', 468.780338, 24.626005, 7481.574657),
(24, 240, 2400, 24000, 2400000, '2034-01-01 00:00:00', '2010-01-24', 's', 'irpbe', 537.906124, 396.750845, 3585.208809),
(25, 250, 2500, 25000, 2500000, '2035-01-01 00:00:00', '2010-01-25', 'w', 'drpjerrdlel', 662.123247, 202.007097, 6982.796060),
(26, 260, 2600, 26000, 2600000, '2036-01-01 00:00:00', '2010-01-26', 'v', 'vmzutsaifmlimicshgjpsvhiowjnq', 115.145598, 64.115478, 3046.839203),
(27, 270, 2700, 27000, 2700000, '2037-01-01 00:00:00', '2010-01-27', 'd', 'yrxspxgcwgbnjnmqkcido', 362.227207, 519.383701, 9921.135045),
(28, 280, 2800, 28000, 2800000, '2038-01-01 00:00:00', '2010-01-28', 'w', 'udfzebgnnxfjnoujtvlib', 443.030856, 998.471600, 4633.258698),
(29, 290, 2900, 29000, 2900000, '2039-01-01 00:00:00', '2010-01-29', 'p', 'jfgvke', 8.602754, 248.265099, 5465.010345),
(30, 300, 3000, 30000, 3000000, '2040-01-01 00:00:00', '2010-01-30', 'd', 'tbuvpobzluhbwkljlhwnrkrhowybk', 949.575593, 976.266490, 2579.668636);
sync;
-- resultFile "./multi_partition/partition_table.out"
-- !load_test_drop_partition_2
select * from test_drop_partition_2 order by k1, k2;
-- drop partition times
ALTER TABLE test_drop_partition_2 DROP PARTITION partition_a;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_2 WHERE PartitionName = 'partition_a';
-- !sql6
select * from test_drop_partition_2 order by k1;
ALTER TABLE test_drop_partition_2 ADD PARTITION add_1 VALUES LESS THAN ("5000");
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_drop_partition_2 WHERE PartitionName = 'add_1';
ALTER TABLE test_drop_partition_2 ADD PARTITION add_2 VALUES LESS THAN ("6000");
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_drop_partition_2 WHERE PartitionName = 'add_2';
ALTER TABLE test_drop_partition_2 DROP PARTITION partition_c;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_2 WHERE PartitionName = 'partition_c';
-- !sql7
select * from test_drop_partition_2 order by k1;
ALTER TABLE test_drop_partition_2 DROP PARTITION partition_e;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_2 WHERE PartitionName = 'partition_e';
-- !sql8
select * from test_drop_partition_2 order by k1;
ALTER TABLE test_drop_partition_2 ADD PARTITION add_3 VALUES LESS THAN MAXVALUE;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_drop_partition_2 WHERE PartitionName = 'add_3';
ALTER TABLE test_drop_partition_2 DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_drop_partition_2 WHERE PartitionName = 'partition_g';
-- !sql9
select * from test_drop_partition_2 order by k1;

-- drop partition, add partition, times

DROP TABLE IF EXISTS test_add_drop_partition_times;
CREATE TABLE IF NOT EXISTS test_add_drop_partition_times (
  k1 TINYINT NOT NULL,
  k2 SMALLINT NOT NULL,
  k3 INT NOT NULL,
  k4 BIGINT NOT NULL,
  k5 LARGEINT NOT NULL,
  k6 DATETIME NOT NULL,
  v1 DATE REPLACE NOT NULL,
  v2 CHAR REPLACE NOT NULL,
  v3 VARCHAR(4096) REPLACE NOT NULL,
  v4 FLOAT SUM NOT NULL,
  v5 DOUBLE SUM NOT NULL,
  v6 DECIMAL(20,7) SUM NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5,k6)
PARTITION BY RANGE(k3)(
  PARTITION partition_a VALUES LESS THAN ("300"),
  PARTITION partition_b VALUES LESS THAN ("500"),
  PARTITION partition_c VALUES LESS THAN ("900"),
  PARTITION partition_d VALUES LESS THAN ("2200"),
  PARTITION partition_e VALUES LESS THAN ("2300"),
  PARTITION partition_f VALUES LESS THAN ("3800"),
  PARTITION partition_g VALUES LESS THAN ("4000") )
DISTRIBUTED BY HASH(k1) BUCKETS 13
PROPERTIES("replication_allocation" = "tag.location.default: 1");
-- streamLoad { file "partition_table.csv" }
INSERT INTO test_add_drop_partition_times VALUES
(1, 10, 100, 1000, 100000, '2011-01-01 00:00:00', '2010-01-01', 't', 'ynqnzeowymt', 38.638843, 180.998031, 7395.231067),
(2, 20, 200, 2000, 200000, '2012-01-01 00:00:00', '2010-01-02', 'f', 'hfkfwlr', 506.044046, 539.922834, 2080.504502),
(3, 30, 300, 3000, 300000, '2013-01-01 00:00:00', '2010-01-03', 't', 'uoclasp', 377.793209, 577.044148, 4605.253205),
(4, 40, 400, 4000, 400000, '2014-01-01 00:00:00', '2010-01-04', 'n', 'iswngzeodfhptjzgswsddt', 871.354536, 919.067864, 7291.703724),
(5, 50, 500, 5000, 500000, '2015-01-01 00:00:00', '2010-01-05', 'a', 'sqodagzlyrmcelyxgcgcsfuxadcdt', 462.067902, 929.660783, 3903.906901),
(6, 60, 600, 6000, 600000, '2016-01-01 00:00:00', '2010-01-06', 'm', 'obdrei', 921.867848, 882.708491, 6514.405051),
(7, 70, 700, 7000, 700000, '2017-01-01 00:00:00', '2010-01-07', 'a', 'cuobdhvrgkugknj', 141.656421, 209.420112, 8604.198677),
(8, 80, 800, 8000, 800000, '2018-01-01 00:00:00', '2010-01-08', 'z', 'phcxztwgjllhmj', 762.813376, 285.664871, 7784.859446),
(9, 90, 900, 9000, 900000, '2019-01-01 00:00:00', '2010-01-09', 'b', 'nbarqjwilbkelk', 92.702403, 535.285510, 4846.735593),
(10, 100, 1000, 10000, 1000000, '2020-01-01 00:00:00', '2010-01-10', 's', 'zucprgdnlgzzfl', 26.874738, 155.861217, 7996.434686),
(11, 110, 1100, 11000, 1100000, '2021-01-01 00:00:00', '2010-01-11', 'j', 'zabbwiimqemk', 369.819134, 558.999245, 3821.278705),
(12, 120, 1200, 12000, 1200000, '2022-01-01 00:00:00', '2010-01-12', 'd', 'elvkhacywhdzrazcvyunkjajnx', 536.045037, 181.877653, 9334.300973),
(13, 130, 1300, 13000, 1300000, '2023-01-01 00:00:00', '2010-01-13', 'x', 'cylgmxlmkkrkk', 990.836863, 909.667873, 9103.804406),
(14, 140, 1400, 14000, 1400000, '2024-01-01 00:00:00', '2010-01-14', 's', 'vpzwml', 763.615167, 295.541079, 9823.062496),
(15, 150, 1500, 15000, 1500000, '2025-01-01 00:00:00', '2010-01-15', 'f', 'yvvstxajxtgrimmrveljjbwo', 380.419929, 391.329557, 5859.241974),
(16, 160, 1600, 16000, 1600000, '2026-01-01 00:00:00', '2010-01-16', 'b', 'yxtowesbeqyejvpfhkixpdw', 312.933953, 328.666079, 9430.138013),
(17, 170, 1700, 17000, 1700000, '2027-01-01 00:00:00', '2010-01-17', 'd', 'nrrzcgygjplgttf', 472.844369, 799.528036, 3135.292842),
(18, 180, 1800, 18000, 1800000, '2028-01-01 00:00:00', '2010-01-18', 'e', 'wfknyaxplas', 971.549437, 844.025534, 9855.813711),
(19, 190, 1900, 19000, 1900000, '2029-01-01 00:00:00', '2010-01-19', 'f', 'qtznw', 37.568959, 502.584396, 3086.573874),
(20, 200, 2000, 20000, 2000000, '2030-01-01 00:00:00', '2010-01-20', 'i', 'nwznneizhtmzemy', 632.512198, 972.561324, 2698.863638),
(21, 210, 2100, 21000, 2100000, '2031-01-01 00:00:00', '2010-01-21', 'q', 'sqqeanrmafdoheeizljifwsj', 942.888716, 933.754744, 5185.373039),
(22, 220, 2200, 22000, 2200000, '2032-01-01 00:00:00', '2010-01-22', 'h', 'tirlgqmwrchusfyxitxttvxlioknz', 654.955955, 69.032071, 6221.348291),
(23, 230, 2300, 23000, 2300000, '2033-01-01 00:00:00', '2010-01-23', 's', 'imnrusvqy', 468.780338, 24.626005, 7481.574657),
(24, 240, 2400, 24000, 2400000, '2034-01-01 00:00:00', '2010-01-24', 's', 'irpbe', 537.906124, 396.750845, 3585.208809),
(25, 250, 2500, 25000, 2500000, '2035-01-01 00:00:00', '2010-01-25', 'w', 'drpjerrdlel', 662.123247, 202.007097, 6982.796060),
(26, 260, 2600, 26000, 2600000, '2036-01-01 00:00:00', '2010-01-26', 'v', 'vmzutsaifmlimicshgjpsvhiowjnq', 115.145598, 64.115478, 3046.839203),
(27, 270, 2700, 27000, 2700000, '2037-01-01 00:00:00', '2010-01-27', 'd', 'yrxspxgcwgbnjnmqkcido', 362.227207, 519.383701, 9921.135045),
(28, 280, 2800, 28000, 2800000, '2038-01-01 00:00:00', '2010-01-28', 'w', 'udfzebgnnxfjnoujtvlib', 443.030856, 998.471600, 4633.258698),
(29, 290, 2900, 29000, 2900000, '2039-01-01 00:00:00', '2010-01-29', 'p', 'jfgvke', 8.602754, 248.265099, 5465.010345),
(30, 300, 3000, 30000, 3000000, '2040-01-01 00:00:00', '2010-01-30', 'd', 'tbuvpobzluhbwkljlhwnrkrhowybk', 949.575593, 976.266490, 2579.668636);
sync;
-- resultFile "./multi_partition/partition_table.out"
-- !load_test_add_drop_partition_times
select * from test_add_drop_partition_times order by k1, k2;
-- for (int repeat_times = 0; repeat_times < 10; repeat_times++) { ... }
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 17;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 251;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 3;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 120;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 299;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 64;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 1;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 188;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 42;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times DROP PARTITION partition_g;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
ALTER TABLE test_add_drop_partition_times ADD PARTITION partition_g VALUES LESS THAN ('4000') DISTRIBUTED BY HASH(k1) BUCKETS 300;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times WHERE PartitionName = 'partition_g';
-- test { resultFile "./multi_partition/partition_table.out" }
-- !after_times
select * from test_add_drop_partition_times order by k1, k2;

-- add multi partitions and drop

DROP TABLE IF EXISTS test_add_drop_partition_times_1;
CREATE TABLE IF NOT EXISTS test_add_drop_partition_times_1 (
  k1 TINYINT NOT NULL,
  k2 SMALLINT NOT NULL,
  k3 INT NOT NULL,
  k4 BIGINT NOT NULL,
  k5 LARGEINT NOT NULL,
  k6 DATETIME NOT NULL,
  v1 DATE REPLACE NOT NULL,
  v2 CHAR REPLACE NOT NULL,
  v3 VARCHAR(4096) REPLACE NOT NULL,
  v4 FLOAT SUM NOT NULL,
  v5 DOUBLE SUM NOT NULL,
  v6 DECIMAL(20,7) SUM NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5,k6)
PARTITION BY RANGE(k3)(
  PARTITION partition_a VALUES LESS THAN ("300"),
  PARTITION partition_b VALUES LESS THAN ("500"),
  PARTITION partition_c VALUES LESS THAN ("900"),
  PARTITION partition_d VALUES LESS THAN ("2200"),
  PARTITION partition_e VALUES LESS THAN ("2300"),
  PARTITION partition_f VALUES LESS THAN ("3800"),
  PARTITION partition_g VALUES LESS THAN ("4000") )
DISTRIBUTED BY HASH(k1) BUCKETS 13
PROPERTIES("replication_allocation" = "tag.location.default: 1");
-- streamLoad { file "partition_table.csv" }
INSERT INTO test_add_drop_partition_times_1 VALUES
(1, 10, 100, 1000, 100000, '2011-01-01 00:00:00', '2010-01-01', 't', 'ynqnzeowymt', 38.638843, 180.998031, 7395.231067),
(2, 20, 200, 2000, 200000, '2012-01-01 00:00:00', '2010-01-02', 'f', 'hfkfwlr', 506.044046, 539.922834, 2080.504502),
(3, 30, 300, 3000, 300000, '2013-01-01 00:00:00', '2010-01-03', 't', 'uoclasp', 377.793209, 577.044148, 4605.253205),
(4, 40, 400, 4000, 400000, '2014-01-01 00:00:00', '2010-01-04', 'n', 'iswngzeodfhptjzgswsddt', 871.354536, 919.067864, 7291.703724),
(5, 50, 500, 5000, 500000, '2015-01-01 00:00:00', '2010-01-05', 'a', 'sqodagzlyrmcelyxgcgcsfuxadcdt', 462.067902, 929.660783, 3903.906901),
(6, 60, 600, 6000, 600000, '2016-01-01 00:00:00', '2010-01-06', 'm', 'obdrei', 921.867848, 882.708491, 6514.405051),
(7, 70, 700, 7000, 700000, '2017-01-01 00:00:00', '2010-01-07', 'a', 'cuobdhvrgkugknj', 141.656421, 209.420112, 8604.198677),
(8, 80, 800, 8000, 800000, '2018-01-01 00:00:00', '2010-01-08', 'z', 'phcxztwgjllhmj', 762.813376, 285.664871, 7784.859446),
(9, 90, 900, 9000, 900000, '2019-01-01 00:00:00', '2010-01-09', 'b', 'nbarqjwilbkelk', 92.702403, 535.285510, 4846.735593),
(10, 100, 1000, 10000, 1000000, '2020-01-01 00:00:00', '2010-01-10', 's', 'zucprgdnlgzzfl', 26.874738, 155.861217, 7996.434686),
(11, 110, 1100, 11000, 1100000, '2021-01-01 00:00:00', '2010-01-11', 'j', 'zabbwiimqemk', 369.819134, 558.999245, 3821.278705),
(12, 120, 1200, 12000, 1200000, '2022-01-01 00:00:00', '2010-01-12', 'd', 'elvkhacywhdzrazcvyunkjajnx', 536.045037, 181.877653, 9334.300973),
(13, 130, 1300, 13000, 1300000, '2023-01-01 00:00:00', '2010-01-13', 'x', 'cylgmxlmkkrkk', 990.836863, 909.667873, 9103.804406),
(14, 140, 1400, 14000, 1400000, '2024-01-01 00:00:00', '2010-01-14', 's', 'vpzwml', 763.615167, 295.541079, 9823.062496),
(15, 150, 1500, 15000, 1500000, '2025-01-01 00:00:00', '2010-01-15', 'f', 'yvvstxajxtgrimmrveljjbwo', 380.419929, 391.329557, 5859.241974),
(16, 160, 1600, 16000, 1600000, '2026-01-01 00:00:00', '2010-01-16', 'b', 'yxtowesbeqyejvpfhkixpdw', 312.933953, 328.666079, 9430.138013),
(17, 170, 1700, 17000, 1700000, '2027-01-01 00:00:00', '2010-01-17', 'd', 'nrrzcgygjplgttf', 472.844369, 799.528036, 3135.292842),
(18, 180, 1800, 18000, 1800000, '2028-01-01 00:00:00', '2010-01-18', 'e', 'wfknyaxplas', 971.549437, 844.025534, 9855.813711),
(19, 190, 1900, 19000, 1900000, '2029-01-01 00:00:00', '2010-01-19', 'f', 'qtznw', 37.568959, 502.584396, 3086.573874),
(20, 200, 2000, 20000, 2000000, '2030-01-01 00:00:00', '2010-01-20', 'i', 'nwznneizhtmzemy', 632.512198, 972.561324, 2698.863638),
(21, 210, 2100, 21000, 2100000, '2031-01-01 00:00:00', '2010-01-21', 'q', 'sqqeanrmafdoheeizljifwsj', 942.888716, 933.754744, 5185.373039),
(22, 220, 2200, 22000, 2200000, '2032-01-01 00:00:00', '2010-01-22', 'h', 'tirlgqmwrchusfyxitxttvxlioknz', 654.955955, 69.032071, 6221.348291),
(23, 230, 2300, 23000, 2300000, '2033-01-01 00:00:00', '2010-01-23', 's', 'imnrusvqy', 468.780338, 24.626005, 7481.574657),
(24, 240, 2400, 24000, 2400000, '2034-01-01 00:00:00', '2010-01-24', 's', 'irpbe', 537.906124, 396.750845, 3585.208809),
(25, 250, 2500, 25000, 2500000, '2035-01-01 00:00:00', '2010-01-25', 'w', 'drpjerrdlel', 662.123247, 202.007097, 6982.796060),
(26, 260, 2600, 26000, 2600000, '2036-01-01 00:00:00', '2010-01-26', 'v', 'vmzutsaifmlimicshgjpsvhiowjnq', 115.145598, 64.115478, 3046.839203),
(27, 270, 2700, 27000, 2700000, '2037-01-01 00:00:00', '2010-01-27', 'd', 'yrxspxgcwgbnjnmqkcido', 362.227207, 519.383701, 9921.135045),
(28, 280, 2800, 28000, 2800000, '2038-01-01 00:00:00', '2010-01-28', 'w', 'udfzebgnnxfjnoujtvlib', 443.030856, 998.471600, 4633.258698),
(29, 290, 2900, 29000, 2900000, '2039-01-01 00:00:00', '2010-01-29', 'p', 'jfgvke', 8.602754, 248.265099, 5465.010345),
(30, 300, 3000, 30000, 3000000, '2040-01-01 00:00:00', '2010-01-30', 'd', 'tbuvpobzluhbwkljlhwnrkrhowybk', 949.575593, 976.266490, 2579.668636);
sync;
-- resultFile "./multi_partition/partition_table.out"
-- !load_test_add_drop_partition_times_1
select * from test_add_drop_partition_times_1 order by k1, k2;
-- for (int repeat_times = 1; repeat_times < 30; repeat_times++) { ADD ... }
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_1 VALUES LESS THAN ('4010') DISTRIBUTED BY HASH(k1) BUCKETS 38;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_1';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_2 VALUES LESS THAN ('4020') DISTRIBUTED BY HASH(k1) BUCKETS 75;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_2';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_3 VALUES LESS THAN ('4030') DISTRIBUTED BY HASH(k1) BUCKETS 112;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_3';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_4 VALUES LESS THAN ('4040') DISTRIBUTED BY HASH(k1) BUCKETS 149;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_4';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_5 VALUES LESS THAN ('4050') DISTRIBUTED BY HASH(k1) BUCKETS 186;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_5';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_6 VALUES LESS THAN ('4060') DISTRIBUTED BY HASH(k1) BUCKETS 223;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_6';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_7 VALUES LESS THAN ('4070') DISTRIBUTED BY HASH(k1) BUCKETS 260;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_7';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_8 VALUES LESS THAN ('4080') DISTRIBUTED BY HASH(k1) BUCKETS 297;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_8';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_9 VALUES LESS THAN ('4090') DISTRIBUTED BY HASH(k1) BUCKETS 34;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_9';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_10 VALUES LESS THAN ('4100') DISTRIBUTED BY HASH(k1) BUCKETS 71;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_10';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_11 VALUES LESS THAN ('4110') DISTRIBUTED BY HASH(k1) BUCKETS 108;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_11';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_12 VALUES LESS THAN ('4120') DISTRIBUTED BY HASH(k1) BUCKETS 145;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_12';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_13 VALUES LESS THAN ('4130') DISTRIBUTED BY HASH(k1) BUCKETS 182;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_13';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_14 VALUES LESS THAN ('4140') DISTRIBUTED BY HASH(k1) BUCKETS 219;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_14';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_15 VALUES LESS THAN ('4150') DISTRIBUTED BY HASH(k1) BUCKETS 256;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_15';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_16 VALUES LESS THAN ('4160') DISTRIBUTED BY HASH(k1) BUCKETS 293;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_16';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_17 VALUES LESS THAN ('4170') DISTRIBUTED BY HASH(k1) BUCKETS 30;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_17';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_18 VALUES LESS THAN ('4180') DISTRIBUTED BY HASH(k1) BUCKETS 67;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_18';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_19 VALUES LESS THAN ('4190') DISTRIBUTED BY HASH(k1) BUCKETS 104;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_19';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_20 VALUES LESS THAN ('4200') DISTRIBUTED BY HASH(k1) BUCKETS 141;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_20';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_21 VALUES LESS THAN ('4210') DISTRIBUTED BY HASH(k1) BUCKETS 178;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_21';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_22 VALUES LESS THAN ('4220') DISTRIBUTED BY HASH(k1) BUCKETS 215;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_22';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_23 VALUES LESS THAN ('4230') DISTRIBUTED BY HASH(k1) BUCKETS 252;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_23';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_24 VALUES LESS THAN ('4240') DISTRIBUTED BY HASH(k1) BUCKETS 289;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_24';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_25 VALUES LESS THAN ('4250') DISTRIBUTED BY HASH(k1) BUCKETS 26;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_25';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_26 VALUES LESS THAN ('4260') DISTRIBUTED BY HASH(k1) BUCKETS 63;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_26';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_27 VALUES LESS THAN ('4270') DISTRIBUTED BY HASH(k1) BUCKETS 100;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_27';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_28 VALUES LESS THAN ('4280') DISTRIBUTED BY HASH(k1) BUCKETS 137;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_28';
ALTER TABLE test_add_drop_partition_times_1 ADD PARTITION partition_add_29 VALUES LESS THAN ('4290') DISTRIBUTED BY HASH(k1) BUCKETS 174;
-- checkTablePartitionExists
-- rows 1
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_29';
-- for (int repeat_times = 1; repeat_times < 30; repeat_times++) { DROP ... }
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_1;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_1';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_2;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_2';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_3;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_3';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_4;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_4';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_5;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_5';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_6;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_6';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_7;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_7';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_8;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_8';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_9;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_9';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_10;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_10';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_11;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_11';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_12;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_12';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_13;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_13';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_14;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_14';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_15;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_15';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_16;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_16';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_17;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_17';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_18;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_18';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_19;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_19';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_20;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_20';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_21;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_21';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_22;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_22';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_23;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_23';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_24;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_24';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_25;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_25';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_26;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_26';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_27;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_27';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_28;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_28';
ALTER TABLE test_add_drop_partition_times_1 DROP PARTITION partition_add_29;
-- checkTablePartitionNotExists
-- rows 0
SHOW PARTITIONS FROM test_add_drop_partition_times_1 WHERE PartitionName = 'partition_add_29';
-- test { resultFile "./multi_partition/partition_table.out" }
-- !after_times_1
select * from test_add_drop_partition_times_1 order by k1, k2;

-- add partition to non partition table
CREATE TABLE IF NOT EXISTS test_non_partition_tbl (
  k1 TINYINT NOT NULL,
  k2 SMALLINT NOT NULL,
  k3 INT NOT NULL,
  k4 BIGINT NOT NULL,
  k5 DATETIME NOT NULL,
  v1 DATE REPLACE NOT NULL,
  v2 CHAR REPLACE NOT NULL,
  v3 VARCHAR(4096) REPLACE NOT NULL,
  v4 FLOAT SUM NOT NULL,
  v5 DOUBLE SUM NOT NULL,
  v6 DECIMAL(20,7) SUM NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5) DISTRIBUTED BY HASH(k1) BUCKETS 13
PROPERTIES("replication_allocation" = "tag.location.default: 1");
-- exception
ALTER TABLE test_non_partition_tbl ADD PARTITION add_1 VALUES LESS THAN ("2147483647")
        DISTRIBUTED BY HASH(k1, k2) BUCKETS 13;
-- try
DROP TABLE IF EXISTS test_add_partition_1;
-- try
DROP TABLE IF EXISTS test_drop_partition_1;
-- try
DROP TABLE IF EXISTS test_drop_partition_2;
-- try
DROP TABLE IF EXISTS test_add_drop_partition_times_1;
-- try
DROP TABLE IF EXISTS test_add_drop_partition_times_2;
-- try
DROP TABLE IF EXISTS test_non_partition_tbl;
