"""Doris's DDL rules and words, through a catalog-only engine (no Spark): SYNC, ADD PARTITION's
distribution, dropping an unknown partition, ADD PARTITION on the wrong kind of table.

Each expectation is from Doris's own code or regression suites (named in each test)."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, DorisqlError

RANGE_TABLE = (
    "CREATE TABLE t (k1 TINYINT NOT NULL, k2 SMALLINT NOT NULL, k3 INT NOT NULL, v INT SUM NOT NULL) "
    "AGGREGATE KEY(k1, k2, k3) PARTITION BY RANGE(k3) ("
    'PARTITION partition_a VALUES LESS THAN ("50"), PARTITION partition_b VALUES LESS THAN ("200")) '
    'DISTRIBUTED BY HASH(k1) BUCKETS 13 PROPERTIES ("replication_allocation" = "tag.location.default: 1")'
)


@pytest.fixture
def eng(tmp_path, make_engine):
    engine = make_engine(tmp_path / "wh")
    engine.execute_sql("CREATE DATABASE d; USE d")
    yield engine
    engine.close()


def refused(engine, sql: str) -> str:
    """The message of the statement's refusal; the table is left as it was."""
    before = [(p.name, p.buckets) for p in engine.catalog.load_table("d", "t").partitions]
    with pytest.raises(DorisqlError) as e:
        engine.execute_sql(sql)
    assert [(p.name, p.buckets) for p in engine.catalog.load_table("d", "t").partitions] == before
    return e.value.message


def test_sync_is_accepted_and_does_nothing(eng):
    """Every load in Doris's suites is followed by `sql "sync"`."""
    from dorisql.shell.formatting import format_result

    (result,) = eng.execute_sql("SYNC")
    assert not result.is_query and result.affected_rows == 0 and result.message is None
    result.elapsed = 0.0
    assert format_result(result, "table") == "Query OK, 0 rows affected (0.00 sec)"  # what the shell prints
    (sync,) = eng.execute_sql("sync ; ")
    assert sync.affected_rows == 0


def test_add_partition_may_change_only_the_bucket_count(eng):
    """regression-test/suites/partition_p1/multi_partition/test_partition_operation.groovy."""
    eng.execute_sql(RANGE_TABLE)
    for n, (name, upper) in zip((20, 37, 7), (("add_2", 300), ("add_3", 400), ("add_4", 500))):
        eng.execute_sql(
            f'ALTER TABLE t ADD PARTITION {name} VALUES LESS THAN ("{upper}") DISTRIBUTED BY HASH(k1) BUCKETS {n}'
        )
    assert [(p.name, p.buckets) for p in eng.catalog.load_table("d", "t").partitions][-3:] == [
        ("add_2", 20),
        ("add_3", 37),
        ("add_4", 7),
    ]
    add = 'ALTER TABLE t ADD PARTITION add_err VALUES LESS THAN ("2147483647") DISTRIBUTED BY '
    assert refused(eng, add + "HASH(k1) BUCKETS 0") == "Cannot assign hash distribution buckets less than 1"
    assert refused(eng, add + "HASH(k1, k2) BUCKETS 13") == (
        "Cannot assign hash distribution with different distribution cols. "
        "new is: [`k1` TINYINT NOT NULL, `k2` SMALLINT NOT NULL] default is: [`k1` TINYINT NOT NULL]"
    )
    assert refused(eng, add + "HASH(k2) BUCKETS 13").startswith("Cannot assign hash distribution with different")
    assert refused(eng, add + "RANDOM BUCKETS 13") == "Cannot assign different distribution type. default is: HASH"


def test_drop_an_unknown_partition(eng):
    """Same suite: ErrorCode.ERR_DROP_PARTITION_NON_EXISTENT."""
    eng.execute_sql(RANGE_TABLE)
    assert refused(eng, "ALTER TABLE t DROP PARTITION not_exists_partition") == (
        "Error in list of partitions to not_exists_partition"
    )
    eng.execute_sql("ALTER TABLE t DROP PARTITION IF EXISTS not_exists_partition")


def test_add_partition_of_the_wrong_kind(eng):
    """regression suite test_partition_add_mismatched (ListPartitionInfo/RangePartitionInfo)."""
    eng.execute_sql(RANGE_TABLE)
    assert refused(eng, 'ALTER TABLE t ADD PARTITION p0 VALUES IN (("0"))') == (
        'Range partition expected \'VALUES [LESS THAN or [("xxx" ,...), ("xxx", ...))]\''
    )
    eng.execute_sql(
        "CREATE TABLE l (k1 INT NOT NULL, v INT) PARTITION BY LIST(k1) (PARTITION p1 VALUES IN ('1')) "
        "DISTRIBUTED BY HASH(k1) BUCKETS 1"
    )
    with pytest.raises(AnalysisError) as e:
        eng.execute_sql('ALTER TABLE l ADD PARTITION p0 VALUES [("0"), ("2"))')
    assert e.value.message == 'List partition expected \'VALUES [IN or (("xxx", "xxx"), ...)]\''


def test_add_partition_to_an_unpartitioned_table(eng):
    """InternalCatalog.addPartition."""
    eng.execute_sql("CREATE TABLE u (k1 INT, v INT) DISTRIBUTED BY HASH(k1) BUCKETS 13")
    with pytest.raises(AnalysisError) as e:
        eng.execute_sql('ALTER TABLE u ADD PARTITION add_1 VALUES LESS THAN ("2147483647")')
    assert e.value.message == "Alter table [u] failed. Not a partitioned table"


def test_decimal_partition_key_is_named_by_its_precision(eng):
    """regression suite test_range_partition (\"Column[k1] type[DECIMAL32] cannot be a range partition key\")."""
    for decimal, name in (
        ("DECIMAL(9, 3)", "DECIMAL32"),
        ("DECIMAL(18, 2)", "DECIMAL64"),
        ("DECIMAL(27, 9)", "DECIMAL128"),
    ):
        with pytest.raises(AnalysisError) as e:
            eng.execute_sql(
                f"CREATE TABLE dec (k1 {decimal} NOT NULL, v INT) PARTITION BY RANGE(k1) "
                '(PARTITION a VALUES LESS THAN ("100")) DISTRIBUTED BY HASH(k1) BUCKETS 1'
            )
        assert e.value.message == f"Column[k1] type[{name}] cannot be a range partition key."


def test_add_partition_checks_the_name_and_values_before_the_distribution(eng):
    """InternalCatalog.addPartition: an existing name (IF NOT EXISTS: nothing to do) and the
    partition values are checked before the distribution."""
    eng.execute_sql(RANGE_TABLE)
    eng.execute_sql(
        'ALTER TABLE t ADD PARTITION IF NOT EXISTS partition_a VALUES LESS THAN ("50") DISTRIBUTED BY RANDOM'
    )
    assert refused(eng, 'ALTER TABLE t ADD PARTITION p0 VALUES IN (("0")) DISTRIBUTED BY RANDOM').startswith(
        "Range partition expected"
    )


def test_clauses_of_one_alter_that_doris_refuses_together(eng):
    """Doris AlterOperations.checkConflict (AlterOpType.COMPATIBILITY_MATRIX): of the partition,
    property and rename clauses only DROP PARTITIONs share a statement; nothing changes."""
    eng.execute_sql(RANGE_TABLE)
    add = 'ADD PARTITION p3 VALUES LESS THAN ("300")'
    assert refused(eng, f"ALTER TABLE t {add}, DROP PARTITION partition_a") == (
        "Alter operation DROP_PARTITION conflicts with operation ADD_PARTITION"
    )
    assert refused(eng, f'ALTER TABLE t {add}, ADD PARTITION p4 VALUES LESS THAN ("400")') == (
        "Alter operation ADD_PARTITION conflicts with operation ADD_PARTITION"
    )
    assert refused(eng, 'ALTER TABLE t SET ("in_memory" = "false"), RENAME t2') == (
        "Alter operation RENAME conflicts with operation MODIFY_TABLE_PROPERTY"
    )


def test_several_drop_partitions_are_one_change(eng):
    """test_partition_operation.groovy: `DROP PARTITION partition_c, DROP PARTITION partition_d`.
    A name that does not exist refuses the whole statement before any partition goes."""
    eng.execute_sql(RANGE_TABLE)
    eng.execute_sql('ALTER TABLE t ADD PARTITION p3 VALUES LESS THAN ("300")')
    assert refused(eng, "ALTER TABLE t DROP PARTITION partition_a, DROP PARTITION nope") == (
        "Error in list of partitions to nope"
    )
    version = eng.catalog.load_table("d", "t").version
    eng.execute_sql("ALTER TABLE t DROP PARTITION partition_a, DROP PARTITION IF EXISTS nope, DROP PARTITION p3")
    meta = eng.catalog.load_table("d", "t")
    assert [p.name for p in meta.partitions] == ["partition_b"]
    assert meta.version == version + 1  # one catalog change for both
    assert {row[1] for row in eng.execute_sql("SHOW CATALOG RECYCLE BIN")[0].rows} >= {"partition_a", "p3"}
