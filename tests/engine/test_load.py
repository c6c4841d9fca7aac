"""Loading: strict mode, one Delta commit per INSERT, INSERT ... SELECT, PARTITION (p), column
lists and DEFAULT, files through local(). Each check reads the Delta table as an outside reader."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest

from dorisql.errors import AnalysisError, LoadError

from .conftest import delta_count, delta_rows, delta_version, partition_names, rows, run, table_path

SALES = """CREATE TABLE sales (
    id INT NOT NULL, day DATE NOT NULL, city VARCHAR(16), amount BIGINT DEFAULT "7", note VARCHAR(10) DEFAULT "none")
    DUPLICATE KEY(id, day)
    PARTITION BY RANGE(day) (
        PARTITION p1 VALUES [("2024-01-01"), ("2024-02-01")),
        PARTITION p2 VALUES [("2024-02-01"), ("2024-03-01")),
        PARTITION p3 VALUES [("2024-03-01"), ("2024-04-01")))
    DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")"""


def _commit_actions(engine, table: str, version: int) -> list[dict]:
    path = os.path.join(table_path(engine, table), "_delta_log", f"{version:020d}.json")
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def sales(engine):
    run(engine, SALES)
    values = ", ".join(f"({i}, '2024-0{1 + i % 3}-{1 + i % 28:02d}', 'c{i % 5}', {i * 10}, 'n{i}')" for i in range(60))
    run(engine, f"INSERT INTO sales VALUES {values}")
    return "sales"


def test_one_insert_is_one_delta_commit(engine, sales):
    before = delta_version(engine, sales)
    values = ", ".join(f"({1000 + i}, '2024-0{1 + i % 3}-15', 'x', {i}, 'one')" for i in range(40))
    result = run(engine, f"INSERT INTO sales VALUES {values}")
    assert result.affected_rows == 40
    assert delta_version(engine, sales) == before + 1
    adds = [a["add"] for a in _commit_actions(engine, sales, before + 1) if "add" in a]
    tablets = {(a["partitionValues"]["__partition"], a["partitionValues"]["__bucket"]) for a in adds}
    names = partition_names(engine, sales)
    assert {names[p] for p, _ in tablets} == {"p1", "p2", "p3"}
    assert len(tablets) > 3  # several buckets in several partitions, one commit
    assert sum(json.loads(a["stats"])["numRecords"] for a in adds) == 40
    assert not [a for a in _commit_actions(engine, sales, before + 1) if "remove" in a]
    stored = [r for r in delta_rows(engine, sales) if r["note"] == "one"]
    assert len(stored) == 40
    # Each row sits in the tablet its partition and hash say.
    assert all(r["__partition"] == f"p{int(r['day'].month)}" for r in stored)
    assert all(0 <= r["__bucket"] < 4 for r in stored)


def test_strict_mode_refuses_the_whole_insert(engine, sales):
    before_version = delta_version(engine, sales)
    before_rows = rows(engine, "SELECT * FROM sales ORDER BY id, day")
    before_delta = delta_count(engine, sales)
    bad = (
        "(2000, '2024-01-05', 'ok', 1, 'a'), (2001, '2025-06-01', 'late', 1, 'b'), "
        "(2002, '2024-02-05', 'ok', 1, 'c'), (2003, '2023-12-31', 'early', 1, 'd')"
    )
    with pytest.raises(LoadError) as err:
        run(engine, f"INSERT INTO sales VALUES {bad}")
    text = str(err.value)
    assert text.startswith("Insert has filtered data in strict mode")
    assert "2 of 4 rows" in text
    assert "2025-06-01" in text and "2023-12-31" in text  # sample rows, as given
    assert "no partition" in text
    assert delta_version(engine, sales) == before_version
    assert delta_count(engine, sales) == before_delta
    assert rows(engine, "SELECT * FROM sales ORDER BY id, day") == before_rows
    assert (
        not os.listdir(os.path.join(table_path(engine, sales), "_staging"))
        if os.path.isdir(os.path.join(table_path(engine, sales), "_staging"))
        else True
    )

    run(engine, "SET enable_insert_strict = false")
    try:
        result = run(engine, f"INSERT INTO sales VALUES {bad}")
    finally:
        run(engine, "SET enable_insert_strict = true")
    assert result.affected_rows == 2
    assert result.warnings[0] == "2 rows filtered (enable_insert_strict = false)"
    assert delta_version(engine, sales) == before_version + 1
    assert sorted(r["id"] for r in delta_rows(engine, sales, columns=["id"]) if r["id"] >= 2000) == [2000, 2002]


@pytest.mark.parametrize(
    "values, column",
    [
        ("(3000, '2024-01-05', 'x', 'abc', 'n')", "amount"),  # 'abc' into BIGINT
        ("('abc', '2024-01-05', 'x', 1, 'n')", "id"),  # 'abc' into INT
        ("(3001, '2024-02-30', 'x', 1, 'n')", "day"),  # no such date
        ("(3002, '2024-01-05', 'x', 1, 'much too long')", "note"),  # longer than VARCHAR(10)
        ("(NULL, '2024-01-05', 'x', 1, 'n')", "id"),  # NULL into NOT NULL
        ("(99999999999, '2024-01-05', 'x', 1, 'n')", "id"),  # beyond INT
    ],
)
def test_a_value_that_does_not_fit_fails_like_a_bad_row(engine, sales, values, column):
    version = delta_version(engine, sales)
    count = rows(engine, "SELECT count(*) FROM sales")
    with pytest.raises(LoadError) as err:
        run(engine, f"INSERT INTO sales VALUES (4000, '2024-01-01', 'fine', 1, 'n'), {values}")
    text = str(err.value)
    assert "1 of 2 rows" in text and f"`{column}`" in text, text
    assert delta_version(engine, sales) == version
    assert rows(engine, "SELECT count(*) FROM sales") == count


def test_insert_select_from_another_table(engine, sales):
    run(
        engine,
        """CREATE TABLE sales_copy (id INT NOT NULL, day DATE NOT NULL, city VARCHAR(16), total BIGINT)
        DUPLICATE KEY(id) PARTITION BY RANGE(day) (PARTITION q1 VALUES LESS THAN ("2024-04-01"))
        DISTRIBUTED BY HASH(id) BUCKETS 3""",
    )
    before = delta_version(engine, "sales_copy")
    result = run(engine, "INSERT INTO sales_copy SELECT id, day, city, amount * 2 FROM sales WHERE id < 60")
    assert result.affected_rows == 60
    assert delta_version(engine, "sales_copy") == before + 1
    copied = {r["id"]: r["total"] for r in delta_rows(engine, "sales_copy", columns=["id", "total"])}
    assert copied == {i: i * 20 for i in range(60)}
    # Column count mismatch is refused before Spark writes anything.
    with pytest.raises(AnalysisError):
        run(engine, "INSERT INTO sales_copy SELECT id, day FROM sales")
    # An empty SELECT loads nothing and commits nothing.
    version = delta_version(engine, "sales_copy")
    assert run(engine, "INSERT INTO sales_copy SELECT id, day, city, amount FROM sales WHERE id < 0").affected_rows == 0
    assert delta_version(engine, "sales_copy") == version


def test_insert_into_named_partitions(engine, sales):
    run(engine, SALES.replace("sales", "sales_p"))
    mixed = "(1, '2024-01-10', 'a', 1, 'x'), (2, '2024-02-10', 'b', 1, 'x'), (3, '2024-03-10', 'c', 1, 'x')"
    with pytest.raises(LoadError) as err:
        run(engine, f"INSERT INTO sales_p PARTITION (p1, p3) VALUES {mixed}")
    assert "1 of 3 rows" in str(err.value) and "p2" in str(err.value)
    assert delta_count(engine, "sales_p") == 0
    run(
        engine,
        "INSERT INTO sales_p PARTITION (p1, p3) VALUES (1, '2024-01-10', 'a', 1, 'x'), (3, '2024-03-10', 'c', 1, 'x')",
    )
    run(engine, "SET enable_insert_strict = false")
    try:
        result = run(engine, "INSERT INTO sales_p PARTITION (p2) SELECT id + 10, day, city, amount, note FROM sales_p")
        result2 = run(engine, f"INSERT INTO sales_p PARTITION (p2) VALUES {mixed}")
    finally:
        run(engine, "SET enable_insert_strict = true")
    # every row filtered: a finished load job all the same (OlapInsertExecutor.setReturnInfo)
    assert result.affected_rows == 0 and result.warnings[0] == "2 rows filtered (enable_insert_strict = false)"
    assert result.message.startswith("{'label':'label_")
    assert result2.affected_rows == 1
    assert sorted(
        (r["id"], r["__partition"]) for r in delta_rows(engine, "sales_p", columns=["id", "__partition"])
    ) == [(1, "p1"), (2, "p2"), (3, "p3")]
    with pytest.raises(AnalysisError):
        run(engine, f"INSERT INTO sales_p PARTITION (nope) VALUES {mixed}")


def test_column_list_and_defaults(engine, sales):
    run(engine, SALES.replace("sales", "sales_d"))
    run(engine, "INSERT INTO sales_d (day, id) VALUES ('2024-01-02', 1), ('2024-02-03', 2)")
    run(
        engine,
        "INSERT INTO sales_d (id, day, amount, note) VALUES (3, '2024-03-04', DEFAULT, 'given'), "
        "(4, '2024-03-05', -5, DEFAULT)",
    )
    got = sorted(
        (r["id"], r["city"], r["amount"], r["note"])
        for r in delta_rows(engine, "sales_d", columns=["id", "city", "amount", "note"])
    )
    assert got == [(1, None, 7, "none"), (2, None, 7, "none"), (3, None, 7, "given"), (4, None, -5, "none")]
    # A NOT NULL column without a default that the list leaves out: every row is refused.
    with pytest.raises(LoadError) as err:
        run(engine, "INSERT INTO sales_d (day) VALUES ('2024-01-02')")
    assert "`id`" in str(err.value)
    with pytest.raises(AnalysisError):
        run(engine, "INSERT INTO sales_d (id, id) VALUES (1, 2)")
    with pytest.raises(AnalysisError):
        run(engine, "INSERT INTO sales_d (id, nope) VALUES (1, 2)")
    with pytest.raises(AnalysisError):
        run(engine, "INSERT INTO sales_d (id, day) VALUES (1)")


def test_load_files_with_local(engine, tmp_path, spark, monkeypatch):
    # local() reads only under user_files_secure_path (docs/security.md): here, the test's folder.
    monkeypatch.setitem(engine.config.frontend, "user_files_secure_path", str(tmp_path))
    run(engine, SALES.replace("sales", "sales_f"))
    csv = tmp_path / "rows.csv"
    csv.write_text("1,2024-01-05,Paris,10,a\n2,2024-02-05,Rome,20,b\n")
    csv_names = tmp_path / "named.csv"
    csv_names.write_text("id|day|city|amount|note\n3|2024-03-05|Oslo|30|c\n")
    js = tmp_path / "rows.json"
    js.write_text(
        '{"id": 4, "day": "2024-01-06", "city": "Lima", "amount": 40, "note": "d"}\n'
        '{"id": 5, "day": "2024-02-06", "city": "Kyiv", "amount": 50, "note": "e"}\n'
    )
    pq = tmp_path / "rows.parquet"
    spark.createDataFrame(
        [(6, dt.date(2024, 3, 6), "Baku", 60, "f")], "id INT, day DATE, city STRING, amount BIGINT, note STRING"
    ).coalesce(1).write.parquet(str(pq))
    run(
        engine,
        f"""INSERT INTO sales_f SELECT * FROM local("file_path" = "{csv}", "format" = "csv", "column_separator" = ",")""",
    )
    run(
        engine,
        f"""INSERT INTO sales_f SELECT * FROM local("file_path" = "{csv_names}", "format" = "csv_with_names", "column_separator" = "|")""",
    )
    run(
        engine,
        f"""INSERT INTO sales_f SELECT id, day, city, amount, note FROM local("file_path" = "{js}", "format" = "json")""",
    )
    run(
        engine,
        f"""INSERT INTO sales_f (id, day, city, amount, note) SELECT * FROM local("file_path" = "{pq}", "format" = "parquet")""",
    )
    got = sorted(
        (r["id"], r["day"], r["city"], r["amount"], r["note"], r["__partition"]) for r in delta_rows(engine, "sales_f")
    )
    assert got == [
        (1, dt.date(2024, 1, 5), "Paris", 10, "a", "p1"),
        (2, dt.date(2024, 2, 5), "Rome", 20, "b", "p2"),
        (3, dt.date(2024, 3, 5), "Oslo", 30, "c", "p3"),
        (4, dt.date(2024, 1, 6), "Lima", 40, "d", "p1"),
        (5, dt.date(2024, 2, 6), "Kyiv", 50, "e", "p2"),
        (6, dt.date(2024, 3, 6), "Baku", 60, "f", "p3"),
    ]
    # A bad line in a file is a bad row like any other.
    bad = tmp_path / "bad.csv"
    bad.write_text("7,2024-01-07,Doha,70,g\n8,2024-13-01,Oops,80,h\n")
    version = delta_version(engine, "sales_f")
    with pytest.raises(LoadError) as err:
        run(
            engine,
            f"""INSERT INTO sales_f SELECT * FROM local("file_path" = "{bad}", "format" = "csv", "column_separator" = ",")""",
        )
    assert "1 of 2 rows" in str(err.value) and "2024-13-01" in str(err.value)
    assert delta_version(engine, "sales_f") == version
    with pytest.raises(AnalysisError):
        run(
            engine,
            f"""INSERT INTO sales_f SELECT * FROM local("file_path" = "{tmp_path / "missing.csv"}", "format" = "csv")""",
        )
