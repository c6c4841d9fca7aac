"""Point queries: the engine-side cost of a short-circuit point query, and the Spark path's.

    python bench/point_query.py [--rows 40000] [--loads 50] [--queries 500]

On a fresh warehouse (local[2] Spark), per key model (DUPLICATE, UNIQUE merge-on-read, UNIQUE
merge-on-write): `--rows` rows loaded by one INSERT ... SELECT, then `--loads` small INSERTs
of 20 rows each over the same keys (no compaction). Then, for random keys, the time of:

- ``execute``: `Engine.execute` of a parsed ``SELECT * FROM t WHERE k = <key>`` (the short path);
- ``text``: `Engine.execute_sql` of the text (dorisql's parse too: what a COM_QUERY costs);
- ``prepared``: a prepared statement's COM_STMT_EXECUTE without the network: the parameter
  bound into the text (dorisql.server.wire.bind), then `execute_sql`;
- ``spark``: the same query with ``enable_short_circuit_query = false`` (a few only).

It prints p50 / p99 in milliseconds, the queries per second of one thread, and the median CPU
time of the querying thread (the engine's own cost when other processes share the cores).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dorisql.config import Config  # noqa: E402
from dorisql.engine import Engine  # noqa: E402
from dorisql.server import wire  # noqa: E402

#: Key model -> (its key clause, extra table properties).
MODELS = {
    "DUPLICATE": ("DUPLICATE KEY(k)", ""),
    "UNIQUE merge-on-read": ("UNIQUE KEY(k)", ', "enable_unique_key_merge_on_write" = "false"'),
    "UNIQUE merge-on-write": ("UNIQUE KEY(k)", ""),
}


def _ddl(name: str, model: str) -> str:
    keys, extra = MODELS[model]
    return (
        f"CREATE TABLE {name} (k BIGINT NOT NULL, name VARCHAR(32), amount DECIMAL(12,2), at DATETIME, flag BOOLEAN) "
        f'{keys} DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES ("replication_num" = "1"{extra})'
    )


def _times(run, keys) -> tuple[list[float], list[float]]:
    """Wall-clock and this thread's CPU milliseconds of each run (the CPU time is the engine's
    own cost, whatever else the machine's cores are busy with)."""
    wall, cpu = [], []
    for key in keys:
        started, started_cpu = time.perf_counter(), time.thread_time()
        run(key)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)
    return wall, cpu


def _line(label: str, measured: tuple[list[float], list[float]]) -> str:
    wall, cpu = sorted(measured[0]), sorted(measured[1])
    p50 = statistics.median(wall)
    p99 = wall[min(len(wall) - 1, int(len(wall) * 0.99))]
    return (
        f"  {label:9} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   {1000 / statistics.mean(wall):7.0f} q/s"
        f"   CPU p50 {statistics.median(cpu):6.2f} ms"
    )


def _measure(engine: Engine, name: str, keys: list[int]) -> None:
    parsed = {k: engine.parse(f"SELECT * FROM {name} WHERE k = {k}")[0] for k in keys}
    template = f"SELECT * FROM {name} WHERE k = ?"
    marks = [template.index("?")]
    assert engine.execute(parsed[keys[0]]).rows, "a loaded key must be found"
    _times(lambda k: engine.execute(parsed[k]), keys[:20])  # warm the caches
    print(_line("execute", _times(lambda k: engine.execute(parsed[k]), keys)))
    print(_line("text", _times(lambda k: engine.execute_sql(f"SELECT * FROM {name} WHERE k = {k}"), keys)))
    print(_line("prepared", _times(lambda k: engine.execute_sql(wire.bind(template, marks, [k])), keys)))
    engine.execute_sql("SET enable_short_circuit_query = false")
    print(_line("spark", _times(lambda k: engine.execute(parsed[k]), keys[:5])))
    engine.execute_sql("SET enable_short_circuit_query = true")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40000)
    parser.add_argument("--loads", type=int, default=50)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    rnd = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="dorisql-point-") as base:
        engine = Engine(Config(warehouse=str(Path(base) / "wh"), master="local[2]"))
        engine.execute_sql("CREATE DATABASE b; USE b")
        for i, model in enumerate(MODELS):
            name = f"t{i}"
            engine.execute_sql(_ddl(name, model))
            engine.execute_sql(
                f"INSERT INTO {name} SELECT number, concat('name', number), number / 100, "
                f'\'2024-01-01 00:00:00\', number % 2 = 0 FROM numbers("number" = "{args.rows}")'
            )
            for _ in range(args.loads):
                values = ", ".join(
                    f"({rnd.randrange(args.rows)}, 'again', 1.5, '2024-02-02 10:00:00', true)" for _ in range(20)
                )
                engine.execute_sql(f"INSERT INTO {name} VALUES {values}")
            print(f"{model} ({args.rows} rows + {args.loads} loads of 20 rows):")
            _measure(engine, name, [rnd.randrange(args.rows) for _ in range(args.queries)])
        engine.close()


if __name__ == "__main__":
    main()
