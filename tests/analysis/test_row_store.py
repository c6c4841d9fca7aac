"""Doris's row-store table properties (store_row_column, row_store_columns): accepted with
Doris's checks and shown by SHOW CREATE TABLE; they change nothing in how rows are stored."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError

UNIQUE = "CREATE TABLE {name} (k INT, v VARCHAR(8), w INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"


@pytest.fixture
def engine(tmp_path, make_engine):
    eng = make_engine(tmp_path / "wh")
    eng.execute_sql("CREATE DATABASE d; USE d")
    yield eng
    eng.close()


def _create_sql(engine, name: str) -> str:
    return engine.execute_sql(f"SHOW CREATE TABLE {name}")[0].rows[0][1]


def test_row_store_properties_are_kept_and_shown(engine):
    engine.execute_sql(UNIQUE.format(name="a") + ' PROPERTIES ("store_row_column" = "true")')
    engine.execute_sql(UNIQUE.format(name="b") + ' PROPERTIES ("row_store_columns" = "k,V")')
    assert '"store_row_column" = "true"' in _create_sql(engine, "a")
    assert '"row_store_columns" = "k,V"' in _create_sql(engine, "b")
    assert '"row_store_page_size" = "16384"' in _create_sql(engine, "b")


@pytest.mark.parametrize(
    "ddl, message",
    [
        (
            UNIQUE.format(name="c") + ' PROPERTIES ("row_store_columns" = "k,nope,gone")',
            "Column does not exist in table. Invalid columns: nope, gone",
        ),
        (UNIQUE.format(name="c") + ' PROPERTIES ("row_store_columns" = ",")', "row_store_columns must not be empty"),
        (
            "CREATE TABLE c (k INT, v INT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"
            ' PROPERTIES ("store_row_column" = "true")',
            "Aggregate table can't support row column now",
        ),
    ],
)
def test_row_store_mistakes_are_refused_as_doris_refuses_them(engine, ddl, message):
    with pytest.raises(AnalysisError, match=message.replace("(", r"\(")):
        engine.execute_sql(ddl)
    assert engine.execute_sql("SHOW TABLES")[0].rows == []
