"""bucket_of (pure Python) must agree with Spark's pmod(hash(...), n) on every supported type."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import pytest

from dorisql.bucketing.hashing import bucket_expr_sql, bucket_of, spark_hash

pytestmark = pytest.mark.spark

rng = random.Random(20240607)

INTS = [0, 1, -1, 2, 42, 127, -128, 255, 32767, -32768, 2**31 - 1, -(2**31)] + [
    rng.randint(-(2**31), 2**31 - 1) for _ in range(60)
]
LONGS = INTS + [2**63 - 1, -(2**63), 2**40, -(2**40) + 7] + [rng.randint(-(2**63), 2**63 - 1) for _ in range(60)]
STRINGS = ["", "a", "ab", "abc", "abcd", "abcde", "héllo", "日本語テキスト", "\x00", "p20200101", "ÿ", "😀x"] + [
    "".join(rng.choice("abcxyz0189é日😀-_ ") for _ in range(rng.randint(0, 40))) for _ in range(60)
]
DATES = [dt.date(1970, 1, 1), dt.date(1969, 12, 31), dt.date(2020, 2, 29), dt.date(1, 1, 1), dt.date(9999, 12, 31)] + [
    dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-200_000, 200_000)) for _ in range(60)
]
TIMESTAMPS = [
    dt.datetime(1970, 1, 1),
    dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
    dt.datetime(2020, 5, 29, 10, 0, 0),
    dt.datetime(2038, 1, 19, 3, 14, 8, 1),
] + [dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=rng.randint(-(2**55), 2**55)) for _ in range(60)]
LARGEINTS = (
    [
        Decimal(0),
        Decimal(1),
        Decimal(-1),
        Decimal(127),
        Decimal(128),
        Decimal(-128),
        Decimal(-129),
        Decimal(255),
        Decimal(256),
        Decimal(2**63),
        Decimal(-(2**63) - 1),
        Decimal(10**38 - 1),
        Decimal(-(10**38) + 1),
    ]
    + [Decimal(rng.randint(-(10**38) + 1, 10**38 - 1)) for _ in range(60)]
    + [Decimal(rng.randint(-1000, 1000)) for _ in range(20)]
)
SMALL_DECIMALS = [Decimal("0.00"), Decimal("1.25"), Decimal("-3.10"), Decimal("12345678.99")] + [
    Decimal(rng.randint(-(10**9), 10**9)).scaleb(-2) for _ in range(30)
]

CASES = [
    ("int", INTS),
    ("smallint", [v for v in INTS if -32768 <= v <= 32767] + list(range(-300, 300, 37))),
    ("tinyint", list(range(-128, 128, 3))),
    ("bigint", LONGS),
    ("string", STRINGS),
    ("date", DATES),
    ("timestamp_ntz", TIMESTAMPS),
    ("boolean", [True, False]),
    ("decimal(38,0)", LARGEINTS),
    ("decimal(10,2)", SMALL_DECIMALS),
    ("double", [0.0, -0.0, 1.5, -2.25, 1e300, float("nan")]),
]


def _spark_hashes(spark, type_name, values, buckets):
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    # Ship values as text (exact) and cast in Spark to the declared type, as the engine does.
    def as_text(v):
        if v is None:
            return None
        if isinstance(v, dt.datetime):
            return v.isoformat(sep=" ")
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    rows = [(i, as_text(v)) for i, v in enumerate(values)]
    df = spark.createDataFrame(rows, StructType([StructField("i", LongType()), StructField("v", StringType())]))
    expr = bucket_expr_sql([f"CAST(v AS {type_name})"], str(buckets))
    out = df.select("i", F.expr(f"hash(CAST(v AS {type_name}))").alias("h"), F.expr(expr).alias("b")).collect()
    return {r.i: (r.h, r.b) for r in out}


@pytest.mark.parametrize("type_name,values", CASES, ids=[c[0] for c in CASES])
def test_bucket_of_matches_spark(spark, type_name, values):
    values = list(values) + [None]
    got = _spark_hashes(spark, type_name, values, 7)
    for i, v in enumerate(values):
        h, b = got[i]
        assert spark_hash([v], [type_name]) == h, (type_name, v)
        assert bucket_of([v], [type_name], 7) == b, (type_name, v)


def test_multi_column_and_nulls_match_spark(spark):
    from pyspark.sql import functions as F

    types = ["int", "string", "date", "bigint", "decimal(38,0)", "timestamp_ntz"]
    rows = []
    for _ in range(80):
        row = (
            rng.choice(INTS),
            rng.choice(STRINGS),
            rng.choice(DATES),
            rng.choice(LONGS),
            rng.choice(LARGEINTS),
            rng.choice(TIMESTAMPS),
        )
        row = tuple(None if rng.random() < 0.2 else v for v in row)
        rows.append(row)
    rows.append((None,) * 6)
    text = [
        (i, *(None if v is None else (v.isoformat(sep=" ") if isinstance(v, dt.datetime) else str(v)) for v in r))
        for i, r in enumerate(rows)
    ]
    df = spark.createDataFrame(text, "i long, c0 string, c1 string, c2 string, c3 string, c4 string, c5 string")
    cols = [f"CAST(c{j} AS {t})" for j, t in enumerate(types)]
    for n in (1, 8, 13):
        out = {r.i: r.b for r in df.select("i", F.expr(bucket_expr_sql(cols, str(n))).alias("b")).collect()}
        for i, r in enumerate(rows):
            assert bucket_of(list(r), types, n) == out[i], (r, n)


def test_types_matter_and_pmod_non_negative():
    assert spark_hash([1], ["int"]) != spark_hash([1], ["bigint"])
    assert all(0 <= bucket_of([v], ["int"], 5) < 5 for v in INTS)
    assert bucket_of([None], ["int"], 10) == 42 % 10
