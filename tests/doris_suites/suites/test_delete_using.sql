-- Apache Doris regression suite "test_delete_using", translated for dorisql by hand.
-- Source:   regression-test/suites/delete_p0/test_delete_using.groovy
-- Expected: regression-test/data/delete_p0/test_delete_using.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- DELETE FROM a UNIQUE table USING a join of two other tables, the target named and aliased.

CREATE DATABASE IF NOT EXISTS regression_test_delete_p0;
USE regression_test_delete_p0;

DROP TABLE IF EXISTS test_delete_unique_1;
DROP TABLE IF EXISTS test_delete_unique_2;
DROP TABLE IF EXISTS test_delete_unique_3;
DROP TABLE IF EXISTS test_delete_unique_4;

-- test complex update syntax
create table test_delete_unique_1 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1');
create table test_delete_unique_2 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1');
create table test_delete_unique_3 (id int) distributed by hash (id) properties('replication_num'='1');
create table test_delete_unique_4 (id int) distributed by hash (id) properties('replication_num'='1');
insert into test_delete_unique_1 values(1, 1, '1', 1.0, '2000-01-01'),(2, 2, '2', 2.0, '2000-01-02'),(3, 3, '3', 3.0, '2000-01-03');
insert into test_delete_unique_2 values(1, 10, '10', 10.0, '2000-01-10'),(2, 20, '20', 20.0, '2000-01-20'),(3, 30, '30', 30.0, '2000-01-30'),(4, 4, '4', 4.0, '2000-01-04'),(5, 5, '5', 5.0, '2000-01-05');
insert into test_delete_unique_3 values(1), (4), (5);
insert into test_delete_unique_4 values(2), (4), (5);

DELETE FROM test_delete_unique_1 USING test_delete_unique_2 inner join test_delete_unique_3 on test_delete_unique_2.id = test_delete_unique_3.id where test_delete_unique_1.id = test_delete_unique_2.id;

-- !complex_delete
select * from test_delete_unique_1 order by id;

DELETE FROM test_delete_unique_1 t1a USING test_delete_unique_2 inner join test_delete_unique_4 on test_delete_unique_2.id = test_delete_unique_4.id where t1a.id = test_delete_unique_2.id;

-- !complex_delete_alias
select * from test_delete_unique_1 order by id;

DROP TABLE IF EXISTS test_delete_unique_1;
DROP TABLE IF EXISTS test_delete_unique_2;
DROP TABLE IF EXISTS test_delete_unique_3;
DROP TABLE IF EXISTS test_delete_unique_4;
