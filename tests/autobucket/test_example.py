"""examples/auto_bucket.sql runs with the real ``dorisql -f`` command and prints what it promises."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "auto_bucket.sql"
DORISQL = shutil.which("dorisql", path=str(Path(sys.executable).parent)) or shutil.which("dorisql")


@pytest.fixture
def run(tmp_path, spark_process_env):
    def go(*args):
        return subprocess.run(
            [DORISQL, "--warehouse", str(tmp_path / "wh"), *args],
            capture_output=True,
            text=True,
            env=spark_process_env,
            timeout=300,
            cwd=tmp_path,
        )

    return go


def _blocks(stdout: str) -> list[list[list[str]]]:
    """Result sets of a batch run (tab-separated, each starting with its header line)."""
    headers = ("PartitionId\t", "PartitionName\t", "Table\t", "site\t", "Explain String")
    blocks: list[list[list[str]]] = []
    for line in stdout.splitlines():
        if line.startswith(headers):
            blocks.append([])
        if blocks:
            blocks[-1].append(line.split("\t"))
    return blocks


def test_auto_bucket_example_runs(run):
    proc = run("-f", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    partitions, buckets, create, totals, explain = _blocks(proc.stdout)

    header = partitions[0]
    got = {row[header.index("PartitionName")]: int(row[header.index("Buckets")]) for row in partitions[1:]}
    assert got == {"p20240101": 20, "p20240102": 20, "p20240103": 1, "p20240104": 5}

    assert buckets[0] == ["PartitionName", "Buckets", "Rule", "EstimateSize", "N", "M", "Reason", "History"]
    rows = {r[0]: r for r in buckets[1:]}
    assert rows["p20240101"][1:6] == ["20", "auto-initial", "100GB", "20", "60"]
    assert rows["p20240103"][1:3] == ["1", "auto-subsequent"]
    assert "EMA" in rows["p20240103"][6] and rows["p20240103"][7].count("KB") == 2
    assert rows["p20240104"][1:3] == ["5", "fixed"]

    ddl = create[1][1]
    assert "DISTRIBUTED BY HASH(`site`) BUCKETS AUTO" in ddl
    assert '"estimate_partition_size" = "100G"' in ddl

    assert totals[1:] == [["delta.io", "4"], ["doris.apache.org", "42"], ["spark.apache.org", "7"]]
    plan = "\n".join(r[0] for r in explain)
    assert "partitions=1/4 (p20240101)" in plan and "tablets=1/20" in plan
