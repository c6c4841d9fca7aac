"""Doris-level metadata: the model (`model`), its JSON form (`codec`), the interface every backend
implements (`base.Catalog`) and the embedded SQLite backend (`store.SqliteCatalog`).

`open_catalog` picks the backend for a warehouse. The store is imported on first use so that code
needing only `dorisql.catalog.model` does not load SQLite.
"""

from __future__ import annotations

import os

from dorisql.catalog.base import Catalog, ColocationGroup, DatabaseMeta

__all__ = ["Catalog", "ColocationGroup", "DatabaseMeta", "open_catalog"]


def open_catalog(warehouse_root: str | os.PathLike[str]) -> Catalog:
    """The catalog of a warehouse: SQLite at ``<warehouse>/_catalog/catalog.db`` (the embedded default)."""
    from dorisql.catalog.store import SqliteCatalog

    return SqliteCatalog(warehouse_root)
