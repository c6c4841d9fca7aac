-- Apache Doris regression suite "test_truncate_recover_list", translated for dorisql by hand.
-- Source:   regression-test/suites/catalog_recycle_bin_p0/test_truncate_recover_list.groovy
-- Expected: regression-test/data/catalog_recycle_bin_p0/test_truncate_recover_list.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_catalog_recycle_bin_p0;
USE regression_test_catalog_recycle_bin_p0;

drop table if exists test_truncate_recover_list;
CREATE TABLE  test_truncate_recover_list (k1 CHAR(5) NOT NULL, v1 CHAR(5) REPLACE NOT NULL )
AGGREGATE KEY(k1)
PARTITION BY LIST(k1) ( PARTITION p1 VALUES IN ("a","b"), PARTITION p2 VALUES IN ("c","d") )
DISTRIBUTED BY HASH(k1) BUCKETS 5 PROPERTIES ("replication_allocation" = "tag.location.default: 1");
insert into test_truncate_recover_list values('a', 'b');
insert into test_truncate_recover_list values('c', 'd');

SYNC;

-- !select_check_1
select * from  test_truncate_recover_list order by k1,v1;

truncate  table test_truncate_recover_list;

-- !select_check_2
select * from  test_truncate_recover_list order by k1,v1;
-- after truncate , there would be new partition created,
-- drop forcefully so that this partitions not kept in recycle bin.
ALTER TABLE test_truncate_recover_list DROP PARTITION p1 force;
ALTER TABLE test_truncate_recover_list DROP PARTITION p2 force;

recover partition p1  from test_truncate_recover_list;
recover partition p2  from test_truncate_recover_list;

-- !select_check_3
select * from  test_truncate_recover_list order by k1,v1;

truncate  table test_truncate_recover_list PARTITION(p1);
-- !select_check_4
select * from  test_truncate_recover_list order by k1,v1;
-- drop forcefully the partition which is created in the truncate partition process.
ALTER TABLE test_truncate_recover_list DROP PARTITION p1 force;
recover partition p1  from test_truncate_recover_list;
-- !select_check_5
select * from  test_truncate_recover_list order by k1,v1;
