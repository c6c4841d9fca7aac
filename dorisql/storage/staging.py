"""A statement's new data files before their commit: written into ``_staging/<txn>/``, moved
into their tablet folders, renamed with the version they commit as.

Spark (a DataFrame) or pyarrow (a small load's rows, already collected as an Arrow table) writes
the rows in the Hive layout ``__partition=<p>/__bucket=<b>/*.parquet`` under the staging folder;
`collect` moves each file into the same tablet folder of the table and reads its footer (size,
rows, Delta stats) for its ``add`` action. Nothing here commits (dorisql.storage.delta does) and
nothing collects data to the driver. On failure `Staged.discard` deletes what was written.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import TYPE_CHECKING, Any

from dorisql.errors import ExecutionError
from dorisql.storage import fs, sizing
from dorisql.storage.layout import (
    BUCKET_COLUMN,
    HIVE_NULL,
    PARTITION_COLUMN,
    STAGING_DIR,
    escape_path_name,
    folder_value,
    tablet_folder,
    unescape_path_name,
)
from dorisql.storage.log import add_action
from dorisql.storage.snapshot import FileEntry
from dorisql.storage.stats import read_footer_stats

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

__all__ = [
    "Staged",
    "new_staging_dir",
    "check_layout_columns",
    "write_rows",
    "collect",
    "rename_staged",
    "row_bytes",
    "write_parquet",
]

_NULL_LAYOUT = f"rows with a NULL {PARTITION_COLUMN} or {BUCKET_COLUMN} reached the writer"


@dataclass
class Staged:
    """Files a statement wrote and moved into tablet folders, not committed yet."""

    txn: str
    staging_dir: str
    #: Where the files were moved to (None: not moved yet).
    moved: list[str | None] = field(default_factory=list)
    adds: list[Any] = field(default_factory=list)
    entries: list[FileEntry] = field(default_factory=list)

    @classmethod
    def new(cls, table_path: str) -> Staged:
        """A fresh staging folder of the table (not created yet)."""
        return cls.of_folder(new_staging_dir(table_path))

    @classmethod
    def of_folder(cls, staging_dir: str) -> Staged:
        """The files some writer put into ``staging_dir``."""
        return cls(os.path.basename(staging_dir.rstrip("/")), fs.local_path(staging_dir))

    @classmethod
    def joined(cls, parts: list[Staged]) -> Staged:
        """Several statements' staged files as one (an explicit transaction's INSERTs of a table,
        committed as one load)."""
        joined = cls(parts[0].txn, parts[0].staging_dir) if parts else cls("", "")
        for p in parts:
            joined.moved += p.moved
            joined.adds += p.adds
            joined.entries += p.entries
        return joined

    def discard(self) -> None:
        fs.remove_files(m for m in self.moved if m)
        fs.remove_tree(self.staging_dir)


def new_staging_dir(table_path: str) -> str:
    """A fresh, not yet existing folder ``_staging/<txn>/`` of the table."""
    return os.path.join(table_path, STAGING_DIR, uuid.uuid4().hex)


def check_layout_columns(rows, partition: str | None) -> None:
    """Rows to write have ``__partition`` and ``__bucket`` (only ``__bucket`` when every row is
    in ``partition``)."""
    import pyarrow as pa

    columns = rows.column_names if isinstance(rows, pa.Table) else rows.columns
    for col in (BUCKET_COLUMN,) if partition is not None else (PARTITION_COLUMN, BUCKET_COLUMN):
        if col not in columns:
            raise ValueError(f"the rows to write need a {col} column")


def write_rows(
    staged: Staged,
    rows,
    target_file_size: int,
    row_bytes: Callable[[], float],
    *,
    keep_layout: bool,
    partition: str | None,
) -> None:
    """Write ``rows`` (a Spark DataFrame or a ``pyarrow.Table``) into the staging folder, one
    file per tablet per ``target_file_size`` bytes (about; ``row_bytes()``: the stored size of a
    row). See ``DeltaStore._stage`` for the shapes and the options."""
    import pyarrow as pa

    if isinstance(rows, pa.Table):
        _write_arrow(staged, rows, target_file_size, row_bytes, partition)
    else:
        _write_spark(staged, rows, target_file_size, row_bytes, keep_layout, partition)


def _write_spark(
    staged: Staged, df, target_file_size: int, row_bytes: Callable[[], float], keep_layout: bool, partition
) -> None:
    rows_per_file = sizing.rows_per_file(target_file_size, row_bytes())
    layout = [BUCKET_COLUMN] if partition is not None else [PARTITION_COLUMN, BUCKET_COLUMN]
    frame = df if keep_layout else df.repartition(*layout)
    output = staged.staging_dir
    if partition is not None:  # the folder Spark's partitionBy would have named
        if PARTITION_COLUMN in df.columns:
            frame = frame.drop(PARTITION_COLUMN)
        output = os.path.join(output, f"{PARTITION_COLUMN}={escape_path_name(partition)}")
    (
        frame.write.partitionBy(*layout)
        .option("maxRecordsPerFile", rows_per_file)
        .mode("error")  # "errorifexists" in classic Spark only; the same mode
        .parquet(fs.spark_uri(output))
    )


def _write_arrow(
    staged: Staged, table: pa.Table, target_file_size: int, row_bytes: Callable[[], float], partition
) -> None:
    """pyarrow writes each tablet's rows, in their order, as Spark's writer would have laid
    them out: ``__partition=<p>/__bucket=<b>/part-*.parquet``, Parquet types as Spark writes
    them (decimals as integers where they fit, no Arrow schema in the footer)."""
    layout = [BUCKET_COLUMN] if partition is not None else [PARTITION_COLUMN, BUCKET_COLUMN]
    if partition is not None and PARTITION_COLUMN in table.column_names:
        table = table.drop_columns([PARTITION_COLUMN])
    # Rows in memory take at least their Parquet size: under the target, no tablet is split
    # (and the table's average row size, a Delta log read, is not needed).
    if table.nbytes <= target_file_size:
        rows_per_file = max(table.num_rows, 1)
    else:
        rows_per_file = sizing.rows_per_file(target_file_size, row_bytes())
    pieces = []
    for part, bucket, rows in _tablets(table, layout, partition):
        folder = os.path.join(staged.staging_dir, tablet_folder(part, bucket))
        pieces += [(folder, rows.slice(at, rows_per_file)) for at in range(0, rows.num_rows, rows_per_file)]

    def write(numbered) -> None:
        i, (folder, rows) = numbered
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"part-{i:05d}-{staged.txn}.c000.snappy.parquet")  # Spark's naming
        write_parquet(rows, path)

    if len(pieces) <= 1:
        for numbered in enumerate(pieces):
            write(numbered)
    else:
        with ThreadPoolExecutor(max_workers=min(fs.FILE_THREADS, len(pieces))) as pool:
            list(pool.map(write, enumerate(pieces)))


def _tablets(table: pa.Table, layout: list[str], partition: str | None) -> Iterator[tuple[str, int, pa.Table]]:
    """(partition, bucket, rows without the layout columns) per tablet of ``table``, each
    tablet's rows in their order (a stable sort: of two rows of one key in one load, the later
    wins a UNIQUE merge)."""
    import pyarrow.compute as pc

    if table.num_rows == 0:
        return
    for col in layout:
        if table[col].null_count:
            raise ExecutionError(_NULL_LAYOUT)
    ordered = table.take(pc.sort_indices(table, sort_keys=[(c, "ascending") for c in layout]))
    # a new tablet starts where any layout column differs from the row before
    changes = reduce(pc.or_, (pc.not_equal(ordered[c][1:], ordered[c][:-1]) for c in layout))
    starts = [0, *(i + 1 for i in pc.indices_nonzero(changes).to_pylist()), ordered.num_rows]
    data = ordered.drop_columns(layout)
    for begin, end in zip(starts, starts[1:]):
        part = partition if partition is not None else ordered[PARTITION_COLUMN][begin].as_py()
        yield part, ordered[BUCKET_COLUMN][begin].as_py(), data.slice(begin, end - begin)


def write_parquet(table: pa.Table, path: str) -> None:
    """A Parquet file written by pyarrow, typed as Spark writes its own: decimals as integers
    where they fit, and no Arrow schema in the footer (a reader takes the Parquet types).

    A column's dictionary is given up once it passes 64 KiB (pyarrow's default is 1 MiB): a key
    or measure column of many distinct values then costs no dictionary building it would throw
    away (writing 333,333 rows of three columns: 76 ms and 2.65 MB with 1 MiB, 43 ms and
    2.11 MB with 64 KiB), and a column of a few thousand distinct values keeps its dictionary."""
    import pyarrow.parquet as pq

    pq.write_table(
        table,
        path,
        compression="snappy",
        store_schema=False,
        store_decimal_as_integer=True,
        dictionary_pagesize_limit=64 * 1024,
    )


def row_bytes(dt) -> float:
    """The stored size of one row of ``dt`` (a ``deltalake.DeltaTable``), for sizing files
    (`sizing.row_bytes`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    actions = pa.table(dt.get_add_actions(flatten=True))
    total_bytes = pc.sum(actions["size_bytes"]).as_py() or 0
    total_rows = pc.sum(actions["num_records"]).as_py() or 0
    schema = pa.schema(dt.schema())
    # the partition columns live in folder names, not in the files
    data = pa.schema([f for f in schema if f.name not in (PARTITION_COLUMN, BUCKET_COLUMN)])
    return sizing.row_bytes(total_bytes, total_rows, data)


def collect(staged: Staged, table_path: str) -> None:
    """Move the staged files into their tablet folders of the table and read their footers (in
    parallel), making their entries and ``add`` actions."""
    try:
        rels = [r for r in fs.list_files(staged.staging_dir) if r.endswith(".parquet")]
        plan = []
        for rel in rels:
            part_dir, bucket_dir, name = rel.split("/")
            partition = unescape_path_name(folder_value(part_dir, PARTITION_COLUMN))
            bucket_text = unescape_path_name(folder_value(bucket_dir, BUCKET_COLUMN))
            if partition == HIVE_NULL or bucket_text == HIVE_NULL:
                raise ExecutionError(_NULL_LAYOUT)
            plan.append((rel, partition, int(bucket_text)))
        if plan:
            staged.moved = [None] * len(plan)
            if len(plan) <= fs.FILE_THREADS:  # starting threads costs more than a few footers
                results = [_place(staged, table_path, i, item) for i, item in enumerate(plan)]
            else:
                with ThreadPoolExecutor(max_workers=fs.FILE_THREADS) as pool:
                    results = list(pool.map(lambda item: _place(staged, table_path, item[0], item[1]), enumerate(plan)))
            for entry, stats in results:
                staged.entries.append(entry)
                staged.adds.append(add_action(entry, stats))
        fs.remove_tree(staged.staging_dir)
    finally:
        staged.moved = [m for m in staged.moved if m]


def _place(staged: Staged, table_path: str, i: int, item: tuple[str, str, int]) -> tuple[FileEntry, str]:
    rel, partition, bucket = item
    src = os.path.join(staged.staging_dir, rel)
    footer = read_footer_stats(src)
    dst_rel = rel  # same tablet folder names and Spark's unique file name
    dst = os.path.join(table_path, dst_rel)
    fs.move_file(src, dst)
    staged.moved[i] = dst
    mtime = int(os.path.getmtime(dst) * 1000)
    entry = FileEntry(
        path=dst_rel,
        uri=fs.spark_uri(dst),
        partition=partition,
        bucket=bucket,
        size=footer.size,
        num_records=footer.num_records,
        modification_time=mtime,
    )
    return entry, footer.stats_json


def rename_staged(staged: Staged, table_path: str, suffix: str) -> None:
    """Give a statement's placed, uncommitted files names ending in ``suffix`` instead of
    ``.parquet``."""
    for i, entry in enumerate(staged.entries):
        stamped = entry.path[: -len(".parquet")] + suffix
        source, target = os.path.join(table_path, entry.path), os.path.join(table_path, stamped)
        fs.move_file(source, target)
        staged.moved = [target if m == source else m for m in staged.moved]
        staged.entries[i] = replace(entry, path=stamped, uri=fs.spark_uri(target))
        staged.adds[i].path = stamped
