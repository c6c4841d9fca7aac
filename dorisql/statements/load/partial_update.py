"""Partial column updates of merge-on-write UNIQUE KEY tables (Doris's "partial column update").

``SET enable_unique_key_partial_update = true; INSERT INTO t (k, v1) VALUES ...`` and Stream Load's
``partial_columns: true`` with a ``columns`` header give the key columns and some value columns:
a row whose key exists keeps its other columns' current values; a new key is inserted with the
other columns' defaults (``partial_update_new_key_behavior = APPEND``, Doris's default) or
refused (``ERROR``).

How: the load writes its rows as any load does (the columns it does not give take their
defaults), and under the table's commit lock, before the merge-on-write step
(dorisql.tablets.merge_on_write) finds the rows the load supersedes, `_Fill` rewrites each new
file with the missing columns of every row whose key has a current row taken from that row
(`merge_on_write.current_rows`: the latest snapshot's files of the same tablet, whose rows are
one per key; a DELETE's delete version hides rows as reads do). The lookup and the commit are
under one lock, so a racing load of the same keys is never lost: the one that commits later
completes its rows from the other's. Without a sequence column value in the load, a row keeps
its current one (Doris: the historical row's sequence value).

Which statement is a partial update: `insert_plan` (INSERT, BindSink's rules) and
`stream_load_plan` (Stream Load, NereidsStreamLoadPlanner's). The load path carries the plan in
a context variable (`applying`), read where the load builds its merge-on-write step (`wrap`).
"""

from __future__ import annotations

import contextvars
import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError
from dorisql.storage import fs
from dorisql.storage.layout import commit_version
from dorisql.storage.log import add_action
from dorisql.storage.snapshot import FileEntry
from dorisql.storage.staging import Staged, write_parquet
from dorisql.storage.stats import read_footer_stats
from dorisql.syntax.generated import generated_expression
from dorisql.tablets import merge_on_write
from dorisql.tablets.deletes import applicable, arrow_keep_mask, delete_versions

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

__all__ = [
    "PartialUpdate",
    "leaves",
    "insert_plan",
    "stream_load_plan",
    "check_merge_on_write",
    "applying",
    "wrap",
    "NOT_MERGE_ON_WRITE",
]

NOT_MERGE_ON_WRITE = "Only unique key merge on write support partial update"

#: partial_update_new_key_behavior's values (SessionVariable: APPEND, the default, or ERROR).
NEW_KEY_BEHAVIORS = ("APPEND", "ERROR")


@dataclass(frozen=True)
class PartialUpdate:
    """One load's partial update: the columns it gives and those its rows keep."""

    keys: tuple[str, ...]
    #: the value columns the load leaves to the current rows, as declared
    missing: tuple[str, ...]
    #: partial_update_new_key_behavior: "APPEND" or "ERROR"
    new_keys: str = "APPEND"
    #: the missing columns that are NOT NULL: a new key's row must get a value for them
    required: tuple[str, ...] = ()


def _is_merge_on_write(meta: TableMeta) -> bool:
    """Merge-on-write as the table is stored: a UNIQUE table of an older dorisql carries the
    property but keeps merge-on-read files, where no load step could complete the rows."""
    return merge_on_write.stores_merge_on_write(meta.definition) and merge_on_write.is_merge_on_write(meta)


def check_merge_on_write(meta: TableMeta) -> None:
    """Partial updates need merge-on-write files (Doris's message otherwise)."""
    if not _is_merge_on_write(meta):
        raise AnalysisError(NOT_MERGE_ON_WRITE)


def _claims_merge_on_write(meta: TableMeta) -> bool:
    return merge_on_write.stores_merge_on_write(meta.definition)


def _plan(meta: TableMeta, given: Sequence[str], new_keys: str) -> PartialUpdate | None:
    """Doris's checks of a partial update's columns; None when it gives every column (then it
    is an ordinary load, as Doris turns it into one)."""
    definition = meta.definition
    named = {c.lower() for c in given}
    keys = tuple(definition.keys.columns) if definition.keys is not None else ()
    for c in definition.columns:
        if c.name in keys and c.name.lower() not in named and not c.auto_increment:
            raise AnalysisError(f"Partial update should include all key columns, missing: {c.name}")
    generated_inputs = {
        ref.lower() for c in definition.columns if c.generated is not None for ref in _generated_refs(c)
    }
    for c in definition.columns:
        if c.generated is None and c.name.lower() in generated_inputs and c.name.lower() not in named:
            raise AnalysisError(
                f"Partial update should include all ordinary columns referenced by generated columns, missing: {c.name}"
            )
    missing = tuple(
        c.name
        for c in definition.columns
        if c.name.lower() not in named and c.name not in keys and c.generated is None and not c.on_update
    )
    if not missing:
        return None
    if any(c.auto_increment and c.name in keys and c.name.lower() not in named for c in definition.columns):
        return None  # a missing AUTO_INCREMENT key: Doris loads it as an upsert
    required = tuple(c.name for c in definition.columns if c.name in missing and c.nullable is False)
    return PartialUpdate(keys=keys, missing=missing, new_keys=new_keys, required=required)


def _generated_refs(column: ast.ColumnDef) -> list[str]:
    assert column.generated is not None
    return [node.name for node in generated_expression(column.generated).find_all(exp.Column)]


def new_key_behavior(variables: dict[str, str]) -> str:
    value = (variables.get("partial_update_new_key_behavior") or "APPEND").strip().strip("'\"").upper()
    if value not in NEW_KEY_BEHAVIORS:
        raise AnalysisError(
            f"partial_update_new_key_behavior should be one of {{'APPEND', 'ERROR'}}, but found {value}"
        )
    return value


def insert_plan(meta: TableMeta, columns: Sequence[str], variables: dict[str, str]) -> PartialUpdate | None:
    """An INSERT's partial update (``enable_unique_key_partial_update``), or None. As Nereids'
    BindSink: only a merge-on-write UNIQUE table with a column list is updated partially; any
    other INSERT is an ordinary one."""
    if (variables.get("enable_unique_key_partial_update") or "false").strip().lower() not in ("true", "1", "on"):
        return None
    if not columns or not _claims_merge_on_write(meta):
        return None
    if not _is_merge_on_write(meta):  # never an ordinary load that would reset the other columns
        raise AnalysisError(NOT_MERGE_ON_WRITE)
    return _plan(meta, columns, new_key_behavior(variables))


def stream_load_plan(meta: TableMeta, columns: Sequence[str] | None, new_keys: str = "APPEND") -> PartialUpdate | None:
    """A Stream Load's ``partial_columns: true`` (NereidsStreamLoadPlanner: merge-on-write only;
    the columns header's, or the data's columns). None: every column given, an ordinary load."""
    check_merge_on_write(meta)
    given = list(columns) if columns else [c.name for c in meta.definition.columns]
    return _plan(meta, given, new_keys)


_ACTIVE: contextvars.ContextVar[PartialUpdate | None] = contextvars.ContextVar("partial_update", default=None)


@contextmanager
def applying(plan: PartialUpdate | None) -> Iterator[None]:
    """The loads run inside are the partial update ``plan`` (None: ordinary loads)."""
    token = _ACTIVE.set(plan)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def leaves(name: str) -> bool:
    """Whether the running load is a partial update that leaves column ``name`` to the current
    rows: its NOT NULL check waits until the rows are completed (`_filled`)."""
    plan = _ACTIVE.get()
    return plan is not None and name.lower() in {m.lower() for m in plan.missing}


def wrap(supersede: Any, table_path: str) -> Any:
    """The merge-on-write step of a load, completing its rows first when it is a partial update."""
    plan = _ACTIVE.get()
    if plan is None:
        return supersede
    if supersede is None:  # (the plans check this first; never load the rows without their columns)
        raise AnalysisError(NOT_MERGE_ON_WRITE)
    return _Fill(plan, table_path, supersede)


@dataclass(frozen=True)
class _Fill:
    plan: PartialUpdate
    table_path: str
    supersede: Any

    def __call__(self, dt, staged: Staged, files: Sequence[FileEntry]) -> Sequence[FileEntry]:
        deletes = delete_versions(dt.metadata().configuration)
        by_tablet: dict[tuple[str, int], list[FileEntry]] = {}
        for f in files:
            by_tablet.setdefault((f.partition, f.bucket), []).append(f)
        for i in range(len(staged.entries)):
            entry = staged.entries[i]
            self._fill(staged, i, by_tablet.get((entry.partition, entry.bucket), []), deletes)
        return self.supersede(dt, staged, files)

    def _abs(self, rel: str) -> str:
        return os.path.join(fs.local_path(self.table_path), rel)

    def _fill(self, staged: Staged, i: int, olds: list[FileEntry], deletes) -> None:
        import pyarrow.parquet as pq

        entry = staged.entries[i]
        source = self._abs(entry.path)
        rows = pq.read_table(source)
        names = {n.lower(): n for n in rows.column_names}
        keys = rows.select([names[k.lower()] for k in self.plan.keys]).rename_columns(list(self.plan.keys))
        current = self._current(olds, keys, deletes)
        filled = _filled(rows, keys, current, self.plan)
        if filled is None:
            return
        folder, name = os.path.split(entry.path)
        rel = os.path.join(folder, f"part-{uuid.uuid4().hex}-{name.split('-', 1)[-1]}")
        target = self._abs(rel)
        staged.moved.append(target)
        write_parquet(filled, target)
        footer = read_footer_stats(target)
        copy = replace(entry, path=rel, uri=fs.spark_uri(target), size=footer.size, num_records=footer.num_records)
        staged.entries[i] = copy
        staged.adds[i] = add_action(copy, footer.stats_json)
        fs.remove_files([source])

    def _current(self, olds: list[FileEntry], keys: pa.Table, deletes) -> pa.Table | None:
        """The current rows of ``keys``: each old file's rows of those keys, less the rows a
        delete version hides (as a read drops them)."""
        import pyarrow as pa

        found = []
        for f in olds:
            rows = merge_on_write.current_rows(self.table_path, [f], keys)
            if rows is None:
                continue
            gone = applicable(deletes, f.partition, commit_version(f.path))
            if gone:
                rows = rows.filter(arrow_keep_mask(rows, gone))
            if rows.num_rows:
                found.append(rows)
        if not found:
            return None
        return pa.concat_tables(found, promote_options="permissive")


def _codes(keys: pa.Table, other: pa.Table, names: Sequence[str]) -> tuple[pa.Table, pa.Table]:
    """Both tables' keys as integer codes, equal where the keys are (NULL equal to NULL, as
    UNIQUE keys compare)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    both = pa.concat_tables([keys, other.select(list(names)).cast(keys.schema)])
    codes = [pc.dictionary_encode(both[k], null_encoding="encode").combine_chunks().indices for k in names]
    n = keys.num_rows
    mine = pa.table([c.slice(0, n) for c in codes], names=list(names))
    theirs = pa.table([c.slice(n) for c in codes], names=list(names))
    return mine, theirs


def _filled(rows: pa.Table, keys: pa.Table, current: pa.Table | None, plan: PartialUpdate) -> pa.Table | None:
    """``rows`` with each missing column of a row whose key has a current row taken from it;
    None when no row changes. A new key under ``ERROR`` is refused."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if current is not None:
        cur_names = {n.lower(): n for n in current.column_names}
        current = current.select([cur_names[k.lower()] for k in plan.keys] + _present(current, plan.missing))
        current = current.rename_columns([*plan.keys, *current.column_names[len(plan.keys) :]])
        mine, theirs = _codes(keys, current, plan.keys)
        mine = mine.append_column("__new", pa.array(range(rows.num_rows), pa.int64()))
        theirs = theirs.append_column("__old", pa.array(range(current.num_rows), pa.int64()))
        matched = mine.join(theirs, keys=list(plan.keys), join_type="left outer")
        # one current row per key (merge-on-write); were there more, one row each all the same
        matched = matched.group_by("__new", use_threads=False).aggregate([("__old", "max")]).sort_by("__new")
        old_row = matched["__old_max"]
    else:
        old_row = pa.nulls(rows.num_rows, pa.int64())
    if plan.new_keys == "ERROR" and old_row.null_count:
        first = pc.index(pc.is_null(old_row), True).as_py()
        shown = ", ".join(str(keys[k][first].as_py()) for k in plan.keys)
        raise AnalysisError(  # Doris: a tablet error, errCode 1105
            "[E-7003]Can't append new rows in partial update when partial_update_new_key_behavior is ERROR. "
            f"Row with key=[{shown}] is not in table."
        )
    names = {n.lower(): n for n in rows.column_names}
    has_old = pc.is_valid(old_row)
    for name in plan.required:  # a new key's row: its default, which a NOT NULL column must have
        column = rows[names[name.lower()]] if name.lower() in names else None
        if column is not None and pc.any(pc.and_(pc.invert(has_old), pc.is_null(column))).as_py():
            raise AnalysisError(
                f"the unmentioned column `{name}` should have default value or be nullable for newly inserted "
                "rows in non-strict mode partial update"
            )
    if current is None or old_row.null_count == rows.num_rows:
        return None
    cur_names = {n.lower(): n for n in current.column_names}
    columns = list(rows.columns)
    for name in plan.missing:
        if name.lower() not in names or name.lower() not in cur_names:
            continue  # a column the old rows lack (added since): its default stays
        at = rows.column_names.index(names[name.lower()])
        mine = rows.column(at)
        old = current[cur_names[name.lower()]].take(pc.fill_null(old_row, 0)).cast(mine.type)
        columns[at] = pc.if_else(has_old, old, mine)
    return pa.table(columns, schema=rows.schema)


def _present(table: pa.Table, names: Sequence[str]) -> list[str]:
    lowered = {n.lower(): n for n in table.column_names}
    return [lowered[n.lower()] for n in names if n.lower() in lowered]
