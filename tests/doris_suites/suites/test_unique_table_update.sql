-- Apache Doris regression suite "test_unique_table_update", translated for dorisql by hand.
-- Source:   regression-test/suites/update/test_unique_table_update.groovy
-- Expected: regression-test/data/update/test_unique_table_update.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- UPDATE of a key column is refused and changes nothing; UPDATE of value columns applies.
-- The suite's try/catch blocks: `assertTrue(e.getMessage().contains(...))` is `-- exception`,
-- the qt_ in `finally` follows the statement.
-- Left out: its second half, the same statements under `set enable_nereids_planner=false`
-- (Doris's legacy planner; select_4 and select_5 have no block in the .out of Doris's repository).

CREATE DATABASE IF NOT EXISTS regression_test_update;
USE regression_test_update;

DROP TABLE IF EXISTS test_unique_table_update;

CREATE TABLE test_unique_table_update
    (k bigint,   v1 string, v2 string, v3 string, v4 string )
    UNIQUE KEY(k)
    DISTRIBUTED BY HASH (k)
    BUCKETS 32
    PROPERTIES(
        "replication_num" = "1",
        "enable_unique_key_merge_on_write"="true");

insert into test_unique_table_update values(1,1,1,1,1),(2,2,2,2,2),(3,3,3,3,3);
-- !select_1
select * from test_unique_table_update order by k;

set enable_nereids_planner=true;
set enable_fallback_to_original_planner=false;

-- update key is not allowed
-- exception Only value columns of unique table could be updated
update test_unique_table_update set k=1, v1=1, v2=1 where k=2;
-- !select_2
select * from test_unique_table_update order by k;

-- update value is allowed
update test_unique_table_update set v1=1, v2=1 where k=2;
-- !select_3
select * from test_unique_table_update order by k;
