"""Point reads with pyarrow: the rows of a short-circuit query (dorisql.query.short_circuit),
read without Spark.

The tablets the key values fall in are read file by file: only the row groups whose footer
statistics may hold the key, only the columns the query needs, each cast to the table's type
(a MODIFY COLUMN widening), a column added after the file was committed filled with its
DEFAULT (as tablets.read.read_table_files does). Then what a scan applies: the delete versions
committed after each file (tablets.deletes.arrow_keep_mask), and on a UNIQUE table the merge
rule, the row of max (sequence value, commit version, ``__load_seq``, ``__row_seq``) per key
(tablets.merge; a merge-on-write table has one row per key already, so the rule keeps it).
Committed transactions are settled and the snapshot pinned as for any scan
(tablets.transactions.consistent_reads).

What is immutable or versioned is cached per process, so a repeated point query costs a few
file-system calls: a table's snapshot, by table folder, re-read only when the Delta log has
a commit after the cached version (one ``stat`` of the next commit file: Delta commit files
appear whole, named by consecutive versions); each data file's Parquet footer, by path (a data
file never changes and a path is never reused).
"""

from __future__ import annotations

import datetime as dt
import decimal
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.result import Float32, ScaledDatetime
from dorisql.session.session import Session
from dorisql.storage import fs
from dorisql.storage.layout import commit_version
from dorisql.storage.lru import Lru
from dorisql.storage.snapshot import FileEntry
from dorisql.tablets import transactions
from dorisql.tablets.consistency import table_storage
from dorisql.tablets.deletes import applicable, arrow_keep_mask, delete_versions
from dorisql.tablets.scans import SCANS
from dorisql.tablets.tables import LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN, meta_dir, sequence_column
from dorisql.translate.literals import plain_default
from dorisql.types import arrow_type, canonical

if TYPE_CHECKING:  # pyarrow loads when a point query needs it, not at start-up
    import pyarrow as pa

__all__ = ["Fallback", "point_rows", "SNAPSHOTS", "FOOTERS", "KEY_COLUMNS", "FILE_COLUMNS"]

#: Stored columns the short path does not know how to apply: the Spark path answers.
_UNKNOWN_HIDDEN = ("__doris_delete_sign__",)


class Fallback(Exception):
    """The rows need something the short path does not do: the Spark path answers instead."""


#: Table folder -> its latest snapshot (`_Snapshot`: the files by tablet, the delete versions).
SNAPSHOTS = Lru(256)
#: Data file path -> (Parquet FileMetaData, {lower-case column name: stored name, leaf index}).
FOOTERS = Lru(8192)
#: (data file path, lower-case column name) -> the column's values (of its declared Arrow type):
#: a key lookup scans them instead of decoding the file; only the row groups that hold the
#: key are read.
KEY_COLUMNS = Lru(8192, max_bytes=256 * 2**20)
#: Files of at most this many rows have the columns a query reads decoded once and cached
#: (FILE_COLUMNS); a larger file's row groups holding the key are decoded for each query.
SMALL_FILE_ROWS = 65536
#: (data file path, its stored column names read) -> those columns of the whole file.
FILE_COLUMNS = Lru(4096, max_bytes=256 * 2**20)


def point_rows(
    session: Session,
    meta: TableMeta,
    tablets: dict[str, frozenset[int]],
    equalities: Sequence[tuple[str, Any]],
    columns: Sequence[str],
    now: dt.datetime | None = None,
) -> list[tuple]:
    """The rows of `meta` whose `equalities` hold ((declared column, value): on UNIQUE tables
    every key column is among them), read from the `tablets` ({partition name: buckets}) only:
    the values of `columns` (declared names), shown as the Spark path shows them (FLOAT as
    Float32, DATETIME(p) as ScaledDatetime). Raises Fallback for what only Spark reads."""
    definition = meta.definition
    by_name = {c.name.lower(): c for c in definition.columns}
    unique = definition.keys is not None and definition.keys.type.upper() == "UNIQUE"
    keys = {k.lower() for k in definition.keys.columns} if unique and definition.keys is not None else set()
    # On UNIQUE tables a value column's condition holds after the merge, not before it.
    early = [(by_name[c.lower()], v) for c, v in equalities if not unique or c.lower() in keys]
    late = [(by_name[c.lower()], v) for c, v in equalities if unique and c.lower() not in keys]
    sequence = sequence_column(definition) if unique else None

    with transactions.consistent_reads(session.catalog, session.warehouse, [meta]):
        snapshot = _snapshot(session.warehouse, meta)
    storage_keys = meta.partition_keys(list(tablets))
    wanted = {(storage_keys[name], b) for name, buckets in tablets.items() if name in storage_keys for b in buckets}
    files = [f for tablet in wanted for f in snapshot.tablets.get(tablet, ())]
    SCANS.record(snapshot.table_path, wanted)
    deletes = snapshot.deletes

    needed = list(dict.fromkeys(c.lower() for c in [*columns, *(c.name for c, _ in late)]))
    added = {name.lower(): since for name, since in meta.column_versions}
    found: list[tuple[dict[str, list], tuple]] = []
    for f in files:
        for values, order in _file_rows(f, by_name, needed, early, deletes, added, sequence, unique, now):
            found.append((values, order))
    if unique and len(found) > 1:
        found = [max(found, key=lambda row: row[1])]  # one key: its latest row
    rows = []
    for values, _ in found:
        if all(values[c.name.lower()] == v for c, v in late):
            rows.append(tuple(_shown(values[n.lower()], by_name[n.lower()]) for n in columns))
    return rows


@dataclass(frozen=True)
class _File:
    """A data file of a cached snapshot, with what each point query needs of it at hand."""

    entry: FileEntry
    #: Its local path (as pyarrow opens it) and the commit version its name carries.
    path: str
    version: int


@dataclass(frozen=True)
class _Snapshot:
    """A table's snapshot as the point reads use it: its files by tablet, its delete versions."""

    table_path: str
    version: int
    tablets: dict[tuple[str, int], tuple[_File, ...]]
    deletes: tuple


#: (warehouse, db, table id) -> the table's folder (the catalog never moves one: docs/storage.md).
_FOLDERS: dict[tuple[str, str, int], str] = {}


def _snapshot(warehouse: Path, meta: TableMeta) -> _Snapshot:
    """The table's latest snapshot, from the cache while no later commit exists."""
    key = (str(warehouse), meta.db, meta.id)
    path = _FOLDERS.get(key)
    if path is None:
        path = _FOLDERS.setdefault(key, fs.local_path(meta_dir(warehouse, meta)))
    cached: _Snapshot | None = SNAPSHOTS.get(path)
    if (
        cached is not None
        and cached.version >= (meta.known_delta_version or 0)
        and not os.path.exists(os.path.join(path, "_delta_log", f"{cached.version + 1:020d}.json"))
    ):
        return cached
    with table_storage(warehouse, meta) as store:  # refuses a log behind the catalog, names the table
        snapshot = store.snapshot()
    tablets: dict[tuple[str, int], list[_File]] = {}
    for f in snapshot.files:
        tablets.setdefault((f.partition, f.bucket), []).append(_File(f, fs.local_path(f.uri), commit_version(f.path)))
    indexed = _Snapshot(
        snapshot.table_path,
        snapshot.version,
        {tablet: tuple(files) for tablet, files in tablets.items()},
        delete_versions(snapshot),
    )
    SNAPSHOTS.put(path, indexed)
    return indexed


def _footer(path: str):
    footer = FOOTERS.get(path)
    if footer is None:
        import pyarrow.parquet as pq

        metadata = pq.read_metadata(path)
        leaves = {metadata.schema.column(i).path: i for i in range(metadata.num_columns)}
        names = {name.lower(): (name, leaves.get(name)) for name in metadata.schema.names}
        footer = (metadata, names, {})
        FOOTERS.put(path, footer)
    return footer


def _file_rows(
    f: _File,
    by_name: dict[str, ast.ColumnDef],
    needed: list[str],
    early: list[tuple[ast.ColumnDef, Any]],
    deletes,
    added: dict[str, int],
    sequence: str | None,
    unique: bool,
    now: dt.datetime | None,
):
    """(values by lower-case column name, merge order) of the file's rows that hold the early
    equalities and no delete version removes."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path, version = f.path, f.version
    metadata, names, ranges = _footer(path)
    if any(hidden in names for hidden in _UNKNOWN_HIDDEN):
        raise Fallback(f"{path}: hidden columns")
    # a column added after this file was committed: its DEFAULT, never the file's namesake
    stored = {n: names[n] for n in names if n in by_name and not version < added.get(n, -1)}
    if not _row_groups(metadata, stored, early, ranges):
        return []
    rows = _matching_rows(path, metadata, stored, early, now)
    if rows is not None and not len(rows):
        return []
    gone = applicable(deletes, f.entry.partition, version)
    columns = list(dict.fromkeys([*needed, *(c.name.lower() for c, _ in early)]))
    columns += [c.lower() for d in gone for c in d.columns() if c.lower() not in columns]
    if sequence is not None and sequence.lower() not in columns:
        columns.append(sequence.lower())
    order = [LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN] if unique else []
    read = [stored[c][0] for c in columns if c in stored]
    if sequence is not None and sequence.lower() not in by_name and sequence.lower() in names:
        read.append(names[sequence.lower()][0])  # the hidden __DORIS_SEQUENCE_COL__
    read += [names[c][0] for c in order if c in names]
    if metadata.num_rows <= SMALL_FILE_ROWS:
        # a small file's columns decoded once: a later key of it is a `take`
        whole = FILE_COLUMNS.get((path, tuple(read)))
        if whole is None:
            with pa.OSFile(path) as source:
                whole = pq.ParquetFile(source, metadata=metadata).read(columns=read, use_threads=False)
            FILE_COLUMNS.put((path, tuple(read)), whole)
        table = whole if rows is None else whole.take(rows)
    else:
        groups, local = _groups_of(metadata, rows)
        with pa.OSFile(path) as source:  # a native file: no file-system lookup by path
            table = pq.ParquetFile(source, metadata=metadata).read_row_groups(groups, columns=read, use_threads=False)
        if local is not None:
            table = table.take(local)
    table = _as_declared(table, columns, by_name, stored, now)
    keep = None
    for column, value in early:
        if rows is not None and column.name.lower() in stored:
            continue  # `rows` hold it already
        matched = pc.equal(table.column(column.name.lower()), _scalar(value, table.column(column.name.lower()).type))
        keep = matched if keep is None else pc.and_(keep, matched)
    if keep is not None:
        table = table.filter(pc.fill_null(keep, False))
    if gone and table.num_rows:
        table = table.filter(arrow_keep_mask(table, gone))
    if not table.num_rows:
        return []
    values = {c: table.column(c).to_pylist() for c in columns if c in table.column_names}
    sequenced = values.get(sequence.lower()) if sequence is not None else None
    ordering = [table.column(c).to_pylist() if c in table.column_names else [0] * table.num_rows for c in order]
    out = []
    for i in range(table.num_rows):
        seq = () if sequence is None else ((0,) if sequenced is None or sequenced[i] is None else (1, sequenced[i]))
        out.append(({c: v[i] for c, v in values.items()}, (*seq, version, *(o[i] for o in ordering))))
    return out


def _matching_rows(path: str, metadata, stored, early, now):
    """The file's row numbers whose stored equality columns hold the values (from the cached
    columns), or None when no equality column is stored there (every row is a candidate)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    mask = None
    for column, value in early:
        name = column.name.lower()
        if name not in stored:
            continue
        values = KEY_COLUMNS.get((path, name))
        if values is None:
            import pyarrow.parquet as pq

            with pa.OSFile(path) as source:
                raw = pq.ParquetFile(source, metadata=metadata).read(columns=[stored[name][0]], use_threads=False)
            values = raw.column(0).combine_chunks()
            target = arrow_type(column.type)
            if values.type != target:
                values = _cast(values, target)
            KEY_COLUMNS.put((path, name), values)
        matched = pc.equal(values, _scalar(value, values.type))
        mask = matched if mask is None else pc.and_(mask, matched)
    if mask is None:
        return None
    return pc.indices_nonzero(pc.fill_null(mask, False)).to_pylist()


def _groups_of(metadata, rows: list[int] | None) -> tuple[list[int], list[int] | None]:
    """The row groups holding `rows` (file row numbers; None: all), and the rows' positions in
    those groups read together (None: all of them)."""
    if rows is None:
        return list(range(metadata.num_row_groups)), None
    groups, local, start, offset = [], [], 0, 0
    wanted = iter(rows)
    row = next(wanted, None)
    for g in range(metadata.num_row_groups):
        size = metadata.row_group(g).num_rows
        taken = False
        while row is not None and row < start + size:
            if not taken:
                groups.append(g)
                taken = True
            local.append(offset + row - start)
            row = next(wanted, None)
        if taken:
            offset += size
        start += size
    return groups, local


def _row_groups(metadata, stored: dict[str, tuple[str, int | None]], early, ranges: dict) -> list[int]:
    """The row groups whose min/max statistics may hold every early equality's value (each
    column's statistics read from the footer once: `ranges` is the footer's cache of them)."""
    groups = []
    for g in range(metadata.num_row_groups):
        if metadata.row_group(g).num_rows and all(
            _may_hold(_range(metadata, ranges, g, stored.get(c.name.lower())), v) for c, v in early
        ):
            groups.append(g)
    return groups


def _range(metadata, ranges: dict, group: int, stored: tuple[str, int | None] | None):
    """(min, max, exact) of a stored column in a row group, or None: no usable statistics (not in
    the file, so its DEFAULT decides; nested; or none written)."""
    if stored is None or stored[1] is None:
        return None
    key = (group, stored[1])
    if key not in ranges:
        stats = metadata.row_group(group).column(stored[1]).statistics
        if stats is None or not stats.has_min_max:
            ranges[key] = None
        else:  # a string statistic may be cut short: only exact bounds decide
            exact = (
                getattr(stats, "is_min_value_exact", True) is not False,
                getattr(stats, "is_max_value_exact", True) is not False,
            )
            ranges[key] = (stats.min, stats.max, exact)
    return ranges[key]


def _may_hold(bounds, value: Any) -> bool:
    if bounds is None:
        return True
    low, high, (exact_low, exact_high) = bounds
    if not _comparable(low, value) or not _comparable(high, value):
        return True
    return not ((exact_low and value < low) or (exact_high and value > high))


def _comparable(stat: Any, value: Any) -> bool:
    numbers = (int, decimal.Decimal)
    if isinstance(value, bool) or isinstance(stat, bool):
        return isinstance(value, bool) and isinstance(stat, bool)
    if isinstance(value, numbers):
        return isinstance(stat, numbers)
    if isinstance(value, dt.datetime) or isinstance(stat, dt.datetime):
        return isinstance(value, dt.datetime) and isinstance(stat, dt.datetime)
    return type(stat) is type(value)


def _as_declared(table: pa.Table, columns: list[str], by_name, stored, now) -> pa.Table:
    """`table` (as read) with each of `columns` named in lower case and of its declared Arrow
    type; a column the file does not hold gets its DEFAULT; the other read columns (the
    order columns, a hidden sequence column) come along under lower-case names."""
    import pyarrow as pa

    arrays, names = [], []
    for c in columns:
        column = by_name.get(c)
        if column is None:
            continue  # a hidden sequence column: below
        target = arrow_type(column.type)
        if c in stored:
            array = table.column(stored[c][0])
            if array.type != target:
                array = _cast(array, target)
        else:
            array = _default(column, target, table.num_rows, now)
        arrays.append(array)
        names.append(c)
    for name in table.column_names:
        if name.lower() not in by_name and name.lower() not in names:
            arrays.append(table.column(name))
            names.append(name.lower())
    return pa.table(arrays, names=names)


def _cast(array, target):
    import pyarrow as pa

    try:
        return array.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise Fallback(str(exc)) from None


def _default(column: ast.ColumnDef, target, rows: int, now: dt.datetime | None):
    import pyarrow as pa

    plain, text = plain_default(column, now)
    if not plain:
        raise Fallback(f"DEFAULT of {column.name} is an expression")
    if text is None:
        return pa.nulls(rows, target)
    return _cast(pa.array([text] * rows, pa.string()), target)


def _scalar(value: Any, target):
    import pyarrow as pa

    if pa.types.is_decimal(target) and isinstance(value, int):
        value = decimal.Decimal(value)
    try:
        return pa.scalar(value, type=target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError, TypeError):
        pass
    try:  # e.g. a decimal of another scale: converted exactly or refused
        return pa.scalar(value).cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OverflowError) as exc:
        raise Fallback(str(exc)) from None


def _shown(value: Any, column: ast.ColumnDef) -> Any:
    """A value as the Spark path hands it over (dorisql.statements.load.insert._shown_value)."""
    if value is None:
        return None
    t = canonical(column.type)
    if t.name == "FLOAT":
        return Float32(value)
    if t.name == "DATETIME":
        return ScaledDatetime.of(value, t.params[0] if t.params else 0)
    return value
