"""Doris-level metadata: the model (`model`), its JSON form (`codec`) and the SQLite store (`store`).

``from dorisql.catalog import Catalog`` works; the store is imported on first use so that code
needing only `dorisql.catalog.model` does not load SQLite.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Catalog", "ColocationGroup", "DatabaseMeta"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from dorisql.catalog import store

        return getattr(store, name)
    raise AttributeError(f"module 'dorisql.catalog' has no attribute {name!r}")
