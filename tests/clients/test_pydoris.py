"""pydoris against a real ``dorisql server``: its SQLAlchemy dialect (doris://, over mysqlclient)
creating a table with Doris's key, distribution and properties options and reflecting it, and
its Stream Load client (DorisClient) loading CSV and JSON over the HTTP API."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from .conftest import run
from isolation import require_module

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module", autouse=True)
def _pydoris():
    """pydoris (the clients extra) imports mysqlclient: skipped without it, failed in CI."""
    require_module("pydoris.doris_client")


@pytest.fixture(scope="module")
def database(server):
    run(server, "CREATE DATABASE pyd")
    return server


def test_doris_dialect_creates_reflects_inserts_and_selects(database):
    engine = sa.create_engine(f"doris://root:@127.0.0.1:{database.port}/pyd")
    try:
        metadata = sa.MetaData()
        events = sa.Table(
            "events",
            metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("kind", sa.String(16)),
            sa.Column("amount", sa.DECIMAL(10, 2)),  # (Doris has no NUMERIC)
            pydoris_key_type="UNIQUE",
            pydoris_distributed_by="HASH(id)",
            pydoris_buckets=2,
            pydoris_properties={"replication_num": "1"},
        )
        metadata.create_all(engine)
        create = run(database, "SHOW CREATE TABLE pyd.events")[0][1]
        assert "\nUNIQUE KEY(`id`)\n" in create and "\nDISTRIBUTED BY HASH(`id`) BUCKETS 2\n" in create
        with engine.begin() as conn:
            conn.execute(
                sa.insert(events), [{"id": 1, "kind": "a", "amount": 1.25}, {"id": 2, "kind": "b", "amount": None}]
            )
        with engine.connect() as conn:
            rows = conn.execute(sa.select(events.c.id, events.c.kind).order_by(events.c.id)).all()
        assert rows == [(1, "a"), (2, "b")]
        inspector = sa.inspect(engine)
        assert inspector.has_table("events") and not inspector.has_table("nope")
        assert "events" in inspector.get_table_names()
        assert [c["name"] for c in inspector.get_columns("events")] == ["id", "kind", "amount"]
    finally:
        engine.dispose()


def test_stream_load_client_csv_json_and_labels(database, capsys):
    run(
        database,
        "CREATE TABLE pyd.loads (k INT NOT NULL, v VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
        " PROPERTIES ('replication_num' = '1')",
    )
    client = require_module("pydoris.doris_client").DorisClient("127.0.0.1", str(database.http_port), "root", "")
    client.options.set_csv_format(",").set_label("pyd_csv_1")
    assert client.write("pyd", "loads", "1,a\n2,b\n") is True
    assert '"Status": "Success"' in capsys.readouterr().out  # (DorisClient prints Doris's response)
    # the same label again: Doris's "Label Already Exists", nothing loaded twice
    assert client.write("pyd", "loads", "1,a\n2,b\n") is False
    client.options.set_json_format().set_label("pyd_json_1")
    assert client.write("pyd", "loads", '{"k": 3, "v": "c"}\n{"k": 4, "v": null}\n') is True
    assert run(database, "SELECT k, v FROM pyd.loads ORDER BY k") == [(1, "a"), (2, "b"), (3, "c"), (4, None)]
