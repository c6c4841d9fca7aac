"""The warehouse folder: where it is, how it is laid out, and which names may become folders.

Layout::

    <root>/_catalog/catalog.db     the SQLite catalog (dorisql.catalog.store)
    <root>/_staging/...            files being written, not yet committed
    <root>/<db>/<table>/           one Delta table per Doris table

Names are checked with Apache Doris's own rules (FeNameFormat, default settings), which happen to
make every accepted name a safe single path component:

- database and partition names: ``^[a-zA-Z][a-zA-Z0-9-_]{0,63}$`` (Doris COMMON_NAME_REGEX);
- table names: ``^[a-zA-Z][a-zA-Z0-9-_]*$`` (Doris TABLE_NAME_REGEX) and at most 64 characters
  (Doris ``table_name_length_limit``, default 64);
- partition names must not start with ``placeholder_`` (Doris FORBIDDEN_PARTITION_NAME).

So ``..``, ``/``, ``\\``, absolute paths, NUL and control characters, a leading ``.`` and a
leading ``_`` (kept for dorisql's own folders such as ``_catalog`` and ``_staging``) are all
refused. Unicode names are refused too: Doris accepts them only with the session variable
``enable_unicode_name_support`` (default false), and dorisql follows the default. SQL keywords are
fine as names (```range```, ```select```): quoting is the parser's business, not the folder's.
Names are case-sensitive, as in Doris with the default ``lower_case_table_names = 0``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Union

from dorisql.errors import AnalysisError, ExecutionError

#: Environment variable naming the warehouse folder.
ENV_WAREHOUSE = "DORISQL_WAREHOUSE"
#: Used when nothing else names a warehouse (relative to the current directory).
DEFAULT_WAREHOUSE = "warehouse"
#: dorisql's own folders inside the warehouse (user names never start with '_').
CATALOG_DIR = "_catalog"
STAGING_DIR = "_staging"
CATALOG_FILE = "catalog.db"

#: Doris's default table_name_length_limit.
TABLE_NAME_LENGTH_LIMIT = 64

COMMON_NAME_REGEX = r"^[a-zA-Z][a-zA-Z0-9-_]{0,63}$"
TABLE_NAME_REGEX = r"^[a-zA-Z][a-zA-Z0-9-_]*$"
FORBIDDEN_PARTITION_PREFIX = "placeholder_"

# ASCII-only classes ([a-zA-Z0-9], not \w) and fullmatch (a plain `$` would accept a trailing "\n").
_COMMON_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_\-]{0,63}", re.ASCII)
_TABLE_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_\-]*", re.ASCII)

PathLike = Union[str, "os.PathLike[str]"]


class InvalidNameError(AnalysisError):
    """A database, table or partition name that Doris would refuse (and that could not be a folder).

    code: 1102 for databases, 1103 for tables, 1567 for partitions (Doris's ERR_WRONG_*_NAME).
    """

    sqlstate = "42000"

    def __init__(self, message: str, *, code: int = 1103, kind: str = "table", name: str = ""):
        super().__init__(message)
        self.code = code
        self.sqlstate = "HY000" if code == 1567 else "42000"
        self.kind = kind
        self.name = name


def _shown(name: str) -> str:
    """The name for an error message, with control characters made visible."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}" for c in name)


def validate_name(kind: str, name: object) -> str:
    """Return `name` if it is a valid Doris `kind` name ("database", "table", "partition"), else raise.

    Raises InvalidNameError with Doris's messages, e.g. ``Incorrect table name '../x'. Table name
    regex is '^[a-zA-Z][a-zA-Z0-9-_]*$'`` (ERROR 1103) or ``Incorrect database name '_x'`` (1102).
    """
    kind = {"db": "database", "schema": "database"}.get(kind, kind)
    text = name if isinstance(name, str) else ("" if name is None else str(name))
    shown = _shown(text)
    if kind == "database":
        if not isinstance(name, str) or not _COMMON_NAME.fullmatch(name):
            raise InvalidNameError(f"Incorrect database name '{shown}'", code=1102, kind=kind, name=text)
    elif kind == "table":
        if not isinstance(name, str) or not _TABLE_NAME.fullmatch(name):
            raise InvalidNameError(
                f"Incorrect table name '{shown}'. Table name regex is '{TABLE_NAME_REGEX}'",
                code=1103,
                kind=kind,
                name=text,
            )
        if len(name) > TABLE_NAME_LENGTH_LIMIT:
            raise InvalidNameError(
                f"Incorrect table name '{shown}'. The length of table name is {len(name)} which is greater "
                f"than the configuration 'table_name_length_limit' ({TABLE_NAME_LENGTH_LIMIT})",
                code=1103,
                kind=kind,
                name=text,
            )
    elif kind == "partition":
        if not isinstance(name, str) or not _COMMON_NAME.fullmatch(name) or name.startswith(FORBIDDEN_PARTITION_PREFIX):
            raise InvalidNameError(f"Incorrect partition name '{shown}'", code=1567, kind=kind, name=text)
    else:
        raise ValueError(f"unknown kind of name: {kind!r}")
    return name


# --------------------------------------------------------------------------- the root


def resolve_root(
    explicit: PathLike | None = None,
    *,
    config_value: PathLike | None = None,
    environ: Mapping[str, str] | None = None,
    cwd: PathLike | None = None,
) -> Path:
    """The warehouse root as an absolute path (not created).

    Precedence: `explicit` (e.g. ``--warehouse``) > ``$DORISQL_WAREHOUSE`` > `config_value` (the
    config file's setting, passed in by the caller) > ``./warehouse``. ``~`` is expanded; relative
    paths are taken from `cwd` (default: the current directory). Empty strings count as unset.
    """
    env = os.environ if environ is None else environ
    for candidate in (explicit, env.get(ENV_WAREHOUSE), config_value, DEFAULT_WAREHOUSE):
        if candidate is not None and os.fspath(candidate) != "":
            path = Path(os.fspath(candidate)).expanduser()
            if not path.is_absolute():
                path = Path(cwd if cwd is not None else os.getcwd()) / path
            return Path(os.path.normpath(path))
    raise AssertionError("unreachable")  # pragma: no cover


def catalog_dir(root: PathLike) -> Path:
    return Path(root) / CATALOG_DIR


def catalog_file(root: PathLike) -> Path:
    return catalog_dir(root) / CATALOG_FILE


def staging_dir(root: PathLike) -> Path:
    return Path(root) / STAGING_DIR


def _contained(root: Path, path: Path) -> Path:
    real_root = root.resolve()
    real = path.resolve()
    if real != real_root and real_root not in real.parents:
        raise ExecutionError(f"path '{path}' resolves to '{real}', outside the warehouse '{real_root}'")
    return path


def database_path(root: PathLike, db: str) -> Path:
    """``<root>/<db>`` for a valid database name, checked to resolve inside the root."""
    validate_name("database", db)
    root = Path(root)
    return _contained(root, root / db)


def table_id_path(root: PathLike, db: str, table_id: int) -> Path:
    """``<root>/<db>/<table id>``: a table's folder (ids never change and are never reused)."""
    validate_name("database", db)
    if isinstance(table_id, bool) or not isinstance(table_id, int) or table_id <= 0:
        raise ValueError(f"not a table id: {table_id!r}")
    root = Path(root)
    return _contained(root, root / db / str(table_id))


def table_path(root: PathLike, db: str, table: str) -> Path:
    """``<root>/<db>/<table>`` for valid names, checked to resolve inside the root.

    Symbolic links are followed for the check: a database folder that links outside the
    warehouse is refused rather than silently written through.
    """
    validate_name("database", db)
    validate_name("table", table)
    root = Path(root)
    return _contained(root, root / db / table)
