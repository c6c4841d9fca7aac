"""One dorisql table on disk: Spark writes the Parquet files, ``deltalake`` commits the Delta log.

A small load's rows come already collected, as an Arrow table (``dml``: the source is small by
Spark's estimate): pyarrow writes them, without a Spark job (see :meth:`DeltaStore._stage`).

The table folder's layout is dorisql.storage.layout's. `DeltaStore` is the table's one entry
point; it is a `DeltaLog` (dorisql.storage.log: open, snapshot, commit) and does the writes
itself (write, rewrite, overwrite: staging in dorisql.storage.staging, then one commit). The
rest it hands to a module each: schema changes (storage.columns), partition-level commits of
existing files (storage.partition_files), garbage (storage.vacuum).

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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dorisql.errors import CommitConflictError
from dorisql.storage import columns, fs, partition_files, staging, vacuum
from dorisql.storage.layout import version_suffix
from dorisql.storage.locks import table_lock
from dorisql.storage.log import DeltaLog
from dorisql.storage.sizing import DEFAULT_TARGET_FILE_SIZE
from dorisql.storage.snapshot import CommitResult, FileEntry, WriteResult, tablet_rows_of
from dorisql.storage.spark_io import read_files
from dorisql.storage.staging import Staged

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

__all__ = ["DeltaStore", "PartitionGuard", "Supersede", "prepared_add", "prepared_remove"]

#: The commitInfo key naming the explicit transaction a commit belongs to (commit_prepared).
_MARKER_KEY = "dorisql.transaction"

#: Callback run under the commit lock just before a write commits, with the partition names the
#: write touches. Raise (or return False) to abort: nothing is committed and the files are deleted.
PartitionGuard = Callable[[frozenset], bool | None]

#: Merge-on-write (dorisql.tablets.merge_on_write): called as ``supersede(dt, staged, files)``
#: under the commit lock, after the new files are stamped with the version their commit becomes,
#: with ``files`` the latest snapshot's files the load may supersede rows of. It may replace
#: staged files and add rewritten copies to ``staged`` (so a failure deletes them), and returns
#: the snapshot files the same commit removes.
Supersede = Callable[[Any, Staged, Sequence[FileEntry]], Sequence[FileEntry]]

#: Called as ``before_commit(store, staged, overwrite)`` when a statement's written files are
#: about to be committed, before the table's commit lock is taken: the point at which another
#: statement can still commit first. None in dorisql itself; tests set it to pause a statement
#: there or to interleave another one (tests/engine/test_commit_order.py, test_overwrite.py).
before_commit: Callable[[DeltaStore, Staged, bool], None] | None = None


class DeltaStore(DeltaLog):
    """The Delta table in one folder ``<warehouse>/<db>/<table>``.

    Cheap to construct (opens nothing); every method reads the latest log state it needs.
    With ``min_version`` (the last version the caller knows was committed), every read and
    commit of the latest state raises LogBehindError when the log is older: a later commit would
    otherwise reuse the lost version number and hide the loss for good.
    """

    # ----------------------------------------------------------------- schema

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
        return columns.change_schema(self, arrow_schema, statement=statement, metadata=metadata)

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
        return columns.rename_columns(self, arrow_schema, renames, statement=statement, metadata=metadata)

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
        supersede: Supersede | None = None,
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
        ``supersede`` (a merge-on-write table): the same commit removes the rows the load
        supersedes (see `Supersede`).
        """
        staged = self._stage(rows, target_file_size, partition=partition)
        return self._append(staged, False, operation, statement, metadata, expected_partitions, supersede)

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
        ``.v<start>-<end>.parquet``: dorisql.storage.layout.range_suffix).
        """
        removed = list(removed)
        if not removed:
            raise ValueError("rewrite needs at least one file to remove")
        staged = self._stage(df, target_file_size, keep_layout=True) if df is not None else None
        try:
            if staged is not None and file_suffix is not None:
                staging.rename_staged(staged, self.path, file_suffix)
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
        supersede: Supersede | None = None,
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
        :meth:`_stage`. ``supersede``: as for :meth:`write`, over the files that stay.
        """
        staged = self._stage(rows, target_file_size, partition=partition)
        try:
            return self._commit_overwrite(
                staged, replaced, operation, statement, metadata, expected_partitions, supersede
            )
        except BaseException:
            staged.discard()
            raise

    def _commit_overwrite(
        self, staged: Staged, replaced, operation, statement, metadata, guard, supersede=None
    ) -> WriteResult:
        if before_commit is not None:
            before_commit(self, staged, True)
        touched = frozenset(p for p, _ in tablet_rows_of(staged.entries))
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            current = dt.version()
            if guard is not None and guard(touched) is False:
                raise CommitConflictError("the target partitions changed; nothing was committed")
            targets = set(replaced(touched))
            files = self._snapshot_of(dt).files
            victims = [f for f in files if f.partition in targets]
            if not staged.adds and not victims:
                return WriteResult.nothing(current)
            self._stamp_commit_version(staged, current + 1)
            if supersede is not None:
                kept = [f for f in files if f.partition not in targets]
                victims += supersede(dt, staged, kept)
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
        return WriteResult.of(version, current, staged.entries, victims)

    # ----------------------------------------------------------------- partitions' files

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
        return partition_files.remove_where(
            self,
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
        return partition_files.remove_where(
            self,
            lambda f: names is None or f.partition in names,
            "dorisql TRUNCATE",
            statement,
            metadata,
            expected_read_version,
            extra={"partitions": names},
        )

    def rename_partition(
        self, old: str, new: str, *, statement: str | None = None, metadata: Mapping[str, Any] | None = None
    ) -> WriteResult:
        """Give partition ``old``'s files the partition value ``new`` (ALTER TABLE RENAME PARTITION).

        One commit, under the commit lock: ``remove`` of every file of ``old`` and ``add`` of the
        same data under ``__partition=<new>/`` (hard links, or copies where links are impossible,
        so older versions stay readable; stats re-read from the footers). Refused with
        CommitConflictError when ``new`` already has files. No files: nothing is committed.
        """
        return partition_files.rename_partition(self, old, new, statement=statement, metadata=metadata)

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
        return partition_files.restore_files(self, files, operation=operation, statement=statement, metadata=metadata)

    # ----------------------------------------------------------------- housekeeping

    def vacuum(
        self, retention_hours: float = 168, *, staging_older_than_hours: float = 24, dry_run: bool = False
    ) -> list[str]:
        """Delete files no longer referenced (older than the retention) and stale staging folders."""
        return vacuum.vacuum(self, retention_hours, staging_older_than_hours=staging_older_than_hours, dry_run=dry_run)

    def drop_table(self) -> None:
        """Delete the table folder and everything in it (the engine decides when)."""
        fs.remove_tree(self.path)

    def removed_files(self, older_than_hours: int) -> list[str]:
        """Files that a commit removed from the table (``remove`` actions: drops, truncates,
        rewrites) at least ``older_than_hours`` ago by the commit's deletion timestamp, and that
        the latest snapshot does not hold again. Paths relative to the table folder, as on disk.
        Lists only (``DeltaTable.vacuum`` dry run); nothing is deleted."""
        return vacuum.removed_files(self, older_than_hours)

    def unreferenced_files(self, older_than_hours: int) -> list[str]:
        """Every data file the latest snapshot does not reference and that is old enough: the
        removed files of :meth:`removed_files`, plus files no commit ever added (a load that
        died before its commit) modified at least ``older_than_hours`` ago. Folders starting with
        ``_`` (the log, staging, locks) are not looked at. Lists only (vacuum dry run, full)."""
        return vacuum.unreferenced_files(self, older_than_hours)

    def delete_files(self, paths: Iterable[str]) -> tuple[int, int]:
        """Delete data files (paths relative to the table folder) and the tablet folders they
        leave empty. Returns (files deleted, bytes freed); files already gone are skipped. The
        caller decides what is garbage (under the commit lock, so that no commit adds a file
        back meanwhile)."""
        return vacuum.delete_files(self.path, paths)

    # ----------------------------------------------------------------- explicit transactions

    def stage(self, rows, *, target_file_size: int = DEFAULT_TARGET_FILE_SIZE, partition: str | None = None) -> Staged:
        """Write rows as :meth:`write` does, into their tablet folders, without committing them
        (an INSERT inside BEGIN ... COMMIT). The caller commits them with
        :meth:`commit_prepared` or deletes them (``Staged.discard``); a crash leaves unreferenced
        files for the trash pass."""
        return self._stage(rows, target_file_size, partition=partition)

    def stamp(self, staged: Staged, version: int) -> None:
        """Under the commit lock: name staged files with the version their commit becomes."""
        self._stamp_commit_version(staged, version)

    def superseded(self, staged: Staged, supersede: Supersede) -> list[FileEntry]:
        """Under the commit lock (the caller's): a merge-on-write table's `supersede` step over the
        latest snapshot for files already stamped (an explicit transaction's, at COMMIT): the
        files the commit must remove; rewritten copies are added to ``staged``."""
        dt = self._table()
        return list(supersede(dt, staged, self._snapshot_of(dt).files))

    def commit_prepared(
        self,
        marker: str,
        since: int,
        adds: Sequence[Mapping[str, Any]],
        statement: str | None,
        removes: Sequence[Mapping[str, Any]] = (),
    ) -> int:
        """Commit ``adds`` (``add`` actions as plain dicts: ``prepared_add``), and ``removes``
        (``prepared_remove``: a merge-on-write table's superseded files), in one commit marked
        ``marker``, unless a commit after version ``since`` already carries that marker (a retry
        after a crash: the commit is not made twice). Returns the version holding them."""
        from deltalake.transaction import AddAction

        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            done = _marked_commit(dt, since, marker)
            if done is not None:
                return done
            return self._commit_actions(
                dt,
                [AddAction(**a) for a in adds],
                [FileEntry(uri="", num_records=None, **r) for r in removes],
                data_change=True,
                read_version=dt.version(),
                operation="dorisql COMMIT",
                statement=statement,
                metadata={_MARKER_KEY: marker},
            )

    def commit_prepared_properties(self, marker: str, since: int, version: int, properties: Mapping[str, str]) -> int:
        """Commit ``properties`` (a DELETE's delete version inside a transaction) in one commit
        marked ``marker`` that must become ``version`` (the properties name it), unless a commit
        after ``since`` already carries the marker (a retry). Returns the version holding them."""
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            done = _marked_commit(dt, since, marker)
            if done is not None:
                return done
            if dt.version() + 1 != version:  # another writer got in: the properties would lie
                raise CommitConflictError(
                    f"table {self.path}: expected to commit version {version}, the log is at {dt.version()}"
                )
            return self.commit_properties(lambda v: properties, {_MARKER_KEY: marker})

    # ----------------------------------------------------------------- staging

    def new_staging_dir(self) -> str:
        """A fresh, not yet existing folder ``_staging/<txn>/`` for :meth:`commit_staged`."""
        return staging.new_staging_dir(self.path)

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
        staged = Staged.of_folder(staging_dir)
        return self._append(staged, True, operation, statement, metadata, expected_partitions)

    def _append(
        self, staged: Staged, collect: bool, operation, statement, metadata, guard, supersede=None
    ) -> WriteResult:
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
                supersede=supersede,
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
    ) -> Staged:
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
          tablet by tablet (dorisql.storage.staging): no Spark job, no shuffle, and each tablet's
          rows are in one place, so the promise above stands.

        ``partition``: every row is in this partition (the caller routed them to it alone, a
        statement naming one partition): the rows are written into its folder split by bucket
        only, and a shuffle, if any, is by bucket only; ``rows`` may then lack ``__partition``.

        ``keep_layout``: the caller laid the rows out itself (a compaction's sorted runs, one
        per output file): no shuffle, which would undo the sort order."""
        staging.check_layout_columns(rows, partition)
        staged = Staged.new(self.path)
        try:
            staging.write_rows(
                staged, rows, target_file_size, self._row_bytes, keep_layout=keep_layout, partition=partition
            )
            self._collect(staged)
            return staged
        except BaseException:
            staged.discard()
            raise

    def _row_bytes(self) -> float:
        """The stored size of one row, for sizing files (`sizing.row_bytes`)."""
        return staging.row_bytes(self._table())

    def _collect(self, staged: Staged) -> None:
        """Move the staged files into their tablet folders and read their footers (in parallel)."""
        staging.collect(staged, self.path)

    # ----------------------------------------------------------------- commit

    def _commit(
        self,
        staged: Staged | None,
        removes,
        read_version,
        data_change,
        operation,
        statement,
        metadata,
        guard,
        supersede: Supersede | None = None,
    ) -> WriteResult:
        if before_commit is not None and staged is not None and staged.entries:
            before_commit(self, staged, False)
        adds = staged.adds if staged else []
        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            current = dt.version()
            removed_entries: list[FileEntry] = []
            if removes:
                removed_entries = self._check_removals(dt, read_version, removes)
            if not adds and not removed_entries:
                return WriteResult.nothing(current)
            if guard is not None:
                touched = frozenset(p for p, _ in tablet_rows_of(staged.entries if staged else ()))
                if guard(touched) is False:
                    raise CommitConflictError("the target partitions changed; nothing was committed")
            if staged is not None and not removes:
                self._stamp_commit_version(staged, current + 1)
            if supersede is not None and staged is not None:
                removed_entries = list(supersede(dt, staged, self._snapshot_of(dt).files))
                adds = staged.adds
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
        return WriteResult.of(
            version,
            current if read_version is None else read_version,
            staged.entries if staged else (),
            removed_entries,
        )

    def _stamp_commit_version(self, staged: Staged, version: int) -> None:
        """Under the commit lock: put the version this commit becomes into its files' names.

        Merge-on-read (UNIQUE latest row, AGGREGATE REPLACE) orders rows by it, so of two loads
        the one that committed later wins, whichever started first (Doris's version order). A
        crash halfway leaves uncommitted files only. Rewrites (compaction) keep their inputs'
        order instead: their output is not newer data."""
        staging.rename_staged(staged, self.path, version_suffix(version))


def prepared_add(action) -> dict[str, Any]:
    """An ``add`` action as a plain dict (JSON), for :meth:`DeltaStore.commit_prepared`."""
    return {
        "path": action.path,
        "size": action.size,
        "partition_values": dict(action.partition_values),
        "modification_time": action.modification_time,
        "data_change": True,
        "stats": action.stats,
    }


def prepared_remove(entry: FileEntry) -> dict[str, Any]:
    """A file to remove as a plain dict (JSON), for :meth:`DeltaStore.commit_prepared`."""
    return {"path": entry.path, "partition": entry.partition, "bucket": entry.bucket, "size": entry.size}


def _marked_commit(dt, since: int, marker: str) -> int | None:
    """The version of the commit after version `since` that carries `marker` (a transaction's
    commit already made: a retry must not make it twice); None when there is none."""
    if dt.version() > since:
        for info in dt.history(limit=dt.version() - since):
            if info.get(_MARKER_KEY) == marker:
                return int(info["version"])
    return None
