"""The background jobs' timetable: which jobs are due when (pure; the time is an argument)."""

from __future__ import annotations

import pytest

from dorisql.jobs.runner import Timetable


def test_every_job_is_due_at_the_start_then_after_its_own_interval():
    table = Timetable(["dynamic", "compaction"], now=100.0)
    assert table.due(100.0) == ["dynamic", "compaction"]
    table.done("dynamic", 101.0, interval=600.0)
    table.done("compaction", 102.0, interval=30.0)
    assert table.due(102.0) == [] and table.wait(102.0) == 30.0
    assert table.due(132.0) == ["compaction"]
    table.done("compaction", 133.0, interval=30.0)
    assert table.wait(140.0) == 23.0
    assert table.due(701.0) == ["dynamic", "compaction"]


def test_trigger_makes_jobs_due_now_once():
    table = Timetable(["a", "b"], now=0.0)
    for name in table.due(0.0):
        table.done(name, 1.0, interval=100.0)
    table.trigger("b")
    assert table.wait(2.0) == 0.0
    assert table.due(2.0) == ["b"]
    table.done("b", 3.0, interval=100.0)
    assert table.due(3.0) == [] and table.wait(3.0) == 98.0  # the trigger was used up
    table.trigger()
    assert table.due(4.0) == ["a", "b"]


def test_a_trigger_during_the_pass_runs_the_job_again():
    table = Timetable(["a"], now=0.0)
    assert table.due(0.0) == ["a"]
    table.trigger("a")  # arrives while "a" runs
    table.done("a", 1.0, interval=100.0)
    assert table.due(1.0) == ["a"]


def test_unknown_job():
    with pytest.raises(ValueError, match="unknown job 'nope' \\(jobs: a\\)"):
        Timetable(["a"], now=0.0).trigger("nope")


def test_no_jobs_means_no_deadline():
    table = Timetable([], now=5.0)
    assert table.due(5.0) == [] and table.wait(5.0) is None
