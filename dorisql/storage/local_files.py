"""What ``local()`` reads: files under the secure folders, opened once, handed to Spark as copies.

Checking a path and then letting Spark open it again by name is a race: between the two, a
file can become a symbolic link to ``/etc/passwd``. So nothing here ever lets the kernel follow
a link inside a secure folder:

1. `find` walks the path one component at a time from a secure root with ``openat`` and
   ``O_NOFOLLOW`` (``os.open(name, dir_fd=...)``). A symbolic link is read (``readlinkat``) and
   followed by the walk itself, component by component, so the path it leads to is checked as
   it is walked; a walk that leaves every secure root is refused. Glob patterns are matched
   against the listing of the directory already opened. ``..`` in a user's path is refused
   before any of this (Doris's rule); ``..`` inside a link's target walks up the directories
   already opened.
2. What the walk ends on is open: a file descriptor, checked with ``fstat`` to be a regular
   file or a folder (never a FIFO, a device or a socket; ``O_NONBLOCK`` keeps a FIFO from
   blocking the open).
3. `LocalFiles.stage` gives each opened file a private name under the warehouse,
   ``<warehouse>/_staging/local/<id>/``: a hard link to the opened inode when the warehouse is
   on the same file system (``/proc/self/fd/N``, no data copied), else a copy read from the
   descriptor. A folder is staged file by file, every entry opened the same way. Spark reads
   only these names; a swap in the secure folder after the open changes nothing. The warehouse
   is where Spark's executors read and write tables anyway, so the copies are reachable from
   every executor of a cluster (a ``/proc/self/fd`` path would name a file of the driver only).
   On a read-only warehouse the copies go to a private temporary folder instead (a local Spark
   reads them there).
4. The copies live for one statement: the engine calls `LocalFiles.release` when the statement
   ends, whatever its outcome. Each statement's folder is held by a lock file; a process that
   dies leaves an unlocked folder, which the next ``local()`` read of any process removes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import fnmatch
import os
import shutil
import stat
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dorisql.errors import AnalysisError

__all__ = ["Walk", "Opened", "find", "check", "LocalFiles", "STAGING_SUBDIR", "outside", "sweep"]

#: The folder of local() copies inside the warehouse's staging folder.
STAGING_SUBDIR = "local"
#: Symbolic links one walk may follow (Linux's MAXSYMLINKS).
MAX_LINKS = 40
#: A statement folder without a lock file is removed once this old (seconds): it can only be
#: what a process left between creating its folder and its lock, or a half-removed folder.
_UNLOCKED_GRACE = 3600.0

_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
_DIR_FLAGS = _FLAGS | os.O_DIRECTORY
_GLOB = frozenset("*?[")


def outside(path: Path | str) -> AnalysisError:
    """Doris's refusal of a path outside user_files_secure_path."""
    return AnalysisError(f"file path is not allowed: {path}")


@dataclass
class Opened:
    """A file or folder the walk opened: its real path and an open descriptor of it."""

    path: Path
    fd: int
    is_dir: bool
    #: Open descriptors of the folders from its secure root down to its parent.
    parents: tuple[int, ...] = field(repr=False, default=())


class Walk:
    """One resolution: every descriptor it opens is closed by `close` (results included)."""

    def __init__(self, roots: Sequence[Path]):
        self.roots = [tuple(Path(r).parts) for r in roots]
        self.fds: list[int] = []

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()

    def _open(self, name: str, dir_fd: int | None, flags: int) -> int:
        fd = os.open(name, flags, dir_fd=dir_fd)
        self.fds.append(fd)
        return fd

    def _root_containing(self, parts: tuple[str, ...]) -> tuple[str, ...] | None:
        inside = [r for r in self.roots if parts[: len(r)] == r]
        return max(inside, key=len) if inside else None

    def _enter(self, here: tuple[str, ...]) -> list[int]:
        """Descriptors from the secure root containing `here` down to `here`; [] outside."""
        root = self._root_containing(here)
        if root is None:
            return []
        # The root itself is the administrator's setting, taken as it resolves.
        try:
            stack = [self._open(os.path.join(*root), None, os.O_RDONLY | os.O_CLOEXEC | os.O_DIRECTORY)]
        except FileNotFoundError:
            return []  # (a default secure folder not made yet: nothing in it)
        for name in here[len(root) :]:
            try:
                stack.append(self._open(name, stack[-1], _DIR_FLAGS))
            except OSError:
                raise outside(os.path.join(*here)) from None  # changed under the walk
        return stack

    def resolve(
        self,
        here: tuple[str, ...],
        stack: list[int],
        pending: list[tuple[str, bool]],
        links: int,
        found: list[Opened],
    ) -> None:
        """Walk `pending` components ((name, is a glob pattern)) from the real folder `here`.

        `stack`: open descriptors of the folders from a secure root down to `here`, or empty when
        `here` is not inside a secure root (then only a folder above a root may be passed)."""
        pending = list(pending)
        while pending:
            name, pattern = pending.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                here = here[:-1] if len(here) > 1 else here
                stack = stack[:-1] if stack else []
                if not stack:
                    stack = self._enter(here)
                continue
            target = (*here, name)
            if not stack:
                if self._root_containing(target) is not None:
                    here, stack = target, self._enter(target)
                    if not stack:
                        return  # the secure folder does not exist: nothing in it
                    continue
                if any(r[: len(target)] == target for r in self.roots):
                    here = target  # a folder above a secure root: the root's own path
                    continue
                raise outside(os.path.join(*target, *(n for n, _ in pending)))
            if pattern:
                names = sorted(
                    n
                    for n in os.listdir(stack[-1])
                    if fnmatch.fnmatchcase(n, name) and (name.startswith(".") or not n.startswith("."))
                )
                for match in names:
                    self.resolve(here, list(stack), [(match, False), *pending], links, found)
                return
            last = not pending
            try:
                fd = self._open(name, stack[-1], _FLAGS if last else _DIR_FLAGS)
            except OSError as exc:
                # A symbolic link (ELOOP; ENOTDIR when a folder was wanted): followed by this
                # walk, not by the kernel.
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    try:
                        text = os.readlink(name, dir_fd=stack[-1])
                    except OSError:
                        if exc.errno == errno.ENOTDIR:
                            return  # a file where a folder was wanted: nothing there
                        text = None
                    links += 1
                    if links > MAX_LINKS:
                        raise AnalysisError(
                            f"local(): too many levels of symbolic links: {os.path.join(*target)}"
                        ) from None
                    if text is None:  # no longer a link: open it again
                        pending.insert(0, (name, False))
                        continue
                    if text.startswith("/"):
                        here, stack = ("/",), self._enter(("/",))
                    pending = [(part, False) for part in text.split("/")] + pending
                    continue
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    return  # nothing there
                if exc.errno == errno.EACCES:
                    raise AnalysisError(f"local(): permission denied: {os.path.join(*target)}") from None
                raise
            mode = os.fstat(fd).st_mode
            if last:
                if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    raise AnalysisError(f"local(): not a regular file: {os.path.join(*target)}")
                found.append(Opened(Path(*target), fd, stat.S_ISDIR(mode), tuple(stack)))
                return
            here, stack = target, [*stack, fd]
        # The path ended on a folder reached by '.', '..' or as a secure root itself.
        if not stack:
            raise outside(os.path.join(*here))
        fd = os.dup(stack[-1])
        self.fds.append(fd)
        found.append(Opened(Path(*here), fd, True, tuple(stack[:-1])))


def _components(path: Path, patterns: bool) -> list[tuple[str, bool]]:
    return [(part, patterns and bool(_GLOB.intersection(part))) for part in path.parts[1:]]


def find(path: Path, roots: Sequence[Path], walk: Walk) -> list[Opened]:
    """Open what the absolute `path` (glob patterns allowed) names, without ever following a
    link outside `roots`. Empty when nothing matches; raises ``file path is not allowed``."""
    found: list[Opened] = []
    walk.resolve(("/",), walk._enter(("/",)), _components(path, True), 0, found)
    return found


# ------------------------------------------------------------------------------------- staging


class LocalFiles:
    """One session's private copies of the files its statement's local() calls read.

    `stage` opens and copies; `release` (at the end of every statement) removes them."""

    def __init__(self, warehouse: Path):
        self.warehouse = Path(warehouse)
        self.base = Path(warehouse) / "_staging" / STAGING_SUBDIR
        self._folder: Path | None = None
        self._lock_fd: int | None = None

    def stage(self, wanted: Path, roots: Sequence[Path], display: str) -> list[Path]:
        """Private copies of what `wanted` names (files or folders), in match order.

        Raises ``local(): file not found: <display>`` when nothing matches."""
        walk = Walk(roots)
        try:
            matches = find(wanted, roots, walk)
            if not matches:
                raise AnalysisError(f"local(): file not found: {display}")
            for opened in matches:  # every file is checked before anything is copied
                _stage(opened, None, walk, set())
            folder = self._statement_folder()
            copies = []
            for opened in matches:
                dest = folder / _relative_name(opened.path, roots)
                if not dest.exists():
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    _stage(opened, dest, walk, set())
                copies.append(dest)
            return copies
        finally:
            walk.close()

    def release(self) -> None:
        """Remove this statement's copies (a no-op when it read no local() file)."""
        folder, lock_fd = self._folder, self._lock_fd
        self._folder = self._lock_fd = None
        if folder is None:
            return
        shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.unlink(folder.with_suffix(".lock"))
        if lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(lock_fd)

    def _statement_folder(self) -> Path:
        if self._folder is not None:
            return self._folder
        try:
            self.base.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
            # A read-only warehouse still reads local() files: a private temporary folder
            # instead, which a local Spark reads (a cluster's executors would not see it).
            self._folder = Path(tempfile.mkdtemp(prefix="dorisql-local-"))
            return self._folder
        sweep(self.base)
        while True:
            name = uuid.uuid4().hex
            lock = self.base / f"{name}.lock"
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.stat(lock).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:  # (a sweep between the create and the lock removed it: take another name)
                break
            os.close(fd)
        folder = self.base / name
        folder.mkdir(mode=0o700)
        self._folder, self._lock_fd = folder, fd
        return folder


def sweep(base: Path) -> list[str]:
    """Remove statement folders no live statement holds (their process died). Returns their names."""
    removed: list[str] = []
    try:
        names = os.listdir(base)
    except FileNotFoundError:
        return removed
    locks = {n[: -len(".lock")] for n in names if n.endswith(".lock")}
    for name in sorted(locks):
        lock = base / f"{name}.lock"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a running statement's
            shutil.rmtree(base / name, ignore_errors=True)
            with contextlib.suppress(OSError):
                os.unlink(lock)
            removed.append(name)
        finally:
            os.close(fd)
    now = time.time()
    for name in names:
        if name.endswith(".lock") or name in locks:
            continue
        with contextlib.suppress(OSError):
            if now - os.lstat(base / name).st_mtime > _UNLOCKED_GRACE:
                shutil.rmtree(base / name, ignore_errors=True)
                removed.append(name)
    return removed


def _relative_name(path: Path, roots: Sequence[Path]) -> Path:
    """`<root index>/<path inside that root>`: distinct real paths get distinct names, and
    each file keeps its own name and parent folders (compression suffixes, partition folders)."""
    for index, root in sorted(enumerate(roots), key=lambda ir: -len(ir[1].parts)):
        if path == root or path.is_relative_to(root):
            rest = path.relative_to(root)
            return Path(str(index)) / (rest if rest.parts else Path(root.name or "root"))
    raise outside(path)  # pragma: no cover - the walk only ends inside a root


def check(opened: Opened, walk: Walk) -> None:
    """Open every file of an opened folder the same way (raises for one outside the roots)."""
    _stage(opened, None, walk, set())


def _stage(opened: Opened, dest: Path | None, walk: Walk, seen: set[tuple[int, int]]) -> None:
    """Copy the opened file, or the files of the opened folder, to `dest` (None: only open them)."""
    if not opened.is_dir:
        if dest is not None:
            _copy(opened.fd, dest)
        return
    st = os.fstat(opened.fd)
    if (st.st_dev, st.st_ino) in seen:
        raise AnalysisError(f"local(): a symbolic link loop in {opened.path}")
    if dest is not None:
        dest.mkdir(mode=0o700, exist_ok=True)
    for name in sorted(os.listdir(opened.fd)):
        if name.startswith(".") or (name.startswith("_") and "=" not in name):
            continue  # Spark skips hidden and summary files when it reads a folder
        found: list[Opened] = []
        walk.resolve(tuple(opened.path.parts), [*opened.parents, opened.fd], [(name, False)], 0, found)
        for entry in found:
            _stage(entry, None if dest is None else dest / name, walk, seen | {(st.st_dev, st.st_ino)})


def _copy(fd: int, dest: Path) -> None:
    """A hard link to the opened inode when possible (same file system), else a copy of its bytes."""
    try:
        # linkat(AT_SYMLINK_FOLLOW) on the descriptor's /proc name links the opened inode itself.
        # (Python calls plain link(), which never follows, unless a dir_fd is given; the path is
        # absolute, so the dir_fd is ignored.)
        os.link(f"/proc/self/fd/{fd}", dest, src_dir_fd=fd, follow_symlinks=True)
        return
    except OSError:
        pass
    with open(dest, "xb") as out:
        offset = 0
        while True:
            chunk = os.pread(fd, 1 << 20, offset)
            if not chunk:
                break
            out.write(chunk)
            offset += len(chunk)
