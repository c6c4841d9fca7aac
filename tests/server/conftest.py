"""A real ``dorisql server`` process on 127.0.0.1 with free ports, one per test module."""

from __future__ import annotations

import subprocess

import pytest

from .serverkit import DORISQL, Server, free_port, stop_server, wait_for_port
from isolation import dorisql_env


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Server:
    """``dorisql server`` on a fresh warehouse (Spark local[2]); SIGTERM at the end."""
    base = tmp_path_factory.mktemp("server")
    env = {**dorisql_env(base / "home"), "DORISQL_MASTER": "local[2]"}
    warehouse = base / "wh"
    port, http_port = free_port(), free_port()
    log = base / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                DORISQL,
                "server",
                "--warehouse",
                str(warehouse),
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
        yield Server(process, port, http_port, warehouse, log)
    finally:
        stop_server(process)
