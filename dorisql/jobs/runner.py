"""Frontend background jobs (Doris's FE daemons): each job runs one pass over the warehouse every
so often. The same list runs in the shell's background, as ``dorisql scheduler`` and in a server.

- :class:`Job` -- a name, a pass (``run(engine) -> JobReport``), its interval and enable switch
  (both read from the engine after every pass, so ``ADMIN SET FRONTEND CONFIG`` takes effect
  from the next wait) and whether it needs Spark.
- :func:`run_job` -- one pass of one job, now, in the caller's thread (``--once``, ``--job``).
- :class:`Timetable` -- when each job is due (pure; the caller passes the time).
- :class:`BackgroundScheduler` -- runs a list of jobs on one daemon thread.

A job that needs Spark takes it from ``engine.spark`` (started on first use). Jobs that do not
never cause Spark to start, and run first in a round, so a Spark start or a long Spark pass never
delays them. A failing job, or a job that fails for one table, never stops the others.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from dorisql.session.session import Session

#: Seconds to the next pass of a job whose interval setting cannot be read (Doris's default
#: dynamic_partition_check_interval_seconds): a broken setting must not stop the scheduler.

FALLBACK_INTERVAL_SECONDS = 600.0


class JobReport(Protocol):
    """What one pass of a job did."""

    @property
    def errors(self) -> Mapping[str, str]:
        """Per object that failed (e.g. ``db.table``): the message. The others were done."""

    @property
    def changed(self) -> bool:
        """Whether the pass changed anything (a shell reports only such passes, and errors)."""

    def summary(self) -> str:
        """One line: what was checked and done."""

    def details(self) -> list[str]:
        """One line per change, for ``dorisql scheduler``'s log."""


def _always(session: Session) -> bool:
    return True


@dataclass(frozen=True)
class Job:
    #: ``dorisql scheduler --job NAME``, ``BackgroundScheduler.trigger(NAME)``.
    name: str
    #: How messages name it: "dynamic partition scheduler".
    title: str
    #: One pass over the warehouse. Failures of single tables belong in the report's errors.
    run: Callable[[Session], JobReport]
    #: Seconds from the end of a pass to the next one; read after every pass.
    interval: Callable[[Session], float]
    #: Read before every pass; a disabled job is skipped until it is enabled again.
    enabled: Callable[[Session], bool] = _always
    #: The pass uses ``engine.spark``. The scheduler starts Spark in the background ahead of
    #: such a pass and runs it after the jobs that do not need Spark.
    needs_spark: bool = False


def frontend_interval(setting: str, *, minimum: float = 1.0) -> Callable[[Session], float]:
    """An interval read from a frontend setting (seconds), never below ``minimum``."""

    def read(session: Session) -> float:
        return max(float(session.frontend(setting)), minimum)

    return read


def frontend_switch(setting: str) -> Callable[[Session], bool]:
    """An enable switch read from a boolean frontend setting."""

    def read(session: Session) -> bool:
        return session.frontend(setting) == "true"

    return read


@dataclass(frozen=True)
class JobRun:
    """The outcome of one attempt to run a job: its report, or it was disabled, or it failed."""

    job: Job
    report: JobReport | None = None
    error: Exception | None = None

    @property
    def disabled(self) -> bool:
        return self.report is None and self.error is None

    @property
    def failed(self) -> bool:
        return self.error is not None or bool(self.report is not None and self.report.errors)

    def message(self) -> str | None:
        """What a shell shows: a failure, or the summary of a pass that changed something."""
        if self.error is not None:
            return f"{self.job.title} failed: {self.error}"
        if self.report is not None and (self.report.changed or self.report.errors):
            return self.report.summary()
        return None


def check_enabled(job: Job, session: Session) -> JobRun | None:
    """None when the job is enabled; else its (disabled or failed) run."""
    try:
        return None if job.enabled(session) else JobRun(job)
    except Exception as exc:  # an unreadable switch fails this job, not the scheduler
        return JobRun(job, error=exc)


def run_enabled(job: Job, session: Session) -> JobRun:
    try:
        return JobRun(job, report=job.run(session))
    except Exception as exc:  # one broken job must not stop the others
        return JobRun(job, error=exc)


def run_job(job: Job, session: Session) -> JobRun:
    """One pass of ``job`` now, if it is enabled."""
    return check_enabled(job, session) or run_enabled(job, session)


class Timetable:
    """When each job is due next. Pure: every method takes the current time (seconds on a
    monotonic clock). All jobs are due at the start; a job is due again ``interval`` seconds
    after its pass ended, or at once when triggered."""

    def __init__(self, names: Sequence[str], now: float):
        self._next = {name: now for name in names}
        self._asked: set[str] = set()

    def trigger(self, name: str | None = None) -> None:
        """Make one job (or all) due now."""
        if name is not None and name not in self._next:
            raise ValueError(f"unknown job {name!r} (jobs: {', '.join(self._next)})")
        self._asked.update(self._next if name is None else (name,))

    def due(self, now: float) -> list[str]:
        """The jobs to run now, in list order. Their triggers are used up: a trigger that comes
        while they run makes them due again."""
        names = [n for n, at in self._next.items() if n in self._asked or at <= now]
        self._asked.difference_update(names)
        return names

    def done(self, name: str, now: float, interval: float) -> None:
        self._next[name] = now + interval

    def wait(self, now: float) -> float | None:
        """Seconds until the next job is due (0: one is due now; None: no jobs)."""
        if self._asked:
            return 0.0
        if not self._next:
            return None
        return max(min(self._next.values()) - now, 0.0)


class BackgroundScheduler:
    """Runs ``jobs`` on a daemon thread, each on its own interval (Doris's FE daemons).

    ``engine_factory`` is called on the thread (a catalog connection belongs to its thread); the
    engine starts Spark only for jobs that need it. ``report`` receives what a shell should show
    (failures, passes that changed something); ``on_run`` receives every :class:`JobRun`.
    ``interval`` overrides every job's interval (tests).

    ``passes`` counts rounds (a round runs every job due at that moment); ``runs[name]`` counts
    the passes of one job that were attempted while it was enabled.
    """

    def __init__(
        self,
        engine_factory: Callable[[], Session],
        jobs: Sequence[Job],
        *,
        report: Callable[[str], None] | None = None,
        on_run: Callable[[JobRun], None] | None = None,
        interval: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ):
        names = [job.name for job in jobs]
        if len(set(names)) != len(names):
            raise ValueError(f"job names must be unique: {names}")
        self.jobs: dict[str, Job] = {job.name: job for job in jobs}
        self._engine_factory = engine_factory
        self._report = report
        self._on_run = on_run
        self._interval = interval
        self._monotonic = monotonic
        self._timetable = Timetable(names, monotonic())
        self._lock = threading.Lock()  # guards the timetable (trigger() comes from other threads)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._done = threading.Condition()
        self.passes = 0
        self.runs: dict[str, int] = {name: 0 for name in names}
        self.last_report: JobReport | None = None
        self.last_error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="dorisql-scheduler", daemon=True)

    # ------------------------------------------------------------------ control

    def start(self) -> BackgroundScheduler:
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 10.0) -> None:
        """Ask the thread to finish (after the pass in progress, if any) and wait for it."""
        self._stop.set()
        self._wake.set()
        self.join(timeout)

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (it ends only after :meth:`stop`, or if it cannot start)."""
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def trigger(self, job: str | None = None) -> None:
        """Run one job (by name), or every job, now instead of at the end of its interval."""
        with self._lock:
            self._timetable.trigger(job)
        self._wake.set()

    def wait_for_passes(self, count: int, timeout: float = 30.0, job: str | None = None) -> bool:
        """Block until at least ``count`` rounds (or passes of ``job``) have completed."""
        if job is not None and job not in self.runs:
            raise ValueError(f"unknown job {job!r}")
        with self._done:
            return self._done.wait_for(lambda: (self.passes if job is None else self.runs[job]) >= count, timeout)

    # ------------------------------------------------------------------ the thread

    def _loop(self) -> None:
        try:
            session = self._engine_factory()
        except Exception as exc:
            self.last_error = exc
            if self._report:
                self._report(f"scheduler could not start: {exc}")
            return
        try:
            while not self._stop.is_set():
                self._wake.clear()  # before reading the timetable: a later trigger() wakes the wait
                with self._lock:
                    due = self._timetable.due(self._monotonic())
                if due:
                    self._round(session, [self.jobs[name] for name in due])
                with self._lock:
                    wait = self._timetable.wait(self._monotonic())
                if wait is None or wait > 0:
                    self._wake.wait(wait)
        finally:
            close = getattr(session, "close", None)
            if close is not None:
                close()

    def _round(self, session: Session, due: list[Job]) -> None:
        ready = []
        for job in sorted(due, key=lambda j: j.needs_spark):  # stable: list order otherwise
            skipped = check_enabled(job, session)
            if skipped is None:
                ready.append(job)
            else:
                self._finish(session, skipped)
        if any(job.needs_spark for job in ready):
            session.start_spark_in_background()  # warms up while the catalog-only jobs run
        for job in ready:
            if self._stop.is_set():
                break
            self._finish(session, run_enabled(job, session))
        with self._done:
            self.passes += 1
            self._done.notify_all()

    def _finish(self, session: Session, run: JobRun) -> None:
        job = run.job
        if run.report is not None:
            self.last_report = run.report
        if run.error is not None:
            self.last_error = run.error
        message = run.message()
        try:
            if self._report is not None and message is not None:
                self._report(message)
            if self._on_run is not None:
                self._on_run(run)
        except Exception:  # a broken listener must not stop the jobs
            pass
        interval = self._interval
        if interval is None:
            try:
                interval = job.interval(session)
            except Exception:  # an unreadable setting must not stop the scheduler
                interval = FALLBACK_INTERVAL_SECONDS
        with self._lock:
            self._timetable.done(job.name, self._monotonic(), interval)
        if not run.disabled:
            with self._done:
                self.runs[job.name] += 1
                self._done.notify_all()
