"""Engine integration tests: a real `Engine` on the session's local Spark and a temp warehouse.

Tables are read back through dorisql *and* with `deltalake` as an outside reader, so every
assertion is about what is really in the Delta table, not only what dorisql says.
"""

from __future__ import annotations

import os

import pytest

from dorisql.engine import Engine


@pytest.fixture(scope="module")
def engine(spark, tmp_path_factory, make_engine):
    """One engine per test module (tables are shared where that is honest), database `d` in use."""
    eng = make_engine(tmp_path_factory.mktemp("wh"), spark=spark)
    eng.execute_sql("CREATE DATABASE d; USE d")
    yield eng
    eng.close()


def run(engine: Engine, sql: str):
    """Run a script; the last statement's Result."""
    return engine.execute_sql(sql)[-1]


def rows(engine: Engine, sql: str) -> list[tuple]:
    return [tuple(r) for r in run(engine, sql).rows]


def scalar(engine: Engine, sql: str):
    return run(engine, sql).rows[0][0]


def table_path(engine: Engine, table: str, db: str = "d") -> str:
    """The table's Delta folder, as the catalog places it (``<db>/<table id>``)."""
    from dorisql.tablets.tables import meta_dir

    return str(meta_dir(engine.warehouse, engine.catalog.load_table(db, table)))


def table_folders(engine: Engine, db: str = "d") -> set[str]:
    """Every table folder on disk in the database's folder (listed or not)."""
    base = engine.warehouse / db
    return {str(base / name) for name in os.listdir(base) if (base / name).is_dir()}


def delta(engine: Engine, table: str, db: str = "d"):
    from deltalake import DeltaTable

    return DeltaTable(table_path(engine, table, db))


def delta_version(engine: Engine, table: str, db: str = "d") -> int:
    return delta(engine, table, db).version()


def partition_names(engine: Engine, table: str, db: str = "d") -> dict[str, str]:
    """Delta ``__partition`` value (the partition id) -> partition name, for live partitions."""
    meta = engine.catalog.load_table(db, table)
    return {key: name for name, key in meta.partition_keys().items()}


def partition_key(engine: Engine, table: str, partition: str, db: str = "d") -> str:
    """The Delta ``__partition`` value of a live partition."""
    return engine.catalog.load_table(db, table).partition_keys([partition])[partition]


def delta_rows(engine: Engine, table: str, columns=None, db: str = "d") -> list[dict]:
    """The table's stored rows as an outside Delta reader sees them (hidden columns included),
    with ``__partition`` (a partition id) shown as the live partition's name."""
    names = partition_names(engine, table, db)
    found = delta(engine, table, db).to_pyarrow_table(columns=columns).to_pylist()
    for row in found:
        if "__partition" in row:
            row["__partition"] = names.get(row["__partition"], row["__partition"])
    return found


def delta_count(engine: Engine, table: str, db: str = "d") -> int:
    return delta(engine, table, db).to_pyarrow_table().num_rows


def parquet_files_on_disk(path: str) -> set[str]:
    found = set()
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d not in ("_delta_log", "_staging")]
        for f in files:
            if f.endswith(".parquet"):
                found.add(os.path.relpath(os.path.join(root, f), path))
    return found
