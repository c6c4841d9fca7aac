"""Doris's DDL rules as a user moving their Doris scripts sees them: `dorisql --force -f` on a
script in the style of Doris's regression suites (issue 11)."""

from __future__ import annotations

SCRIPT = """\
CREATE DATABASE d;
USE d;
CREATE TABLE t (k1 INT NOT NULL, k2 INT NOT NULL, v INT) DUPLICATE KEY(k1, k2)
PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ("10"))
DISTRIBUTED BY HASH(k1) BUCKETS 3 PROPERTIES ("replication_num" = "1");
SYNC;
ALTER TABLE t ADD PARTITION p2 VALUES LESS THAN ("20") DISTRIBUTED BY RANDOM BUCKETS 13;
ALTER TABLE t ADD PARTITION p2 VALUES LESS THAN ("20") DISTRIBUTED BY HASH(k1, k2) BUCKETS 13;
ALTER TABLE t ADD PARTITION p2 VALUES LESS THAN ("20") DISTRIBUTED BY HASH(k1) BUCKETS 0;
ALTER TABLE t ADD PARTITION p2 VALUES LESS THAN ("20") DISTRIBUTED BY HASH(k1) BUCKETS 5;
ALTER TABLE t DROP PARTITION nope;
CREATE TABLE z (k INT) DISTRIBUTED BY HASH(k) BUCKETS 0;
CREATE TABLE z (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1", "colour" = "red");
SHOW PARTITIONS FROM t;
"""


def test_a_doris_style_script_gets_dorises_messages(dorisql, tmp_path):
    """No Spark here: every statement is catalog-only (the pure tier has no Java)."""
    script = tmp_path / "rules.sql"
    script.write_text(SCRIPT)
    out = dorisql("--force", "-f", str(script))
    assert out.returncode == 1
    errors = [line.split(": ", 1)[1] for line in out.stderr.splitlines() if line.startswith("ERROR ")]
    assert errors == [
        "Cannot assign different distribution type. default is: HASH",
        "Cannot assign hash distribution with different distribution cols. "
        "new is: [`k1` INT NOT NULL, `k2` INT NOT NULL] default is: [`k1` INT NOT NULL]",
        "Cannot assign hash distribution buckets less than 1",
        "Error in list of partitions to nope",
        "Number of hash distribution should be greater than zero.",
        "Unknown properties: {colour=red}",
    ]
    assert [line.split(" ", 1)[0] for line in out.stderr.splitlines() if line.startswith("ERROR ")] == ["ERROR"] * 6
    assert "line 7 in file" in out.stderr and "line 11 in file" in out.stderr  # each where it was written
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    header = rows[0]
    shown = [
        (r[header.index("PartitionName")], r[header.index("DistributionKey")], r[header.index("Buckets")])
        for r in rows[1:]
    ]
    assert shown == [("p1", "k1", "3"), ("p2", "k1", "5")]  # only the bucket count could change


def test_a_row_no_partition_holds_is_refused_in_dorises_words(dorisql, tmp_path, spark_process_env):
    """Doris BE (VOlapTableSink): "no partition for this tuple"; strict mode refuses the INSERT."""
    script = tmp_path / "insert.sql"
    script.write_text(
        "CREATE DATABASE d; USE d;\n"
        "CREATE TABLE t (k1 INT NOT NULL, v INT) DUPLICATE KEY(k1) PARTITION BY RANGE(k1) "
        '(PARTITION p1 VALUES LESS THAN ("10")) DISTRIBUTED BY HASH(k1) BUCKETS 1;\n'
        "INSERT INTO t VALUES (1, 1), (50, 2);\n"
        "SYNC;\n"
        "SELECT count(*) FROM t;\n"
    )
    out = dorisql("--force", "-f", str(script), env=spark_process_env)
    assert out.returncode == 1
    (error,) = [line for line in out.stderr.splitlines() if line.startswith("ERROR ")]
    assert "at line 3 in file" in error and "(50, 2): no partition for this tuple" in error
    assert out.stdout.splitlines()[-1] == "0"  # nothing was loaded
