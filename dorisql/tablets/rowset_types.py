"""Rowsets and tablets as the compaction policy sees them (pure values, no Spark).

A tablet is one (``__partition``, ``__bucket``) folder of a Delta table. A rowset is the set of
files one commit added to one tablet; its version is that commit's Delta version, and a file a
compaction wrote covers the version range ``[start_version, end_version]`` of its inputs. A DELETE
is a rowset with no files and a delete predicate (a "delete version").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rowset:
    start_version: int
    end_version: int
    #: Bytes of data in the rowset's files.
    size: int
    #: Number of files (Doris's segments); the rowset's compaction score.
    num_segments: int
    #: When the rowset was created (seconds since the epoch; the newest file's modification time).
    created_at: float
    #: True while the segments may overlap in key order: a load's files that no compaction merged.
    #: A compaction's output is one sorted run (False).
    overlapping: bool
    #: The DELETE condition, as Doris SQL, when this rowset is a delete version; None otherwise.
    delete_predicate: str | None = None

    @property
    def is_delete(self) -> bool:
        return self.delete_predicate is not None

    @property
    def score(self) -> int:
        return self.num_segments

    @property
    def merged(self) -> bool:
        """Took part in a version merge (its version range is wider than one version)."""
        return self.start_version != self.end_version


@dataclass(frozen=True)
class TabletState:
    """What the policy needs to know about one tablet, besides its rowsets."""

    rowsets: tuple[Rowset, ...]
    #: -1 until first calculated (Doris's K_INVALID_CUMULATIVE_POINT).
    cumulative_point: int = -1
    #: Seconds since the epoch of the last successful base compaction (0: never).
    last_base_compaction_success: float = 0.0
    #: Seconds since the epoch of the last successful cumulative compaction (0: never).
    last_cumulative_compaction_success: float = 0.0
    #: Seconds since the epoch of the last failed compaction of each kind (0: never).
    last_cumulative_failure: float = 0.0
    last_base_failure: float = 0.0
    #: How to read a gap between two rowsets' versions. False (Delta): versions are the table's
    #: commit versions, so a gap is commits that did not touch this tablet and rowsets are
    #: consecutive when no other rowset of the tablet lies between them. True (Doris): versions
    #: are the tablet's own and dense, so a gap is a missing version (the policy stops there).
    dense_versions: bool = False
