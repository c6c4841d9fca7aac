"""INSERT ... VALUES of plain literals reaches Spark as Arrow batches of the values (not as a
Spark SQL VALUES text of the same size, which an 850,000-row, 16 MB statement turned into
millions of expression nodes on the driver and ran it out of memory); rows with expressions
keep Spark's VALUES list. Either way the rows stored are the same."""

from __future__ import annotations

import time
from decimal import Decimal

from dorisql.statements.load.insert import _plain_columns
from dorisql.syntax import parse_one

from .conftest import delta_rows, rows, run

TABLE = """CREATE TABLE IF NOT EXISTS {name} (
    k BIGINT, s VARCHAR(40), d DECIMAL(10, 2), b BOOLEAN, t DATETIME DEFAULT CURRENT_TIMESTAMP,
    n INT DEFAULT '7')
    DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ('replication_num' = '1')"""


def test_plain_literals_are_loaded_from_arrow_as_the_sql_path_would(engine):
    run(engine, TABLE.format(name="plain") + "; " + TABLE.format(name="computed"))
    values = (
        "(1, 'it''s', 1.5, TRUE, '2024-01-02 03:04:05', DEFAULT), "
        "(-2, 'back\\\\slash', -0.25, false, NULL, NULL), "
        "(3, '', 12, NULL, DEFAULT, - 4), "
        "(4, 'é中', '7.125', 'true', '2024-02-29', 5)"
    )
    statement = parse_one(f"INSERT INTO plain VALUES {values}")
    assert _plain_columns(statement.rows, engine.catalog.load_table("d", "plain").definition.columns) is not None
    run(engine, f"INSERT INTO plain VALUES {values}")
    # the same rows with one expression: Spark's VALUES list, evaluated there
    run(engine, f"INSERT INTO computed VALUES {values.replace('(3, ', '(1 + 2, ')}")
    plain = rows(engine, "SELECT k, s, d, b, n, t IS NULL FROM plain ORDER BY k")
    assert plain == rows(engine, "SELECT k, s, d, b, n, t IS NULL FROM computed ORDER BY k")
    assert [r[:5] for r in plain] == [
        (-2, "back\\slash", -0.25, False, None),
        (1, "it's", 1.5, True, 7),
        (3, "", 12, None, -4),
        (4, "é中", Decimal("7.13"), True, 5),
    ]
    assert [r[5] for r in plain] == [True, False, False, False]


def test_a_large_values_list_loads_and_reads_back(engine):
    """25,000 rows: the values reach Spark as Arrow batches of at most 10,000 rows (Spark's
    arrow.maxRecordsPerBatch), three here, the last one partial. The size only has to pass a
    batch: the bytes in the driver are the values' whatever the count (the full 850,000-row
    case is in docs/server.md's figures, too slow for CI), and the statement's parse is shown
    linear in its rows by test_statement_size.py."""
    run(engine, TABLE.format(name="big"))
    n = 25_000
    sql = "INSERT INTO big (k, s, d) VALUES " + ", ".join(f"({i}, 'row {i}', {i % 1000}.5)" for i in range(n))
    start = time.perf_counter()
    assert run(engine, sql).affected_rows == n
    elapsed = time.perf_counter() - start
    assert rows(engine, "SELECT count(*), sum(k), max(s), sum(n) FROM big") == [
        (n, n * (n - 1) // 2, max(f"row {i}" for i in range(n)), 7 * n)
    ]
    assert len(delta_rows(engine, "big", columns=["k"])) == n
    assert elapsed < 600
