"""What LARGEINT's storage costs: DECIMAL(38,0) (dorisql's) against BIGINT and against a
full-range alternative, STRUCT<hi BIGINT, lo BIGINT> (two's complement halves, the low half
shifted by -2^63 so that Spark's struct order is the integer order).

    python bench/largeint.py [--rows 1000000] [--master local[2]] [--repeat 3]

For each column type: the Parquet bytes per value, and the time Spark takes to sort the rows,
to sum the column and to filter a range, over the same random values (about +-2^100, which
DECIMAL(38,0) and the struct hold; BIGINT, the baseline, holds them mod 2^40, so that its sum fits).
The struct keeps order and equality but not arithmetic: its sum is left out (Spark cannot add
it without a user function), which is the point of docs/storage.md "LARGEINT".
Not a test: run it by hand.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dorisql.storage.spark import create_session  # noqa: E402

QUERIES = {
    "sort": "SELECT v FROM t ORDER BY v",
    "sum": "SELECT sum(v) FROM t",
    "range filter": "SELECT count(*) FROM t WHERE v >= {lo} AND v < {hi}",
}


def _best(spark, sql: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        spark.sql(sql).write.format("noop").mode("overwrite").save()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spark = create_session(master=args.master, app_name="dorisql-bench-largeint")
    work = Path(tempfile.mkdtemp(prefix="dorisql-bench-largeint-"))
    # random values about +-2^100: their sum stays within DECIMAL(38,0)'s +-(10^38-1)
    base = spark.range(args.rows).selectExpr(
        "CAST(xxhash64(id) AS DECIMAL(38,0)) * CAST(137438953472 AS DECIMAL(38,0))"
        " + CAST(xxhash64(id, 1) AS DECIMAL(38,0)) AS d"
    )
    columns = {
        "DECIMAL(38,0)": "d AS v",
        "BIGINT": "CAST(d % 1099511627776 AS BIGINT) AS v",
        "STRUCT<hi,lo>": (
            "named_struct('hi', CAST(floor(d / 18446744073709551616) AS BIGINT),"
            " 'lo', CAST(pmod(d, 18446744073709551616) - 9223372036854775808 AS BIGINT)) AS v"
        ),
    }
    bounds = {
        "DECIMAL(38,0)": (
            "CAST(0 AS DECIMAL(38,0))",
            "CAST('10000000000000000000000000000000000000' AS DECIMAL(38,0))",
        ),
        "BIGINT": ("0", "1000000000000000000"),
        "STRUCT<hi,lo>": (
            "named_struct('hi', 0L, 'lo', -9223372036854775808L)",
            "named_struct('hi', 542101086242752217L, 'lo', 0L)",
        ),
    }
    print(f"{args.rows} rows, master {args.master}, best of {args.repeat}")
    print(f"{'type':<16}{'bytes/value':>12}" + "".join(f"{q:>14}" for q in QUERIES))
    try:
        for name, expr in columns.items():
            path = work / name.replace("<", "_").replace(">", "_").replace(",", "_").replace("(", "_").replace(")", "_")
            base.selectExpr(expr).coalesce(1).write.parquet(str(path))
            size = sum(f.stat().st_size for f in path.glob("*.parquet"))
            spark.read.parquet(str(path)).createOrReplaceTempView("t")
            lo, hi = bounds[name]
            cells = []
            for q, sql in QUERIES.items():
                if q == "sum" and name.startswith("STRUCT"):
                    cells.append(f"{'n/a':>14}")
                    continue
                cells.append(f"{_best(spark, sql.format(lo=lo, hi=hi), args.repeat):>13.2f}s")
            print(f"{name:<16}{size / args.rows:>12.1f}" + "".join(cells))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
