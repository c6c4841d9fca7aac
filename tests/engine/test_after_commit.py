"""A catalog write that fails after the Delta commit (issue 25, item 4): the statement has
happened, so the client hears success (with a warning naming the committed statement), a
Stream Load keeps its label (a retry answers "Label Already Exists"), and no row is doubled.

The fault is injected at that exact step with SQLite triggers on the real catalog: ``BEFORE
UPDATE ON tables`` refuses the partitions' version bump that follows every load, INSERT
OVERWRITE and DELETE commit; ``BEFORE UPDATE ON load_labels`` refuses the Stream Load record's
FINISHED. Real Spark, real Delta tables, read back with `deltalake` as an outside reader."""

from __future__ import annotations

import contextlib
import sqlite3

import pytest

from dorisql.statements.load.stream_load import stream_load
from dorisql.statements.load.stream_load_options import parse_options

from .conftest import delta, delta_version, rows, run

pytestmark = pytest.mark.spark


@contextlib.contextmanager
def refused(engine, table: str):
    """Every UPDATE of the catalog table `table` fails while inside."""
    db = sqlite3.connect(engine.warehouse / "_catalog" / "catalog.db", isolation_level=None)
    db.execute(
        f"CREATE TRIGGER refuse_{table} BEFORE UPDATE ON {table} "
        "BEGIN SELECT RAISE(ABORT, 'injected: the catalog refuses this write'); END"
    )
    try:
        yield
    finally:
        db.execute(f"DROP TRIGGER refuse_{table}")
        db.close()


def stored(engine, table: str) -> list:
    return sorted(r["k"] for r in delta(engine, table).to_pyarrow_table(columns=["k"]).to_pylist())


def committed_warning(result) -> str:
    assert len(result.warnings) == 1, result.warnings
    text = result.warnings[0]
    assert "was committed at Delta version" in text and "do not run the statement again" in text
    assert "Error" not in text and "/" not in text.split("(")[1]  # no Python type name, no server path
    return text


@pytest.fixture(scope="module")
def eng(engine):
    run(engine, "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return engine


def test_insert_answers_success_with_a_warning_when_the_catalog_fails_after_the_commit(eng):
    before = delta_version(eng, "t")
    with refused(eng, "tables"):
        result = run(eng, "INSERT INTO t VALUES (1, 10)")
    assert result.affected_rows == 1
    assert eng.last_notes[0][2] == result.warnings[0]  # SHOW WARNINGS tells it too
    assert f"Delta version {before + 1}" in committed_warning(result)
    assert stored(eng, "t") == [1]
    assert rows(eng, "SELECT k, v FROM t") == [(1, 10)]
    # the next load records the later Delta version: the catalog catches up
    run(eng, "INSERT INTO t VALUES (2, 20)")
    assert eng.catalog.load_table("d", "t").known_delta_version == delta_version(eng, "t")


def test_insert_overwrite_and_delete_answer_success_when_the_catalog_fails_after_the_commit(eng):
    run(eng, "CREATE TABLE o (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(eng, "INSERT INTO o VALUES (1, 1), (2, 2)")
    with refused(eng, "tables"):
        result = run(eng, "INSERT OVERWRITE TABLE o VALUES (3, 3), (4, 4)")
        assert result.affected_rows == 2
        committed_warning(result)
        deleted = run(eng, "DELETE FROM o WHERE k = 3")
        assert "'status':'VISIBLE'" in deleted.message
        committed_warning(deleted)
    assert stored(eng, "o") == [3, 4]  # the overwrite replaced the files; the delete is a delete version
    assert rows(eng, "SELECT k FROM o") == [(4,)]


def _load(engine, label: str, body: bytes):
    def receive(path):
        path.write_bytes(body)
        return len(body)

    options = parse_options({"label": label, "column_separator": ","})
    return stream_load(engine, "d", "t", options, receive, lambda name: name, user="root")


def test_stream_load_keeps_its_label_when_the_partition_bump_fails_after_the_commit(eng):
    with refused(eng, "tables"):
        first = _load(eng, "after_commit_1", b"100,1\n101,2\n")
        assert first.status == "Success", first.message
        assert first.loaded_rows == 2
        assert eng.catalog.get_load("d", "after_commit_1").state == "FINISHED"
        again = _load(eng, "after_commit_1", b"100,1\n101,2\n")
    assert again.status == "Label Already Exists" and again.existing_job_status == "FINISHED"
    assert stored(eng, "t").count(100) == 1 and stored(eng, "t").count(101) == 1
    shown = rows(eng, "SHOW STREAM LOAD FROM d WHERE Label = 'after_commit_1'")
    assert [r[4] for r in shown] == ["Success"]


def test_stream_load_keeps_its_label_when_its_record_cannot_be_finished(eng):
    # The label's record cannot leave LOADING: the answer is still Success (the commit is in
    # the log), and a retry finds the commit through the Delta log, as after a crash.
    with refused(eng, "load_labels"):
        first = _load(eng, "after_commit_2", b"200,1\n")
        assert first.status == "Success", first.message
        assert eng.catalog.get_load("d", "after_commit_2").state == "LOADING"
        while_refused = _load(eng, "after_commit_2", b"200,1\n")  # the record still cannot be written
        assert while_refused.status == "Label Already Exists", while_refused.message
    again = _load(eng, "after_commit_2", b"200,1\n")
    assert again.status == "Label Already Exists" and again.existing_job_status == "FINISHED"
    assert eng.catalog.get_load("d", "after_commit_2").state == "FINISHED"
    assert stored(eng, "t").count(200) == 1


def test_a_postgresql_catalog_failing_after_the_commit_keeps_the_label(postgres_url, make_engine, spark, tmp_path):
    # The same step on the PostgreSQL catalog: a trigger refuses the partitions' version bump.
    import psycopg

    warehouse = tmp_path / "wh_pg"
    warehouse.mkdir()
    engine = make_engine(warehouse, spark=spark, catalog=postgres_url)
    try:
        run(engine, "CREATE DATABASE d; USE d")
        run(engine, "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        with psycopg.connect(postgres_url, autocommit=True) as db:
            db.execute(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN RAISE EXCEPTION 'injected: the catalog refuses this write'; END $$"
            )
            db.execute("CREATE TRIGGER refuse_tables BEFORE UPDATE ON tables FOR EACH ROW EXECUTE FUNCTION refuse()")
            inserted = run(engine, "INSERT INTO t VALUES (1, 1)")
            committed_warning(inserted)
            first = _load(engine, "pg_after_commit", b"2,2\n")
            assert first.status == "Success", first.message
            again = _load(engine, "pg_after_commit", b"2,2\n")
            db.execute("DROP TRIGGER refuse_tables ON tables")
        assert again.status == "Label Already Exists" and again.existing_job_status == "FINISHED"
        assert stored(engine, "t") == [1, 2]
    finally:
        engine.close()
