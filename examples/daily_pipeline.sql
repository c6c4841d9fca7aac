-- A daily pipeline: an AUTO PARTITION fact table loaded from CSV day by day, a column added,
-- yesterday rebuilt with INSERT OVERWRITE, and a rollout through a temporary partition.
-- Run it with:  dorisql -f examples/daily_pipeline.sql
-- (paths in local() start at this script's folder: examples/data/pipeline/*.csv)

CREATE DATABASE IF NOT EXISTS pipeline_demo;
USE pipeline_demo;
DROP TABLE IF EXISTS orders FORCE;

-- Partitions appear as rows arrive: one per day, named p<yyyyMMddHHmmss> as in Doris.
CREATE TABLE orders
(
    `order_ts` DATETIME NOT NULL,
    `order_id` BIGINT NOT NULL,
    `shop` VARCHAR(32) NOT NULL,
    `amount` DECIMAL(10, 2) NOT NULL
)
DUPLICATE KEY(`order_ts`, `order_id`)
AUTO PARTITION BY RANGE (date_trunc(`order_ts`, 'day')) ()
DISTRIBUTED BY HASH(`order_id`) BUCKETS 2
PROPERTIES ("replication_num" = "1");

-- Day 1 and day 2 arrive: each load creates its day's partition in the same statement.
INSERT INTO orders (order_id, order_ts, shop, amount)
SELECT order_id, order_ts, shop, amount
FROM local("file_path" = "data/pipeline/orders_20240601.csv", "format" = "csv_with_names", "column_separator" = ",");

INSERT INTO orders (order_id, order_ts, shop, amount)
SELECT order_id, order_ts, shop, amount
FROM local("file_path" = "data/pipeline/orders_20240602.csv", "format" = "csv_with_names", "column_separator" = ",");

-- The source gains a column: a metadata-only schema change; rows loaded before read its DEFAULT.
ALTER TABLE orders ADD COLUMN `channel` VARCHAR(16) DEFAULT "web";

-- Day 3 arrives in the old shape ...
INSERT INTO orders (order_id, order_ts, shop, amount)
SELECT order_id, order_ts, shop, amount
FROM local("file_path" = "data/pipeline/orders_20240603.csv", "format" = "csv_with_names", "column_separator" = ",");

-- ... and is rebuilt the next morning from the corrected extract (a duplicate order removed,
-- channels filled): one atomic Delta commit replaces exactly that day's partition.
INSERT OVERWRITE TABLE orders PARTITION (p20240603000000)
SELECT order_ts, order_id, shop, amount, channel
FROM local("file_path" = "data/pipeline/orders_20240603_fixed.csv", "format" = "csv_with_names", "column_separator" = ",");

-- A re-extracted day 2 is staged in a temporary partition, checked, then swapped in atomically.
ALTER TABLE orders ADD TEMPORARY PARTITION tp20240602 VALUES [("2024-06-02 00:00:00"), ("2024-06-03 00:00:00"));

INSERT INTO orders TEMPORARY PARTITION (tp20240602)
SELECT order_ts, order_id, shop, amount, channel
FROM local("file_path" = "data/pipeline/orders_20240602_v2.csv", "format" = "csv_with_names", "column_separator" = ",");

SELECT count(*) AS staged_rows, sum(amount) AS staged_amount FROM orders TEMPORARY PARTITION (tp20240602);

ALTER TABLE orders REPLACE PARTITION (p20240602000000) WITH TEMPORARY PARTITION (tp20240602);

SHOW PARTITIONS FROM orders;

SELECT date(order_ts) AS day, channel, count(*) AS orders, sum(amount) AS amount
FROM orders
GROUP BY date(order_ts), channel
ORDER BY day, channel;
