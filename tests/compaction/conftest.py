"""Helpers of the compaction tests (as tests/engine/conftest.py's)."""

from __future__ import annotations

import os

from dorisql.engine import Engine


def run(engine: Engine, sql: str):
    return engine.execute_sql(sql)[-1]


def rows(engine: Engine, sql: str) -> list[tuple]:
    return [tuple(r) for r in run(engine, sql).rows]


def table_path(engine: Engine, table: str, db: str = "d") -> str:
    from dorisql.tablets.tables import meta_dir

    return str(meta_dir(engine.warehouse, engine.catalog.load_table(db, table)))


def parquet_files_on_disk(path: str) -> set[str]:
    found = set()
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d not in ("_delta_log", "_staging")]
        found |= {os.path.relpath(os.path.join(root, f), path) for f in files if f.endswith(".parquet")}
    return found
