-- dorisql BUCKETS AUTO: Doris's automatic bucket estimation, and SHOW BUCKETS to see why.
-- Run it with:  dorisql -f examples/auto_bucket.sql

CREATE DATABASE IF NOT EXISTS auto_bucket_demo;
USE auto_bucket_demo;

-- The cluster BUCKETS AUTO sizes against. Without this dorisql uses the real one: Spark's
-- executors (1 node in local mode) and the free space of the warehouse volume.
-- 3 "BEs" with 2 disks of 500G each: M = 3 * (500G / 50G) * 2 = 60.
ADMIN SET FRONTEND CONFIG ("cluster_backends" = "3", "cluster_disks_per_backend" = "2", "cluster_disk_capacity" = "500G");

-- 100G per partition: /5 (compression) = 20G -> N = 20; min(M=60, N=20, 128) = 20 buckets.
CREATE TABLE IF NOT EXISTS site_visits
(
    `day` DATE NOT NULL,
    `site` VARCHAR(64) NOT NULL,
    `pv` BIGINT SUM DEFAULT "0"
)
AGGREGATE KEY(`day`, `site`)
PARTITION BY RANGE(`day`)
(
    PARTITION p20240101 VALUES LESS THAN ("2024-01-02"),
    PARTITION p20240102 VALUES LESS THAN ("2024-01-03")
)
DISTRIBUTED BY HASH(`site`) BUCKETS AUTO
PROPERTIES ("estimate_partition_size" = "100G", "replication_num" = "1");

INSERT INTO site_visits VALUES
    ('2024-01-01', 'doris.apache.org', 10), ('2024-01-01', 'spark.apache.org', 7),
    ('2024-01-02', 'doris.apache.org', 12), ('2024-01-02', 'delta.io', 3);

-- A partition added later without BUCKETS is sized from the stored size of the earlier ones
-- (EMA of up to 7 partitions): a few KB -> 1 bucket. Another one gets an explicit count.
ALTER TABLE site_visits ADD PARTITION p20240103 VALUES LESS THAN ("2024-01-04");
ALTER TABLE site_visits ADD PARTITION p20240104 VALUES LESS THAN ("2024-01-05") DISTRIBUTED BY HASH(`site`) BUCKETS 5;

INSERT INTO site_visits VALUES ('2024-01-03', 'doris.apache.org', 20), ('2024-01-04', 'delta.io', 1);

-- Each partition's own bucket count ...
SHOW PARTITIONS FROM site_visits;
-- ... and why it has it (a dorisql extension).
SHOW BUCKETS FROM site_visits;
-- The table itself stays BUCKETS AUTO.
SHOW CREATE TABLE site_visits;

-- Queries read each partition with its own count; a point query reads one bucket.
SELECT `site`, SUM(`pv`) AS pv FROM site_visits GROUP BY `site` ORDER BY `site`;
EXPLAIN SELECT * FROM site_visits WHERE `day` = '2024-01-01' AND `site` = 'doris.apache.org';
