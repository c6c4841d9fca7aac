"""ADMIN CHECK TABLE [db.]t: does the catalog entry agree with the Delta log and the files on disk?

One row per problem found (CHECK_COLUMNS); no rows means the table is healthy. Severity:

- ERROR: rows are lost, wrong or unreadable, or statements refuse the table: a person must act
  (missing storage, a log behind the catalog or with a gap above its checkpoint, files the log
  references but the disk lacks, rows in a partition the catalog does not have, ...).
- WARNING: the latest state is right, but something is off: history older than the latest
  checkpoint has a gap (time travel there fails), or a DROP PARTITION was interrupted and still
  has rows to remove (the next DROP / ADD PARTITION or scheduler pass on the table finishes it).
- LEFTOVER: harmless files of statements that never committed (a killed load, a crashed
  commit), left for the cleanup.

Not reported: files removed by a commit (drops, truncates, overwrites) that are still on disk —
they are "removed, awaiting cleanup", kept for time travel and a recycle bin — and any file
younger than GRACE_SECONDS outside the log, which may belong to a statement still running.

The log is read through deltalake (latest snapshot, and its removed files from a dry-run vacuum);
only the names of the files in ``_delta_log`` are looked at directly, to find missing commits.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.result import Result, size_text
from dorisql.session.session import Session
from dorisql.statements.ddl.partitions import PENDING_DROP_FILE
from dorisql.statements.handler import Handlers
from dorisql.statements.load.stream_load import orphan_bodies
from dorisql.storage.layout import BUCKET_COLUMN, COMMIT_VERSION_PATTERN, DELTA_LOG_DIR, PARTITION_COLUMN, STAGING_DIR
from dorisql.tablets.consistency import log_error_reason, qualified
from dorisql.tablets.tables import arrow_schema, meta_dir

CHECK_COLUMNS = ("Table", "Partition", "Problem", "Severity", "Detail")

ERROR, WARNING, LEFTOVER = "ERROR", "WARNING", "LEFTOVER"
_SEVERITY_ORDER = {ERROR: 0, WARNING: 1, LEFTOVER: 2}

#: Files outside the log younger than this (seconds) may belong to a running statement.
GRACE_SECONDS = 3600.0

_COMMIT_FILE = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT_FILE = re.compile(r"^(\d{20})\.checkpoint(?:\.\d+\.\d+)?(?:\.[0-9a-f-]+)?\.parquet$")
#: A load's stamp, or the end of a compaction's range (never above the version that committed it).
_STAMP = re.compile(COMMIT_VERSION_PATTERN)


@dataclass(frozen=True)
class Finding:
    """One row of ADMIN CHECK TABLE (the table name is added by the statement)."""

    partition: str
    problem: str
    severity: str
    detail: str


# ---------------------------------------------------------------------- the statement


def admin_check_table(session: Session, stmt: ast.AdminCheckTable) -> Result:
    db = session.resolve_db(stmt.table.db)
    meta = session.catalog.load_table(db, stmt.table.name)
    findings = check_table(session.warehouse, meta, now=time.time()) + _orphan_body_findings(session, meta)
    return Result.table(
        CHECK_COLUMNS, [(qualified(meta), f.partition, f.problem, f.severity, f.detail) for f in findings]
    )


HANDLERS: Handlers = {ast.AdminCheckTable: admin_check_table}


# ---------------------------------------------------------------------- the check


def check_table(warehouse: Path, meta: TableMeta, now: float, grace: float = GRACE_SECONDS) -> list[Finding]:
    """Everything wrong with the table's storage, worst first. `now` (seconds since the epoch)
    dates the files: those younger than `grace` outside the log are not judged."""
    location = meta_dir(warehouse, meta)
    findings = _catalog_findings(meta)
    log_dir = location / DELTA_LOG_DIR
    if not log_dir.is_dir():
        what = "folder" if not location.is_dir() else "Delta log (_delta_log)"
        findings.append(
            Finding(
                "",
                "STORAGE_MISSING",
                ERROR,
                f"the table's {what} at {location.relative_to(warehouse)} does not exist: its rows are "
                f"gone; DROP TABLE removes the catalog entry",
            )
        )
        return _sorted(findings)
    names = os.listdir(log_dir)
    findings += log_gap_findings(_versions(names, _COMMIT_FILE), _versions(names, _CHECKPOINT_FILE))
    findings += _stale_log_temp_files(log_dir, names, now, grace)
    findings += _staging_leftovers(location, now, grace)

    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError

    try:
        dt = DeltaTable(str(location))
        version = dt.version()
        live = _live_files(dt)
        removed = {unquote(p) for p in dt.vacuum(retention_hours=0, dry_run=True, enforce_retention_duration=False)}
    except DeltaError as exc:
        findings.append(
            Finding(
                "",
                "LOG_UNREADABLE",
                ERROR,
                f"deltalake cannot read the latest version: {log_error_reason(exc) or 'see the log file'}; "
                f"every statement on the table fails until _delta_log is repaired",
            )
        )
        return _sorted(findings)

    on_disk = _data_files(location)
    lost_commit_files = [
        f
        for f in on_disk
        if f.path not in live and (stamp := _stamp(f.path)) is not None and version < stamp <= meta.known_delta_version
    ]
    if version < meta.known_delta_version:
        findings.append(_behind_finding(version, meta.known_delta_version, lost_commit_files))
    findings += _schema_findings(meta, dt)
    findings += _live_file_findings(meta, location, live, _pending_drops(location))
    lost = {f.path for f in lost_commit_files}
    unreferenced = [
        f
        for f in on_disk
        if f.path not in live and f.path not in removed and f.path not in lost and now - f.mtime >= grace
    ]
    findings += _uncommitted_findings(meta, unreferenced)
    return _sorted(findings)


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (_SEVERITY_ORDER[f.severity], f.partition, f.problem))


# ---------------------------------------------------------------------- the log's files


def _versions(names: Iterable[str], pattern: re.Pattern) -> set[int]:
    return {int(m.group(1)) for m in map(pattern.match, names) if m}


def log_gap_findings(commits: set[int], checkpoints: set[int]) -> list[Finding]:
    """Missing commit files between version 0 and the latest one.

    Commits below a checkpoint are not needed for the latest state: missing ones from version 0
    up are the log's normal cleanup; a hole higher up breaks reads of older versions only
    (WARNING). A hole the latest checkpoint does not cover makes the latest version unreadable,
    or wrong (ERROR)."""
    if not commits and not checkpoints:
        return [Finding("", "LOG_GAP", ERROR, "_delta_log holds no commit and no checkpoint")]
    latest = max(commits | checkpoints)
    latest_checkpoint = max(checkpoints, default=-1)
    findings = []
    for first, last in _ranges(sorted(set(range(latest + 1)) - commits)):
        if latest_checkpoint >= last:
            if first == 0:
                continue  # cleaned up below a checkpoint
            findings.append(
                Finding(
                    "",
                    "LOG_GAP",
                    WARNING,
                    f"{_span(first, last)} missing below checkpoint "
                    f"{latest_checkpoint}: the latest version reads fine, older versions "
                    f"that need them do not",
                )
            )
        else:
            findings.append(
                Finding(
                    "",
                    "LOG_GAP",
                    ERROR,
                    f"{_span(first, last)} missing from _delta_log and no "
                    f"checkpoint covers them (latest version {latest}, latest checkpoint "
                    f"{'none' if latest_checkpoint < 0 else latest_checkpoint}): the table "
                    f"cannot be read",
                )
            )
    return findings


def _ranges(values: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for v in values:
        if out and out[-1][1] == v - 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


def _span(first: int, last: int) -> str:
    """The commit files of versions first..last, for "<span> missing"."""
    if first == last:
        return f"commit file {first:020d}.json is"
    return f"commit files {first:020d}.json .. {last:020d}.json are"


def _stale_log_temp_files(log_dir: Path, names: list[str], now: float, grace: float) -> list[Finding]:
    """Temporary commit files a writer killed mid-commit left behind (never part of the log)."""
    stale = [n for n in names if n.endswith(".tmp") and now - _mtime(log_dir / n) >= grace]
    if not stale:
        return []
    return [
        Finding(
            "",
            "LOG_TEMP_FILES",
            LEFTOVER,
            f"{len(stale)} temporary commit file(s) of interrupted commits in _delta_log (e.g. {stale[0]}); "
            f"not part of the log",
        )
    ]


def _behind_finding(version: int, expected: int, lost_files: list[_DiskFile]) -> Finding:
    detail = (
        f"Delta log at version {version}, catalog expects >= {expected}: "
        f"{_span(version + 1, expected)} missing and the rows added there are not visible; "
        f"reads and writes of the table are refused"
    )
    if lost_files:
        detail += (
            f". {len(lost_files)} data file(s) ({_size(sum(f.size for f in lost_files))}) of those commits "
            f"are still on disk (e.g. {lost_files[0].path}): restoring the commit files brings them back"
        )
    return Finding("", "LOG_BEHIND_CATALOG", ERROR, detail)


# ---------------------------------------------------------------------- catalog and log


def _catalog_findings(meta: TableMeta) -> list[Finding]:
    findings = []
    seen: dict[str, str] = {}
    for p in meta.partitions + meta.temp_partitions:
        key = meta.partition_key(p)
        if key in seen:
            findings.append(
                Finding(
                    p.name,
                    "DUPLICATE_PARTITION_ID",
                    ERROR,
                    f"partitions {seen[key]} and {p.name} share the storage key {key} "
                    f"({PARTITION_COLUMN}): each would show the other's rows",
                )
            )
        seen[key] = p.name
    return findings


def _schema_findings(meta: TableMeta, dt) -> list[Finding]:
    import pyarrow as pa

    expected = arrow_schema(meta.definition).names
    found = pa.schema(dt.schema()).names
    if expected == found:
        return []
    return [
        Finding(
            "",
            "SCHEMA_MISMATCH",
            ERROR,
            f"the Delta table's columns ({', '.join(found)}) are not the catalog's ({', '.join(expected)})",
        )
    ]


@dataclass(frozen=True)
class _LiveFile:
    path: str
    partition: str
    bucket: int
    size: int
    rows: int


def _live_files(dt) -> dict[str, _LiveFile]:
    import pyarrow as pa

    actions = pa.table(dt.get_add_actions(flatten=True)).to_pydict()
    pcol, bcol = f"partition.{PARTITION_COLUMN}", f"partition.{BUCKET_COLUMN}"
    return {
        unquote(p): _LiveFile(unquote(p), part, int(b), size, n or 0)
        for p, part, b, size, n in zip(
            actions["path"], actions[pcol], actions[bcol], actions["size_bytes"], actions["num_records"]
        )
    }


def _live_file_findings(
    meta: TableMeta, location: Path, live: dict[str, _LiveFile], pending_drops: set[str]
) -> list[Finding]:
    """Files the log says are live: on disk, in a live (formal or temporary) partition, in one of
    its buckets."""
    partitions = {meta.partition_key(p): p for p in meta.partitions + meta.temp_partitions}
    missing: dict[str, list[_LiveFile]] = {}
    stray: dict[str, list[_LiveFile]] = {}
    out_of_range: dict[str, list[_LiveFile]] = {}
    for f in live.values():
        if not (location / f.path).is_file():
            missing.setdefault(f.partition, []).append(f)
        partition = partitions.get(f.partition)
        if partition is None:
            stray.setdefault(f.partition, []).append(f)
        elif not 0 <= f.bucket < partition.buckets:
            out_of_range.setdefault(f.partition, []).append(f)
    findings = []
    shown = {key: p.name for key, p in partitions.items()}
    for key, files in sorted(missing.items()):
        findings.append(
            Finding(
                shown.get(key, key),
                "FILE_MISSING",
                ERROR,
                f"{_files(files)} referenced by the Delta log are missing on disk (e.g. {files[0].path}): "
                f"reads of this partition fail",
            )
        )
    for key, files in sorted(stray.items()):
        if key in pending_drops:
            findings.append(
                Finding(
                    key,
                    "DROP_PENDING",
                    WARNING,
                    f"an interrupted DROP PARTITION still has {_files(files)} to remove from the "
                    f"Delta log (invisible to queries); the next DROP PARTITION, ADD PARTITION or "
                    f"scheduler pass on the table finishes it",
                )
            )
        else:
            findings.append(
                Finding(
                    key,
                    "UNKNOWN_PARTITION",
                    ERROR,
                    f"the Delta log holds {_files(files)} with {PARTITION_COLUMN}={key}, which is no "
                    f"partition of the table (a dropped partition whose removal is missing from the "
                    f"log?); queries do not read them",
                )
            )
    for key, files in sorted(out_of_range.items()):
        p = partitions[key]
        buckets = sorted({f.bucket for f in files})
        findings.append(
            Finding(
                p.name,
                "BUCKET_OUT_OF_RANGE",
                ERROR,
                f"{_files(files)} in bucket(s) {', '.join(map(str, buckets))}, but the partition has "
                f"{p.buckets} bucket(s) (0..{p.buckets - 1}): bucket pruning skips them",
            )
        )
    return findings


def _files(files: list[_LiveFile]) -> str:
    return f"{len(files)} file(s) ({sum(f.rows for f in files)} rows, {_size(sum(f.size for f in files))})"


def _pending_drops(location: Path) -> set[str]:
    """Storage keys an interrupted DROP PARTITION recorded (statements.ddl.partitions' intent file)."""

    try:
        with open(location / PENDING_DROP_FILE, encoding="utf-8") as f:
            return {str(k) for k in json.load(f)}
    except (OSError, ValueError):
        return set()


# ---------------------------------------------------------------------- files on disk


@dataclass(frozen=True)
class _DiskFile:
    path: str  # relative to the table folder
    size: int
    mtime: float


def _data_files(location: Path) -> list[_DiskFile]:
    """Every file in the table folder that a Delta reader would consider data: not under a name
    starting with '_' or '.' (the log, staging, locks, intent files, Spark's checksums)."""
    found = []
    for root, dirs, files in os.walk(location):
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(("_", ".")) or d.startswith((PARTITION_COLUMN + "=", BUCKET_COLUMN + "="))
        ]
        for name in files:
            if name.startswith(("_", ".")):
                continue
            full = os.path.join(root, name)
            try:
                st = os.stat(full)
            except FileNotFoundError:  # removed meanwhile (a cleanup)
                continue
            found.append(_DiskFile(os.path.relpath(full, location), st.st_size, st.st_mtime))
    return found


def _stamp(path: str) -> int | None:
    m = _STAMP.search(path)
    return int(m.group(1)) if m else None


def _uncommitted_findings(meta: TableMeta, files: list[_DiskFile]) -> list[Finding]:
    names = {meta.partition_key(p): p.name for p in meta.partitions + meta.temp_partitions}
    by_partition: dict[str, list[_DiskFile]] = {}
    for f in files:
        first = f.path.split(os.sep, 1)[0]
        key = first[len(PARTITION_COLUMN) + 1 :] if first.startswith(PARTITION_COLUMN + "=") else ""
        by_partition.setdefault(names.get(key, key), []).append(f)
    return [
        Finding(
            partition,
            "UNCOMMITTED_FILES",
            LEFTOVER,
            f"{len(files)} data file(s) ({_size(sum(f.size for f in files))}) that no live or removed entry "
            f"of the Delta log references (e.g. {files[0].path}): written by statements that never "
            f"committed, or removed long ago; harmless, left for the cleanup",
        )
        for partition, files in sorted(by_partition.items())
    ]


def _staging_leftovers(location: Path, now: float, grace: float) -> list[Finding]:
    staging = location / STAGING_DIR
    if not staging.is_dir():
        return []
    stale, size = [], 0
    for entry in os.listdir(staging):
        newest, total = _tree_age(staging / entry)
        if now - newest >= grace:
            stale.append(entry)
            size += total
    if not stale:
        return []
    return [
        Finding(
            "",
            "STAGING_LEFTOVER",
            LEFTOVER,
            f"{len(stale)} staging folder(s) ({_size(size)}) of loads that never finished "
            f"({STAGING_DIR}/{stale[0]}); harmless, left for the cleanup",
        )
    ]


def _orphan_body_findings(session: Session, meta: TableMeta) -> list[Finding]:
    """Stream Load bodies of this table's loads that were killed (no live load holds them)."""

    mine = [
        b
        for b in orphan_bodies(session, time.time())
        if b.record is not None and (b.record.db, b.record.table) == (meta.db, meta.name)
    ]
    if not mine:
        return []
    return [
        Finding(
            "",
            "STREAM_LOAD_BODY_LEFTOVER",
            LEFTOVER,
            f"{len(mine)} Stream Load body file(s) ({_size(sum(b.size for b in mine))}) of loads that were "
            f"killed (_staging/stream_load/{mine[0].path.name}, label {mine[0].record.label}); "  # type: ignore[union-attr]
            "harmless, ADMIN CLEAN TRASH removes them",
        )
    ]


def _tree_age(path: Path) -> tuple[float, int]:
    """(newest modification time, total size) of a file or folder tree."""
    newest, total = _mtime(path), 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                st = os.stat(os.path.join(root, name))
            except FileNotFoundError:
                continue
            newest, total = max(newest, st.st_mtime), total + st.st_size
    return newest, total


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def _size(size: int) -> str:
    return size_text(size).strip()
