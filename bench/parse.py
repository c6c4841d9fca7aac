"""Parse speed: dorisql's front end against sqlglot (read="doris") on the Doris DDL corpus
(tests/data/corpus).

    python bench/parse.py [--rounds N] [--corpus DIR]

Both parsers read the same statements in the same run; the parser objects are built before
timing starts (dorisql's LALR tables, sqlglot's dialect). dorisql statements that are "not
supported" (AUTO PARTITION, ...) stop as soon as they are recognised; sqlglot statements that
it cannot parse are timed as well, up to the error. Prints statements/second for both and
the ratio dorisql/sqlglot (above 1 means dorisql is faster).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from dorisql.errors import DorisqlError
from dorisql.syntax import parse_statement

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / "tests" / "data" / "corpus"


def load(corpus: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(corpus.glob("*.sql"))]


def run_dorisql(statements: list[str]) -> int:

    ok = 0
    for text in statements:
        try:
            parse_statement(text)
            ok += 1
        except DorisqlError:
            pass
    return ok


def run_sqlglot(statements: list[str]) -> int:
    import sqlglot
    from sqlglot.errors import SqlglotError

    ok = 0
    for text in statements:
        try:
            sqlglot.parse_one(text, read="doris")
            ok += 1
        except SqlglotError:
            pass
    return ok


def timed(runs: dict, statements: list[str], rounds: int) -> dict:
    """Best time of `rounds` passes for each parser. The parsers take turns within a round, so
    a slow moment of a shared machine hits both rather than one."""
    for fn in runs.values():
        fn(statements)  # warm up: build parsers, fill caches
    best = {name: float("inf") for name in runs}
    ok = {}
    for _ in range(rounds):
        for name, fn in runs.items():
            t0 = time.perf_counter()
            ok[name] = fn(statements)
            best[name] = min(best[name], time.perf_counter() - t0)
    return {name: (best[name], ok[name]) for name in runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args()
    statements = load(args.corpus)
    if not statements:
        raise SystemExit(f"no .sql files in {args.corpus}")
    import logging

    import sqlglot

    # sqlglot warns for each statement it falls back to a generic Command for; printing those
    # would time the terminal, not the parser.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    results = timed({"dorisql": run_dorisql, "sqlglot": run_sqlglot}, statements, args.rounds)
    (d_time, d_ok), (s_time, s_ok) = results["dorisql"], results["sqlglot"]
    n = len(statements)
    d_rate, s_rate = n / d_time, n / s_time
    print(f"corpus: {n} statements, {sum(map(len, statements)) / 1024:.0f} KiB ({args.corpus})")
    print(f"dorisql : {d_rate:10.0f} statements/s  ({d_ok} parsed, best of {args.rounds})")
    print(f"sqlglot : {s_rate:10.0f} statements/s  ({s_ok} parsed, sqlglot {sqlglot.__version__})")
    print(f"ratio dorisql/sqlglot: {d_rate / s_rate:.2f}")


if __name__ == "__main__":
    main()
