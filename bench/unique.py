"""UNIQUE KEY merge-on-write against merge-on-read and DUPLICATE: loading, full scan, point query.

    python bench/unique.py [--loads 200] [--rows 200] [--master local[*]] [--keep DIR]

The same rows go into a DUPLICATE KEY table, a UNIQUE KEY merge-on-read table
(``"enable_unique_key_merge_on_write" = "false"``) and a UNIQUE KEY merge-on-write table (the
default), twice: as ``--loads`` small loads of ``--rows`` rows (every fifth row of a load after
the first updates a key of the load before), and as one ``INSERT ... SELECT`` of all of them.
The small loads go round-robin over the three tables, so each sees the same JVM warm-up.
No compaction runs (``disable_auto_compaction``). Prints, per table, the loading time, a full
scan's (best of 3) and a point query's (the median of 50 after one warm-up, on the short-circuit
path and, with ``SET enable_short_circuit_query = false``, on Spark's), right after the loads,
and the ratios the issue targets:
merge-on-write's scan and point query against DUPLICATE's (target <= 1.2), and its loading cost
against merge-on-read's (target <= 2). Not a test: run it by hand; ``--loads 40`` is quick.
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

MODELS = {
    "dup": "DUPLICATE KEY(k)",
    "mor": "UNIQUE KEY(k)",
    "mow": "UNIQUE KEY(k)",
}
CREATE = """CREATE TABLE {name} (k INT NOT NULL, v BIGINT, s VARCHAR(32)) {keys}
DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES ("replication_num" = "1"{extra})"""


def create(engine: Engine, name: str, model: str) -> None:
    extra = ', "enable_unique_key_merge_on_write" = "false"' if model == "mor" else ""
    engine.execute_sql(CREATE.format(name=name, keys=MODELS[model], extra=extra))


def median(engine: Engine, sql: str, times: int = 50) -> float:
    engine.execute_sql(sql)  # warm-up: the first run fills the snapshot and footer caches
    seconds = []
    for _ in range(times):
        started = time.perf_counter()
        engine.execute_sql(sql)
        seconds.append(time.perf_counter() - started)
    return sorted(seconds)[len(seconds) // 2]


def best(engine: Engine, sql: str, times: int = 3) -> float:
    seconds = []
    for _ in range(times):
        started = time.perf_counter()
        engine.execute_sql(sql)
        seconds.append(time.perf_counter() - started)
    return min(seconds)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=200)
    ap.add_argument("--rows", type=int, default=200, help="rows per small load")
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--keep", help="work in this folder and keep it (default: a temp folder, removed)")
    args = ap.parse_args(argv)

    work = Path(args.keep or tempfile.mkdtemp(prefix="dorisql-unique-"))
    work.mkdir(parents=True, exist_ok=True)
    spark = create_session(master=args.master, app_name="dorisql-bench-unique")
    engine = Engine(Config(warehouse=str(work / "wh"), master=args.master), spark=spark)
    engine.execute_sql("CREATE DATABASE IF NOT EXISTS bench; USE bench")
    engine.execute_sql('ADMIN SET FRONTEND CONFIG ("disable_auto_compaction" = "true")')
    n = args.rows

    def load_sql(table: str, i: int) -> str:
        # every fifth row after the first load updates a key the load before wrote (its next
        # row's, which no update took over: a fifth of every load is updates)
        key = f"IF(number % 5 = 0 AND {i} > 0, {i - 1} * {n} + number + 1, {i} * {n} + number)"
        return (
            f"INSERT INTO {table} SELECT {key}, {i} * 1000 + number, concat('row-', {i}, '-', number) "
            f'FROM numbers("number" = "{n}")'
        )

    try:
        print(f"dorisql UNIQUE benchmark: {args.loads} loads of {n} rows, master {args.master}")
        load_seconds: dict[str, float] = {}
        for model in MODELS:
            create(engine, f"small_{model}", model)
            load_seconds[f"small_{model}"] = 0.0
        for i in range(args.loads):
            for model in MODELS:
                started = time.perf_counter()
                engine.execute_sql(load_sql(f"small_{model}", i))
                load_seconds[f"small_{model}"] += time.perf_counter() - started
        for model in MODELS:
            create(engine, f"one_{model}", model)
            started = time.perf_counter()
            engine.execute_sql(f"INSERT INTO one_{model} SELECT * FROM small_dup")
            load_seconds[f"one_{model}"] = time.perf_counter() - started
        key = args.loads * n // 2 + 1
        for shape in ("small", "one"):
            counts = {m: engine.execute_sql(f"SELECT count(*) FROM {shape}_{m}")[-1].rows[0][0] for m in MODELS}
            assert counts["mow"] == counts["mor"], counts
            scan, point, spark_point = {}, {}, {}
            for m in MODELS:
                table = f"{shape}_{m}"
                scan[m] = best(engine, f"SELECT count(*), sum(v), max(s) FROM {table}")
                point[m] = median(engine, f"SELECT * FROM {table} WHERE k = {key}")
                spark_point[m] = median(
                    engine, f"SELECT /*+ SET_VAR(enable_short_circuit_query=false) */ * FROM {table} WHERE k = {key}", 5
                )
            label = f"{args.loads} small loads" if shape == "small" else "one load"
            print(f"\n{label} (rows: dup {counts['dup']}, unique {counts['mow']})")
            for m in MODELS:
                print(
                    f"  {m}: load {load_seconds[f'{shape}_{m}']:7.2f} s   full scan {scan[m] * 1000:7.0f} ms   "
                    f"point query {point[m] * 1000:6.1f} ms (Spark's path {spark_point[m] * 1000:6.0f} ms)"
                )
            print(
                f"  mow/dup: full scan {scan['mow'] / scan['dup']:.2f} (target <= 1.2), "
                f"point query {point['mow'] / point['dup']:.2f} (target <= 1.2; "
                f"Spark's path {spark_point['mow'] / spark_point['dup']:.2f}); "
                f"mor/dup full scan {scan['mor'] / scan['dup']:.2f}"
            )
            print(f"  loading mow/mor: {load_seconds[f'{shape}_mow'] / load_seconds[f'{shape}_mor']:.2f} (target <= 2)")
        return 0
    finally:
        engine.close()
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
