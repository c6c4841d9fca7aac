"""Compaction benchmark: many small loads into one table, three ways.

    python bench/compaction.py [--loads 300] [--rows 5000] [--buckets 1] [--every 10] [--master local[2]]
                               [--skip-window 1] [--keep DIR] [--requery DIR ...]

1. ``auto``: the background compaction job runs (its own thread and engine, as in the shell or
   ``dorisql scheduler``, every ``compaction_check_interval_seconds`` = 1 s) while the loads go in.
2. ``none``: no compaction (``disable_auto_compaction`` = true).
3. ``every``: no background job; after every ``--every`` loads, every tablet is compacted into
   one rowset (service.full_compaction: the "compact everything" baseline).

Each scenario loads the same ``--loads`` INSERTs of ``--rows`` rows (``numbers()``; nine rows in
ten have new keys, so the table grows like a fact table; every tenth updates a key of an earlier
load) into a UNIQUE KEY table. ``auto`` then settles as a table does once its loads stop: the
last rowsets leave the skip window and the job runs until a pass finds nothing to compact ("at
the end"). Then "a day later": the job's passes run with the clock a day ahead, as they would
the next day with no load meanwhile (Doris's idle-tablet rule, ``pick_rowset_to_compact_
interval_sec``, hands the last small rowsets to base compaction). Printed per scenario: files
per tablet at the end and on average after each load (what queries met while loading:
``every`` is at 1 file right after its compactions, at 10 just before), write amplification
(bytes compactions wrote / bytes the loads wrote), and the best of five timings (after an
untimed run) of a full scan (count and sum over every row, merge-on-read included) and of a
point query on the key; then each target checked at the end and a day later.

Scaling. The benchmark packs 300 loads into a few minutes, with loads of ~65 KB. Doris's
size-based policy works in MB (levels from cumulative_size_based_promotion_size_mbytes down to
cumulative_size_based_compaction_lower_size_mbytes, promotion at
cumulative_size_based_promotion_min_size_mbytes): with its defaults (64 MB) every rowset here
would sit on the lowest level. ``--lower-mb``, ``--promotion-min-mb`` and ``--promotion-max-mb``
(1, 1, 8) scale them down, so that a load of ~65 KB meets 1 MB levels as a load of ~4 MB meets
64 MB ones. Time is scaled too: a pass a second (``compaction_check_interval_seconds`` = 1,
not 10) and a skip window of ``--skip-window`` = 1 s (``cumulative_compaction_skip_window_seconds``,
not 30): a load comes every ~1.4 s here, so the unscaled window would hold ~20 fresh loads out
of every compaction, where in the production this stands for (a small load every few minutes)
it holds back the last one. Every other setting keeps the spec's default (docs/compaction.md).
The scaling applies to all three scenarios; only ``auto`` depends on it.

The loaded bytes are the loads' files as each load left them (before ``every`` compacts them).
``--requery DIR ...`` only times the queries again on warehouses kept with ``--keep``, in
rounds over the warehouses (best of five), and recomputes files per tablet and write
amplification from their Delta logs.

``deltalake``'s own ``optimize.compact()`` is not a fourth scenario: its output files lose the
``.v<N>.parquet`` names that dorisql's merge-on-read orders rows by (UNIQUE's latest row), so the
table it leaves would read wrong; dorisql's compaction keeps the version range in the name.

Targets (issue 12): write amplification of ``auto`` at most a third of ``every``'s; its file count
within 2x of ``every``'s; its query times within 1.3x of ``every``'s and at least 3x faster
than ``none``'s. Not a test: run by hand. ``--loads 60 --rows 2000`` is a quick run.

Measured 2026-11-26, ``python bench/compaction.py --loads 300 --keep DIR`` (defaults: 5000 rows
a load, 1 bucket, local[2]; 2 cores shared with other work, load average 3-6; that run read
``__commit_seq`` through a map of file names, since reverted: within 5% of the regular
expression on a quiet machine, and only ``none``'s scan depends on it)::

                         files  while loading  WA     full scan  point
    auto (at the end)    3.0    9.2            3.65   0.76 s     0.27 s
    auto (a day later)   1.0                   4.32   0.14 s     0.11 s
    none                 300    150.5          0      3.86 s     2.16 s
    every                1.0    5.5            10.34  0.13 s     0.11 s

- ok files while loading: 1.68x every's (target 2x). With the unscaled 30 s window: 32.4, 5.9x.
- ok at least 3x faster than none: at the end full scan 5.1x, point 7.9x; a day later 28.5x, 19.2x.
- a day later, ok: files 1.0x every's, full scan 1.02x, point 1.04x (targets 2x, 1.3x, 1.3x).
  At the end, missed: 3 files (the base, a promoted rowset waiting for base compaction's
  conditions, and the last loads, fewer than min_cumulative_compaction_num_singleton_deltas),
  whose UNIQUE merge costs the scan 5.8x and the point query 2.5x of every's single file.
- MISS write amplification: 0.35 of every's at the end, 0.42 a day later (target 1/3). Of the
  83 MB auto rewrites, 38 MB are cumulative compactions: below the lowest level (1 MB) every
  rowset is level 0, so each pass re-merges the growing output with the next 4 loads (210,
  419, 595, 769, 944 KB, promoted at 1.03 MB: 4 MB written per MB promoted), as the spec's
  policy does below cumulative_size_based_compaction_lower_size_mbytes; 45 MB are base
  compactions (2.1, 3.2, 5.3, 7.4, 10.5 MB, and 13.2 MB a day later), triggered by
  base_cumulative_delta_ratio 0.3. ``every``'s grows with the number of loads (each of its
  compactions rewrites the whole table), the policy's stays bounded, so the ratio falls with longer
  runs; at 300 loads it stays above a third with every setting at the spec's default.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from dorisql.compaction import executor, service
from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.jobs.runner import BackgroundScheduler
from dorisql.storage.spark import create_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DDL = "CREATE TABLE t (k INT NOT NULL, v BIGINT, pad VARCHAR(64)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS {b}"


def settings(args) -> dict[str, str]:
    return {
        "cumulative_size_based_compaction_lower_size_mbytes": str(args.lower_mb),
        "cumulative_size_based_promotion_min_size_mbytes": str(args.promotion_min_mb),
        "cumulative_size_based_promotion_size_mbytes": str(args.promotion_max_mb),
        "compaction_check_interval_seconds": "1",
        "cumulative_compaction_skip_window_seconds": str(args.skip_window),
    }


def load_sql(i: int, rows: int) -> str:
    # Mostly new keys (the table grows, as a fact table's does); every tenth row updates a key an
    # earlier load wrote, so the UNIQUE merge has work to do.
    earlier = max(i * rows, 1)
    key = (
        f"CASE WHEN number % 10 = 0 AND {i} > 0 THEN (number * 7919 + {i * 104729}) % {earlier} "
        f"ELSE {i * rows} + number END"
    )
    return (
        f"INSERT INTO t SELECT CAST({key} AS INT), {i}, "
        f"concat('load-{i}-', CAST(number AS STRING), '-padding-padding-padding') "
        f'FROM numbers("number" = "{rows}")'
    )


def compacted(path: str) -> bool:
    """A compaction's output (``.v<start>-<end>.parquet``, dorisql.tablets.rowsets.range_suffix),
    not a load's file (``.v<N>.parquet``)."""
    return "-" in path.rsplit(".v", 1)[-1]


def best_of(engine, sql: str, n: int = 5) -> float:
    """The best of `n` timings, after one untimed run (Spark compiles the query's code then)."""
    engine.execute_sql(sql)
    best = float("inf")
    for _ in range(n):
        started = time.perf_counter()
        engine.execute_sql(sql)
        best = min(best, time.perf_counter() - started)
    return best


def scenario(name: str, args, spark, root: Path) -> dict:

    warehouse = root / name
    config = Config(warehouse=str(warehouse), master=args.master)
    engine = Engine(config, spark=spark)
    engine.execute_sql("CREATE DATABASE d; USE d; " + DDL.format(b=args.buckets))
    for key, value in settings(args).items():
        engine.execute_sql(f'ADMIN SET FRONTEND CONFIG ("{key}" = "{value}")')
    if name != "auto":
        engine.execute_sql('ADMIN SET FRONTEND CONFIG ("disable_auto_compaction" = "true")')
    scheduler = None
    if name == "auto":
        scheduler = BackgroundScheduler(lambda: Engine(config, spark=spark), [scheduler.COMPACTION]).start()
    loaded: dict[str, int] = {}
    meta = engine.catalog.load_table("d", "t")
    path = service.table_tablets(engine, meta).store.path
    started = time.perf_counter()
    seen_files = 0.0  # files per tablet after each load, summed: what queries met meanwhile
    for i in range(args.loads):
        engine.execute_sql(load_sql(i, args.rows))
        tablets = service.table_tablets(engine, meta)
        for f in tablets.snapshot.files:  # before `every` compacts it: every load's bytes count
            if not compacted(f.path):  # a load's file (.v<N>.parquet)
                loaded.setdefault(f.path, f.size)
        if name == "every" and (i + 1) % args.every == 0:
            service.full_compaction(engine, meta)
            tablets = service.table_tablets(engine, meta)
        seen_files += len(tablets.snapshot.files) / max(1, len(tablets.views))
    load_seconds = time.perf_counter() - started
    if scheduler is not None:
        # Settle as a table does once its loads stop: the rowsets of the last seconds leave the
        # skip window, and the job compacts until a pass finds nothing more to do.
        window = float(engine.frontend("cumulative_compaction_skip_window_seconds"))
        time.sleep(window + 1)
        for _ in range(20):
            before = len(executor.TASKS.tasks())
            scheduler.trigger()
            scheduler.wait_for_passes(scheduler.passes + 1, timeout=600)
            if len(executor.TASKS.tasks()) == before:
                break
        scheduler.stop(timeout=600)
    result = {
        "scenario": name,
        "files_while_loading": seen_files / max(1, args.loads),
        "loaded_mb": sum(loaded.values()) / 2**20,
        "load_seconds": load_seconds,
        **measure(engine, meta, path, loaded),
    }
    if name == "auto":
        # A day later, with no load since: Doris's idle-tablet rule (pick_rowset_to_compact_
        # interval_sec) hands the last small rowsets to base compaction. The job's passes run
        # with the clock a day ahead, until two in a row compact nothing (a pass may only move
        # a cumulative point, for base compaction in the next).
        later = time.time() + float(engine.frontend("pick_rowset_to_compact_interval_sec")) + 1
        idle = 0
        while idle < 2:
            idle = 0 if service.run_pass(engine, clock=lambda: later).tasks else idle + 1
        result["day_later"] = measure(engine, meta, path, loaded)
    engine.close()
    return result


def measure(engine, meta, path: str, loaded: dict[str, int]) -> dict:
    """Files per tablet, the compactions so far and their write amplification, query times."""

    done = [t for t in executor.TASKS.tasks() if t.state == "FINISHED" and t.path == path]
    rewritten = sum(t.output_bytes for t in done)
    tablets = service.table_tablets(engine, meta)
    return {
        "files_per_tablet": len(tablets.snapshot.files) / max(1, len(tablets.views)),
        "compactions": len(done),
        "rewritten_mb": rewritten / 2**20,
        "write_amplification": rewritten / max(1, sum(loaded.values())),
        "scan_seconds": best_of(engine, "SELECT count(*), sum(v) FROM t"),
        "point_seconds": best_of(engine, "SELECT * FROM t WHERE k = 4242"),
        "rows": engine.execute_sql("SELECT count(*) FROM t")[0].rows[0][0],
    }


def from_log(table: Path) -> dict:
    """Files per tablet at the end and write amplification, recomputed from a kept table's Delta
    log (a compaction's output files are named ``.v<start>-<end>.parquet``, a load's ``.v<N>``)."""
    import json

    live: dict[str, str] = {}  # path -> tablet folder
    loaded = rewritten = 0
    for commit in sorted((table / "_delta_log").glob("*.json")):
        for line in commit.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                path = action["add"]["path"]
                live[path] = path.rsplit("/", 1)[0]
                if compacted(path):
                    rewritten += action["add"]["size"]
                else:
                    loaded += action["add"]["size"]
            elif "remove" in action:
                live.pop(action["remove"]["path"], None)
    tablets = len(set(live.values()))
    return {"files_per_tablet": len(live) / max(1, tablets), "write_amplification": rewritten / max(1, loaded)}


def requery(args, spark) -> None:
    """Time the queries again on kept warehouses (``--keep`` of earlier runs), all in this one
    session, in rounds that take each warehouse in turn (after one untimed run of each query),
    so that no scenario meets a colder or a busier machine than the others; best of five."""

    opened = []
    for root in args.requery:
        for name in ("auto", "none", "every"):
            warehouse = Path(root) / name
            if not warehouse.is_dir():
                continue
            engine = Engine(Config(warehouse=str(warehouse), master=args.master), spark=spark)
            engine.execute_sql("USE d")
            meta = engine.catalog.load_table("d", "t")
            opened.append((f"{name:>5} ({root})", engine, from_log(warehouse / "d" / str(meta.id))))
    queries = {"scan": "SELECT count(*), sum(v) FROM t", "point": "SELECT * FROM t WHERE k = 4242"}
    best = {(label, q): float("inf") for label, _, _ in opened for q in queries}
    for round_ in range(6):
        for label, engine, _ in opened:
            for q, sql in queries.items():
                started = time.perf_counter()
                engine.execute_sql(sql)
                if round_:  # the first round is the untimed one
                    best[label, q] = min(best[label, q], time.perf_counter() - started)
    for label, engine, logged in opened:
        print(
            f"{label}: {logged['files_per_tablet']:.1f} files/tablet, "
            f"WA {logged['write_amplification']:.2f} (from the Delta log), "
            f"full scan {best[label, 'scan']:.2f} s, point {best[label, 'point']:.2f} s",
            flush=True,
        )
        engine.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=300)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--buckets", type=int, default=1)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--lower-mb", type=int, default=1)
    parser.add_argument("--skip-window", type=int, default=1, help="cumulative_compaction_skip_window_seconds")
    parser.add_argument("--promotion-min-mb", type=int, default=1)
    parser.add_argument("--promotion-max-mb", type=int, default=8)
    parser.add_argument("--only", choices=["auto", "none", "every"], action="append")
    parser.add_argument("--keep", help="keep the warehouses in this folder")
    parser.add_argument("--requery", nargs="+", metavar="KEPT", help="only time the queries on these --keep folders")
    args = parser.parse_args(argv)

    executor.TASKS = executor.TaskLog(keep=1_000_000)  # every task counts towards the bytes rewritten

    spark = create_session(master=args.master)
    if args.requery:
        try:
            requery(args, spark)
        finally:
            spark.stop()
        return 0
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dorisql-bench-compaction-"))
    results = []
    try:
        for name in args.only or ["auto", "none", "every"]:
            results.append(scenario(name, args, spark, root))
            r = results[-1]
            print(
                f"{name:>5}: {r['files_while_loading']:.1f} files/tablet on average while loading, "
                f"loads {r['load_seconds']:.0f} s",
                flush=True,
            )
            for label, m in [("at the end", r), ("a day later", r.get("day_later"))]:
                if m is not None:
                    print(
                        f"       {label}: {m['files_per_tablet']:.1f} files/tablet, {m['compactions']} compactions, "
                        f"WA {m['write_amplification']:.2f} ({m['rewritten_mb']:.1f} MB / {r['loaded_mb']:.1f} MB), "
                        f"full scan {m['scan_seconds']:.2f} s, point {m['point_seconds']:.2f} s, {m['rows']} rows",
                        flush=True,
                    )
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    by = {r["scenario"]: r for r in results}
    if {"auto", "every", "none"} <= by.keys():
        b, n = by["every"], by["none"]
        print(
            f"  auto while loading: files {by['auto']['files_while_loading'] / b['files_while_loading']:.2f}x every's"
        )
        for label, a in [("at the end", by["auto"]), ("a day later", by["auto"]["day_later"])]:
            print(
                f"  auto {label}: WA {a['write_amplification'] / b['write_amplification']:.2f} of every's, "
                f"files {a['files_per_tablet'] / max(b['files_per_tablet'], 1):.1f}x, "
                f"full scan {a['scan_seconds'] / b['scan_seconds']:.2f}x every's and "
                f"{n['scan_seconds'] / a['scan_seconds']:.1f}x faster than none, "
                f"point {a['point_seconds'] / b['point_seconds']:.2f}x every's and "
                f"{n['point_seconds'] / a['point_seconds']:.1f}x faster than none"
            )
            checks = [
                ("write amplification <= 1/3 of every-N", a["write_amplification"] <= b["write_amplification"] / 3),
                ("files within 2x of every-N", a["files_per_tablet"] <= 2 * max(b["files_per_tablet"], 1)),
                ("full scan within 1.3x of every-N", a["scan_seconds"] <= 1.3 * b["scan_seconds"]),
                ("point query within 1.3x of every-N", a["point_seconds"] <= 1.3 * b["point_seconds"]),
                ("full scan >= 3x faster than none", n["scan_seconds"] >= 3 * a["scan_seconds"]),
                ("point query >= 3x faster than none", n["point_seconds"] >= 3 * a["point_seconds"]),
            ]
            for what, ok in checks:
                print(f"    {'ok  ' if ok else 'MISS'} {what}")
        ok = by["auto"]["files_while_loading"] <= 2 * b["files_while_loading"]
        print(f"  {'ok  ' if ok else 'MISS'} files within 2x of every-N (average while loading)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
