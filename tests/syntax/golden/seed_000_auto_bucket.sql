-- Seed 000 (AutoBucket). The seed shows only the DISTRIBUTED BY clauses; they are completed
-- here into whole statements around a `site` column.
CREATE TABLE tbl_fixed_buckets (
    site VARCHAR(64),
    pv BIGINT SUM DEFAULT "0"
)
AGGREGATE KEY(site)
DISTRIBUTED BY HASH(site) BUCKETS 20;

CREATE TABLE tbl_auto_buckets (
    site VARCHAR(64),
    pv BIGINT SUM DEFAULT "0"
)
AGGREGATE KEY(site)
DISTRIBUTED BY HASH(site) BUCKETS AUTO
properties("estimate_partition_size" = "100G");
