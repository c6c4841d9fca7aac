"""Every routing example of seed 003, in pure Python and through the Spark SQL CASE expression."""

import datetime as dt
from decimal import Decimal

import pytest

from dorisql.ast import MAXVALUE, DataType, ListPartition, RangePartition
from dorisql.partitioning import keys as K

DATE, INT, VARCHAR = DataType("DATE"), DataType("INT"), DataType("VARCHAR", (20,))
d = dt.date


def LT(name, *upper):
    return RangePartition(name=name, upper=tuple(upper))


SINGLE = K.build_ranges(
    [
        LT("p201701", "2017-02-01"),
        LT("p201702", "2017-03-01"),
        LT("p201703", "2017-04-01"),
        RangePartition("p2018", ("2019-01-01",), ("2018-01-01",)),
    ],
    [DATE],
)
SINGLE_CASES = [
    ((d(2016, 1, 1),), "p201701"),
    ((d(2017, 1, 31),), "p201701"),
    ((d(2017, 2, 1),), "p201702"),
    ((d(2017, 3, 31),), "p201703"),
    ((d(2017, 4, 1),), None),
    ((d(2018, 1, 1),), "p2018"),
    ((d(2018, 12, 31),), "p2018"),
    ((d(2019, 1, 1),), None),
]

MULTI = K.build_ranges(
    [
        LT("p201701_1000", "2017-02-01", "1000"),
        LT("p201702_2000", "2017-03-01", "2000"),
        LT("p201703_all", "2017-04-01"),
    ],
    [DATE, INT],
)
MULTI_CASES = [
    ((d(2017, 1, 1), 200), "p201701_1000"),
    ((d(2017, 1, 1), 2000), "p201701_1000"),
    ((d(2017, 2, 1), 100), "p201701_1000"),
    ((d(2017, 2, 1), 2000), "p201702_2000"),
    ((d(2017, 2, 15), 5000), "p201702_2000"),
    ((d(2017, 3, 1), 2000), "p201703_all"),
    ((d(2017, 3, 10), 1), "p201703_all"),
    ((d(2017, 4, 1), 1000), None),
    ((d(2017, 5, 1), 1000), None),
    # edges around the MIN-filled upper bound ("2017-04-01", MIN_VALUE)
    ((d(2017, 4, 1), -2147483648), None),
    ((d(2017, 3, 31), 2147483647), "p201703_all"),
    ((d(2017, 2, 1), 1000), "p201702_2000"),
    ((d(2017, 2, 1), None), "p201701_1000"),
    ((None, 5), "p201701_1000"),
]

LIST = K.build_lists(
    [
        ListPartition("p_cn", (("Beijing",), ("Shanghai",), ("Hong Kong",))),
        ListPartition("p_usa", (("New York",), ("San Francisco",))),
        ListPartition("p_jp", (("Tokyo",),)),
    ],
    [VARCHAR],
)
LIST_CASES = [
    (("Beijing",), "p_cn"),
    (("Hong Kong",), "p_cn"),
    (("San Francisco",), "p_usa"),
    (("Tokyo",), "p_jp"),
    (("London",), None),
    ((None,), None),
    (("beijing",), None),
]

MULTI_LIST = K.build_lists(
    [
        ListPartition("p1_city", (("1", "Beijing"), ("1", "Shanghai"))),
        ListPartition("p2_city", (("2", "Beijing"), ("2", "Shanghai"))),
        ListPartition("p3_city", (("3", "Beijing"), ("3", "Shanghai"))),
    ],
    [INT, VARCHAR],
)
MULTI_LIST_CASES = [
    ((1, "Beijing"), "p1_city"),
    ((1, "Shanghai"), "p1_city"),
    ((2, "Shanghai"), "p2_city"),
    ((3, "Beijing"), "p3_city"),
    ((1, "Tianjin"), None),
    ((4, "Beijing"), None),
]

# seed: NULL-valued partitions
NULL_LIST = K.build_lists([ListPartition("pX", ((None,),))], [VARCHAR], nullable=[True])
NULL_LIST_CASES = [((None,), "pX"), (("a",), None)]
NULL_RANGE = K.build_ranges([LT("p10", "10"), LT("p100", "100"), RangePartition("pMAX", (MAXVALUE,))], [INT])
NULL_RANGE_CASES = [((None,), "p10"), ((-2147483648,), "p10"), ((9,), "p10"), ((10,), "p100"), ((2147483647,), "pMAX")]
NULL_RANGE2 = K.build_ranges([RangePartition("p200", ("200",), ("100",))], [INT])
NULL_RANGE2_CASES = [((None,), None), ((100,), "p200"), ((199,), "p200"), ((200,), None), ((99,), None)]

# LARGEINT: Doris's bounds at the ends of its range (test_range_partition), beyond what
# DECIMAL(38,0) stores; the rows are what a column can hold, as Spark reads them (Decimal)
LARGEINT = DataType("LARGEINT")
TOP = 2**127 - 1
STORED = 10**38 - 1
LARGE_RANGE = K.build_ranges(
    [
        LT("partition_a", str(-TOP)),
        LT("partition_b", str(-TOP + 1)),
        LT("partition_c", "0"),
        LT("partition_d", "1"),
        LT("partition_e", str(TOP - 1)),
        LT("partition_f", str(TOP)),
    ],
    [LARGEINT],
)
LARGE_RANGE_CASES = [
    ((None,), "partition_a"),
    ((Decimal(-STORED),), "partition_c"),
    ((Decimal(-1),), "partition_c"),
    ((Decimal(0),), "partition_d"),
    ((Decimal(1),), "partition_e"),
    ((Decimal(STORED),), "partition_e"),
]
LARGE_LIST = K.build_lists(
    [
        ListPartition("p_top", ((str(TOP),), (str(-TOP - 1),))),
        ListPartition("p_stored", (("5",), (str(STORED),), (str(-STORED),))),
    ],
    [LARGEINT],
)
LARGE_LIST_CASES = [
    ((Decimal(5),), "p_stored"),
    ((Decimal(STORED),), "p_stored"),
    ((Decimal(-STORED),), "p_stored"),
    ((Decimal(6),), None),
    ((None,), None),
]

ALL = [
    ("single", SINGLE, ["`date`"], SINGLE_CASES),
    ("multi", MULTI, ["`date`", "`id`"], MULTI_CASES),
    ("list", LIST, ["`city`"], LIST_CASES),
    ("multi_list", MULTI_LIST, ["`id`", "`city`"], MULTI_LIST_CASES),
    ("null_list", NULL_LIST, ["`k0`"], NULL_LIST_CASES),
    ("null_range", NULL_RANGE, ["`k0`"], NULL_RANGE_CASES),
    ("null_range2", NULL_RANGE2, ["`k0`"], NULL_RANGE2_CASES),
    ("largeint_range", LARGE_RANGE, ["`k5`"], LARGE_RANGE_CASES),
    ("largeint_list", LARGE_LIST, ["`k5`"], LARGE_LIST_CASES),
]


@pytest.mark.parametrize("label,parts,cols,cases", ALL, ids=[a[0] for a in ALL])
def test_route(label, parts, cols, cases):
    router = K.Router(parts)
    for row, expected in cases:
        assert K.route(row, parts) == expected, (label, row)
        assert router(row) == expected, (label, row)


def test_routing_sql_shape():
    sql = K.routing_sql(SINGLE, ["`date`"])
    assert sql.startswith("CASE WHEN") and sql.endswith("ELSE CAST(NULL AS STRING) END")
    assert "DATE'2017-02-01'" in sql and "THEN 'p201701'" in sql
    lsql = K.routing_sql(MULTI_LIST, ["`id`", "`city`"])
    assert "'Beijing'" in lsql
    assert K.routing_sql([], ["x"]) == "CAST(NULL AS STRING)"
    odd = K.build_lists([ListPartition("it's", (("O'Brien",),))], [VARCHAR])
    assert "THEN 'it\\'s'" in K.routing_sql(odd, ["`c`"])


def _spark_type(t):
    from dorisql.types import spark_type

    return spark_type(t)


@pytest.mark.spark
@pytest.mark.parametrize("label,parts,cols,cases", ALL, ids=[a[0] for a in ALL])
def test_routing_sql_in_spark(spark, label, parts, cols, cases):
    """The CASE expression agrees with `route` on every seed example, NULLs included."""
    types = parts[0].range.upper.types if isinstance(parts[0], K.RangeDef) else parts[0].keys[0].types
    names = [c.strip("`") for c in cols]
    schema = ", ".join(f"`{n}` {_spark_type(t)}" for n, t in zip(names, types))
    rows = [tuple(r) for r, _ in cases]
    df = spark.createDataFrame(rows, schema)
    expr = K.routing_sql(parts, cols)
    got = [r[0] for r in df.selectExpr(expr).collect()]
    assert got == [e for _, e in cases]
