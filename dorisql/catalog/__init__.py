"""Doris-level metadata: the model (`model`), its JSON form (`codec`), the interface every backend
implements (`base.Catalog`, whose `update_table` is the one door for table changes), the SQL store
both backends share (`store.SqlCatalog`), the embedded SQLite backend (`store.SqliteCatalog`), the
PostgreSQL one (`postgres.PostgresCatalog`), catalog URLs (`urls`), recycle bin entries
(`recycle_entries`) and colocation group rules (`colocation`).

`open_catalog` picks the backend for a warehouse; psycopg loads only for a PostgreSQL catalog.

Layer: above storage (the locks a PostgreSQL catalog serves) and auth (the grants it stores);
below session. Imports no Spark.
"""

from __future__ import annotations

import os
import threading

from dorisql.catalog.base import Catalog, ColocationGroup, DatabaseMeta
from dorisql.catalog.store import SqliteCatalog
from dorisql.catalog.urls import is_postgres_url, redact, sqlite_path
from dorisql.errors import CatalogError
from dorisql.storage.locks import LockService, use_lock_service
from dorisql.warehouse import catalog_file

__all__ = ["Catalog", "ColocationGroup", "DatabaseMeta", "open_catalog", "catalog_url_of"]

#: The catalog URL each warehouse root was opened with in this process, so that code which only
#: knows the folder (error reports, the server's login) reaches the same catalog.
_urls: dict[str, str] = {}
_urls_guard = threading.Lock()
_lock_services: dict[str, LockService] = {}


def catalog_url_of(warehouse_root: str | os.PathLike[str]) -> str | None:
    with _urls_guard:
        return _urls.get(os.path.abspath(warehouse_root))


def open_catalog(warehouse_root: str | os.PathLike[str], url: str | None = None) -> Catalog:
    """The catalog of a warehouse: SQLite at ``<warehouse>/_catalog/catalog.db`` (the embedded
    default), or the PostgreSQL database `url` names (``postgresql://user@host:port/db``; then the
    warehouse's commit and tablet locks become PostgreSQL advisory locks, see docs/catalog.md).

    Without `url`, the URL this process opened the warehouse with before, if any.
    """
    url = url or catalog_url_of(warehouse_root)
    if not url or url.startswith("sqlite:"):
        own = catalog_file(warehouse_root)
        if url and sqlite_path(url) != os.path.abspath(own):
            raise CatalogError(
                f"--catalog {url}: a SQLite catalog lives in its warehouse ({own}); leave --catalog out to use it"
            )
        return SqliteCatalog(warehouse_root)

    if not is_postgres_url(url):
        raise CatalogError(
            f"unknown catalog URL '{redact(url)}': expected postgresql://user@host:port/database "
            "(or leave --catalog out for the SQLite catalog in the warehouse)"
        )
    # Imported here, not at the top: psycopg (half a second) loads only for a PostgreSQL catalog.
    from dorisql.catalog.postgres import PostgresCatalog  # noqa: PLC0415

    catalog = PostgresCatalog(url)
    with _urls_guard:
        _urls[os.path.abspath(warehouse_root)] = url
        # One lock connection per process and URL: a lock taken through one Catalog is the
        # same lock (re-entrant, same session) when code re-opens the catalog meanwhile.
        service = _lock_services.get(url)
        if service is None:
            service = _lock_services[url] = catalog.lock_service()
    use_lock_service(warehouse_root, service)
    return catalog
