"""Doris's dynamic partition scheduler: a pass over every dynamic table, in the shell's
background or from `dorisql scheduler` (cron: --once; service: without)."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable

from dorisql import ast
from dorisql.errors import DorisqlError
from dorisql.partitioning import dynamic
from dorisql.result import Result

from . import partitions as parts

#: Catalog key of the time of the last complete scheduler pass (shown as LastSchedulerTime).
LAST_PASS_KEY = "dorisql.dynamic_scheduler.last_pass"
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


@dataclass
class PassReport:
    tables: int = 0
    created: dict[str, list[str]] = field(default_factory=dict)
    dropped: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        made = sum(len(v) for v in self.created.values())
        gone = sum(len(v) for v in self.dropped.values())
        text = f"dynamic partitions: {self.tables} tables checked, {made} partitions created, {gone} dropped"
        if self.errors:
            text += f", {len(self.errors)} errors (" + "; ".join(f"{k}: {v}" for k, v in self.errors.items()) + ")"
        return text


def run_pass(engine) -> PassReport:
    """One pass over every table with dynamic partition rules (if dynamic_partition_enable)."""
    report = PassReport()
    if engine.frontend("dynamic_partition_enable") != "true":
        return report
    for meta in engine.catalog.list_table_metas():
        if not dynamic.has_dynamic_properties(ast.props(meta.definition.properties)):
            continue
        report.tables += 1
        name = f"{meta.db}.{meta.name}"
        try:
            _meta, created, dropped = parts.run_dynamic_pass(engine, meta)
        except Exception as exc:  # one broken table must not stop the pass for the others
            report.errors[name] = str(exc) if isinstance(exc, DorisqlError) else f"{type(exc).__name__}: {exc}"
            continue
        if created:
            report.created[name] = created
        if dropped:
            report.dropped[name] = dropped
    engine.catalog.set_config(LAST_PASS_KEY, engine.now().strftime(_TIME_FORMAT))
    return report


def dynamic_rows(engine, db: str) -> Result:
    """SHOW DYNAMIC PARTITION TABLES [FROM db]."""
    last_pass_text = engine.catalog.get_config(LAST_PASS_KEY, None)
    last_pass = dt.datetime.strptime(last_pass_text, _TIME_FORMAT) if last_pass_text else None
    rows = []
    for name in engine.catalog.list_tables(db):
        meta = engine.catalog.load_table(db, name)
        props = parts.dynamic_properties(engine, meta.definition)
        if props is None:
            continue
        state = meta.dynamic_state
        if last_pass is not None and props.enable and (state.last_scheduler_time is None
                                                       or state.last_scheduler_time < last_pass):
            state = dataclasses.replace(state, last_scheduler_time=last_pass)
        buckets = meta.definition.distribution.buckets if meta.definition.distribution else None
        rows.append(tuple(dynamic.format_show_row(meta.name, props, state, buckets=buckets)))
    return Result.table(dynamic.show_columns(), rows)


class BackgroundScheduler:
    """Runs a pass every dynamic_partition_check_interval_seconds on a daemon thread (Doris's
    DynamicPartitionScheduler FE daemon). The interval is read again after every pass, so
    ``ADMIN SET FRONTEND CONFIG ("dynamic_partition_check_interval_seconds" = "...")`` takes effect
    from the next wait. ``engine_factory`` is called on the thread (a catalog connection belongs to
    its thread); the engine it returns never needs Spark for a pass.
    """

    def __init__(self, engine_factory: Callable[[], object], report: Callable[[str], None] | None = None,
                 interval: float | None = None):
        self._engine_factory = engine_factory
        self._report = report
        self._interval = interval
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._done = threading.Condition()
        self.passes = 0
        self.last_report: PassReport | None = None
        self.last_error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="dynamic-partition-scheduler", daemon=True)

    def start(self) -> "BackgroundScheduler":
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 10.0) -> None:
        """Ask the thread to finish (after the pass in progress, if any) and wait for it."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def trigger(self) -> None:
        """Run the next pass now instead of at the end of the interval."""
        self._wake.set()

    def wait_for_passes(self, count: int, timeout: float = 30.0) -> bool:
        """Block until at least ``count`` passes have completed (tests, shell)."""
        with self._done:
            return self._done.wait_for(lambda: self.passes >= count, timeout)

    def _interval_seconds(self, engine) -> float:
        if self._interval is not None:
            return self._interval
        try:
            return max(float(engine.frontend("dynamic_partition_check_interval_seconds")), 1.0)
        except Exception:  # an unreadable setting must not stop the scheduler
            return float(dynamic.DYNAMIC_PARTITION_CHECK_INTERVAL_SECONDS)

    def _loop(self) -> None:
        engine = None
        try:
            engine = self._engine_factory()
            while not self._stop.is_set():
                try:
                    report = run_pass(engine)
                    self.last_report = report
                    if self._report and (report.created or report.dropped or report.errors):
                        self._report(report.summary())
                except Exception as exc:  # never let the background thread die or disturb the prompt
                    self.last_error = exc
                    if self._report:
                        self._report(f"dynamic partition scheduler failed: {exc}")
                with self._done:
                    self.passes += 1
                    self._done.notify_all()
                self._wake.wait(self._interval_seconds(engine))
                self._wake.clear()
        except Exception as exc:
            self.last_error = exc
            if self._report:
                self._report(f"dynamic partition scheduler could not start: {exc}")
        finally:
            close = getattr(engine, "close", None)
            if close is not None:
                close()


def main(argv: list[str] | None = None, config=None) -> int:
    """`dorisql scheduler [--once] [--now 'YYYY-MM-DD HH:MM:SS'] [--warehouse DIR]`.

    ``config``: the shell's already loaded configuration (``dorisql --warehouse DIR scheduler``);
    ``--warehouse`` given here wins over it."""
    from dorisql.clock import FixedClock, parse_now
    from dorisql.config import load_config

    from .session import Engine

    parser = argparse.ArgumentParser(prog="dorisql scheduler",
                                     description="Run Doris's dynamic partition scheduler over a warehouse.")
    parser.add_argument("--once", action="store_true", help="run one pass and exit (for cron)")
    parser.add_argument("--now", help="pretend the current time is this ('YYYY-MM-DD HH:MM:SS')")
    parser.add_argument("--warehouse", help="warehouse folder (default: config, $DORISQL_WAREHOUSE, ./warehouse)")
    parser.add_argument("--master", help="Spark master URL")
    args = parser.parse_args(argv)
    if config is None:
        config = load_config()
    if args.warehouse:
        config.warehouse = args.warehouse
    if args.master:
        config.master = args.master
    try:
        clock = FixedClock(parse_now(args.now)) if args.now else None
    except ValueError as exc:
        parser.error(str(exc))
    engine = Engine(config, clock=clock)
    try:
        while True:
            report = run_pass(engine)
            print(report.summary(), flush=True)
            for table, names in report.created.items():
                print(f"  {table}: created {', '.join(names)}")
            for table, names in report.dropped.items():
                print(f"  {table}: dropped {', '.join(names)}")
            for table, message in report.errors.items():
                print(f"  {table}: error: {message}", file=sys.stderr)
            if args.once:
                return 1 if report.errors else 0
            threading.Event().wait(int(engine.frontend("dynamic_partition_check_interval_seconds")))
    except KeyboardInterrupt:
        return 0
    finally:
        engine.close()


if __name__ == "__main__":
    sys.exit(main())
