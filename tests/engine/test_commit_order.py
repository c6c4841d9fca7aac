"""Versions follow commit order: the load that commits last wins in UNIQUE and AGGREGATE REPLACE
tables, whichever load started first (Doris's version order), and renames are metadata only."""

from __future__ import annotations

import threading

import pytest

from dorisql.errors import AnalysisError
from dorisql.storage import delta as delta_mod

from .conftest import delta_version, rows, run


def _load_paused_before_commit(monkeypatch, engine, sql: str):
    """Start `sql` on a thread; it routes and writes its files, then waits before committing.
    Returns (resume, finish): resume() lets it commit, finish() joins and re-raises its error."""
    reached, resume = threading.Event(), threading.Event()
    outcome: dict = {}

    def paused(store, staged, overwrite):
        if threading.current_thread().name == "first-load":
            reached.set()
            resume.wait(120)

    monkeypatch.setattr(delta_mod, "before_commit", paused)

    def target():
        try:
            run(engine, sql)
        except BaseException as exc:  # pragma: no cover - reported by finish()
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="first-load")
    thread.start()
    assert reached.wait(180), "the first load never reached its commit"

    def finish():
        thread.join(180)
        if "error" in outcome:
            raise outcome["error"]

    return resume.set, finish


@pytest.mark.parametrize(
    "model, value_column",
    [
        ("UNIQUE KEY(k)", "v VARCHAR(10)"),
        ("AGGREGATE KEY(k)", "v VARCHAR(10) REPLACE"),
    ],
)
def test_the_load_that_commits_last_wins(engine, spark, make_engine, monkeypatch, model, value_column):
    table = "lost_" + model.split()[0].lower()
    run(engine, f"CREATE TABLE {table} (k INT NOT NULL, {value_column}) {model} DISTRIBUTED BY HASH(k) BUCKETS 2")
    run(engine, f"INSERT INTO {table} VALUES (1, 'init'), (2, 'init')")
    other = make_engine(engine.warehouse, spark=spark)  # a second session on the same warehouse
    other.execute_sql("USE d")
    resume, finish = _load_paused_before_commit(monkeypatch, engine, f"INSERT INTO {table} VALUES (1, 'A'), (2, 'A')")
    before = delta_version(engine, table)
    run(other, f"INSERT INTO {table} VALUES (1, 'B'), (2, 'B')")  # started later, commits first
    assert delta_version(engine, table) == before + 1
    resume()
    finish()  # A commits last
    monkeypatch.undo()
    assert delta_version(engine, table) == before + 2
    assert rows(engine, f"SELECT k, v FROM {table} ORDER BY k") == [(1, "A"), (2, "A")]
    assert rows(other, f"SELECT k, v FROM {table} ORDER BY k") == [(1, "A"), (2, "A")]


def test_rename_partition_there_and_back_keeps_the_rows(engine):
    run(
        engine,
        """CREATE TABLE ren_back (k INT NOT NULL, d DATE NOT NULL) DUPLICATE KEY(k)
        PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-02-01"),
                               PARTITION p2 VALUES LESS THAN ("2024-03-01"))
        DISTRIBUTED BY HASH(k) BUCKETS 2""",
    )
    run(engine, "INSERT INTO ren_back VALUES (1, '2024-01-05'), (2, '2024-02-05')")
    version = delta_version(engine, "ren_back")
    run(engine, "ALTER TABLE ren_back RENAME PARTITION p1 q1")
    run(engine, "ALTER TABLE ren_back RENAME PARTITION q1 p1")
    run(engine, "ALTER TABLE ren_back RENAME PARTITION p1 q1")
    assert delta_version(engine, "ren_back") == version
    assert rows(engine, "SELECT k FROM ren_back PARTITION (q1)") == [(1,)]
    with pytest.raises(AnalysisError, match="Duplicate partition name p2"):
        run(engine, "ALTER TABLE ren_back RENAME PARTITION q1 p2")
    # The old name is free again: a new partition under it is empty, the renamed rows stay put.
    run(engine, "ALTER TABLE ren_back DROP PARTITION p2")
    run(engine, 'ALTER TABLE ren_back ADD PARTITION p1 VALUES [("2024-02-01"), ("2024-03-01"))')
    assert rows(engine, "SELECT count(*) FROM ren_back PARTITION (p1)") == [(0,)]
    assert rows(engine, "SELECT k FROM ren_back ORDER BY k") == [(1,)]
