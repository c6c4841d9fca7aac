"""Ingest benchmark: dorisql INSERT vs a plain Spark partitioned Parquet write of the same rows.

    python bench/ingest.py [--rows 10000000] [--master local[*]] [--big-mb 1024] [--keep DIR]

One run, one SparkSession:

1. Spark generates ``--rows`` rows (spark.range + expressions: a DATE spread over 30 days, an INT
   hash key, two value columns) and writes them once as a Parquet source file.
2. Baseline: ``spark.read.parquet(source)`` + the same partition and bucket columns
   (``p`` = day, ``b = pmod(hash(k), 8)``) + ``df.write.partitionBy('p', 'b').parquet(tmp)``.
3. dorisql: ``INSERT INTO t SELECT * FROM local("file_path" = source, "format" = "parquet")``
   into a table with 30 daily RANGE partitions and ``DISTRIBUTED BY HASH(k) BUCKETS 8``. Both
   read the same file; both write the same (partition, bucket) layout. dorisql also casts and
   checks every value (strict mode), reads the footers of what it wrote, and commits to Delta.

A small warm-up of both paths runs first (JIT, codegen), so neither side pays for it; then each
side runs ``--repeat`` times, alternating, and the best run of each counts. Prints rows/second
for both and the ratio (target: dorisql >= 0.7 of the baseline).

Then: files read by a point query on the full hash key (+ the partition column) vs a full scan
(target: one bucket's files), and the time of DROP PARTITION on a ~``--big-mb`` partition vs a
~1 MB partition of another table (target: within 2x; a drop is a metadata-only Delta commit).

Not a test: run it by hand. ``--rows 1000000 --big-mb 64`` is a quick run.
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
from dorisql.statements.load import insert as dml
from dorisql.storage.delta import DeltaStore
from dorisql.storage.spark import create_session
from dorisql.syntax import parse_one
from dorisql.tablets.tables import meta_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_RATIO = 0.7
BUCKETS = 8
DAYS = 30


def generate(spark, rows: int, path: str) -> None:
    """The benchmark's rows, written once as the Parquet source both sides read."""
    from pyspark.sql import functions as F

    df = spark.range(rows).select(
        F.expr(f"date_add(DATE'2024-01-01', CAST(id % {DAYS} AS INT))").alias("day"),
        F.expr("CAST(pmod(hash(id), 1000000) AS INT)").alias("k"),
        F.expr("CAST(id * 7 % 100000 AS BIGINT)").alias("amount"),
        F.expr("concat('item-', CAST(id % 5000 AS STRING))").alias("item"),
    )
    df.write.mode("overwrite").parquet(path)


def raw_write(spark, source: str, out: str) -> float:
    from pyspark.sql import functions as F

    started = time.perf_counter()
    df = (
        spark.read.parquet(source)
        .withColumn("p", F.date_format("day", "'p'yyyyMMdd"))
        .withColumn("b", F.expr(f"pmod(hash(k), {BUCKETS})"))
    )
    df.write.mode("overwrite").partitionBy("p", "b").parquet(out)
    return time.perf_counter() - started


CREATE = f"""CREATE TABLE {{name}} (day DATE NOT NULL, k INT NOT NULL, amount BIGINT, item VARCHAR(32))
DUPLICATE KEY(day, k)
PARTITION BY RANGE(day) (FROM ("2024-01-01") TO ("2024-01-{DAYS + 1:02d}") INTERVAL 1 DAY)
DISTRIBUTED BY HASH(k) BUCKETS {BUCKETS}
PROPERTIES ("replication_num" = "1")"""


def dorisql_insert(engine, name: str, source: str) -> tuple[float, int]:
    engine.execute_sql(CREATE.format(name=name))
    started = time.perf_counter()
    (result,) = engine.execute_sql(
        f'INSERT INTO {name} SELECT * FROM local("file_path" = "{source}", "format" = "parquet")'
    )
    return time.perf_counter() - started, result.affected_rows


def files_read(engine, sql: str) -> list[str]:

    _df, scans = dml._run_query(engine, parse_one(sql))
    return list(scans[0].files)


def mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--big-mb", type=int, default=1024, help="size of the big partition for the DROP timing")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each side, alternating; the best counts")
    ap.add_argument("--keep", help="work in this folder and keep it (default: a temp folder, removed)")
    args = ap.parse_args(argv)

    work = Path(args.keep or tempfile.mkdtemp(prefix="dorisql-ingest-"))
    work.mkdir(parents=True, exist_ok=True)
    spark = create_session(
        master=args.master, app_name="dorisql-bench-ingest", conf={"spark.driver.memory": args.driver_memory}
    )
    cores = spark.sparkContext.defaultParallelism
    # local() reads only under user_files_secure_path (docs/security.md): the work folder here.
    engine = Engine(
        Config(warehouse=str(work / "wh"), master=args.master, frontend={"user_files_secure_path": str(work)}),
        spark=spark,
    )
    engine.execute_sql("CREATE DATABASE IF NOT EXISTS bench; USE bench")

    def table_dir(name: str) -> Path:
        # a table's folder is named by its id (docs/storage.md)
        return meta_dir(engine.warehouse, engine.catalog.load_table("bench", name))

    try:
        print(f"dorisql ingest benchmark: {args.rows:,} rows, master {args.master} ({cores} cores), work {work}")
        t = time.perf_counter()
        source = str(work / "source.parquet")
        generate(spark, args.rows, source)
        print(
            f"generated the source in {time.perf_counter() - t:.1f} s "
            f"({mb(sum(f.stat().st_size for f in Path(source).glob('*.parquet')))})"
        )

        warm = str(work / "warm.parquet")
        generate(spark, min(args.rows, 200_000), warm)
        raw_write(spark, warm, str(work / "raw_warm"))
        dorisql_insert(engine, "warm", warm)

        raw_runs, dorisql_runs = [], []
        for i in range(max(args.repeat, 1)):
            raw_runs.append(raw_write(spark, source, str(work / "raw")))
            if i:
                engine.execute_sql("DROP TABLE t")
            seconds, loaded = dorisql_insert(engine, "t", source)
            assert loaded == args.rows, (loaded, args.rows)
            dorisql_runs.append(seconds)
        raw_seconds, dorisql_seconds = min(raw_runs), min(dorisql_runs)
        print(
            "runs (s): raw "
            + ", ".join(f"{s:.1f}" for s in raw_runs)
            + "; dorisql "
            + ", ".join(f"{s:.1f}" for s in dorisql_runs)
        )
        raw_rate, dorisql_rate = args.rows / raw_seconds, args.rows / dorisql_seconds
        ratio = dorisql_rate / raw_rate
        raw_files = sum(1 for _ in Path(work / "raw").rglob("*.parquet"))
        snap = DeltaStore(table_dir("t")).snapshot()
        print()
        print(
            f"raw Spark partitionBy('p','b').parquet : {raw_seconds:7.1f} s  {raw_rate:12,.0f} rows/s  {raw_files} files"
        )
        print(
            f"dorisql INSERT INTO t SELECT local()   : {dorisql_seconds:7.1f} s  {dorisql_rate:12,.0f} rows/s  "
            f"{len(snap.files)} files, {mb(snap.total_bytes)}, Delta version {snap.version}"
        )
        print(
            f"ratio dorisql / raw                    : {ratio:.2f}  (target >= {TARGET_RATIO}: "
            f"{'OK' if ratio >= TARGET_RATIO else 'BELOW TARGET'})"
        )

        # Point query on the full hash key (and the partition column) vs a full scan.
        ((day, k),) = [tuple(r) for r in spark.read.parquet(source).select("day", "k").limit(1).collect()]
        point = files_read(engine, f"SELECT * FROM t WHERE day = '{day}' AND k = {k}")
        hash_only = files_read(engine, f"SELECT * FROM t WHERE k = {k}")
        full = files_read(engine, "SELECT * FROM t")
        tablets = {(f.partition, f.bucket) for f in snap.files}
        tablet_files = {}
        for f in snap.files:
            tablet_files[(f.partition, f.bucket)] = tablet_files.get((f.partition, f.bucket), 0) + 1
        one_bucket = {p.split("/__bucket=")[1].split("/")[0] for p in point}
        print()
        print(
            f"files read, point query day = '{day}' AND k = {k}: {len(point)} "
            f"(buckets {sorted(one_bucket)}; a tablet holds {min(tablet_files.values())}-{max(tablet_files.values())} files)"
        )
        print(f"files read, k = {k} only (one bucket per partition): {len(hash_only)}")
        print(f"files read, full scan: {len(full)} ({len(tablets)} tablets)")
        print(
            f"point query reads one bucket's files: {'OK' if len(one_bucket) == 1 and len(point) <= max(tablet_files.values()) else 'NO'}"
        )

        # DROP PARTITION: a big partition vs a ~1 MB one (both metadata-only commits).
        engine.execute_sql("""CREATE TABLE drops (g INT NOT NULL, id BIGINT NOT NULL, payload STRING)
            DUPLICATE KEY(g) PARTITION BY RANGE(g) (
                PARTITION pbig VALUES [("1"), ("2")), PARTITION psmall VALUES [("2"), ("3")))
            DISTRIBUTED BY HASH(id) BUCKETS 8""")
        payload = (
            "concat(sha2(CAST(id AS STRING), 512), sha2(CAST(id + 1 AS STRING), 512), "
            "sha2(CAST(id + 2 AS STRING), 512), sha2(CAST(id + 3 AS STRING), 512))"
        )  # 512 hex chars
        big_rows = max(args.big_mb * 2**20 // 480, 1000)  # ~480 bytes a row once written (hex barely compresses)
        t = time.perf_counter()
        engine.execute_sql(
            f'INSERT INTO drops SELECT 1, id, {payload} FROM (SELECT number AS id FROM numbers("number" = "{big_rows}", "backend_num" = "{max(cores, 2) * 4}")) r'
        )
        big_load = time.perf_counter() - t
        engine.execute_sql(
            f'INSERT INTO drops SELECT 2, id, {payload} FROM (SELECT number AS id FROM numbers("number" = "3500")) r'
        )
        stats = DeltaStore(table_dir("drops")).partition_stats()
        big, small = stats["pbig"], stats["psmall"]
        path = table_dir("drops")
        timings = {}
        for name in ("psmall", "pbig"):
            t = time.perf_counter()
            engine.execute_sql(f"ALTER TABLE drops DROP PARTITION {name}")
            timings[name] = time.perf_counter() - t
        still_there = sum(1 for _ in path.rglob("*.parquet"))
        print()
        print(
            f"DROP PARTITION pbig   ({mb(big.data_size)}, {big.row_count:,} rows, {big.file_count} files; "
            f"loaded in {big_load:.1f} s): {timings['pbig'] * 1000:8.1f} ms"
        )
        print(
            f"DROP PARTITION psmall ({mb(small.data_size)}, {small.row_count:,} rows, {small.file_count} files): "
            f"{timings['psmall'] * 1000:8.1f} ms"
        )
        drop_ratio = timings["pbig"] / timings["psmall"]
        print(
            f"ratio big / small: {drop_ratio:.2f} (target within 2x: {'OK' if drop_ratio <= 2 else 'NO'}); "
            f"{still_there} data files still on disk until vacuum (metadata-only drop)"
        )
        return 0
    finally:
        engine.close()
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
