"""How long until the shell's prompt appears, and until a fresh `dorisql -e`'s first INSERT is done.

    python bench/startup.py [--runs 5] [--dorisql PATH]
    python bench/startup.py --first-insert [--runs 3] [--dorisql PATH]

Each run starts `dorisql --warehouse <tmp>` under a pty (pexpect, PROMPT_TOOLKIT_NO_CPR=1,
isolated HOME and XDG folders) and times process start -> prompt drawn. The baseline is
`python -c pass` started the same way in the same run, so the ratio says how much dorisql
adds to a bare interpreter. Spark starts in the background and is not waited for: that is the
point. Target: median under 1 s.

``--first-insert`` times what a user waits for Spark: a fresh `dorisql -v -e "CREATE DATABASE;
CREATE TABLE; INSERT ... VALUES (3 rows)"` on an empty warehouse, each run a new process (and JVM),
until the INSERT's ``Query OK`` line and until the process has exited. *before* runs with the
JVM class-data-sharing archive off (``DORISQL_CLASS_ARCHIVE=off``) and the JDK's own JIT
thresholds (`JDK_JIT`, in place of dorisql.storage.spark.JIT_OPTIONS), *after* as dorisql starts
by default, with the archive that a first, uncounted run wrote (dorisql.storage.class_archive);
the two alternate, so that
whatever else the machine does weighs on both alike. Both share the cache folder (the grammar's
parser tables are warm in both). Target: *after* at least 2x faster.
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
#: --first-insert: the statements, and how much faster the archive should make them.
FIRST_INSERT = (
    "CREATE DATABASE d; CREATE TABLE d.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
    "PROPERTIES('replication_num'='1'); INSERT INTO d.t VALUES (1,2),(3,4),(5,6)"
)
TARGET_RATIO = 2.0
#: HotSpot's defaults of the thresholds dorisql.storage.spark.JIT_OPTIONS raises.
JDK_JIT = (
    "-XX:Tier4InvocationThreshold=5000 -XX:Tier4MinInvocationThreshold=600 "
    "-XX:Tier4CompileThreshold=15000 -XX:Tier4BackEdgeThreshold=40000"
)


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


def time_first_insert(dorisql: str, root: Path, cache: Path, archive: bool) -> tuple[float, float]:
    """(seconds until the INSERT's status line, seconds until the process exited); without
    `archive`, also with the JDK's JIT thresholds."""
    import pexpect

    run = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    home = run / "home"
    home.mkdir()
    env = {**_env(home), "XDG_CACHE_HOME": str(cache), "DORISQL_CLASS_ARCHIVE": "on" if archive else "off"}
    started = time.perf_counter()
    child = pexpect.spawn(
        dorisql,
        ["--warehouse", str(run / "wh"), "-v", "-e", FIRST_INSERT]
        + ([] if archive else ["--conf", f"spark.driver.extraJavaOptions={JDK_JIT}"]),
        env=env,
        dimensions=(40, 120),
        encoding="utf-8",
        timeout=600,
    )
    child.expect(r"Query OK, 3 rows affected")
    inserted = time.perf_counter() - started
    child.expect(pexpect.EOF)
    child.close()
    exited = time.perf_counter() - started
    if child.exitstatus != 0:
        raise SystemExit(f"dorisql failed ({child.exitstatus}): {child.before}")
    shutil.rmtree(run, ignore_errors=True)
    return inserted, exited


def _archives(cache: Path) -> list[Path]:
    return sorted((cache / "dorisql" / "jvm").glob("*.jsa"))


def first_insert(dorisql: str, runs: int) -> int:
    with tempfile.TemporaryDirectory(prefix="dorisql-bench-") as tmp:
        root = Path(tmp)
        cache = root / "cache"
        # Uncounted: warms the OS file cache and the parser tables, and writes the class archive
        # as its JVM exits (a runtime without a default CDS archive needs a second run for it).
        for _ in range(3):
            known = _archives(cache)
            if [a for a in known if not a.name.endswith(".base.jsa")]:
                break
            time_first_insert(dorisql, root, cache, archive=True)
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and len(_archives(cache)) == len(known):
                time.sleep(0.5)  # (polling for the JVM's archive, written after the process exited)
        print(f"class archive:    {', '.join(f'{a.name} ({a.stat().st_size >> 20} MiB)' for a in _archives(cache))}")
        before: list[tuple[float, float]] = []
        after: list[tuple[float, float]] = []
        for i in range(runs):
            before.append(time_first_insert(dorisql, root, cache, archive=False))
            after.append(time_first_insert(dorisql, root, cache, archive=True))
            print(f"run {i + 1}: INSERT done before {before[-1][0]:.2f} s, after {after[-1][0]:.2f} s", flush=True)
    for name, index in (("INSERT done", 0), ("process exit", 1)):
        b = statistics.median(t[index] for t in before)
        a = statistics.median(t[index] for t in after)
        print(f"{name + ':':17} before median {b:6.2f} s  after median {a:6.2f} s  ratio {b / a:.2f}x")
        print(f"{'':17} before runs: {', '.join(f'{t[index]:.2f}' for t in before)}")
        print(f"{'':17} after runs:  {', '.join(f'{t[index]:.2f}' for t in after)}")
    ratio = statistics.median(t[0] for t in before) / statistics.median(t[0] for t in after)
    verdict = "OK" if ratio >= TARGET_RATIO else "BELOW TARGET"
    print(f"target:           INSERT done >= {TARGET_RATIO:.1f}x faster  -> {verdict}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--first-insert", action="store_true", help="time a fresh dorisql -e's first INSERT, archive off and on"
    )
    parser.add_argument(
        "--dorisql", default=shutil.which("dorisql", path=str(Path(sys.executable).parent)) or shutil.which("dorisql")
    )
    args = parser.parse_args(argv)
    if not args.dorisql:
        parser.error("cannot find the dorisql command (pip install -e .)")
    if args.first_insert:
        return first_insert(args.dorisql, args.runs)

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
