"""examples/daily_pipeline.sql runs with the real ``dorisql -f`` command: AUTO PARTITION loads from
CSV, ADD COLUMN, INSERT OVERWRITE of one day, a temporary partition swapped in by REPLACE
PARTITION; the final table holds exactly the rows the script promises, and an outside Delta
reader sees the same."""

from __future__ import annotations

import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "daily_pipeline.sql"
DORISQL = shutil.which("dorisql", path=str(Path(sys.executable).parent)) or shutil.which("dorisql")


def _blocks(stdout: str) -> dict[str, list[list[str]]]:
    """Result sets of a batch run (tab-separated, each starting with its header line), by first header."""
    blocks: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    for line in stdout.splitlines():
        cells = line.split("\t")
        if cells[0] in ("staged_rows", "PartitionId", "day"):
            current = blocks.setdefault(cells[0], [])
        if current is not None:
            current.append(cells)
    return blocks


def test_daily_pipeline_example(tmp_path, spark_process_env):
    warehouse = tmp_path / "wh"
    proc = subprocess.run(
        [DORISQL, "--warehouse", str(warehouse), "-f", str(EXAMPLE)],
        capture_output=True,
        text=True,
        env=spark_process_env,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    blocks = _blocks(proc.stdout)

    assert blocks["staged_rows"][1] == ["3", "49.25"]

    header, *partitions = blocks["PartitionId"]
    names = sorted(row[header.index("PartitionName")] for row in partitions)
    assert names == ["p20240601000000", "p20240602000000", "p20240603000000"]

    assert blocks["day"] == [
        ["day", "channel", "orders", "amount"],
        ["2024-06-01", "web", "3", "67.40"],
        ["2024-06-02", "app", "2", "37.25"],
        ["2024-06-02", "web", "1", "12.00"],
        ["2024-06-03", "app", "1", "100.00"],
        ["2024-06-03", "web", "1", "3.10"],
    ]

    # An outside Delta reader sees the live files: day 2 as swapped in, day 3 as rebuilt.
    from deltalake import DeltaTable

    (table_dir,) = [p for p in (warehouse / "pipeline_demo").iterdir() if (p / "_delta_log").is_dir()]
    rows = DeltaTable(str(table_dir)).to_pyarrow_table(columns=["order_id", "amount"]).to_pylist()
    assert sorted((r["order_id"], r["amount"]) for r in rows) == [
        (1001, Decimal("19.90")),
        (1002, Decimal("5.00")),
        (1003, Decimal("42.50")),
        (2001, Decimal("12.00")),
        (2002, Decimal("7.25")),
        (2003, Decimal("30.00")),
        (3001, Decimal("100.00")),
        (3003, Decimal("3.10")),
    ]
