"""The Delta log of one table folder: open it, read its state, commit actions to it.

`DeltaLog` is what every change of a table goes through (dorisql.storage.delta's `DeltaStore`
is one, with the writes on top): it opens the log (refusing one older than a version it is known
to have reached), snapshots it, and makes one commit of ``add``/``remove`` actions that it finds
again in the log by a transaction id (deltalake retries a commit that lost a race at the next
version). Every commit holds the table's commit lock (dorisql.storage.locks) while it checks and
commits; a rewrite verifies under it that each file it removes is still in the table and that no
commit since its read version removed it (``deltalake`` itself does not: see docs/storage.md).

Never import this module in code that Spark ships to its Python workers (UDFs): ``deltalake``'s
Rust runtime panics in a forked process.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from dorisql.errors import CommitConflictError, ExecutionError
from dorisql.storage import fs
from dorisql.storage.layout import BUCKET_COLUMN, PARTITION_COLUMN
from dorisql.storage.locks import table_lock
from dorisql.storage.snapshot import FileEntry, PartitionStats, Snapshot, live_paths, snapshot_of

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

__all__ = ["DeltaLog", "LogBehindError", "DDL_PROPERTY", "commit_info", "add_action"]

#: Table property holding the Doris CREATE TABLE text (the table stays self-describing).
DDL_PROPERTY = "dorisql.ddl"
_TXN_KEY = "dorisql.txn"

_Log = TypeVar("_Log", bound="DeltaLog")


class LogBehindError(ExecutionError):
    """The latest Delta version is older than a version the table is known to have reached
    (``DeltaStore(min_version=...)``): commit files were lost from ``_delta_log``."""

    def __init__(self, path: str, version: int, expected: int):
        super().__init__(
            f"the Delta log of {path} is at version {version}, older than version {expected} "
            f"which it is known to have reached: commits are missing from _delta_log"
        )
        self.path, self.version, self.expected = path, version, expected


class DeltaLog:
    """The Delta log of the table in one folder ``<warehouse>/<db>/<table>``.

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
        return f"{type(self).__name__}({self.path!r})"

    # ----------------------------------------------------------------- create / inspect

    @classmethod
    def create(
        cls: type[_Log],
        path: str | os.PathLike,
        arrow_schema: pa.Schema,
        *,
        partition_by: Sequence[str] = (PARTITION_COLUMN, BUCKET_COLUMN),
        properties: Mapping[str, str] | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> _Log:
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

    def commit_properties(
        self, make: Callable[[int], Mapping[str, str]], metadata: Mapping[str, Any] | None = None
    ) -> int:
        """One commit setting the properties ``make(v)``, v being the version this commit becomes
        (a DELETE records itself under its own version). Returns v. `metadata` goes into its
        commitInfo (a Stream Load's label, as for its loads)."""
        from deltalake.transaction import CommitProperties

        with table_lock(self.path, self.lock_timeout):
            dt = self._table()
            version = dt.version() + 1
            extra = None
            if metadata:
                info = commit_info("dorisql DELETE", uuid.uuid4().hex, None, metadata)
                extra = CommitProperties(custom_metadata=info)
            dt.alter.set_table_properties(dict(make(version)), raise_if_not_exists=False, commit_properties=extra)
            committed = self._table().version()
        if committed != version:  # only a writer ignoring the commit lock can do this
            raise CommitConflictError(
                f"table {self.path}: expected to commit version {version}, the log is at {committed}"
            )
        return version

    def arrow_schema(self) -> pa.Schema:
        import pyarrow as pa

        return pa.schema(self._table().schema())

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
        return snapshot_of(dt, self.path, partitions, buckets)

    def _uri(self, rel_path: str) -> str:
        return fs.spark_uri(os.path.join(self.path, rel_path))

    def partition_stats(self, version: int | None = None) -> dict[str, PartitionStats]:
        """Per partition: data size, rows, files, buckets with data, last modification."""
        return self.snapshot(version).partition_stats()

    # ----------------------------------------------------------------- commit

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
        """One commit of ``adds`` (``AddAction``s) and a ``remove`` of each of ``removed_entries``
        to ``dt`` (the latest state, read under the commit lock); returns its version."""
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
        info = commit_info(operation, txn, statement, metadata)
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
        present = paths & live_paths(dt)
        removed: set[str] = set()
        for v in range(read_version + 1, current + 1):
            dt.load_as_version(v)
            now = paths & live_paths(dt)
            removed |= present - now
            present = now
        return removed


def commit_info(operation: str, txn: str, statement: str | None, metadata: Mapping[str, Any] | None) -> dict:
    """A commit's commitInfo custom metadata: the operation, the transaction id that finds the
    commit again, the statement, and the caller's entries (under ``dorisql.``, but for Delta's
    own ``userMetadata``)."""
    info: dict[str, Any] = {"dorisql.operation": operation, _TXN_KEY: txn}
    if statement is not None:
        info["dorisql.statement"] = statement
    for k, v in (metadata or {}).items():
        info[k if k.startswith("dorisql.") or k == "userMetadata" else f"dorisql.{k}"] = v
    return info


def add_action(entry: FileEntry, stats: str, *, data_change: bool = True):
    """The ``add`` action of a file placed in its tablet folder (``stats``: its footer's, JSON)."""
    from deltalake.transaction import AddAction

    return AddAction(
        path=entry.path,
        size=entry.size,
        partition_values={PARTITION_COLUMN: entry.partition, BUCKET_COLUMN: str(entry.bucket)},
        modification_time=entry.modification_time,
        data_change=data_change,
        stats=stats,
    )
