"""SQLAlchemy (MySQL dialect over PyMySQL) and pandas against a real ``dorisql server``: the
inspector (tables, views, columns, key, indexes), Core insert and select, pandas read_sql and
to_sql (append, replace, with the index)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pandas as pd
import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from .conftest import run

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def engine(server):
    run(
        server,
        "CREATE DATABASE alchemy",
        "CREATE TABLE alchemy.orders (id INT NOT NULL, customer VARCHAR(20) NOT NULL, amount DECIMAL(10, 2),"
        " placed DATE) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ('replication_num' = '1')",
    )
    engine = sa.create_engine(f"mysql+pymysql://root:@127.0.0.1:{server.port}/alchemy")
    yield engine
    engine.dispose()


def test_core_insert_and_select(engine):
    orders = sa.Table("orders", sa.MetaData(), autoload_with=engine)
    with engine.begin() as conn:
        done = conn.execute(
            sa.insert(orders),
            [
                {"id": 1, "customer": "ann", "amount": Decimal("9.90"), "placed": dt.date(2024, 5, 1)},
                {"id": 2, "customer": "bob", "amount": None, "placed": dt.date(2024, 5, 2)},
            ],
        )
        assert done.rowcount == 2
    with engine.connect() as conn:
        query = sa.select(orders.c.customer, orders.c.amount).where(orders.c.placed >= dt.date(2024, 5, 1))
        assert conn.execute(query.order_by(orders.c.id)).all() == [("ann", Decimal("9.90")), ("bob", None)]
        assert conn.execute(sa.select(sa.func.count()).select_from(orders)).scalar_one() == 2


def test_inspector(engine):
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 5")
    inspector = sa.inspect(engine)
    assert "alchemy" in inspector.get_schema_names()
    assert inspector.get_table_names() == ["orders"]
    assert inspector.get_view_names() == ["big_orders"]
    with pytest.warns(sa.exc.SAWarning, match="Unknown schema content"):  # Doris's UNIQUE KEY, PROPERTIES...
        columns = inspector.get_columns("orders")
    assert [(c["name"], repr(c["type"]), c["nullable"]) for c in columns] == [
        ("id", repr(mysql.INTEGER()), False),
        ("customer", repr(mysql.VARCHAR(length=20)), False),
        ("amount", repr(mysql.DECIMAL(precision=10, scale=2)), True),
        ("placed", repr(mysql.DATE()), True),
    ]
    # (the inspector parsed SHOW CREATE TABLE once: no second warning)
    assert inspector.get_pk_constraint("orders")["constrained_columns"] == []  # a UNIQUE KEY is no PRIMARY KEY
    assert inspector.get_indexes("orders") == []


def test_pandas_read_sql_and_to_sql(engine):
    frame = pd.DataFrame(
        {"name": ["x", "y", "z"], "score": [1.5, 2.5, None], "day": pd.to_datetime(["2024-01-01"] * 3)}
    )
    # to_sql creates the table (SQLAlchemy's CREATE TABLE, read as a Doris DUPLICATE table), then
    # appends; a first column may not be TEXT in Doris, hence the dtype
    assert frame.to_sql("scores", engine, index=False, dtype={"name": sa.VARCHAR(10)}) == 3
    assert frame.to_sql("scores", engine, index=False, if_exists="append") == 3
    back = pd.read_sql(
        "SELECT name, count(*) AS n, max(score) AS score FROM scores GROUP BY name ORDER BY name", engine
    )
    assert back[["name", "n"]].to_dict("list") == {"name": ["x", "y", "z"], "n": [2, 2, 2]}
    assert back["score"].tolist()[:2] == [1.5, 2.5] and pd.isna(back["score"][2])  # NULL: NaN in a float column
    # replace drops the table and creates it again, here with the index as a column
    indexed = pd.DataFrame({"v": [10, 20]}, index=pd.Index([7, 8], name="k"))
    assert indexed.to_sql("scores", engine, if_exists="replace") == 2
    again = pd.read_sql("SELECT * FROM scores ORDER BY k", engine, index_col="k")
    assert again.index.tolist() == [7, 8] and again["v"].tolist() == [10, 20]
    typed = pd.read_sql("SELECT id, amount, placed FROM orders ORDER BY id", engine)
    assert typed["id"].dtype == "int64" and typed["amount"].tolist()[0] == 9.9
