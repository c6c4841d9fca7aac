"""ALTER TABLE ... MODIFY DISTRIBUTION on real Delta tables: the bucket count of partitions
created from now on (ADD PARTITION, dynamic and AUTO partitions), existing partitions untouched,
rows routed and read back by each partition's own count; Doris's refusals change nothing."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError
from dorisql.jobs import scheduler

from .conftest import delta_version, rows, run


def buckets(engine, table: str) -> dict[str, int]:
    result = run(engine, f"SHOW PARTITIONS FROM {table}")
    name, count = result.columns.index("PartitionName"), result.columns.index("Buckets")
    return {r[name]: int(r[count]) for r in result.rows}


def create_sql(engine, table: str) -> str:
    return rows(engine, f"SHOW CREATE TABLE {table}")[0][1]


def test_new_partitions_take_the_new_count_and_rows_stay_where_they_belong(engine):
    run(
        engine,
        """CREATE TABLE md_range (k1 INT NOT NULL, v1 INT) DUPLICATE KEY(k1)
        PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ('100'))
        DISTRIBUTED BY HASH(k1) BUCKETS 5""",
    )
    run(engine, "INSERT INTO md_range SELECT number, number FROM numbers('number' = '100')")
    run(engine, "ALTER TABLE md_range MODIFY DISTRIBUTION DISTRIBUTED BY HASH(k1) BUCKETS 7")
    assert buckets(engine, "md_range") == {"p1": 5}
    assert "DISTRIBUTED BY HASH(`k1`) BUCKETS 7" in create_sql(engine, "md_range")

    run(engine, "ALTER TABLE md_range ADD PARTITION p2 VALUES LESS THAN ('200')")
    run(engine, "ALTER TABLE md_range ADD PARTITION p3 VALUES LESS THAN ('300') DISTRIBUTED BY HASH(k1) BUCKETS 2")
    assert buckets(engine, "md_range") == {"p1": 5, "p2": 7, "p3": 2}

    run(engine, "INSERT INTO md_range SELECT number, number FROM numbers('number' = '300')")
    # every key found by a bucket-pruned point lookup, in partitions of 5, 7 and 2 buckets
    for k in (0, 42, 99, 100, 150, 199, 200, 299):
        assert rows(engine, f"SELECT count(*) FROM md_range WHERE k1 = {k}") == [(2 if k < 100 else 1,)]
    assert rows(engine, "SELECT count(*), sum(v1) FROM md_range") == [(400, sum(range(100)) + sum(range(300)))]
    assert rows(engine, "ADMIN CHECK TABLE md_range") == []


def test_auto_and_back(engine):
    run(
        engine,
        """CREATE TABLE md_auto (k1 INT NOT NULL, v1 INT) DUPLICATE KEY(k1)
        PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ('10'))
        DISTRIBUTED BY RANDOM BUCKETS 3""",
    )
    run(engine, "ALTER TABLE md_auto MODIFY DISTRIBUTION DISTRIBUTED BY RANDOM BUCKETS AUTO")
    assert "DISTRIBUTED BY RANDOM BUCKETS AUTO" in create_sql(engine, "md_auto")
    run(engine, "ALTER TABLE md_auto ADD PARTITION p2 VALUES LESS THAN ('20')")
    meta = engine.catalog.load_table("d", "md_auto")
    assert meta.partition("p2").bucket_decision.rule.startswith("auto")
    run(engine, "ALTER TABLE md_auto MODIFY DISTRIBUTION DISTRIBUTED BY RANDOM BUCKETS 4")
    text = create_sql(engine, "md_auto")
    assert "BUCKETS 4" in text and "BUCKETS AUTO" not in text
    run(engine, "ALTER TABLE md_auto ADD PARTITION p3 VALUES LESS THAN ('30')")
    assert buckets(engine, "md_auto")["p3"] == 4
    # no DISTRIBUTED BY: nothing changes (Doris: a null DistributionDesc)
    run(engine, "ALTER TABLE md_auto MODIFY DISTRIBUTION")
    assert "BUCKETS 4" in create_sql(engine, "md_auto")


def test_dynamic_and_auto_partitions_take_the_new_count(engine):
    run(engine, "SET dorisql_now = '2024-01-01 08:00:00'")
    run(
        engine,
        """CREATE TABLE md_dyn (d DATE NOT NULL, k INT NOT NULL) DUPLICATE KEY(d, k)
        PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(k) BUCKETS 3
        PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY",
                    "dynamic_partition.start" = "-3", "dynamic_partition.end" = "1",
                    "dynamic_partition.prefix" = "p")""",
    )
    assert buckets(engine, "md_dyn") == {"p20240101": 3, "p20240102": 3}
    run(engine, "ALTER TABLE md_dyn MODIFY DISTRIBUTION DISTRIBUTED BY HASH(k) BUCKETS 6")
    run(engine, "SET dorisql_now = '2024-01-02 08:00:00'")
    scheduler.run_pass(engine)
    assert buckets(engine, "md_dyn") == {"p20240101": 3, "p20240102": 3, "p20240103": 6}

    run(
        engine,
        """CREATE TABLE md_autop (k1 DATETIME NOT NULL, v1 INT) DUPLICATE KEY(k1)
        AUTO PARTITION BY RANGE (date_trunc(k1, 'day')) () DISTRIBUTED BY HASH(k1) BUCKETS 5""",
    )
    run(engine, "INSERT INTO md_autop VALUES ('2024-01-01', 1)")
    run(engine, "ALTER TABLE md_autop MODIFY DISTRIBUTION DISTRIBUTED BY HASH(k1) BUCKETS 8")
    run(engine, "INSERT INTO md_autop VALUES ('2024-01-02', 2), ('2024-01-01 10:00:00', 3)")
    assert buckets(engine, "md_autop") == {"p20240101000000": 5, "p20240102000000": 8}
    assert rows(engine, "SELECT v1 FROM md_autop ORDER BY v1") == [(1,), (2,), (3,)]


@pytest.mark.parametrize(
    "table, clause, message",
    [
        (
            "md_coloc",
            "DISTRIBUTED BY HASH(k1) BUCKETS 10",
            "Cannot change default bucket number of colocate table.",
        ),
        ("md_flat", "DISTRIBUTED BY HASH(k1) BUCKETS 10", "Only support change partitioned table's distribution."),
        (
            "md_cols",
            "DISTRIBUTED BY RANDOM BUCKETS 10",
            "Cannot change distribution type when modify default distribution bucket num",
        ),
        (
            "md_cols",
            "DISTRIBUTED BY HASH(k2) BUCKETS 10",
            "Cannot assign hash distribution with different distribution cols. "
            "new is: [`k2` INT NULL] default is: [`k1` INT NULL]",
        ),
        ("md_cols", "DISTRIBUTED BY HASH(k1) BUCKETS 0", "Cannot assign hash distribution buckets less than 1"),
    ],
)
def test_refusals_change_nothing(engine, table, clause, message):
    run(
        engine,
        """CREATE TABLE IF NOT EXISTS md_coloc (k1 INT, v1 INT) DUPLICATE KEY(k1)
        PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ('10'))
        DISTRIBUTED BY HASH(k1) BUCKETS 5 PROPERTIES ("colocate_with" = "md_group");
        CREATE TABLE IF NOT EXISTS md_flat (k1 INT, v1 INT) DUPLICATE KEY(k1) DISTRIBUTED BY HASH(k1) BUCKETS 5;
        CREATE TABLE IF NOT EXISTS md_cols (k1 INT, k2 INT, v1 INT) DUPLICATE KEY(k1, k2)
        PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ('10'))
        DISTRIBUTED BY HASH(k1) BUCKETS 5""",
    )
    before = engine.catalog.load_table("d", table)
    version = delta_version(engine, table)
    with pytest.raises(AnalysisError) as err:
        run(engine, f"ALTER TABLE {table} MODIFY DISTRIBUTION {clause}")
    assert str(err.value) == message
    after = engine.catalog.load_table("d", table)
    assert (after.version, after.definition) == (before.version, before.definition)
    assert delta_version(engine, table) == version
    assert "BUCKETS 5" in create_sql(engine, table)


def test_modify_distribution_goes_alone(engine):
    run(
        engine,
        """CREATE TABLE md_alone (k1 INT, v1 INT) DUPLICATE KEY(k1)
        PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ('10'))
        DISTRIBUTED BY HASH(k1) BUCKETS 5""",
    )
    with pytest.raises(AnalysisError, match="Alter operation MODIFY_DISTRIBUTION conflicts with operation"):
        run(
            engine,
            "ALTER TABLE md_alone ADD PARTITION p2 VALUES LESS THAN ('20'), "
            "MODIFY DISTRIBUTION DISTRIBUTED BY HASH(k1) BUCKETS 9",
        )
    assert buckets(engine, "md_alone") == {"p1": 5}
    assert "BUCKETS 5" in create_sql(engine, "md_alone")
