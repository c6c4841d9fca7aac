"""The physical layout of a table's folder: its hidden columns, folder and file names (pure).

Layout of ``<warehouse>/<db>/<table>``::

    _delta_log/                      the Delta transaction log (the truth for data)
    __partition=<p>/__bucket=<b>/    one folder per tablet, holding Parquet files
    _staging/<txn>/                  a statement's output before it is committed
    _dorisql.lock, _dorisql_locks/   advisory locks (see dorisql.storage.locks)

A tablet folder is named the way Spark's ``partitionBy`` names it (Hive escaping of the value).

A loaded file's name ends in ``.v<N>.parquet``: N is the Delta version its load committed as
(stamped under the commit lock, dorisql.storage.delta). A compaction's output file's name ends
in ``.v<start>-<end>.parquet``: the Delta version range of the rowsets it merged
(dorisql.tablets.rowsets). Reads order rows by the *end* of the range (`commit_version`).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from dorisql.errors import ExecutionError

__all__ = [
    "PARTITION_COLUMN",
    "BUCKET_COLUMN",
    "DELTA_LOG_DIR",
    "STAGING_DIR",
    "HIVE_NULL",
    "COMMIT_VERSION_PATTERN",
    "version_range",
    "commit_version",
    "version_suffix",
    "range_suffix",
    "output_range_stamp",
    "escape_path_name",
    "unescape_path_name",
    "folder_value",
    "tablet_folder",
]

#: The hidden Delta partition columns: the partition's id and the bucket number. Their values
#: live in folder names, not in the files.
PARTITION_COLUMN = "__partition"
BUCKET_COLUMN = "__bucket"

#: A table's Delta transaction log folder: a folder holding one is a Delta table.
DELTA_LOG_DIR = "_delta_log"

#: A table's folder for statements' output before it is committed (``_staging/<txn>/``).
STAGING_DIR = "_staging"

#: The folder value Spark writes for a NULL partition column value.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"

#: The Delta version whose order a data file's rows take (the end of a range): group 1.
#: Matches ``x.v12.parquet`` (a load) and ``x.v0-12.parquet`` (a compaction's output).
COMMIT_VERSION_PATTERN = r"\.v(?:\d+-)?(\d+)\.parquet$"
_RANGE = re.compile(r"\.v(\d+)(?:-(\d+))?\.parquet$")


#: A data file's partition folder in its path: group 1 is the partition value, still escaped.
PARTITION_IN_PATH = rf"/{PARTITION_COLUMN}=([^/]*)/"
#: A data file's bucket folder in its path: group 1 is the bucket number.
BUCKET_IN_PATH = rf"/{BUCKET_COLUMN}=(\d+)/"


def partition_of_path(path: str) -> str:
    """The partition value of a data file's path (unescaped; "" outside a partition folder)."""
    found = re.search(PARTITION_IN_PATH, path)
    return unescape_path_name(found.group(1)) if found else ""


def version_range(path: str) -> tuple[int, int] | None:
    """``(start, end)`` of a data file's name; None for a file without a stamp (written before
    versions were stamped: its rows read as version 0)."""
    m = _RANGE.search(path)
    if m is None:
        return None
    start = int(m.group(1))
    return start, int(m.group(2)) if m.group(2) is not None else start


def commit_version(path: str) -> int:
    """The Delta version whose order a data file's rows take: the end of its range; 0 for a file
    without a stamp."""
    found = version_range(path)
    return found[1] if found is not None else 0


def version_suffix(version: int) -> str:
    """What a loaded file's name ends with: the Delta version its load committed as."""
    return f".v{version}.parquet"


def range_suffix(start: int, end: int) -> str:
    """What a compaction's output file names end with."""
    return f".v{start}-{end}.parquet"


def output_range_stamp(path: str) -> str | None:
    """The ``.v<start>-<end>.parquet`` ending of a compaction's output file; None for a load's
    file (``.v<N>.parquet``) or a file without a stamp."""
    m = _RANGE.search(path)
    return m.group(0) if m is not None and m.group(2) is not None else None


_SPARK_ESCAPED = set(chr(c) for c in range(1, 0x20)) | set("\"#%'*/:=?\\\x7f{[]^")


def escape_path_name(text: str) -> str:
    """Spark/Hive escaping of a partition value in a folder name (ExternalCatalogUtils.escapePathName)."""
    return "".join(f"%{ord(c):02X}" if c in _SPARK_ESCAPED else c for c in text)


def unescape_path_name(text: str) -> str:
    """Undo Spark/Hive partition-path escaping (%XX)."""
    return unquote(text) if "%" in text else text


def folder_value(dir_name: str, column: str) -> str:
    """The (still escaped) value in a folder name ``<column>=<value>``."""
    prefix = column + "="
    if not dir_name.startswith(prefix):
        raise ExecutionError(f"unexpected folder {dir_name!r} in Spark's output (expected {prefix}...)")
    return dir_name[len(prefix) :]


def tablet_folder(partition: str, bucket: int) -> str:
    """The folder of a tablet relative to the table folder: ``__partition=<p>/__bucket=<b>``."""
    return f"{PARTITION_COLUMN}={escape_path_name(partition)}/{BUCKET_COLUMN}={bucket}"
