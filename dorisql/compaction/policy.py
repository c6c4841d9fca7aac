"""Doris's size-based compaction policy, as pure functions of a tablet's rowsets (no Spark, no clock).

Each rule follows the compaction design the issue gives as the spec (docs/compaction.md, "Policy")
and, where that text is ambiguous or silent, Apache Doris's own code
(``be/src/olap/cumulative_compaction_policy.cpp``, ``base_compaction.cpp``,
``compaction.cpp``), which the comments name.

Two adaptations to Delta, both documented in docs/compaction.md:

* **The base rowset** is the tablet's first rowset (lowest version). In Doris it always starts at
  version 0 (the empty rowset ``[0-1]`` made with the tablet); a Delta tablet's first rowset starts
  at the first commit that wrote to it.
* **Missing versions.** Doris's versions are per tablet and dense, so a gap between two rowsets is
  a version this replica lacks. A Delta tablet's versions are the table's commit versions: a gap
  there is commits that did not touch the tablet, never a hole (every committed version is
  visible). ``TabletState.dense_versions`` says which reading applies; with ``False`` two rowsets
  are consecutive when no other rowset of the tablet lies between them.

Times are seconds since the epoch; ``now`` is always an argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from dorisql.settings import check_frontend_setting
from dorisql.tablets.rowset_types import Rowset, TabletState

MB = 1024 * 1024

#: Doris's K_INVALID_CUMULATIVE_POINT.
INVALID_CUMULATIVE_POINT = -1


@dataclass(frozen=True)
class CompactionConfig:
    """The compaction settings, named and defaulted as in the spec (Doris's BE config names)."""

    compaction_task_num_per_disk: int = 2
    min_compaction_failure_interval_sec: int = 600
    compaction_tablet_scan_frequency_factor: int = 0
    compaction_tablet_compaction_score_factor: int = 1
    generate_compaction_tasks_min_interval_ms: int = 10
    cumulative_compaction_rounds_for_each_base_compaction_round: int = 9
    disable_auto_compaction: bool = False
    #: Not given by the spec: Doris's current default (be/src/common/config.cpp).
    total_permits_for_compaction_score: int = 1000000
    cumulative_compaction_policy: str = "size_based"
    cumulative_size_based_promotion_ratio: float = 0.05
    cumulative_size_based_promotion_size_mbytes: int = 1024
    cumulative_size_based_promotion_min_size_mbytes: int = 64
    cumulative_size_based_compaction_lower_size_mbytes: int = 64
    cumulative_compaction_skip_window_seconds: int = 30
    max_cumulative_compaction_num_singleton_deltas: int = 1000
    #: Not named by the spec; Doris's pick_input_rowsets uses it with the lower size so that a
    #: few small rowsets wait for more instead of being rewritten again and again.
    min_cumulative_compaction_num_singleton_deltas: int = 5
    base_compaction_num_cumulative_deltas: int = 5
    base_cumulative_delta_ratio: float = 0.3
    base_compaction_interval_seconds_since_last_operation: int = 86400
    #: Not named by the spec: Doris's CumulativeCompaction::pick_rowsets_to_compact uses it so
    #: that a tablet whose loads stopped is not left with small rowsets for ever (see
    #: `pick_cumulative_input`).
    pick_rowset_to_compact_interval_sec: int = 86400

    @classmethod
    def from_settings(cls, settings: Mapping[str, str]) -> CompactionConfig:
        """Build from FE settings (``name -> text``, as ``Engine.frontend`` returns them).

        Names missing from `settings` keep their defaults; each value present is validated with
        ``check_frontend_setting`` (so a bad config-file value fails with the setting's name).
        """

        values: dict[str, object] = {}
        for f in fields(cls):
            text = settings.get(f.name)
            if text is None:
                continue
            checked = check_frontend_setting(f.name, str(text))
            if f.type == "bool":
                values[f.name] = checked == "true"
            elif f.type == "int":
                values[f.name] = int(checked)
            elif f.type == "float":
                values[f.name] = float(checked)
            else:
                values[f.name] = checked
        return cls(**values)  # type: ignore[arg-type]


#: The FE settings CompactionConfig reads (all registered in dorisql.settings).
SETTING_NAMES: tuple[str, ...] = tuple(f.name for f in fields(CompactionConfig))


# --------------------------------------------------------------------------- helpers


def _sorted(rowsets: Sequence[Rowset]) -> list[Rowset]:
    return sorted(rowsets, key=lambda rs: (rs.start_version, rs.end_version))


def base_rowset(state: TabletState) -> Rowset | None:
    """The tablet's base rowset: its first one (Doris: the rowset starting at version 0)."""
    return min(state.rowsets, key=lambda rs: rs.start_version, default=None)


def base_rowset_size(state: TabletState) -> int:
    base = base_rowset(state)
    return base.size if base is not None else 0


def _consecutive(state: TabletState, ordered: Sequence[Rowset]) -> set[tuple[Rowset, Rowset]] | None:
    """For sparse (Delta) versions: the pairs of rowsets adjacent in the tablet; None when dense."""
    if state.dense_versions:
        return None
    return set(zip(ordered, ordered[1:]))


def _follows(prev: Rowset, cur: Rowset, adjacent: set[tuple[Rowset, Rowset]] | None) -> bool:
    """No version missing between `prev` and `cur`."""
    if adjacent is None:
        return cur.start_version == prev.end_version + 1
    return (prev, cur) in adjacent


def promotion_size(base_rowset_size: int, cfg: CompactionConfig) -> int:
    """Bytes a cumulative output must reach to be promoted to the base side (spec 3.1 step 2).

    ``base size * ratio``, kept between the min and max promotion sizes; Doris checks the max
    first (SizeBasedCumulativeCompactionPolicy::_calc_promotion_size).
    """
    size = int(base_rowset_size * cfg.cumulative_size_based_promotion_ratio)
    largest = cfg.cumulative_size_based_promotion_size_mbytes * MB
    smallest = cfg.cumulative_size_based_promotion_min_size_mbytes * MB
    if size >= largest:
        return largest
    if size <= smallest:
        return smallest
    return size


def size_levels(cfg: CompactionConfig) -> list[int]:
    """The level boundaries in bytes, highest first (spec 3.3 note).

    The highest is half the max promotion size; each next one is half the previous, down to the
    last one not below ``cumulative_size_based_compaction_lower_size_mbytes``.
    """
    levels = []
    level = cfg.cumulative_size_based_promotion_size_mbytes * MB // 2
    lower = cfg.cumulative_size_based_compaction_lower_size_mbytes * MB
    while level >= lower and level > 0:
        levels.append(level)
        level //= 2
    return levels


def level_size(size: int, cfg: CompactionConfig) -> int:
    """The level of a size: the highest level boundary not above it, 0 below the lowest."""
    for level in size_levels(cfg):
        if size >= level:
            return level
    return 0


def _trim_by_level(rowsets: list[Rowset], total_size: int, cfg: CompactionConfig) -> list[Rowset]:
    """Drop leading rowsets while one's level is above the level of all the others together."""
    start = 0
    while start < len(rowsets):
        current = rowsets[start].size
        if level_size(current, cfg) <= level_size(total_size - current, cfg):
            break
        total_size -= current
        start += 1
    return rowsets[start:]


# --------------------------------------------------------------------------- cumulative point


def calc_cumulative_point(state: TabletState, cfg: CompactionConfig) -> int:
    """The tablet's cumulative point (spec 3.1).

    Calculated only while the point is still -1 (never calculated); afterwards it is returned
    unchanged, because compactions move it (``cumulative_point_after``). The spec's sentence reads
    the other way round, but Doris's calculate_cumulative_point returns at once when the current
    point is *not* K_INVALID_CUMULATIVE_POINT ("only calculate the point once. after that,
    cumulative point will be updated along with compaction process"); a point kept at -1 forever
    would leave every rowset to cumulative compaction and base compaction with nothing.
    """
    if state.cumulative_point != INVALID_CUMULATIVE_POINT:
        return state.cumulative_point
    ordered = _sorted(state.rowsets)
    if not ordered:
        return INVALID_CUMULATIVE_POINT
    base = ordered[0]
    promotion = promotion_size(base.size, cfg)
    adjacent = _consecutive(state, ordered)
    point = INVALID_CUMULATIVE_POINT
    prev: Rowset | None = None
    for rs in ordered:
        if prev is not None and not _follows(prev, rs, adjacent):
            break  # a missing version: the point stays after the previous rowset
        if not rs.is_delete and (not rs.merged or rs.overlapping):
            return rs.start_version
        if not rs.is_delete and rs is not base and rs.size < promotion:
            return rs.start_version
        prev = rs
        point = rs.end_version + 1
    return point


# --------------------------------------------------------------------------- cumulative compaction


@dataclass(frozen=True)
class CumulativePick:
    """The input of one cumulative compaction (empty when there is nothing to do)."""

    inputs: tuple[Rowset, ...]
    #: The version of the delete rowset that stopped (or was skipped by) the selection; -1: none.
    last_delete_version: int
    #: The tablet's cumulative point now: the one the pick was made from, or, when the pick is
    #: empty because of a delete version, the version after that delete (Doris's
    #: CumulativeCompaction::pick_rowsets_to_compact moves it there "to let base compaction handle
    #: the delete version"). Store it in the tablet's state whether or not a compaction follows.
    cumulative_point: int
    #: The tablet had never compacted and this pick was empty: from now on its last successful
    #: cumulative and base compactions count as now (Doris: "init the compaction success time
    #: for first time"), so that the idle-tablet rule below has a time to measure from.
    start_clocks: bool = False


def candidate_rowsets(state: TabletState, point: int, cfg: CompactionConfig, now: float) -> list[Rowset]:
    """Rowsets after the point, older than the skip window or already merged (spec 3.2)."""
    window = cfg.cumulative_compaction_skip_window_seconds
    return [
        rs for rs in _sorted(state.rowsets) if rs.start_version >= point and (rs.created_at + window < now or rs.merged)
    ]


def longest_consecutive(state: TabletState, candidates: list[Rowset]) -> list[Rowset]:
    """The candidates before the first missing version (spec 3.3 step 1)."""
    adjacent = _consecutive(state, _sorted(state.rowsets))
    for i in range(1, len(candidates)):
        if not _follows(candidates[i - 1], candidates[i], adjacent):
            return candidates[:i]
    return candidates


def pick_cumulative_input(state: TabletState, cfg: CompactionConfig, now: float) -> CumulativePick:
    """The rowsets one cumulative compaction merges (spec 3.1-3.3)."""
    point = calc_cumulative_point(state, cfg)
    if point == INVALID_CUMULATIVE_POINT:
        return CumulativePick((), -1, point)
    candidates = longest_consecutive(state, candidate_rowsets(state, point, cfg, now))
    first_after = next((rs for rs in _sorted(state.rowsets) if rs.start_version >= point), None)
    if candidates and candidates[0] != first_after:
        # The rowset right after the point is still in the skip window. Doris would pick past it
        # and then move the point beyond it, leaving a fresh (possibly overlapping) load on the
        # base side, which base compaction refuses for ever; waiting for the window to pass
        # keeps the run starting at the point.
        candidates = []
    promotion = promotion_size(base_rowset_size(state), cfg)

    inputs: list[Rowset] = []
    last_delete_version = -1
    score = 0
    total_size = 0
    for rs in candidates:
        if rs.is_delete:
            last_delete_version = rs.start_version
            if inputs:
                break  # compact what came before the delete, then hand it to base compaction
            score = 0  # a delete version first: skip it
            continue
        if score >= cfg.max_cumulative_compaction_num_singleton_deltas:
            break  # enough segments
        score += rs.score
        total_size += rs.size
        inputs.append(rs)

    def pick(chosen: Sequence[Rowset]) -> CumulativePick:
        if not chosen and last_delete_version != -1:
            # Nothing to merge before the delete version: leave it (and what precedes it) to base
            # compaction, so that the rowsets after it are not held up forever.
            return CumulativePick((), last_delete_version, last_delete_version + 1)
        if not chosen and candidates:
            return _idle_tablet_pick(state, candidates, point, cfg, now)
        return CumulativePick(tuple(chosen), last_delete_version, point)

    if total_size >= promotion:
        return pick(inputs)
    if last_delete_version != -1:
        # Stopped by a delete version: compact now, unless that would rewrite one sorted rowset.
        if len(inputs) == 1 and not inputs[0].overlapping:
            return pick(())
        return pick(inputs)
    inputs = _trim_by_level(inputs, total_size, cfg)
    if not inputs:
        return pick(())
    # Doris's last two checks (not in the spec): too little to be worth a compaction yet, or a
    # single sorted rowset, which a compaction would only copy.
    total_size = sum(rs.size for rs in inputs)
    score = sum(rs.score for rs in inputs)
    lower = cfg.cumulative_size_based_compaction_lower_size_mbytes * MB
    if total_size < lower and score < cfg.min_cumulative_compaction_num_singleton_deltas:
        return pick(())
    if total_size >= lower and len(inputs) == 1 and not inputs[0].overlapping:
        return pick(())
    return pick(inputs)


def _idle_tablet_pick(
    state: TabletState, candidates: Sequence[Rowset], point: int, cfg: CompactionConfig, now: float
) -> CumulativePick:
    """The policy found too little to compact: Doris then waits for more loads, but a tablet
    whose loads stopped would keep its last small rowsets for ever (and base compaction could
    never take them). So once neither kind of compaction succeeded for
    ``pick_rowset_to_compact_interval_sec``, all the candidates are compacted if one of them is
    overlapping; else the point moves past them, for base compaction to merge them
    (CumulativeCompaction::pick_rowsets_to_compact, "to avoid the stall of compaction")."""
    last_cumulative, last_base = state.last_cumulative_compaction_success, state.last_base_compaction_success
    if not last_cumulative and not last_base:
        return CumulativePick((), -1, point, start_clocks=True)
    threshold = cfg.pick_rowset_to_compact_interval_sec
    if now - last_cumulative > threshold and now - last_base > threshold:
        if any(rs.overlapping for rs in candidates):
            return CumulativePick(tuple(candidates), -1, point)
        # Doris moves it to the last candidate's start + 1: the same for a load (one version),
        # but a merged last candidate would then belong to neither side (its start before the
        # point, its end after it) and never be compacted again. Past its end, base takes it.
        return CumulativePick((), -1, candidates[-1].end_version + 1)
    return CumulativePick((), -1, point)


def cumulative_point_after(pick: CumulativePick, output: Rowset, base_rowset_size: int, cfg: CompactionConfig) -> int:
    """The cumulative point once `pick` was compacted into `output` (spec 3.5).

    ``base_rowset_size`` is the base rowset's size when the pick was made (Doris keeps the
    promotion size calculated then).
    """
    if pick.last_delete_version != -1:
        return output.end_version + 1
    if output.size >= promotion_size(base_rowset_size, cfg):
        return output.end_version + 1
    return pick.cumulative_point


def cumulative_score(state: TabletState, cfg: CompactionConfig) -> int:
    """The tablet's cumulative compaction score (spec 3.6).

    From the tablet's point, calculated first if it is still -1 (Doris calculates it when it loads
    the tablet, before any score is asked for).
    """
    point = calc_cumulative_point(state, cfg)
    if point == INVALID_CUMULATIVE_POINT:
        return 0
    after = [rs for rs in _sorted(state.rowsets) if rs.end_version >= point]
    total_size = sum(rs.size for rs in after)
    score = sum(rs.score for rs in after)
    if total_size >= promotion_size(base_rowset_size(state), cfg):
        return score
    kept = _trim_by_level(after, total_size, cfg)
    return sum(rs.score for rs in kept)


# --------------------------------------------------------------------------- base compaction


@dataclass(frozen=True)
class BasePick:
    """The input of one base compaction (empty when a condition is not met) and why."""

    inputs: tuple[Rowset, ...]
    reason: str
    #: The cumulative point the pick was made from (calculated if the tablet's was -1).
    cumulative_point: int = INVALID_CUMULATIVE_POINT


def base_score(state: TabletState, cfg: CompactionConfig) -> int:
    """The tablet's base compaction score: segments of the rowsets before the point (spec 4.4)."""
    point = calc_cumulative_point(state, cfg)
    return sum(rs.score for rs in state.rowsets if rs.end_version < point)


def pick_base_input(state: TabletState, cfg: CompactionConfig, now: float) -> BasePick:
    """The rowsets one base compaction merges, and the condition that decided it (spec 4.1-4.2).

    Reasons quote Doris's base_compaction.cpp / compaction.cpp messages where it has one. A point
    still -1 is calculated first (store ``BasePick.cumulative_point``).
    """
    point = calc_cumulative_point(state, cfg)
    if point == INVALID_CUMULATIVE_POINT:
        return BasePick((), f"tablet has an unreasonable cumulative layer point. cumulative_layer_point={point}")

    def done(inputs: Sequence[Rowset], reason: str) -> BasePick:
        return BasePick(tuple(inputs), reason, point)

    ordered = _sorted(state.rowsets)
    inputs = [rs for rs in ordered if rs.end_version < point]
    adjacent = _consecutive(state, ordered)
    # 1. version continuity
    for prev, cur in zip(inputs, inputs[1:]):
        if not _follows(prev, cur, adjacent):
            return done(
                (),
                "There are missed versions among rowsets. "
                f"prev_rowset version={prev.start_version}-{prev.end_version}, "
                f"rowset version={cur.start_version}-{cur.end_version}",
            )
    # 2. no overlapping rowset
    for rs in inputs:
        if rs.overlapping:
            return done(
                (),
                "There is overlapping rowset before cumulative point, "
                f"rowset version={rs.start_version}-{rs.end_version}, cumulative point={point}",
            )
    if len(inputs) <= 1:
        return done((), f"_input_rowsets.size() is {len(inputs)}")
    base = inputs[0]
    # 3. only the empty initial base rowset [0-1] and one other rowset
    if len(inputs) == 2 and base.start_version == 0 and base.end_version == 1:
        return done((), "no suitable versions for compaction")
    num_cumulative = len(inputs) - 1
    # 4. number of rowsets
    if len(inputs) > cfg.base_compaction_num_cumulative_deltas:
        return done(
            inputs,
            "satisfy the base compaction policy. "
            f"num_cumulative_rowsets={num_cumulative}, "
            f"base_compaction_num_cumulative_rowsets={cfg.base_compaction_num_cumulative_deltas}",
        )
    # 5. size ratio of the cumulative rowsets to the base rowset
    cumulative_total = sum(rs.size for rs in inputs[1:])
    ratio = cumulative_total / (base.size or 1)  # an empty base counts as 1 byte (Doris)
    if ratio > cfg.base_cumulative_delta_ratio:
        return done(
            inputs,
            "satisfy the base compaction policy. "
            f"cumulative_total_size={cumulative_total}, base_size={base.size}, "
            f"cumulative_base_ratio={ratio:g}, policy_ratio={cfg.base_cumulative_delta_ratio:g}",
        )
    # 6. time since the last base compaction (Doris: the base rowset's creation time, which is
    # when the last base compaction wrote it)
    last = state.last_base_compaction_success or base.created_at
    interval = int(now - last)
    threshold = cfg.base_compaction_interval_seconds_since_last_operation
    if interval > threshold:
        return done(
            inputs,
            "satisfy the base compaction policy. "
            f"interval_since_last_base_compaction={interval}, interval_threshold={threshold}",
        )
    return done(
        (),
        "don't satisfy the base compaction policy. "
        f"num_cumulative_rowsets={num_cumulative}, cumulative_base_ratio={ratio:g}, "
        f"interval_since_last_base_compaction={interval}",
    )
