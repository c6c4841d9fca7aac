"""A warehouse on a read-only mount: reads work, writes say why, the scheduler says so once.

The real `dorisql` runs in a private mount namespace where the warehouse is bind-mounted
read-only (which stops root too, unlike file permissions)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DORISQL = str(Path(sys.executable).with_name("dorisql"))


def _can_mount_read_only(folder: Path) -> bool:
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} {folder}"],
        capture_output=True,
    )
    return probe.returncode == 0


def _dorisql(args, env, read_only: Path | None = None):
    command = [DORISQL, *args]
    if read_only is not None:
        folder = shlex.quote(str(read_only))
        command = [
            "unshare",
            "-m",
            "sh",
            "-c",
            f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} {folder} && exec "
            + " ".join(shlex.quote(a) for a in command),
        ]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_reads_work_and_writes_are_refused_on_a_read_only_warehouse(tmp_path, process_env):
    warehouse = tmp_path / "wh"
    made = _dorisql(
        [
            "--warehouse",
            str(warehouse),
            "-e",
            "CREATE DATABASE d; CREATE TABLE d.t (k INT, day DATE) DUPLICATE KEY(k) "
            "PARTITION BY RANGE(day) (PARTITION p1 VALUES LESS THAN ('2024-02-01')) "
            "DISTRIBUTED BY HASH(k) BUCKETS 2",
        ],
        process_env,
    )
    assert made.returncode == 0, made.stderr
    if shutil.which("unshare") is None or not _can_mount_read_only(warehouse):
        if os.environ.get("CI"):
            pytest.fail("CI runs as root with unshare: a read-only bind mount must be possible")
        pytest.skip("this machine cannot make a private read-only bind mount (needs root and unshare)")
    env = process_env

    read = _dorisql(
        [
            "--warehouse",
            str(warehouse),
            "--format",
            "tsv",
            "-e",
            "SHOW DATABASES; SHOW TABLES FROM d; SHOW PARTITIONS FROM d.t; DESC d.t",
        ],
        env,
        read_only=warehouse,
    )
    assert read.returncode == 0, read.stderr
    assert "d\n" in read.stdout and "t\n" in read.stdout and "p1" in read.stdout
    assert "Traceback" not in read.stderr

    for statement in (
        "CREATE DATABASE e",
        "DROP TABLE d.t",
        "ALTER TABLE d.t ADD PARTITION p2 VALUES LESS THAN ('2024-03-01')",
        "INSERT INTO d.t VALUES (1, '2024-01-05')",
    ):
        wrote = _dorisql(["--warehouse", str(warehouse), "-e", statement], env, read_only=warehouse)
        assert wrote.returncode == 1, (statement, wrote.stderr)
        assert f"The warehouse '{warehouse}' is read-only" in wrote.stderr, wrote.stderr
        assert "Traceback" not in wrote.stderr and len(wrote.stderr.strip().splitlines()) == 1

    scheduled = _dorisql(["--warehouse", str(warehouse), "scheduler", "--once"], env, read_only=warehouse)
    assert "Traceback" not in scheduled.stderr
    assert "read-only" in scheduled.stdout + scheduled.stderr

    still = _dorisql(["--warehouse", str(warehouse), "--format", "tsv", "-e", "SHOW PARTITIONS FROM d.t"], process_env)
    assert still.returncode == 0 and "p1" in still.stdout  # nothing was changed
