"""Reading a table's stored rows: the one scan of a query (`scan_table`, a `TableScan`) and the
file reader it shares with compaction (`read_table_files`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dorisql.catalog.model import TableMeta
from dorisql.session.session import Session
from dorisql.storage.layout import COMMIT_VERSION_PATTERN, PARTITION_COLUMN, PARTITION_IN_PATH, commit_version
from dorisql.storage.snapshot import FileEntry
from dorisql.storage.spark_io import read_files
from dorisql.tablets.consistency import table_storage
from dorisql.tablets.deletes import DeleteVersion, applicable, apply_deletes, delete_versions
from dorisql.tablets.merge import MergedRows, key_model, merge_with_merged, needs_merge
from dorisql.tablets.rowsets import merged_are_oldest, merged_files
from dorisql.tablets.scans import SCANS
from dorisql.tablets.tables import (
    COMMIT_SEQ_COLUMN,
    LOAD_SEQ_COLUMN,
    ROW_SEQ_COLUMN,
    needs_sequence,
    spark_ddl_schema,
)
from dorisql.tablets.transactions import settle
from dorisql.translate.literals import default_sql
from dorisql.types import spark_type

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["TableScan", "scan_table", "read_table_files", "MERGE_JOIN_MAX_BYTES", "UNIQUE_ANTI_JOIN_MAX_ROWS"]

#: The most bytes of later rowsets whose keys a scan broadcasts to pass a compaction's merged rows
#: without a shuffle (dorisql.tablets.merge.merge_with_merged); Spark's own broadcast limit is 10 MB.
MERGE_JOIN_MAX_BYTES = 8 * 2**20


#: The most later rows whose keys and order a UNIQUE KEY scan broadcasts to find each key's
#: latest row without any shuffle, when the merged rows are the oldest (merge_with_merged):
#: about 40 bytes a row, so at most some 40 MB on the driver and each executor.
UNIQUE_ANTI_JOIN_MAX_ROWS = 1_000_000


@dataclass(frozen=True)
class TableScan:
    """What a scan of one table yields (`scan_table`; the query planner's `QuerySources.scan`).

    The stored rows come in up to two parts: `frame`, the rows that still meet the key-model
    merge, and `merged`, a compaction's output read apart (one row per key already; see
    dorisql.tablets.merge.MergedRows). `rows()` puts them together as Doris returns them.
    """

    meta: TableMeta
    #: The stored rows that need the key-model merge (every row when `merged` is None): the
    #: table's columns plus the hidden order columns (``__load_seq``, ``__row_seq``,
    #: ``__commit_seq``) a UNIQUE/AGGREGATE merge needs; delete versions already applied.
    frame: DataFrame
    #: Every data file the scan reads, `merged`'s included (their URIs, as Spark and pyarrow open
    #: them): the snapshot's list, so nobody asks Spark for it again.
    files: tuple[str, ...]
    #: The delete versions (DELETE FROM) applied to the files read, oldest first: a reader of
    #: `files` (the colocate join, dorisql.query.colocate_join) applies them too.
    deletes: tuple[DeleteVersion, ...] = ()
    #: The rows that need no merge among themselves, read apart (None: none).
    merged: MergedRows | None = None

    @property
    def key_model(self) -> str:
        """The merge rule the rows meet: DUPLICATE | UNIQUE | AGGREGATE (a merge-on-write UNIQUE
        table's rows meet none: DUPLICATE)."""
        return key_model(self.meta) if needs_merge(self.meta) else "DUPLICATE"

    def rows(self) -> DataFrame:
        """The table's rows as Doris returns them: key model applied, hidden columns gone."""
        return merge_with_merged(self.frame, self.merged, self.meta)


def scan_table(
    session: Session,
    meta: TableMeta,
    partitions: Sequence[str] | None = None,
    buckets: Mapping[str, Sequence[int] | set[int] | frozenset[int]] | None = None,
) -> TableScan:
    """The table's stored rows (before the key-model merge), pruned to the given partitions
    (names; None: all) and buckets ({partition: {bucket, ...}}; None: all), with the files they
    come from and the delete versions applied to them (see TableScan)."""

    keys = meta.partition_keys(partitions)  # name -> Delta partition value, live partitions only
    settle(session.catalog, session.warehouse, [meta])  # a committed transaction's rows: all of them
    with table_storage(session.warehouse, meta) as store:  # refuses a log behind the catalog
        snapshot = store.snapshot(partitions=set(keys.values()))
    chosen = None
    if buckets is not None:
        chosen = {keys[name]: set(wanted) for name, wanted in buckets.items() if name in keys}
    files = [
        f for f in snapshot.files if chosen is None or f.partition not in chosen or f.bucket in chosen[f.partition]
    ]

    SCANS.record(store.path, {(f.partition, f.bucket) for f in files})
    # Delete versions (DELETE FROM) hide the matching rows of the files committed before them.
    deletes = _deletes_for(snapshot, files)
    # A UNIQUE/AGGREGATE tablet's largest compaction output holds one row per key: read apart
    # (`merged`), its rows meet the key-model merge (a shuffle of every row it reads) only where
    # the tablet's later rowsets repeat their keys (dorisql.tablets.merge.merge_with_merged).
    done = merged_files(files) if needs_merge(meta) else set()
    unmerged = [f for f in files if f.path not in done]
    later_bytes = sum(f.size for f in unmerged)
    # UNIQUE KEY with the merged rows older than all others: one broadcast anti join finds every
    # key's latest row (merge.merge_with_merged), however the bytes compare, while the later
    # rows fit in a broadcast.
    oldest = bool(done) and key_model(meta) == "UNIQUE" and merged_are_oldest(files, done)
    later_rows = sum(f.num_records if f.num_records is not None else UNIQUE_ANTI_JOIN_MAX_ROWS + 1 for f in unmerged)
    anti_join = oldest and later_rows <= UNIQUE_ANTI_JOIN_MAX_ROWS
    # Else the joins pay only while the later rowsets are small enough to broadcast and the merged
    # rows are the bulk: else one merge of everything costs less than two shuffled joins more.
    too_big = later_bytes > MERGE_JOIN_MAX_BYTES or sum(f.size for f in files if f.path in done) < later_bytes
    if unmerged and not anti_join and too_big:
        done, unmerged = set(), files
    # A merge-on-write table's rows meet no merge: read as a DUPLICATE table's, without the order
    # columns (a delete version still needs each row's commit version).
    frame = read_table_files(session.spark, meta, unmerged, deletes, session.now(), ordered=needs_merge(meta))
    merged = None
    if done:
        # Alone, or the oldest rows under the anti join: the merged rows meet no order
        # comparison, so they are read without the order columns (``__commit_seq`` comes from
        # each row's file name: a per-row expression on the whole table), unless a delete
        # version needs that order.
        ordered = bool(deletes) or (bool(unmerged) and not anti_join)
        merged = MergedRows(
            read_table_files(
                session.spark, meta, [f for f in files if f.path in done], deletes, session.now(), ordered=ordered
            ),
            alone=not unmerged,
            oldest=oldest,
        )
    return TableScan(
        meta=meta,
        frame=frame,
        files=tuple(f.uri for f in files),
        deletes=deletes,
        merged=merged,
    )


def read_table_files(spark, meta: TableMeta, files, deletes=(), now=None, *, ordered: bool = True):
    """The files read with the table's current schema, delete versions applied: how queries
    and compaction (dorisql.compaction.executor) read a table's data files. With ``ordered``
    False (and no `deletes`) the rows come without the order columns (LOAD_SEQ, ROW_SEQ,
    COMMIT_SEQ): for rows that need no merge.

    A column added by ALTER TABLE ADD COLUMN after a file was committed is not read from that
    file at all (it may hold a dropped namesake, of another type) and gets the column's DEFAULT,
    as Doris fills it: files are read in groups of equal "columns to skip" (at most one group
    per ADD), then united. ``_metadata`` (a row's file: its version stamp and partition folder)
    is gone after a union, so each group gets its commit version and deletes before it."""
    import dataclasses
    from functools import reduce

    from pyspark.sql import functions as F

    definition = meta.definition
    added = dict(meta.column_versions)
    groups: dict[frozenset, list] = {}
    for f in files:
        stamp = commit_version(f.path)
        groups.setdefault(frozenset(n for n, since in added.items() if stamp < since), []).append(f)
    if not groups:
        groups[frozenset()] = []
    sequenced = needs_sequence(definition) and bool(files) and (ordered or bool(deletes))
    order = [f"`{c.name}`" for c in definition.columns]
    if sequenced:
        order += [LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN, COMMIT_SEQ_COLUMN]
    frames = []
    for skipped, group in groups.items():
        kept = tuple(c for c in definition.columns if c.name.lower() not in skipped)
        frame = read_files(spark, group, spark_ddl_schema(dataclasses.replace(definition, columns=kept)))
        if (sequenced or deletes) and group:
            frame = frame.withColumn(COMMIT_SEQ_COLUMN, _commit_seq())
        for c in definition.columns:
            if c.name.lower() in skipped:
                frame = frame.withColumn(c.name, F.expr(default_sql(c, now)).cast(spark_type(c.type)))
        if deletes and group:
            frame = _apply_deletes(frame, deletes)
        frames.append(frame.select(*order) if group else frame)
    return reduce(lambda a, b: a.unionByName(b), frames)


def _apply_deletes(frame, deletes):
    from pyspark.sql import functions as F

    scoped = any(d.partitions is not None for d in deletes)
    if scoped:
        folder = F.regexp_extract(F.col("_metadata.file_path"), PARTITION_IN_PATH, 1)
        frame = frame.withColumn(PARTITION_COLUMN, F.url_decode(folder))
    frame = apply_deletes(frame, deletes, PARTITION_COLUMN if scoped else None, COMMIT_SEQ_COLUMN)
    return frame.drop(PARTITION_COLUMN) if scoped else frame


def _commit_seq():
    """The Delta version a row's file was committed as (its ``.v<N>`` stamp; 0 without one).

    (A lookup of the file name in a map of the scanned files' versions was measured too: no
    faster on a quiet machine, and it printed every file name into EXPLAIN.)"""
    from pyspark.sql import functions as F

    version = F.regexp_extract(F.col("_metadata.file_name"), COMMIT_VERSION_PATTERN, 1)
    return F.when(version == "", F.lit(0)).otherwise(version.cast("long"))


def _deletes_for(snapshot, files: Sequence[FileEntry]) -> tuple[DeleteVersion, ...]:
    """The delete versions of the snapshot that apply to at least one of `files`."""

    live = delete_versions(snapshot)
    if not live:
        return ()
    used: dict[int, DeleteVersion] = {}
    for f in files:
        for d in applicable(live, f.partition, commit_version(f.path)):
            used[d.version] = d
    return tuple(used[v] for v in sorted(used))
