"""A tablet's rowsets and versions on Delta, and their translation into the policy's view (pure).

Versions. A load's files are named ``<spark name>.v<N>.parquet``: N is the Delta version its
commit became (``storage.delta._stamp_commit_version``, under the commit lock). A compaction's
output files are named ``<spark name>.v<start>-<end>.parquet``: the Delta version range of the
rowsets it merged. The name is the record: it survives restarts, every process and outside
writer sees it, and the reads derive ``__commit_seq`` from it (the *end* of a range; the names
are parsed by dorisql.storage.layout), so the rows of a compacted file keep their place in
Doris's version order: every later rowset of the tablet has a higher version, every earlier one
a lower one.

A rowset of a tablet (one ``__partition``/``__bucket`` folder) is the set of its live files
sharing one name range. A DELETE is a delete version: a Delta commit d with no files, recorded as
a table property (dorisql.tablets.deletes); it is a rowset ``[d, d]`` of every tablet of the
partitions it applies to, until a base compaction of that tablet covered it (a file whose range
contains d) or it is retired.

Continuity. A tablet's versions are only the commits that touched it, so the Delta versions of
its rowsets have gaps: the loads of other tablets, commits that changed no data. On Delta every
committed version is visible at once, so a gap is never a missing version: two rowsets of a
tablet are consecutive when no other rowset of the tablet lies between them (the policy's
``TabletState`` with sparse versions: dorisql.compaction.policy). The base rowset is the
tablet's first rowset (Doris's starts at version 0, CREATE's commit; a Delta tablet's first
rowset starts at the first commit that wrote into it). The policy's versions are the Delta
versions themselves, so a cumulative point (in Delta versions) survives compactions and restarts
of the view unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from dorisql.storage.layout import output_range_stamp, version_range
from dorisql.tablets.rowset_types import Rowset, TabletState

__all__ = [
    "TabletRowset",
    "TabletView",
    "tablet_views",
    "needed_delete_versions",
    "merged_files",
    "merged_are_oldest",
]


def merged_files(files: Iterable[DataFile]) -> set[str]:
    """The files whose rows a read need not merge among themselves: per tablet, the files of its
    largest compaction output (one ``.v<start>-<end>`` range), whose rows hold one row per key.
    Its keys may still recur in the tablet's other rowsets (Doris's reader likewise merges only
    overlapping rowsets); a tablet's keys never occur in another tablet."""
    outputs: dict[tuple[str, int], dict[str, list]] = {}
    for f in files:
        stamp = output_range_stamp(f.path)
        if stamp is not None:
            outputs.setdefault((f.partition, f.bucket), {}).setdefault(stamp, []).append(f)
    chosen: set[str] = set()
    for by_range in outputs.values():
        largest = max(by_range.values(), key=lambda group: sum(f.size for f in group))
        chosen.update(f.path for f in largest)
    return chosen


def merged_are_oldest(files: Iterable[DataFile], merged: set[str]) -> bool:
    """Whether, in every tablet, the `merged` files (`merged_files`) end before each other file
    of the tablet starts: then no row of theirs is later than a row of the tablet's other
    rowsets, so under UNIQUE KEY (the latest row wins) they supersede none of them. A file
    without a version stamp reads as version 0 and is never later than a merged file."""
    ends: dict[tuple[str, int], int] = {}
    for f in files:
        if f.path in merged:
            span = version_range(f.path)
            key = (f.partition, f.bucket)
            ends[key] = max(ends.get(key, -1), span[1] if span else 0)
    for f in files:
        if f.path not in merged and (f.partition, f.bucket) in ends:
            span = version_range(f.path)
            if span is None or span[0] <= ends[(f.partition, f.bucket)]:
                return False
    return True


class DataFile(Protocol):
    """What the view needs of a file (storage.snapshot.FileEntry has it), read-only (as in a frozen
    dataclass)."""

    @property
    def path(self) -> str: ...
    @property
    def partition(self) -> str: ...
    @property
    def bucket(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def modification_time(self) -> int: ...  # ms since the epoch


class DeleteLike(Protocol):
    """What the view needs of a delete version (tablets.deletes.DeleteVersion has it)."""

    version: int
    partitions: Any  # frozenset[str] | None: None = every partition
    predicate: str


@dataclass(frozen=True)
class TabletRowset:
    """One rowset in Delta versions: its files, or the delete version it is."""

    start: int
    end: int
    files: tuple[Any, ...] = ()
    delete: Any = None  # a DeleteLike

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


@dataclass(frozen=True)
class TabletView:
    """One tablet: its rowsets, and the same as the policy's model (position for position)."""

    partition: str
    bucket: int
    rowsets: tuple[TabletRowset, ...]
    model: tuple[Rowset, ...] = field(init=False)

    def __post_init__(self) -> None:
        out = []
        for rs in self.rowsets:
            created = max((f.modification_time for f in rs.files), default=0) / 1000.0
            out.append(
                Rowset(
                    start_version=rs.start,
                    end_version=rs.end,
                    size=rs.size,
                    num_segments=len(rs.files),
                    created_at=created if rs.delete is None else _delete_time(rs.delete),
                    # Doris: overlapping only with more than one segment (a load's files are not
                    # sorted against each other; a compaction writes one sorted run).
                    overlapping=(rs.start == rs.end and len(rs.files) > 1),
                    delete_predicate=rs.delete.predicate if rs.delete is not None else None,
                )
            )
        object.__setattr__(self, "model", tuple(out))

    @property
    def files(self) -> tuple[Any, ...]:
        return tuple(f for rs in self.rowsets for f in rs.files)

    @property
    def data_size(self) -> int:
        return sum(rs.size for rs in self.rowsets)

    def state(
        self,
        cumulative_point: int = -1,
        last_base_compaction_success: float = 0.0,
        last_cumulative_failure: float = 0.0,
        last_base_failure: float = 0.0,
        last_cumulative_compaction_success: float = 0.0,
    ) -> TabletState:
        """The policy's input."""
        return TabletState(
            rowsets=self.model,
            cumulative_point=cumulative_point,
            last_base_compaction_success=last_base_compaction_success,
            last_cumulative_compaction_success=last_cumulative_compaction_success,
            last_cumulative_failure=last_cumulative_failure,
            last_base_failure=last_base_failure,
        )

    def rowsets_of(self, chosen: Iterable[Rowset]) -> tuple[TabletRowset, ...]:
        """The Delta rowsets behind rowsets of the view (as the policy picked them), in order."""
        by_range = {(rs.start, rs.end): rs for rs in self.rowsets}
        out = []
        for m in chosen:
            if (m.start_version, m.end_version) not in by_range:
                raise ValueError(f"rowset [{m.start_version}-{m.end_version}] is not in tablet {self.name}")
            out.append(by_range[(m.start_version, m.end_version)])
        return tuple(sorted(out, key=lambda rs: rs.start))

    @property
    def name(self) -> str:
        return f"{self.partition}/{self.bucket}"


def _group(files: Iterable[DataFile]) -> dict[tuple[str, int], dict[tuple[int, int], list[DataFile]]]:
    out: dict[tuple[str, int], dict[tuple[int, int], list[DataFile]]] = {}
    for f in files:
        rng = version_range(f.path) or (0, 0)
        out.setdefault((f.partition, int(f.bucket)), {}).setdefault(rng, []).append(f)
    return out


def tablet_views(
    files: Iterable[DataFile],
    deletes: Sequence[DeleteLike] = (),
    *,
    tablets: Iterable[tuple[str, int]] = (),
) -> dict[tuple[str, int], TabletView]:
    """Every tablet's view from a snapshot's files and the table's delete versions.

    `tablets` adds tablets that have no file (they still carry the delete versions of their
    partition). A delete version is left out of a tablet where a file's range covers it: that
    tablet's base compaction has applied it."""
    grouped = _group(files)
    for key in tablets:
        grouped.setdefault((key[0], int(key[1])), {})
    views = {}
    for (partition, bucket), ranges in sorted(grouped.items()):
        chain = [TabletRowset(s, e, tuple(sorted(fs, key=lambda f: f.path))) for (s, e), fs in ranges.items()]
        for d in deletes:
            if d.partitions is not None and partition not in d.partitions:
                continue
            if any(rs.start <= d.version <= rs.end for rs in chain if rs.files):
                continue
            chain.append(TabletRowset(d.version, d.version, (), delete=d))
        chain.sort(key=lambda rs: (rs.start, rs.end))
        views[(partition, bucket)] = TabletView(partition, bucket, tuple(chain))
    return views


def _delete_time(delete: Any) -> float:
    """When a delete version was made (its ``created`` text, 'yyyy-MM-dd HH:mm:ss' UTC); 0 unknown."""
    import datetime as dt

    try:
        return dt.datetime.strptime(delete.created, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.timezone.utc).timestamp()
    except (AttributeError, TypeError, ValueError):
        return 0.0


def needed_delete_versions(files: Iterable[DataFile], deletes: Sequence[DeleteLike]) -> set[int]:
    """The delete versions some live file still needs: a file of a partition it applies to whose
    rows are older than it (read as the end of the file's range). The others can be retired."""
    needed: set[int] = set()
    oldest: dict[str, int] = {}
    for f in files:
        end = (version_range(f.path) or (0, 0))[1]
        oldest[f.partition] = min(oldest.get(f.partition, end), end)
    for d in deletes:
        parts = oldest.keys() if d.partitions is None else [p for p in d.partitions if p in oldest]
        if any(oldest[p] < d.version for p in parts):
            needed.add(d.version)
    return needed
