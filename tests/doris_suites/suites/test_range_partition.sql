-- Apache Doris regression suite "test_range_partition", translated for dorisql by hand: its
-- LARGEINT partition keys (test_largeint_partition_random, test_largeint_partition_hash).
-- Source:   regression-test/suites/partition_p0/multi_partition/test_range_partition.groovy
-- Expected: its resultFile "partition_table.out"
--           (regression-test/data/partition_p0/multi_partition/partition_table.out), one block per use
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Translation notes:
-- * only the suite's two LARGEINT tables are here (the issue: its bounds at the ends of
--   LARGEINT's range); its other key types are left for another translation;
-- * streamLoad of partition_table.csv (regression-test/data/partition_p0/multi_partition/) is an
--   INSERT of the same 30 rows: dorisql has no stream load;
-- * testPartitionTbl written out: create, load, check, SHOW PARTITIONS, drop.

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_partition_p0;
USE regression_test_partition_p0;

DROP TABLE IF EXISTS test_largeint_partition_random;
CREATE TABLE IF NOT EXISTS test_largeint_partition_random (
    k1 TINYINT NOT NULL,
    k2 SMALLINT NOT NULL,
    k3 INT NOT NULL,
    k4 BIGINT NOT NULL,
    k5 LARGEINT NOT NULL,
    k6 DATETIME NOT NULL,
    v1 DATE NOT NULL,
    v2 CHAR NOT NULL,
    v3 VARCHAR(4096) NOT NULL,
    v4 FLOAT NOT NULL,
    v5 DOUBLE NOT NULL,
    v6 DECIMAL(20,7) NOT NULL )
    DUPLICATE KEY(k1, k2, k3, k4, k5, k6)
    PARTITION BY RANGE(k5)
    ( PARTITION partition_a VALUES LESS THAN ("1000"),
      PARTITION partition_b VALUES LESS THAN ("2000"),
      PARTITION partition_c VALUES LESS THAN ("3000"),
      PARTITION partition_d VALUES LESS THAN MAXVALUE)
    DISTRIBUTED BY RANDOM BUCKETS 13
    PROPERTIES("replication_allocation" = "tag.location.default: 1");
INSERT INTO test_largeint_partition_random VALUES
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
-- resultFile "partition_table.out"
-- !test_largeint_partition_random
select * from test_largeint_partition_random order by k1, k2;
-- assertTrue(result.size() > 1): the table has its 4 partitions
-- rows 4
SHOW PARTITIONS FROM test_largeint_partition_random;
-- try
DROP TABLE test_largeint_partition_random;

DROP TABLE IF EXISTS test_largeint_partition_hash;
CREATE TABLE IF NOT EXISTS test_largeint_partition_hash (
    k1 TINYINT NOT NULL,
    k2 SMALLINT NOT NULL,
    k3 INT NOT NULL,
    k4 BIGINT NOT NULL,
    k5 LARGEINT NOT NULL,
    k6 DATETIME NOT NULL,
    v1 DATE NOT NULL,
    v2 CHAR NOT NULL,
    v3 VARCHAR(4096) NOT NULL,
    v4 FLOAT NOT NULL,
    v5 DOUBLE NOT NULL,
    v6 DECIMAL(20,7) NOT NULL )
    DUPLICATE KEY(k1, k2, k3, k4, k5, k6)
    PARTITION BY RANGE(k5)
    ( PARTITION partition_a VALUES LESS THAN ("-170141183460469231731687303715884105727"),
      PARTITION partition_b VALUES LESS THAN ("-170141183460469231731687303715884105726"),
      PARTITION partition_c VALUES LESS THAN ("0"),
      PARTITION partition_d VALUES LESS THAN ("1"),
      PARTITION partition_e VALUES LESS THAN ("170141183460469231731687303715884105726"),
      PARTITION partition_f VALUES LESS THAN ("170141183460469231731687303715884105727"))
    DISTRIBUTED BY hash(k5) BUCKETS 13
    PROPERTIES("replication_allocation" = "tag.location.default: 1");
INSERT INTO test_largeint_partition_hash VALUES
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
-- resultFile "partition_table.out"
-- !test_largeint_partition_hash
select * from test_largeint_partition_hash order by k1, k2;
-- assertTrue(result.size() > 1): the table has its 6 partitions
-- rows 6
SHOW PARTITIONS FROM test_largeint_partition_hash;
-- try
DROP TABLE test_largeint_partition_hash;
