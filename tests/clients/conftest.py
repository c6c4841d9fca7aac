"""One real ``dorisql server`` (its own warehouse and ports) that the real clients of
tests/clients connect to, each test module in its own database: one Spark start for the folder
rather than one per client. tests/server/serverkit.py starts and stops it."""

from __future__ import annotations

import pytest
from server.serverkit import Server, start_server, stop_server


@pytest.fixture(scope="package")
def server(tmp_path_factory, _jvm_class_archive) -> Server:
    """``dorisql server`` on a fresh warehouse (Spark local[2]); SIGTERM at the end."""
    base = tmp_path_factory.mktemp("clients")
    server = start_server(base, base / "wh")
    try:
        yield server
    finally:
        stop_server(server.process)
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
