-- Apache Doris regression suite "test_truncate_recover", translated for dorisql by hand.
-- Source:   regression-test/suites/catalog_recycle_bin_p0/test_truncate_recover.groovy
-- Expected: regression-test/data/catalog_recycle_bin_p0/test_truncate_recover.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- TRUNCATE puts the old partitions in the recycle bin and creates new ones of the same names;
-- once those are dropped with FORCE, RECOVER PARTITION brings the rows back.

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_catalog_recycle_bin_p0;
USE regression_test_catalog_recycle_bin_p0;

drop table if exists test_truncate_recover;
create table test_truncate_recover (
    `id` int(11),
    `name` varchar(128),
    `da` date
)
engine=olap
duplicate key(id)
partition by range(da)(
    PARTITION p3 VALUES LESS THAN ('2023-01-01'),
    PARTITION p4 VALUES LESS THAN ('2024-01-01'),
    PARTITION p5 VALUES LESS THAN ('2025-01-01')
)
distributed by hash(id) buckets 2
properties(
    "replication_num"="1",
    "light_schema_change"="true"
);

insert into test_truncate_recover values(1, 'a', '2022-01-02');
insert into test_truncate_recover values(2, 'a', '2023-01-02');
insert into test_truncate_recover values(3, 'a', '2024-01-02');
SYNC;

-- !select_check_1
select * from  test_truncate_recover order by id,name,da;

truncate  table test_truncate_recover;

-- !select_check_2
select * from  test_truncate_recover order by id,name,da;

-- after truncate , there would be new partition created,
-- drop forcefully so that this partitions not kept in recycle bin.
ALTER TABLE test_truncate_recover DROP PARTITION p3 force;
ALTER TABLE test_truncate_recover DROP PARTITION p4 force;
ALTER TABLE test_truncate_recover DROP PARTITION p5 force;

-- recover the data from the recycel bin , data present before truncate.
recover partition p3  from test_truncate_recover;
recover partition p4  from test_truncate_recover;
recover partition p5  from test_truncate_recover;

-- data should match whatever before truncate.
-- !select_check_3
select * from  test_truncate_recover order by id,name,da;

-- now lets test partition.
truncate  table test_truncate_recover PARTITION(p3);
-- !select_check_4
select * from  test_truncate_recover order by id,name,da;
-- drop forcefully the partition which is created in the truncate partition process.
ALTER TABLE test_truncate_recover DROP PARTITION p3 force;
-- recover data from the partition before truncate partition process.
recover partition p3  from test_truncate_recover;
-- !select_check_5
select * from  test_truncate_recover order by id,name,da;
