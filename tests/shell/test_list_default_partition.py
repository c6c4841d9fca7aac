"""LIST DEFAULT partitions end to end through the real ``dorisql -f`` (Spark, Delta), translated
from Doris's regression-test/suites/partition_p0/list_partition/test_list_default_partition.groovy."""

from __future__ import annotations

SCRIPT = """CREATE DATABASE d;
USE d;
CREATE TABLE list_default_par (k1 TINYINT NOT NULL, k2 SMALLINT NOT NULL, v INT SUM NOT NULL)
AGGREGATE KEY(k1, k2)
PARTITION BY LIST(k1) (PARTITION p1 VALUES IN ("1","2","3","4"), PARTITION p2 VALUES IN ("5","6","7","8"), PARTITION p3)
DISTRIBUTED BY HASH(k1) BUCKETS 2 PROPERTIES ("replication_num" = "1");
INSERT INTO list_default_par VALUES (1,1,1), (10,1,1), (11,1,1);
SELECT * FROM list_default_par PARTITION p3 ORDER BY k1;
SHOW PARTITIONS FROM list_default_par;
ALTER TABLE list_default_par ADD PARTITION p5;
ALTER TABLE list_default_par ADD PARTITION p4 VALUES IN ("10");
INSERT INTO list_default_par VALUES (10,2,1);
SELECT * FROM list_default_par WHERE k1 = 10 ORDER BY k2;
ALTER TABLE list_default_par DROP PARTITION p3;
SELECT * FROM list_default_par ORDER BY k1, k2;
"""


def test_a_default_partition_takes_loads_queries_show_and_drop(dorisql, spark_process_env, tmp_path):
    script = tmp_path / "list_default.sql"
    script.write_text(SCRIPT)
    out = dorisql("--force", "-f", str(script), timeout=600)
    errors = [line for line in out.stderr.splitlines() if line.startswith("ERROR")]
    # a second default partition: Doris's "Invalid list value format: ... The partition key" message
    assert errors == [
        f"ERROR 1105 (HY000) at line 10 in file {script}: "
        "Invalid list value format: The partition key[] in partition item[(())] is conflict with current partitionKeys[]"
    ]
    # SHOW PARTITIONS: the default partition first (its key is the type minimum), Doris's text
    shown = [line.split("\t") for line in out.stdout.splitlines() if "\tNORMAL\t" in line]
    assert [(row[1], row[6]) for row in shown] == [
        ("p3", "[types: [TINYINT]; keys: [default key]; ]"),
        (
            "p1",
            "[types: [TINYINT]; keys: [1]; , types: [TINYINT]; keys: [2]; , types: [TINYINT]; keys: [3]; , types: [TINYINT]; keys: [4]; ]",
        ),
        (
            "p2",
            "[types: [TINYINT]; keys: [5]; , types: [TINYINT]; keys: [6]; , types: [TINYINT]; keys: [7]; , types: [TINYINT]; keys: [8]; ]",
        ),
    ]
    blocks = out.stdout.split("k1\tk2\tv\n")
    # rows no value partition holds went to the default partition p3
    assert blocks[1].split("PartitionId\t")[0] == "10\t1\t1\n11\t1\t1\n"
    # the rows with 10 loaded before p4 existed stay in p3 and are still found by a WHERE on k1
    assert blocks[2] == "10\t1\t1\n10\t2\t1\n"
    # dropping p3 drops its rows
    assert blocks[3] == "1\t1\t1\n10\t2\t1\n"
