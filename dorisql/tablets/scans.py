"""How often this process's queries read each tablet (Doris's scan_frequency), which the
compaction producer weighs: counted by `dorisql.tablets.read`, read by `dorisql.compaction.service`."""

from __future__ import annotations

import threading
from collections.abc import Iterable


class ScanCounter:
    """Scans of each tablet by this process's queries (Doris: query_scan_count per tablet).

    ``frequency`` is Doris's scan_frequency: scans per minute since the last time node; a node is
    set once ``interval`` seconds have passed (tablet_scan_frequency_time_node_interval_second)."""

    def __init__(self, interval: float = 300.0):
        self._lock = threading.Lock()
        self.interval = interval
        self._count: dict[tuple[str, str, int], int] = {}
        self._node: dict[tuple[str, str, int], tuple[int, float]] = {}

    def record(self, path: str, tablets: Iterable[tuple[str, int]]) -> None:
        with self._lock:
            for partition, bucket in set(tablets):
                key = (path, partition, int(bucket))
                self._count[key] = self._count.get(key, 0) + 1

    def count(self, path: str, partition: str, bucket: int) -> int:
        with self._lock:
            return self._count.get((path, partition, int(bucket)), 0)

    def frequency(self, path: str, partition: str, bucket: int, now: float) -> int:
        key = (path, partition, int(bucket))
        with self._lock:
            count = self._count.get(key, 0)
            last_count, last_time = self._node.setdefault(key, (0, now))
            elapsed = now - last_time
            freq = int((count - last_count) * 60 / elapsed) if elapsed > 0 else 0
            if elapsed >= self.interval:
                self._node[key] = (count, now)
            return freq


SCANS = ScanCounter()
