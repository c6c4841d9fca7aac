"""Explicit transactions (BEGIN / COMMIT / ROLLBACK): a transaction's INSERTs into several tables
become visible together at COMMIT, never partly, also when COMMIT fails at any step; ROLLBACK
and the session's end leave every table as it was. Checked through a second session and with
`deltalake` as an outside reader."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from dorisql.errors import AnalysisError, DorisqlError, ExecutionError, NotSupportedError
from dorisql.tablets import transactions
from dorisql.tablets.scans import SCANS

from .conftest import delta_version, rows, run, table_path
from waiting import wait_until

TABLES = """
CREATE DATABASE IF NOT EXISTS d; USE d;
DROP TABLE IF EXISTS a FORCE; DROP TABLE IF EXISTS b FORCE;
CREATE TABLE a (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1");
CREATE TABLE b (k INT, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1");
INSERT INTO a VALUES (0, 'old');
"""


@pytest.fixture(scope="module")
def pair(spark, tmp_path_factory, make_engine):
    """Two sessions on one warehouse: the one that runs the transaction and an onlooker."""
    wh = tmp_path_factory.mktemp("txn")
    first, second = make_engine(wh, spark=spark), make_engine(wh, spark=spark)
    second.execute_sql("CREATE DATABASE IF NOT EXISTS d")
    yield first, second
    first.close()
    second.close()


def _fresh(first, second):
    first.execute_sql(TABLES)
    second.execute_sql("USE d")


def _seen(engine) -> tuple[list, list]:
    return rows(engine, "SELECT k, v FROM a ORDER BY k"), rows(engine, "SELECT k, v FROM b ORDER BY k")


def _staged_files(engine, table: str) -> set[str]:
    """Parquet files in the table's folder that its Delta log does not reference."""
    from deltalake import DeltaTable

    root = table_path(engine, table)
    on_disk = {
        os.path.relpath(os.path.join(d, f), root)
        for d, _, files in os.walk(root)
        if "_delta_log" not in d and "_staging" not in d
        for f in files
        if f.endswith(".parquet")
    }
    return on_disk - {os.path.relpath(u, root) for u in DeltaTable(root).file_uris()}


def test_commit_shows_every_table_at_once_and_rollback_nothing(pair):
    first, second = pair
    _fresh(first, second)
    began = run(first, "BEGIN WITH LABEL l1")
    assert began.message == "{'label':'l1', 'status':'PREPARE', 'txnId':''}"
    inserted = run(first, "INSERT INTO a VALUES (1, 'x'), (2, 'y')")
    # Doris's answer to an INSERT inside: its rows, and the transaction's PREPARE info.
    assert inserted.affected_rows == 2
    txn_id = first.transaction.txn_id
    assert inserted.message == f"{{'label':'l1', 'status':'PREPARE', 'txnId':'{txn_id}'}}"
    # The INSERT's own label must be the transaction's (OlapTxnInsertExecutor).
    with pytest.raises(
        AnalysisError, match="^begin transaction failed. Transaction insert expect label l1, but got l2$"
    ):
        run(first, "INSERT INTO b WITH LABEL l2 VALUES (7, 'no')")
    run(first, "INSERT INTO b WITH LABEL l1 VALUES (1, 'p')")
    run(first, "INSERT INTO a VALUES (3, 'z')")
    versions = delta_version(first, "a"), delta_version(first, "b")
    # Nobody sees the transaction before COMMIT: not the other session, not the Delta log.
    assert _seen(second) == ([(0, "old")], [])
    # Inside it, only INSERT, COMMIT and ROLLBACK (Doris's message); the transaction stays open.
    with pytest.raises(AnalysisError, match=r"This is in a transaction, only insert, update, delete, commit"):
        run(first, "SELECT * FROM a")
    with pytest.raises(AnalysisError, match="can not insert into values and insert into select"):
        run(first, "INSERT INTO a SELECT k, v FROM b")
    with pytest.raises(AnalysisError, match="can not insert into values and insert into select"):
        run(first, "DELETE FROM b WHERE k = 1")  # (a DELETE goes with INSERT ... SELECT)
    with pytest.raises(NotSupportedError, match=r"^not supported: UPDATE inside a transaction"):
        run(first, "UPDATE b SET v = 'no' WHERE k = 1")
    committed = run(first, "COMMIT")
    assert committed.message.startswith("{'label':'l1', 'status':'VISIBLE', 'txnId':'")
    # One Delta commit per table, and both tables' rows there.
    assert (delta_version(first, "a"), delta_version(first, "b")) == (versions[0] + 1, versions[1] + 1)
    assert _seen(second) == ([(0, "old"), (1, "x"), (2, "y"), (3, "z")], [(1, "p")])
    assert first.catalog.txn_intents() == []
    # SHOW LOAD lists the transaction under its label, and the label cannot be used again.
    shown = run(second, "SHOW LOAD WHERE LABEL = 'l1'")
    load = dict(zip(shown.columns, shown.rows[0]))
    assert (load["Label"], load["State"], load["Type"], str(load["JobId"])) == ("l1", "FINISHED", "INSERT", str(txn_id))
    # SHOW TRANSACTION (ShowTransactionCommand's columns) finds it by id, label and status.
    by_id = run(second, f"SHOW TRANSACTION WHERE id = {txn_id}")
    assert tuple(by_id.columns[:5]) == (
        "TransactionId",
        "Label",
        "Coordinator",
        "TransactionStatus",
        "LoadJobSourceType",
    )
    assert len(by_id.columns) == 15 and [tuple(r[:4]) for r in by_id.rows] == [
        (txn_id, "l1", "FE: 127.0.0.1", "VISIBLE")
    ]
    assert run(second, "SHOW TRANSACTION FROM d WHERE label = 'l1'").rows == by_id.rows
    assert by_id.rows[0] in run(second, "SHOW TRANSACTION WHERE status = 'visible'").rows
    assert run(second, "SHOW TRANSACTION WHERE label LIKE 'l1%'").rows == by_id.rows
    for where, message in [
        ("", "^Missing transaction id$"),
        ("WHERE id = 1", "^transaction with id 1 does not exist$"),
        ("WHERE label = 'nope'", "^transaction with label nope does not exist$"),
        ("WHERE k = 1", "^Where clause should looks like one of them: id = 123"),
    ]:
        with pytest.raises(AnalysisError, match=message):
            run(second, f"SHOW TRANSACTION {where}")
    run(first, "BEGIN WITH LABEL l1")
    with pytest.raises(AnalysisError, match=rf"Label \[l1\] has already been used, relate to txn \[{txn_id}\]"):
        run(first, "INSERT INTO a VALUES (8, 'no')")
    run(first, "ROLLBACK")

    # ROLLBACK: the staged files deleted, the tables as they were.
    run(first, "START TRANSACTION")
    run(first, "INSERT INTO a VALUES (9, 'gone')")
    run(first, "INSERT INTO b VALUES (9, 'gone')")
    assert _staged_files(first, "a")
    assert "'status':'ABORTED'" in run(first, "ROLLBACK").message
    assert _seen(second) == ([(0, "old"), (1, "x"), (2, "y"), (3, "z")], [(1, "p")])
    assert not _staged_files(first, "a") and not _staged_files(first, "b")
    # Now outside any transaction: SELECT works, COMMIT and ROLLBACK do nothing.
    assert run(first, "COMMIT").message is None
    assert rows(first, "SELECT count(*) FROM a") == [(4,)]


def test_insert_select_over_tables_and_a_strict_mode_refusal(pair):
    first, second = pair
    _fresh(first, second)
    run(first, "BEGIN")
    run(first, "INSERT INTO b SELECT k, v FROM a")
    run(first, "INSERT INTO a SELECT k + 10, v FROM a")
    # A refused INSERT fails alone; the transaction goes on.
    with pytest.raises(DorisqlError, match="filtered data in strict mode"):
        run(first, "INSERT INTO a SELECT CAST('x' AS STRING), v FROM a")
    assert _seen(second) == ([(0, "old")], [])
    run(first, "COMMIT")
    assert _seen(second) == ([(0, "old"), (10, "old")], [(0, "old")])


@pytest.mark.parametrize("step", ["before intent", "after intent", "between tables", "before clear"])
def test_a_failure_at_each_step_of_commit_is_all_or_nothing(pair, monkeypatch, step):
    first, second = pair
    _fresh(first, second)
    run(first, "BEGIN")
    run(first, "INSERT INTO a VALUES (1, 'x')")
    run(first, "INSERT INTO b VALUES (1, 'p')")

    def fail(name):
        if name == step:
            raise ExecutionError(f"injected failure {name}")

    monkeypatch.setattr(transactions, "step", fail)
    if step == "before intent":
        with pytest.raises(DorisqlError, match="injected failure"):
            run(first, "COMMIT")
    else:  # committed: the intent is durable, the rest is finished by whoever comes next
        done = run(first, "COMMIT")
        assert "'status':'COMMITTED'" in done.message and done.warnings
    monkeypatch.setattr(transactions, "step", None)
    # Never one table without the other: the onlooker's next read finishes or sees nothing.
    expected = ([(0, "old")], []) if step == "before intent" else ([(0, "old"), (1, "x")], [(1, "p")])
    assert _seen(second) == expected
    assert first.catalog.txn_intents() == []
    if step == "before intent":
        assert not _staged_files(first, "a") and not _staged_files(first, "b")
    # Each table committed once, whoever finished it.
    assert rows(first, "SELECT count(*) FROM a") == [(len(expected[0]),)]


def test_a_join_read_while_a_commit_happens_sees_all_of_it_or_none(pair, monkeypatch):
    """The reader pins a's snapshot, pauses, and a COMMIT of a and b starts meanwhile: the
    COMMIT waits for the reader's block to end (its tables' transaction lock), so the join sees
    neither table's new rows, never a's old rows with b's new ones."""
    first, second = pair
    _fresh(first, second)
    run(first, "BEGIN")
    run(first, "INSERT INTO a VALUES (1, 'x')")
    run(first, "INSERT INTO b VALUES (1, 'p')")
    paused, go, waiting = threading.Event(), threading.Event(), threading.Event()
    record = SCANS.record

    def pause_after_first_scan(path, tablets):
        record(path, tablets)
        if not paused.is_set():
            paused.set()
            assert go.wait(120)

    monkeypatch.setattr(SCANS, "record", pause_after_first_scan)
    monkeypatch.setattr(transactions, "step", lambda name: waiting.set() if name == "waiting for readers" else None)
    join = "SELECT a.k, b.k FROM a FULL OUTER JOIN b ON a.k = b.k ORDER BY a.k, b.k"
    with ThreadPoolExecutor(2) as pool:
        seen = pool.submit(rows, second, join)
        assert paused.wait(120)
        committed = pool.submit(run, first, "COMMIT")
        wait_until(lambda: waiting.is_set() or committed.done(), 120, "COMMIT to wait for the reader or finish")
        go.set()
        assert seen.result(120) == [(0, None)]  # before the COMMIT, both tables
        assert "'status':'VISIBLE'" in committed.result(120).message
    monkeypatch.setattr(SCANS, "record", record)
    assert rows(second, join) == [(0, None), (1, 1)]  # after it, both tables


def test_a_delete_or_compaction_after_a_commit_cut_short_comes_after_the_transaction(pair, monkeypatch):
    """COMMIT dies after a's Delta commit (the intent durable, b not committed yet). A DELETE of
    b, or a compaction of b, finishes the transaction before its own commit: the transaction's
    rows are there once, under the version their files were named with, and the DELETE, made
    after the transaction, removes the row it matches."""
    first, second = pair
    for then in ("delete", "compaction"):
        _fresh(first, second)
        run(first, "INSERT INTO b VALUES (5, 'e')")
        run(first, "INSERT INTO b VALUES (6, 'f')")
        run(first, "BEGIN")
        run(first, "INSERT INTO a VALUES (1, 'x')")
        run(first, "INSERT INTO b VALUES (1, 'p'), (2, 'q')")

        def cut(name):
            if name == "between tables":
                raise ExecutionError("killed between the tables")

        monkeypatch.setattr(transactions, "step", cut)
        before = delta_version(first, "b")
        assert "'status':'COMMITTED'" in run(first, "COMMIT").message
        monkeypatch.setattr(transactions, "step", None)
        assert second.catalog.txn_intents()
        txn = second.catalog.txn_intents()[0][0]
        shown = run(second, f"SHOW TRANSACTION WHERE id = {txn}").rows
        assert [r[3] for r in shown] == ["COMMITTED"]  # the intent: committed, not yet visible everywhere
        if then == "delete":
            run(second, "DELETE FROM b WHERE k = 1")
            expected = [(2, "q"), (5, "e"), (6, "f")]
        else:
            from dorisql.compaction import service

            assert service.full_compaction(second, second.catalog.load_table("d", "b"))
            expected = [(1, "p"), (2, "q"), (5, "e"), (6, "f")]
        assert second.catalog.txn_intents() == []
        assert [r[3] for r in run(second, f"SHOW TRANSACTION WHERE id = {txn}").rows] == ["VISIBLE"]
        assert rows(second, "SELECT k, v FROM b ORDER BY k") == expected, then
        assert rows(second, "SELECT k, v FROM a ORDER BY k") == [(0, "old"), (1, "x")]
        # Its commit took the version its files were named with (merge-on-read's order), once.
        from deltalake import DeltaTable

        log = DeltaTable(table_path(first, "b")).history()
        assert [h["version"] for h in log if h.get("dorisql.operation") == "dorisql COMMIT"] == [before + 1], then


def test_deletes_inside_commit_before_the_inserts_all_or_nothing(pair, monkeypatch):
    """Doris 2.1's DELETE inside a transaction (with INSERT ... SELECT; a table's DELETEs before its
    INSERTs): its delete version commits with the transaction, before the table's new rows, also
    when COMMIT is cut between the tables."""
    first, second = pair
    _fresh(first, second)
    run(first, "INSERT INTO b VALUES (5, 'e'), (6, 'f')")
    before = delta_version(first, "b")
    run(first, "BEGIN WITH LABEL d1")
    deleted = run(first, "DELETE FROM a WHERE k = 0")
    assert deleted.message.startswith("{'label':'d1', 'status':'PREPARE', 'txnId':'")
    run(first, "DELETE FROM b WHERE k = 5")
    run(first, "INSERT INTO b SELECT k + 100, v FROM a")  # reads the committed rows: (0, 'old')
    with pytest.raises(AnalysisError, match="^Can not delete because there is a insert operation for the same table$"):
        run(first, "DELETE FROM b WHERE k = 6")
    assert _seen(second) == ([(0, "old")], [(5, "e"), (6, "f")])
    txn_id = first.transaction.txn_id

    def cut(name):
        if name == "between tables":
            raise ExecutionError("killed between the tables")

    monkeypatch.setattr(transactions, "step", cut)
    assert "'status':'COMMITTED'" in run(first, "COMMIT").message
    monkeypatch.setattr(transactions, "step", None)
    # The onlooker's read finishes it: a's row deleted, b's delete then its new row.
    assert _seen(second) == ([], [(6, "f"), (100, "old")])
    from deltalake import DeltaTable

    log = DeltaTable(table_path(first, "b")).history()
    marks = {f"{txn_id}:d0": "delete", str(txn_id): "rows"}
    mine = sorted((h["version"], marks[h["dorisql.transaction"]]) for h in log if h.get("dorisql.transaction") in marks)
    assert mine == [(before + 1, "delete"), (before + 2, "rows")]
