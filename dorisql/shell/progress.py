"""Progress of a long statement: one updating line such as
``[Stage 3: 1/2 tasks, 1 running] 1,302,440 rows processed, 2,000,000 rows written (95.3 MB) - 34 s``.

A thread polls Spark while the statement runs (only once Spark has started: it never starts
Spark itself) and shows the latest engine progress message, if any. Nothing is drawn for
statements that finish within `delay` seconds.

Where the numbers come from:

- tasks: PySpark's public status tracker (``SparkContext.statusTracker()``), which knows task
  counts only. A stage of two tasks shows 0/2 until a task ends, so the line also says how
  long the statement has run and how many rows it has processed.
- rows processed: the "number of output rows" SQL metrics of the running query, which
  executors report with their heartbeats while tasks run; rows and bytes written: the output
  metrics of the active stages, counted as their tasks finish. PySpark has no public source
  for either: both come from Spark's status store, the data behind its REST status API
  (`org.apache.spark.status.api.v1.StageData`), which dorisql reads through the JVM
  (`dorisql.storage.spark.status_store`, the one private door) because it runs Spark without
  the web UI that serves that API. When Spark cannot answer, the line shows the task counts
  alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TextIO

from dorisql.engine import Engine
from dorisql.storage.spark import status_store

#: The running queries' SQL metrics looked at (the newest executions; older ones are done).

RECENT_EXECUTIONS = 4
ROWS_METRIC = "number of output rows"


@dataclass(frozen=True)
class StageProgress:
    stage_id: int
    done: int
    total: int
    running: int = 0


@dataclass(frozen=True)
class Progress:
    """What Spark says about the running statement."""

    stages: tuple[StageProgress, ...] = ()
    rows_processed: int = 0
    rows_written: int = 0
    bytes_written: int = 0


def format_bytes(n: int) -> str:
    """``512 B``, ``3.4 KB``, ``95.3 MB``, ``1.2 GB`` (powers of 1024, as Doris's SHOW DATA)."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def format_progress(progress: Progress | None, elapsed: float, message: str | None = None) -> str | None:
    """The progress line's text (pure: golden-tested without Spark)."""
    parts = []
    if progress is not None and progress.stages:
        stages = "] [".join(
            f"Stage {s.stage_id}: {s.done}/{s.total} tasks" + (f", {s.running} running" if s.running else "")
            for s in progress.stages
        )
        parts.append(f"[{stages}]")
    if progress is not None:
        counts = []
        if progress.rows_processed:
            counts.append(f"{progress.rows_processed:,} rows processed")
        if progress.rows_written or progress.bytes_written:
            counts.append(f"{progress.rows_written:,} rows written ({format_bytes(progress.bytes_written)})")
        if counts:
            parts.append(", ".join(counts))
    if message:
        parts.append(message)
    if not parts:
        return None
    return " ".join(parts) + f" - {int(elapsed)} s"


class SparkProgress:
    """Polls one SparkSession for the running statement's progress."""

    def __init__(self) -> None:
        #: Accumulator ids of each SQL execution's row-count metrics (asked once per execution).
        self._row_metrics: dict[int, set[int]] = {}

    def __call__(self, engine: Engine) -> Progress | None:
        spark = getattr(engine, "running_spark", None)
        if spark is None:
            return None
        try:
            stages = _stages(spark.sparkContext.statusTracker())
        except Exception:  # Spark stopping or between jobs: no progress to show
            return None
        if not stages:
            return Progress()
        written = _written(spark)
        return Progress(
            stages=stages, rows_processed=self._rows_processed(spark), rows_written=written[0], bytes_written=written[1]
        )

    def _rows_processed(self, spark) -> int:
        """The largest row count of any operator of the running queries: the rows read so far."""
        try:
            store = status_store(spark, sql=True)
            count = store.executionsCount()
            recent = store.executionsList(max(0, count - RECENT_EXECUTIONS), RECENT_EXECUTIONS)
            rows = 0
            for i in range(recent.size()):
                execution = recent.apply(i)
                if execution.completionTime().isDefined():
                    continue
                ids = self._row_metric_ids(execution)
                values = store.executionMetrics(execution.executionId()).iterator()
                while values.hasNext():
                    entry = values.next()
                    if entry._1() in ids:
                        rows = max(rows, _count(entry._2()))
            return rows
        except Exception:  # a Spark without these internals: no row count
            return 0

    def _row_metric_ids(self, execution) -> set[int]:
        key = execution.executionId()
        if key not in self._row_metrics:
            metrics = execution.metrics()
            found = set()
            for j in range(metrics.size()):
                metric = metrics.apply(j)
                if metric.name() == ROWS_METRIC:
                    found.add(metric.accumulatorId())
            self._row_metrics[key] = found
        return self._row_metrics[key]


def _stages(tracker) -> tuple[StageProgress, ...]:
    found = []
    for stage_id in sorted(tracker.getActiveStageIds()):
        info = tracker.getStageInfo(stage_id)
        if info is not None:
            found.append(StageProgress(stage_id, info.numCompletedTasks, info.numTasks, info.numActiveTasks))
    return tuple(found)


def _written(spark) -> tuple[int, int]:
    """Rows and bytes the active stages' finished tasks wrote."""
    try:
        stages = status_store(spark).activeStages()
        rows = size = 0
        for i in range(stages.size()):
            stage = stages.apply(i)
            rows += stage.outputRecords()
            size += stage.outputBytes()
        return rows, size
    except Exception:  # a Spark without these internals: nothing written to show
        return 0, 0


def _count(text: str) -> int:
    try:
        return int(str(text).replace(",", "").strip())
    except ValueError:
        return 0


class ProgressLine:
    """Draws and clears one status line on `out` while a statement runs."""

    def __init__(
        self,
        engine: Engine,
        out: TextIO,
        *,
        delay: float = 0.7,
        interval: float = 0.5,
        poll: Callable[[object], Progress | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.engine = engine
        self.out = out
        self.delay = delay
        self.interval = interval
        self.poll = poll or SparkProgress()
        self.clock = clock
        self.message: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = 0
        self._lock = threading.Lock()
        self._started = clock()

    def note(self, message: str) -> None:
        """An engine progress message (engine.on_progress callback)."""
        self.message = message

    def __enter__(self) -> ProgressLine:
        self._stop.clear()
        self._started = self.clock()
        self._thread = threading.Thread(target=self._run, name="dorisql-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.clear()

    def clear(self) -> None:
        with self._lock:
            if self._shown:
                self.out.write("\r" + " " * self._shown + "\r")
                self.out.flush()
                self._shown = 0

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            text = format_progress(self.poll(self.engine), self.clock() - self._started, self.message)
            if text:
                self._draw(text)
            self._stop.wait(self.interval)

    def _draw(self, text: str) -> None:
        with self._lock:
            if self._stop.is_set():
                return
            text = text[:200]
            pad = max(0, self._shown - len(text))
            self.out.write("\r" + text + " " * pad)
            self.out.flush()
            self._shown = len(text)


def wait_with_progress(
    future,
    line: ProgressLine,
    on_interrupt: Callable[[], None],
    on_stuck: Callable[[], None] | None = None,
    stuck_after: float = 3.0,
) -> object:
    """Wait for `future`; Ctrl-C calls `on_interrupt` (cancel) and keeps waiting for the outcome.

    If the statement is still running `stuck_after` seconds after a Ctrl-C (or at a second
    Ctrl-C), `on_stuck` is called once: the harder way to stop it.
    """
    interrupted_at: float | None = None
    escalated = False
    with line:
        while True:
            try:
                return future.result(timeout=0.1)
            except FutureTimeout:
                if (
                    interrupted_at is not None
                    and not escalated
                    and on_stuck is not None
                    and time.monotonic() - interrupted_at > stuck_after
                ):
                    escalated = True
                    on_stuck()
                continue
            except KeyboardInterrupt:
                line.clear()
                if interrupted_at is None:
                    interrupted_at = time.monotonic()
                    on_interrupt()
                elif not escalated and on_stuck is not None:
                    escalated = True
                    on_stuck()
