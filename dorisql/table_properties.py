"""Table PROPERTIES: how ALTER TABLE ... SET (...) merges into what a table already has.

Pure: the one merge rule that the engine's ALTER TABLE SET and the dynamic-partition property
checks both use, so the stored properties and the validated ones cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["merge", "unavailable_replica_tags"]

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


#: The backend tags this deployment has: one backend, tagged "default" (Doris's default tag).
BACKEND_TAGS = ("default",)


def unavailable_replica_tags(allocation: str, storage_medium: str | None = None) -> str | None:
    """Doris's refusal of a replication allocation naming a tag no backend has
    (SystemInfoService.selectBackendIdsForReplicaCreation), else None.

    ``allocation`` is "tag.location.<tag>: <n>[, ...]"; malformed text is left to the
    allocation's own check.
    """
    failed = []
    for part in allocation.split(","):
        tag, _, num = part.partition(":")
        tag = tag.strip()
        if not tag.startswith("tag.location."):
            continue
        name = tag[len("tag.location.") :]
        if name not in BACKEND_TAGS:
            failed.append(
                f'replication tag: {{"location" : "{name}"}}, replication num: {num.strip()}, '
                f"storage medium: {(storage_medium or 'HDD').upper()}"
            )
    if not failed:
        return None
    return (
        "Failed to find enough backend, please check the replication num,replication tag and storage medium "
        "and avail capacity of backends or maybe all be on same host.\n"
        "Create failed replications:\n" + "\n".join(failed)
    )
