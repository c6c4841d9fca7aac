"""Generated columns (`c INT [GENERATED ALWAYS] AS (expr)`, Doris 2.1) on a real engine: the value
is computed from the row at every load (INSERT VALUES, INSERT SELECT, UPDATE), a value given
for it is refused with Doris's message, and SHOW CREATE TABLE / DESC show it (issue 28, item 15).
"""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, DorisqlError

from .conftest import rows, run

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def gen(engine):
    run(
        engine,
        """CREATE TABLE gen (a INT, c DOUBLE GENERATED ALWAYS AS (abs(a + b)) NOT NULL, b INT,
               d INT AS (c + 1))
           DISTRIBUTED BY HASH(a) BUCKETS 1""",
    )
    return "gen"


def test_values_and_select_compute_the_generated_columns(engine, gen):
    run(engine, "INSERT INTO gen VALUES (1, DEFAULT, -5, DEFAULT)")
    run(engine, "INSERT INTO gen (a, b) VALUES (5, 6)")
    run(engine, "INSERT INTO gen (b, a) SELECT 10, 2")
    assert rows(engine, "SELECT a, c, b, d FROM gen ORDER BY a") == [
        (1, 4.0, -5, 5),
        (2, 12.0, 10, 13),
        (5, 11.0, 6, 12),
    ]


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO gen VALUES (7, 3, 4, DEFAULT)",
        "INSERT INTO gen (a, b, c) VALUES (7, 4, DEFAULT), (8, 4, 12)",
        "INSERT INTO gen SELECT 7, 1, 4, 2",
        "INSERT INTO gen (a, c) SELECT 7, 1",
    ],
)
def test_a_value_for_a_generated_column_is_refused(engine, gen, sql):
    before = rows(engine, "SELECT count(*) FROM gen")
    with pytest.raises(AnalysisError) as info:
        run(engine, sql)
    assert str(info.value) == "The value specified for generated column 'c' in table 'gen' is not allowed."
    assert rows(engine, "SELECT count(*) FROM gen") == before


def test_a_null_result_in_a_not_null_generated_column_is_filtered(engine, gen):
    before = rows(engine, "SELECT count(*) FROM gen")
    with pytest.raises(DorisqlError, match="Insert has filtered data in strict mode"):
        run(engine, "INSERT INTO gen (a, b) VALUES (9, NULL)")
    assert rows(engine, "SELECT count(*) FROM gen") == before


def test_update_recomputes_and_refuses_the_generated_column(engine):
    run(
        engine,
        """CREATE TABLE upd (a INT, b INT, c INT AS (a + b)) UNIQUE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 1;
           INSERT INTO upd VALUES (1, 3, DEFAULT), (2, 4, DEFAULT)""",
    )
    run(engine, "UPDATE upd SET b = 20 WHERE a = 1")
    assert rows(engine, "SELECT * FROM upd ORDER BY a") == [(1, 20, 21), (2, 4, 6)]
    with pytest.raises(AnalysisError, match="The value specified for generated column 'c' in table 'upd'"):
        run(engine, "UPDATE upd SET c = 1")


def test_show_create_table_round_trips_and_desc_marks_them(engine, gen):
    (create,) = rows(engine, "SHOW CREATE TABLE gen")
    text = create[1]
    assert "`c` double AS (abs(a + b)) NOT NULL" in text
    assert "`d` int AS (c + 1) NULL" in text
    run(engine, "DROP TABLE IF EXISTS gen_copy")
    run(engine, text.replace("CREATE TABLE `gen`", "CREATE TABLE `gen_copy`"))
    run(engine, "INSERT INTO gen_copy (a, b) VALUES (1, 2)")
    assert rows(engine, "SELECT * FROM gen_copy") == [(1, 3.0, 2, 4)]
    extra = {r[0]: r[5] for r in rows(engine, "DESC gen")}
    # the aggregation type first (a DUPLICATE value column's is NONE), as Doris's
    # test_generated_column_nereids.out shows it
    assert extra == {"a": "", "c": "NONE,STORED GENERATED", "b": "NONE", "d": "NONE,STORED GENERATED"}


def test_create_table_like_keeps_the_expressions(engine, gen):
    run(engine, "CREATE TABLE gen_like LIKE gen")
    run(engine, "INSERT INTO gen_like VALUES (1, DEFAULT, 2, DEFAULT)")
    assert rows(engine, "SELECT * FROM gen_like") == [(1, 3.0, 2, 4)]


def test_a_column_a_generated_column_reads_cannot_be_dropped_or_renamed(engine):
    """SchemaChangeHandler's dependency checks, as Doris's suite test_generated_column_nereids runs
    them: the refused ALTER changes nothing; once the readers are gone the column can go."""
    run(
        engine,
        """CREATE TABLE gdep (a INT, c DOUBLE GENERATED ALWAYS AS (abs(a + b)) NOT NULL, b INT,
               d INT GENERATED ALWAYS AS (c + 1))
           DISTRIBUTED BY HASH(a) BUCKETS 1;
           INSERT INTO gdep (a, b) VALUES (3, 4)""",
    )
    before = rows(engine, "SHOW CREATE TABLE gdep")
    for sql, message in [
        ("ALTER TABLE gdep DROP COLUMN a", "Column 'a' has a generated column dependency on :[c]"),
        ("ALTER TABLE gdep DROP COLUMN c", "Column 'c' has a generated column dependency on :[d]"),
        (
            "ALTER TABLE gdep RENAME COLUMN c c1",
            "Cannot rename column, because column 'c' has a generated column dependency on :[d]",
        ),
    ]:
        with pytest.raises(AnalysisError) as info:
            run(engine, sql)
        assert str(info.value) == message
    assert rows(engine, "SHOW CREATE TABLE gdep") == before
    run(engine, "ALTER TABLE gdep DROP COLUMN d; ALTER TABLE gdep DROP COLUMN c; ALTER TABLE gdep DROP COLUMN b")
    assert rows(engine, "SELECT * FROM gdep") == [(3,)]
