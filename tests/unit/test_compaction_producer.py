"""The compaction producer's decisions (dorisql.compaction.producer): tablet choice, rounds, permits."""

from __future__ import annotations

import dataclasses

import pytest

from dorisql.compaction.policy import MB, CompactionConfig
from dorisql.compaction.producer import (
    BASE,
    CUMULATIVE,
    Permits,
    RoundCounter,
    TabletCandidate,
    choose_tablet,
    compaction_score,
    tablet_score,
)
from dorisql.tablets.rowset_types import Rowset, TabletState

NOW = 1_000_000.0
CFG = CompactionConfig()


def loads(n: int, segs: int = 1) -> TabletState:
    """A Delta tablet: a 10 GB base [0-1] and `n` old single-file loads after the point."""
    base = Rowset(0, 1, 10 * 1024 * MB, 1, NOW - 3600, False)
    rowsets = [Rowset(v, v, MB, segs, NOW - 3600, segs > 1) for v in range(2, 2 + n)]
    return TabletState((base, *rowsets), cumulative_point=2)


def tablet(bucket: int, state: TabletState, **kw) -> TabletCandidate:
    return TabletCandidate(table_id=7, partition="p1", bucket=bucket, state=state, **kw)


def test_tablet_score_weights_scans_and_compaction_score():
    assert tablet_score(100, 8, CFG) == 8  # k1 = 0, k2 = 1
    cfg = dataclasses.replace(
        CFG, compaction_tablet_scan_frequency_factor=2, compaction_tablet_compaction_score_factor=3
    )
    assert tablet_score(100, 8, cfg) == 2 * 100 + 3 * 8


def test_the_highest_scoring_tablet_is_chosen():
    tablets = [tablet(0, loads(6)), tablet(1, loads(9)), tablet(2, loads(7))]
    assert choose_tablet(tablets, CFG, NOW, CUMULATIVE).bucket == 1


def test_scan_frequency_decides_when_weighted():
    tablets = [tablet(0, loads(9), scan_frequency=1), tablet(1, loads(6), scan_frequency=50)]
    assert choose_tablet(tablets, CFG, NOW, CUMULATIVE).bucket == 0
    cfg = dataclasses.replace(CFG, compaction_tablet_scan_frequency_factor=1)
    assert choose_tablet(tablets, cfg, NOW, CUMULATIVE).bucket == 1


def test_equal_scores_keep_the_first_tablet():
    assert choose_tablet([tablet(3, loads(6)), tablet(4, loads(6))], CFG, NOW, CUMULATIVE).bucket == 3


def test_no_tablet_when_every_score_is_zero():
    assert choose_tablet([tablet(0, loads(0))], CFG, NOW, CUMULATIVE) is None
    assert choose_tablet([], CFG, NOW, BASE) is None


def test_tablets_already_submitted_or_running_are_skipped():
    tablets = [tablet(0, loads(6)), tablet(1, loads(9))]
    assert choose_tablet(tablets, CFG, NOW, CUMULATIVE, busy={(7, "p1", 1)}).bucket == 0
    assert choose_tablet(tablets, CFG, NOW, CUMULATIVE, busy={t.key for t in tablets}) is None


def test_tables_with_auto_compaction_disabled_are_skipped():
    tablets = [tablet(0, loads(6)), tablet(1, loads(9), auto_compaction_disabled=True)]
    assert choose_tablet(tablets, CFG, NOW, CUMULATIVE).bucket == 0


def test_the_global_switch_stops_the_producer():
    cfg = dataclasses.replace(CFG, disable_auto_compaction=True)
    assert choose_tablet([tablet(0, loads(9))], cfg, NOW, CUMULATIVE) is None


def test_a_recent_failure_holds_a_tablet_back_for_its_kind_only():
    failed = dataclasses.replace(loads(9), last_cumulative_failure=NOW - 599)
    tablets = [tablet(0, loads(6)), tablet(1, failed)]
    assert choose_tablet(tablets, CFG, NOW, CUMULATIVE).bucket == 0
    # 600 s later the back-off is over.
    assert choose_tablet(tablets, CFG, NOW + 1, CUMULATIVE).bucket == 1
    # A base failure does not hold back cumulative compaction, and the other way round.
    base_failed = dataclasses.replace(loads(9), last_base_failure=NOW - 10)
    assert choose_tablet([tablet(0, loads(6)), tablet(1, base_failed)], CFG, NOW, CUMULATIVE).bucket == 1
    cfg = dataclasses.replace(CFG, min_compaction_failure_interval_sec=5)
    assert choose_tablet(tablets, cfg, NOW, CUMULATIVE).bucket == 1


def test_base_rounds_score_the_rowsets_before_the_point():
    before = Rowset(0, 5, 100 * MB, 1, NOW, False)
    cumulative = [Rowset(v, v + 1, MB, 2, NOW, False) for v in range(6, 12, 2)]
    state = TabletState((before, *cumulative), cumulative_point=12)
    assert compaction_score(state, CFG, BASE) == 7
    assert choose_tablet([tablet(0, loads(9)), tablet(1, state)], CFG, NOW, BASE).bucket == 1
    with pytest.raises(ValueError):
        choose_tablet([], CFG, NOW, "full")


def test_nine_cumulative_rounds_then_one_base_round():
    counter = RoundCounter()
    kinds = [counter.next_kind(CFG) for _ in range(20)]
    assert kinds == ([CUMULATIVE] * 9 + [BASE]) * 2


def test_rounds_follow_the_setting():
    counter = RoundCounter()
    cfg = dataclasses.replace(CFG, cumulative_compaction_rounds_for_each_base_compaction_round=2)
    assert [counter.next_kind(cfg) for _ in range(6)] == [CUMULATIVE, CUMULATIVE, BASE] * 2
    cfg = dataclasses.replace(CFG, cumulative_compaction_rounds_for_each_base_compaction_round=0)
    assert [counter.next_kind(cfg) for _ in range(2)] == [BASE, BASE]


def test_permits_are_granted_while_they_fit():
    permits = Permits()
    assert permits.try_acquire(6, total=10)
    assert permits.try_acquire(4, total=10)
    assert not permits.try_acquire(1, total=10)  # nothing taken when refused
    assert permits.used == 10
    permits.release(6)
    assert permits.try_acquire(5, total=10) and permits.used == 9


def test_a_task_needing_more_than_the_total_runs_only_alone():
    permits = Permits()
    assert permits.try_acquire(1, total=10)
    assert not permits.try_acquire(50, total=10)
    permits.release(1)
    assert permits.try_acquire(50, total=10) and permits.used == 50
    # While it runs, nothing else fits.
    assert not permits.try_acquire(1, total=10)
    permits.release(50)
    assert permits.used == 0 and permits.try_acquire(10, total=10)


def test_a_changed_total_applies_to_the_next_request():
    permits = Permits()
    assert permits.try_acquire(8, total=10)
    assert not permits.try_acquire(8, total=10)
    assert permits.try_acquire(8, total=16)


def test_releasing_more_than_held_is_a_bug():
    permits = Permits()
    permits.try_acquire(3, total=10)
    with pytest.raises(ValueError):
        permits.release(4)
    with pytest.raises(ValueError):
        permits.try_acquire(-1, total=10)
