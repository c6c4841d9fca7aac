"""Partial column updates of merge-on-write UNIQUE KEY tables by INSERT
(``SET enable_unique_key_partial_update = true``), as Doris: a row whose key exists keeps the
columns the INSERT does not name; a new key takes their defaults (partial_update_new_key_behavior
APPEND) or fails the statement (ERROR); rows are completed under the commit lock, so a load that
commits meanwhile is not lost. Read back through dorisql and with ``deltalake``."""

from __future__ import annotations

import threading

import pytest

from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.storage import delta as delta_mod

from .conftest import delta_rows, delta_version, rows, run


def _outside(engine, table):
    return sorted((r["k"], r["a"], r["b"], r["s"]) for r in delta_rows(engine, table, ["k", "a", "b", "s"]))


@pytest.fixture
def partial(engine):
    run(engine, "SET enable_unique_key_partial_update = true")
    yield
    run(engine, "SET enable_unique_key_partial_update = false")
    run(engine, "SET partial_update_new_key_behavior = 'APPEND'")


def test_a_partial_insert_keeps_the_columns_it_does_not_name(engine, partial):
    run(
        engine,
        "CREATE TABLE pu (k INT NOT NULL, a VARCHAR(10), b INT DEFAULT '7', s BIGINT) "
        "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    run(engine, "SET enable_unique_key_partial_update = false")
    run(engine, "INSERT INTO pu VALUES (1, 'one', 10, 100), (2, 'two', 20, 200)")
    run(engine, "SET enable_unique_key_partial_update = true")
    run(engine, "INSERT INTO pu (k, a) VALUES (1, 'uno'), (3, 'tres')")
    expected = [(1, "uno", 10, 100), (2, "two", 20, 200), (3, "tres", 7, None)]
    assert rows(engine, "SELECT * FROM pu ORDER BY k") == expected
    assert _outside(engine, "pu") == expected  # the files hold the completed rows only
    # INSERT ... SELECT too, and a second update of the same key in one statement: the last wins
    run(engine, "INSERT INTO pu (k, s) SELECT k, s + 1 FROM pu WHERE k = 2 UNION ALL SELECT 2, 999")
    assert rows(engine, "SELECT * FROM pu WHERE k = 2") == [(2, "two", 20, 999)]

    version = delta_version(engine, "pu")
    with pytest.raises(AnalysisError, match="Partial update should include all key columns, missing: k"):
        run(engine, "INSERT INTO pu (a) VALUES ('x')")
    run(engine, "SET partial_update_new_key_behavior = 'ERROR'")
    with pytest.raises(AnalysisError) as caught:
        run(engine, "INSERT INTO pu (k, b) VALUES (2, 22), (9, 99)")
    assert str(caught.value) == (
        "[E-7003]Can't append new rows in partial update when partial_update_new_key_behavior is ERROR. "
        "Row with key=[9] is not in table."
    )
    assert delta_version(engine, "pu") == version  # nothing committed
    run(engine, "INSERT INTO pu (k, b) VALUES (2, 22)")
    assert rows(engine, "SELECT * FROM pu ORDER BY k") == [
        (1, "uno", 10, 100),
        (2, "two", 22, 999),
        (3, "tres", 7, None),
    ]
    # every column named: an ordinary INSERT
    run(engine, "INSERT INTO pu (k, a, b, s) VALUES (1, NULL, NULL, NULL)")
    assert rows(engine, "SELECT * FROM pu WHERE k = 1") == [(1, None, None, None)]


def test_a_not_null_column_left_out_keeps_its_value_and_a_new_key_needs_one(engine, partial):
    run(
        engine,
        "CREATE TABLE pu_nn (k INT NOT NULL, a VARCHAR(10) NOT NULL, b INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "INSERT INTO pu_nn VALUES (1, 'one', 10)")
    run(engine, "INSERT INTO pu_nn (k, b) VALUES (1, 11)")
    assert rows(engine, "SELECT * FROM pu_nn") == [(1, "one", 11)]
    with pytest.raises(AnalysisError) as caught:
        run(engine, "INSERT INTO pu_nn (k, b) VALUES (1, 12), (2, 22)")
    assert str(caught.value) == (
        "the unmentioned column `a` should have default value or be nullable for newly inserted rows in "
        "non-strict mode partial update"
    )
    # inside BEGIN ... COMMIT the rows would be staged without the merge-on-write step: refused
    run(engine, "BEGIN")
    try:
        with pytest.raises(NotSupportedError, match="partial column update .* inside a transaction"):
            run(engine, "INSERT INTO pu_nn (k, b) VALUES (1, 13)")
    finally:
        run(engine, "ROLLBACK")
    assert rows(engine, "SELECT * FROM pu_nn") == [(1, "one", 11)]


def test_a_partial_insert_on_merge_on_read_is_an_ordinary_insert(engine, partial):
    # Doris's BindSink: only merge-on-write tables take a column list as a partial update
    run(
        engine,
        "CREATE TABLE pu_mor (k INT NOT NULL, a VARCHAR(10), b INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("enable_unique_key_merge_on_write" = "false")',
    )
    run(engine, "INSERT INTO pu_mor VALUES (1, 'one', 10)")
    run(engine, "INSERT INTO pu_mor (k, a) VALUES (1, 'uno')")
    assert rows(engine, "SELECT * FROM pu_mor") == [(1, "uno", None)]


def test_a_partial_update_completes_its_rows_from_a_load_that_committed_first(engine, partial, monkeypatch):
    run(
        engine,
        "CREATE TABLE pu_race (k INT NOT NULL, a VARCHAR(10), b INT, s BIGINT) "
        "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "INSERT INTO pu_race VALUES (1, 'one', 10, 100)")
    reached, resume = threading.Event(), threading.Event()

    def paused(store, staged, overwrite):
        if threading.current_thread().name == "partial":
            reached.set()
            resume.wait(120)

    monkeypatch.setattr(delta_mod, "before_commit", paused)
    errors = []

    def target():
        try:
            run(engine, "INSERT INTO pu_race (k, a) VALUES (1, 'uno')")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=target, name="partial")
    thread.start()
    assert reached.wait(180), "the partial update never reached its commit"
    # another load of the key commits first, changing the columns the partial update leaves
    run(engine, "SET enable_unique_key_partial_update = false")
    run(engine, "INSERT INTO pu_race VALUES (1, 'other', 20, 200)")
    resume.set()
    thread.join(180)
    assert not errors, errors
    assert rows(engine, "SELECT * FROM pu_race") == [(1, "uno", 20, 200)]
    assert _outside(engine, "pu_race") == [(1, "uno", 20, 200)]
