"""Merge-on-write UNIQUE KEY tables: a load removes the rows it supersedes in its own commit.

Doris 2.1 makes new UNIQUE tables merge-on-write (``"enable_unique_key_merge_on_write" =
"true"``): a load marks the earlier rows of its keys deleted, so a read merges nothing. dorisql
does it copy-on-write (docs/storage.md, "Merge-on-write"): under the table's commit lock, after
the load's files are written and stamped, `Supersede` finds the rows of the table's current
files, in the tablets the load touches, whose keys the load brings again, and the same Delta
commit that adds the load's files removes those files and adds copies without those rows. So:

- one commit: a kill at any step leaves orphan files only, never half a load;
- commit order decides, as Doris's versions do: the lookup runs under the lock on the latest
  snapshot, so of two racing loads of a key the one that commits last keeps it;
- every current file holds at most one row per key: a scan is a DUPLICATE scan (plus delete
  versions), and outside Delta readers (deltalake, DuckDB, Spark's Parquet) see the latest
  rows only;
- of rows with equal keys in one load the last wins (its ``__row_seq``), and with a sequence
  column the larger sequence value, a NULL being the smallest (`winning_order`).

The lookup reads key columns only, of the files whose min/max key statistics in the Delta log
overlap the load's keys, through an in-process cache of each file's key columns (files never
change; a path is never reused). Everything is Arrow on the driver, one file at a time for the
copies. Pure pyarrow: no Spark here.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import TYPE_CHECKING, Any

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.storage import fs
from dorisql.storage.log import add_action
from dorisql.storage.lru import Lru
from dorisql.storage.snapshot import FileEntry
from dorisql.storage.staging import Staged, write_parquet
from dorisql.storage.stats import read_footer_stats
from dorisql.tablets.tables import LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN, sequence_column

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

__all__ = [
    "is_merge_on_write",
    "stores_merge_on_write",
    "Supersede",
    "supersede_for",
    "winning_order",
    "current_rows",
    "KEY_CACHE",
]

#: Tests set it to fail or pause a merge-on-write load at a step, under the commit lock:
#: "looked up" (the superseded rows found), "copied" (the copies written, not committed).
step: Any = None

_PROPERTY = "enable_unique_key_merge_on_write"
_STAMP = re.compile(r"(\.v\d+(?:-\d+)?)?\.parquet$")


def stores_merge_on_write(definition: ast.CreateTable) -> bool:
    """A new table's files are kept merge-on-write: UNIQUE KEY, the property not "false"
    (Doris 2.1's default)."""
    keys = definition.keys
    if keys is None or keys.type.upper() != "UNIQUE":
        return False
    return ast.props(definition.properties).get(_PROPERTY, "true").lower() == "true"


def is_merge_on_write(meta: TableMeta) -> bool:
    """Whether the table's files are merge-on-write: the catalog's storage marker, set at
    CREATE by a dorisql that writes them so. A UNIQUE table of an older dorisql carries the
    property too, but its files are merge-on-read: it stays merge-on-read."""
    return bool(getattr(meta, "merge_on_write", False))


def winning_order(sequence: str | None) -> list[tuple[str, str]]:
    """The sort keys, ascending, after which a key's last row is the one that stays: with a
    sequence column its value first (NULL smallest; Doris: a new row replaces an old one when
    its sequence value is not smaller), then the generation (an earlier file's rows, 0, before
    the load's, 1) and the load's statement and row order (an explicit transaction's INSERTs
    are one load: the later INSERT's row wins). `_with_order` adds the columns it sorts by."""
    keys = [("__gen", "ascending"), (LOAD_SEQ_COLUMN, "ascending"), (ROW_SEQ_COLUMN, "ascending")]
    if sequence is not None:
        keys = [("__seq_set", "ascending"), ("__seq", "ascending"), *keys]
    return keys


def _with_order(rows: pa.Table, sequence: str | None, generation: int) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = rows.append_column("__gen", pa.array([generation] * rows.num_rows, pa.int8()))
    if sequence is not None:
        seq = rows[sequence]
        rows = rows.append_column("__seq_set", pc.is_valid(seq)).append_column("__seq", seq)
    return rows


# ----------------------------------------------------------------------------- key cache


#: (data file path, column names) -> those columns of the file (key columns and the sequence
#: column): files are immutable and a path is never reused, so an entry never goes stale.
KEY_CACHE = Lru(65536, max_bytes=256 * 2**20)


def _key_columns(path: str, columns: tuple[str, ...]) -> pa.Table:
    table = KEY_CACHE.get((path, columns))
    if table is None:
        table = _read_columns(path, columns)
        KEY_CACHE.put((path, columns), table)
    return table


def _read_columns(path: str, columns: Sequence[str]) -> pa.Table:
    """``columns`` of one Parquet file (matched without case, named as asked); a column the file
    lacks (added by ALTER TABLE since) is all NULL."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    names = {n.lower(): n for n in pf.schema_arrow.names}
    present = [names[c.lower()] for c in columns if c.lower() in names]
    table = pf.read(columns=present) if present else pa.table({"__n": pa.nulls(pf.metadata.num_rows)})
    out = []
    for c in columns:
        out.append(table[names[c.lower()]] if c.lower() in names else pa.nulls(table.num_rows))
    return pa.table(out, names=list(columns))


# ----------------------------------------------------------------------------- the lookup


@dataclass(frozen=True)
class Supersede:
    """The merge-on-write step of one load into one table (DeltaStore's ``supersede``)."""

    table_path: str
    keys: tuple[str, ...]
    sequence: str | None = None

    def __call__(self, dt, staged: Staged, files: Sequence[FileEntry]) -> list[FileEntry]:
        new_by_tablet: dict[tuple[str, int], list[int]] = {}
        for i, e in enumerate(staged.entries):
            new_by_tablet.setdefault((e.partition, e.bucket), []).append(i)
        if not new_by_tablet:
            return []
        columns = (*self.keys, LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN, *((self.sequence,) if self.sequence else ()))
        new_keys = {i: _read_columns(self._abs(staged.entries[i].path), columns) for i in range(len(staged.entries))}
        old_by_tablet: dict[tuple[str, int], list[FileEntry]] = {}
        for f in files:
            if (f.partition, f.bucket) in new_by_tablet:
                old_by_tablet.setdefault((f.partition, f.bucket), []).append(f)
        bounds = _key_bounds(dt, self.keys, {f.path for tablet in old_by_tablet.values() for f in tablet})
        drop_old: dict[str, Any] = {}  # old path -> rows to drop
        drop_new: dict[int, Any] = {}  # staged index -> rows to drop
        for tablet, indexes in new_by_tablet.items():
            fresh = [new_keys[i] for i in indexes]
            olds_here = old_by_tablet.get(tablet, [])
            candidates = [f for f in olds_here if _may_overlap(bounds.get(f.path), fresh, self.keys)]
            olds = [_key_columns(self._abs(f.path), columns) for f in candidates]
            losers = _losers(
                [(("old", f.path), t) for f, t in zip(candidates, olds)] + [(("new", i), new_keys[i]) for i in indexes],
                self.keys,
                self.sequence,
            )
            for (kind, ident), rows in losers.items():
                (drop_old if kind == "old" else drop_new)[ident] = rows
        if step is not None:
            step("looked up")
        by_path = {f.path: f for f in files}
        removed = []
        for path, rows in drop_old.items():
            old = by_path[path]
            self._copy_without(old, rows, staged)
            removed.append(old)
        for i, rows in sorted(drop_new.items(), reverse=True):
            self._replace_new(staged, i, rows)
        if step is not None:
            step("copied")
        return removed

    def _abs(self, rel: str) -> str:
        return os.path.join(fs.local_path(self.table_path), rel)

    def _copy_without(self, entry: FileEntry, rows, staged: Staged) -> FileEntry | None:
        """A copy of ``entry`` without ``rows``, next to it with its commit stamp (its rows keep
        their version: delete versions and added columns go by it), added to ``staged``; None when
        no row is left."""
        import pyarrow.parquet as pq

        table = pq.read_table(self._abs(entry.path))
        kept = _without(table, rows)
        if kept.num_rows == 0:
            return None
        folder, name = os.path.split(entry.path)
        stamp = _STAMP.search(name)
        suffix = stamp.group(0) if stamp else ".parquet"
        rel = os.path.join(folder, f"part-00000-{uuid.uuid4().hex}.c000.snappy{suffix}")
        target = self._abs(rel)
        staged.moved.append(target)
        write_parquet(kept, target)
        footer = read_footer_stats(target)
        copy = replace(
            entry,
            path=rel,
            uri=fs.spark_uri(target),
            size=footer.size,
            num_records=footer.num_records,
            modification_time=int(os.path.getmtime(target) * 1000),
        )
        staged.entries.append(copy)
        staged.adds.append(add_action(copy, footer.stats_json))
        return copy

    def _replace_new(self, staged: Staged, i: int, rows) -> None:
        """The load's own file ``i`` without ``rows`` (an earlier row of a key the load repeats,
        or one whose sequence value lost), or gone when no row is left."""
        import pyarrow.parquet as pq

        entry = staged.entries[i]
        source = self._abs(entry.path)
        kept = _without(pq.read_table(source), rows)
        del staged.entries[i]
        del staged.adds[i]
        if kept.num_rows:
            folder, name = os.path.split(entry.path)
            rel = os.path.join(folder, f"part-{uuid.uuid4().hex}-{name.split('-', 1)[-1]}")
            target = self._abs(rel)
            staged.moved.append(target)
            write_parquet(kept, target)
            footer = read_footer_stats(target)
            copy = replace(entry, path=rel, uri=fs.spark_uri(target), size=footer.size, num_records=footer.num_records)
            staged.entries.insert(i, copy)
            staged.adds.insert(i, add_action(copy, footer.stats_json))
        fs.remove_files([source])


def supersede_for(meta: TableMeta, table_path: str) -> Supersede | None:
    """The merge-on-write step of a load into ``meta`` (None: the table is not merge-on-write)."""
    if not is_merge_on_write(meta):
        return None
    keys = tuple(meta.definition.keys.columns) if meta.definition.keys is not None else ()
    return Supersede(table_path, keys, sequence_column(meta.definition))


def _without(table: pa.Table, rows) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    mask = pc.invert(pc.is_in(pa.array(range(table.num_rows), pa.int64()), value_set=rows))
    return table.filter(mask)


def _losers(sources: list[tuple[tuple[str, Any], pa.Table]], keys: Sequence[str], sequence: str | None) -> dict:
    """Per source (old files first, then the load's files, in order), the row numbers that lose
    to a later row of the same key (`winning_order`): an int64 array each, sources without
    losers absent."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(sources) < 2 and (not sources or sources[0][1].num_rows < 2):
        return {}
    tables = []
    for n, ((kind, _), t) in enumerate(sources):
        t = _with_order(t, sequence, 0 if kind == "old" else 1)
        t = t.append_column("__src", pa.array([n] * t.num_rows, pa.int32()))
        tables.append(t.append_column("__row", pa.array(range(t.num_rows), pa.int64())))
    target = tables[-1].schema
    tables = [_conform(t, target) for t in tables]
    rows = pa.concat_tables(tables)
    # one integer code per key value, NULL included (a UNIQUE key may be NULL and equals NULL)
    codes = [pc.dictionary_encode(rows[k], null_encoding="encode").combine_chunks().indices for k in keys]
    coded = pa.table(
        [*codes, *(rows[c] for c, _ in winning_order(sequence)), rows["__src"], rows["__row"]],
        names=[*(f"__k{i}" for i in range(len(keys))), *(c for c, _ in winning_order(sequence)), "__src", "__row"],
    )
    order = [(f"__k{i}", "ascending") for i in range(len(keys))] + winning_order(sequence)
    ordered = coded.take(pc.sort_indices(coded, sort_keys=order))
    if ordered.num_rows < 2:
        return {}
    # a row loses when the next row (in that order) has the same key
    same = reduce(pc.and_, (pc.equal(ordered[f"__k{i}"][:-1], ordered[f"__k{i}"][1:]) for i in range(len(keys))))
    losing = ordered.slice(0, ordered.num_rows - 1).filter(same)
    out = {}
    for n in pc.unique(losing["__src"]).to_pylist():
        picked = losing.filter(pc.equal(losing["__src"], n))["__row"]
        out[sources[n][0]] = picked.combine_chunks()
    return out


def _conform(t: pa.Table, schema: pa.Schema) -> pa.Table:
    """``t``'s columns cast to ``schema``'s types (a key column widened by ALTER TABLE since an
    old file was written)."""
    if t.schema.equals(schema):
        return t
    return t.select(schema.names).cast(schema)


def _key_bounds(dt, keys: Sequence[str], paths: set[str]) -> dict[str, list[tuple[Any, Any, int]]]:
    """Per file path: (min, max, null count) of each key column, from the Delta log's stats
    (None values where the log has none)."""
    from urllib.parse import unquote

    import pyarrow as pa

    if not paths:
        return {}
    actions = pa.table(dt.get_add_actions(flatten=True))
    names = {n.lower(): n for n in actions.column_names}
    cols = {}
    for k in keys:
        for what in ("min", "max", "null_count"):
            name = names.get(f"{what}.{k}".lower())
            cols[(what, k)] = actions[name].to_pylist() if name else [None] * actions.num_rows
    out = {}
    for row, p in enumerate(actions["path"].to_pylist()):
        p = unquote(p)
        if p in paths:
            out[p] = [(cols[("min", k)][row], cols[("max", k)][row], cols[("null_count", k)][row]) for k in keys]
    return out


def _may_overlap(bounds, fresh: list[pa.Table], keys: Sequence[str]) -> bool:
    """Whether a file with these key bounds may hold one of the keys of ``fresh``: False when,
    for some key column, the new keys hold no NULL and all lie outside the file's [min, max]."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not bounds:
        return True
    for k, (lo, hi, _nulls) in zip(keys, bounds):
        if lo is None or hi is None:
            continue
        column = pa.chunked_array([c for t in fresh for c in t[k].chunks], type=fresh[0][k].type)
        if column.null_count:
            continue
        extremes = pc.min_max(column)
        new_lo, new_hi = extremes["min"].as_py(), extremes["max"].as_py()
        try:
            if new_hi < lo or new_lo > hi:
                return False
        except TypeError:  # stats of another type than the column (a widened key): no skipping
            continue
    return True


# ----------------------------------------------------------------------------- partial updates


def current_rows(table_path: str, files: Sequence[FileEntry], keys: pa.Table) -> pa.Table | None:
    """The full current rows of ``files`` (a merge-on-write table's current files of the
    tablets a load touches, read under its commit lock) whose key equals a row of ``keys``
    (a table of the key columns): what a partial column update fills the load's missing columns
    from. None when no row matches."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    names = tuple(keys.column_names)
    found = []
    for f in files:
        path = os.path.join(fs.local_path(table_path), f.path)
        olds = _key_columns(path, names)
        both = pa.concat_tables([_conform(olds, keys.schema), keys])
        codes = [pc.dictionary_encode(both[k], null_encoding="encode").combine_chunks().indices for k in names]
        old_codes = pa.table([c.slice(0, olds.num_rows) for c in codes], names=list(names)).append_column(
            "__row", pa.array(range(olds.num_rows), pa.int64())
        )
        new_codes = pa.table([c.slice(olds.num_rows) for c in codes], names=list(names))
        hit = old_codes.join(new_codes, keys=list(names), join_type="left semi")
        if hit.num_rows:
            table = pq.read_table(path)
            found.append(table.take(hit["__row"]))
    if not found:
        return None
    return pa.concat_tables(found, promote_options="permissive")
