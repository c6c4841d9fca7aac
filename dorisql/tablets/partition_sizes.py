"""Each live partition's size and row count, from the Delta log (SHOW DATA, SHOW PROC, BUCKETS AUTO's
history)."""

from __future__ import annotations

from dorisql.catalog.model import TableMeta
from dorisql.session.session import Session
from dorisql.tablets.consistency import table_storage


def table_stats(session: Session, meta: TableMeta):
    """Per-partition size and rows of the live partitions, from the Delta log."""

    names = {key: name for name, key in meta.partition_keys().items()}  # Delta value -> partition name
    with table_storage(session.warehouse, meta) as store:
        stats = store.partition_stats()
    return {names[key]: s for key, s in stats.items() if key in names}
