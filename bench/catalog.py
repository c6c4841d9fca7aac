"""The catalog backends side by side: SQLite (the embedded default) and PostgreSQL.

    python bench/catalog.py [--tables 200] [--partitions 365] [--additions 1000] [--repeat 5]
                            [--postgres postgresql://user@host:port/db]

Both catalogs get the same ``--tables`` tables of ``--partitions`` daily partitions each (the
test suite's sample table: tests/catalog/catalog_samples.py), then, in the same run:

- cold read: a new Catalog (empty cache) lists every table's metadata (``list_table_metas``:
  fetch and decode every table), and loads each table once more by name;
- warm read: the same Catalog lists them again (only ids and versions are fetched: the decoded
  metadata is cached by (id, version)), median of ``--repeat`` runs; and loads every table by name;
- ``--additions`` partition additions: one ``update_table`` each (one conditional commit that
  adds one partition), spread round-robin over the tables.

It prints each time and the PostgreSQL/SQLite ratio. Without ``--postgres`` it starts a
throwaway server from ``initdb`` (tests/pgserver.py; as root it runs as ``nobody``), on this
machine, over TCP to 127.0.0.1, with ``fsync`` off; a remote server adds its network round trip
to every statement. Not a timed test: run it by hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dorisql.catalog.postgres import PostgresCatalog
from dorisql.catalog.store import SqliteCatalog
from dorisql.catalog.urls import redact

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "catalog"))


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def fill(cat, tables: int, partitions: int) -> None:
    import catalog_samples as samples

    cat.create_database("bench")
    template = samples.table_meta("bench", "t", n_partitions=partitions)
    for i in range(tables):
        cat.create_table(dataclasses.replace(template, name=f"t{i:04d}"))


def measure(open_catalog: Callable[[], object], tables: int, additions: int, repeat: int) -> dict[str, float]:
    import catalog_samples as samples

    names = [f"t{i:04d}" for i in range(tables)]
    out: dict[str, float] = {}
    cold = open_catalog()
    out["cold list_table_metas"] = timed(lambda: cold.list_table_metas())
    cold.close()
    cold = open_catalog()
    out["cold load_table x tables"] = timed(lambda: [cold.load_table("bench", n) for n in names])
    out["warm list_table_metas"] = statistics.median(timed(lambda: cold.list_table_metas()) for _ in range(repeat))
    out["warm load_table x tables"] = statistics.median(
        timed(lambda: [cold.load_table("bench", n) for n in names]) for _ in range(repeat)
    )

    day = dt.date(2030, 1, 1)

    def add(i: int) -> None:
        name = names[i % len(names)]
        start = day + dt.timedelta(days=i // len(names))
        part = samples.partitions(1, start=start)[0]
        cold.update_table("bench", name, lambda m: dataclasses.replace(m, partitions=m.partitions + (part,)))

    out[f"{additions} partition additions"] = timed(lambda: [add(i) for i in range(additions)])
    cold.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--partitions", type=int, default=365)
    parser.add_argument("--additions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--postgres", metavar="URL", help="an empty database (default: start a throwaway server)")
    args = parser.parse_args(argv)

    server = None
    url = args.postgres
    if url is None:
        from pgserver import PostgresServer, find_bin

        bindir = find_bin()
        if bindir is None:
            print("no PostgreSQL (initdb) on this machine: pass --postgres URL", file=sys.stderr)
            return 2
        server = PostgresServer(bindir).start()
        url = server.new_database()
    try:
        with tempfile.TemporaryDirectory(prefix="dorisql-bench-") as tmp:
            warehouse = Path(tmp) / "w"
            backends = {
                "SQLite": lambda: SqliteCatalog(warehouse),
                "PostgreSQL": lambda: PostgresCatalog(url),
            }
            results: dict[str, dict[str, float]] = {}
            for name, open_catalog in backends.items():
                cat = open_catalog()
                build = timed(lambda cat=cat: fill(cat, args.tables, args.partitions))
                cat.close()
                results[name] = {f"fill {args.tables} tables": build} | measure(
                    open_catalog, args.tables, args.additions, args.repeat
                )
            print(
                f"catalog: {args.tables} tables x {args.partitions} partitions; PostgreSQL at {redact(url)}"
                + (" (throwaway local server, fsync off)" if server else "")
            )
            print(f"{'':34} {'SQLite':>12} {'PostgreSQL':>12} {'PG/SQLite':>10}")
            for what in results["SQLite"]:
                lite, pg = results["SQLite"][what], results["PostgreSQL"][what]
                print(f"{what:34} {lite * 1000:10.1f}ms {pg * 1000:10.1f}ms {pg / lite:9.2f}x")
            per_lite = results["SQLite"][f"{args.additions} partition additions"] / args.additions
            per_pg = results["PostgreSQL"][f"{args.additions} partition additions"] / args.additions
            print(f"{'one partition addition':34} {per_lite * 1000:10.2f}ms {per_pg * 1000:10.2f}ms")
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
