"""A real `dorisql server` serving many clients: point queries while a long aggregate runs.

    python bench/server.py [--clients 32] [--rows 100000] [--big-rows 3000000] [--rounds 3]
                           [--master 'local[2]'] [--modes FIFO,FAIR] [--dorisql PATH]

Starts `dorisql server` (free ports, a fresh warehouse, isolated HOME/XDG folders), creates and
loads a UNIQUE KEY table ``bench.kv`` (`--rows` rows) and a DUPLICATE table ``bench.big``
(`--big-rows` rows) for a long aggregate, then, for each scheduler mode of `--modes` (the
server restarted on the same warehouse with ``dorisql --conf spark.scheduler.mode=<mode>``;
FIFO is the "before": every Spark job queued behind the one before it), measures

- the aggregate alone (``SELECT k % 1000, count(*), sum(v), max(s) FROM big GROUP BY 1``), the
  median of `--rounds` runs after a warm-up,
- `--clients` point-query clients alone for `--seconds`, back to back (the server's capacity):
  half PyMySQL (text protocol, ``SELECT v, s FROM kv WHERE k = %s``), half mysql-connector-python
  prepared statements (``COM_STMT_PREPARE``/``COM_STMT_EXECUTE``, the binary protocol); every
  answer checked,
- a short statement that needs Spark (``SELECT count(*), sum(v) FROM kv WHERE v % 7 = 0``)
  alone, the median of 5,
- the same clients, each sending `--rate` point queries a second (32 x 10 = 320/s offered: with
  32 clients back to back, p50 is 32 / throughput by Little's law, so a latency target needs a
  paced load), while one more client runs the aggregate `--rounds` times and another the
  short Spark statement over and over: point-query p50/p99 and queries/s under the aggregate,
  the short statement's median under it, and the aggregate's median time under the load against
  alone (ratio). The short Spark statement is what the scheduler mode changes most: under FIFO
  it waits for every task of the aggregate submitted before it.

Targets (issue 29): point query p50 under 15 ms and p99 under 100 ms over the protocol, at least
300 point queries/s on 2 cores, the aggregate no more than 1.3x slower than alone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

P50_TARGET_MS, P99_TARGET_MS, QPS_TARGET, AGGREGATE_TARGET = 15.0, 100.0, 300.0, 1.3
AGGREGATE = "SELECT k % 1000, count(*), sum(v), max(s) FROM big GROUP BY 1"
#: A short statement that needs Spark (a scan of kv, no point query).
SHORT = "SELECT count(*), sum(v) FROM kv WHERE v % 7 = 0"
POINT = "SELECT v, s FROM kv WHERE k = {}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def isolated_env(home: Path, master: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DORISQL_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_DATA_HOME=str(home / ".local/share"),
        DORISQL_MASTER=master,
    )
    return env


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    log: Path

    def connect(self, **kwargs):
        import pymysql

        return pymysql.connect(host="127.0.0.1", port=self.port, user="root", password="", autocommit=True, **kwargs)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(dorisql: str, tmp: Path, warehouse: Path, master: str, mode: str) -> Server:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    port, http_port = free_port(), free_port()
    log = tmp / f"server-{mode}.log"
    command = [dorisql, "--conf", f"spark.scheduler.mode={mode}", "server", "--warehouse", str(warehouse)]
    command += ["--query-port", str(port), "--http-port", str(http_port)]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, env=isolated_env(home, master), stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=tmp
        )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"dorisql server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return Server(process, port, log)
        except OSError:
            time.sleep(0.2)  # (polling for the port)
    process.kill()
    raise SystemExit(f"dorisql server did not listen on {port}")


def load_tables(server: Server, rows: int, big_rows: int) -> None:
    conn = server.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE bench")
        cur.execute("USE bench")
        cur.execute(
            "CREATE TABLE kv (k BIGINT, v BIGINT, s VARCHAR(32)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 8"
            " PROPERTIES ('replication_num' = '1')"
        )
        cur.execute(
            "CREATE TABLE big (k BIGINT, v BIGINT, s VARCHAR(32)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 8"
            " PROPERTIES ('replication_num' = '1')"
        )
        started = time.perf_counter()
        cur.execute(f"INSERT INTO kv SELECT number, number * 7, concat('s', number) FROM numbers('number' = '{rows}')")
        cur.execute(
            "INSERT INTO big SELECT number, number % 977, concat('s', number % 1013)"
            f" FROM numbers('number' = '{big_rows}')"
        )
        print(f"loaded kv ({rows:,} rows, UNIQUE) and big ({big_rows:,} rows) in {time.perf_counter() - started:.1f} s")
    conn.close()


@dataclass
class Points:
    latencies: list[float] = field(default_factory=list)
    wrong: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def point_client(index: int, port: int, rows: int, rate: float, stop: threading.Event, points: Points) -> None:
    """Point queries by key until `stop`: even clients over PyMySQL's text protocol, odd ones
    as mysql-connector-python prepared statements (the binary protocol). `rate` > 0: that many
    a second, evenly spaced (a client that falls behind sends the next at once, never a burst
    to catch up); 0: back to back."""
    import random

    rng = random.Random(index)
    interval = 1 / rate if rate > 0 else 0.0
    prepared = index % 2 == 1
    if prepared:
        import mysql.connector

        conn = mysql.connector.connect(
            host="127.0.0.1", port=port, user="root", password="", database="bench", use_pure=True
        )
        cur = conn.cursor(prepared=True)
        sql = POINT.format("%s")
    else:
        import pymysql

        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database="bench")
        cur = conn.cursor()
        sql = POINT.format("%s")
    mine: list[float] = []
    wrong = 0
    next_at = time.perf_counter() + rng.random() * interval
    try:
        while not stop.is_set():
            if interval:
                if stop.wait(max(next_at - time.perf_counter(), 0.0)):
                    break
                next_at = max(next_at + interval, time.perf_counter())
            k = rng.randrange(rows)
            started = time.perf_counter()
            try:
                cur.execute(sql, (k,))
                answer = cur.fetchall()
            except Exception as exc:  # reported after the run
                with points.lock:
                    points.errors.append(f"{type(exc).__name__}: {exc}")
                continue
            mine.append(time.perf_counter() - started)
            if [tuple(row) for row in answer] != [(k * 7, f"s{k}")]:
                wrong += 1
    finally:
        conn.close()
        with points.lock:
            points.latencies.extend(mine)
            points.wrong += wrong


def run_points(port: int, clients: int, rows: int, rate: float, until) -> tuple[Points, float]:
    """`clients` point-query threads (`rate` queries/s each, 0: back to back) until `until()`
    returns (it runs on this thread)."""
    points, stop = Points(), threading.Event()
    threads = [
        threading.Thread(target=point_client, args=(i, port, rows, rate, stop, points), daemon=True)
        for i in range(clients)
    ]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    try:
        until()
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    return points, time.perf_counter() - began


def time_aggregate(server: Server, rounds: int) -> list[float]:
    conn = server.connect(database="bench")
    times = []
    with conn.cursor() as cur:
        for _ in range(rounds):
            started = time.perf_counter()
            cur.execute(AGGREGATE)
            rows = cur.fetchall()
            times.append(time.perf_counter() - started)
            assert len(rows) == 1000, len(rows)
    conn.close()
    return times


def short_loop(server: Server, stop: threading.Event, times: list[float]) -> None:
    """The short Spark statement over and over until `stop`."""
    conn = server.connect(database="bench")
    with conn.cursor() as cur:
        while not stop.is_set():
            started = time.perf_counter()
            cur.execute(SHORT)
            cur.fetchall()
            times.append(time.perf_counter() - started)
    conn.close()


def describe(points: Points, wall: float) -> str:
    ms = [s * 1000 for s in points.latencies]
    text = (
        f"{len(ms)} point queries in {wall:.1f} s, {len(ms) / wall:.1f}/s; "
        f"p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms"
    )
    if points.wrong or points.errors:
        text += f"; WRONG ANSWERS {points.wrong}, ERRORS {len(points.errors)} (first: {points.errors[:1]})"
    return text


@dataclass
class ModeResult:
    alone: float
    under_load: float
    points_alone: Points
    points_loaded: Points
    wall_loaded: float
    short_alone: float
    short_loaded: float


def measure(server: Server, args: argparse.Namespace) -> ModeResult:
    conn = server.connect(database="bench")
    with conn.cursor() as cur:  # warm-up: the JVM's first jobs, both tables' snapshots
        cur.execute(AGGREGATE)
        for k in range(20):
            cur.execute(POINT.format(k))
    conn.close()
    alone = statistics.median(time_aggregate(server, args.rounds))
    print(f"  aggregate alone: median {alone:.2f} s of {args.rounds}")
    shorts: list[float] = []
    conn = server.connect(database="bench")
    with conn.cursor() as cur:
        for _ in range(5):
            started = time.perf_counter()
            cur.execute(SHORT)
            cur.fetchall()
            shorts.append(time.perf_counter() - started)
    conn.close()
    short_alone = statistics.median(shorts)
    print(f"  short Spark statement alone: median {short_alone * 1000:.0f} ms of 5")
    points_alone, wall = run_points(server.port, args.clients, args.rows, 0, lambda: time.sleep(args.seconds))
    print(f"  {args.clients} clients alone, back to back (the server's capacity): {describe(points_alone, wall)}")
    loaded: list[float] = []
    shorts_loaded: list[float] = []
    stop_short = threading.Event()
    short_thread = threading.Thread(target=short_loop, args=(server, stop_short, shorts_loaded), daemon=True)
    short_thread.start()
    try:
        points_loaded, wall_loaded = run_points(
            server.port, args.clients, args.rows, args.rate, lambda: loaded.extend(time_aggregate(server, args.rounds))
        )
    finally:
        stop_short.set()
        short_thread.join()
    under_load = statistics.median(loaded)
    short_loaded = statistics.median(shorts_loaded) if shorts_loaded else float("nan")
    offered = args.clients * args.rate
    print(
        f"  {args.clients} clients under the aggregate, {offered:.0f}/s offered: {describe(points_loaded, wall_loaded)}"
    )
    print(
        f"  short Spark statement under the aggregate and the point queries: median {short_loaded * 1000:.0f} ms "
        f"of {len(shorts_loaded)} ({short_loaded / short_alone:.1f}x alone)"
    )
    print(f"  aggregate under the point queries: median {under_load:.2f} s ({under_load / alone:.2f}x alone)")
    return ModeResult(alone, under_load, points_alone, points_loaded, wall_loaded, short_alone, short_loaded)


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--big-rows", type=int, default=3_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="aggregate runs alone and under load")
    parser.add_argument("--seconds", type=float, default=15.0, help="point queries alone")
    parser.add_argument("--rate", type=float, default=10.0, help="point queries/s of each client under the aggregate")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--modes", default="FIFO,FAIR", help="Spark scheduler modes, the before first")
    parser.add_argument(
        "--dorisql", default=shutil.which("dorisql", path=str(Path(sys.executable).parent)) or "dorisql"
    )
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress as it comes
    modes = [m.strip().upper() for m in args.modes.split(",") if m.strip()]

    tmp = Path(tempfile.mkdtemp(prefix="dorisql-bench-server-"))
    warehouse = tmp / "wh"
    results: dict[str, ModeResult] = {}
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    try:
        for i, mode in enumerate(modes):
            server = start_server(args.dorisql, tmp, warehouse, args.master, mode)
            try:
                if i == 0:
                    load_tables(server, args.rows, args.big_rows)
                print(f"spark.scheduler.mode={mode}:")
                results[mode] = measure(server, args)
            finally:
                server.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    last = results[modes[-1]]
    ms = [s * 1000 for s in last.points_loaded.latencies]
    p50, p99 = percentile(ms, 0.5), percentile(ms, 0.99)
    qps = len(ms) / last.wall_loaded
    ratio = last.under_load / last.alone
    print(f"{modes[-1]}, under the aggregate:")
    print(f"  point query p50 {p50:.1f} ms (target < {P50_TARGET_MS:.0f}: {verdict(p50 < P50_TARGET_MS)})")
    print(f"  point query p99 {p99:.1f} ms (target < {P99_TARGET_MS:.0f}: {verdict(p99 < P99_TARGET_MS)})")
    print(f"  {qps:.1f} point queries/s (target >= {QPS_TARGET:.0f}: {verdict(qps >= QPS_TARGET)})")
    print(f"  aggregate {ratio:.2f}x alone (target <= {AGGREGATE_TARGET}: {verdict(ratio <= AGGREGATE_TARGET)})")
    if len(modes) > 1:
        first = results[modes[0]]
        before = [s * 1000 for s in first.points_loaded.latencies]
        before_qps = len(before) / first.wall_loaded
        print(
            f"{modes[-1]} against {modes[0]} under the aggregate: point query p50 {percentile(before, 0.5) / p50:.1f}x "
            f"lower, p99 {percentile(before, 0.99) / p99:.1f}x lower, {qps / before_qps:.1f}x the point queries/s; "
            f"short Spark statement {first.short_loaded / last.short_loaded:.1f}x faster "
            f"({first.short_loaded * 1000:.0f} -> {last.short_loaded * 1000:.0f} ms); aggregate "
            f"{first.under_load / first.alone:.2f}x -> {ratio:.2f}x alone"
        )
    bad = any(r.points_alone.wrong or r.points_loaded.wrong for r in results.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
