"""Partition and bucket pruning decisions (pure: no Spark)."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlglot

from dorisql.bucketing.hashing import bucket_of
from dorisql.errors import AnalysisError
from dorisql.query.pruning import prune, prune_buckets, prune_partitions, select_partitions

from .conftest import col, lst, rng, table


def where(sql: str):
    return sqlglot.parse_one(f"SELECT * FROM t WHERE {sql}", read="doris").args["where"]


# A RANGE table by day, with the first partition starting at the type's minimum (holds NULLs).
RANGE_T = table(
    "t",
    [col("k", "INT"), col("d", "DATE"), col("v", "BIGINT")],
    keys=("k", "d"),
    part_kind="RANGE",
    part_cols=("d",),
    partitions=[
        rng("p0", ["0000-01-01"], ["2020-05-28"], buckets=2),
        rng("p20200528", ["2020-05-28"], ["2020-05-29"], buckets=4),
        rng("p20200529", ["2020-05-29"], ["2020-05-30"], buckets=8),
        rng("pmax", ["2020-06-01"], ["MAXVALUE"], buckets=3),
    ],
)
ALL = ("p0", "p20200528", "p20200529", "pmax")


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("d = '2020-05-29'", ("p20200529",)),
        ("d = DATE '2020-05-28'", ("p20200528",)),
        ("'2020-05-29' = d", ("p20200529",)),
        ("d = '20200529'", ("p20200529",)),
        ("d = '2020-05-30'", ()),  # in the gap [05-30, 06-01)
        ("d < '2020-05-28'", ("p0",)),
        ("d <= '2020-05-28'", ("p0", "p20200528")),
        ("d > '2020-05-28'", ("p20200529", "pmax")),
        ("d >= '2020-05-29'", ("p20200529", "pmax")),
        ("d >= '2020-05-30' AND d < '2020-06-01'", ()),
        ("d BETWEEN '2020-05-28' AND '2020-05-29'", ("p20200528", "p20200529")),
        ("d IN ('2020-05-28', '2021-01-01')", ("p20200528", "pmax")),
        ("d = '2020-05-28' OR d = '2020-05-29'", ("p20200528", "p20200529")),
        ("(d = '2020-05-28' OR k = 1)", ALL),  # OR with an unpinned branch keeps all
        ("d IS NULL", ("p0",)),  # NULL lives in the lowest partition
        ("d IS NOT NULL", ALL),
        ("d = NULL", ()),
        ("k = 5", ALL),  # not a partition column
        ("d = '2020-05-29' AND k = 5", ("p20200529",)),
        ("d != '2020-05-29'", ALL),
        ("year(d) = 2020", ALL),  # functions of the column: not understood
        ("d = CAST('2020-05-29 00:00:00' AS DATETIME)", ("p20200529",)),
        ("d = '2020-05-29 10:00:00'", ALL),  # a date against a time of day: left to Spark
        ("d = date_sub('2020-05-30', 1)", ALL),
        ("d IN (SELECT d FROM u)", ALL),
        ("NOT d = '2020-05-29'", ALL),
    ],
)
def test_range_partitions(cond, expected):
    assert prune_partitions(RANGE_T, where(cond)) == expected


def test_conjunct_list_and_none():
    assert prune_partitions(RANGE_T, None) == ALL
    conjuncts = [
        sqlglot.parse_one("d >= '2020-05-29'", read="doris"),
        sqlglot.parse_one("d < '2020-05-30'", read="doris"),
    ]
    assert prune_partitions(RANGE_T, conjuncts) == ("p20200529",)


def test_qualifiers():
    w = where("x.d = '2020-05-29' AND y.d = '2020-05-28'")
    assert prune_partitions(RANGE_T, w, qualifiers=["x"]) == ("p20200529",)
    assert prune_partitions(RANGE_T, w, qualifiers=["y"]) == ("p20200528",)
    assert prune_partitions(RANGE_T, w, qualifiers=["z"]) == ALL


def test_outer_join_side_ignores_is_null():
    assert prune_partitions(RANGE_T, where("d IS NULL"), allow_is_null=False) == ALL


INT_T = table(
    "i",
    [col("k", "INT"), col("v", "INT")],
    part_kind="RANGE",
    part_cols=("k",),
    partitions=[
        rng("p10", ["-2147483648"], ["10"]),
        rng("p100", ["10"], ["100"]),
        rng("pmax", ["100"], ["MAXVALUE"]),
    ],
)


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("k = 10", ("p100",)),
        ("k = '10'", ("p100",)),
        ("k < 10", ("p10",)),
        ("k < 10.5", ("p10", "p100")),
        ("k = 9.5", ()),
        ("k >= 100", ("pmax",)),
        ("k > -5 AND k < 3", ("p10",)),
        ("k BETWEEN 99 AND 100", ("p100", "pmax")),
        ("k IS NULL", ("p10",)),
        ("-1 > k", ("p10",)),
        ("k IN (5, 500)", ("p10", "pmax")),
        ("k = 5 AND k = 50", ()),
    ],
)
def test_int_range(cond, expected):
    assert prune_partitions(INT_T, where(cond)) == expected


def test_null_not_in_a_range_without_min_lower():
    t = table("n", [col("k", "INT")], part_kind="RANGE", part_cols=("k",), partitions=[rng("p200", ["100"], ["200"])])
    assert prune_partitions(t, where("k IS NULL")) == ()


def test_canonical_bound_text():
    # the catalog's texts, as keys.RangeDef.meta_fields writes them and routing reads them
    t = table(
        "c",
        [col("k", "INT"), col("d", "DATETIME")],
        part_kind="RANGE",
        part_cols=("d",),
        partitions=[
            rng("a", ["0000-01-01 00:00:00"], ["2020-01-01 00:00:00"]),
            rng("b", ["2020-01-01 00:00:00"], ["MAXVALUE"]),
        ],
    )
    assert prune_partitions(t, where("d = '2020-01-01 00:00:00'")) == ("b",)
    assert prune_partitions(t, where("d < '2020-01-01'")) == ("a",)
    assert prune_partitions(t, where("d >= TIMESTAMP '2019-12-31 23:59:59'")) == ("a", "b")


MULTI_T = table(
    "m",
    [col("d", "DATE"), col("id", "INT"), col("v", "INT")],
    keys=("d", "id"),
    part_kind="RANGE",
    part_cols=("d", "id"),
    dist_cols=("id",),
    partitions=[
        rng("p201701_1000", ["0000-01-01", "-2147483648"], ["2017-02-01", "1000"]),
        rng("p201702_2000", ["2017-02-01", "1000"], ["2017-03-01", "2000"]),
        rng("p201703_all", ["2017-03-01", "2000"], ["2017-04-01", "-2147483648"]),
    ],
)


@pytest.mark.parametrize(
    "cond, expected",
    [
        # The seed's examples: data -> partition.
        ("d = '2017-01-01' AND id = 200", ("p201701_1000",)),
        ("d = '2017-02-01' AND id = 100", ("p201701_1000",)),
        ("d = '2017-02-01' AND id = 2000", ("p201702_2000",)),
        ("d = '2017-02-15' AND id = 5000", ("p201702_2000",)),
        ("d = '2017-03-01' AND id = 2000", ("p201703_all",)),
        ("d = '2017-03-10' AND id = 1", ("p201703_all",)),
        ("d = '2017-04-01' AND id = 1000", ()),
        # First column only: closed at upper[0] unless the rest of upper is the minimum.
        ("d = '2017-02-01'", ("p201701_1000", "p201702_2000")),
        ("d = '2017-04-01'", ()),
        ("d = '2017-03-15'", ("p201703_all",)),
        ("id = 5", ("p201701_1000", "p201702_2000", "p201703_all")),
    ],
)
def test_multi_column_range(cond, expected):
    assert prune_partitions(MULTI_T, where(cond)) == expected


LIST_T = table(
    "l",
    [col("k", "INT"), col("city", "VARCHAR", 20), col("v", "INT")],
    keys=("k", "city"),
    part_kind="LIST",
    part_cols=("city",),
    partitions=[
        lst("p_cn", [["Beijing"], ["Shanghai"], ["Hong Kong"]]),
        lst("p_usa", [["New York"], ["San Francisco"]]),
        lst("p_jp", [["Tokyo"]]),
        lst("p_null", [[None]]),
    ],
)


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("city = 'Tokyo'", ("p_jp",)),
        ('city = "Tokyo"', ("p_jp",)),
        ("city IN ('Beijing', 'New York')", ("p_cn", "p_usa")),
        ("city = 'London'", ()),
        ("city IS NULL", ("p_null",)),
        ("city IS NOT NULL", ("p_cn", "p_usa", "p_jp")),
        ("city > 'S'", ("p_cn", "p_usa", "p_jp")),
        ("city < 'C'", ("p_cn",)),
        ("city LIKE 'B%'", ("p_cn", "p_usa", "p_jp", "p_null")),
        ("city = 1", ("p_cn", "p_usa", "p_jp", "p_null")),
    ],
)
def test_list(cond, expected):
    assert prune_partitions(LIST_T, where(cond)) == expected


MULTI_LIST = table(
    "ml",
    [col("id", "INT"), col("city", "VARCHAR", 20)],
    keys=("id", "city"),
    part_kind="LIST",
    part_cols=("id", "city"),
    dist_cols=("id",),
    partitions=[
        lst("p1_city", [["1", "Beijing"], ["1", "Shanghai"]]),
        lst("p2_city", [["2", "Beijing"], ["2", "Shanghai"]]),
        lst("p3_city", [["3", "Beijing"], ["3", "Shanghai"]]),
    ],
)


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("id = 1 AND city = 'Shanghai'", ("p1_city",)),
        ("id = 4 AND city = 'Beijing'", ()),
        ("id = 1 AND city = 'Tianjin'", ()),
        ("city = 'Beijing'", ("p1_city", "p2_city", "p3_city")),
        ("id >= 2", ("p2_city", "p3_city")),
        ("(id = 1 AND city = 'Beijing') OR (id = 3 AND city = 'Shanghai')", ("p1_city", "p3_city")),
    ],
)
def test_multi_column_list(cond, expected):
    assert prune_partitions(MULTI_LIST, where(cond)) == expected


def test_partition_clause():
    assert select_partitions(RANGE_T, ["P20200529", "p0"]) == ("p0", "p20200529")
    assert prune_partitions(RANGE_T, where("d >= '2020-05-29'"), selected=["p0", "p20200529"]) == ("p20200529",)
    with pytest.raises(AnalysisError, match="Unknown partition 'px' in table 't'"):
        select_partitions(RANGE_T, ["px"])


# ---------------------------------------------------------------------------- buckets


def test_bucket_equality_per_partition_bucket_counts():
    r = prune(RANGE_T, where("k = 7"))
    assert r.partitions == ALL
    assert r.buckets == {p.name: frozenset({bucket_of([7], ["int"], p.buckets)}) for p in RANGE_T.partitions}
    assert r.bucket_count(RANGE_T) == 4
    r = prune(RANGE_T, where("k = 7 AND d = '2020-05-29'"))
    assert r.partitions == ("p20200529",)
    assert r.buckets == {"p20200529": frozenset({bucket_of([7], ["int"], 8)})}


def test_bucket_in_and_or():
    expected = {bucket_of([v], ["int"], 8) for v in (1, 2, 3)}
    for cond in ("k IN (1, 2, 3)", "k = 1 OR k = 2 OR k = 3", "k IN (1, 2, 3, 4) AND k IN (1, 2, 3)"):
        assert prune_buckets(RANGE_T, where(cond), ["p20200529"]) == {"p20200529": frozenset(expected)}, cond


def test_bucket_needs_every_hash_column():
    t = table(
        "h",
        [col("a", "INT"), col("b", "VARCHAR", 10), col("c", "DATE")],
        keys=("a", "b", "c"),
        dist_cols=("a", "b"),
        buckets=16,
    )
    assert prune_buckets(t, where("a = 1")) is None
    assert prune_buckets(t, where("a = 1 AND c = '2020-01-01'")) is None
    assert prune_buckets(t, where("a > 1 AND b = 'x'")) is None
    assert prune_buckets(t, where("a = 1 OR b = 'x'")) is None
    got = prune_buckets(t, where("a IN (1, 2) AND b = 'x'"))
    assert got == {
        "h": frozenset({bucket_of([1, "x"], ["int", "string"], 16), bucket_of([2, "x"], ["int", "string"], 16)})
    }


def test_bucket_typed_values():
    t = table(
        "h",
        [col("d", "DATE"), col("ts", "DATETIME"), col("big", "BIGINT"), col("s", "STRING")],
        keys=("d", "ts", "big"),
        dist_cols=("d", "ts", "big"),
        buckets=32,
    )
    got = prune_buckets(t, where("d = '2020-01-02' AND ts = '2020-01-02 03:04:05' AND big = '9'"))
    expected = bucket_of(
        [dt.date(2020, 1, 2), dt.datetime(2020, 1, 2, 3, 4, 5), 9], ["date", "timestamp_ntz", "bigint"], 32
    )
    assert got == {"h": frozenset({expected})}


def test_bucket_is_null_and_random():
    got = prune_buckets(RANGE_T, where("k IS NULL"), ["p0"])
    assert got == {"p0": frozenset({bucket_of([None], ["int"], 2)})}
    rand = table("r", [col("k", "INT")], dist="RANDOM", buckets=4)
    assert prune_buckets(rand, where("k = 1")) is None
    assert prune(rand, where("k = 1")).bucket_count(rand) == 4


def test_bucket_contradiction_reads_nothing():
    assert prune_buckets(RANGE_T, where("k = 1 AND k = 2"), ["p0"]) == {"p0": frozenset()}
