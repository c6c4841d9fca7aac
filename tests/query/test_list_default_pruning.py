"""Partition pruning with a LIST DEFAULT partition (pure: no Spark).

Doris never prunes the default partition (nereids PartitionPruner: "we keep default partition
because it's too hard to prune it"). dorisql must not either: rows stay in the default partition
when a value partition for their values is added later (Doris moves no data, PR #15509), so a
WHERE on those values has to read both.
"""

from __future__ import annotations

import pytest
import sqlglot

from dorisql.query.pruning import prune_partitions

from .conftest import col, lst, table

T = table(
    "ld",
    [col("k1", "TINYINT"), col("v", "INT")],
    keys=("k1",),
    part_kind="LIST",
    part_cols=("k1",),
    dist_cols=("k1",),
    partitions=[
        lst("p1", [["1"], ["2"], ["3"], ["4"]]),
        lst("p2", [["5"], ["6"], ["7"], ["8"]]),
        lst("p3", []),  # the default partition
        lst("p4", [["10"]]),  # added after rows with 10 went to p3
    ],
)


def where(sql: str):
    return sqlglot.parse_one(f"SELECT * FROM t WHERE {sql}", read="doris").args["where"]


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("k1 = 1", ("p1", "p3")),
        ("k1 = 10", ("p3", "p4")),
        ("k1 = 11", ("p3",)),
        ("k1 IN (5, 6)", ("p2", "p3")),
        ("k1 > 100", ("p3",)),
        ("k1 IS NULL", ("p3",)),
        ("v = 3", ("p1", "p2", "p3", "p4")),
    ],
)
def test_the_default_partition_is_never_pruned(cond, expected):
    assert prune_partitions(T, where(cond)) == expected


def test_naming_partitions_still_selects_only_those():
    assert prune_partitions(T, where("k1 = 1"), selected=["p1"]) == ("p1",)
    assert prune_partitions(T, where("k1 = 1"), selected=["p3"]) == ("p3",)


DATES = table(
    "dd",
    [col("k", "INT"), col("d", "DATE")],
    keys=("k", "d"),
    part_kind="LIST",
    part_cols=("d",),
    partitions=[lst("p1", [["0000-01-01"], ["2000-01-01"]]), lst("p2", [["2000-11-02"]])],
)


def test_a_date_zero_list_value_prunes_like_the_others():
    assert prune_partitions(DATES, where("d = '2000-01-01'")) == ("p1",)
    assert prune_partitions(DATES, where("d = '2000-11-02'")) == ("p2",)
