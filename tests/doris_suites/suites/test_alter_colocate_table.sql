-- Apache Doris regression suite "test_alter_colocate_table", translated for dorisql by hand.
-- Source:   regression-test/suites/schema_change_p0/test_alter_colocate_table.groovy
-- Expected: no .out in Doris (every check is an error message).
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- Left out: the wait for the groups of an earlier run to be cleaned (SHOW PROC
-- '/colocation_group' polled; each suite runs in a fresh warehouse) and
-- force_olap_table_replication_num (a regression cluster's FE config; one replica here).

CREATE DATABASE IF NOT EXISTS regression_test_schema_change_p0;
USE regression_test_schema_change_p0;

DROP TABLE IF EXISTS col_tbl1 FORCE;
DROP TABLE IF EXISTS col_tbl2 FORCE;
DROP TABLE IF EXISTS col_tbl3 FORCE;

CREATE TABLE IF NOT EXISTS col_tbl1
(
   k1 date,
   k2 int
)
ENGINE=OLAP
UNIQUE KEY (k1,k2)
DISTRIBUTED BY HASH(k2) BUCKETS 3
PROPERTIES
(
    "replication_allocation" = "tag.location.default:1",
    "colocate_with" = 'x_group_1'
);

CREATE TABLE IF NOT EXISTS col_tbl2
(
   k1 date,
   k2 int
)
ENGINE=OLAP
UNIQUE KEY (k1,k2)
PARTITION BY RANGE(k1)
(
   PARTITION p1 values less than('2020-02-01'),
   PARTITION p2 values less than('2020-03-01')
)
DISTRIBUTED BY HASH(k2) BUCKETS 3
PROPERTIES
(
    "replication_allocation" = "tag.location.default:1",
    "colocate_with" = 'x_group_2'
);

CREATE TABLE col_tbl3
(
 `uuid` varchar(255) NULL,
 `action_datetime` date NULL
)
DUPLICATE KEY(uuid)
PARTITION BY RANGE(action_datetime)()
DISTRIBUTED BY HASH(uuid) BUCKETS 3
PROPERTIES
(
    "replication_allocation" = "tag.location.default:1",
    "colocate_with" = "x_group_3",
    "dynamic_partition.enable" = "true",
    "dynamic_partition.time_unit" = "DAY",
    "dynamic_partition.end" = "3",
    "dynamic_partition.prefix" = "p",
    "dynamic_partition.buckets" = "3",
    "dynamic_partition.replication_num" = "1",
    "dynamic_partition.create_history_partition"= "true",
    "dynamic_partition.replication_allocation" = "tag.location.default:1",
    "dynamic_partition.start" = "-3"
 );

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl1 set (
     "replication_allocation" = "tag.location.default:1"
);

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl3 set (
     "dynamic_partition.replication_allocation" = "tag.location.default:1"
);

-- the suite's loop over col_tbl1, col_tbl2, col_tbl3

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl1 set (
  "default.replication_allocation" = "tag.location.default:1"
);

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl1 MODIFY PARTITION (*) set (
  "replication_allocation" = "tag.location.default:1"
);

DROP TABLE col_tbl1 FORCE;

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl2 set (
  "default.replication_allocation" = "tag.location.default:1"
);

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl2 MODIFY PARTITION (*) set (
  "replication_allocation" = "tag.location.default:1"
);

DROP TABLE col_tbl2 FORCE;

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl3 set (
  "default.replication_allocation" = "tag.location.default:1"
);

-- exception Invalid replication parameter: replication_num and replication_allocation can not be used together
ALTER TABLE col_tbl3 MODIFY PARTITION (*) set (
  "replication_allocation" = "tag.location.default:1"
);

DROP TABLE col_tbl3 FORCE;
