"""MODIFY DISTRIBUTION's pure rules (Doris Env.modifyDefaultDistributionBucketNum) and its syntax."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.analysis.checks import modify_distribution, normalize_create_table
from dorisql.errors import AnalysisError
from dorisql.syntax import parse_one
from dorisql.syntax.generator import to_sql

TABLE = normalize_create_table(
    parse_one(
        "CREATE TABLE t (k1 INT, k2 INT, v INT) DUPLICATE KEY(k1, k2) "
        "PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ('10')) DISTRIBUTED BY HASH(K1) BUCKETS 5"
    )
)


def clause(text: str) -> ast.DistributedBy | None:
    [action] = parse_one("ALTER TABLE t MODIFY DISTRIBUTION " + text).actions
    assert isinstance(action, ast.ModifyDistribution)
    return action.distribution


@pytest.mark.parametrize(
    "text, expected",
    [
        ("DISTRIBUTED BY HASH(k1) BUCKETS 7", ast.DistributedBy("HASH", ("K1",), 7)),
        ("DISTRIBUTED BY HASH(`K1`) BUCKETS AUTO", ast.DistributedBy("HASH", ("K1",), None, auto=True)),
        ("DISTRIBUTED BY HASH(k1)", ast.DistributedBy("HASH", ("K1",), 10)),  # FeConstants.default_bucket_num
        ("", None),  # no distribution: nothing changes
    ],
)
def test_only_the_bucket_count_changes(text, expected):
    assert modify_distribution(TABLE, clause(text), colocated=False) == expected


@pytest.mark.parametrize(
    "table, text, colocated, message",
    [
        (TABLE, "DISTRIBUTED BY HASH(k1) BUCKETS 7", True, "Cannot change default bucket number of colocate table."),
        (
            normalize_create_table(parse_one("CREATE TABLE f (k INT) DISTRIBUTED BY HASH(k) BUCKETS 5")),
            "",
            False,
            "Only support change partitioned table's distribution.",
        ),
        (
            TABLE,
            "DISTRIBUTED BY RANDOM BUCKETS 7",
            False,
            "Cannot change distribution type when modify default distribution bucket num",
        ),
        (
            TABLE,
            "DISTRIBUTED BY HASH(k1, k2) BUCKETS 7",
            False,
            "Cannot assign hash distribution with different distribution cols. "
            "new is: [`k1` INT NULL, `k2` INT NULL] default is: [`k1` INT NULL]",
        ),
        (TABLE, "DISTRIBUTED BY HASH(k1) BUCKETS 0", False, "Cannot assign hash distribution buckets less than 1"),
        (TABLE, "DISTRIBUTED BY HASH(k1) BUCKETS 200000", False, "of max_bucket_num_per_partition"),
    ],
)
def test_doris_refusals(table, text, colocated, message):
    with pytest.raises(AnalysisError) as err:
        modify_distribution(table, clause(text), colocated=colocated)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE `t` MODIFY DISTRIBUTION DISTRIBUTED BY HASH(`k1`) BUCKETS 10",
        "ALTER TABLE `t` MODIFY DISTRIBUTION DISTRIBUTED BY RANDOM BUCKETS AUTO",
        "ALTER TABLE `t` MODIFY DISTRIBUTION",
    ],
)
def test_round_trip(sql):
    assert to_sql(parse_one(sql)) == sql
