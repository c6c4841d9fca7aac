-- Apache Doris regression suite "test_update_unique", translated for dorisql by hand.
-- Source:   regression-test/suites/update/test_update_unique.groovy
-- Expected: regression-test/data/update/test_update_unique.out
-- (checks: see docs/doris_suites.md; a statement without a check must succeed)
-- UPDATE of a UNIQUE KEY table (merge-on-read by default in this suite's Doris): constants,
-- expressions of the old value, IN and always-true WHERE; then UPDATE ... FROM a join of two
-- other tables, with the updated table named and aliased.

CREATE DATABASE IF NOT EXISTS regression_test_update;
USE regression_test_update;

DROP TABLE IF EXISTS test_update_unique_1;
CREATE TABLE IF NOT EXISTS test_update_unique_1 (
    k int,
    value1 int,
    value2 int,
    date_value date
)
UNIQUE KEY(k)
DISTRIBUTED BY HASH(k) BUCKETS 5 properties("replication_num" = "1");
insert into test_update_unique_1 values(1, 1, 1, '2000-01-01');
insert into test_update_unique_1 values(2, 1, 1, '2000-01-01');
UPDATE test_update_unique_1 SET value1 = 2 WHERE k=1;
UPDATE test_update_unique_1 SET value1 = value1+1 WHERE k=2;
UPDATE test_update_unique_1 SET date_value = '1999-01-01' WHERE k in (1,2);
-- !select_uniq_table
select * from test_update_unique_1 order by k;
UPDATE test_update_unique_1 SET date_value = '1998-01-01' WHERE k is null or k is not null;
-- !select_uniq_table
select * from test_update_unique_1 order by k;
-- qt_desc_uniq_table: left as a statement that must succeed, its block is in the .out as a
-- comment: this .out predates apache/doris#38012 (type names in lower case, also picked to the
-- 2.1 and 3.0 branches), so only its INT / DATE differ from today's Doris and dorisql
-- (test_update_mow's current .out checks the same DESC as int, date); Default (\N) and Extra
-- (NONE) are as dorisql shows them.
desc test_update_unique_1;
DROP TABLE test_update_unique_1;

DROP TABLE IF EXISTS test_update_unique_1;
DROP TABLE IF EXISTS test_update_unique_2;
DROP TABLE IF EXISTS test_update_unique_3;
DROP TABLE IF EXISTS test_update_unique_4;

-- test complex update syntax
create table test_update_unique_1 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1');
create table test_update_unique_2 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1');
create table test_update_unique_3 (id int) distributed by hash (id) properties('replication_num'='1');
create table test_update_unique_4 (id int) distributed by hash (id) properties('replication_num'='1');
insert into test_update_unique_1 values(1, 1, '1', 1.0, '2000-01-01'),(2, 2, '2', 2.0, '2000-01-02'),(3, 3, '3', 3.0, '2000-01-03');
insert into test_update_unique_2 values(1, 10, '10', 10.0, '2000-01-10'),(2, 20, '20', 20.0, '2000-01-20'),(3, 30, '30', 30.0, '2000-01-30'),(4, 4, '4', 4.0, '2000-01-04'),(5, 5, '5', 5.0, '2000-01-05');
insert into test_update_unique_3 values(1), (4), (5);
insert into test_update_unique_4 values(2), (4), (5);

update test_update_unique_1 set test_update_unique_1.c1 = test_update_unique_2.c1, test_update_unique_1.c3 = test_update_unique_2.c3 * 100 from test_update_unique_2 inner join test_update_unique_3 on test_update_unique_2.id = test_update_unique_3.id where test_update_unique_1.id = test_update_unique_2.id;

-- !complex_update
select * from test_update_unique_1 order by id;

update test_update_unique_1 t1a set t1a.c1 = test_update_unique_2.c1, t1a.c3 = test_update_unique_2.c3 * 100 from test_update_unique_2 inner join test_update_unique_4 on test_update_unique_2.id = test_update_unique_4.id where t1a.id = test_update_unique_2.id;

-- !complex_update_by_alias
select * from test_update_unique_1 order by id;

DROP TABLE IF EXISTS test_update_unique_1;
DROP TABLE IF EXISTS test_update_unique_2;
DROP TABLE IF EXISTS test_update_unique_3;
DROP TABLE IF EXISTS test_update_unique_4;
