"""The scheduler as people run it: in the shell's background thread, as `dorisql scheduler`,
and the example script through `dorisql -f`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from dorisql.clock import FixedClock, parse_now
from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.jobs.runner import BackgroundScheduler
from dorisql.jobs.scheduler import default_jobs

from .conftest import Harness, dynamic_table

ROOT = Path(__file__).resolve().parents[2]
DORISQL = str(Path(sys.executable).with_name("dorisql"))


def _run(*args, timeout=120):
    env = {**os.environ, "XDG_CONFIG_HOME": "/nonexistent-dorisql-test"}
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, env=env)


def test_background_scheduler_runs_every_interval(h):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1))
    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_check_interval_seconds" = "1")')
    clock = FixedClock(parse_now("2020-05-29 10:00:00"))
    messages: list[str] = []
    warehouse = str(h.warehouse)
    sched = BackgroundScheduler(
        lambda: Engine(Config(warehouse=warehouse), clock=clock), default_jobs(), report=messages.append
    )
    sched.start()
    try:
        assert sched.wait_for_passes(1, timeout=30)
        assert h.names("t") == ["p20200529", "p20200530"] and messages == []
        clock.advance(days=1)
        # the next pass comes by itself within the 1 s interval
        assert sched.wait_for_passes(sched.passes + 2, timeout=30)
        assert h.names("t") == ["p20200529", "p20200530", "p20200531"]
        clock.advance(days=1)
        sched.trigger()
        assert sched.wait_for_passes(sched.passes + 1, timeout=30)
        assert h.names("t") == ["p20200530", "p20200531", "p20200601"]
        assert any("created" in m for m in messages) and sched.last_error is None
    finally:
        sched.stop()
    assert not sched.running


def test_background_scheduler_survives_a_failing_pass(tmp_path):
    calls = []

    class Broken:
        def frontend(self, name):
            calls.append(name)
            raise RuntimeError("catalog unavailable")

    messages: list[str] = []
    sched = BackgroundScheduler(Broken, default_jobs(), report=messages.append, interval=0.05).start()
    try:
        assert sched.wait_for_passes(3, timeout=10)
    finally:
        sched.stop()
    assert not sched.running and "catalog unavailable" in str(sched.last_error)
    assert messages and messages[0].startswith("dynamic partition scheduler failed")


def test_scheduler_command_once_twice(tmp_path):
    wh = tmp_path / "wh"
    h = Harness(Engine(Config(warehouse=str(wh))))
    h.sql("CREATE DATABASE d; USE d")
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("tbl1", time_unit="DAY", start=-7, end=3, buckets=32))
    h.engine.close()
    versions = h.delta_versions()

    first = _run(DORISQL, "--warehouse", str(wh), "scheduler", "--once", "--now", "2020-06-06 00:00:00")
    assert first.returncode == 0, first.stderr
    assert "1 tables checked, 4 partitions created, 1 dropped" in first.stdout
    assert "d.tbl1: created p20200606, p20200607, p20200608, p20200609" in first.stdout
    assert "d.tbl1: dropped p20200529" in first.stdout
    cat = h.catalog_versions()

    # python -m form, with --warehouse after the subcommand options
    second = _run(
        sys.executable,
        "-m",
        "dorisql.jobs.scheduler",
        "--once",
        "--now",
        "2020-06-06 00:00:00",
        "--warehouse",
        str(wh),
    )
    assert second.returncode == 0, second.stderr
    assert "0 partitions created, 0 dropped" in second.stdout
    assert h.delta_versions() == versions and h.catalog_versions() == cat
    fresh = Harness(Engine(Config(warehouse=str(wh))))
    fresh.sql("USE d")
    assert fresh.names("tbl1") == [
        "p20200530",
        "p20200531",
        "p20200601",
        "p20200606",
        "p20200607",
        "p20200608",
        "p20200609",
    ]
    assert fresh.dynamic_rows()["tbl1"]["LastSchedulerTime"] == "2020-06-06 00:00:00"


def test_scheduler_command_one_job_and_the_enable_switch(tmp_path):
    wh = tmp_path / "wh"
    h = Harness(Engine(Config(warehouse=str(wh))))
    h.sql("CREATE DATABASE d; USE d")
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1))
    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "false")')
    once = [
        DORISQL,
        "--warehouse",
        str(wh),
        "scheduler",
        "--once",
        "--job",
        "dynamic_partition",
        "--now",
        "2020-06-01 00:00:00",
    ]

    off = _run(*once)
    assert off.returncode == 0, off.stderr
    assert off.stdout == "dynamic partition scheduler: disabled\n"
    assert h.names("t") == ["p20200529", "p20200530"]

    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "true")')
    on = _run(*once)
    assert on.returncode == 0, on.stderr
    assert on.stdout.startswith("dynamic partitions: 1 tables checked, 2 partitions created, 2 dropped\n")
    assert h.names("t") == ["p20200601", "p20200602"]

    unknown = _run(DORISQL, "--warehouse", str(wh), "scheduler", "--once", "--job", "nope")
    assert unknown.returncode == 2 and "invalid choice: 'nope'" in unknown.stderr
    h.engine.close()


def test_example_script_with_the_real_command(tmp_path):
    script = ROOT / "examples" / "dynamic_partitions.sql"
    result = _run(DORISQL, "--warehouse", str(tmp_path / "wh"), "--format", "tsv", "-f", str(script))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    names = [m.group(1) for line in lines for m in [re.match(r"^\d+\t(p\d{8})\t", line)] if m]
    assert names == ["p20200529", "p20200530", "p20200531", "p20200601"]
    assert "[types: [DATE]; keys: [2020-05-29]; ..types: [DATE]; keys: [2020-05-30]; )" in result.stdout
    header = next(line for line in lines if line.startswith("TableName\t"))
    assert header.split("\t") == [
        "TableName",
        "Enable",
        "TimeUnit",
        "Start",
        "End",
        "Prefix",
        "Buckets",
        "StartOf",
        "LastUpdateTime",
        "LastSchedulerTime",
        "State",
        "LastCreatePartitionMsg",
        "LastDropPartitionMsg",
        "ReservedHistoryPeriods",
    ]
    row = next(line for line in lines if line.startswith("tbl1\t")).split("\t")
    assert row == [
        "tbl1",
        "true",
        "DAY",
        "-7",
        "3",
        "p",
        "32",
        "N/A",
        "N/A",
        "2020-05-29 10:00:00",
        "NORMAL",
        "N/A",
        "N/A",
        "NULL",
    ]
