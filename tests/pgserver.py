"""A throwaway PostgreSQL server for the tests: initdb + pg_ctl in a temporary folder, on a free
port of 127.0.0.1, with its socket in that folder (tests/conftest.py's `postgres_server`).

PostgreSQL refuses to run as root, so as root the server runs as ``nobody`` (runuser). In CI
(``CI`` set) a missing PostgreSQL fails the tests (.ci/run installs Debian's ``postgresql``);
elsewhere they are skipped with the reason.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from isolation import require_tool

__all__ = ["PostgresServer", "find_bin", "require_postgres"]


def find_bin() -> Path | None:
    """The folder of initdb / pg_ctl: on PATH (/usr/local/bin here) or Debian's versioned folder."""
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(debian[-1]).parent if debian else None


def require_postgres() -> Path:
    return require_tool(find_bin(), "PostgreSQL server binaries (initdb)", "postgresql")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One server; `new_database()` gives each test its own database (``postgresql://`` URL)."""

    user = "dorisql"

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="dorisql-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._names = itertools.count(1)
        self._as: list[str] = []
        if os.geteuid() == 0:  # postgres will not run as root
            shutil.chown(self.folder, "nobody")
            self._as = ["runuser", "-u", "nobody", "--"]

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [*self._as, *args], cwd=self.folder, capture_output=True, text=True, timeout=120, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {result.stdout}{result.stderr}")

    def start(self) -> PostgresServer:
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user, "-E", "UTF8", "--no-sync"
        )
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c synchronous_commit=off -c max_connections=200"
        )
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "log"),
            "-w",
            "-o",
            options,
            "start",
        )
        return self

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        secret = f":{password}" if password else ""
        return f"postgresql://{self.user}{secret}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh catalog location: a new schema of the database ``tests`` (cheaper than a
        database per test), chosen through the URL's ``search_path`` option."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'tests'").fetchone():
                conn.execute("CREATE DATABASE tests")
        with psycopg.connect(self.url("tests"), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return self.url("tests") + f"?options=-csearch_path%3D{name}"
