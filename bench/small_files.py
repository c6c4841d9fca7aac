"""Files a load writes from a source of many small files: before and after clustering by tablet.

    python bench/small_files.py [--loads 200] [--rows 200] [--master local[*]] [--keep DIR]

1. ``--loads`` small loads of ``--rows`` rows each into ``t1`` (4 daily RANGE partitions x
   ``HASH(k) BUCKETS 8`` = 32 tablets): every load adds a file to most tablets, so ``t1`` ends
   with thousands of small files (the shape issue 12 measured: 200 loads, 12,266 files).
2. After: ``INSERT INTO t2 SELECT * FROM t1`` with dorisql, which shuffles the rows by tablet
   before writing (docs/storage.md "Fewer files"). Target: ~1 file per tablet.
3. Before: what dorisql wrote until then, reproduced with the same Spark write it used (t1's
   files read with their ``__partition``/``__bucket`` columns, then
   ``df.write.partitionBy('__partition', '__bucket')``, no shuffle): one file per input task
   per tablet.

Prints the files and the time of each, and a full-scan query time over each table. Not a test:
run it by hand; ``--loads 40`` is a quick run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.storage.delta import DeltaStore
from dorisql.storage.layout import BUCKET_COLUMN, PARTITION_COLUMN
from dorisql.storage.spark import create_session
from dorisql.tablets.tables import meta_dir, spark_ddl_schema

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BUCKETS = 8
DAYS = 4

CREATE = f"""CREATE TABLE {{name}} (day DATE NOT NULL, k INT NOT NULL, v BIGINT, s VARCHAR(32))
DUPLICATE KEY(day, k)
PARTITION BY RANGE(day) (FROM ("2024-01-01") TO ("2024-01-{DAYS + 1:02d}") INTERVAL 1 DAY)
DISTRIBUTED BY HASH(k) BUCKETS {BUCKETS}
PROPERTIES ("replication_num" = "1")"""


def per_tablet(files) -> str:
    counts = Counter((f.partition, f.bucket) for f in files)
    return f"{len(files)} files in {len(counts)} tablets ({min(counts.values())}-{max(counts.values())} a tablet)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=200)
    ap.add_argument("--rows", type=int, default=200, help="rows per small load")
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--keep", help="work in this folder and keep it (default: a temp folder, removed)")
    args = ap.parse_args(argv)

    work = Path(args.keep or tempfile.mkdtemp(prefix="dorisql-small-files-"))
    work.mkdir(parents=True, exist_ok=True)
    spark = create_session(master=args.master, app_name="dorisql-bench-small-files")
    engine = Engine(Config(warehouse=str(work / "wh"), master=args.master), spark=spark)
    engine.execute_sql("CREATE DATABASE IF NOT EXISTS bench; USE bench")

    def store(name: str) -> DeltaStore:
        return DeltaStore(meta_dir(engine.warehouse, engine.catalog.load_table("bench", name)))

    def full_scan(name: str) -> float:
        started = time.perf_counter()
        engine.execute_sql(f"SELECT count(*), sum(v), max(s) FROM {name}")
        return time.perf_counter() - started

    try:
        print(f"dorisql small-files benchmark: {args.loads} loads of {args.rows} rows, master {args.master}")
        engine.execute_sql(CREATE.format(name="t1"))
        started = time.perf_counter()
        for i in range(args.loads):
            engine.execute_sql(
                f"INSERT INTO t1 SELECT date_add('2024-01-01', number % {DAYS}), {i} * {args.rows} + number, "
                f'number, concat(\'row-\', number) FROM numbers("number" = "{args.rows}")'
            )
        t1 = store("t1").snapshot()
        print(f"t1 after {args.loads} loads ({time.perf_counter() - started:.1f} s): {per_tablet(t1.files)}")

        # Before: the write dorisql did until it clustered rows by tablet (same tasks as the scan).
        before = work / "before"
        started = time.perf_counter()
        schema = spark.createDataFrame([], spark_ddl_schema(engine.catalog.load_table("bench", "t1").definition)).schema
        rows = store("t1").read(spark, spark_schema=schema, with_partition_columns=True)
        rows.write.partitionBy(PARTITION_COLUMN, BUCKET_COLUMN).parquet(str(before))
        before_seconds = time.perf_counter() - started
        before_files = sum(1 for _ in before.rglob("*.parquet"))
        tablets = len({(f.partition, f.bucket) for f in t1.files})

        engine.execute_sql(CREATE.format(name="t2"))
        started = time.perf_counter()
        engine.execute_sql("INSERT INTO t2 SELECT * FROM t1")
        after_seconds = time.perf_counter() - started
        t2 = store("t2").snapshot()
        assert t2.total_rows == t1.total_rows == args.loads * args.rows, (t2.total_rows, t1.total_rows)

        print()
        print(
            f"before: plain partitionBy write of t1's rows : {before_files:6} files "
            f"({before_files / tablets:.1f} a tablet), {before_seconds:.1f} s"
        )
        print(f"after:  INSERT INTO t2 SELECT * FROM t1       : {per_tablet(t2.files)}, {after_seconds:.1f} s")
        full_scan("t1")  # warm-up
        print(f"full scan: t1 {full_scan('t1'):.2f} s, t2 {full_scan('t2'):.2f} s")
        worst = max(Counter((f.partition, f.bucket) for f in t2.files).values())
        print(f"files per tablet ~1: {'OK' if worst == 1 else 'NO'}")
        return 0
    finally:
        engine.close()
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
