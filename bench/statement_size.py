"""Statement size: dorisql's own work on a statement must be linear in its size.

    python bench/statement_size.py [--small 10000] [--large 100000] [--shapes consts,calls,in,values]

For each shape, a statement of `--small` and one of `--large` items is put through what dorisql
does in Python before Spark sees anything (no Spark is started):

- ``parse``: dorisql.syntax.parse_one (statement split, size and nesting limits, the query read
  by sqlglot or the statement by the Lark grammar, dorisql.analysis.checks);
- ``plan`` (queries): the engine's SELECT path up to the Spark SQL text: the check for a SELECT
  of constants only (translate.variables.constant_select), then query.planner.plan_query (items
  named by their text, the function allow-list, Doris → Spark rewrites, the Spark SQL written).

Shapes: ``consts`` is ``SELECT 0, 1, ..., n-1``; ``calls`` is ``SELECT ifnull(abs(0), 1), ...``;
``in`` is ``SELECT 1 FROM t WHERE k IN (0, ..., n-1)``; ``values`` is ``INSERT INTO t VALUES``
with n rows of four values. It prints the time per item at both sizes and their ratio: linear
work is about 1x; quadratic work grows with the size ratio (10x for 10k vs 100k).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

from dorisql import ast
from dorisql.query.planner import plan_query
from dorisql.syntax import parse_one
from dorisql.translate.variables import SessionIdentity, constant_select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SHAPES = {
    "consts": lambda n: "SELECT " + ", ".join(str(i) for i in range(n)),
    "calls": lambda n: "SELECT " + ", ".join(f"ifnull(abs({i}), 1)" for i in range(n)),
    "in": lambda n: "SELECT 1 FROM t WHERE k IN (" + ", ".join(str(i) for i in range(n)) + ")",
    "values": lambda n: "INSERT INTO t VALUES " + ", ".join(f"({i}, 'name {i}', 1.5, NULL)" for i in range(n)),
}


def dorisql_work(sql: str) -> dict[str, float]:
    """Seconds of each step of dorisql's own work on `sql`."""

    times = {}
    start = time.perf_counter()
    statement = parse_one(sql)
    times["parse"] = time.perf_counter() - start
    if isinstance(statement, ast.Query) and not statement.tables:
        start = time.perf_counter()
        constant_select(statement.sql, {}, SessionIdentity(database=None, connection_id=1))
        plan_query(None, statement, resolve_table=lambda t: None, scan=lambda *a: None, current_db=None)
        times["plan"] = time.perf_counter() - start
    return times


def measure(sql: str, rounds: int) -> dict[str, float]:
    """The best of `rounds` runs of each step (a shared machine's slow moments left out); the
    collector runs between rounds, not during them (its passes over a large tree are noise)."""
    best: dict[str, float] = {}
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            times = dorisql_work(sql)
        finally:
            gc.enable()
        for step, seconds in times.items():
            best[step] = min(best.get(step, seconds), seconds)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=10_000)
    ap.add_argument("--large", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    args = ap.parse_args()
    dorisql_work("SELECT 1")  # build the parsers first: their start-up is not the statement's
    print(f"{'shape':8} {'step':6} {'items':>8} {'MB':>6} {'seconds':>8} {'us/item':>8}   ratio")
    for shape in args.shapes.split(","):
        per_item: dict[str, list[float]] = {}
        for n in (args.small, args.large):
            sql = SHAPES[shape](n)
            for step, seconds in measure(sql, args.rounds).items():
                per_item.setdefault(step, []).append(seconds / n)
                print(f"{shape:8} {step:6} {n:8} {len(sql) / 1e6:6.2f} {seconds:8.2f} {seconds / n * 1e6:8.1f}")
        for step, (small, large) in per_item.items():
            print(f"{shape:8} {step:6} time per item, {args.large} vs {args.small} items: {large / small:.2f}x")


if __name__ == "__main__":
    main()
