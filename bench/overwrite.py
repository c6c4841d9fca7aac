"""INSERT OVERWRITE benchmark: dorisql replacing one partition vs Spark's dynamic partition overwrite.

    python bench/overwrite.py [--rows 10000000] [--partitions 30] [--buckets 8] [--repeat 3] [--master local[*]]

One run, one SparkSession:

1. Spark generates ``--rows`` rows (``day`` DATE over ``--partitions`` days, ``k`` BIGINT, ``v``
   INT) and writes them once as Parquet, plus the replacement rows of one day (the same number
   of rows as that day has, new values).
2. (a) Spark: the rows as a Parquet folder partitioned by ``day``; the day is rewritten with
   ``spark.sql.sources.partitionOverwriteMode=dynamic`` (``df.write.mode("overwrite")
   .partitionBy("day")``: only the day's folder is replaced).
   (b) dorisql: a table ``PARTITION BY RANGE(day)`` with one partition a day, ``BUCKETS
   --buckets``, loaded from the same Parquet; the day is rewritten with
   ``INSERT OVERWRITE TABLE f PARTITION (p<day>) SELECT * FROM local(...)`` (one Delta commit).
3. Each runs ``--repeat`` times, alternating; the best time counts. Prints both times and the
   ratio (target: (b) within 1.3x of (a)), and checks both hold the same rows afterwards.

Not a test: run it by hand. ``--rows 1000000 --repeat 1`` is a quick run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.storage.spark import create_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

START = dt.date(2024, 1, 1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--partitions", type=int, default=30)
    parser.add_argument("--buckets", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--keep", help="work in this folder and keep it")
    args = parser.parse_args(argv)

    from pyspark.sql import functions as F

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dorisql-overwrite-"))
    work.mkdir(parents=True, exist_ok=True)
    spark = create_session(args.master, "dorisql-overwrite-bench", conf={})
    engine = Engine(
        Config(warehouse=str(work / "wh"), master=args.master, frontend={"user_files_secure_path": str(work)}),
        spark=spark,
    )
    try:
        n, days = args.rows, args.partitions
        target = START + dt.timedelta(days=days // 2)
        source, fresh, folder = str(work / "rows.parquet"), str(work / "day.parquet"), str(work / "spark_table")
        rows = spark.range(n).select(
            F.expr(f"date_add(DATE'{START}', CAST(id % {days} AS INT))").alias("day"),
            F.col("id").alias("k"),
            F.expr("CAST(id % 1000 AS INT)").alias("v"),
        )
        rows.write.mode("overwrite").parquet(source)
        spark.read.parquet(source).where(F.col("day") == F.lit(target)).withColumn("v", F.col("v") + 1).write.mode(
            "overwrite"
        ).parquet(fresh)
        day_rows = spark.read.parquet(fresh).count()

        # (a) Spark: a Parquet folder partitioned by day
        spark.read.parquet(source).write.mode("overwrite").partitionBy("day").parquet(folder)

        # (b) dorisql: one partition a day
        end = START + dt.timedelta(days=days)
        engine.execute_sql("CREATE DATABASE IF NOT EXISTS bench; USE bench")
        engine.execute_sql(
            "CREATE TABLE f (day DATE NOT NULL, k BIGINT NOT NULL, v INT) DUPLICATE KEY(day, k) "
            f'PARTITION BY RANGE(day) (FROM ("{START}") TO ("{end}") INTERVAL 1 DAY) '
            f"DISTRIBUTED BY HASH(k) BUCKETS {args.buckets}"
        )
        engine.execute_sql(f'INSERT INTO f SELECT * FROM local("file_path" = "{source}", "format" = "parquet")')
        partition = "p" + target.strftime("%Y%m%d")
        overwrite_sql = (
            f"INSERT OVERWRITE TABLE f PARTITION ({partition}) "
            f'SELECT * FROM local("file_path" = "{fresh}", "format" = "parquet")'
        )

        def spark_dynamic():
            spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
            spark.read.parquet(fresh).write.mode("overwrite").partitionBy("day").parquet(folder)

        def dorisql_overwrite():
            engine.execute_sql(overwrite_sql)

        runs = {
            "(a) Spark dynamic partition overwrite": spark_dynamic,
            "(b) dorisql INSERT OVERWRITE": dorisql_overwrite,
        }
        for fn in runs.values():  # warm-up (JIT, codegen)
            fn()
        best: dict[str, float] = {}
        for _ in range(max(args.repeat, 1)):
            for label, fn in runs.items():
                start = time.perf_counter()
                fn()
                seconds = time.perf_counter() - start
                best[label] = min(seconds, best.get(label, seconds))

        spark_answer = spark.read.parquet(folder).agg(F.count("*"), F.sum("v")).collect()[0]
        dorisql_answer = engine.execute_sql("SELECT count(*), sum(v) FROM f")[-1].rows[0]
        load = os.getloadavg()
        print(f"rows: {n:,}  partitions: {days}  rows replaced: {day_rows:,}  buckets: {args.buckets}")
        print(f"master: {args.master}  cpus: {os.cpu_count()}  load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        for label, seconds in best.items():
            print(f"{label:40s}: {seconds:7.2f} s")
        a, b = best.values()
        print(f"ratio (b)/(a): {b / a:.2f}x (target <= 1.3)")
        same = tuple(spark_answer) == tuple(dorisql_answer)
        print(
            f"rows after: Spark {tuple(spark_answer)}, dorisql {tuple(dorisql_answer)}: "
            + ("same" if same else "DIFFER")
        )
        return 0 if same else 1
    finally:
        engine.close()
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
