"""The size-based compaction policy, rule by rule (dorisql.compaction.policy; docs/compaction.md).

Each test writes a tablet out as a version/size list. Sizes are in MB; `NOW` is the clock. Unless
a test says otherwise the versions are dense, as in Doris (a gap is a missing version), and the
base rowset is Doris's ``[0-1]`` or a compacted ``[0-n]``.
"""

from __future__ import annotations

import dataclasses

import pytest

from dorisql.compaction.policy import (
    MB,
    SETTING_NAMES,
    CompactionConfig,
    CumulativePick,
    base_score,
    calc_cumulative_point,
    candidate_rowsets,
    cumulative_point_after,
    cumulative_score,
    level_size,
    longest_consecutive,
    pick_base_input,
    pick_cumulative_input,
    promotion_size,
    size_levels,
)
from dorisql.errors import AnalysisError
from dorisql.settings import FRONTEND_DEFAULTS, check_frontend_setting
from dorisql.tablets.rowset_types import Rowset, TabletState

NOW = 1_000_000.0
CFG = CompactionConfig()
OLD = NOW - 3600  # well outside the 30 s skip window


def rs(start, end=None, mb=1.0, segs=1, *, age=None, overlapping=False, delete=None, created=None):
    """A rowset [start, end] of `mb` MB in `segs` files, created `age` seconds before NOW."""
    end = start if end is None else end
    when = created if created is not None else (OLD if age is None else NOW - age)
    return Rowset(start, end, int(mb * MB), segs, when, overlapping, delete)


def delete(version):
    return rs(version, mb=0, segs=0, delete="k1 = 1")


def tablet(*rowsets, point=-1, dense=True, **kw):
    return TabletState(tuple(rowsets), cumulative_point=point, dense_versions=dense, **kw)


def versions(rowsets):
    return [(r.start_version, r.end_version) for r in rowsets]


BIG_BASE = rs(0, 1, mb=10 * 1024)  # 10 GB: promotion size 512 MB


# --------------------------------------------------------------------------- settings


def test_config_defaults_are_the_specs():
    assert CFG.compaction_task_num_per_disk == 2
    assert CFG.min_compaction_failure_interval_sec == 600
    assert CFG.compaction_tablet_scan_frequency_factor == 0
    assert CFG.compaction_tablet_compaction_score_factor == 1
    assert CFG.generate_compaction_tasks_min_interval_ms == 10
    assert CFG.cumulative_compaction_rounds_for_each_base_compaction_round == 9
    assert CFG.disable_auto_compaction is False
    assert CFG.total_permits_for_compaction_score == 1000000  # Doris's be/src/common/config.cpp
    assert CFG.cumulative_compaction_policy == "size_based"
    assert CFG.cumulative_size_based_promotion_ratio == 0.05
    assert CFG.cumulative_size_based_promotion_size_mbytes == 1024
    assert CFG.cumulative_size_based_promotion_min_size_mbytes == 64
    assert CFG.cumulative_size_based_compaction_lower_size_mbytes == 64
    assert CFG.cumulative_compaction_skip_window_seconds == 30
    assert CFG.max_cumulative_compaction_num_singleton_deltas == 1000
    assert CFG.base_compaction_num_cumulative_deltas == 5
    assert CFG.base_cumulative_delta_ratio == 0.3
    assert CFG.base_compaction_interval_seconds_since_last_operation == 86400


def test_every_setting_is_a_frontend_setting_with_the_same_default():
    assert CompactionConfig.from_settings({name: FRONTEND_DEFAULTS[name] for name in SETTING_NAMES}) == CFG
    assert CompactionConfig.from_settings({}) == CFG


def test_from_settings_converts_and_validates():
    cfg = CompactionConfig.from_settings(
        {
            "base_cumulative_delta_ratio": "0.5",
            "disable_auto_compaction": "on",
            "max_cumulative_compaction_num_singleton_deltas": "7",
            "cumulative_compaction_policy": "SIZE_BASED",
        }
    )
    assert cfg.base_cumulative_delta_ratio == 0.5 and cfg.disable_auto_compaction is True
    assert cfg.max_cumulative_compaction_num_singleton_deltas == 7 and cfg.cumulative_compaction_policy == "size_based"
    with pytest.raises(AnalysisError, match="'base_cumulative_delta_ratio': expected a number"):
        CompactionConfig.from_settings({"base_cumulative_delta_ratio": "lots"})


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("cumulative_compaction_policy", "num_based", "validate cumulative_compaction_policy=num_based failed"),
        ("cumulative_compaction_policy", "time_series", "only 'size_based' is supported"),
        ("cumulative_size_based_promotion_ratio", "1.5", "must be between 0 and 1"),
        ("base_cumulative_delta_ratio", "-0.1", "must be at least 0"),
        ("base_cumulative_delta_ratio", "nan", "must be at least 0"),
        ("compaction_task_num_per_disk", "1", "validate compaction_task_num_per_disk=1 failed"),
        ("disable_auto_compaction", "maybe", "can't be set to the value of 'maybe'"),
        ("max_cumulative_compaction_num_singleton_deltas", "0", "must be positive"),
        ("cumulative_compaction_skip_window_seconds", "-1", "must be positive"),
    ],
)
def test_settings_refuse_bad_values(name, value, message):
    with pytest.raises(AnalysisError, match=message):
        check_frontend_setting(name, value)


def test_settings_accept_doris_values():
    assert check_frontend_setting("base_cumulative_delta_ratio", "0.5") == "0.5"
    assert check_frontend_setting("cumulative_size_based_promotion_ratio", "1") == "1.0"
    assert check_frontend_setting("disable_auto_compaction", "TRUE") == "true"
    assert check_frontend_setting("cumulative_compaction_skip_window_seconds", "0") == "0"
    assert check_frontend_setting("compaction_task_num_per_disk", "4") == "4"


def test_admin_set_frontend_config_and_the_config_file(tmp_path, make_engine):
    from dorisql.config import read_config_file

    path = tmp_path / "config.toml"
    path.write_text(
        "[frontend]\nbase_cumulative_delta_ratio = 0.25\ndisable_auto_compaction = true\n"
        "cumulative_compaction_skip_window_seconds = 5\n"
    )
    config = read_config_file(path)
    engine = make_engine(tmp_path / "wh", frontend=config.frontend)
    try:

        def current() -> CompactionConfig:
            return CompactionConfig.from_settings({name: engine.frontend(name) for name in SETTING_NAMES})

        cfg = current()
        assert (cfg.base_cumulative_delta_ratio, cfg.disable_auto_compaction) == (0.25, True)
        assert cfg.cumulative_compaction_skip_window_seconds == 5
        engine.execute_sql('ADMIN SET FRONTEND CONFIG ("base_cumulative_delta_ratio" = "0.5")')
        engine.execute_sql('ADMIN SET FRONTEND CONFIG ("disable_auto_compaction" = "false")')
        cfg = current()
        assert (cfg.base_cumulative_delta_ratio, cfg.disable_auto_compaction) == (0.5, False)
        with pytest.raises(AnalysisError, match="validate cumulative_compaction_policy=num_based failed"):
            engine.execute_sql('ADMIN SET FRONTEND CONFIG ("cumulative_compaction_policy" = "num_based")')
        assert current().cumulative_compaction_policy == "size_based"
    finally:
        engine.close()


def test_a_bad_config_file_value_names_the_setting(tmp_path):
    with pytest.raises(AnalysisError, match="'base_cumulative_delta_ratio': expected a number"):
        CompactionConfig.from_settings({"base_cumulative_delta_ratio": "a third"})


# --------------------------------------------------------------------------- promotion size, levels


@pytest.mark.parametrize(
    ("base_mb", "expected_mb"),
    [
        (10 * 1024, 512),  # 10 GB * 0.05
        (100 * 1024, 1024),  # 5 GB, capped at the max promotion size
        (100, 64),  # 5 MB, raised to the min promotion size
        (0, 64),
        (64 * 20, 64),  # exactly the min
        (1024 * 20, 1024),  # exactly the max
    ],
)
def test_promotion_size_is_base_size_times_ratio_between_min_and_max(base_mb, expected_mb):
    assert promotion_size(base_mb * MB, CFG) == expected_mb * MB


def test_promotion_size_follows_the_settings():
    cfg = dataclasses.replace(CFG, cumulative_size_based_promotion_ratio=0.1)
    assert promotion_size(2048 * MB, cfg) == int(204.8 * MB)


def test_levels_halve_from_half_the_promotion_size_down_to_the_lower_size():
    assert size_levels(CFG) == [512 * MB, 256 * MB, 128 * MB, 64 * MB]
    # 62.5 MB is below the 64 MB lower size: no such level.
    assert size_levels(dataclasses.replace(CFG, cumulative_size_based_promotion_size_mbytes=1000)) == [
        500 * MB,
        250 * MB,
        125 * MB,
    ]


@pytest.mark.parametrize(
    ("mb", "level_mb"),
    [(2000, 512), (512, 512), (511, 256), (300, 256), (128, 128), (100, 64), (64, 64), (63.9, 0), (0, 0)],
)
def test_level_of_a_size_is_the_highest_level_not_above_it(mb, level_mb):
    assert level_size(int(mb * MB), CFG) == level_mb * MB


# --------------------------------------------------------------------------- 3.1 cumulative point


def test_point_is_calculated_only_while_it_is_minus_one():
    rowsets = (BIG_BASE, rs(2, 5, mb=600), rs(6, 6))
    assert calc_cumulative_point(tablet(*rowsets), CFG) == 6
    # Once set, compactions move it; recalculating would give 6 again, but 3 is kept.
    assert calc_cumulative_point(tablet(*rowsets, point=3), CFG) == 3


def test_point_of_an_empty_tablet_stays_minus_one():
    assert calc_cumulative_point(tablet(), CFG) == -1


def test_point_passes_large_compacted_rowsets():
    assert calc_cumulative_point(tablet(BIG_BASE, rs(2, 5, mb=600), rs(6, 9, mb=700)), CFG) == 10


def test_point_stops_after_the_rowset_before_a_missing_version():
    # Version 6 is missing: the point is the previous rowset's end + 1.
    assert calc_cumulative_point(tablet(BIG_BASE, rs(2, 5, mb=600), rs(7, 9, mb=600)), CFG) == 6


def test_point_stops_at_a_rowset_never_merged():
    assert calc_cumulative_point(tablet(BIG_BASE, rs(2, 5, mb=600), rs(6, 6, mb=600)), CFG) == 6


def test_point_stops_at_an_overlapping_rowset():
    overlapping = rs(2, 5, mb=600, segs=3, overlapping=True)
    assert calc_cumulative_point(tablet(BIG_BASE, overlapping, rs(6, 9, mb=600)), CFG) == 2


def test_point_stops_at_a_rowset_below_the_promotion_size():
    # promotion size 512 MB: the 100 MB rowset stays on the cumulative side.
    assert calc_cumulative_point(tablet(BIG_BASE, rs(2, 5, mb=600), rs(6, 9, mb=100)), CFG) == 6


def test_point_passes_delete_versions():
    assert calc_cumulative_point(tablet(BIG_BASE, delete(2), rs(3, 5, mb=600), delete(6), rs(7, 7)), CFG) == 7


def test_the_base_rowset_is_not_held_back_by_its_size():
    # A 1 MB base (promotion size 64 MB) is still the base: the point passes it.
    assert calc_cumulative_point(tablet(rs(0, 1, mb=1), rs(2, 2)), CFG) == 2


def test_sparse_versions_are_not_missing_versions():
    rowsets = (rs(0, 4, mb=10 * 1024), rs(7, 9, mb=600), rs(12, 12))
    assert calc_cumulative_point(tablet(*rowsets, dense=True), CFG) == 5
    assert calc_cumulative_point(tablet(*rowsets, dense=False), CFG) == 12


def test_a_delta_tablets_first_load_is_not_a_base():
    # The first rowset of a Delta tablet is a load: never merged, so the point stays before it.
    assert calc_cumulative_point(tablet(rs(3), rs(5), dense=False), CFG) == 3


# --------------------------------------------------------------------------- 3.2 candidates


def test_candidates_skip_rowsets_inside_the_skip_window():
    state = tablet(BIG_BASE, rs(2, age=31), rs(3, age=30), rs(4, age=10))
    assert versions(candidate_rowsets(state, 2, CFG, NOW)) == [(2, 2)]


def test_merged_rowsets_are_candidates_even_inside_the_skip_window():
    state = tablet(BIG_BASE, rs(2, 5, age=1), rs(6, age=1))
    assert versions(candidate_rowsets(state, 2, CFG, NOW)) == [(2, 5)]


def test_candidates_are_only_after_the_point():
    state = tablet(BIG_BASE, rs(2), rs(3), rs(4))
    assert versions(candidate_rowsets(state, 3, CFG, NOW)) == [(3, 3), (4, 4)]


def test_skip_window_follows_the_setting():
    cfg = dataclasses.replace(CFG, cumulative_compaction_skip_window_seconds=0)
    state = tablet(BIG_BASE, rs(2, age=1))
    assert versions(candidate_rowsets(state, 2, cfg, NOW)) == [(2, 2)]


# --------------------------------------------------------------------------- 3.3 input rowsets


def test_longest_consecutive_run_ends_at_the_first_missing_version():
    state = tablet(BIG_BASE, rs(2), rs(3), rs(5), rs(6))
    assert versions(longest_consecutive(state, list(state.rowsets[1:]))) == [(2, 2), (3, 3)]


def test_a_rowset_in_the_skip_window_ends_the_run_in_a_delta_tablet():
    # Version 5 is too new to be a candidate; 9 must not be merged with 3 across it.
    state = tablet(rs(0, 2, mb=10 * 1024), rs(3), rs(5, age=1), rs(9), point=3, dense=False)
    assert versions(longest_consecutive(state, candidate_rowsets(state, 3, CFG, NOW))) == [(3, 3)]


def test_a_run_not_starting_at_the_point_waits_for_the_skip_window():
    # Version 2 is a fresh overlapping load; 3-7 are old. Picking 3-7 would later move the point
    # past 2 and leave it where base compaction refuses it, so nothing is picked until 2 is old.
    rowsets = (BIG_BASE, rs(2, segs=2, overlapping=True, age=1), *[rs(v) for v in range(3, 8)])
    assert pick_cumulative_input(tablet(*rowsets, point=2), CFG, NOW).inputs == ()
    assert len(pick_cumulative_input(tablet(*rowsets, point=2), CFG, NOW + 30).inputs) == 6


def test_inputs_are_the_whole_run_of_small_rowsets():
    state = tablet(BIG_BASE, *[rs(v) for v in range(2, 8)], point=2)
    pick = pick_cumulative_input(state, CFG, NOW)
    assert versions(pick.inputs) == [(v, v) for v in range(2, 8)]
    assert (pick.last_delete_version, pick.cumulative_point) == (-1, 2)


def test_pick_calculates_the_point_first():
    state = tablet(BIG_BASE, rs(2, 5, mb=600), *[rs(v) for v in range(6, 11)])
    pick = pick_cumulative_input(state, CFG, NOW)
    assert pick.cumulative_point == 6 and versions(pick.inputs) == [(v, v) for v in range(6, 11)]


def test_inputs_stop_before_a_delete_version():
    state = tablet(BIG_BASE, rs(2), rs(3), delete(4), rs(5), rs(6), point=2)
    pick = pick_cumulative_input(state, CFG, NOW)
    assert versions(pick.inputs) == [(2, 2), (3, 3)] and pick.last_delete_version == 4


def test_a_leading_delete_version_is_skipped_but_recorded():
    # After skipping the delete, the pick is taken as it is (the delete rule), even below 5 segments.
    state = tablet(BIG_BASE, delete(2), rs(3), rs(4), point=2)
    pick = pick_cumulative_input(state, CFG, NOW)
    assert versions(pick.inputs) == [(3, 3), (4, 4)] and pick.last_delete_version == 2


def test_one_sorted_rowset_before_a_delete_version_is_not_compacted():
    # ... and the point moves past the delete version (Doris), handing both to base compaction.
    state = tablet(BIG_BASE, rs(2), delete(3), rs(4), point=2)
    assert pick_cumulative_input(state, CFG, NOW) == CumulativePick((), 3, 4)


def test_only_delete_versions_after_the_point_move_it_past_them():
    state = tablet(BIG_BASE, delete(2), delete(3), rs(4, age=1), point=2)
    assert pick_cumulative_input(state, CFG, NOW) == CumulativePick((), 3, 4)


def test_one_overlapping_rowset_before_a_delete_version_is_compacted():
    state = tablet(BIG_BASE, rs(2, segs=3, overlapping=True), delete(3), point=2)
    pick = pick_cumulative_input(state, CFG, NOW)
    assert versions(pick.inputs) == [(2, 2)] and pick.last_delete_version == 3


def test_inputs_stop_once_the_singleton_delta_limit_is_reached():
    cfg = dataclasses.replace(CFG, max_cumulative_compaction_num_singleton_deltas=6)
    state = tablet(BIG_BASE, *[rs(v) for v in range(2, 12)], point=2)
    assert versions(pick_cumulative_input(state, cfg, NOW).inputs) == [(v, v) for v in range(2, 8)]


def test_the_limit_is_checked_before_each_rowset_as_doris_does():
    # 2 + 2 + 2 segments: below the limit of 5 after two rowsets, so a third is taken (score 6).
    cfg = dataclasses.replace(CFG, max_cumulative_compaction_num_singleton_deltas=5)
    state = tablet(BIG_BASE, *[rs(v, segs=2, overlapping=True) for v in range(2, 7)], point=2)
    assert versions(pick_cumulative_input(state, cfg, NOW).inputs) == [(2, 2), (3, 3), (4, 4)]


def test_inputs_reaching_the_promotion_size_are_not_adjusted():
    # 1 MB base: promotion size 64 MB; 300 + 10 MB reaches it, so the big rowset stays in.
    state = tablet(rs(0, 1, mb=1), rs(2, 10, mb=300), rs(11, mb=10), point=2)
    assert versions(pick_cumulative_input(state, CFG, NOW).inputs) == [(2, 10), (11, 11)]


def test_level_adjustment_drops_a_leading_rowset_above_the_rest():
    # 300 MB (level 256) against 5 x 10 MB = 50 MB (level 0): the big rowset waits.
    state = tablet(BIG_BASE, rs(2, 10, mb=300), *[rs(v, mb=10) for v in range(11, 16)], point=2)
    assert versions(pick_cumulative_input(state, CFG, NOW).inputs) == [(v, v) for v in range(11, 16)]


def test_level_adjustment_stops_at_a_rowset_not_above_the_rest():
    # 200 MB (level 128) against 150 + 10 MB = 160 MB (level 128): everything is merged.
    state = tablet(BIG_BASE, rs(2, 5, mb=200), rs(6, 9, mb=150), rs(10, mb=10), point=2)
    assert versions(pick_cumulative_input(state, CFG, NOW).inputs) == [(2, 5), (6, 9), (10, 10)]


def test_too_little_to_compact_waits_for_more():
    # Doris's check after the level adjustment: under 64 MB and under 5 segments.
    state = tablet(BIG_BASE, rs(2), rs(3), rs(4), rs(5), point=2)
    assert pick_cumulative_input(state, CFG, NOW).inputs == ()
    state = tablet(BIG_BASE, rs(2), rs(3), rs(4), rs(5, segs=2, overlapping=True), point=2)
    assert len(pick_cumulative_input(state, CFG, NOW).inputs) == 4


def test_one_large_sorted_rowset_alone_is_not_compacted():
    # Levels 500/250/125 MB: a lone 100 MB sorted rowset is level 0, kept, and then left alone.
    cfg = dataclasses.replace(CFG, cumulative_size_based_promotion_size_mbytes=1000)
    assert pick_cumulative_input(tablet(BIG_BASE, rs(2, 9, mb=100), point=2), cfg, NOW).inputs == ()
    overlapping = rs(2, 2, mb=100, segs=4, overlapping=True)
    assert versions(pick_cumulative_input(tablet(BIG_BASE, overlapping, point=2), cfg, NOW).inputs) == [(2, 2)]


DAY = 86400


def test_an_idle_tablet_starts_its_compaction_clocks_at_its_first_empty_pick():
    # Never compacted: Doris sets both success times to now, to measure the idle time from.
    state = tablet(BIG_BASE, rs(2), rs(3), rs(4), rs(5), point=2)
    picked = pick_cumulative_input(state, CFG, NOW)
    assert picked.inputs == () and picked.start_clocks and picked.cumulative_point == 2
    busy = tablet(BIG_BASE, *[rs(v) for v in range(2, 8)], point=2)
    assert not pick_cumulative_input(busy, CFG, NOW).start_clocks  # something to compact


def test_an_idle_tablet_keeps_its_small_rowsets_for_a_day():
    state = tablet(BIG_BASE, rs(2), rs(3), rs(4), rs(5), point=2, last_cumulative_compaction_success=NOW - DAY + 60)
    assert pick_cumulative_input(state, CFG, NOW) == CumulativePick((), -1, 2)


def test_after_a_day_idle_sorted_rowsets_go_past_the_point_for_base_compaction():
    # pick_rowset_to_compact_interval_sec: neither kind succeeded for a day, and every candidate
    # is one sorted run: the point moves past them, and base compaction merges them.
    kw = {"last_cumulative_compaction_success": NOW - DAY - 1, "last_base_compaction_success": NOW - DAY - 1}
    state = tablet(BIG_BASE, rs(2), rs(3), rs(4), rs(5), point=2, **kw)
    picked = pick_cumulative_input(state, CFG, NOW)
    assert picked == CumulativePick((), -1, 6)
    moved = dataclasses.replace(state, cumulative_point=picked.cumulative_point)
    assert versions(pick_base_input(moved, CFG, NOW).inputs) == [(0, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    # A merged last candidate goes past its end (Doris's start + 1 would strand it).
    merged = tablet(BIG_BASE, rs(2, 9, mb=0.5), point=2, **kw)
    assert pick_cumulative_input(merged, CFG, NOW).cumulative_point == 10
    # One kind succeeding within the day is enough to wait.
    recent = tablet(BIG_BASE, rs(2), point=2, **{**kw, "last_base_compaction_success": NOW - 60})
    assert pick_cumulative_input(recent, CFG, NOW).cumulative_point == 2


def test_after_a_day_idle_overlapping_rowsets_are_compacted_first():
    kw = {"last_cumulative_compaction_success": NOW - DAY - 1, "last_base_compaction_success": NOW - DAY - 1}
    state = tablet(BIG_BASE, rs(2), rs(3, segs=3, overlapping=True), rs(4), point=2, **kw)
    picked = pick_cumulative_input(state, CFG, NOW)
    assert versions(picked.inputs) == [(2, 2), (3, 3), (4, 4)] and picked.cumulative_point == 2
    # Only what left the skip window: a fresh load is not a candidate.
    fresh = tablet(BIG_BASE, rs(2, segs=3, overlapping=True), rs(3, age=5), point=2, **kw)
    assert versions(pick_cumulative_input(fresh, CFG, NOW).inputs) == [(2, 2)]


def test_the_idle_interval_follows_the_setting():
    cfg = dataclasses.replace(CFG, pick_rowset_to_compact_interval_sec=3600)
    kw = {"last_cumulative_compaction_success": NOW - 3601, "last_base_compaction_success": NOW - 3601}
    assert pick_cumulative_input(tablet(BIG_BASE, rs(2), rs(3), point=2, **kw), cfg, NOW).cumulative_point == 4
    assert pick_cumulative_input(tablet(BIG_BASE, rs(2), rs(3), point=2, **kw), CFG, NOW).cumulative_point == 2


def test_nothing_to_pick_in_an_empty_tablet():
    assert pick_cumulative_input(tablet(), CFG, NOW) == CumulativePick((), -1, -1)


def test_rowsets_in_the_skip_window_are_not_picked():
    state = tablet(BIG_BASE, *[rs(v, age=5) for v in range(2, 12)], point=2)
    assert pick_cumulative_input(state, CFG, NOW).inputs == ()


# --------------------------------------------------------------------------- 3.5 point update


def test_point_after_a_pick_stopped_by_a_delete_moves_past_the_output():
    pick = CumulativePick((rs(2), rs(3)), 4, 2)
    assert cumulative_point_after(pick, rs(2, 3, mb=1), 10 * 1024 * MB, CFG) == 4


def test_point_after_moves_past_an_output_reaching_the_promotion_size():
    pick = CumulativePick((rs(2, 5, mb=400), rs(6, 9, mb=200)), -1, 2)
    assert cumulative_point_after(pick, rs(2, 9, mb=512), 10 * 1024 * MB, CFG) == 10
    assert cumulative_point_after(pick, rs(2, 9, mb=511), 10 * 1024 * MB, CFG) == 2


# --------------------------------------------------------------------------- 3.6, 4.4 scores


def test_cumulative_score_counts_every_segment_after_the_point_when_large_enough():
    state = tablet(rs(0, 1, mb=1), rs(2, 9, mb=100, segs=2), rs(10, segs=3, overlapping=True), rs(11, age=1), point=2)
    assert cumulative_score(state, CFG) == 6


def test_cumulative_score_leaves_out_rowsets_the_level_rule_would_drop():
    state = tablet(
        BIG_BASE, rs(2, 10, mb=300), *[rs(v, mb=10, segs=2, overlapping=True) for v in range(11, 16)], point=2
    )
    assert cumulative_score(state, CFG) == 10


def test_cumulative_score_of_an_empty_tablet_is_zero():
    assert cumulative_score(tablet(), CFG) == 0


def test_cumulative_score_calculates_a_point_still_minus_one():
    # The point is 6: the large compacted rowsets before it do not count.
    state = tablet(BIG_BASE, rs(2, 5, mb=600, segs=4), *[rs(v, segs=2, overlapping=True) for v in range(6, 9)])
    assert cumulative_score(state, CFG) == 6


def test_base_score_counts_segments_before_the_point():
    state = tablet(rs(0, 5, segs=2), rs(6, 9, segs=3), rs(10, segs=4, overlapping=True), point=10)
    assert base_score(state, CFG) == 5
    # A point still -1 is calculated: [6-9] is under the 64 MB promotion size, so the point is 6.
    assert base_score(dataclasses.replace(state, cumulative_point=-1), CFG) == 2


# --------------------------------------------------------------------------- 4 base compaction


def base_tablet(*rowsets, point, **kw):
    return tablet(*rowsets, point=point, last_base_compaction_success=NOW - 60, **kw)


def test_base_of_an_empty_tablet_has_no_point():
    pick = pick_base_input(tablet(), CFG, NOW)
    assert pick.inputs == () and "unreasonable cumulative layer point" in pick.reason


def test_base_calculates_a_point_still_minus_one():
    state = tablet(rs(0, 5, mb=1000), rs(6, 9, mb=600), rs(10), last_base_compaction_success=NOW - 60)
    pick = pick_base_input(state, CFG, NOW)
    assert versions(pick.inputs) == [(0, 5), (6, 9)] and pick.cumulative_point == 10


def test_base_inputs_are_every_rowset_before_the_point():
    rowsets = [rs(0, 5, mb=100)] + [rs(6 + i, 6 + i, mb=1) for i in range(5)] + [rs(11), rs(12)]
    pick = pick_base_input(base_tablet(*rowsets, point=11), CFG, NOW)
    assert versions(pick.inputs) == [(0, 5)] + [(v, v) for v in range(6, 11)]
    assert pick.reason.startswith("satisfy the base compaction policy. num_cumulative_rowsets=5")


def test_base_stops_at_a_missing_version():
    pick = pick_base_input(base_tablet(rs(0, 5), rs(7, 9), point=10), CFG, NOW)
    assert pick.inputs == ()
    assert pick.reason == "There are missed versions among rowsets. prev_rowset version=0-5, rowset version=7-9"


def test_base_in_a_delta_tablet_has_no_missing_versions():
    state = base_tablet(rs(0, 5, mb=100), rs(7, 9, mb=50), point=10, dense=False)
    assert versions(pick_base_input(state, CFG, NOW).inputs) == [(0, 5), (7, 9)]


def test_base_stops_at_an_overlapping_rowset():
    pick = pick_base_input(base_tablet(rs(0, 5), rs(6, 9, segs=2, overlapping=True), point=10), CFG, NOW)
    assert pick.inputs == ()
    assert pick.reason.startswith("There is overlapping rowset before cumulative point, rowset version=6-9")


def test_base_needs_more_than_one_rowset():
    pick = pick_base_input(base_tablet(rs(0, 9), rs(10), point=10), CFG, NOW)
    assert pick.inputs == () and pick.reason == "_input_rowsets.size() is 1"


def test_base_skips_the_empty_initial_rowset_and_one_other():
    pick = pick_base_input(base_tablet(rs(0, 1, mb=0, segs=0), rs(2, 9, mb=100), point=10), CFG, NOW)
    assert pick.inputs == () and pick.reason == "no suitable versions for compaction"


def test_base_runs_when_more_than_five_rowsets_wait():
    rowsets = [rs(0, 5, mb=10 * 1024)] + [rs(v, v + 1, mb=1) for v in range(6, 16, 2)]
    pick = pick_base_input(base_tablet(*rowsets, point=16), CFG, NOW)
    assert len(pick.inputs) == 6
    assert pick.reason == (
        "satisfy the base compaction policy. num_cumulative_rowsets=5, base_compaction_num_cumulative_rowsets=5"
    )
    pick = pick_base_input(base_tablet(*rowsets[:5], point=14), CFG, NOW)
    assert pick.inputs == () and pick.reason.startswith("don't satisfy the base compaction policy.")


def test_base_runs_when_the_cumulative_rowsets_exceed_the_ratio_of_the_base():
    pick = pick_base_input(base_tablet(rs(0, 5, mb=1000), rs(6, 7, mb=200), rs(8, 9, mb=200), point=10), CFG, NOW)
    assert len(pick.inputs) == 3 and "cumulative_base_ratio=0.4, policy_ratio=0.3" in pick.reason
    # Exactly 0.3 does not exceed 0.3.
    pick = pick_base_input(base_tablet(rs(0, 5, mb=1000), rs(6, 7, mb=200), rs(8, 9, mb=100), point=10), CFG, NOW)
    assert pick.inputs == ()
    assert pick.reason == (
        "don't satisfy the base compaction policy. num_cumulative_rowsets=2, cumulative_base_ratio=0.3, "
        "interval_since_last_base_compaction=60"
    )


def test_base_runs_when_the_last_base_compaction_is_older_than_the_interval():
    rowsets = (rs(0, 5, mb=1000), rs(6, 9, mb=10))
    day = 86400
    pick = pick_base_input(tablet(*rowsets, point=10, last_base_compaction_success=NOW - day - 1), CFG, NOW)
    assert (
        len(pick.inputs) == 2 and "interval_since_last_base_compaction=86401, interval_threshold=86400" in pick.reason
    )
    pick = pick_base_input(tablet(*rowsets, point=10, last_base_compaction_success=NOW - day), CFG, NOW)
    assert pick.inputs == ()


def test_base_interval_counts_from_the_base_rowset_when_never_compacted():
    old = (rs(0, 5, mb=1000, created=NOW - 90000), rs(6, 9, mb=10))
    assert len(pick_base_input(tablet(*old, point=10), CFG, NOW).inputs) == 2
    new = (rs(0, 5, mb=1000, created=NOW - 600), rs(6, 9, mb=10))
    assert pick_base_input(tablet(*new, point=10), CFG, NOW).inputs == ()


def test_an_empty_base_counts_as_one_byte_in_the_ratio():
    pick = pick_base_input(base_tablet(rs(0, 3, mb=0, segs=0), rs(4, 9, mb=1), point=10), CFG, NOW)
    assert len(pick.inputs) == 2
