"""Quick probe (not a test): DeltaStore.write vs a raw Spark partitionBy(...).parquet write.

    /work/venv/bin/python tests/storage/bench_writer.py [rows] [partitions] [buckets]

Prints seconds for each and the ratio raw/dorisql (>= 0.7 is the target).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    parts = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    buckets = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    from dorisql.bucketing.hashing import bucket_expr_sql
    from dorisql.storage.delta import DeltaStore
    from dorisql.storage.spark import create_session
    from dorisql.storage.spark_io import arrow_schema_from_spark

    spark = create_session("local[*]", conf={"spark.driver.memory": "4g", "spark.ui.showConsoleProgress": "false"})
    base = spark.range(rows).selectExpr(
        "CAST(id AS BIGINT) AS id",
        "CAST(id % 1000 AS INT) AS k",
        "concat('name-', id % 50000) AS s",
        "date_add(DATE'2020-01-01', CAST(id % 365 AS INT)) AS d",
        "CAST(id * 1.5 AS DOUBLE) AS v",
    )
    df = base.selectExpr(
        "*",
        f"concat('p', CAST(id % {parts} AS STRING)) AS __partition",
        f"{bucket_expr_sql(['CAST(id AS BIGINT)'], str(buckets))} AS __bucket",
    )
    root = tempfile.mkdtemp(prefix="dorisql-bench-")
    try:

        def raw(i):
            t = time.perf_counter()
            df.write.partitionBy("__partition", "__bucket").parquet(os.path.join(root, f"raw{i}"))
            return time.perf_counter() - t

        def ours(i, repartition=False):
            store = DeltaStore.create(
                os.path.join(root, f"delta{i}{'r' if repartition else ''}"), arrow_schema_from_spark(base.schema)
            )
            d = df.repartition("__partition", "__bucket") if repartition else df
            t = time.perf_counter()
            r = store.write(d, statement="bench")
            elapsed = time.perf_counter() - t
            assert r.rows == rows
            return elapsed, len(r.files)

        raw(-1)  # warm up the JVM
        raws, mine, mine_r = [], [], []
        for i in range(int(os.environ.get("RUNS", "3"))):
            raws.append(raw(i))
            e, nfiles = ours(i)
            mine.append(e)
            e2, nfiles_r = ours(i, repartition=True)
            mine_r.append(e2)
        r, m, mr = statistics.median(raws), statistics.median(mine), statistics.median(mine_r)
        print(f"rows={rows} partitions={parts} buckets={buckets}")
        print(f"raw spark partitionBy().parquet: {r:.2f}s  (runs {', '.join(f'{x:.2f}' for x in raws)})")
        print(
            f"DeltaStore.write:                 {m:.2f}s  (runs {', '.join(f'{x:.2f}' for x in mine)})  files={nfiles}  ratio raw/dorisql={r / m:.2f}"
        )
        print(f"DeltaStore.write + repartition:   {mr:.2f}s  files={nfiles_r}  ratio raw/dorisql={r / mr:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
