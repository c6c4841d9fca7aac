"""Compaction on the Spark side: tablets of a table, policy state, the background job, manual runs.

- :func:`table_tablets` -- a table's tablets (rowsets and versions: dorisql.compaction.rowsets)
  from one snapshot of its Delta log, with the table's delete versions.
- :data:`STATES` -- per tablet, the policy's state in this process's memory, as Doris's BE keeps
  it: the cumulative point (-1 until first calculated; a restart recalculates it from the
  rowsets), the last successful base compaction and the last failure of each kind.
- :data:`SCANS` -- per tablet, how often queries of this process read it (Doris's
  scan_frequency: scans per minute over the last ``tablet_scan_frequency_time_node_interval_second``).
- :func:`compact` -- one compaction of chosen rowsets, state updated (the executor does the work).
- :func:`run_pass` -- the ``compaction`` background job: Doris's producer, rounds that pick the
  highest-scoring tablet (producer.tablet_score), cumulative rounds with a base round every
  ``cumulative_compaction_rounds_for_each_base_compaction_round``, permits
  (``total_permits_for_compaction_score``), a bounded worker pool (``compaction_task_num_per_disk``:
  the warehouse is one disk), the failure back-off (``min_compaction_failure_interval_sec``),
  the global switch ``disable_auto_compaction`` and the table property of the same name.
- :func:`admin_compact` -- ``ADMIN COMPACT TABLE t PARTITION p WHERE type = 'BASE'|'CUMULATIVE'``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import CommitConflictError, DorisqlError

from .executor import BASE, CUMULATIVE, MB, TASKS, CompactionTask, compact_tablet
from .rowsets import TabletRowset, TabletView, tablet_views

if TYPE_CHECKING:  # pragma: no cover
    from dorisql.engine.session import Engine
    from dorisql.storage.delta import DeltaStore, Snapshot

#: Table property (Doris's): no automatic compaction of this table (manual ADMIN COMPACT still runs).
DISABLE_PROPERTY = "disable_auto_compaction"


# ---------------------------------------------------------------------- in-memory state


@dataclass
class TabletPolicyState:
    cumulative_point: int = -1
    last_base_compaction_success: float = 0.0
    last_cumulative_failure: float = 0.0
    last_base_failure: float = 0.0


class _States:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[tuple[str, str, int], TabletPolicyState] = {}

    def get(self, path: str, partition: str, bucket: int) -> TabletPolicyState:
        with self._lock:
            return self._states.setdefault((path, partition, int(bucket)), TabletPolicyState())

    def forget(self, path: str) -> None:
        with self._lock:
            for key in [k for k in self._states if k[0] == path]:
                del self._states[key]


STATES = _States()


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


# ---------------------------------------------------------------------- a table's tablets


@dataclass
class TableTablets:
    meta: TableMeta
    store: DeltaStore
    snapshot: Snapshot
    deletes: tuple[Any, ...]
    #: (Delta partition value, bucket) -> view; only the partitions asked for.
    views: dict[tuple[str, int], TabletView] = field(default_factory=dict)

    def state(self, key: tuple[str, int]):
        s = STATES.get(self.store.path, *key)
        return self.views[key].state(
            s.cumulative_point, s.last_base_compaction_success, s.last_cumulative_failure, s.last_base_failure
        )


def _delete_versions(snapshot) -> tuple[Any, ...]:
    """The table's live delete versions (dorisql.compaction.deletes; none before DELETE exists)."""
    try:
        from . import deletes
    except ImportError:  # pragma: no cover - the DELETE branch not merged yet
        return ()
    return tuple(deletes.delete_versions(snapshot))


def table_tablets(engine: Engine, meta: TableMeta, partitions: Iterable[str] | None = None) -> TableTablets:
    """The tablets of `meta` (all, or those of the named partitions) from its latest snapshot."""
    from dorisql.engine.consistency import table_storage

    keys = meta.partition_keys(partitions)  # name -> Delta value, live partitions only
    with table_storage(engine.warehouse, meta) as store:
        snapshot = store.snapshot()
    deletes = _delete_versions(snapshot)
    wanted = set(keys.values())
    files = [f for f in snapshot.files if f.partition in wanted]
    tablets = [(meta.partition_key(p), b) for p in meta.partitions if meta.partition_key(p) in wanted for b in _buckets(p)]
    views = tablet_views(files, deletes, tablets=tablets)
    return TableTablets(meta, store, snapshot, deletes, views)


def _buckets(partition) -> range:
    return range(int(getattr(partition, "buckets", 0) or 0))


# ---------------------------------------------------------------------- one compaction


def output_file_size(engine: Engine) -> int:
    return int(engine.frontend("compaction_output_file_size_mbytes")) * MB


def compact(
    engine: Engine,
    tablets: TableTablets,
    key: tuple[str, int],
    inputs: Sequence[TabletRowset],
    kind: str,
    *,
    trigger: str = "MANUAL",
    new_point: int | None = None,
) -> CompactionTask:
    """Compact `inputs` of one tablet; on success the base success time (BASE) or the
    cumulative point (`new_point`, CUMULATIVE) is updated, on failure the failure time."""
    state = STATES.get(tablets.store.path, *key)
    try:
        task = compact_tablet(
            engine.spark,
            tablets.store,
            tablets.meta,
            key[0],
            key[1],
            inputs,
            kind,
            read_version=tablets.snapshot.version,
            deletes=tablets.deletes,
            output_file_size=output_file_size(engine),
            trigger=trigger,
        )
    except BaseException:
        if kind == BASE:
            state.last_base_failure = time.time()
        else:
            state.last_cumulative_failure = time.time()
        raise
    if kind == BASE:
        state.last_base_compaction_success = time.time()
    elif new_point is not None:
        state.cumulative_point = new_point
    return task


def full_compaction(engine: Engine, meta: TableMeta, partitions: Iterable[str] | None = None) -> list[CompactionTask]:
    """Every tablet with more than one rowset (or with a delete version) compacted into one base
    rowset: the deleted rows gone, one row per key. Not a Doris statement: for tests and the
    benchmark's "compact everything" baseline."""
    tablets = table_tablets(engine, meta, partitions)
    done = []
    for key, view in tablets.views.items():
        if not view.files or (len(view.rowsets) == 1 and view.rowsets[0].start != view.rowsets[0].end):
            continue
        done.append(compact(engine, tablets, key, view.rowsets, BASE))
        state = STATES.get(tablets.store.path, *key)
        state.cumulative_point = view.rowsets[-1].end + 1
    return done


# ---------------------------------------------------------------------- the policy's picks


def _config(engine: Engine):
    from .policy import CompactionConfig

    return CompactionConfig.from_settings(_settings(engine))


def _settings(engine: Engine) -> dict[str, str]:
    from dataclasses import fields

    from .policy import CompactionConfig

    return {f.name: engine.frontend(f.name) for f in fields(CompactionConfig)}


@dataclass(frozen=True)
class Pick:
    kind: str
    inputs: tuple[TabletRowset, ...]
    #: CUMULATIVE: the pick as the policy made it (to move the point after the compaction).
    policy_pick: Any = None
    reason: str = ""


def pick(tablets: TableTablets, key: tuple[str, int], kind: str, cfg, now: float) -> Pick:
    """The policy's choice of rowsets for one compaction of a tablet (empty: nothing to do)."""
    from . import policy

    view = tablets.views[key]
    state = tablets.state(key)
    if kind == CUMULATIVE:
        chosen = policy.pick_cumulative_input(state, cfg, now)
        STATES.get(tablets.store.path, *key).cumulative_point = chosen.cumulative_point
        return Pick(kind, view.rowsets_of(chosen.inputs), chosen)
    point = policy.calc_cumulative_point(state, cfg)
    STATES.get(tablets.store.path, *key).cumulative_point = point
    chosen_base = policy.pick_base_input(tablets.state(key), cfg, now)
    return Pick(kind, view.rowsets_of(chosen_base.inputs), None, chosen_base.reason)


def run_pick(engine: Engine, tablets: TableTablets, key: tuple[str, int], chosen: Pick, cfg, trigger: str):
    """Run one picked compaction and move the cumulative point as the policy says."""
    from . import policy
    from .model import Rowset

    if chosen.kind == BASE:
        return compact(engine, tablets, key, chosen.inputs, BASE, trigger=trigger)
    state = tablets.state(key)
    base_size = policy.base_rowset_size(state)
    task = compact(engine, tablets, key, chosen.inputs, CUMULATIVE, trigger=trigger)
    start, end = chosen.inputs[0].start, chosen.inputs[-1].end
    output = Rowset(start, end, task.output_bytes, task.output_files, time.time(), False)
    point = policy.cumulative_point_after(chosen.policy_pick, output, base_size, cfg)
    STATES.get(tablets.store.path, *key).cumulative_point = point
    return task


# ---------------------------------------------------------------------- ADMIN COMPACT TABLE


def admin_compact(engine: Engine, stmt: ast.AdminCompactTable):
    """Doris's AdminCompactTableStmt: one partition, type BASE or CUMULATIVE. Doris sends the
    task to every replica and returns at once; here the compactions run before the statement
    returns (every tablet of the partition, the policy choosing the rowsets as it would)."""
    from dorisql.errors import AnalysisError
    from dorisql.result import Result

    meta = engine.catalog.load_table(engine.resolve_db(stmt.table.db), stmt.table.name)
    partition = meta.partition(stmt.partition) if hasattr(meta, "partition") else None
    names = [p.name for p in meta.partitions if p.name.lower() == stmt.partition.lower()]
    if not names:
        raise AnalysisError(f"Partition {stmt.partition} does not exist")
    del partition
    cfg = _config(engine)
    tablets = table_tablets(engine, meta, names)
    now = time.time()
    for key in sorted(tablets.views):
        chosen = pick(tablets, key, stmt.kind, cfg, now)
        if not chosen.inputs:
            continue
        try:
            run_pick(engine, tablets, key, chosen, cfg, "MANUAL")
        except CommitConflictError:
            continue  # the tablet is being compacted or changed meanwhile: as Doris, not an error
    return Result.ok()


# ---------------------------------------------------------------------- the background job


class RoundState:
    """Per process: rounds produced so far (a base round every N cumulative rounds)."""

    def __init__(self) -> None:
        self.rounds = 0


ROUNDS = RoundState()


@dataclass
class PassReport:
    tables: int = 0
    tablets: int = 0
    tasks: list[CompactionTask] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return any(t.state == "FINISHED" and t.version is not None for t in self.tasks)

    def summary(self) -> str:
        done = [t for t in self.tasks if t.state == "FINISHED"]
        text = (
            f"compaction: {self.tables} tables, {self.tablets} tablets checked, {len(done)} compactions "
            f"({sum(t.input_files for t in done)} files into {sum(t.output_files for t in done)})"
        )
        if self.errors:
            text += f", {len(self.errors)} errors (" + "; ".join(f"{k}: {v}" for k, v in self.errors.items()) + ")"
        return text

    def details(self) -> list[str]:
        return [
            f"{t.table} {t.partition}/{t.bucket}: {t.kind} {','.join(t.inputs)} -> {t.output or '(empty)'}"
            for t in self.tasks
            if t.state == "FINISHED"
        ]


def auto_enabled(meta: TableMeta) -> bool:
    return ast.props(meta.definition.properties).get(DISABLE_PROPERTY, "false").strip().lower() != "true"


def run_pass(engine: Engine) -> PassReport:
    """One pass of the producer over every table whose automatic compaction is on: rounds of
    picking the highest-scoring tablet not picked yet in this pass (cumulative rounds, and a
    base round every N), each task run by a pool of ``compaction_task_num_per_disk`` threads once
    it has its permits. A tablet whose last compaction of the kind failed less than
    ``min_compaction_failure_interval_sec`` ago is skipped. The pass ends when a round finds
    nothing to do; it waits for its tasks."""
    from . import producer

    report = PassReport()
    cfg = _config(engine)
    if cfg.disable_auto_compaction or engine.catalog.read_only:
        return report
    tables: list[TableTablets] = []
    for meta in engine.catalog.list_table_metas():
        if not auto_enabled(meta):
            continue
        try:
            tables.append(table_tablets(engine, meta))
        except DorisqlError as exc:
            report.errors[f"{meta.db}.{meta.name}"] = str(exc)
    report.tables = len(tables)
    report.tablets = sum(len(t.views) for t in tables)
    workers = max(1, cfg.compaction_task_num_per_disk)
    permits = producer.Permits(cfg.total_permits_for_compaction_score)
    taken: set[tuple[str, str, int]] = set()
    lock = threading.Lock()

    def work(tablets: TableTablets, key, chosen: Pick, need: int) -> None:
        try:
            task = run_pick(engine, tablets, key, chosen, cfg, "AUTO")
            with lock:
                report.tasks.append(task)
        except CommitConflictError:
            pass  # busy or changed meanwhile: the next pass looks again
        except Exception as exc:
            name = f"{tablets.meta.db}.{tablets.meta.name} {key[0]}/{key[1]}"
            with lock:
                report.errors[name] = str(exc) if isinstance(exc, DorisqlError) else type(exc).__name__
        finally:
            permits.release(need)

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="compaction") as pool:
        while True:
            kind = BASE if _base_round(cfg) else CUMULATIVE
            now = time.time()
            best = _best_tablet(tables, taken, kind, cfg, now)
            if best is None and kind == BASE:
                kind = CUMULATIVE
                best = _best_tablet(tables, taken, kind, cfg, now)
            if best is None:
                break
            tablets, key, chosen = best
            taken.add((tablets.store.path, *key))
            need = sum(len(rs.files) for rs in chosen.inputs)
            permits.acquire(need)
            pool.submit(work, tablets, key, chosen, need)
    return report


def _base_round(cfg) -> bool:
    ROUNDS.rounds += 1
    every = cfg.cumulative_compaction_rounds_for_each_base_compaction_round
    return ROUNDS.rounds % (every + 1) == 0


def _best_tablet(tables: list[TableTablets], taken, kind: str, cfg, now: float):
    from . import policy, producer

    best = None
    best_score = 0.0
    for tablets in tables:
        path = tablets.store.path
        for key, view in tablets.views.items():
            if (path, *key) in taken or not view.files:
                continue
            s = STATES.get(path, *key)
            failed = s.last_base_failure if kind == BASE else s.last_cumulative_failure
            if failed and now - failed < cfg.min_compaction_failure_interval_sec:
                continue
            state = tablets.state(key)
            if state.cumulative_point == -1:
                s.cumulative_point = policy.calc_cumulative_point(state, cfg)
                state = tablets.state(key)
            score = policy.base_score(state, cfg) if kind == BASE else policy.cumulative_score(state, cfg)
            total = producer.tablet_score(SCANS.frequency(path, *key, now), score, cfg)
            if total <= best_score:
                continue
            chosen = pick(tablets, key, kind, cfg, now)
            if chosen.inputs:
                best, best_score = (tablets, key, chosen), total
    return best
