"""How long until the shell's prompt appears: the real `dorisql` in a pseudo-terminal.

    python bench/startup.py [--runs 5] [--dorisql PATH]

Each run starts `dorisql --warehouse <tmp>` under a pty (pexpect, PROMPT_TOOLKIT_NO_CPR=1,
isolated HOME and XDG folders) and times process start -> prompt drawn. The baseline is
`python -c pass` started the same way in the same run, so the ratio says how much dorisql
adds to a bare interpreter. Spark starts in the background and is not waited for: that is the
point. Target: median under 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 1.0


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DORISQL_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_DATA_HOME=str(home / ".local/share"),
        PROMPT_TOOLKIT_NO_CPR="1",
        TERM="xterm-256color",
    )
    return env


def time_prompt(dorisql: str) -> float:
    import pexpect

    with tempfile.TemporaryDirectory(prefix="dorisql-bench-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        started = time.perf_counter()
        child = pexpect.spawn(
            dorisql,
            ["--warehouse", str(Path(tmp) / "wh")],
            env=_env(home),
            dimensions=(40, 120),
            encoding="utf-8",
            timeout=60,
        )
        child.expect(r"dorisql>")
        elapsed = time.perf_counter() - started
        child.sendeof()
        child.expect(pexpect.EOF)
        child.close()
        return elapsed


def time_baseline() -> float:
    import pexpect

    started = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-c", "print('ready')"], encoding="utf-8", timeout=60)
    child.expect("ready")
    elapsed = time.perf_counter() - started
    child.expect(pexpect.EOF)
    child.close()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--dorisql", default=shutil.which("dorisql", path=str(Path(sys.executable).parent)) or shutil.which("dorisql")
    )
    args = parser.parse_args(argv)
    if not args.dorisql:
        parser.error("cannot find the dorisql command (pip install -e .)")

    time_prompt(args.dorisql)  # warm the OS file cache and .pyc files; not counted
    baseline = [time_baseline() for _ in range(args.runs)]
    prompt = [time_prompt(args.dorisql) for _ in range(args.runs)]
    median, base = statistics.median(prompt), statistics.median(baseline)
    print(f"dorisql prompt:   median {median:.3f} s  (runs: {', '.join(f'{t:.3f}' for t in prompt)})")
    print(f"python -c pass:   median {base:.3f} s")
    print(f"ratio:            {median / base:.1f}x the bare interpreter")
    verdict = "OK" if median < TARGET_SECONDS else "SLOWER THAN TARGET"
    print(f"target:           < {TARGET_SECONDS:.1f} s  -> {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
