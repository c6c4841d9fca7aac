"""``dorisql catalog migrate --from URL --to URL``: copy a catalog into an empty one.

Typically a warehouse's SQLite catalog (``sqlite:///<warehouse>/_catalog/catalog.db``) into a
PostgreSQL database, when the warehouse grows past one machine (docs/catalog.md). Every row of
every catalog table is copied as it is (table metadata stays the codec JSON it was), with the id
sequence, in one target transaction: either all of it arrives or nothing does. The source is read
in one snapshot. Both catalogs are brought to this dorisql's schema version first.

The target must be empty (no database, table, user, group, setting, load label or bin entry), so a
copy never merges two warehouses' ids. Stop the warehouse's dorisql processes while it runs.
"""

from __future__ import annotations

import os

from dorisql.catalog.postgres import PostgresCatalog
from dorisql.catalog.store import SqlCatalog, SqliteCatalog
from dorisql.catalog.urls import is_postgres_url, redact, sqlite_path
from dorisql.errors import CatalogError

__all__ = ["migrate", "open_url", "COPIED_TABLES"]

#: The catalog's tables, in the order they are copied, with what the summary calls their rows.
COPIED_TABLES = {
    "databases": "databases",
    "tables": "tables",
    "colocation_groups": "colocation groups",
    "frontend_config": "settings",
    "users": "users",
    "load_labels": "load labels",
    "recycle_bin": "recycle bin entries",
    "txn_intents": "transactions being committed",
    "views": "views",
}


def open_url(url: str, *, must_exist: bool) -> SqlCatalog:
    """The catalog a URL names: ``sqlite:///path/catalog.db`` or ``postgresql://...``."""

    if url.startswith("sqlite:"):
        path = sqlite_path(url)
        if must_exist and not os.path.isfile(path):
            raise CatalogError(f"no catalog at {path}")
        return SqliteCatalog.at(path)
    if is_postgres_url(url):
        return PostgresCatalog(url)
    raise CatalogError(
        f"unknown catalog URL '{redact(url)}': expected sqlite:///path/to/catalog.db or postgresql://user@host:port/db"
    )


def migrate(source_url: str, target_url: str) -> dict[str, int]:
    """Copy the catalog at `source_url` into the empty one at `target_url`; the rows copied per kind."""

    source = open_url(source_url, must_exist=True)
    try:
        target = open_url(target_url, must_exist=False)
        try:
            if not target.is_empty():
                raise CatalogError(
                    f"the target catalog {redact(target_url)} is not empty; migrate copies into an empty catalog "
                    "only (drop and re-create its database, or choose another)"
                )
            with source._read() as src:
                (next_id,) = src.execute("SELECT value FROM sequences WHERE name = 'id'").fetchone()
                rows = {}
                for table in COPIED_TABLES:
                    cursor = src.execute(f"SELECT * FROM {table}")
                    rows[table] = ([d[0] for d in cursor.description], cursor.fetchall())
            with target._write() as dst:
                if not target.is_empty(dst):  # a concurrent migrate got there first
                    raise CatalogError(f"the target catalog {redact(target_url)} is not empty")
                dst.execute("UPDATE sequences SET value = ? WHERE name = 'id'", (next_id,))
                for table, (columns, values) in rows.items():
                    marks = ", ".join("?" * len(columns))
                    dst.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", values)
            return {COPIED_TABLES[t]: len(v) for t, (_c, v) in rows.items()}
        finally:
            target.close()
    finally:
        source.close()
