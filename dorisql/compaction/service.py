"""Compaction on the Spark side: tablets of a table, policy state, the background job, manual runs.

- :func:`table_tablets` -- a table's tablets (rowsets and versions: dorisql.tablets.rowsets)
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
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.compaction import policy, producer
from dorisql.compaction.executor import BASE, CUMULATIVE, MB, CompactionTask, _message, compact_tablet
from dorisql.compaction.policy import CompactionConfig
from dorisql.errors import CommitConflictError, DorisqlError
from dorisql.session.session import Session
from dorisql.storage.delta import DeltaStore
from dorisql.storage.snapshot import Snapshot
from dorisql.tablets.consistency import table_storage
from dorisql.tablets.deletes import delete_versions
from dorisql.tablets.rowset_types import Rowset
from dorisql.tablets.rowsets import TabletRowset, TabletView, tablet_views
from dorisql.tablets.scans import SCANS
from dorisql.tablets.transactions import settle

#: Table property (Doris's): no automatic compaction of this table (manual ADMIN COMPACT still runs).

DISABLE_PROPERTY = "disable_auto_compaction"


# ---------------------------------------------------------------------- in-memory state


@dataclass
class TabletPolicyState:
    cumulative_point: int = -1
    last_base_compaction_success: float = 0.0
    last_cumulative_compaction_success: float = 0.0
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
            s.cumulative_point,
            s.last_base_compaction_success,
            s.last_cumulative_failure,
            s.last_base_failure,
            s.last_cumulative_compaction_success,
        )


def _delete_versions(snapshot) -> tuple[Any, ...]:
    """The table's live delete versions (dorisql.tablets.deletes)."""

    return delete_versions(snapshot)


def table_tablets(session: Session, meta: TableMeta, partitions: Iterable[str] | None = None) -> TableTablets:
    """The tablets of `meta` (all, or those of the named partitions) from its latest snapshot."""

    keys = meta.partition_keys(partitions)  # name -> Delta value, live partitions only
    settle(session.catalog, session.warehouse, [meta])  # a committed transaction's files are the table's
    with table_storage(session.warehouse, meta) as store:
        snapshot = store.snapshot()
    deletes = _delete_versions(snapshot)
    wanted = set(keys.values())
    files = [f for f in snapshot.files if f.partition in wanted]
    tablets = [
        (meta.partition_key(p), b) for p in meta.partitions if meta.partition_key(p) in wanted for b in range(p.buckets)
    ]
    views = tablet_views(files, deletes, tablets=tablets)
    return TableTablets(meta, store, snapshot, deletes, views)


# ---------------------------------------------------------------------- one compaction


def output_file_size(session: Session) -> int:
    return int(session.frontend("compaction_output_file_size_mbytes")) * MB


def compact(
    session: Session,
    tablets: TableTablets,
    key: tuple[str, int],
    inputs: Sequence[TabletRowset],
    kind: str,
    *,
    trigger: str = "MANUAL",
    new_point: int | None = None,
    clock: Callable[[], float] = time.time,
) -> CompactionTask:
    """Compact `inputs` of one tablet; on success the success time of its kind (and, for
    CUMULATIVE, the cumulative point `new_point`) is updated, on failure the failure time.
    `clock` tells the time (seconds since the epoch)."""
    state = STATES.get(tablets.store.path, *key)
    try:
        task = compact_tablet(
            session.spark,
            tablets.store,
            tablets.meta,
            key[0],
            key[1],
            inputs,
            kind,
            read_version=tablets.snapshot.version,
            deletes=tablets.deletes,
            output_file_size=output_file_size(session),
            trigger=trigger,
        )
    except BaseException:
        if kind == BASE:
            state.last_base_failure = clock()
        else:
            state.last_cumulative_failure = clock()
        raise
    if kind == BASE:
        state.last_base_compaction_success = clock()
    else:
        state.last_cumulative_compaction_success = clock()
        if new_point is not None:
            state.cumulative_point = new_point
    return task


def full_compaction(session: Session, meta: TableMeta, partitions: Iterable[str] | None = None) -> list[CompactionTask]:
    """Every tablet with more than one rowset (or with a delete version) compacted into one base
    rowset: the deleted rows gone, one row per key. Not a Doris statement: for tests and the
    benchmark's "compact everything" baseline."""
    tablets = table_tablets(session, meta, partitions)
    done = []
    for key, view in tablets.views.items():
        if not view.files or (len(view.rowsets) == 1 and view.rowsets[0].start != view.rowsets[0].end):
            continue
        done.append(compact(session, tablets, key, view.rowsets, BASE))
        state = STATES.get(tablets.store.path, *key)
        state.cumulative_point = view.rowsets[-1].end + 1
    return done


# ---------------------------------------------------------------------- the policy's picks


def _config(session: Session):
    return CompactionConfig.from_settings(_settings(session))


def _settings(session: Session) -> dict[str, str]:
    from dataclasses import fields

    return {f.name: session.frontend(f.name) for f in fields(CompactionConfig)}


@dataclass(frozen=True)
class Pick:
    kind: str
    inputs: tuple[TabletRowset, ...]
    #: CUMULATIVE: the pick as the policy made it (to move the point after the compaction).
    policy_pick: Any = None
    reason: str = ""


def pick(tablets: TableTablets, key: tuple[str, int], kind: str, cfg, now: float) -> Pick:
    """The policy's choice of rowsets for one compaction of a tablet (empty: nothing to do)."""

    view = tablets.views[key]
    state = tablets.state(key)
    if kind == CUMULATIVE:
        chosen = policy.pick_cumulative_input(state, cfg, now)
        kept = STATES.get(tablets.store.path, *key)
        kept.cumulative_point = chosen.cumulative_point
        if chosen.start_clocks:
            kept.last_cumulative_compaction_success = kept.last_cumulative_compaction_success or now
            kept.last_base_compaction_success = kept.last_base_compaction_success or now
        return Pick(kind, view.rowsets_of(chosen.inputs), chosen)
    chosen_base = policy.pick_base_input(state, cfg, now)
    STATES.get(tablets.store.path, *key).cumulative_point = chosen_base.cumulative_point
    return Pick(kind, view.rowsets_of(chosen_base.inputs), None, chosen_base.reason)


def run_pick(
    session: Session,
    tablets: TableTablets,
    key: tuple[str, int],
    chosen: Pick,
    cfg,
    trigger: str,
    clock: Callable[[], float] = time.time,
):
    """Run one picked compaction and move the cumulative point as the policy says."""

    if chosen.kind == BASE:
        return compact(session, tablets, key, chosen.inputs, BASE, trigger=trigger, clock=clock)
    state = tablets.state(key)
    base_size = policy.base_rowset_size(state)
    task = compact(session, tablets, key, chosen.inputs, CUMULATIVE, trigger=trigger, clock=clock)
    start, end = chosen.inputs[0].start, chosen.inputs[-1].end
    output = Rowset(start, end, task.output_bytes, task.output_files, clock(), False)
    point = policy.cumulative_point_after(chosen.policy_pick, output, base_size, cfg)
    STATES.get(tablets.store.path, *key).cumulative_point = point
    return task


# ---------------------------------------------------------------------- statements


def compact_partition(session: Session, meta: TableMeta, partition: str, kind: str) -> list[CompactionTask]:
    """ADMIN COMPACT TABLE: one compaction of `kind` of every tablet of the partition that the
    policy finds something to do for. A tablet another compaction holds is skipped, as Doris's
    BE skips a tablet already compacting."""
    cfg = _config(session)
    tablets = table_tablets(session, meta, [partition])
    now = time.time()
    done = []
    for key in sorted(tablets.views):
        if not tablets.views[key].files:
            continue
        chosen = pick(tablets, key, kind, cfg, now)
        if not chosen.inputs:
            continue
        try:
            done.append(run_pick(session, tablets, key, chosen, cfg, "MANUAL"))
        except CommitConflictError:
            continue
    return done


def tablet_rows(session: Session, meta: TableMeta, partitions: Sequence[str] | None = None) -> list[tuple]:
    """SHOW TABLETS rows: one per tablet of the (named) partitions, in partition then bucket order."""

    cfg = _config(session)
    tablets = table_tablets(session, meta, partitions)
    names = {meta.partition_key(p): p.name for p in meta.partitions}
    order = {meta.partition_key(p): i for i, p in enumerate(meta.partitions)}
    rows = []
    for key in sorted(tablets.views, key=lambda k: (order.get(k[0], 0), k[1])):
        view = tablets.views[key]
        s = STATES.get(tablets.store.path, *key)
        if s.cumulative_point == -1 and view.rowsets:
            s.cumulative_point = policy.calc_cumulative_point(tablets.state(key), cfg)
        state = tablets.state(key)
        first = view.rowsets[0].start if view.rowsets else None
        last = view.rowsets[-1].end if view.rowsets else None
        rows.append(
            (
                names.get(key[0], key[0]),
                key[1],
                last if last is not None else 0,
                sum(f.num_records or 0 for f in view.files),
                view.data_size,
                len(view.rowsets),
                len(view.files),
                f"{first}-{last}" if view.rowsets else None,
                s.cumulative_point,
                policy.cumulative_score(state, cfg),
                policy.base_score(state, cfg),
                SCANS.count(tablets.store.path, *key),
            )
        )
    return rows


# ---------------------------------------------------------------------- the background job


#: Per process: which kind the next production round makes (N cumulative rounds, then a base one).
ROUNDS = producer.RoundCounter()


@dataclass
class PassReport:
    tables: int = 0
    tablets: int = 0
    tasks: list[CompactionTask] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        # No result changes: a shell does not announce compactions (SHOW PROC '/compactions'
        # lists them; `dorisql scheduler` prints every pass), only failures.
        return False

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


def run_pass(session: Session, clock: Callable[[], float] = time.time) -> PassReport:
    """One pass of the producer over every table whose automatic compaction is on.

    Rounds: each makes a cumulative task, or a base task every
    ``cumulative_compaction_rounds_for_each_base_compaction_round`` rounds, for the eligible
    tablet with the highest tablet score (producer.choose_tablet: not yet submitted in this pass,
    the failure back-off, the table property). A task waits for its permits (its input segments;
    ``total_permits_for_compaction_score``) and runs on a pool of ``compaction_task_num_per_disk``
    threads (the warehouse is one disk). A tablet whose pick is empty is left for the next pass.
    The pass ends when a round finds no tablet of either kind, once its tasks are done.
    `clock` tells the time (seconds since the epoch): the policy's `now` and the success and
    failure times it keeps."""
    report = PassReport()
    cfg = _config(session)
    if cfg.disable_auto_compaction or session.catalog.read_only:
        return report
    SCANS.interval = float(session.frontend("tablet_scan_frequency_time_node_interval_second"))
    tables: dict[int, TableTablets] = {}
    for meta in session.catalog.list_table_metas():
        if not auto_enabled(meta):
            continue
        try:
            tables[meta.id] = table_tablets(session, meta)
        except DorisqlError as exc:
            report.errors[f"{meta.db}.{meta.name}"] = str(exc)
    report.tables = len(tables)
    report.tablets = sum(len(t.views) for t in tables.values())
    permits = producer.Permits()
    permits_free = threading.Condition()
    busy: set[producer.TabletKey] = set()
    lock = threading.Lock()

    def work(tablets: TableTablets, key, chosen: Pick, need: int) -> None:
        try:
            task = run_pick(session, tablets, key, chosen, cfg, "AUTO", clock)
            with lock:
                report.tasks.append(task)
        except CommitConflictError:
            pass  # busy in another process, or changed meanwhile: the next pass looks again
        except Exception as exc:
            name = f"{tablets.meta.db}.{tablets.meta.name} {key[0]}/{key[1]}"
            with lock:
                report.errors[name] = str(exc) if isinstance(exc, DorisqlError) else _short(exc)
        finally:
            with permits_free:
                permits.release(need)
                permits_free.notify_all()

    workers = max(1, cfg.compaction_task_num_per_disk)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="compaction") as pool:
        while True:
            now = clock()
            kind = _kind(ROUNDS.next_kind(cfg))
            found = _next_task(tables, busy, kind, cfg, now)
            if found is None:  # nothing of this kind: try the other before ending the pass
                kind = BASE if kind == CUMULATIVE else CUMULATIVE
                found = _next_task(tables, busy, kind, cfg, now)
            if found is None:
                break
            tablets, key, chosen = found
            need = sum(len(rs.files) for rs in chosen.inputs)
            with permits_free:
                while not permits.try_acquire(need, cfg.total_permits_for_compaction_score):
                    permits_free.wait()
            pool.submit(work, tablets, key, chosen, need)
            time.sleep(cfg.generate_compaction_tasks_min_interval_ms / 1000)  # Doris's pause between rounds
    return report


def _short(exc: BaseException) -> str:
    return _message(exc)


def _kind(producer_kind: str) -> str:
    return BASE if producer_kind == producer.BASE else CUMULATIVE


def _next_task(tables: dict[int, TableTablets], busy: set, kind: str, cfg, now: float):
    """The best tablet of `kind` with a non-empty pick (tablets with empty picks become busy for
    the rest of the pass); None when no tablet scores."""

    while True:
        candidates = []
        for table_id, tablets in tables.items():
            path = tablets.store.path
            for key, view in tablets.views.items():
                if (table_id, *key) in busy or not view.files:
                    continue
                s = STATES.get(path, *key)
                if s.cumulative_point == -1:
                    s.cumulative_point = policy.calc_cumulative_point(tablets.state(key), cfg)
                candidates.append(
                    producer.TabletCandidate(
                        table_id, key[0], key[1], tablets.state(key), SCANS.frequency(path, *key, now)
                    )
                )
        best = producer.choose_tablet(
            candidates, cfg, now, producer.BASE if kind == BASE else producer.CUMULATIVE, busy
        )
        if best is None:
            return None
        busy.add(best.key)
        tablets = tables[best.table_id]
        key = (best.partition, best.bucket)
        chosen = pick(tablets, key, kind, cfg, now)
        if chosen.inputs:
            return tablets, key, chosen
