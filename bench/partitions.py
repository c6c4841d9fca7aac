"""Creating many partitions: CREATE TABLE with 10,000 partitions vs writing 10,000 catalog rows.

    python bench/partitions.py [--partitions 10000] [--repeat 3]

Creating partitions is metadata only (an empty partition has no files), so it should cost about
what writing its catalog entries costs. In one run, on one machine, this times:

- batch: ``CREATE TABLE ... PARTITION BY RANGE(d) (FROM (..) TO (..) INTERVAL 1 DAY, ...)`` with
  ``--partitions`` days, split into FROM .. TO clauses of at most 4,000 days (Doris refuses more
  than max_multi_partition_num = 4096 partitions per clause);
- dynamic: ``CREATE TABLE`` on a DATETIME column with ``dynamic_partition.time_unit = HOUR`` and
  ``end = partitions - 1`` (offsets 0 .. end: ``--partitions`` partitions; the FE config
  max_dynamic_partition_num is raised for it);
- baseline: the same number of catalog rows written straight to SQLite: each partition of the
  batch table encoded as JSON by the catalog codec, one INSERT per row, one transaction.

Each is the best of ``--repeat`` runs (a fresh table each time, after one warm-up statement, so
imports are not counted). Prints the times, the time per partition and the ratio to the
baseline, and checks every table got its partitions. Not a timed test: run it by hand. The
target is 10,000 partitions in under 2 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from dorisql.catalog import codec
from dorisql.config import Config
from dorisql.engine import Engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_SECONDS = 2.0
#: Days per FROM .. TO clause (Doris: max_multi_partition_num = 4096 per clause).
DAYS_PER_CLAUSE = 4000


def batch_sql(name: str, partitions: int) -> str:
    clauses, start, left = [], dt.date(2000, 1, 1), partitions
    while left:
        days = min(left, DAYS_PER_CLAUSE)
        end = start + dt.timedelta(days=days)
        clauses.append(f'FROM ("{start}") TO ("{end}") INTERVAL 1 DAY')
        start, left = end, left - days
    return (
        f"CREATE TABLE {name} (d DATE, v INT) DUPLICATE KEY(d) PARTITION BY RANGE(d) "
        f"({', '.join(clauses)}) DISTRIBUTED BY HASH(v) BUCKETS 1"
    )


def dynamic_sql(name: str, partitions: int) -> str:
    return (
        f"CREATE TABLE {name} (t DATETIME, v INT) DUPLICATE KEY(t) PARTITION BY RANGE(t) () "
        "DISTRIBUTED BY HASH(v) BUCKETS 1 PROPERTIES ("
        '"dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "HOUR", '
        f'"dynamic_partition.end" = "{partitions - 1}", "dynamic_partition.prefix" = "p", '
        '"dynamic_partition.time_zone" = "UTC")'
    )


def timed_create(engine, sql: str, db: str, name: str, partitions: int) -> float:
    started = time.perf_counter()
    engine.execute_sql(sql)
    elapsed = time.perf_counter() - started
    got = len(engine.catalog.load_table(db, name).partitions)
    if got != partitions:
        raise SystemExit(f"FAILED: {name} has {got} partitions, expected {partitions}")
    return elapsed


def baseline(partition_metas, folder: Path, run: int) -> float:
    """Write one JSON row per partition to a fresh SQLite file, in one transaction."""

    conn = sqlite3.connect(folder / f"baseline{run}.db")
    conn.execute("CREATE TABLE partitions (id INTEGER PRIMARY KEY, table_id INTEGER, name TEXT, body TEXT)")
    conn.commit()
    started = time.perf_counter()
    with conn:
        conn.executemany(
            "INSERT INTO partitions (id, table_id, name, body) VALUES (?, ?, ?, ?)",
            ((p.id, 1, p.name, codec.encode(p)) for p in partition_metas),
        )
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    n = args.partitions

    with tempfile.TemporaryDirectory(prefix="dorisql-bench-partitions-") as tmp:
        engine = Engine(Config(warehouse=str(Path(tmp) / "wh")))
        engine.execute_sql(f"""
            ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "{max(n, 500)}");
            SET dorisql_now = '2020-01-01 00:00:00';
            CREATE DATABASE bench; USE bench;""")
        engine.execute_sql(batch_sql("warmup", 10))  # imports, first Delta table

        batch, dynamic, base = [], [], []
        for run in range(args.repeat):
            batch.append(timed_create(engine, batch_sql(f"batch{run}", n), "bench", f"batch{run}", n))
            dynamic.append(timed_create(engine, dynamic_sql(f"hourly{run}", n), "bench", f"hourly{run}", n))
            base.append(baseline(engine.catalog.load_table("bench", "batch0").partitions, Path(tmp), run))
        engine.close()

    b, d, s = min(batch), min(dynamic), min(base)
    print(f"{n} partitions, best of {args.repeat}:")
    print(f"  baseline: {n} JSON catalog rows into SQLite  {s:7.3f} s  ({s / n * 1e6:6.1f} us per row)")
    for label, t in (
        ("CREATE TABLE, FROM .. TO .. INTERVAL 1 DAY", b),
        ("CREATE TABLE, dynamic HOUR partitions     ", d),
    ):
        print(f"  {label}  {t:7.3f} s  ({t / n * 1e6:6.1f} us per partition, {t / s:5.1f}x the baseline)")
    met = max(b, d) < TARGET_SECONDS
    print(f"target: {n} partitions in under {TARGET_SECONDS:.0f} s: {'met' if met else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
