"""Helpers for the server tests: the command, free ports, a started server, the mysql client."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from isolation import dorisql_env, require_tool
from waiting import wait_until

DORISQL = shutil.which("dorisql", path=str(Path(sys.executable).parent)) or "dorisql"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    http_port: int
    warehouse: Path
    log: Path

    def connect(self, **kwargs):
        import pymysql

        return pymysql.connect(host="127.0.0.1", port=self.port, user="root", password="", **kwargs)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def wait_for_port(process: subprocess.Popen, port: int, log: Path, timeout: float = 180) -> None:
    def listening() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"dorisql server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    try:
        wait_until(listening, timeout, f"dorisql server to listen on {port}", interval=0.2)
    except AssertionError as exc:
        raise AssertionError(f"{exc}:\n{log.read_text()}") from None


def start_server(
    base: Path, warehouse: Path, extra_env: dict[str, str] | None = None, *, own_group: bool = False
) -> Server:
    """``dorisql server`` on `warehouse` (Spark local[2], free ports, a home under `base`), its
    output in ``base/server-<port>.log``; returned once it listens (stopped if it never does).
    `own_group`: in a process group of its own, so that a test can kill what a killed server
    leaves (its JVM) with the group."""
    env = {**dorisql_env(base / "home"), "DORISQL_MASTER": "local[2]", **(extra_env or {})}
    port, http_port = free_port(), free_port()
    log = base / f"server-{port}.log"
    command = [
        DORISQL,
        "server",
        "--warehouse",
        str(warehouse),
        "--query-port",
        str(port),
        "--http-port",
        str(http_port),
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=base,
            start_new_session=own_group,
        )
    try:
        wait_for_port(process, port, log)
    except BaseException:
        stop_server(process)
        raise
    return Server(process, port, http_port, warehouse, log)


def stop_server(process: subprocess.Popen, timeout: float = 60) -> None:
    """SIGTERM, then SIGKILL if it has not ended within `timeout` seconds."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def mysql_client() -> str | None:
    """The Debian mysql (MariaDB) command-line client; installed by .ci/run in CI."""
    return shutil.which("mysql") or shutil.which("mariadb")


def require_mysql_client() -> str:
    return require_tool(mysql_client(), "mysql client on PATH", "default-mysql-client")
