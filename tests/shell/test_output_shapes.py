"""What a ``dorisql`` script prints: an INSERT prints nothing (``mysql -B``) unless ``-v`` asks
for the status lines (``mysql -vvv``, through the real command); FLOAT digits, headers as written
and complex values as Doris prints them."""

from __future__ import annotations

import io
import re

from dorisql.shell.batch import run_batch

SCRIPT = """\
CREATE DATABASE d; USE d;
CREATE TABLE m (id INT, f FLOAT, tags ARRAY<STRING>) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1;
INSERT INTO m VALUES (1, 38.638844, ['x', 'y']), (2, 0.1, NULL);
SELECT id, f, tags, count(*) FROM m GROUP BY id, f, tags ORDER BY id;
"""


def test_script_output_shapes(dorisql, wh, spark, make_engine, spark_process_env):
    # `dorisql -f` with stdout not a terminal is run_batch in tsv: run here on the shared Spark
    # (one JVM start less); the process below then reads the same warehouse with -v
    engine = make_engine(wh, spark=spark)
    out, err = io.StringIO(), io.StringIO()
    try:
        assert run_batch(engine, SCRIPT, fmt="tsv", out=out, err=err) == 0, err.getvalue()
    finally:
        engine.close()
    assert out.getvalue() == 'id\tf\ttags\tcount(*)\n1\t38.638844\t["x", "y"]\t1\n2\t0.1\tNULL\t1\n'

    again = dorisql(
        "-v",
        "-D",
        "d",
        "-e",
        "INSERT INTO m VALUES (3, 1, []); SELECT count(*) FROM m",
        env=spark_process_env,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    elapsed = r"\((?:\d+ min )?\d+\.\d\d sec\)"  # mysql's: (0.41 sec), (1 min 2.00 sec)
    assert re.fullmatch(rf"Query OK, 1 row affected {elapsed}", lines[0])
    # the INSERT's info under it, as mysql prints an OK packet's info (a load job's label)
    assert re.fullmatch(r"\{'label':'label_[0-9a-f]+_[0-9a-f]+', 'status':'VISIBLE', 'txnId':'\d+'\}", lines[1])
    assert lines[2:4] == ["count(*)", "3"]
    assert re.fullmatch(rf"1 row in set {elapsed}", lines[4])
