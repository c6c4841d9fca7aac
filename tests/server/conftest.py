"""A real ``dorisql server`` process on 127.0.0.1 with free ports, one per test module."""

from __future__ import annotations

import pytest

from .serverkit import Server, start_server, stop_server


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Server:
    """``dorisql server`` on a fresh warehouse (Spark local[2]); SIGTERM at the end."""
    base = tmp_path_factory.mktemp("server")
    server = start_server(base, base / "wh")
    try:
        yield server
    finally:
        stop_server(server.process)
