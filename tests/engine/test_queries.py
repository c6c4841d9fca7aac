"""Queries: FROM t PARTITION (...), joins, key models across loads, EXPLAIN, partition and bucket
pruning (checked against the files each scan really reads)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from dorisql.errors import DorisqlError
from dorisql.statements.load import insert as dml
from dorisql.syntax import parse_one

from .conftest import delta_rows, rows, run


@pytest.fixture(scope="module")
def events(engine):
    run(
        engine,
        """CREATE TABLE events (k1 INT NOT NULL, k2 VARCHAR(8) NOT NULL, day DATE NOT NULL, v BIGINT)
        DUPLICATE KEY(k1, k2)
        PARTITION BY RANGE(day) (
            PARTITION p1 VALUES LESS THAN ("2024-02-01"),
            PARTITION p2 VALUES LESS THAN ("2024-03-01"),
            PARTITION p3 VALUES LESS THAN ("2024-04-01"),
            PARTITION p4 VALUES LESS THAN ("2024-05-01"))
        DISTRIBUTED BY HASH(k1, k2) BUCKETS 8 PROPERTIES ("replication_num" = "1")""",
    )
    values = ", ".join(f"({i % 20}, 'k{i % 3}', '2024-0{1 + i % 4}-{1 + i % 27:02d}', {i})" for i in range(240))
    run(engine, f"INSERT INTO events VALUES {values}")
    run(
        engine,
        """CREATE TABLE cities (k1 INT NOT NULL, name VARCHAR(16)) UNIQUE KEY(k1)
        DISTRIBUTED BY HASH(k1) BUCKETS 2""",
    )
    run(engine, "INSERT INTO cities VALUES " + ", ".join(f"({i}, 'city{i}')" for i in range(0, 20, 2)))
    return "events"


def _scans(engine, sql):
    _df, scans = dml._run_query(engine, parse_one(sql))
    return scans


def test_from_partition_clause(engine, events):
    assert rows(engine, "SELECT count(*) FROM events PARTITION (p1, p3)") == [(120,)]
    assert rows(engine, "SELECT count(*) FROM events PARTITION p2") == [(60,)]
    assert rows(engine, "SELECT min(day), max(day) FROM events PARTITIONS (p4)")[0][0].month == 4
    scans = _scans(engine, "SELECT * FROM events PARTITION (p1, p3) WHERE v > 0")
    assert scans[0].partitions == ("p1", "p3") and scans[0].partitions_total == 4
    keys = engine.catalog.load_table("d", "events").partition_keys(["p1", "p3"]).values()
    assert scans[0].files and all(any(f"__partition={k}/" in f for k in keys) for f in scans[0].files)
    with pytest.raises(DorisqlError):
        run(engine, "SELECT * FROM events PARTITION (nope)")


def test_join_two_tables(engine, events):
    got = rows(
        engine,
        """SELECT c.name, count(*) AS n, sum(e.v) AS s FROM events e JOIN cities c ON e.k1 = c.k1
        WHERE e.day < '2024-02-01' GROUP BY c.name ORDER BY c.name""",
    )
    expected: dict[str, list[int]] = {}
    for i in range(240):
        if 1 + i % 4 == 1 and (i % 20) % 2 == 0:
            expected.setdefault(f"city{i % 20}", []).append(i)
    assert got == [(name, len(vs), sum(vs)) for name, vs in sorted(expected.items())]
    assert rows(engine, "SELECT count(*) FROM events e LEFT JOIN cities c ON e.k1 = c.k1 WHERE c.name IS NULL") == [
        (120,)
    ]


def test_partition_and_bucket_pruning(engine, events):
    # Equality on every hash column: one partition, one bucket, and only that bucket's files.
    scans = _scans(
        engine, "SELECT * FROM events WHERE k1 = 7 AND k2 = 'k1' AND day >= '2024-04-01' AND day < '2024-05-01'"
    )
    s = scans[0]
    assert s.partitions == ("p4",) and s.buckets_read == 1 and s.buckets_in_partitions == 8 and s.buckets_total == 32
    (bucket,) = s.buckets["p4"]
    stored = {
        (r["__partition"], r["__bucket"])
        for r in delta_rows(engine, "events", columns=["k1", "k2", "__partition", "__bucket"])
        if r["k1"] == 7 and r["k2"] == "k1"
    }
    assert stored == {("p4", bucket)}
    p4 = engine.catalog.load_table("d", "events").partition_keys(["p4"])["p4"]
    assert s.files and all(f"__partition={p4}/__bucket={bucket}/" in f for f in s.files)
    every_p4 = {
        f for f in _scans(engine, "SELECT * FROM events WHERE day >= '2024-04-01' AND day < '2024-05-01'")[0].files
    }
    assert set(s.files) < every_p4
    # The pruned read still finds every matching row.
    expect = sorted(i for i in range(240) if i % 20 == 7 and i % 3 == 1 and 1 + i % 4 == 4)
    assert expect
    assert (
        sorted(
            r[0]
            for r in rows(
                engine, "SELECT v FROM events WHERE k1 = 7 AND k2 = 'k1' AND day >= '2024-04-01' AND day < '2024-05-01'"
            )
        )
        == expect
    )
    # Equality on only one of the two hash columns cannot prune buckets.
    s = _scans(engine, "SELECT * FROM events WHERE k1 = 7")[0]
    assert s.buckets is None and s.buckets_read == 32
    # IN on both: a few buckets per partition.
    s = _scans(engine, "SELECT * FROM events WHERE k1 IN (1, 2) AND k2 = 'k0' AND day = '2024-04-03'")[0]
    assert s.partitions == ("p4",) and 1 <= s.buckets_read <= 2


def test_explain(engine, events):
    lines = [
        r[0] for r in rows(engine, "EXPLAIN SELECT * FROM events WHERE k1 = 3 AND k2 = 'k0' AND day < '2024-03-01'")
    ]
    text = "\n".join(lines)
    assert "VOlapScanNode" in text
    assert "partitions=2/4 (p1,p2)" in text
    assert "tablets=2/16" in text
    assert re.search(r"buckets: p1=\[\d\], p2=\[\d\]", text)
    files = int(re.search(r"files=(\d+)", text).group(1))
    assert files == len(
        _scans(engine, "SELECT * FROM events WHERE k1 = 3 AND k2 = 'k0' AND day < '2024-03-01'")[0].files
    )
    full = "\n".join(r[0] for r in rows(engine, "EXPLAIN SELECT * FROM events"))
    assert "partitions=4/4" in full and "tablets=32/32" in full


def test_key_models_across_loads(engine):
    run(engine, "CREATE TABLE dup (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    run(engine, "CREATE TABLE uniq (k INT, v INT, s VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    run(
        engine,
        """CREATE TABLE agg (k INT, total BIGINT SUM, hi INT MAX, lo INT MIN, last VARCHAR(8) REPLACE,
        keep VARCHAR(8) REPLACE_IF_NOT_NULL) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2""",
    )
    for load in [
        (
            "(1, 10), (1, 10), (2, 20)",
            "(1, 10, 'a'), (2, 20, 'b')",
            "(1, 5, 5, 5, 'x', 'keep1'), (2, 1, 1, 1, 'y', NULL)",
        ),
        ("(1, 10)", "(1, 11, 'a2'), (3, 30, 'c')", "(1, 7, 9, 2, 'z', NULL), (2, 2, 0, 3, NULL, 'k2')"),
        ("(3, 30)", "(1, 12, NULL)", "(1, 1, 1, 1, 'w', 'keep3')"),
    ]:
        run(engine, f"INSERT INTO dup VALUES {load[0]}")
        run(engine, f"INSERT INTO uniq VALUES {load[1]}")
        run(engine, f"INSERT INTO agg VALUES {load[2]}")
    assert sorted(rows(engine, "SELECT k, v FROM dup")) == [(1, 10), (1, 10), (1, 10), (2, 20), (3, 30)]
    assert rows(engine, "SELECT k, v, s FROM uniq ORDER BY k") == [(1, 12, None), (2, 20, "b"), (3, 30, "c")]
    assert rows(engine, "SELECT * FROM agg ORDER BY k") == [(1, 13, 9, 1, "w", "keep3"), (2, 3, 1, 1, None, "k2")]
    # AGGREGATE merges on read: an outside reader sees every load's rows; the UNIQUE table is
    # merge-on-write (the default): one stored row per key.
    assert len(delta_rows(engine, "uniq")) == 3 and len(delta_rows(engine, "agg")) == 5
    # Within one load the last row of a key wins too (UNIQUE).
    run(engine, "INSERT INTO uniq VALUES (4, 1, 'first'), (4, 2, 'second')")
    assert rows(engine, "SELECT v, s FROM uniq WHERE k = 4") == [(2, "second")]
    assert rows(engine, "SELECT count(*) FROM uniq") == [(4,)]
    assert rows(engine, "SELECT sum(total) FROM agg") == [(Decimal(16),)] or rows(
        engine, "SELECT sum(total) FROM agg"
    ) == [(16,)]


def test_partitions_with_their_own_bucket_counts(engine):
    run(
        engine,
        """CREATE TABLE mixed (k INT NOT NULL, day DATE NOT NULL) DUPLICATE KEY(k)
        PARTITION BY RANGE(day) (PARTITION p1 VALUES LESS THAN ("2024-02-01"), PARTITION p2 VALUES LESS THAN ("2024-03-01"))
        DISTRIBUTED BY HASH(k) BUCKETS 8""",
    )
    run(engine, 'ALTER TABLE mixed ADD PARTITION p3 VALUES LESS THAN ("2024-04-01") DISTRIBUTED BY HASH(k) BUCKETS 3')
    run(engine, 'ALTER TABLE mixed ADD PARTITION p4 VALUES LESS THAN ("2024-05-01") DISTRIBUTED BY HASH(k) BUCKETS 1')
    assert [r[8] for r in rows(engine, "SHOW PARTITIONS FROM mixed")] == [8, 8, 3, 1]
    run(engine, "INSERT INTO mixed VALUES " + ", ".join(f"({i}, '2024-0{1 + i % 4}-02')" for i in range(200)))
    stored = delta_rows(engine, "mixed", columns=["k", "__partition", "__bucket"])
    limit = {"p1": 8, "p2": 8, "p3": 3, "p4": 1}
    assert all(0 <= r["__bucket"] < limit[r["__partition"]] for r in stored)
    assert {r["__bucket"] for r in stored if r["__partition"] == "p3"} == {0, 1, 2}
    # Pruning computes the same bucket as the load did, whatever the partition's count.
    for r in stored[:40]:
        s = _scans(engine, f"SELECT * FROM mixed WHERE k = {r['k']}")[0]
        assert s.buckets[r["__partition"]] == frozenset({r["__bucket"]})
    for r in [next(x for x in stored if x["__partition"] == p) for p in limit]:
        assert rows(engine, f"SELECT k FROM mixed WHERE k = {r['k']}") == [(r["k"],)]
