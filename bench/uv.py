"""Unique visitors: count(DISTINCT) on raw events against BITMAP and HLL columns of an AGGREGATE table.

    python bench/uv.py [--events 10000000] [--users 1000000] [--days 30] [--sites 100]
                       [--long-days 100] [--master local[*]] [--driver-memory 4g] [--keep DIR]

``--events`` events (day, site, user_id; ``--users`` distinct users over ``--days`` days and
``--sites`` sites) go into a DUPLICATE KEY table ``raw``, and from it, with ``INSERT ... SELECT
day, site, to_bitmap(user_id), hll_hash(user_id)``, into an AGGREGATE KEY table ``agg (day, site,
user_ids BITMAP BITMAP_UNION, uv HLL HLL_UNION)``. Prints the stored bytes of each table, the
monthly unique users per site by ``count(DISTINCT user_id)`` on ``raw``, by
``bitmap_union_count(user_ids)`` and by ``hll_union_agg(uv)`` on ``agg`` (best of 3), and the
checks the issue targets: the bitmap answer equals the exact one, HLL within 2% of it, each
aggregate-table query at least 5x faster than the raw count(DISTINCT). Then an aggregate table
of ``--long-days`` days at the same events per day (loaded straight from the generator) and the
same query over it: its time must grow less than linearly with the days. Not a test: run it by
hand; ``--events 1000000`` is quick.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.storage.spark import create_session
from dorisql.tablets.tables import meta_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RAW = """CREATE TABLE raw (`day` DATE NOT NULL, site INT NOT NULL, user_id BIGINT NOT NULL)
DUPLICATE KEY(`day`, site) DISTRIBUTED BY HASH(site) BUCKETS 8"""
AGG = """CREATE TABLE {name} (`day` DATE NOT NULL, site INT NOT NULL,
  user_ids BITMAP BITMAP_UNION NOT NULL, uv HLL HLL_UNION NOT NULL)
AGGREGATE KEY(`day`, site) DISTRIBUTED BY HASH(site) BUCKETS 8"""


def events_sql(events: int, users: int, days: int, sites: int) -> str:
    """`events` rows of (day, site, user_id): days and sites round-robin, users by a hash of the
    event number (crc32), so that each site sees users from all over the range."""
    return (
        f"SELECT date_add('2024-01-01', CAST(number % {days} AS INT)) AS `day`, "
        f"CAST((number DIV {days}) % {sites} AS INT) AS site, crc32(CAST(number AS STRING)) % {users} AS user_id "
        f'FROM numbers("number" = "{events}")'
    )


def stored_bytes(engine: Engine, table: str) -> int:
    folder = meta_dir(engine.warehouse, engine.catalog.load_table("bench", table))
    return sum(f.stat().st_size for f in Path(folder).rglob("*.parquet"))


def timed(engine: Engine, sql: str, times: int = 3) -> tuple[float, list]:
    """The best of `times` runs, and the rows."""
    best, rows = float("inf"), []
    for _ in range(times):
        started = time.perf_counter()
        rows = engine.execute_sql(sql)[-1].rows
        best = min(best, time.perf_counter() - started)
    return best, [tuple(r) for r in rows]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--sites", type=int, default=100)
    ap.add_argument("--long-days", type=int, default=100)
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--driver-memory", default="4g", help="the Spark driver's heap (a local master's executors too)")
    ap.add_argument("--keep", help="work in this folder and keep it (default: a temp folder, removed)")
    args = ap.parse_args(argv)

    work = Path(args.keep or tempfile.mkdtemp(prefix="dorisql-uv-"))
    work.mkdir(parents=True, exist_ok=True)
    # A stored bitmap is 4 KB per bucket: a row of a million users' bitmap is ~128 KB, and Parquet's
    # vectorized reader decodes 4096 rows at a time; fewer rows per batch keep that in the heap.
    conf = {"spark.driver.memory": args.driver_memory, "spark.sql.parquet.columnarReaderBatchSize": "256"}
    spark = create_session(master=args.master, app_name="dorisql-bench-uv", conf=conf)
    engine = Engine(Config(warehouse=str(work / "wh"), master=args.master), spark=spark)
    engine.execute_sql("CREATE DATABASE IF NOT EXISTS bench; USE bench")
    engine.execute_sql('ADMIN SET FRONTEND CONFIG ("disable_auto_compaction" = "true")')
    failed = []

    def check(ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failed.append(what)

    try:
        print(
            f"dorisql UV benchmark: {args.events} events, {args.users} users, {args.days} days, "
            f"{args.sites} sites; master {args.master} ({os.cpu_count()} CPUs)"
        )
        started = time.perf_counter()
        engine.execute_sql(RAW)
        engine.execute_sql(f"INSERT INTO raw {events_sql(args.events, args.users, args.days, args.sites)}")
        load_raw = time.perf_counter() - started
        started = time.perf_counter()
        engine.execute_sql(AGG.format(name="agg"))
        engine.execute_sql("INSERT INTO agg SELECT `day`, site, to_bitmap(user_id), hll_hash(user_id) FROM raw")
        load_agg = time.perf_counter() - started
        agg_rows = engine.execute_sql("SELECT count(*) FROM agg")[-1].rows[0][0]
        print(f"\nloads: raw {load_raw:.1f} s ({args.events} rows), agg {load_agg:.1f} s ({agg_rows} rows, from raw)")
        raw_bytes, agg_bytes = stored_bytes(engine, "raw"), stored_bytes(engine, "agg")
        print(f"stored: raw {raw_bytes / 1e6:.1f} MB, agg {agg_bytes / 1e6:.1f} MB ({agg_bytes / raw_bytes:.2f}x)")

        exact_t, exact = timed(engine, "SELECT site, count(DISTINCT user_id) FROM raw GROUP BY site ORDER BY site")
        bitmap_t, bitmap = timed(
            engine, "SELECT site, bitmap_union_count(user_ids) FROM agg GROUP BY site ORDER BY site"
        )
        hll_t, hll = timed(engine, "SELECT site, hll_union_agg(uv) FROM agg GROUP BY site ORDER BY site")
        print("\nmonthly unique users per site (first 3 sites):")
        for (site, e), (_, b), (_, h) in list(zip(exact, bitmap, hll))[:3]:
            print(f"  site {site}: count(DISTINCT) {e}, bitmap_union_count {b}, hll_union_agg {h}")
        worst = max(abs(h - e) / e for (_, e), (_, h) in zip(exact, hll))
        print(
            f"times (best of 3): count(DISTINCT) on raw {exact_t * 1000:.0f} ms, bitmap_union_count "
            f"{bitmap_t * 1000:.0f} ms ({exact_t / bitmap_t:.1f}x faster), hll_union_agg {hll_t * 1000:.0f} ms "
            f"({exact_t / hll_t:.1f}x faster)"
        )
        check(bitmap == exact, "bitmap_union_count equals count(DISTINCT) for every site")
        check(worst <= 0.02, f"hll_union_agg within 2% of the exact count (worst {worst * 100:.2f}%)")
        check(exact_t / bitmap_t >= 5, "bitmap_union_count at least 5x faster than count(DISTINCT)")
        check(exact_t / hll_t >= 5, "hll_union_agg at least 5x faster than count(DISTINCT)")

        long_events = args.events * args.long_days // args.days
        started = time.perf_counter()
        engine.execute_sql(AGG.format(name="agg_long"))
        engine.execute_sql(
            "INSERT INTO agg_long SELECT `day`, site, to_bitmap(user_id), hll_hash(user_id) FROM ("
            f"{events_sql(long_events, args.users, args.long_days, args.sites)}) e"
        )
        print(
            f"\n{args.long_days} days: agg_long loaded in {time.perf_counter() - started:.1f} s ({long_events} events)"
        )
        long_t, _ = timed(engine, "SELECT site, bitmap_union_count(user_ids) FROM agg_long GROUP BY site ORDER BY site")
        growth = long_t / bitmap_t
        print(
            f"bitmap_union_count over {args.long_days} days {long_t * 1000:.0f} ms: {growth:.2f}x the "
            f"{args.days}-day query for {args.long_days / args.days:.2f}x the days"
        )
        check(growth < args.long_days / args.days, "the query grows less than linearly with the days")
        print("\nall checks passed" if not failed else f"\n{len(failed)} check(s) failed")
        return 1 if failed else 0
    finally:
        engine.close()
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
