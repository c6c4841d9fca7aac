"""examples/quickstart.sql (README command 1) as a newcomer sees it on a terminal: every step's
comment and statement, then its result as a table (run_batch with the echo `dorisql -f` uses on
a terminal, on the shared Spark session; tests/shell/test_terminal_output.py covers the
terminal detection with the real command)."""

from __future__ import annotations

import io
import re
from pathlib import Path

from dorisql.shell.batch import run_batch

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.sql"


def test_quickstart_tells_its_story(spark, make_engine, tmp_path):
    engine = make_engine(tmp_path / "wh", spark=spark)
    out, err = io.StringIO(), io.StringIO()
    try:
        status = run_batch(
            engine, QUICKSTART.read_text(), filename=str(QUICKSTART), fmt="table", echo=True, out=out, err=err
        )
    finally:
        engine.close()
    assert (status, err.getvalue()) == (0, "")
    story = re.sub(r"\((?:\d+ min )?\d+\.\d\d sec\)", "(t)", out.getvalue())
    steps = re.findall(r"^-- (\d)\. ", story, re.M)
    assert steps == [str(n) for n in range(1, 9)]  # the numbered comments, echoed in order
    assert story.count("Query OK, 3000 rows affected (t)\n{'label':'") == 2
    # where the rows went, as a table of the columns that matter
    assert re.search(r"\| p201702 +\| .*2017-03-01.* \| +405 \|\n", story)
    assert "+--------+-------+\n| visits | cost  |\n+--------+-------+\n|    405 | 97327 |\n" in story
    assert "| Tokyo     |    476 | 121300 |\n+-----------+--------+--------+\n4 rows in set (t)\n" in story
    # EXPLAIN: what is read, then Spark's operator tree, narrow enough for a terminal
    explain = story[story.index("| Explain String") : story.index("-- 8.")]
    for line in ("partitions=1/4 (p201703)", "tablets=1/16", "merge: AGGREGATE KEY (merge on read)"):
        assert line in explain
    assert explain.index("tablets=1/16") < explain.index("== Spark physical plan ==") < explain.index("Scan parquet")
    assert max(map(len, explain.splitlines())) < 100
    # \G: one field a line, SHOW CREATE TABLE with its own line breaks
    assert "           PartitionName: p_cn\n" in story and "                RowCount: 1500\n" in story
    assert "Create Table: CREATE TABLE `example_range_tbl` (\n  `user_id` largeint NOT NULL" in story
