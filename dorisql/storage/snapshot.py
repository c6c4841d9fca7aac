"""What a table holds at one Delta version, and what a commit did to it (value objects).

`snapshot_of` and `live_paths` read a ``deltalake.DeltaTable`` already opened at the version
wanted (dorisql.storage.log opens it); nothing here opens a table or collects data to the driver.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from dorisql.storage import fs
from dorisql.storage.layout import BUCKET_COLUMN, PARTITION_COLUMN

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    pass

__all__ = [
    "FileEntry",
    "PartitionStats",
    "Snapshot",
    "WriteResult",
    "CommitResult",
    "snapshot_of",
    "live_paths",
    "tablet_rows_of",
]


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

    @classmethod
    def nothing(cls, version: int) -> WriteResult:
        """Nothing committed: the table stays at ``version``."""
        return cls(version, version, False, (), 0, 0, {})

    @classmethod
    def of(
        cls, version: int, read_version: int, entries: Iterable[FileEntry], removed: Iterable[FileEntry] = ()
    ) -> WriteResult:
        """A commit that added ``entries`` (and removed ``removed``) as ``version``."""
        entries = tuple(entries)
        tablet_rows = tablet_rows_of(entries)
        return cls(
            version,
            read_version,
            True,
            entries,
            sum(tablet_rows.values()),
            sum(e.size for e in entries),
            tablet_rows,
            tuple(removed),
        )


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


def tablet_rows_of(entries: Iterable[FileEntry]) -> dict[tuple[str, int], int]:
    """Rows per (partition, bucket) of these files."""
    out: dict[tuple[str, int], int] = {}
    for e in entries:
        key = (e.partition, e.bucket)
        out[key] = out.get(key, 0) + (e.num_records or 0)
    return out


def snapshot_of(
    dt: Any,
    table_path: str,
    partitions: Iterable[str] | None = None,
    buckets: Iterable[int] | None = None,
) -> Snapshot:
    """The files of ``dt`` (a ``deltalake.DeltaTable`` of the folder ``table_path``, at the
    version it was loaded as), optionally only some partitions and/or buckets."""
    import pyarrow as pa
    import pyarrow.compute as pc

    actions = pa.table(dt.get_add_actions(flatten=True))
    pcol, bcol = f"partition.{PARTITION_COLUMN}", f"partition.{BUCKET_COLUMN}"
    if partitions is not None:
        actions = actions.filter(pc.is_in(actions[pcol], pa.array(list(partitions), pa.string())))
    if buckets is not None:
        actions = actions.filter(
            pc.is_in(pc.cast(actions[bcol], pa.int64()), pa.array([int(b) for b in buckets], pa.int64()))
        )
    names = ("path", "size_bytes", "modification_time", "num_records", pcol, bcol)
    cols = {name: actions[name].to_pylist() for name in names}
    files = tuple(
        FileEntry(
            path=unquote(p),
            uri=fs.spark_uri(os.path.join(table_path, unquote(p))),
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
    return Snapshot(table_path, dt.version(), files, dict(dt.metadata().configuration))


def live_paths(dt: Any) -> set[str]:
    """Paths (relative to the table folder, as on disk) of the files in ``dt``'s snapshot."""
    import pyarrow as pa

    return {unquote(p) for p in pa.table(dt.get_add_actions(flatten=True)).column("path").to_pylist()}
