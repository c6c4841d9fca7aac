"""The few filesystem operations the storage layer needs, in one place.

Only the local filesystem (plain paths or ``file://`` URIs) is implemented. Another filesystem
(S3, HDFS, ABFS) is added here, behind the same functions: listing a staging folder, moving a file
into its tablet folder (rename on local disks; copy+delete on object stores), deleting files and
folders, opening a file for pyarrow to read a Parquet footer, and the URI Spark should use.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from urllib.parse import unquote, urlparse

__all__ = [
    "local_path",
    "spark_uri",
    "list_files",
    "move_file",
    "link_or_copy",
    "remove_files",
    "remove_tree",
    "open_input",
    "FILE_THREADS",
]

#: Threads for work on many files at once: footers, copies, pyarrow writes (they release the GIL).
FILE_THREADS = 8


def local_path(path: str | os.PathLike) -> str:
    """An absolute local path for a plain path or a ``file://`` URI; other schemes are refused."""
    text = os.fspath(path)
    if "://" in text or text.startswith("file:"):
        parsed = urlparse(text)
        if parsed.scheme != "file":
            raise NotImplementedError(f"dorisql storage supports local paths only for now, got {text!r}")
        text = unquote(parsed.path)
    return os.path.abspath(text)


def spark_uri(path: str) -> str:
    """How Spark should name a local file (an absolute path resolves against the default file:///)."""
    return path


def list_files(root: str) -> Iterator[str]:
    """Every file under root, as paths relative to root with '/' separators."""
    for dirpath, _dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            yield rel


def move_file(src: str, dst: str) -> None:
    """Move one file into place, creating the target folder; refuses to overwrite."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.exists(dst):
        raise FileExistsError(dst)
    os.rename(src, dst)


def link_or_copy(src: str, dst: str) -> None:
    """Make ``dst`` hold the same bytes as ``src`` (a hard link where possible); never overwrites."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    try:
        os.link(src, dst)
    except FileExistsError:
        raise
    except OSError:
        if os.path.exists(dst):
            raise FileExistsError(dst) from None
        shutil.copy2(src, dst)


def remove_files(paths) -> None:
    """Delete files, ignoring ones already gone (cleanup must never fail half way)."""
    for p in paths:
        try:
            os.remove(p)
        except FileNotFoundError:
            pass


def remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def open_input(path: str):
    """A binary file object for pyarrow to read (footers are read with random access)."""
    return open(path, "rb")
