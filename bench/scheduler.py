"""Dynamic partition scheduler: an idle pass vs a pass that creates one partition per table.

    python bench/scheduler.py [--tables 200] [--partitions 365] [--repeat 5]

Builds a temporary warehouse with ``--tables`` dynamic DAY tables of ``--partitions`` partitions
each (one CREATE TABLE through SQL with create_history_partition, then catalog clones of it and
an empty Delta table each), then times, with the clock pinned:

- the idle pass: same "now" as the creation, nothing to do (median of ``--repeat`` runs);
- the creating pass: the clock one day later, so every table gets one new partition
  (the baseline of the ratio: it does the same planning plus one catalog commit per table).

It checks that the idle passes made zero Delta commits (every table's latest Delta version,
compared before and after) and zero catalog table commits, and prints both times and the ratio.
A pass plans from the catalog alone: it never opens a Delta log unless a partition with files
is dropped. Not a timed test: run it by hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dorisql import ast
from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.jobs import scheduler
from dorisql.storage.delta import DeltaStore
from dorisql.storage.log import DDL_PROPERTY
from dorisql.tablets.tables import arrow_schema, meta_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def delta_versions(warehouse: Path) -> dict[str, int]:
    out = {}
    for log in warehouse.glob("*/*/_delta_log"):
        out[f"{log.parent.parent.name}.{log.parent.name}"] = max(int(p.name.split(".")[0]) for p in log.glob("*.json"))
    return out


def build(warehouse: Path, tables: int, partitions: int, now: str):

    engine = Engine(Config(warehouse=str(warehouse)))
    engine.execute_sql(f"""
        ADMIN SET FRONTEND CONFIG ("max_dynamic_partition_num" = "{max(partitions, 500)}");
        SET dorisql_now = '{now}';
        CREATE DATABASE bench; USE bench;
        CREATE TABLE t0000 (k1 DATE, k2 INT, v BIGINT SUM) AGGREGATE KEY(k1, k2)
        PARTITION BY RANGE(k1) () DISTRIBUTED BY HASH(k2) BUCKETS 4
        PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY",
                    "dynamic_partition.end" = "1", "dynamic_partition.prefix" = "p",
                    "dynamic_partition.create_history_partition" = "true",
                    "dynamic_partition.history_partition_num" = "{partitions - 2}",
                    "dynamic_partition.time_zone" = "UTC")""")
    template = engine.catalog.load_table("bench", "t0000")
    assert len(template.partitions) == partitions, len(template.partitions)
    ddl = DeltaStore(meta_dir(engine.warehouse, template)).properties().get(DDL_PROPERTY, "")
    for i in range(1, tables):
        name = f"t{i:04d}"
        clone = dataclasses.replace(
            template,
            id=0,
            name=name,
            version=0,
            definition=dataclasses.replace(template.definition, table=ast.TableName(name, "bench")),
            partitions=tuple(dataclasses.replace(p, id=0) for p in template.partitions),
        )
        meta = engine.catalog.create_table(clone)
        DeltaStore.create(
            meta_dir(engine.warehouse, meta),
            arrow_schema(meta.definition),
            properties={DDL_PROPERTY: ddl.replace("t0000", name)},
        )
    return engine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--partitions", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    now = dt.datetime(2021, 6, 1, 10, 0, 0)
    with tempfile.TemporaryDirectory(prefix="dorisql-bench-sched-") as tmp:
        warehouse = Path(tmp) / "wh"
        started = time.perf_counter()
        engine = build(warehouse, args.tables, args.partitions, now.strftime("%Y-%m-%d %H:%M:%S"))
        print(
            f"warehouse: {args.tables} tables x {args.partitions} partitions built in "
            f"{time.perf_counter() - started:.1f} s"
        )

        # a fresh engine, as `dorisql scheduler --once` would have (cold catalog cache first)

        engine.close()
        engine = Engine(Config(warehouse=str(warehouse)))
        engine.session_vars["dorisql_now"] = now.strftime("%Y-%m-%d %H:%M:%S")
        delta_before = delta_versions(warehouse)
        catalog_before = {m.name: m.version for m in engine.catalog.list_table_metas()}

        cold_start = time.perf_counter()
        report = scheduler.run_pass(engine)
        cold = time.perf_counter() - cold_start
        assert report.tables == args.tables and not report.created and not report.dropped, report.summary()
        idle_times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            report = scheduler.run_pass(engine)
            idle_times.append(time.perf_counter() - t0)
            assert not report.created and not report.dropped and not report.errors, report.summary()
        delta_after = delta_versions(warehouse)
        catalog_after = {m.name: m.version for m in engine.catalog.list_table_metas()}
        delta_commits = sum(delta_after[k] - delta_before[k] for k in delta_before)
        catalog_commits = sum(catalog_after[k] - catalog_before[k] for k in catalog_before)

        engine.session_vars["dorisql_now"] = (now + dt.timedelta(days=1)).strftime("%Y-%m-%d %H:%M:%S")
        t0 = time.perf_counter()
        report = scheduler.run_pass(engine)
        creating = time.perf_counter() - t0
        made = sum(len(v) for v in report.created.values())
        assert made == args.tables and not report.dropped and not report.errors, report.summary()
        delta_created = delta_versions(warehouse)
        creating_delta_commits = sum(delta_created[k] - delta_after[k] for k in delta_after)

        idle = statistics.median(idle_times)
        print(f"idle pass (cold catalog cache):      {cold * 1000:8.1f} ms")
        print(
            f"idle pass (median of {args.repeat}):            {idle * 1000:8.1f} ms  "
            f"({idle / args.tables * 1e6:.0f} us per table)"
        )
        print(
            f"creating pass (1 partition per table): {creating * 1000:8.1f} ms  "
            f"({creating / args.tables * 1e3:.2f} ms per table)"
        )
        print(f"ratio idle / creating: {idle / creating:.3f}   (creating / idle: {creating / idle:.1f}x)")
        print(f"Delta commits during the idle passes: {delta_commits}; catalog table commits: {catalog_commits}")
        print(f"Delta commits during the creating pass: {creating_delta_commits} (creating is metadata only)")
        ok = delta_commits == 0 and catalog_commits == 0 and creating_delta_commits == 0
        print("OK" if ok else "FAILED: an idle pass or a creation wrote to a Delta log / the catalog")
        engine.close()
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
