"""Invariants of the compaction policy on random tablets (hypothesis).

Random tablets (dense Doris versions or sparse Delta commit versions, deletes, overlapping loads,
compacted rowsets, rowsets inside the skip window) are compacted step by step the way the
execution side will: pick, replace the inputs by one output, move the point. Every pick must be
contiguous, after the point, free of delete versions unless the pick is empty, within the
singleton-delta limit; base picks lie before the point.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from dorisql.compaction.policy import (
    MB,
    CompactionConfig,
    base_rowset_size,
    calc_cumulative_point,
    cumulative_point_after,
    pick_base_input,
    pick_cumulative_input,
)
from dorisql.tablets.rowset_types import Rowset, TabletState

NOW = 1_000_000.0


@st.composite
def tablets(draw):
    dense = draw(st.booleans())
    n = draw(st.integers(min_value=0, max_value=40))
    version = 0
    rowsets = []
    if draw(st.booleans()):  # a compacted base
        end = draw(st.integers(min_value=1, max_value=5))
        rowsets.append(Rowset(0, end, draw(st.integers(0, 20 * 1024)) * MB, 1, NOW - 90000, False))
        version = end
    for _ in range(n):
        version += 1 if dense else draw(st.integers(min_value=1, max_value=3))
        kind = draw(st.sampled_from(["load", "load", "load", "delete", "merged"]))
        age = draw(st.sampled_from([1, 29, 31, 3600]))
        if kind == "delete":
            rowsets.append(Rowset(version, version, 0, 0, NOW - age, False, "k = 1"))
        elif kind == "merged":
            end = version + draw(st.integers(min_value=1, max_value=4))
            size = draw(st.integers(min_value=0, max_value=1500)) * MB
            rowsets.append(Rowset(version, end, size, draw(st.integers(1, 3)), NOW - age, False))
            version = end
        else:
            segs = draw(st.integers(min_value=1, max_value=4))
            size = int(draw(st.floats(min_value=0, max_value=200)) * MB)
            rowsets.append(Rowset(version, version, size, segs, NOW - age, segs > 1))
    return TabletState(tuple(rowsets), dense_versions=dense)


configs = st.builds(
    lambda limit, window, lower: dataclasses.replace(
        CompactionConfig(),
        max_cumulative_compaction_num_singleton_deltas=limit,
        cumulative_compaction_skip_window_seconds=window,
        cumulative_size_based_compaction_lower_size_mbytes=lower,
    ),
    st.integers(min_value=1, max_value=12),
    st.sampled_from([0, 30]),
    st.sampled_from([0, 64, 128]),
)


def adjacent_in_tablet(state: TabletState, inputs: tuple[Rowset, ...]) -> bool:
    ordered = sorted(state.rowsets, key=lambda r: r.start_version)
    if not inputs:
        return True
    first = ordered.index(inputs[0])
    if tuple(ordered[first : first + len(inputs)]) != inputs:
        return False
    if state.dense_versions:
        return all(b.start_version == a.end_version + 1 for a, b in zip(inputs, inputs[1:]))
    return True


def check_cumulative(state: TabletState, cfg: CompactionConfig):
    pick = pick_cumulative_input(state, cfg, NOW)
    point = calc_cumulative_point(state, cfg)
    if pick.inputs or pick.last_delete_version == -1:
        assert pick.cumulative_point == point
    else:  # nothing to merge before a delete version: the point moves past it
        assert pick.cumulative_point == pick.last_delete_version + 1 > point
    assert adjacent_in_tablet(state, pick.inputs)
    assert all(r.start_version >= point for r in pick.inputs)
    assert not any(r.is_delete for r in pick.inputs)
    # Doris takes a rowset only while the score so far is below the limit.
    scores = [r.score for r in pick.inputs]
    assert sum(scores[:-1]) < cfg.max_cumulative_compaction_num_singleton_deltas or len(scores) <= 1
    # Within the skip window, only merged rowsets are picked.
    window = cfg.cumulative_compaction_skip_window_seconds
    assert all(r.merged or r.created_at + window < NOW for r in pick.inputs)
    if pick.last_delete_version != -1 and pick.inputs:
        # Stopped at (or after skipping) a delete version: none inside the pick.
        assert pick.last_delete_version not in range(pick.inputs[0].start_version, pick.inputs[-1].end_version + 1)
    return pick


def check_base(state: TabletState, cfg: CompactionConfig):
    pick = pick_base_input(state, cfg, NOW)
    assert pick.reason
    assert pick.cumulative_point == calc_cumulative_point(state, cfg)
    assert all(r.end_version < pick.cumulative_point for r in pick.inputs)
    assert adjacent_in_tablet(state, pick.inputs)
    if pick.inputs:
        first = min(state.rowsets, key=lambda r: r.start_version)
        assert pick.inputs[0] == first and len(pick.inputs) >= 2
    return pick


def merge(state: TabletState, inputs: tuple[Rowset, ...]) -> Rowset:
    return Rowset(
        inputs[0].start_version,
        inputs[-1].end_version,
        sum(r.size for r in inputs),
        1,
        NOW,
        False,
    )


def replace(state: TabletState, inputs: tuple[Rowset, ...], output: Rowset, point: int) -> TabletState:
    kept = tuple(r for r in state.rowsets if r not in inputs) + (output,)
    return dataclasses.replace(
        state, rowsets=tuple(sorted(kept, key=lambda r: r.start_version)), cumulative_point=point
    )


@settings(max_examples=120, deadline=None)
@given(tablets(), configs, st.lists(st.booleans(), min_size=1, max_size=8))
def test_picks_keep_the_invariants_through_compactions(state, cfg, rounds):
    for base_round in rounds:
        if base_round and state.cumulative_point != -1:
            pick = check_base(state, cfg)
            if pick.inputs:
                output = merge(state, pick.inputs)
                state = replace(state, pick.inputs, output, state.cumulative_point)
            continue
        pick = check_cumulative(state, cfg)
        base_size = base_rowset_size(state)
        state = dataclasses.replace(state, cumulative_point=pick.cumulative_point)
        assert not any(r.overlapping for r in state.rowsets if r.end_version < state.cumulative_point)
        if not pick.inputs:
            continue
        output = merge(state, pick.inputs)
        point = cumulative_point_after(pick, output, base_size, cfg)
        # The point never moves backwards, and only to a rowset boundary.
        assert point >= pick.cumulative_point
        assert point in (pick.cumulative_point, output.end_version + 1)
        state = replace(state, pick.inputs, output, point)
        # Base compaction can always take what lies before the point: no overlapping rowset.
        assert not any(r.overlapping for r in state.rowsets if r.end_version < state.cumulative_point)
    # Whatever happened, the versions still cover what they covered (nothing lost or doubled).
    spans = sorted((r.start_version, r.end_version) for r in state.rowsets)
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:]))
