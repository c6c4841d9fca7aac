"""Catalog URLs: which backend a URL names, its SQLite file, and how it is shown (no password).

Pure, and free of psycopg: the command line and `open_catalog` read URLs without loading a
database driver."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def redact(url: str) -> str:
    """The URL without its password (``postgresql://user@host:5432/db``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://…"
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc}" if user else netloc))


def sqlite_path(url: str) -> str:
    """The file of a ``sqlite:///path/to/catalog.db`` URL (SQLAlchemy's form: three slashes and a
    relative path, four and an absolute one; a bare path after ``sqlite:`` works too)."""
    rest = url[len("sqlite:") :]
    if rest.startswith("///"):
        rest = rest[3:]
    elif rest.startswith("//"):
        rest = rest[2:]
    return os.path.abspath(os.path.expanduser(rest))
