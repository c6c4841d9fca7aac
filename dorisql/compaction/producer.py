"""The compaction producer's decisions, as pure code (spec section 2; docs/compaction.md).

The execution side (a background job) calls these each round: `RoundCounter` says whether the
round produces cumulative or base tasks, `choose_tablet` picks the tablet with the highest
tablet score, and `Permits` decides whether the task may be submitted now.

The candidate value type is `TabletCandidate`: one tablet as the producer sees it::

    TabletCandidate(
        table_id=12,                 # the catalog's table id
        partition="p20240101",       # the tablet's __partition value
        bucket=3,                    # the tablet's __bucket value
        state=TabletState(...),      # its rowsets, cumulative point and failure times
        scan_frequency=0.0,          # scans of the tablet in the current period (k1 weights it)
        auto_compaction_disabled=False,  # the table's "disable_auto_compaction" property
    )

`TabletCandidate.key` (``(table_id, partition, bucket)``) names a tablet in the set of tablets
already submitted or running that `choose_tablet` skips.

Nothing here blocks or reads a clock: ``now`` is an argument, and `Permits.try_acquire` answers
at once (the caller waits and retries, holding its own lock if several threads share one).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from dorisql.compaction.policy import CompactionConfig, base_score, cumulative_score
from dorisql.tablets.rowset_types import TabletState

CUMULATIVE = "cumulative"
BASE = "base"
KINDS = (CUMULATIVE, BASE)

TabletKey = tuple[int, str, int]


@dataclass(frozen=True)
class TabletCandidate:
    """One tablet offered to the producer (see the module docstring)."""

    table_id: int
    partition: str
    bucket: int
    state: TabletState
    scan_frequency: float = 0.0
    auto_compaction_disabled: bool = False

    @property
    def key(self) -> TabletKey:
        return (self.table_id, self.partition, self.bucket)


def tablet_score(scan_frequency: float, compaction_score: int, cfg: CompactionConfig) -> float:
    """``k1 * scan_frequency + k2 * compaction_score`` (spec 2.1)."""
    return (
        cfg.compaction_tablet_scan_frequency_factor * scan_frequency
        + cfg.compaction_tablet_compaction_score_factor * compaction_score
    )


def compaction_score(state: TabletState, cfg: CompactionConfig, kind: str) -> int:
    """The cumulative or base compaction score of a tablet."""
    if kind == CUMULATIVE:
        return cumulative_score(state, cfg)
    if kind == BASE:
        return base_score(state, cfg)
    raise ValueError(f"unknown compaction kind {kind!r}")


def _last_failure(state: TabletState, kind: str) -> float:
    return state.last_cumulative_failure if kind == CUMULATIVE else state.last_base_failure


def eligible(
    candidate: TabletCandidate, cfg: CompactionConfig, now: float, kind: str, busy: Collection[TabletKey] = ()
) -> bool:
    """Whether the producer may consider this tablet for a `kind` task (spec 2.1's filters)."""
    if candidate.key in busy:  # already submitted to the pool, or running
        return False
    if candidate.auto_compaction_disabled:  # the table's disable_auto_compaction property
        return False
    failed = _last_failure(candidate.state, kind)
    # Failed less than min_compaction_failure_interval_sec ago (0: never failed).
    return not (failed and now - failed < cfg.min_compaction_failure_interval_sec)


def choose_tablet(
    candidates: Iterable[TabletCandidate],
    cfg: CompactionConfig,
    now: float,
    kind: str,
    busy: Collection[TabletKey] = (),
) -> TabletCandidate | None:
    """The eligible tablet with the highest tablet score for a `kind` task; None when none scores.

    `busy` holds the keys of tablets already submitted or running. As in Doris's
    ``_find_best_tablet_to_compaction``, the score must be above 0, and the first of equal
    scores wins. The global switch (``disable_auto_compaction``) stops the producer altogether.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown compaction kind {kind!r}")
    if cfg.disable_auto_compaction:
        return None
    best: TabletCandidate | None = None
    highest = 0.0
    for candidate in candidates:
        if not eligible(candidate, cfg, now, kind, busy):
            continue
        score = tablet_score(candidate.scan_frequency, compaction_score(candidate.state, cfg, kind), cfg)
        if score > highest:
            best, highest = candidate, score
    return best


@dataclass
class RoundCounter:
    """Which kind of task a production round makes: N cumulative rounds, then one base round.

    N is ``cumulative_compaction_rounds_for_each_base_compaction_round`` (9), read each round so
    that ADMIN SET FRONTEND CONFIG takes effect at once (Doris's producer loop does the same).
    """

    rounds: int = 0

    def next_kind(self, cfg: CompactionConfig) -> str:
        if self.rounds < cfg.cumulative_compaction_rounds_for_each_base_compaction_round:
            self.rounds += 1
            return CUMULATIVE
        self.rounds = 0
        return BASE


@dataclass
class Permits:
    """Compaction permits (spec 2.2): a task holds its compaction score in permits while it runs.

    `try_acquire` grants when the permits fit in what is left of `total`; a task needing more than
    `total` is granted only when no permits are held at all (Doris's CompactionPermitLimiter, so
    such a tablet is not starved forever). `total` is read per call so that a changed
    ``total_permits_for_compaction_score`` applies to the next request.
    """

    used: int = 0

    def can_acquire(self, permits: int, total: int) -> bool:
        if permits > total:
            return self.used == 0 or self.used + permits <= total
        return self.used + permits <= total

    def try_acquire(self, permits: int, total: int) -> bool:
        """Take `permits` if allowed now; False (nothing taken) otherwise."""
        if permits < 0:
            raise ValueError("permits must not be negative")
        if not self.can_acquire(permits, total):
            return False
        self.used += permits
        return True

    def release(self, permits: int) -> None:
        if permits < 0 or permits > self.used:
            raise ValueError(f"cannot release {permits} permits: {self.used} are held")
        self.used -= permits
