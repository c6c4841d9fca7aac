"""UNIQUE KEY tables with a sequence column ("function_column.sequence_col"): per key the row of
the largest sequence value wins, whatever the load order; equal values: the later load / row;
NULL is the smallest (Doris's "Sequence Column" of the UNIQUE model)."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, NotSupportedError

from .conftest import rows, run

_LOADS = (
    # key 1: the larger sequence came first, a later load with a smaller one is dropped
    "INSERT INTO {t} VALUES (1, 'b', 20), (2, 'old', 1), (4, 'p', 1), (5, 'e1', 7), (6, 'n', NULL)",
    "INSERT INTO {t} VALUES (1, 'a', 10), (2, 'new', 2), (4, 'q', NULL), (5, 'e2', 7), (6, 'm', 0)",
    # one load: the larger sequence wins over the later row; equal sequences: the later row
    "INSERT INTO {t} VALUES (3, 'x', 5), (3, 'y', 3), (7, 'r1', 4), (7, 'r2', 4)",
)
_EXPECTED = [
    (1, "b", 20),
    (2, "new", 2),
    (3, "x", 5),
    (4, "p", 1),
    (5, "e2", 7),
    (6, "m", 0),
    (7, "r2", 4),
]


@pytest.mark.parametrize("mow", ["true", "false"])
def test_the_largest_sequence_wins_whatever_the_load_order(engine, mow):
    t = f"seq_{mow}"
    run(
        engine,
        f"CREATE TABLE {t} (k INT NOT NULL, v VARCHAR(8), s BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 "
        f'PROPERTIES ("function_column.sequence_col" = "s", "enable_unique_key_merge_on_write" = "{mow}")',
    )
    for sql in _LOADS:
        run(engine, sql.format(t=t))
    assert rows(engine, f"SELECT * FROM {t} ORDER BY k") == _EXPECTED
    # a query that does not select the sequence column still merges by it
    assert rows(engine, f"SELECT k, v FROM {t} WHERE k IN (1, 4) ORDER BY k") == [(1, "b"), (4, "p")]
    # compaction keeps each key's winning row, and later loads still compare with its value
    run(engine, f"ADMIN COMPACT TABLE {t} PARTITION {t} WHERE type = 'cumulative'")
    assert rows(engine, f"SELECT * FROM {t} ORDER BY k") == _EXPECTED
    run(engine, f"INSERT INTO {t} VALUES (1, 'late', 19), (3, 'z', 6)")
    assert rows(engine, f"SELECT k, v, s FROM {t} WHERE k IN (1, 3) ORDER BY k") == [(1, "b", 20), (3, "z", 6)]
    shown = rows(engine, f"SHOW CREATE TABLE {t}")[0][1]
    assert '"function_column.sequence_col" = "s"' in shown


def test_a_date_sequence_column(engine):
    run(
        engine,
        "CREATE TABLE seq_date (k INT NOT NULL, v INT, d DATETIME) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "D")',
    )
    run(engine, "INSERT INTO seq_date VALUES (1, 1, '2024-05-02 00:00:00')")
    run(engine, "INSERT INTO seq_date VALUES (1, 2, '2024-05-01 23:59:59')")
    assert rows(engine, "SELECT k, v FROM seq_date") == [(1, 1)]


@pytest.mark.parametrize(
    "columns, keys, properties, error, message",
    [
        (
            "k INT, v INT SUM",
            "AGGREGATE KEY(k)",
            '"function_column.sequence_col" = "v"',
            AnalysisError,
            "sequence column only support UNIQUE_KEYS",
        ),
        (
            "k INT, v INT",
            "DUPLICATE KEY(k)",
            '"function_column.sequence_type" = "int"',
            AnalysisError,
            "sequence column only support UNIQUE_KEYS",
        ),
        (
            "k INT, v INT",
            "UNIQUE KEY(k)",
            '"function_column.sequence_col" = "v3"',
            AnalysisError,
            "The specified sequence column[v3] not exists",
        ),
        (
            "k INT, v DOUBLE",
            "UNIQUE KEY(k)",
            '"function_column.sequence_col" = "v"',
            AnalysisError,
            "Sequence type only support integer types and date types",
        ),
        (
            "k INT, v INT",
            "UNIQUE KEY(k)",
            '"function_column.sequence_type" = "double"',
            AnalysisError,
            "sequence type only support integer types and date types",
        ),
        (
            "k INT, v INT",
            "UNIQUE KEY(k)",
            '"function_column.sequence_type" = "int", "function_column.sequence_col" = "v"',
            AnalysisError,
            "The sequence_col and sequence_type cannot be set at the same time",
        ),
        (
            "k INT, v INT",
            "UNIQUE KEY(k)",
            '"function_column.sequence_type" = "bigint"',
            NotSupportedError,
            "function_column.sequence_type without function_column.sequence_col",
        ),
    ],
)
def test_sequence_properties_are_checked_as_doris_does(engine, columns, keys, properties, error, message):
    with pytest.raises(error) as caught:
        run(
            engine,
            f"CREATE TABLE seq_bad ({columns}) {keys} DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ({properties})",
        )
    assert message in str(caught.value)
    assert rows(engine, "SHOW TABLES LIKE 'seq_bad'") == []


def test_inserts_name_the_sequence_column_and_desc_shows_the_hidden_columns(engine):
    run(
        engine,
        "CREATE TABLE seq_rules (k INT NOT NULL, v VARCHAR(8), s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")',
    )
    with pytest.raises(AnalysisError, match="Table seq_rules has sequence column, need to specify the sequence column"):
        run(engine, "INSERT INTO seq_rules (k, v) VALUES (1, 'a')")
    run(engine, "INSERT INTO seq_rules VALUES (1, 'b', 5)")  # no column list: every column given
    try:
        run(engine, "SET require_sequence_in_insert = false")
        run(engine, "INSERT INTO seq_rules (k, v) VALUES (1, 'late')")  # a NULL sequence: the smallest
        # a partial update keeps the row's sequence value, and one with a smaller value is dropped
        run(engine, "SET enable_unique_key_partial_update = true")
        run(engine, "INSERT INTO seq_rules (k, v) VALUES (1, 'c')")
        run(engine, "INSERT INTO seq_rules (k, v, s) VALUES (1, 'd', 4)")
    finally:
        run(engine, "SET require_sequence_in_insert = true")
        run(engine, "SET enable_unique_key_partial_update = false")
    assert rows(engine, "SELECT * FROM seq_rules") == [(1, "c", 5)]

    plain = [r[0] for r in rows(engine, "DESC seq_rules")]
    assert plain == ["k", "v", "s"]
    run(engine, "SET show_hidden_columns = true")
    try:
        desc = rows(engine, "DESC seq_rules")
        columns = rows(engine, "SHOW COLUMNS FROM seq_rules")
    finally:
        run(engine, "SET show_hidden_columns = false")
    assert desc[3:] == [
        ("__DORIS_DELETE_SIGN__", "tinyint", "No", "false", "0", "NONE"),
        ("__DORIS_VERSION_COL__", "bigint", "No", "false", "0", "NONE"),
        ("__DORIS_SEQUENCE_COL__", "int", "Yes", "false", None, "NONE"),
    ]
    assert [c[0] for c in columns] == [
        "k",
        "v",
        "s",
        "__DORIS_DELETE_SIGN__",
        "__DORIS_VERSION_COL__",
        "__DORIS_SEQUENCE_COL__",
    ]


def test_the_sequence_column_cannot_be_dropped_and_a_rename_carries_the_mapping(engine):
    run(
        engine,
        "CREATE TABLE seq_alter (k INT NOT NULL, v VARCHAR(8), s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")',
    )
    run(engine, "INSERT INTO seq_alter VALUES (1, 'a', 5)")
    with pytest.raises(AnalysisError) as caught:
        run(engine, "ALTER TABLE seq_alter DROP COLUMN s")
    assert str(caught.value) == "Can not drop sequence mapping column[s] in Unique data model table[seq_alter]"
    with pytest.raises(AnalysisError) as caught:  # set at CREATE only, as Doris
        run(engine, 'ALTER TABLE seq_alter SET ("function_column.sequence_col" = "k")')
    assert str(caught.value) == "Unknown table property: [function_column.sequence_col]"
    run(engine, "ALTER TABLE seq_alter RENAME COLUMN s seq")
    assert '"function_column.sequence_col" = "seq"' in rows(engine, "SHOW CREATE TABLE seq_alter")[0][1]
    run(engine, "INSERT INTO seq_alter VALUES (1, 'older', 4)")
    assert rows(engine, "SELECT * FROM seq_alter") == [(1, "a", 5)]
