"""One dorisql table on disk: Spark writes the Parquet files, ``deltalake`` commits the Delta log.

A small load's rows come already collected, as an Arrow table (``dml``: the source is small by
Spark's estimate): pyarrow writes them, without a Spark job (see :meth:`DeltaStore._stage`).

Layout of ``<warehouse>/<db>/<table>``::

    _delta_log/                      the Delta transaction log (the truth for data)
    __partition=<p>/__bucket=<b>/    one folder per tablet, holding Parquet files
    _staging/<txn>/                  a statement's output before it is committed
    _dorisql.lock, _dorisql_locks/   advisory locks (see dorisql.storage.locks)

Usage (the engine)::

    store = DeltaStore.create(path, arrow_schema_from_spark(spark_schema), properties={"dorisql.ddl": ddl})
    result = store.write(df_with_partition_and_bucket, statement=sql, expected_partitions=check)
    snap = store.snapshot(partitions=["p1"], buckets=[3])
    df = store.read(spark, snap.files, spark_schema)
    store.drop_partitions(["p1"])

Guarantees:

- A statement is one Delta commit. Anything that fails before the commit removes what it wrote
  and re-raises: the table version and its visible rows are unchanged. A crash leaves at most
  orphan files (in ``_staging`` or tablet folders) that the trash job (dorisql.statements.admin.trash) removes.
- Every commit holds the table's commit lock while it checks and commits. Rewrites (compaction,
  partition drop, truncate) verify under that lock that each file they remove is still in the
  table and that no commit since their read version removed it (``deltalake`` itself does not:
  see docs/storage.md), so two rewrites of the same files can never both land.
- Nothing here collects data to the driver: statistics come from Parquet footers only.

Never import this module in code that Spark ships to its Python workers (UDFs): ``deltalake``'s
Rust runtime panics in a forked process. Parallel work here uses threads; use the ``spawn``
start method for any multiprocessing.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from dorisql.catalog.model import BUCKET_COLUMN, PARTITION_COLUMN
from dorisql.errors import CommitConflictError, ExecutionError
from dorisql.storage import fs, sizing
from dorisql.storage.locks import table_lock, tablet_lock
from dorisql.storage.sizing import DEFAULT_TARGET_FILE_SIZE
from dorisql.storage.stats import read_footer_stats
from dorisql.tablets.rowsets import COMMIT_VERSION_PATTERN  # noqa: F401  (re-exported)

__all__ = [
    "DeltaStore",
    "Snapshot",
    "FileEntry",
    "WriteResult",
    "CommitResult",
    "PartitionStats",
    "LogBehindError",
    "arrow_schema_from_spark",
    "read_files",
    "STAGING_DIR",
    "DDL_PROPERTY",
    "tablet_lock",
]

STAGING_DIR = "_staging"
#: Table property holding the Doris CREATE TABLE text (the table stays self-describing).
DDL_PROPERTY = "dorisql.ddl"
_TXN_KEY = "dorisql.txn"
#: Threads for work on many files at once: footers, copies, pyarrow writes (they release the GIL).
_FILE_THREADS = 8
_HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_NULL_LAYOUT = f"rows with a NULL {PARTITION_COLUMN} or {BUCKET_COLUMN} reached the writer"

# COMMIT_VERSION_PATTERN (imported above): a loaded file's name ends in ``.v<version>.parquet``,
# the Delta version its load committed as; a compaction's output in ``.v<start>-<end>.parquet``.

#: Callback run under the commit lock just before a write commits, with the partition names the
#: write touches. Raise (or return False) to abort: nothing is committed and the files are deleted.
PartitionGuard = Callable[[frozenset], bool | None]


# --------------------------------------------------------------------------- value objects


@dataclass(frozen=True)
class FileEntry:
    """One data file of a snapshot (an ``add`` action)."""

    #: Path relative to the table folder, as on disk (the log holds it URI-encoded).
    path: str
    #: Absolute location to hand to Spark.
    uri: str
    partition: str
    bucket: int
    size: int
    num_records: int | None
    #: File modification time, ms since the epoch.
    modification_time: int = 0


@dataclass(frozen=True)
class PartitionStats:
    """Per-partition totals of a snapshot (SHOW PARTITIONS DataSize/RowCount, SHOW DATA, auto bucket)."""

    partition: str
    data_size: int
    row_count: int
    file_count: int
    #: Buckets that hold at least one file.
    bucket_count: int
    #: Latest modification time of its files (ms).
    last_modified: int


@dataclass(frozen=True)
class Snapshot:
    """The table's files at one version."""

    table_path: str
    version: int
    files: tuple[FileEntry, ...]
    #: The table properties at this version (delete versions live there: dorisql.tablets.deletes).
    properties: Mapping[str, str] = field(default_factory=dict, compare=False)

    def filter(self, partitions: Iterable[str] | None = None, buckets: Iterable[int] | None = None) -> Snapshot:
        """Keep the files of these partitions (names, exact) and/or buckets."""
        ps = None if partitions is None else set(partitions)
        bs = None if buckets is None else {int(b) for b in buckets}
        files = tuple(f for f in self.files if (ps is None or f.partition in ps) and (bs is None or f.bucket in bs))
        return Snapshot(self.table_path, self.version, files, self.properties)

    @property
    def uris(self) -> list[str]:
        return [f.uri for f in self.files]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def total_rows(self) -> int:
        return sum(f.num_records or 0 for f in self.files)

    def partitions(self) -> set[str]:
        return {f.partition for f in self.files}

    def partition_stats(self) -> dict[str, PartitionStats]:
        """Size, rows and files per partition (partitions without files are absent)."""
        acc: dict[str, list] = {}
        for f in self.files:
            a = acc.setdefault(f.partition, [0, 0, 0, set(), 0])
            a[0] += f.size
            a[1] += f.num_records or 0
            a[2] += 1
            a[3].add(f.bucket)
            a[4] = max(a[4], f.modification_time)
        return {p: PartitionStats(p, a[0], a[1], a[2], len(a[3]), a[4]) for p, a in sorted(acc.items())}


@dataclass(frozen=True)
class WriteResult:
    """What a write or rewrite committed."""

    #: The Delta version this statement created, or the unchanged version when nothing was
    #: committed (an empty write).
    version: int
    read_version: int
    committed: bool
    files: tuple[FileEntry, ...]
    rows: int
    bytes: int
    #: Rows per (partition, bucket) written.
    tablet_rows: Mapping[tuple[str, int], int]
    removed: tuple[FileEntry, ...] = ()

    @property
    def partitions(self) -> frozenset:
        return frozenset(p for p, _ in self.tablet_rows)


@dataclass(frozen=True)
class CommitResult:
    """What a metadata-only commit (drop partitions, truncate) did."""

    version: int
    read_version: int
    committed: bool
    removed: tuple[FileEntry, ...]

    @property
    def rows(self) -> int:
        return sum(f.num_records or 0 for f in self.removed)

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.removed)


@dataclass
class _Staged:
    """Files a statement wrote and moved into tablet folders, not committed yet."""

    txn: str
    staging_dir: str
    moved: list[str] = field(default_factory=list)
    adds: list[Any] = field(default_factory=list)
    entries: list[FileEntry] = field(default_factory=list)

    def discard(self) -> None:
        fs.remove_files(self.moved)
        fs.remove_tree(self.staging_dir)


# --------------------------------------------------------------------------- the store


class LogBehindError(ExecutionError):
    """The latest Delta version is older than a version the table is known to have reached
    (``DeltaStore(min_version=...)``): commit files were lost from ``_delta_log``."""

    def __init__(self, path: str, version: int, expected: int):
        super().__init__(
            f"the Delta log of {path} is at version {version}, older than version {expected} "
            f"which it is known to have reached: commits are missing from _delta_log"
        )
        self.path, self.version, self.expected = path, version, expected


class DeltaStore:
    """The Delta table in one folder ``<warehouse>/<db>/<table>``.

    Cheap to construct (opens nothing); every method reads the latest log state it needs.
    With ``min_version`` (the last version the caller knows was committed), every read and
    commit of the latest state raises LogBehindError when the log is older: a later commit would
    otherwise reuse the lost version number and hide the loss for good.
    """

    partition_by: tuple[str, ...] = (PARTITION_COLUMN, BUCKET_COLUMN)

    def __init__(self, path: str | os.PathLike, *, lock_timeout: float = 120.0, min_version: int | None = None):
        self.path = fs.local_path(path)
        self.lock_timeout = lock_timeout
        self.min_version = min_version

    def __repr__(self) -> str:
        return f"DeltaStore({self.path!r})"

    # ----------------------------------------------------------------- create / inspect

    @classmethod
    def create(
        cls,
        path: str | os.PathLike,
        arrow_schema: pa.Schema,
        *,
        partition_by: Sequence[str] = (PARTITION_COLUMN, BUCKET_COLUMN),
        properties: Mapping[str, str] | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> DeltaStore:
        """Create an empty Delta table (version 0; custom properties make version 1).

        ``arrow_schema`` must include the partition columns (``arrow_schema_from_spark`` adds
        them). ``properties`` may hold any keys (e.g. ``dorisql.ddl``): delta-rs refuses custom
        keys at create time, so they are set by a second commit.
        """
        from deltalake import DeltaTable

        store = cls(path)
        missing = [c for c in partition_by if c not in arrow_schema.names]
        if missing:
            raise ValueError(f"partition columns missing from the schema: {missing}")
        os.makedirs(store.path, exist_ok=True)
        dt = DeltaTable.create(
            store.path, arrow_schema, mode="error", partition_by=list(partition_by), name=name, description=description
        )
        if properties:
            dt.alter.set_table_properties(dict(properties), raise_if_not_exists=False)
        return store

    def exists(self) -> bool:
        from deltalake import DeltaTable

        return DeltaTable.is_deltatable(self.path)

    def _table(self, version: int | None = None):
        from deltalake import DeltaTable

        dt = DeltaTable(self.path, version=version)
        if version is None and self.min_version is not None and dt.version() < self.min_version:
            raise LogBehindError(self.path, dt.version(), self.min_version)
        return dt

    def version(self) -> int:
        return self._table().version()

    def properties(self) -> dict[str, str]:
        return dict(self._table().metadata().configuration)

    def set_properties(self, properties: Mapping[str, str]) -> int:
        """Set table properties (e.g. a new ``dorisql.ddl`` after ALTER); returns the new version."""
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            dt.alter.set_table_properties(dict(properties), raise_if_not_exists=False)
            return self._table().version()

    def commit_properties(self, make: Callable[[int], Mapping[str, str]]) -> int:
        """One commit setting the properties ``make(v)``, v being the version this commit becomes
        (a DELETE records itself under its own version). Returns v."""
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            version = dt.version() + 1
            dt.alter.set_table_properties(dict(make(version)), raise_if_not_exists=False)
            committed = self._table().version()
        if committed != version:  # only a writer ignoring the commit lock can do this
            raise CommitConflictError(
                f"table {self.path}: expected to commit version {version}, the log is at {committed}"
            )
        return version

    def arrow_schema(self) -> pa.Schema:
        return pa.schema(self._table().schema())

    def change_schema(
        self,
        arrow_schema: pa.Schema,
        *,
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> int:
        """Commit a new table schema without touching any file (ALTER TABLE ... COLUMN); returns
        the version it became. Call it holding the commit lock (``table_lock``) when the caller's
        catalog change must land under the same lock.

        deltalake 1.x's public API has ``alter.add_columns`` but no way to drop a column or change
        a type; ``create_write_transaction(mode="overwrite", schema=...)`` commits a ``metaData``
        action with the given schema, and a partition filter no partition matches makes it remove
        nothing. Files keep the columns they were written with: readers go by the schema (a
        dropped column is ignored, a widened type read as the wider one, an added one is NULL).
        """
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            txn = uuid.uuid4().hex
            info = _commit_info("dorisql SCHEMA CHANGE", txn, statement, metadata)
            from deltalake.transaction import CommitProperties

            before = dt.version()
            dt.create_write_transaction(
                [],
                mode="overwrite",
                schema=arrow_schema,
                partition_by=list(self.partition_by),
                # no partition has this value (ids are numbers, names are identifiers): nothing removed
                partition_filters=[(PARTITION_COLUMN, "=", f"/dorisql-schema-change/{txn}")],
                commit_properties=CommitProperties(custom_metadata=info),
            )
            return self._find_commit(dt, before, txn)

    def rename_columns(
        self,
        arrow_schema: pa.Schema,
        renames: Mapping[str, str],
        *,
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> int:
        """ALTER TABLE RENAME COLUMN: every data file rewritten with the column under its new name
        too, and the new schema, in one commit (returns its version).

        Delta without column mapping names columns in the files themselves, and deltalake 1.x
        reads column-mapped tables wrong (NULLs), so a rename that outside readers see needs the
        files rewritten. Each file is copied on its own (pyarrow, no Spark), next to the original,
        with the same commit-version stamp (``.v<N>.parquet``: merge order is kept), holding the
        old column as well: a reader of the old schema (the catalog before its own update) still
        finds it. Under the commit lock: the files are listed, copied, and replaced by one
        overwrite commit, so no load slips in between. On failure the copies are deleted.
        """
        import re

        from deltalake.transaction import AddAction, CommitProperties

        lowered = {old.lower(): new for old, new in renames.items()}
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            snap = self._snapshot_of(dt)
            tag = uuid.uuid4().hex[:12]
            written: list[str] = []

            def copy(f: FileEntry):
                source = os.path.join(self.path, f.path)
                table = pq.read_table(source)
                for name in list(table.column_names):
                    target = lowered.get(name.lower())
                    if target is None:
                        continue
                    field = pa.field(target, table.schema.field(name).type)
                    at = table.schema.get_field_index(target)
                    # a namesake left in the file by a dropped column is replaced, never kept
                    table = (
                        table.set_column(at, field, table[name]) if at >= 0 else table.append_column(field, table[name])
                    )
                m = re.search(COMMIT_VERSION_PATTERN, f.path)
                stem = f.path[: m.start()] if m else f.path[: -len(".parquet")]
                rel = f"{stem}.rn{tag}" + (f".v{m.group(1)}.parquet" if m else ".parquet")
                target_path = os.path.join(self.path, rel)
                written.append(target_path)
                _write_parquet(table, target_path)
                footer = read_footer_stats(target_path)
                return AddAction(
                    path=rel,
                    size=footer.size,
                    partition_values={PARTITION_COLUMN: f.partition, BUCKET_COLUMN: str(f.bucket)},
                    modification_time=int(os.path.getmtime(target_path) * 1000),
                    data_change=False,
                    stats=footer.stats_json,
                )

            try:
                with ThreadPoolExecutor(max_workers=max(1, min(_FILE_THREADS, len(snap.files)))) as pool:
                    adds = list(pool.map(copy, snap.files))
                txn = uuid.uuid4().hex
                info = _commit_info("dorisql RENAME COLUMN", txn, statement, metadata)
                before = dt.version()
                # overwrite without a filter: every file of the snapshot (read under this lock) is
                # removed and replaced by its copy, with the new schema, in one commit
                dt.create_write_transaction(
                    adds,
                    mode="overwrite",
                    schema=arrow_schema,
                    partition_by=list(self.partition_by),
                    commit_properties=CommitProperties(custom_metadata=info),
                )
            except BaseException:
                fs.remove_files(written)
                raise
            return self._find_commit(dt, before, txn)

    # ----------------------------------------------------------------- snapshot

    def snapshot(
        self,
        version: int | None = None,
        *,
        partitions: Iterable[str] | None = None,
        buckets: Iterable[int] | None = None,
    ) -> Snapshot:
        """The files of the table (latest version, or ``version``), optionally only some
        partitions and/or buckets."""
        return self._snapshot_of(self._table(version), partitions, buckets)

    def _snapshot_of(self, dt, partitions=None, buckets=None) -> Snapshot:
        actions = pa.table(dt.get_add_actions(flatten=True))
        pcol, bcol = f"partition.{PARTITION_COLUMN}", f"partition.{BUCKET_COLUMN}"
        if partitions is not None:
            actions = actions.filter(pc.is_in(actions[pcol], pa.array(list(partitions), pa.string())))
        if buckets is not None:
            actions = actions.filter(
                pc.is_in(pc.cast(actions[bcol], pa.int64()), pa.array([int(b) for b in buckets], pa.int64()))
            )
        cols = {
            name: actions[name].to_pylist()
            for name in ("path", "size_bytes", "modification_time", "num_records", pcol, bcol)
        }
        files = tuple(
            FileEntry(
                path=unquote(p),
                uri=self._uri(unquote(p)),
                partition=part,
                bucket=int(b),
                size=size,
                num_records=n,
                modification_time=mt,
            )
            for p, size, mt, n, part, b in zip(
                cols["path"], cols["size_bytes"], cols["modification_time"], cols["num_records"], cols[pcol], cols[bcol]
            )
        )
        return Snapshot(self.path, dt.version(), files, dict(dt.metadata().configuration))

    def _uri(self, rel_path: str) -> str:
        return fs.spark_uri(os.path.join(self.path, rel_path))

    def partition_stats(self, version: int | None = None) -> dict[str, PartitionStats]:
        """Per partition: data size, rows, files, buckets with data, last modification."""
        return self.snapshot(version).partition_stats()

    # ----------------------------------------------------------------- read

    def read(
        self,
        spark,
        files: Iterable[FileEntry | str] | None = None,
        spark_schema=None,
        *,
        with_partition_columns: bool = False,
    ):
        """A DataFrame over ``files`` (default: every file of the latest snapshot).

        ``spark_schema`` is the table's data schema (without ``__partition``/``__bucket``); with
        ``with_partition_columns=True`` those two columns are added from the folder names.
        """
        if files is None:
            files = self.snapshot().files
        return read_files(spark, files, spark_schema, base_path=self.path if with_partition_columns else None)

    # ----------------------------------------------------------------- write

    def write(
        self,
        rows,
        *,
        operation: str = "dorisql INSERT",
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expected_partitions: PartitionGuard | None = None,
        target_file_size: int = DEFAULT_TARGET_FILE_SIZE,
        partition: str | None = None,
    ) -> WriteResult:
        """Append rows that already have ``__partition`` (string) and ``__bucket`` (int): a Spark
        DataFrame, or a small load's rows as a ``pyarrow.Table``.

        The rows are written as Parquet into ``_staging/<txn>/``, one file per tablet per
        ``target_file_size`` bytes (about) whatever the shape of the source (see :meth:`_stage`);
        the files move into their tablet folders;
        stats come from their footers; then one Delta commit adds them all. Under the commit lock
        and just before committing, ``expected_partitions(frozenset_of_partition_names)`` runs: it
        raises (or returns False) to refuse, e.g. when a target partition was dropped meanwhile.
        On any failure the written files are deleted and the error re-raised; nothing is visible.
        No rows commit nothing (``committed=False``). ``partition``: see :meth:`_stage`.
        """
        staged = self._stage(rows, target_file_size, partition=partition)
        return self._append(staged, False, operation, statement, metadata, expected_partitions)

    def rewrite(
        self,
        read_version: int,
        removed: Iterable[FileEntry | str],
        df=None,
        *,
        data_change: bool = False,
        operation: str = "dorisql COMPACTION",
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        file_suffix: str | None = None,
        target_file_size: int = DEFAULT_TARGET_FILE_SIZE,
    ) -> WriteResult:
        """Replace files read at ``read_version`` by the rows of ``df`` (compaction): one commit of
        ``remove`` + ``add`` actions (``dataChange`` = ``data_change``).

        ``removed`` are snapshot entries or paths relative to the table folder as on disk
        (``FileEntry.path``). ``df`` has ``__partition``/``__bucket`` like :meth:`write`, laid
        out by the caller (written as its tasks hold it, no shuffle by tablet); None only removes. Refused with
        CommitConflictError, committing nothing and deleting the new files, when any removed file
        is no longer in the table or a commit after ``read_version`` removed one of them.
        ``file_suffix`` replaces the new files' ``.parquet`` ending (a compaction's version range,
        ``.v<start>-<end>.parquet``: dorisql.tablets.rowsets).
        """
        removed = list(removed)
        if not removed:
            raise ValueError("rewrite needs at least one file to remove")
        staged = self._stage(df, target_file_size, keep_layout=True) if df is not None else None
        try:
            if staged is not None and file_suffix is not None:
                self._rename_staged(staged, file_suffix)
            return self._commit(
                staged,
                removes=removed,
                read_version=read_version,
                data_change=data_change,
                operation=operation,
                statement=statement,
                metadata=metadata,
                guard=None,
            )
        except BaseException:
            if staged is not None:
                staged.discard()
            raise

    def overwrite(
        self,
        rows,
        replaced: Callable[[frozenset], Iterable[str]],
        *,
        operation: str = "dorisql INSERT OVERWRITE",
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expected_partitions: PartitionGuard | None = None,
        target_file_size: int = DEFAULT_TARGET_FILE_SIZE,
        partition: str | None = None,
    ) -> WriteResult:
        """Replace whole partitions by ``rows`` (INSERT OVERWRITE): one commit of
        ``add`` actions for the new files and ``remove`` actions for every file of the replaced
        partitions, so a reader sees the old rows or the new, never both.

        Written like :meth:`write`. Under the commit lock, ``expected_partitions(touched)`` runs
        first (raise to refuse), then ``replaced(touched)`` names the partition values to empty
        (``touched``: those the new rows went to); their files are taken from the latest snapshot
        under that lock, so a load that committed into them before is replaced too and one into
        another partition is kept. On any failure the new files are deleted and the table is as
        it was. Nothing to add and nothing to remove commits nothing. ``partition``: see
        :meth:`_stage`.
        """
        staged = self._stage(rows, target_file_size, partition=partition)
        try:
            return self._commit_overwrite(staged, replaced, operation, statement, metadata, expected_partitions)
        except BaseException:
            staged.discard()
            raise

    def _commit_overwrite(self, staged: _Staged, replaced, operation, statement, metadata, guard) -> WriteResult:
        tablet_rows: dict[tuple[str, int], int] = {}
        for e in staged.entries:
            tablet_rows[(e.partition, e.bucket)] = tablet_rows.get((e.partition, e.bucket), 0) + (e.num_records or 0)
        touched = frozenset(p for p, _ in tablet_rows)
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            current = dt.version()
            if guard is not None and guard(touched) is False:
                raise CommitConflictError("the target partitions changed; nothing was committed")
            targets = set(replaced(touched))
            victims = [f for f in self._snapshot_of(dt).files if f.partition in targets]
            if not staged.adds and not victims:
                return WriteResult(current, current, False, (), 0, 0, {})
            self._stamp_commit_version(staged, current + 1)
            version = self._commit_actions(
                dt,
                staged.adds,
                victims,
                data_change=True,
                read_version=current,
                operation=operation,
                statement=statement,
                metadata={**(metadata or {}), "partitions": sorted(targets)},
            )
        entries = tuple(staged.entries)
        return WriteResult(
            version,
            current,
            True,
            entries,
            sum(e.num_records or 0 for e in entries),
            sum(e.size for e in entries),
            tablet_rows,
            tuple(victims),
        )

    def drop_partitions(
        self,
        names: Iterable[str],
        *,
        expected_read_version: int | None = None,
        operation: str = "dorisql DROP PARTITION",
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> CommitResult:
        """One commit of ``remove`` actions (dataChange=true) for every file of these partitions.

        Metadata only: files stay on disk until the trash job deletes them (dorisql.statements.admin.trash).
        The file list is taken from the
        latest snapshot *under the commit lock*, so rows that a concurrent load committed into the
        partition before this point are removed too (the engine drops the partition from the
        catalog first; the load's ``expected_partitions`` guard refuses after that).
        ``expected_read_version`` is the version the caller planned from; it is recorded in the
        commit and must not be newer than the table. Partitions without files commit nothing.
        """
        names = list(names)
        return self._remove_where(
            lambda f: f.partition in names,
            operation,
            statement,
            metadata,
            expected_read_version,
            extra={"partitions": names},
        )

    def truncate(
        self,
        partitions: Iterable[str] | None = None,
        *,
        expected_read_version: int | None = None,
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> CommitResult:
        """Remove every file of the table, or of the listed partitions (TRUNCATE TABLE)."""
        names = None if partitions is None else list(partitions)
        keep_all = names is None
        return self._remove_where(
            lambda f: keep_all or f.partition in names,
            "dorisql TRUNCATE",
            statement,
            metadata,
            expected_read_version,
            extra={"partitions": names},
        )

    def _remove_where(self, pred, operation, statement, metadata, expected_read_version, extra) -> CommitResult:
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            snap = self._snapshot_of(dt)
            if expected_read_version is not None and expected_read_version > snap.version:
                raise CommitConflictError(
                    f"table {self.path} is at version {snap.version}, older than the expected {expected_read_version}"
                )
            victims = [f for f in snap.files if pred(f)]
            if not victims:
                return CommitResult(snap.version, snap.version, False, ())
            md = {**(metadata or {}), **{k: v for k, v in extra.items() if v is not None}}
            if expected_read_version is not None:
                md["dorisql.expectedReadVersion"] = expected_read_version
            version = self._commit_actions(
                dt,
                [],
                victims,
                data_change=True,
                read_version=snap.version,
                operation=operation,
                statement=statement,
                metadata=md,
            )
        return CommitResult(version, snap.version, True, tuple(victims))

    def rename_partition(
        self, old: str, new: str, *, statement: str | None = None, metadata: Mapping[str, Any] | None = None
    ) -> WriteResult:
        """Give partition ``old``'s files the partition value ``new`` (ALTER TABLE RENAME PARTITION).

        One commit, under the commit lock: ``remove`` of every file of ``old`` and ``add`` of the
        same data under ``__partition=<new>/`` (hard links, or copies where links are impossible,
        so older versions stay readable; stats re-read from the footers). Refused with
        CommitConflictError when ``new`` already has files. No files: nothing is committed.
        """
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            snap = self._snapshot_of(dt)
            if any(f.partition == new for f in snap.files):
                raise CommitConflictError(f"partition {new!r} already has data in {self.path}")
            victims = [f for f in snap.files if f.partition == old]
            if not victims:
                return WriteResult(snap.version, snap.version, False, (), 0, 0, {})
            created: list[str] = []

            def relink(f: FileEntry):
                file_name = f.path.rsplit("/", 1)[-1]
                rel = f"{PARTITION_COLUMN}={_escape_path_name(new)}/{BUCKET_COLUMN}={f.bucket}/{file_name}"
                dst = os.path.join(self.path, rel)
                fs.link_or_copy(f.uri, dst)
                created.append(dst)
                footer = read_footer_stats(dst)
                entry = FileEntry(
                    path=rel,
                    uri=fs.spark_uri(dst),
                    partition=new,
                    bucket=f.bucket,
                    size=footer.size,
                    num_records=footer.num_records,
                    modification_time=int(os.path.getmtime(dst) * 1000),
                )
                return entry, footer.stats_json

            try:
                with ThreadPoolExecutor(max_workers=min(_FILE_THREADS, len(victims))) as pool:
                    placed = list(pool.map(relink, victims))
                from deltalake.transaction import AddAction

                adds = [
                    AddAction(
                        path=e.path,
                        size=e.size,
                        partition_values={PARTITION_COLUMN: new, BUCKET_COLUMN: str(e.bucket)},
                        modification_time=e.modification_time,
                        data_change=True,
                        stats=st,
                    )
                    for e, st in placed
                ]
                version = self._commit_actions(
                    dt,
                    adds,
                    victims,
                    data_change=True,
                    read_version=snap.version,
                    operation="dorisql RENAME PARTITION",
                    statement=statement,
                    metadata={**(metadata or {}), "from": old, "to": new},
                )
            except BaseException:
                fs.remove_files(created)
                raise
        entries = tuple(e for e, _ in placed)
        tablet_rows: dict[tuple[str, int], int] = {}
        for e in entries:
            tablet_rows[(new, e.bucket)] = tablet_rows.get((new, e.bucket), 0) + (e.num_records or 0)
        return WriteResult(
            version,
            snap.version,
            True,
            entries,
            sum(tablet_rows.values()),
            sum(e.size for e in entries),
            tablet_rows,
            tuple(victims),
        )

    # ----------------------------------------------------------------- housekeeping

    def vacuum(
        self, retention_hours: float = 168, *, staging_older_than_hours: float = 24, dry_run: bool = False
    ) -> list[str]:
        """Delete files no longer referenced (older than the retention) and stale staging folders."""
        deleted = list(
            self._table().vacuum(
                retention_hours=int(retention_hours), dry_run=dry_run, enforce_retention_duration=False
            )
        )
        staging = os.path.join(self.path, STAGING_DIR)
        if os.path.isdir(staging):
            cutoff = time.time() - staging_older_than_hours * 3600
            for name in os.listdir(staging):
                p = os.path.join(staging, name)
                if os.path.getmtime(p) < cutoff:
                    deleted.append(p)
                    if not dry_run:
                        fs.remove_tree(p)
        return deleted

    def drop_table(self) -> None:
        """Delete the table folder and everything in it (the engine decides when)."""
        fs.remove_tree(self.path)

    def removed_files(self, older_than_hours: int) -> list[str]:
        """Files that a commit removed from the table (``remove`` actions: drops, truncates,
        rewrites) at least ``older_than_hours`` ago by the commit's deletion timestamp, and that
        the latest snapshot does not hold again. Paths relative to the table folder, as on disk.
        Lists only (``DeltaTable.vacuum`` dry run); nothing is deleted."""
        return sorted(
            self._table().vacuum(
                retention_hours=max(int(older_than_hours), 0), dry_run=True, enforce_retention_duration=False
            )
        )

    def unreferenced_files(self, older_than_hours: int) -> list[str]:
        """Every data file the latest snapshot does not reference and that is old enough: the
        removed files of :meth:`removed_files`, plus files no commit ever added (a load that
        died before its commit) modified at least ``older_than_hours`` ago. Folders starting with
        ``_`` (the log, staging, locks) are not looked at. Lists only (vacuum dry run, full)."""
        return sorted(
            self._table().vacuum(
                retention_hours=max(int(older_than_hours), 0), dry_run=True, enforce_retention_duration=False, full=True
            )
        )

    def delete_files(self, paths: Iterable[str]) -> tuple[int, int]:
        """Delete data files (paths relative to the table folder) and the tablet folders they
        leave empty. Returns (files deleted, bytes freed); files already gone are skipped. The
        caller decides what is garbage (under the commit lock, so that no commit adds a file
        back meanwhile)."""
        count = freed = 0
        folders: set[str] = set()
        for rel in paths:
            full = os.path.join(self.path, rel)
            try:
                size = os.path.getsize(full)
                os.remove(full)
            except FileNotFoundError:
                continue
            count += 1
            freed += size
            folders.add(os.path.dirname(full))
        for folder in sorted(folders, key=len, reverse=True):
            while folder != self.path and folder.startswith(self.path + os.sep):
                try:
                    os.rmdir(folder)  # only when empty
                except OSError:
                    break
                folder = os.path.dirname(folder)
        return count, freed

    def restore_files(
        self,
        files: Sequence[FileEntry],
        *,
        operation: str = "dorisql RECOVER PARTITION",
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> WriteResult:
        """Add back files that an earlier commit removed (RECOVER PARTITION): one commit of
        ``add`` actions with the same paths and partition values, statistics read again from
        the footers. Under the commit lock; files the latest snapshot already holds are skipped,
        so a retry after a crash adds what is missing. If any file is no longer on disk, nothing
        is committed (ExecutionError). Nothing to add: nothing is committed."""
        from deltalake.transaction import AddAction

        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            live = _live_paths(dt)
            todo = [f for f in files if f.path not in live]
            if not todo:
                version = dt.version()
                return WriteResult(version, version, False, (), 0, 0, {})
            missing = [f.path for f in todo if not os.path.isfile(os.path.join(self.path, f.path))]
            if missing:
                raise ExecutionError(
                    f"{len(missing)} of the {len(todo)} files to add back are no longer in "
                    f"{self.path} (e.g. {missing[0]}); nothing was committed"
                )

            def placed(f: FileEntry):
                footer = read_footer_stats(os.path.join(self.path, f.path))
                entry = replace(f, uri=self._uri(f.path), size=footer.size, num_records=footer.num_records)
                return entry, footer.stats_json

            with ThreadPoolExecutor(max_workers=min(_FILE_THREADS, len(todo))) as pool:
                results = list(pool.map(placed, todo))
            adds = [
                AddAction(
                    path=e.path,
                    size=e.size,
                    partition_values={PARTITION_COLUMN: e.partition, BUCKET_COLUMN: str(e.bucket)},
                    modification_time=e.modification_time,
                    data_change=True,
                    stats=st,
                )
                for e, st in results
            ]
            read_version = dt.version()
            version = self._commit_actions(
                dt,
                adds,
                [],
                data_change=True,
                read_version=read_version,
                operation=operation,
                statement=statement,
                metadata=metadata,
            )
        entries = tuple(e for e, _ in results)
        tablet_rows: dict[tuple[str, int], int] = {}
        for e in entries:
            tablet_rows[(e.partition, e.bucket)] = tablet_rows.get((e.partition, e.bucket), 0) + (e.num_records or 0)
        return WriteResult(
            version, read_version, True, entries, sum(tablet_rows.values()), sum(e.size for e in entries), tablet_rows
        )

    # ----------------------------------------------------------------- internals: staging

    def new_staging_dir(self) -> str:
        """A fresh, not yet existing folder ``_staging/<txn>/`` for :meth:`commit_staged`."""
        return os.path.join(self.path, STAGING_DIR, uuid.uuid4().hex)

    def commit_staged(
        self,
        staging_dir: str,
        *,
        operation: str = "dorisql INSERT",
        statement: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expected_partitions: PartitionGuard | None = None,
    ) -> WriteResult:
        """Commit Parquet files that some writer already put in ``staging_dir`` (from
        :meth:`new_staging_dir`) in the Hive layout ``__partition=<p>/__bucket=<b>/*.parquet``.

        :meth:`write` is Spark writing into a staging folder and then this. Same guarantees:
        on failure the files are deleted and nothing is committed.
        """
        staged = _Staged(os.path.basename(staging_dir.rstrip("/")), fs.local_path(staging_dir))
        return self._append(staged, True, operation, statement, metadata, expected_partitions)

    def _append(self, staged: _Staged, collect: bool, operation, statement, metadata, guard) -> WriteResult:
        """Commit a statement's new files as one append (moving them into place first when
        `collect`); on any failure they are deleted and nothing is committed."""
        try:
            if collect:
                self._collect(staged)
            return self._commit(
                staged,
                removes=(),
                read_version=None,
                data_change=True,
                operation=operation,
                statement=statement,
                metadata=metadata,
                guard=guard,
            )
        except BaseException:
            staged.discard()
            raise

    def _stage(
        self,
        rows,
        target_file_size: int = DEFAULT_TARGET_FILE_SIZE,
        *,
        keep_layout: bool = False,
        partition: str | None = None,
    ) -> _Staged:
        """Write ``rows`` into _staging/<txn>/; the files move into their tablet folders.

        A tablet gets one file per ``target_file_size`` bytes of its rows (about: the row size is
        the table's average so far, else an estimate from its column types), whatever the shape
        of the source. Spark alone writes one file per tablet per task that holds rows of it, so
        a source of many small files would add files by the thousand. Therefore:

        - A Spark DataFrame is first shuffled by tablet (``__partition``, ``__bucket``): each
          tablet is written by one task, different tablets by different tasks in parallel
          (adaptive execution packs small tablets into one task), and a task starts a new file
          every `sizing.rows_per_file` rows.
        - A ``pyarrow.Table`` (a small load, already collected: ``dml``) is written by pyarrow,
          tablet by tablet (:meth:`_stage_arrow`): no Spark job, no shuffle, and each tablet's
          rows are in one place, so the promise above stands.

        ``partition``: every row is in this partition (the caller routed them to it alone, a
        statement naming one partition): the rows are written into its folder split by bucket
        only, and a shuffle, if any, is by bucket only; ``rows`` may then lack ``__partition``.

        ``keep_layout``: the caller laid the rows out itself (a compaction's sorted runs, one
        per output file): no shuffle, which would undo the sort order."""
        columns = rows.column_names if isinstance(rows, pa.Table) else rows.columns
        for col in (BUCKET_COLUMN,) if partition is not None else (PARTITION_COLUMN, BUCKET_COLUMN):
            if col not in columns:
                raise ValueError(f"the rows to write need a {col} column")
        staging_dir = self.new_staging_dir()
        staged = _Staged(os.path.basename(staging_dir), staging_dir)
        try:
            if isinstance(rows, pa.Table):
                self._stage_arrow(staged, rows, target_file_size, partition)
            else:
                self._stage_spark(staged, rows, target_file_size, keep_layout, partition)
            self._collect(staged)
            return staged
        except BaseException:
            staged.discard()
            raise

    def _stage_spark(self, staged: _Staged, df, target_file_size: int, keep_layout: bool, partition) -> None:
        rows_per_file = sizing.rows_per_file(target_file_size, self._row_bytes())
        layout = [BUCKET_COLUMN] if partition is not None else [PARTITION_COLUMN, BUCKET_COLUMN]
        frame = df if keep_layout else df.repartition(*layout)
        output = staged.staging_dir
        if partition is not None:  # the folder Spark's partitionBy would have named
            if PARTITION_COLUMN in df.columns:
                frame = frame.drop(PARTITION_COLUMN)
            output = os.path.join(output, f"{PARTITION_COLUMN}={_escape_path_name(partition)}")
        (
            frame.write.partitionBy(*layout)
            .option("maxRecordsPerFile", rows_per_file)
            .mode("error")  # "errorifexists" in classic Spark only; the same mode
            .parquet(fs.spark_uri(output))
        )

    def _stage_arrow(self, staged: _Staged, table: pa.Table, target_file_size: int, partition) -> None:
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
            rows_per_file = sizing.rows_per_file(target_file_size, self._row_bytes())
        pieces = []
        for part, bucket, rows in _tablets(table, layout, partition):
            folder = os.path.join(
                staged.staging_dir, f"{PARTITION_COLUMN}={_escape_path_name(part)}", f"{BUCKET_COLUMN}={bucket}"
            )
            pieces += [(folder, rows.slice(at, rows_per_file)) for at in range(0, rows.num_rows, rows_per_file)]

        def write(numbered) -> None:
            i, (folder, rows) = numbered
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"part-{i:05d}-{staged.txn}.c000.snappy.parquet")  # Spark's naming
            _write_parquet(rows, path)

        if len(pieces) <= 1:
            for numbered in enumerate(pieces):
                write(numbered)
        else:
            with ThreadPoolExecutor(max_workers=min(_FILE_THREADS, len(pieces))) as pool:
                list(pool.map(write, enumerate(pieces)))

    def _row_bytes(self) -> float:
        """The stored size of one row, for sizing files (`sizing.row_bytes`)."""
        dt = self._table()
        actions = pa.table(dt.get_add_actions(flatten=True))
        total_bytes = pc.sum(actions["size_bytes"]).as_py() or 0
        total_rows = pc.sum(actions["num_records"]).as_py() or 0
        schema = pa.schema(dt.schema())
        # the partition columns live in folder names, not in the files
        data = pa.schema([f for f in schema if f.name not in (PARTITION_COLUMN, BUCKET_COLUMN)])
        return sizing.row_bytes(total_bytes, total_rows, data)

    def _collect(self, staged: _Staged) -> None:
        """Move the staged files into their tablet folders and read their footers (in parallel)."""
        try:
            rels = [r for r in fs.list_files(staged.staging_dir) if r.endswith(".parquet")]
            plan = []
            for rel in rels:
                part_dir, bucket_dir, name = rel.split("/")
                partition = _unescape(_value_of(part_dir, PARTITION_COLUMN))
                bucket_text = _unescape(_value_of(bucket_dir, BUCKET_COLUMN))
                if partition == _HIVE_NULL or bucket_text == _HIVE_NULL:
                    raise ExecutionError(_NULL_LAYOUT)
                plan.append((rel, partition, int(bucket_text)))
            if plan:
                staged.moved = [None] * len(plan)
                if len(plan) <= _FILE_THREADS:  # starting threads costs more than a few footers
                    results = [self._place(staged, i, item) for i, item in enumerate(plan)]
                else:
                    with ThreadPoolExecutor(max_workers=_FILE_THREADS) as pool:
                        results = list(pool.map(lambda item: self._place(staged, item[0], item[1]), enumerate(plan)))
                from deltalake.transaction import AddAction

                for entry, stats in results:
                    staged.entries.append(entry)
                    staged.adds.append(
                        AddAction(
                            path=entry.path,
                            size=entry.size,
                            partition_values={PARTITION_COLUMN: entry.partition, BUCKET_COLUMN: str(entry.bucket)},
                            modification_time=entry.modification_time,
                            data_change=True,
                            stats=stats,
                        )
                    )
            fs.remove_tree(staged.staging_dir)
        finally:
            staged.moved = [m for m in staged.moved if m]

    def _place(self, staged: _Staged, i: int, item):
        rel, partition, bucket = item
        src = os.path.join(staged.staging_dir, rel)
        footer = read_footer_stats(src)
        dst_rel = rel  # same tablet folder names and Spark's unique file name
        dst = os.path.join(self.path, dst_rel)
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

    # ----------------------------------------------------------------- internals: commit

    def _commit(
        self, staged: _Staged | None, removes, read_version, data_change, operation, statement, metadata, guard
    ) -> WriteResult:
        adds = staged.adds if staged else []
        entries = tuple(staged.entries) if staged else ()
        tablet_rows: dict[tuple[str, int], int] = {}
        for e in entries:
            key = (e.partition, e.bucket)
            tablet_rows[key] = tablet_rows.get(key, 0) + (e.num_records or 0)
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            current = dt.version()
            removed_entries: list[FileEntry] = []
            if removes:
                removed_entries = self._check_removals(dt, read_version, removes)
            if not adds and not removed_entries:
                return WriteResult(current, current, False, (), 0, 0, {})
            if guard is not None:
                if guard(frozenset(p for p, _ in tablet_rows)) is False:
                    raise CommitConflictError("the target partitions changed; nothing was committed")
            if staged is not None and not removes:
                self._stamp_commit_version(staged, current + 1)
                entries = tuple(staged.entries)
            for a in adds:
                a.data_change = data_change if removes else True
            version = self._commit_actions(
                dt,
                adds,
                removed_entries,
                data_change=data_change,
                read_version=current if read_version is None else read_version,
                operation=operation,
                statement=statement,
                metadata=metadata,
            )
        rows = sum(e.num_records or 0 for e in entries)
        return WriteResult(
            version,
            current if read_version is None else read_version,
            True,
            entries,
            rows,
            sum(e.size for e in entries),
            tablet_rows,
            tuple(removed_entries),
        )

    def _stamp_commit_version(self, staged: _Staged, version: int) -> None:
        """Under the commit lock: put the version this commit becomes into its files' names.

        Merge-on-read (UNIQUE latest row, AGGREGATE REPLACE) orders rows by it, so of two loads
        the one that committed later wins, whichever started first (Doris's version order). A
        crash halfway leaves uncommitted files only. Rewrites (compaction) keep their inputs'
        order instead: their output is not newer data."""
        self._rename_staged(staged, f".v{version}.parquet")

    def _rename_staged(self, staged: _Staged, suffix: str) -> None:
        """Give a statement's placed, uncommitted files names ending in ``suffix``."""
        for i, entry in enumerate(staged.entries):
            stamped = entry.path[: -len(".parquet")] + suffix
            source, target = os.path.join(self.path, entry.path), os.path.join(self.path, stamped)
            fs.move_file(source, target)
            staged.moved = [target if m == source else m for m in staged.moved]
            staged.entries[i] = replace(entry, path=stamped, uri=fs.spark_uri(target))
            staged.adds[i].path = stamped

    def _check_removals(self, dt, read_version: int, removes) -> list[FileEntry]:
        """Under the lock: every file to remove is in the latest snapshot and no commit after
        ``read_version`` removed it. Returns the snapshot entries of the files."""
        wanted = [r.path if isinstance(r, FileEntry) else str(r) for r in removes]
        current = dt.version()
        if read_version > current:
            raise CommitConflictError(f"read version {read_version} is newer than the table ({current})")
        removed_since = self._removed_since(read_version, current, set(wanted))
        clash = [w for w in wanted if w in removed_since]
        if clash:
            raise CommitConflictError(
                f"{len(clash)} of the files to rewrite were removed by a commit after version {read_version} "
                f"(e.g. {clash[0]}); nothing was committed"
            )
        live = {f.path: f for f in self._snapshot_of(dt).files}
        missing = [w for w in wanted if w not in live]
        if missing:
            raise CommitConflictError(
                f"{len(missing)} of the files to rewrite are not in the table "
                f"(e.g. {missing[0]}); nothing was committed"
            )
        return [live[w] for w in wanted]

    def _removed_since(self, read_version: int, current: int, paths: set[str]) -> set[str]:
        """Which of ``paths`` a commit after ``read_version`` (up to ``current``) removed, even
        if a later commit added the same path again.

        Walks the snapshots version by version (deltalake loads each from the latest checkpoint
        before it and the commits after). Once the log has been checkpointed and cleaned up past
        ``read_version``, that version cannot be loaded and the rewrite is refused: its read is
        older than the table's history.
        """
        if read_version == current:
            return set()
        from deltalake.exceptions import DeltaError

        try:
            dt = self._table(read_version)
        except DeltaError as exc:
            raise CommitConflictError(
                f"version {read_version} of {self.path} is no longer in the Delta log "
                f"(checkpointed and cleaned up); re-read the table and retry"
            ) from exc
        present = paths & _live_paths(dt)
        removed: set[str] = set()
        for v in range(read_version + 1, current + 1):
            dt.load_as_version(v)
            now = paths & _live_paths(dt)
            removed |= present - now
            present = now
        return removed

    def _commit_actions(
        self,
        dt,
        adds,
        removed_entries: Sequence[FileEntry],
        *,
        data_change: bool,
        read_version: int,
        operation: str,
        statement: str | None,
        metadata,
    ) -> int:
        from deltalake.transaction import CommitProperties, RemoveAction

        now = int(time.time() * 1000)
        removes = [
            RemoveAction(
                path=f.path,
                data_change=data_change,
                deletion_timestamp=now,
                size=f.size,
                partition_values={PARTITION_COLUMN: f.partition, BUCKET_COLUMN: str(f.bucket)},
            )
            for f in removed_entries
        ]
        txn = uuid.uuid4().hex
        info = _commit_info(operation, txn, statement, metadata)
        info["readVersion"] = int(read_version)
        before = dt.version()
        dt.create_write_transaction(
            list(adds) + removes,
            mode="append",
            schema=dt.schema(),
            partition_by=list(self.partition_by),
            commit_properties=CommitProperties(custom_metadata=info),
        )
        return self._find_commit(dt, before, txn)

    def _find_commit(self, dt, before: int, txn: str) -> int:
        """The version of our commit: the one after ``before`` whose commitInfo carries ``txn``
        (deltalake retries a commit that lost a race at the next version)."""
        dt.update_incremental()
        for info in dt.history(limit=max(dt.version() - before, 1)):
            if info.get(_TXN_KEY) == txn:
                return int(info["version"])
        raise ExecutionError(f"committed, but commit {txn} was not found in the log of {self.path}")


# --------------------------------------------------------------------------- helpers


def _commit_info(operation: str, txn: str, statement: str | None, metadata: Mapping[str, Any] | None) -> dict:
    """A commit's commitInfo custom metadata: the operation, the transaction id that finds the
    commit again, the statement, and the caller's entries (under ``dorisql.``, but for Delta's
    own ``userMetadata``)."""
    info: dict[str, Any] = {"dorisql.operation": operation, _TXN_KEY: txn}
    if statement is not None:
        info["dorisql.statement"] = statement
    for k, v in (metadata or {}).items():
        info[k if k.startswith("dorisql.") or k == "userMetadata" else f"dorisql.{k}"] = v
    return info


def _live_paths(dt) -> set[str]:
    """Paths (relative to the table folder, as on disk) of the files in ``dt``'s snapshot."""
    return {unquote(p) for p in pa.table(dt.get_add_actions(flatten=True)).column("path").to_pylist()}


def _write_parquet(table: pa.Table, path: str) -> None:
    """A Parquet file written by pyarrow, typed as Spark writes its own: decimals as integers
    where they fit, and no Arrow schema in the footer (a reader takes the Parquet types).

    A column's dictionary is given up once it passes 64 KiB (pyarrow's default is 1 MiB): a key
    or measure column of many distinct values then costs no dictionary building it would throw
    away (writing 333,333 rows of three columns: 76 ms and 2.65 MB with 1 MiB, 43 ms and
    2.11 MB with 64 KiB), and a column of a few thousand distinct values keeps its dictionary."""
    pq.write_table(
        table,
        path,
        compression="snappy",
        store_schema=False,
        store_decimal_as_integer=True,
        dictionary_pagesize_limit=64 * 1024,
    )


def _tablets(table: pa.Table, layout: list[str], partition: str | None):
    """(partition, bucket, rows without the layout columns) per tablet of ``table``, each
    tablet's rows in their order (a stable sort: of two rows of one key in one load, the later
    wins a UNIQUE merge)."""
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


def read_files(spark, files: Iterable[FileEntry | str], spark_schema, *, base_path: str | None = None):
    """``spark.read.schema(schema).parquet(*paths)``; no files gives an empty DataFrame.

    With ``base_path`` (the table folder) the result also has ``__partition`` and ``__bucket``.
    """
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    uris = [f.uri if isinstance(f, FileEntry) else str(f) for f in files]
    schema = spark_schema
    if base_path is not None:
        schema = StructType(
            list(spark_schema.fields)
            + [StructField(PARTITION_COLUMN, StringType(), True), StructField(BUCKET_COLUMN, IntegerType(), True)]
        )
    if not uris:
        return spark.createDataFrame([], schema)
    reader = spark.read.schema(schema)
    if base_path is not None:
        reader = reader.option("basePath", fs.spark_uri(base_path))
    return reader.parquet(*uris)


def arrow_schema_from_spark(spark_schema, *, with_partition_columns: bool = True) -> pa.Schema:
    """The Arrow (= Delta) schema of a Spark schema, plus ``__partition`` string and ``__bucket`` int."""
    fields = [pa.field(f.name, _arrow_type(f.dataType), nullable=f.nullable) for f in spark_schema.fields]
    if with_partition_columns:
        names = {f.name for f in fields}
        if PARTITION_COLUMN not in names:
            fields.append(pa.field(PARTITION_COLUMN, pa.string()))
        if BUCKET_COLUMN not in names:
            fields.append(pa.field(BUCKET_COLUMN, pa.int32()))
    return pa.schema(fields)


def _arrow_type(t) -> pa.DataType:
    from pyspark.sql import types as T

    simple = {
        T.ByteType: pa.int8(),
        T.ShortType: pa.int16(),
        T.IntegerType: pa.int32(),
        T.LongType: pa.int64(),
        T.FloatType: pa.float32(),
        T.DoubleType: pa.float64(),
        T.BooleanType: pa.bool_(),
        T.DateType: pa.date32(),
        T.TimestampNTZType: pa.timestamp("us"),
        T.TimestampType: pa.timestamp("us", tz="UTC"),
        T.BinaryType: pa.binary(),
        T.StringType: pa.string(),
        T.VarcharType: pa.string(),
        T.CharType: pa.string(),
    }
    for cls, at in simple.items():
        if isinstance(t, cls):
            return at
    if isinstance(t, T.DecimalType):
        return pa.decimal128(t.precision, t.scale)
    if isinstance(t, T.ArrayType):
        return pa.list_(_arrow_type(t.elementType))
    if isinstance(t, T.MapType):
        return pa.map_(_arrow_type(t.keyType), _arrow_type(t.valueType))
    if isinstance(t, T.StructType):
        return pa.struct([pa.field(f.name, _arrow_type(f.dataType), nullable=f.nullable) for f in t.fields])
    raise NotImplementedError(f"no Delta type for Spark type {t.simpleString()}")


def _value_of(dir_name: str, column: str) -> str:
    prefix = column + "="
    if not dir_name.startswith(prefix):
        raise ExecutionError(f"unexpected folder {dir_name!r} in Spark's output (expected {prefix}...)")
    return dir_name[len(prefix) :]


_SPARK_ESCAPED = set(chr(c) for c in range(1, 0x20)) | set("\"#%'*/:=?\\\x7f{[]^")


def _escape_path_name(text: str) -> str:
    """Spark/Hive escaping of a partition value in a folder name (ExternalCatalogUtils.escapePathName)."""
    return "".join(f"%{ord(c):02X}" if c in _SPARK_ESCAPED else c for c in text)


def _unescape(text: str) -> str:
    """Undo Spark/Hive partition-path escaping (%XX)."""
    return unquote(text) if "%" in text else text
