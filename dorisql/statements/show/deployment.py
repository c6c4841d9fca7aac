"""SHOW FRONTENDS and SHOW BACKENDS: the deployment as Doris's tools ask for it (one frontend, this
process; a backend per Spark executor)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import socket
import zlib
from urllib.parse import urlparse

from dorisql import __version__, ast
from dorisql.result import Result, size_text, time_text
from dorisql.session.session import Session
from dorisql.storage.spark import executors

SHOW_FRONTENDS_COLUMNS = [
    "Name",
    "IP",
    "HostName",
    "EditLogPort",
    "HttpPort",
    "QueryPort",
    "RpcPort",
    "Role",
    "IsMaster",
    "ClusterId",
    "Join",
    "Alive",
    "ReplayedJournalId",
    "LastHeartbeat",
    "IsHelper",
    "ErrMsg",
    "Version",
    "CurrentConnected",
]


SHOW_BACKENDS_COLUMNS = [
    "BackendId",
    "Host",
    "HeartbeatPort",
    "BePort",
    "HttpPort",
    "BrpcPort",
    "ArrowFlightSqlPort",
    "LastStartTime",
    "LastHeartbeat",
    "Alive",
    "SystemDecommissioned",
    "TabletNum",
    "DataUsedCapacity",
    "TrashUsedCapacity",
    "AvailCapacity",
    "TotalCapacity",
    "UsedPct",
    "MaxDiskUsedPct",
    "RemoteUsedCapacity",
    "Tag",
    "ErrMsg",
    "Version",
    "Status",
    "HeartbeatFailureCounter",
    "CpuCores",
    "Memory",
    "RunningTasks",
    "NodeRole",
]


#: The first backend id Doris hands out (Env's first object ids are taken by the frontend).
_FIRST_BACKEND_ID = 10002


#: When this process started: the frontend's and the local backend's start time.
_STARTED = dt.datetime.now().replace(microsecond=0)


def _host_ip() -> tuple[str, str]:
    host = socket.gethostname()
    try:
        ip = socket.gethostbyname(host)
    except OSError:  # no name service: the loopback address
        ip = "127.0.0.1"
    return ip, host


def _config_port(session: Session, name: str, default: int) -> int:
    value = getattr(session.config, name, None)
    return int(value) if isinstance(value, int) or (isinstance(value, str) and value.isdigit()) else default


def _cluster_id(session: Session) -> int:
    """A stable id of this deployment: the warehouse's (Doris's ClusterId is a random int kept in
    the meta folder; the warehouse is what identifies a dorisql deployment)."""
    return zlib.crc32(str(session.warehouse).encode()) & 0x7FFFFFFF


def show_frontends(session: Session, stmt: ast.ShowFrontends) -> Result:
    """One frontend: this process (it parses, plans and holds the catalog)."""
    ip, host = _host_ip()
    now = time_text(session.now())
    row = (
        f"fe_{host}_{os.getpid()}",
        ip,
        host,
        0,  # no edit log: the catalog is a local SQLite file
        _config_port(session, "http_port", 8030),
        _config_port(session, "query_port", 9030),
        0,
        "FOLLOWER",
        "true",
        _cluster_id(session),
        "true",
        "true",
        0,
        now,
        "true",
        "",
        f"dorisql-{__version__}",
        "Yes",
    )
    return Result.table(SHOW_FRONTENDS_COLUMNS, [row])


def _bytes_text(size: int) -> str:
    """RuntimeProfile.printCounter(..., BYTES): ``7.50 GB``, ``512.00 MB``, ``0.00 ``."""
    for limit, unit in ((1 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if size >= limit:
            return f"{size / limit:.2f} {unit}"
    return f"{size} B" if size else "0.00 "


def _warehouse_bytes(root) -> int:
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.stat(os.path.join(folder, name)).st_size
            except OSError:  # removed meanwhile
                pass
    return total


def _executors(session: Session) -> list[tuple[str, int, int, int, int, dt.datetime]]:
    """(host, port, cores, memory bytes, running tasks, start time) of the Spark executors (in
    local mode the driver, the one executor; on a cluster the executors only, the driver being the
    frontend); one backend for this machine when Spark has not started, and for the Spark Connect
    server, which does not tell its clients about its executors."""

    spark = session.running_spark
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    local = ("127.0.0.1", -1, os.cpu_count() or 1, memory, 0, _STARTED)
    if spark is None:
        return [local]
    if session.connect:
        remote = session.config.remote or ""  # (an embedding may hand over a Connect session without it)
        host = urlparse(remote.replace("sc://", "http://", 1)).hostname or "127.0.0.1"
        return [(host, -1, 0, 0, 0, _STARTED)]  # cores and memory unknown here
    sc = spark.sparkContext
    started = dt.datetime.fromtimestamp(sc.startTime / 1000).replace(microsecond=0)
    found = executors(spark, session.config.master)
    out = [(e.host, e.port, e.cores, e.memory or memory, e.running_tasks, started) for e in found]
    return out or [local]


def show_backends(session: Session, stmt: ast.ShowBackends) -> Result:
    """The Spark driver and executors that run the queries (one local backend before Spark starts)."""
    executors = _executors(session)
    tablets = sum(p.buckets for m in session.catalog.list_table_metas() for p in m.partitions)
    used = _warehouse_bytes(session.warehouse)
    disk = shutil.disk_usage(session.warehouse)
    now = time_text(session.now())
    rows = []
    for i, (host, port, cores, memory, running, started) in enumerate(sorted(executors)):
        share = tablets // len(executors) + (1 if i < tablets % len(executors) else 0)
        rows.append(
            (
                _FIRST_BACKEND_ID + i,
                host,
                -1,
                port,
                -1,
                -1,
                -1,
                time_text(started),
                now,
                "true",
                "false",
                share,
                size_text(used // len(executors)),
                size_text(0),
                size_text(disk.free),
                size_text(disk.total),
                f"{(disk.total - disk.free) * 100 / disk.total if disk.total else 0.0:.2f} %",
                f"{(disk.total - disk.free) * 100 / disk.total if disk.total else 0.0:.2f} %",
                size_text(0),
                '{"location" : "default"}',
                "",
                f"dorisql-{__version__}",
                '{"isQueryDisabled":false,"isLoadDisabled":false}',
                0,
                cores,
                _bytes_text(memory),
                running,
                "mix",
            )
        )
    return Result.table(SHOW_BACKENDS_COLUMNS, rows)
