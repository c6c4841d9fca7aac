"""The catalog tests run against both backends: SQLite in the warehouse and a PostgreSQL database
of the session's server (tests/conftest.py's `postgres_server`; skipped outside CI without one)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from catalog_workers import open_spec  # noqa: E402


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def catalog_spec(backend: str, warehouse: Path, request) -> str:
    """What opens this test's catalog (catalog_workers.open_spec): the warehouse folder (SQLite)
    or the URL of a fresh PostgreSQL database."""
    if backend == "sqlite":
        return str(warehouse)
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def open_cat(catalog_spec: str):
    """Opens another Catalog on this test's catalog (another session, with its own cache)."""
    opened = []

    def open_(**options):
        catalog = open_spec(catalog_spec, **options)
        opened.append(catalog)
        return catalog

    yield open_
    for catalog in opened:
        catalog.close()


@pytest.fixture
def raw_db(catalog_spec: str):
    """Run SQL on the catalog's database behind the store's back (to fake an old or a newer schema)."""
    return RawDb(catalog_spec)


class RawDb:
    def __init__(self, spec: str):
        self.spec = spec
        self.postgres = spec.startswith("postgresql://")

    def execute(self, *statements: str) -> list[tuple]:
        rows: list[tuple] = []
        if self.postgres:
            import psycopg

            with psycopg.connect(self.spec, autocommit=True) as conn:
                for sql in statements:
                    cur = conn.execute(sql)
                    rows = cur.fetchall() if cur.description else []
            return rows
        conn = sqlite3.connect(Path(self.spec) / "_catalog" / "catalog.db", isolation_level=None)
        try:
            for sql in statements:
                rows = conn.execute(sql).fetchall()
        finally:
            conn.close()
        return rows

    def schema_version(self) -> int:
        if self.postgres:
            return self.execute("SELECT version FROM dorisql_schema")[0][0]
        return self.execute("PRAGMA user_version")[0][0]

    def set_schema_version(self, version: int) -> None:
        if self.postgres:
            self.execute(f"UPDATE dorisql_schema SET version = {version}")
        else:
            self.execute(f"PRAGMA user_version = {version}")

    def tables(self) -> set[str]:
        if self.postgres:
            sql = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        else:
            sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
        return {r[0] for r in self.execute(sql)}
