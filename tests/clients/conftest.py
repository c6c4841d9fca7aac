"""One real ``dorisql server`` (its own warehouse and ports) that the real clients of
tests/clients connect to, each test module in its own database: one Spark start for the folder
rather than one per client. tests/server/serverkit.py starts and stops it."""

from __future__ import annotations

import subprocess

import pytest
from server.serverkit import DORISQL, Server, free_port, stop_server, wait_for_port

from isolation import dorisql_env


@pytest.fixture(scope="package")
def server(tmp_path_factory, _jvm_class_archive) -> Server:
    """``dorisql server`` on a fresh warehouse (Spark local[2]); SIGTERM at the end."""
    base = tmp_path_factory.mktemp("clients")
    env = {**dorisql_env(base / "home"), "DORISQL_MASTER": "local[2]"}
    port, http_port = free_port(), free_port()
    log = base / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                DORISQL,
                "server",
                "--warehouse",
                str(base / "wh"),
                "--query-port",
                str(port),
                "--http-port",
                str(http_port),
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=base,
        )
    try:
        wait_for_port(process, port, log)
        yield Server(process, port, http_port, base / "wh", log)
    finally:
        stop_server(process)
    # no client may have met an `Internal error` (each one is recorded in the failure log)
    failures = base / "home/.local/state/dorisql/dorisql.log"
    recorded = failures.read_text(errors="replace") if failures.exists() else ""
    assert "Internal error" not in recorded, recorded


def run(server: Server, *statements: str, database: str | None = None) -> list[tuple]:
    """Run statements through PyMySQL (autocommit); the last one's rows."""
    rows: list[tuple] = []
    with server.connect(database=database, autocommit=True) as conn, conn.cursor() as cur:
        for sql in statements:
            cur.execute(sql)
            rows = list(cur.fetchall())
    return rows
