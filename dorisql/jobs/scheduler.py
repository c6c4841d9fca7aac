"""The frontend's background jobs and the ``dorisql scheduler`` command (cron: ``--once``;
service: without): Doris's dynamic partition scheduler, a pass over every dynamic table
(``run_pass``, here), the trash job (its pass: dorisql.statements.admin.trash) and compaction (its
pass: dorisql.compaction.service). How jobs are run: :mod:`dorisql.jobs.runner`."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from dorisql import ast
from dorisql.clock import FixedClock, parse_now
from dorisql.compaction.service import run_pass as run_compaction_pass
from dorisql.config import Config, load_config
from dorisql.errors import DamagedTableError, DorisqlError, ReadOnlyWarehouseError
from dorisql.jobs.runner import BackgroundScheduler, Job, JobRun, frontend_interval, frontend_switch, run_job
from dorisql.partitioning import dynamic
from dorisql.session.session import Session
from dorisql.statements.admin.trash import run_trash_pass
from dorisql.statements.ddl import partitions as parts
from dorisql.statements.ddl.partitions import LAST_PASS_FORMAT, LAST_PASS_KEY


@dataclass
class PassReport:
    tables: int = 0
    created: dict[str, list[str]] = field(default_factory=dict)
    dropped: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.created or self.dropped)

    def details(self) -> list[str]:
        return [f"{table}: created {', '.join(names)}" for table, names in self.created.items()] + [
            f"{table}: dropped {', '.join(names)}" for table, names in self.dropped.items()
        ]

    def summary(self) -> str:
        made = sum(len(v) for v in self.created.values())
        gone = sum(len(v) for v in self.dropped.values())
        text = f"dynamic partitions: {self.tables} tables checked, {made} partitions created, {gone} dropped"
        if self.errors:
            text += f", {len(self.errors)} errors (" + "; ".join(f"{k}: {v}" for k, v in self.errors.items()) + ")"
        return text


def run_pass(session: Session) -> PassReport:
    """One pass over every table with dynamic partition rules (if dynamic_partition_enable)."""
    report = PassReport()
    if session.frontend("dynamic_partition_enable") != "true":
        return report
    if session.catalog.read_only:  # nothing can be created or dropped; say so once, not per table
        report.errors["warehouse"] = str(ReadOnlyWarehouseError(session.warehouse))
        return report
    damaged: list[DamagedTableError] = []
    for meta in session.catalog.list_table_metas(damaged=damaged):
        props = ast.props(meta.definition.properties)
        if not dynamic.has_dynamic_properties(props) and "partition.retention_count" not in map(str.lower, props):
            continue
        report.tables += 1
        name = f"{meta.db}.{meta.name}"
        try:
            _meta, created, dropped = parts.run_dynamic_pass(session, meta)
        except Exception as exc:  # one broken table must not stop the pass for the others
            report.errors[name] = str(exc) if isinstance(exc, DorisqlError) else f"{type(exc).__name__}: {exc}"
            continue
        if created:
            report.created[name] = created
        if dropped:
            report.dropped[name] = dropped
    for damage in damaged:  # reported, and the other tables were rolled all the same
        report.errors[f"{damage.db}.{damage.name}"] = str(damage)
    session.catalog.set_config(LAST_PASS_KEY, session.now().strftime(LAST_PASS_FORMAT))
    return report


#: Doris's DynamicPartitionScheduler: catalog and Delta log only, no Spark.
DYNAMIC_PARTITIONS = Job(
    name="dynamic_partition",
    title="dynamic partition scheduler",
    run=run_pass,
    interval=frontend_interval("dynamic_partition_check_interval_seconds"),
    enabled=frontend_switch("dynamic_partition_enable"),
)


#: The frontend's trash daemon (Doris: the recycle bin daemon plus the BE trash sweeper).
TRASH = Job(
    name="trash",
    title="trash",
    run=run_trash_pass,
    interval=frontend_interval("trash_check_interval_seconds"),
    enabled=frontend_switch("trash_enable"),
)


def _auto_compaction_on(session: Session) -> bool:
    return session.frontend("disable_auto_compaction") != "true"


#: Doris's compaction producer (dorisql.compaction.service.run_pass).
COMPACTION = Job(
    name="compaction",
    title="compaction",
    run=run_compaction_pass,
    interval=frontend_interval("compaction_check_interval_seconds"),
    enabled=_auto_compaction_on,
    # Reads Delta logs to choose; Spark starts only when a tablet is to be compacted, so a
    # warehouse with nothing to compact never starts it (and the job runs with the catalog ones).
    needs_spark=False,
)


def default_jobs() -> list[Job]:
    """The frontend's background jobs, in the order a round runs them: the dynamic partition
    scheduler, then the trash job (statements.admin.trash), which deletes what the recycle bin let go, then
    compaction (dorisql.compaction.service), which merges the small files loads leave."""

    return [DYNAMIC_PARTITIONS, TRASH, COMPACTION]


def print_run(run: JobRun, *, show_disabled: bool = True) -> None:
    """``dorisql scheduler``'s log of one pass: the summary and each change on stdout, failures
    on stderr."""
    if run.error is not None:
        print(f"{run.job.title} failed: {run.error}", file=sys.stderr, flush=True)
    elif run.report is None:
        if show_disabled:
            print(f"{run.job.title}: disabled", flush=True)
    else:
        print(run.report.summary(), flush=True)
        for line in run.report.details():
            print(f"  {line}", flush=True)
        for name, message in run.report.errors.items():
            print(f"  {name}: error: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None, config: Config | None = None) -> int:
    """`dorisql scheduler [--once] [--job NAME] [--now 'YYYY-MM-DD HH:MM:SS'] [--warehouse DIR]`.

    ``config``: the shell's already loaded configuration (``dorisql --warehouse DIR scheduler``);
    ``--warehouse`` given here wins over it."""

    jobs = default_jobs()
    parser = argparse.ArgumentParser(
        prog="dorisql scheduler", description="Run dorisql's frontend background jobs over a warehouse."
    )
    parser.add_argument("--once", action="store_true", help="run every enabled job once and exit (for cron)")
    parser.add_argument("--job", choices=[job.name for job in jobs], help="run only this job")
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
    selected = [job for job in jobs if args.job in (None, job.name)]
    if args.once:
        session = Session(config, clock=clock)
        try:
            runs = [run_job(job, session) for job in sorted(selected, key=lambda j: j.needs_spark)]
        finally:
            session.close()
        for run in runs:
            print_run(run)
        return 1 if any(run.failed for run in runs) else 0
    scheduler = BackgroundScheduler(
        lambda: Session(config, clock=clock), selected, on_run=lambda run: print_run(run, show_disabled=False)
    )
    scheduler.start()
    try:
        while scheduler.running:
            scheduler.join(1.0)
    except KeyboardInterrupt:
        scheduler.stop()
        return 0
    print(f"dorisql scheduler: could not start: {scheduler.last_error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
