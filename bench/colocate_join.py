"""Colocate join benchmark: dorisql's colocate join vs Spark's shuffle join vs Spark bucketed tables.

    python bench/colocate_join.py [--rows 10000000] [--buckets 16] [--repeat 3] [--master local[*]]

One run, one SparkSession (broadcast joins disabled):

1. Spark generates two tables of ``--rows`` rows each (a BIGINT key, unique per table, every key
   of one table matching one of the other; an INT value) and writes them once as Parquet.
2. (a) Spark's shuffle join of the two Parquet sources, with an aggregate on top.
   (b) Spark's own bucketed tables: ``bucketBy(--buckets, "k")`` + ``saveAsTable`` of both, joined
       (Spark's bucketed scan: no exchange before the join).
   (c) dorisql: two tables ``DISTRIBUTED BY HASH(k) BUCKETS --buckets`` in one colocation group,
       loaded from the same Parquet files, joined on ``k`` with the same aggregate (EXPLAIN:
       ``colocate: true``).
3. Each runs ``--repeat`` times, alternating; the best time counts. Prints the times, the ratios
   (targets: (c) at least 1.5x faster than (a), and no slower than (b)) and the shuffle bytes
   each query wrote (Spark's stage metrics; the colocate join's join stage writes none, only the
   aggregate's partial results move).

Not a test: run it by hand. ``--rows 1000000 --buckets 8 --repeat 1`` is a quick run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.storage.spark import create_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUERY = "SELECT count(*) AS n, sum(a.v + b.w) AS s FROM {a} a JOIN {b} b ON a.k = b.k"


def shuffle_bytes(spark) -> dict[int, int]:
    """Shuffle bytes written per stage id so far (Spark's status store: the task metrics)."""
    sc = spark.sparkContext
    jvm = sc._jvm
    store = sc._jsc.sc().statusStore()
    # AppStatusStore.stageList(statuses, details, withSummaries, unsortedQuantiles, taskStatus)
    stages = store.stageList(
        jvm.java.util.ArrayList(), False, False, sc._gateway.new_array(jvm.double, 0), jvm.java.util.ArrayList()
    )
    out = {}
    for i in range(stages.length()):  # a Scala Seq
        s = stages.apply(i)
        out[s.stageId()] = int(s.shuffleWriteBytes())
    return out


def timed(spark, run):
    before = shuffle_bytes(spark)
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    after = shuffle_bytes(spark)
    written = sum(v for k, v in after.items() if k not in before)
    return seconds, written, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--buckets", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--keep", help="work in this folder and keep it")
    args = parser.parse_args(argv)

    from pyspark.sql import functions as F

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dorisql-colocate-"))
    work.mkdir(parents=True, exist_ok=True)
    spark = create_session(
        args.master,
        "dorisql-colocate-bench",
        conf={
            "spark.sql.autoBroadcastJoinThreshold": "-1",
            "spark.sql.warehouse.dir": str(work / "spark-warehouse"),
            "spark.sql.sources.bucketing.enabled": "true",
        },
    )
    engine = Engine(
        Config(warehouse=str(work / "wh"), master=args.master, frontend={"user_files_secure_path": str(work)}),
        spark=spark,
    )
    try:
        n = args.rows
        src_a, src_b = str(work / "a.parquet"), str(work / "b.parquet")
        spark.range(n).select(F.col("id").alias("k"), F.expr("CAST(id % 1000 AS INT)").alias("v")).write.mode(
            "overwrite"
        ).parquet(src_a)
        spark.range(n).select(
            F.expr(f"CAST(pmod(id * 7919, {n}) AS BIGINT)").alias("k"), F.expr("CAST(id % 97 AS INT)").alias("w")
        ).write.mode("overwrite").parquet(src_b)

        # (b) Spark bucketed tables
        for name, src in (("sa", src_a), ("sb", src_b)):
            spark.sql(f"DROP TABLE IF EXISTS {name}")
            spark.read.parquet(src).write.bucketBy(args.buckets, "k").sortBy("k").saveAsTable(name)

        # (c) dorisql tables in one group
        engine.execute_sql("CREATE DATABASE IF NOT EXISTS bench; USE bench")
        for name, col, src in (("a", "v", src_a), ("b", "w", src_b)):
            engine.execute_sql(
                f"CREATE TABLE {name} (k BIGINT, {col} INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) "
                f'BUCKETS {args.buckets} PROPERTIES ("colocate_with" = "bench_group")'
            )
            engine.execute_sql(f'INSERT INTO {name} SELECT * FROM local("file_path" = "{src}", "format" = "parquet")')
        sql = QUERY.format(a="a", b="b")
        plan = [r[0] for r in engine.execute_sql("EXPLAIN " + sql)[-1].rows]
        colocated = any("colocate: true" in line for line in plan)

        def shuffle_join():
            a, b = spark.read.parquet(src_a), spark.read.parquet(src_b)
            return a.join(b, "k").agg(F.count("*"), F.sum(F.col("v") + F.col("w"))).collect()

        def bucketed_join():
            a, b = spark.table("sa"), spark.table("sb")
            return a.join(b, "k").agg(F.count("*"), F.sum(F.col("v") + F.col("w"))).collect()

        def colocate_join():
            return engine.execute_sql(sql)[-1].rows

        runs = {"(a) Spark shuffle join": shuffle_join, "(b) Spark bucketBy tables": bucketed_join}
        runs["(c) dorisql colocate join"] = colocate_join
        for fn in runs.values():  # warm-up (JIT, codegen, Python workers)
            fn()
        best: dict[str, tuple[float, int]] = {}
        answers = {}
        for _ in range(max(args.repeat, 1)):
            for label, fn in runs.items():
                seconds, written, result = timed(spark, fn)
                answers[label] = [tuple(r) for r in result]
                if label not in best or seconds < best[label][0]:
                    best[label] = (seconds, written)

        print(f"rows per table: {n:,}  buckets: {args.buckets}  master: {args.master}")
        print(f"EXPLAIN colocate: {'true' if colocated else 'false'}")
        for label, (seconds, written) in best.items():
            print(f"{label:28s}: {seconds:7.2f} s   shuffle written: {written:,} bytes   result {answers[label]}")
        a, b, c = (best[k][0] for k in runs)
        print(f"speed-up of (c) over (a): {a / c:.2f}x (target >= 1.5)")
        print(f"speed-up of (c) over (b): {b / c:.2f}x (target >= 1.0)")
        same = len({str(v) for v in answers.values()}) == 1
        print("all three agree" if same else "RESULTS DIFFER")
        return 0 if same and colocated else 1
    finally:
        engine.close()
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
