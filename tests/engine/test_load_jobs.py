"""INSERT and CTAS as Doris's load jobs: labels, the OK info, SHOW LOAD, CLEAN LABEL; a labelled
INSERT exactly once across a crash between its commit and its record."""

from __future__ import annotations

import dataclasses
import re

import pytest

from dorisql.catalog.base import LoadRecord
from dorisql.errors import AnalysisError, LoadError

from .conftest import rows, run, scalar

pytestmark = pytest.mark.spark

INFO = re.compile(r"^\{'label':'(?P<label>[^']+)', 'status':'VISIBLE', 'txnId':'(?P<txn>\d+)'\}$")


@pytest.fixture(scope="module")
def jobs(spark, tmp_path_factory, make_engine):
    eng = make_engine(tmp_path_factory.mktemp("wh"), spark=spark)
    eng.execute_sql(
        "CREATE DATABASE lj; USE lj;"
        "CREATE TABLE t (k INT, v VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
        " PROPERTIES ('replication_num' = '1')"
    )
    yield eng
    eng.close()


def _show(engine, where: str = "") -> list[dict]:
    result = run(engine, f"SHOW LOAD {where}")
    return [dict(zip(result.columns, r)) for r in result.rows]


def test_insert_with_label_is_a_finished_insert_job_and_its_label_is_used_once(jobs):
    result = run(jobs, "INSERT INTO t WITH LABEL l1 VALUES (1, 'a'), (2, 'b')")
    info = INFO.match(result.message)
    assert result.affected_rows == 2 and info and info["label"] == "l1", result.message
    (job,) = _show(jobs, "WHERE Label = 'l1'")
    assert (job["Label"], job["State"], job["Type"], job["Progress"]) == ("l1", "FINISHED", "INSERT", "100.00% (1/1)")
    assert str(job["JobId"]) == info["txn"] == str(job["TransactionId"])

    with pytest.raises(AnalysisError, match=rf"^Label \[l1\] has already been used, relate to txn \[{info['txn']}\]$"):
        run(jobs, "INSERT INTO t WITH LABEL l1 VALUES (3, 'c')")
    assert scalar(jobs, "SELECT count(*) FROM t") == 2  # the refused retry loaded nothing

    # without a label: Doris's generated label_<hex>_<hex>, listed too; SHOW STREAM LOAD lists Stream Loads only
    plain = INFO.match(run(jobs, "INSERT INTO t VALUES (4, 'd')").message)
    assert plain and re.fullmatch(r"label_[0-9a-f]{16}_[0-9a-f]{16}", plain["label"])
    assert [j["Type"] for j in _show(jobs, f"WHERE LABEL = '{plain['label']}'")] == ["INSERT"]
    assert run(jobs, "SHOW STREAM LOAD").rows == []

    # CTAS is an INSERT job as well
    ctas = run(jobs, "CREATE TABLE t2 PROPERTIES ('replication_num' = '1') AS SELECT k, v FROM t")
    created = INFO.match(ctas.message)
    assert created and [j["State"] for j in _show(jobs, f"WHERE Label = '{created['label']}'")] == ["FINISHED"]


def test_a_failed_labelled_insert_leaves_its_label_free(jobs):
    run(
        jobs,
        "CREATE TABLE s (k INT, v TINYINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
        " PROPERTIES ('replication_num' = '1')",
    )
    with pytest.raises(LoadError):  # strict mode refuses 1000 for TINYINT
        run(jobs, "SET enable_insert_strict = true; INSERT INTO s WITH LABEL bad VALUES (1, 1000)")
    assert _show(jobs, "WHERE Label = 'bad'") == []
    assert INFO.match(run(jobs, "INSERT INTO s WITH LABEL bad VALUES (1, 100)").message)
    assert rows(jobs, "SELECT k, v FROM s") == [(1, 100)]


def test_a_labelled_insert_retried_after_a_crash_loads_once(jobs):
    """A kill between the Delta commit and the FINISHED record leaves the record LOADING: the
    retry finds the commit in the Delta log and answers "has already been used". A LOADING
    record without a commit (killed before it) leaves the label free."""
    run(
        jobs,
        "CREATE TABLE c (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1')",
    )
    run(jobs, "INSERT INTO c WITH LABEL crashed VALUES (1)")
    record = jobs.catalog.get_load("lj", "crashed")
    jobs.catalog.update_load(dataclasses.replace(record, state="LOADING", finished_at=None))  # as a kill leaves it
    with pytest.raises(AnalysisError, match=r"Label \[crashed\] has already been used"):
        run(jobs, "INSERT INTO c WITH LABEL crashed VALUES (1)")
    assert scalar(jobs, "SELECT count(*) FROM c") == 1
    assert jobs.catalog.get_load("lj", "crashed").state == "FINISHED"

    jobs.catalog.claim_load(LoadRecord("lj", "early", "c", jobs.catalog.next_id(), "LOADING", record.created_at))
    assert INFO.match(run(jobs, "INSERT INTO c WITH LABEL early VALUES (2)").message)
    assert scalar(jobs, "SELECT count(*) FROM c") == 2


def test_show_load_order_by_limit_offset_and_clean_label(jobs):
    for label in ("o_b", "o_a", "o_c"):
        run(jobs, f"INSERT INTO t WITH LABEL {label} VALUES (9, '{label}')")
    ordered = run(jobs, "SHOW LOAD FROM lj WHERE LABEL LIKE 'o_%' ORDER BY Label DESC LIMIT 2 OFFSET 1")
    assert [r[1] for r in ordered.rows] == ["o_b", "o_a"]
    assert [j["Label"] for j in _show(jobs, "WHERE Label LIKE 'o_%' AND State = 'finished' ORDER BY Label")] == [
        "o_a",
        "o_b",
        "o_c",
    ]
    with pytest.raises(AnalysisError, match=r"Title name\[nope\] does not exist"):
        run(jobs, "SHOW LOAD ORDER BY nope")

    run(jobs, "CLEAN LABEL o_a FROM lj")
    assert [j["Label"] for j in _show(jobs, "WHERE Label LIKE 'o_%' ORDER BY Label")] == ["o_b", "o_c"]
    assert INFO.match(run(jobs, "INSERT INTO t WITH LABEL o_a VALUES (9, 'again')").message)  # free again
    run(jobs, "CLEAN LABEL FROM lj")
    assert _show(jobs) == []


def test_an_insert_whose_every_row_is_filtered_is_a_finished_job(jobs):
    """Non-strict mode, every row filtered: Doris commits the empty load and answers its label's
    info with the filtered rows as a warning; SHOW LOAD lists it and its label is used."""
    before = rows(jobs, "SELECT k, v FROM t ORDER BY k")
    run(jobs, "SET enable_insert_strict = false")
    try:
        unlabelled = run(jobs, "INSERT INTO t VALUES ('x', 'a'), ('y', 'b')")
        labelled = run(jobs, "INSERT INTO t WITH LABEL all_filtered SELECT 'z', 'c'")
        with pytest.raises(AnalysisError, match=r"Label \[all_filtered\] has already been used"):
            run(jobs, "INSERT INTO t WITH LABEL all_filtered VALUES (7, 'd')")
    finally:
        run(jobs, "SET enable_insert_strict = true")
    for result, filtered in ((unlabelled, 2), (labelled, 1)):
        assert result.affected_rows == 0
        assert result.warnings == [f"{filtered} rows filtered (enable_insert_strict = false)"]
        assert INFO.match(result.message), result.message
    label = INFO.match(unlabelled.message)["label"]
    shown = {r["Label"]: r for r in _show(jobs)}
    assert shown[label]["State"] == shown["all_filtered"]["State"] == "FINISHED"
    assert shown["all_filtered"]["TransactionId"] == int(INFO.match(labelled.message)["txn"])
    assert rows(jobs, "SELECT k, v FROM t ORDER BY k") == before
