"""Keep Spark's JVM chatter out of the terminal.

The JVM that pyspark launches inherits the process's file descriptor 2, so its start-up lines
("Setting default log level...", JDK warnings) would land in the middle of the shell's input
line or of a script's error output. Before Spark starts, point descriptor 2 at a log file
(``$XDG_STATE_HOME/dorisql/spark.log``) while Python's own ``sys.stderr`` keeps writing to the
real terminal, so dorisql's messages and tracebacks are unaffected.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

_done = False


def divert_jvm_stderr(log_path: Path) -> Path | None:
    """Send what child processes write to stderr to `log_path`. Returns the log path, or None."""
    global _done
    warnings.filterwarnings("ignore", message=r"PySpark does not yet fully support pandas")
    if _done:
        return log_path
    try:
        sys.stderr.flush()
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        terminal_fd = os.dup(2)
        os.dup2(log_fd, 2)
        os.close(log_fd)
    except (OSError, ValueError, AttributeError):  # no real fd 2 (embedded, tests): leave it
        return None
    sys.stderr = os.fdopen(
        terminal_fd,
        "w",
        buffering=1,
        encoding=getattr(sys.stderr, "encoding", None) or "utf-8",
        errors="backslashreplace",
    )
    _done = True
    return log_path
