-- Apache Doris regression suite "test_delete_nullsafe_eq", translated for dorisql by hand.
-- Source:   regression-test/suites/delete_p0/test_delete_nullsafe_eq.groovy
-- Expected: regression-test/data/delete_p0/test_delete_nullsafe_eq.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- DELETE with the null-safe equality `k1 <=> 1` on a partitioned DUPLICATE table.
-- The suite makes its own database (and drops it in a finally block, done here at the end).

DROP DATABASE IF EXISTS repro_db_delete_nullsafe_eq;
CREATE DATABASE repro_db_delete_nullsafe_eq;
USE repro_db_delete_nullsafe_eq;

CREATE TABLE t_core (
  k1 INT,
  v1 INT
)
DUPLICATE KEY(k1)
PARTITION BY RANGE(k1) (
  PARTITION p1 VALUES LESS THAN ("100")
)
DISTRIBUTED BY HASH(k1) BUCKETS 1
PROPERTIES(
  "replication_num" = "1",
  "disable_auto_compaction" = "true"
);

INSERT INTO t_core(k1, v1) VALUES (1, 10);
INSERT INTO t_core(k1, v1) VALUES (2, 20);

set delete_without_partition = true;
DELETE FROM t_core WHERE k1 <=> 1;
sync;

-- !after_delete
SELECT * FROM t_core ORDER BY k1;

set delete_without_partition = false;
DROP DATABASE IF EXISTS repro_db_delete_nullsafe_eq;
