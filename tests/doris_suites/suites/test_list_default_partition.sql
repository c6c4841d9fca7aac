-- Apache Doris regression suite "test_list_default_partition", translated for dorisql by hand.
-- Source:   regression-test/suites/partition_p0/list_partition/test_list_default_partition.groovy
-- Expected: regression-test/data/partition_p0/list_partition/test_list_default_partition.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)

-- The regression framework runs each suite in a database named after its group.
CREATE DATABASE IF NOT EXISTS regression_test_partition_p0_list_partition;
USE regression_test_partition_p0_list_partition;

drop table if exists list_default_par;
CREATE TABLE IF NOT EXISTS list_default_par (
    k1 tinyint NOT NULL,
    k2 smallint NOT NULL,
    k3 int NOT NULL,
    k4 bigint NOT NULL,
    k5 decimal(9, 3) NOT NULL,
    k8 double max NOT NULL,
    k9 float sum NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5)
PARTITION BY LIST(k1) (
    PARTITION p1 VALUES IN ("1","2","3","4"),
    PARTITION p2 VALUES IN ("5","6","7","8"),
    PARTITION p3 )
DISTRIBUTED BY HASH(k1) BUCKETS 5 properties("replication_num" = "1");

insert into list_default_par values (1,1,1,1,24453.325,1,1);
-- the following two rows should be inserted into default partition successfully
insert into list_default_par values (10,1,1,1,24453.325,1,1);
insert into list_default_par values (11,1,1,1,24453.325,1,1);
-- !sql
select * from list_default_par order by k1;

-- assertEquals(result1.size(), 3)
-- rows 3
show partitions from list_default_par;

-- alter table create one more default partition
-- exception errCode = 2, detailMessage = Invalid list value format: errCode = 2, detailMessage = The partition key
alter table list_default_par add partition p5;

alter table list_default_par drop partition p3;

drop table list_default_par;


-- create one table without default partition
CREATE TABLE IF NOT EXISTS list_default_par (
    k1 tinyint NOT NULL,
    k2 smallint NOT NULL,
    k3 int NOT NULL,
    k4 bigint NOT NULL,
    k5 decimal(9, 3) NOT NULL,
    k8 double max NOT NULL,
    k9 float sum NOT NULL )
AGGREGATE KEY(k1,k2,k3,k4,k5)
PARTITION BY LIST(k1) (
    PARTITION p1 VALUES IN ("1","2","3","4"),
    PARTITION p2 VALUES IN ("5","6","7","8")
)
DISTRIBUTED BY HASH(k1) BUCKETS 5 properties("replication_num" = "1");
-- insert value which is not allowed in existing partitions
-- (Doris: a test {} with its exception check commented out)
-- try
insert into list_default_par values (10,1,1,1,24453.325,1,1);

-- alter table add default partition
alter table list_default_par add partition p3;

-- insert the formerly disallowed value
insert into list_default_par values (10,1,1,1,24453.325,1,1);

-- !sql
select * from list_default_par order by k1;
-- !sql
select * from list_default_par partition p1 order by k1;
-- !sql
select * from list_default_par partition p3 order by k1;

-- drop the default partition
alter table list_default_par drop partition p3;
-- !sql
select * from list_default_par order by k1;

-- insert value which is not allowed in existing partitions
-- try
insert into list_default_par values (10,1,1,1,24453.325,1,1);
-- !sql
select * from list_default_par order by k1;
