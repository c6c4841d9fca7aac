"""ALTER TABLE ... COLUMN on Delta: a commit of a new schema alone, or of every file rewritten
with renamed columns (``DeltaStore.change_schema``, ``DeltaStore.rename_columns``)."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from dorisql.storage import fs
from dorisql.storage.layout import BUCKET_COLUMN, COMMIT_VERSION_PATTERN, PARTITION_COLUMN
from dorisql.storage.locks import table_lock
from dorisql.storage.log import DeltaLog, commit_info
from dorisql.storage.snapshot import FileEntry
from dorisql.storage.staging import write_parquet
from dorisql.storage.stats import read_footer_stats

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

__all__ = ["change_schema", "rename_columns"]


def change_schema(
    log: DeltaLog,
    arrow_schema: pa.Schema,
    *,
    statement: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> int:
    """Commit a new table schema without touching any file; returns the version it became.
    See ``DeltaStore.change_schema``."""
    from deltalake.transaction import CommitProperties

    with table_lock(log.path, log.lock_timeout):
        dt = log._table()
        txn = uuid.uuid4().hex
        info = commit_info("dorisql SCHEMA CHANGE", txn, statement, metadata)
        before = dt.version()
        dt.create_write_transaction(
            [],
            mode="overwrite",
            schema=arrow_schema,
            partition_by=list(log.partition_by),
            # no partition has this value (ids are numbers, names are identifiers): nothing removed
            partition_filters=[(PARTITION_COLUMN, "=", f"/dorisql-schema-change/{txn}")],
            commit_properties=CommitProperties(custom_metadata=info),
        )
        return log._find_commit(dt, before, txn)


def rename_columns(
    log: DeltaLog,
    arrow_schema: pa.Schema,
    renames: Mapping[str, str],
    *,
    statement: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> int:
    """Every data file rewritten with the renamed columns, and the new schema, in one commit
    (returns its version). See ``DeltaStore.rename_columns``."""
    from deltalake.transaction import CommitProperties

    lowered = {old.lower(): new for old, new in renames.items()}
    with table_lock(log.path, log.lock_timeout):
        dt = log._table()
        snap = log._snapshot_of(dt)
        tag = uuid.uuid4().hex[:12]
        written: list[str] = []

        try:
            with ThreadPoolExecutor(max_workers=max(1, min(fs.FILE_THREADS, len(snap.files)))) as pool:
                adds = list(pool.map(lambda f: _renamed_copy(log.path, f, lowered, tag, written), snap.files))
            txn = uuid.uuid4().hex
            info = commit_info("dorisql RENAME COLUMN", txn, statement, metadata)
            before = dt.version()
            # overwrite without a filter: every file of the snapshot (read under this lock) is
            # removed and replaced by its copy, with the new schema, in one commit
            dt.create_write_transaction(
                adds,
                mode="overwrite",
                schema=arrow_schema,
                partition_by=list(log.partition_by),
                commit_properties=CommitProperties(custom_metadata=info),
            )
        except BaseException:
            fs.remove_files(written)
            raise
        return log._find_commit(dt, before, txn)


def _renamed_copy(table_path: str, f: FileEntry, lowered: Mapping[str, str], tag: str, written: list[str]):
    """A copy of ``f`` next to it holding each column of ``lowered`` (old name, lower case) under
    its new name too (its path added to ``written`` before it is written); returns its ``add``
    action (``dataChange`` false)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from deltalake.transaction import AddAction

    source = os.path.join(table_path, f.path)
    table = pq.read_table(source)
    for name in list(table.column_names):
        target = lowered.get(name.lower())
        if target is None:
            continue
        field = pa.field(target, table.schema.field(name).type)
        at = table.schema.get_field_index(target)
        # a namesake left in the file by a dropped column is replaced, never kept
        table = table.set_column(at, field, table[name]) if at >= 0 else table.append_column(field, table[name])
    m = re.search(COMMIT_VERSION_PATTERN, f.path)
    stem = f.path[: m.start()] if m else f.path[: -len(".parquet")]
    rel = f"{stem}.rn{tag}" + (f".v{m.group(1)}.parquet" if m else ".parquet")
    target_path = os.path.join(table_path, rel)
    written.append(target_path)
    write_parquet(table, target_path)
    footer = read_footer_stats(target_path)
    return AddAction(
        path=rel,
        size=footer.size,
        partition_values={PARTITION_COLUMN: f.partition, BUCKET_COLUMN: str(f.bucket)},
        modification_time=int(os.path.getmtime(target_path) * 1000),
        data_change=False,
        stats=footer.stats_json,
    )
