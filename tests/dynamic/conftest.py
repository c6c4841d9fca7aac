"""Dynamic partition tests: an Engine on a fresh warehouse, SQL in, SHOW output checked.

Most tests need no Spark: CREATE TABLE, ALTER TABLE SET and scheduler passes touch only the
catalog and the Delta log. Tests that load data ask for ``spark_engine`` (the shared session).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dorisql.engine import Engine
from dorisql.jobs import scheduler
from dorisql.tablets.tables import meta_dir

_KEYS = re.compile(r"keys: \[([^\]]*)\]")


class Harness:
    def __init__(self, engine: Engine):
        self.engine = engine

    @property
    def warehouse(self) -> Path:
        return Path(self.engine.warehouse)

    def sql(self, text: str):
        return self.engine.execute_sql(text)

    def one(self, text: str):
        results = self.sql(text)
        assert len(results) == 1
        return results[0]

    def at(self, now: str) -> Harness:
        self.sql(f"SET dorisql_now = '{now}'")
        return self

    def run_pass(self, now: str | None = None) -> scheduler.PassReport:
        if now is not None:
            self.at(now)
        return scheduler.run_pass(self.engine)

    def partitions(self, table: str) -> dict[str, tuple[str, str]]:
        """{name: (lower, upper)} from SHOW PARTITIONS (compare as dicts: order-free)."""
        result = self.one(f"SHOW PARTITIONS FROM {table}")
        cols = list(result.columns)
        name_i, range_i = cols.index("PartitionName"), cols.index("Range")
        out = {}
        for row in result.rows:
            keys = _KEYS.findall(row[range_i])
            out[row[name_i]] = (keys[0], keys[1])
        return out

    def names(self, table: str) -> list[str]:
        """Partition names in range order (SHOW PARTITIONS itself lists them by id)."""
        parts = self.partitions(table)
        return sorted(parts, key=lambda n: parts[n][0])

    def dynamic_rows(self, db: str | None = None) -> dict[str, dict[str, str]]:
        result = self.one("SHOW DYNAMIC PARTITION TABLES" + (f" FROM {db}" if db else ""))
        return {row[0]: dict(zip(result.columns, row, strict=True)) for row in result.rows}

    def folder(self, table: str, db: str = "d") -> Path:
        """The table's Delta folder (``<db>/<table id>``)."""
        return meta_dir(self.warehouse, self.engine.catalog.load_table(db, table))

    def key(self, table: str, partition: str, db: str = "d") -> str:
        """The Delta ``__partition`` value (partition id) of a live partition."""
        return self.engine.catalog.load_table(db, table).partition_keys([partition])[partition]

    def delta_versions(self) -> dict[str, int]:
        """{db.table: latest Delta commit number} of every table in the catalog."""
        out = {}
        for meta in self.engine.catalog.list_table_metas():
            log = meta_dir(self.warehouse, meta) / "_delta_log"
            versions = [int(p.name.split(".")[0]) for p in log.glob("*.json")]
            out[f"{meta.db}.{meta.name}"] = max(versions)
        return out

    def catalog_versions(self) -> dict[str, int]:
        return {f"{m.db}.{m.name}": m.version for m in self.engine.catalog.list_table_metas()}

    def delta_commit(self, table: str, version: int) -> list[dict]:
        db, name = table.split(".")
        path = self.folder(name, db) / "_delta_log" / f"{version:020d}.json"
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def h(tmp_path, make_engine) -> Harness:
    """A Spark-free engine on a fresh warehouse, with database d selected."""
    engine = make_engine(tmp_path / "wh")
    harness = Harness(engine)
    harness.sql("CREATE DATABASE d; USE d")
    yield harness
    engine.close()


@pytest.fixture
def hs(tmp_path, spark, make_engine) -> Harness:
    """Like ``h`` but bound to the shared SparkSession (loads and queries)."""
    engine = make_engine(tmp_path / "wh", spark=spark)
    harness = Harness(engine)
    harness.sql("CREATE DATABASE d; USE d")
    yield harness


def dynamic_table(name: str, column_type: str = "DATE", **props) -> str:
    """CREATE TABLE name (k1 <type>, v INT) PARTITION BY RANGE(k1) () ... with dynamic_partition.* props."""
    defaults = {"enable": "true", "prefix": "p", "buckets": "4"}
    defaults.update({k: str(v) for k, v in props.items()})
    body = ",\n".join(f'"dynamic_partition.{k}" = "{v}"' for k, v in defaults.items())
    return (
        f"CREATE TABLE {name} (k1 {column_type}, v INT) DUPLICATE KEY(k1) "
        f"PARTITION BY RANGE(k1) () DISTRIBUTED BY HASH(k1) PROPERTIES ({body})"
    )
