"""Progress of a long statement: one updating line such as ``[Stage 3: 12/40 tasks]``.

A thread polls Spark's status tracker while the statement runs (only once Spark has started:
it never starts Spark itself) and shows the latest engine progress message, if any. Nothing
is drawn for statements that finish within `delay` seconds.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable, TextIO


def spark_progress(engine) -> str | None:
    """``[Stage 3: 12/40 tasks]`` for the running stages, or None."""
    if not getattr(engine, "spark_started", False):
        return None
    try:
        tracker = engine.spark.sparkContext.statusTracker()
        parts = []
        for stage_id in sorted(tracker.getActiveStageIds()):
            info = tracker.getStageInfo(stage_id)
            if info is None:
                continue
            parts.append(f"Stage {stage_id}: {info.numCompletedTasks}/{info.numTasks} tasks"
                         + (f" ({info.numActiveTasks} running)" if info.numActiveTasks else ""))
    except Exception:  # Spark stopping or between jobs: no progress to show
        return None
    return "[" + "] [".join(parts) + "]" if parts else None


class ProgressLine:
    """Draws and clears one status line on `out` while a statement runs."""

    def __init__(self, engine, out: TextIO, *, delay: float = 0.7, interval: float = 0.25,
                 poll: Callable[[object], str | None] = spark_progress):
        self.engine = engine
        self.out = out
        self.delay = delay
        self.interval = interval
        self.poll = poll
        self.message: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = 0
        self._lock = threading.Lock()

    def note(self, message: str) -> None:
        """An engine progress message (engine.on_progress callback)."""
        self.message = message

    def __enter__(self) -> "ProgressLine":
        self._stop.clear()
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
            text = self.poll(self.engine)
            if self.message:
                text = f"{text} {self.message}" if text else self.message
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


def wait_with_progress(future, line: ProgressLine, on_interrupt: Callable[[], None],
                       on_stuck: Callable[[], None] | None = None, stuck_after: float = 3.0) -> object:
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
                if (interrupted_at is not None and not escalated and on_stuck is not None
                        and time.monotonic() - interrupted_at > stuck_after):
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
