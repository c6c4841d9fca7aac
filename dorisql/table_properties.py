"""Table PROPERTIES: how ALTER TABLE ... SET (...) merges into what a table already has.

Pure: the one merge rule that the engine's ALTER TABLE SET and the dynamic-partition property
checks both use, so the stored properties and the validated ones cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["merge"]

#: A replica count set by ALTER replaces an allocation set earlier (Doris keeps only one of the
#: two: ``replication_num`` is shorthand for ``tag.location.default: n``).
_REPLACES = {
    "replication_num": "replication_allocation",
    "dynamic_partition.replication_num": "dynamic_partition.replication_allocation",
    "replication_allocation": "replication_num",
    "dynamic_partition.replication_allocation": "dynamic_partition.replication_num",
}


def merge(current: Mapping[str, str], changes: Mapping[str, str]) -> dict[str, str]:
    """The properties after ``ALTER TABLE t SET (changes)``: changed keys take their new values,
    in the order they were first set, and a key that supersedes another removes it."""
    merged = dict(current)
    for key in changes:
        superseded = _REPLACES.get(key)
        if superseded is not None and superseded not in changes:
            merged.pop(superseded, None)
    merged.update(changes)
    return merged
