"""The trash job's time rules (pure: every clock is an argument)."""

from __future__ import annotations

import datetime as dt

from dorisql.statements.admin.trash import MIN_REAL_AGE_SECONDS, is_expired, old_enough, vacuum_hours

NOW = dt.datetime(2030, 1, 2, 12, 0, 0)
DAY = 86400


def test_a_bin_entry_expires_strictly_after_its_retention():
    assert not is_expired(NOW - dt.timedelta(seconds=DAY), NOW, DAY)
    assert is_expired(NOW - dt.timedelta(seconds=DAY + 1), NOW, DAY)
    assert not is_expired(NOW + dt.timedelta(hours=1), NOW, 0)  # dropped "later" on another clock
    assert is_expired(NOW - dt.timedelta(microseconds=1), NOW, 0)


def test_vacuum_hours_never_list_a_file_removed_after_the_cutoff():
    # Vacuum lists files removed before wall_now - hours: that must not be after the cutoff.
    for minutes in (0, 1, 59, 60, 61, 24 * 60, 24 * 60 + 30):
        cutoff = NOW - dt.timedelta(minutes=minutes)
        hours = vacuum_hours(cutoff, NOW)
        assert NOW - dt.timedelta(hours=hours) <= cutoff
        assert NOW - dt.timedelta(hours=hours - 1) > cutoff or hours == 0  # and not an hour more than needed
    assert vacuum_hours(NOW - dt.timedelta(days=1), NOW) == 24
    # A cutoff in the wall clock's future (an injected clock ahead of it): every removed file is old enough.
    assert vacuum_hours(NOW + dt.timedelta(days=3), NOW) == 0


def test_leftovers_must_be_old_on_both_clocks():
    wall = NOW.timestamp()
    cutoff = NOW - dt.timedelta(days=1)
    assert old_enough((NOW - dt.timedelta(days=2)).timestamp(), cutoff, wall)
    assert not old_enough((NOW - dt.timedelta(hours=23)).timestamp(), cutoff, wall)
    # An engine clock far ahead makes the cutoff late, but an hour of real time still protects
    # what a running statement just wrote.
    future_cutoff = NOW + dt.timedelta(days=30)
    assert not old_enough(wall - MIN_REAL_AGE_SECONDS + 5, future_cutoff, wall)
    assert old_enough(wall - MIN_REAL_AGE_SECONDS - 5, future_cutoff, wall)
