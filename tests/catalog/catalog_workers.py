"""Entry points for the catalog's multi-process tests (run under the `spawn` start method)."""

from __future__ import annotations

import random
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from dorisql.ast import props  # noqa: E402
from dorisql.catalog.store import SqlCatalog, SqliteCatalog  # noqa: E402
from dorisql.errors import CommitConflictError  # noqa: E402


def open_spec(spec: str, **options) -> SqlCatalog:
    """The catalog a test names by its warehouse folder (SQLite) or a ``postgresql://`` URL."""
    if spec.startswith("postgresql://"):
        from dorisql.catalog.postgres import PostgresCatalog

        return PostgresCatalog(spec, **options)
    return SqliteCatalog(spec, **options)


def increment(meta, worker: int):
    p = props(meta.definition.properties)
    p["counter"] = str(int(p.get("counter", "0")) + 1)
    p["last_worker"] = str(worker)
    return replace(meta, definition=replace(meta.definition, properties=tuple(p.items())))


def bump_counter(spec: str, worker: int, rounds: int, start, results) -> None:
    """`rounds` read-modify-commit increments of db1.counter's "counter" property, retrying conflicts;
    also creates its own tables and draws ids, to race those paths too."""
    import catalog_samples as samples

    cat = open_spec(spec)
    start.wait()
    conflicts = 0
    ids = []
    for i in range(rounds):
        while True:
            meta = cat.load_table("db1", "counter")
            time.sleep(random.random() * 0.002)  # "work" between read and commit widens the race
            try:
                cat.commit_table(increment(meta, worker))
                break
            except CommitConflictError:
                conflicts += 1
        ids.append(cat.next_id())
        if i % 10 == 0:
            created = cat.create_table(samples.table_meta("db1", f"w{worker}_{i}", n_partitions=2))
            ids.append(created.id)
            ids.extend(p.id for p in created.partitions)
            cat.create_table(samples.table_meta("db1", "shared", n_partitions=1), if_not_exists=True)
    cat.close()
    results.put((worker, conflicts, ids))
