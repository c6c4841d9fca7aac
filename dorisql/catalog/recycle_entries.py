"""Recycle bin entries for the partitions a table change drops: each with the files its Delta
partition value holds in the snapshot the drop removes (RECOVER PARTITION adds them back)."""

from __future__ import annotations

import datetime as dt

from dorisql.catalog.base import (
    RECYCLED_PARTITION,
    RecycleBinEntry,
    RecycledFile,
)
from dorisql.catalog.model import TableMeta


def partition_entries(
    before: TableMeta,
    after: TableMeta,
    files_by_key: dict[str, list[RecycledFile]],
    db_id: int,
    dropped_at: dt.datetime,
) -> list[RecycleBinEntry]:
    """Bin entries for the partitions a table change dropped (in `before`, not in `after`;
    temporary ones too, which a whole-table TRUNCATE recycles as Doris does), each with the files
    its Delta partition value holds in the snapshot the drop removes."""
    kept = {p.id for p in after.partitions + after.temp_partitions}
    entries = []
    for p in before.partitions + before.temp_partitions:
        if p.id in kept:
            continue
        key = before.partition_key(p)
        entries.append(
            RecycleBinEntry(
                kind=RECYCLED_PARTITION,
                id=p.id,
                name=p.name,
                db_id=db_id,
                db_name=before.db,
                table_id=before.id,
                dropped_at=dropped_at,
                partition=p,
                storage_key=key,
                files=tuple(files_by_key.get(key, ())),
            )
        )
    return entries


def files_by_partition(snapshot) -> dict[str, list[RecycledFile]]:
    """A Delta snapshot's files by partition value, as bin entries record them."""
    out: dict[str, list[RecycledFile]] = {}
    for f in snapshot.files:
        out.setdefault(f.partition, []).append(
            RecycledFile(
                path=f.path,
                bucket=f.bucket,
                size=f.size,
                num_records=f.num_records,
                modification_time=f.modification_time,
            )
        )
    return out
