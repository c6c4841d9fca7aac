"""The background scheduler as a list of jobs: a second job next to the dynamic partition
scheduler, each on its own interval and switch, over a real engine and warehouse."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import pytest

from dorisql.clock import FixedClock, parse_now
from dorisql.config import Config
from dorisql.engine import Engine
from dorisql.jobs.runner import BackgroundScheduler, Job
from dorisql.jobs.scheduler import DYNAMIC_PARTITIONS, default_jobs

from .conftest import dynamic_table

DYN = DYNAMIC_PARTITIONS.name


@dataclass
class CountReport:
    """What the test job reports: the tables it saw in the catalog."""

    tables: int
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return False

    def summary(self) -> str:
        return f"table count: {self.tables}"

    def details(self) -> list[str]:
        return []


def count_tables(engine) -> CountReport:
    return CountReport(len(engine.catalog.list_table_metas()))


class Switch:
    def __init__(self, on: bool = True):
        self.on = on

    def __call__(self, engine) -> bool:
        return self.on


def counter_job(
    name: str = "table_count", *, interval: float = 0.05, run=count_tables, enabled=None, needs_spark: bool = False
) -> Job:
    return Job(
        name=name,
        title=f"{name} job",
        run=run,
        interval=lambda engine: interval,
        enabled=enabled or Switch(True),
        needs_spark=needs_spark,
    )


@pytest.fixture
def start(h):
    """start(jobs, **kw) -> (scheduler, [its engine]); stopped after the test."""
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("t", time_unit="DAY", start=-1, end=1))
    h.clock = FixedClock(parse_now("2020-05-29 10:00:00"))
    started: list[BackgroundScheduler] = []
    engines: list[Engine] = []

    def make_engine() -> Engine:
        engines.append(Engine(Config(warehouse=str(h.warehouse)), clock=h.clock))
        return engines[-1]

    def run(jobs, **kw):
        sched = BackgroundScheduler(make_engine, jobs, **kw).start()
        started.append(sched)
        return sched, engines

    yield run
    for sched in started:
        sched.stop()
        assert not sched.running


def test_a_second_job_runs_on_its_own_interval_and_on_trigger(h, start):
    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_check_interval_seconds" = "3600")')
    messages: list[str] = []
    sched, engines = start(default_jobs() + [counter_job()], report=messages.append)
    assert sched.wait_for_passes(5, job="table_count")
    # the dynamic partition pass ran once, at the start; its next pass is an hour away
    assert sched.runs[DYN] == 1 and h.names("t") == ["p20200529", "p20200530"]
    assert sched.last_report is not None and messages == []

    h.clock.advance(days=1)
    sched.trigger(DYN)
    assert sched.wait_for_passes(2, job=DYN)
    assert h.names("t") == ["p20200529", "p20200530", "p20200531"]
    assert messages == ["dynamic partitions: 1 tables checked, 1 partitions created, 0 dropped"]

    h.clock.advance(days=1)
    before = dict(sched.runs)
    sched.trigger()  # every job
    assert sched.wait_for_passes(before[DYN] + 1, job=DYN)
    assert sched.wait_for_passes(before["table_count"] + 1, job="table_count")
    assert h.names("t") == ["p20200530", "p20200531", "p20200601"]
    # neither job needs Spark: the scheduler's engine never started it
    assert len(engines) == 1 and not engines[0].spark_started and sched.last_error is None

    with pytest.raises(ValueError, match="unknown job 'nope'"):
        sched.trigger("nope")


def test_enable_switches(h, start):
    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "false")')
    switch = Switch(True)
    h.clock.advance(days=1)
    sched, _ = start(default_jobs() + [counter_job(enabled=switch)])
    assert sched.wait_for_passes(3, job="table_count")
    # FE switch off: the dynamic partition job is skipped, the table is not aged
    assert sched.runs[DYN] == 0 and h.names("t") == ["p20200529", "p20200530"]

    h.sql('ADMIN SET FRONTEND CONFIG ("dynamic_partition_enable" = "true")')
    sched.trigger(DYN)
    assert sched.wait_for_passes(1, job=DYN)
    assert h.names("t") == ["p20200529", "p20200530", "p20200531"]

    switch.on = False
    # a round that started before the switch may still run it; the one after cannot
    assert sched.wait_for_passes(sched.passes + 2)
    count = sched.runs["table_count"]
    assert sched.wait_for_passes(sched.passes + 3)
    assert sched.runs["table_count"] == count
    switch.on = True
    assert sched.wait_for_passes(count + 1, job="table_count")


def test_a_failing_job_does_not_stop_the_others(h, start):
    def boom(engine):
        raise RuntimeError("boom")

    messages: list[str] = []
    h.clock.advance(days=1)
    sched, _ = start([counter_job("broken", run=boom)] + default_jobs() + [counter_job()], report=messages.append)
    assert sched.wait_for_passes(3, job="broken") and sched.wait_for_passes(3, job="table_count")
    assert sched.runs[DYN] == 1 and h.names("t") == ["p20200529", "p20200530", "p20200531"]
    assert sched.running and isinstance(sched.last_error, RuntimeError)
    assert "broken job failed: boom" in messages
    assert isinstance(sched.last_report, CountReport)


def test_a_job_that_needs_spark_runs_after_the_catalog_jobs(tmp_path, spark):
    from dorisql.jobs.scheduler import run_pass

    order: list[str] = []
    done = threading.Event()

    def spark_rows(engine) -> CountReport:
        order.append("spark")
        rows = engine.spark.range(7).count()
        done.set()
        return CountReport(rows)

    def dynamic(engine):
        order.append("dynamic")
        return run_pass(engine)

    jobs = [
        counter_job("spark_rows", run=spark_rows, interval=3600, needs_spark=True),
        counter_job("dynamic", run=dynamic, interval=3600),
    ]
    sched = BackgroundScheduler(lambda: Engine(Config(warehouse=str(tmp_path / "wh")), spark=spark), jobs).start()
    try:
        assert sched.wait_for_passes(1)
    finally:
        sched.stop()
    assert done.is_set() and order == ["dynamic", "spark"]
    assert sched.last_report == CountReport(7) and sched.last_error is None
