"""Dynamic partitions with data (real local Spark): rows age out with their partitions, drops are
one Delta commit, and a load racing a drop never leaves rows in a dropped partition."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from dorisql.errors import CommitConflictError, DorisqlError
from dorisql.jobs import scheduler
from dorisql.storage import delta as delta_mod

from .conftest import Harness, dynamic_table
from crashkit import hook_env
from waiting import wait_until

DORISQL = str(Path(sys.executable).with_name("dorisql"))


def delta_partitions(h: Harness, table: str) -> dict[str, int]:
    """{partition: rows} in the latest Delta snapshot, read with the deltalake package (the
    ``__partition`` ids shown as the names of live partitions)."""
    dt = DeltaTable(str(h.folder(table)))
    names = {key: name for name, key in h.engine.catalog.load_table("d", table).partition_keys().items()}
    actions = pa.table(dt.get_add_actions(flatten=True)).to_pydict()
    out: dict[str, int] = {}
    for part, rows in zip(actions["partition.__partition"], actions["num_records"]):
        part = names.get(part, part)
        out[part] = out.get(part, 0) + rows
    return out


def count_by_day(h: Harness, table: str) -> dict[str, int]:
    rows = h.one(f"SELECT CAST(k1 AS STRING) AS d, COUNT(*) AS n FROM {table} GROUP BY k1").rows
    return {str(d): int(n) for d, n in rows}


def test_rows_age_out_with_their_partitions(hs):
    h = hs
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("events", time_unit="DAY", start=-2, end=2, buckets=2))
    h.sql("INSERT INTO events VALUES ('2020-05-29', 1), ('2020-05-29', 2), ('2020-05-30', 3), ('2020-05-31', 4)")
    assert count_by_day(h, "events") == {"2020-05-29": 2, "2020-05-30": 1, "2020-05-31": 1}
    assert delta_partitions(h, "events") == {"p20200529": 2, "p20200530": 1, "p20200531": 1}

    # the next day: only a new (empty) partition -- no Delta commit
    v0 = h.delta_versions()["d.events"]
    report = h.run_pass("2020-05-30 00:10:00")
    assert report.created == {"d.events": ["p20200601"]} and not report.dropped
    assert h.delta_versions()["d.events"] == v0
    h.sql("INSERT INTO events VALUES ('2020-06-01', 5)")
    v1 = h.delta_versions()["d.events"]

    # 2020-06-01: START is 2020-05-30, so p20200529 and its two rows go, in one Delta commit
    p29 = h.key("events", "p20200529")
    report = h.run_pass("2020-06-01 00:10:00")
    assert report.dropped == {"d.events": ["p20200529"]}
    assert h.delta_versions()["d.events"] == v1 + 1
    commit = h.delta_commit("d.events", v1 + 1)
    removes = [a["remove"] for a in commit if "remove" in a]
    assert removes and not [a for a in commit if "add" in a]
    assert {r["partitionValues"]["__partition"] for r in removes} == {p29}
    assert count_by_day(h, "events") == {"2020-05-30": 1, "2020-05-31": 1, "2020-06-01": 1}
    assert delta_partitions(h, "events") == {"p20200530": 1, "p20200531": 1, "p20200601": 1}
    assert "p20200529" not in h.names("events")

    # idle pass with data: nothing written anywhere
    versions, cat = h.delta_versions(), h.catalog_versions()
    assert not h.run_pass().dropped
    assert h.delta_versions() == versions and h.catalog_versions() == cat

    # a load for a day that aged out fits no partition (strict mode refuses it)
    with pytest.raises(DorisqlError, match="fit no partition"):
        h.sql("INSERT INTO events VALUES ('2020-05-29', 9)")

    # a week later everything loaded so far is gone, from queries and from the Delta snapshot
    for day in range(2, 9):
        h.run_pass(f"2020-06-{day:02d} 00:10:00")
    assert count_by_day(h, "events") == {}
    assert delta_partitions(h, "events") == {}
    assert h.names("events") == ["p20200606", "p20200607", "p20200608", "p20200609", "p20200610"]


def _wrap_guard(monkeypatch, inside):
    """Run ``inside(touched)`` within INSERT's commit guard (under the table's commit lock)."""
    original = delta_mod.DeltaStore.write

    def write(self, df, **kw):
        guard = kw.get("expected_partitions")

        def wrapped(touched):
            return inside(touched, guard)

        kw["expected_partitions"] = wrapped
        return original(self, df, **kw)

    monkeypatch.setattr(delta_mod.DeltaStore, "write", write)


def test_load_racing_a_drop_that_wins_fails_cleanly(hs, monkeypatch, make_engine):
    """The scheduler drops the partition after the load wrote its files but before it takes the
    table's commit lock: the load is refused with a clear error, its files are deleted, and no
    row of it is ever visible."""
    h = hs
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1, buckets=2))
    warehouse = h.warehouse
    folder, p29 = h.folder("t"), h.key("t", "p20200529")
    dropper_result = {}

    def dropper():
        engine = make_engine(warehouse)
        engine.session_vars["dorisql_now"] = "2020-05-31 00:00:00"
        try:
            dropper_result["report"] = scheduler.run_pass(engine)
        except BaseException as exc:  # pragma: no cover - reported below
            dropper_result["error"] = exc

    def commit(store, staged, overwrite):  # the load's files are written, not committed
        assert list(folder.glob(f"__partition={p29}/*/*.parquet"))
        thread = threading.Thread(target=dropper)
        thread.start()
        thread.join(60)

    monkeypatch.setattr(delta_mod, "before_commit", commit)
    with pytest.raises(CommitConflictError, match="p20200529 of table 't' was dropped or replaced while loading"):
        h.sql("INSERT INTO t VALUES ('2020-05-29', 1), ('2020-05-29', 2)")
    assert "error" not in dropper_result
    assert dropper_result["report"].dropped == {"d.t": ["p20200529"]}
    assert delta_partitions(h, "t") == {}
    assert not list(folder.glob(f"__partition={p29}/*/*.parquet"))  # files cleaned up
    monkeypatch.undo()
    h.at("2020-05-31 00:00:00")
    assert h.one("SELECT COUNT(*) FROM t").rows[0][0] == 0


def test_load_racing_the_scheduler_command_that_loses_is_dropped_with_the_partition(hs, monkeypatch, tmp_path):
    """The load passes its guard (holding the table's commit lock), and `dorisql scheduler --once`
    (another process) starts dropping the partition meanwhile: the drop waits for the lock, so
    the load commits and the drop then removes the loaded rows with the partition.

    The order is certain, not likely: the load holds the lock until the scheduler has said
    (crashkit's notification, as it enters the partition drop, which takes the lock before it
    changes anything) that it is at the drop, so the drop can only run after the load."""
    h = hs
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1, buckets=2))
    h.sql("INSERT INTO t VALUES ('2020-05-30', 7)")
    warehouse = h.warehouse
    proc = {}
    p29 = h.key("t", "p20200529")
    at_the_drop = tmp_path / "scheduler-at-the-drop"

    def inside(touched, guard):
        result = guard(touched)  # the partition still exists: the load will commit
        scheduler_at_drop = hook_env(
            notify_at="before:dorisql.statements.ddl.partitions:drop_partitions", notify_file=at_the_drop
        )
        proc["p"] = subprocess.Popen(
            [DORISQL, "--warehouse", str(warehouse), "scheduler", "--once", "--now", "2020-05-31 00:00:00"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "TZ": "UTC", **scheduler_at_drop},
        )
        # it reaches the drop while this load holds the table's commit lock: the drop waits for it
        wait_until(
            lambda: at_the_drop.exists() or proc["p"].poll() is not None,
            timeout=180,
            what="the scheduler process to reach the partition drop",
        )
        assert at_the_drop.exists(), f"the scheduler ended before its drop: {proc['p'].communicate()}"
        assert proc["p"].poll() is None  # still there, waiting for the lock
        assert h.engine.catalog.load_table("d", "t").partition("p20200529") is not None
        return result

    _wrap_guard(monkeypatch, inside)
    h.sql("INSERT INTO t VALUES ('2020-05-29', 1), ('2020-05-29', 2), ('2020-05-30', 3)")
    out, err = proc["p"].communicate(timeout=120)
    assert proc["p"].returncode == 0, err
    assert "dropped p20200529" in out
    monkeypatch.undo()
    # the loaded rows of p20200529 went with the partition; the others stay
    assert delta_partitions(h, "t") == {"p20200530": 2}
    h.at("2020-05-31 00:00:00")
    assert count_by_day(h, "t") == {"2020-05-30": 2}
    # the drop was one commit removing exactly what the load added to p20200529
    last = h.delta_versions()["d.t"]
    removes = [a["remove"] for a in h.delta_commit("d.t", last) if "remove" in a]
    adds = [a["add"] for a in h.delta_commit("d.t", last - 1) if "add" in a]
    assert {r["path"] for r in removes} == {a["path"] for a in adds if a["partitionValues"]["__partition"] == p29}
