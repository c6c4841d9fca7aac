"""BITMAP, HLL and QUANTILE_STATE columns (issue 30 items 1 and 3): Doris's DDL rules and
messages, loads through Doris's load functions (INSERT VALUES, INSERT ... SELECT, Stream Load's
``columns`` mapping), the AGGREGATE merge on read and in compaction, what a client is shown,
and the stored values as an outside reader (deltalake) finds them (docs/storage.md, "BITMAP, HLL
and QUANTILE_STATE")."""

from __future__ import annotations

import pytest

from dorisql.compaction import executor, service
from dorisql.errors import AnalysisError, DorisqlError, NotSupportedError
from dorisql.server.http import HttpListener

from .conftest import delta, rows, run
from httpkit import put_stream_load

AGG = (
    "CREATE TABLE uv (day DATE, site INT, pv BIGINT SUM, user_ids BITMAP BITMAP_UNION, "
    "users HLL HLL_UNION, lat QUANTILE_STATE QUANTILE_UNION) AGGREGATE KEY(day, site) "
    "DISTRIBUTED BY HASH(site) BUCKETS 1"
)


def _bitmap_values(entries) -> set[int]:
    """A stored BITMAP decoded by docs/storage.md's rule, as another engine would."""
    values = set()
    for entry in entries:
        bucket, bits = entry["bucket"], entry["bits"]
        for byte_index, byte in enumerate(bits):
            for bit in range(8):
                if byte >> bit & 1:
                    position = byte_index * 8 + bit
                    values.add(0 if bucket == 0 else (bucket - 1) * 32768 + position + 1)
    return values


def _answers(engine):
    return rows(
        engine,
        "SELECT day, site, pv, bitmap_count(user_ids), bitmap_to_string(user_ids), hll_cardinality(users), "
        "quantile_percent(lat, 0.5), quantile_percent(lat, 1) FROM uv ORDER BY day, site",
    )


@pytest.fixture
def listener(engine, make_engine, spark):
    with HttpListener(lambda: make_engine(engine.warehouse, spark=spark), "127.0.0.1", 0) as server:
        yield server


def test_aggregate_table_loads_merges_and_compacts_sketch_columns(engine, listener):
    run(engine, "DROP TABLE IF EXISTS uv FORCE")
    run(engine, AGG)
    # three loads of one key and others: INSERT VALUES with the load functions
    run(
        engine,
        "INSERT INTO uv VALUES ('2024-01-01', 1, 1, to_bitmap(10), hll_hash(10), to_quantile_state(10, 2048)), "
        "('2024-01-01', 1, 1, to_bitmap(20), hll_hash('20'), to_quantile_state(20, 2048)), "
        "('2024-01-01', 2, 1, bitmap_from_string('1,2,3'), hll_empty(), to_quantile_state(5, 2048))",
    )
    run(
        engine,
        "INSERT INTO uv VALUES ('2024-01-01', 1, 1, bitmap_from_string('0,10,40000,9223372036854775807'), "
        "hll_hash(20), to_quantile_state(30, 2048))",
    )
    # columns a load does not name: the empty BITMAP and HLL (Doris's defaults)
    run(engine, "INSERT INTO uv (day, site, pv, lat) VALUES ('2024-01-01', 2, 0, to_quantile_state(5, 2048))")
    # INSERT ... SELECT from the raw events
    run(engine, "DROP TABLE IF EXISTS ev FORCE")
    run(
        engine,
        "CREATE TABLE ev (day DATE, site INT, user_id BIGINT) DUPLICATE KEY(day) DISTRIBUTED BY HASH(site) BUCKETS 1",
    )
    run(engine, "INSERT INTO ev VALUES ('2024-01-02', 1, 7), ('2024-01-02', 1, 8), ('2024-01-02', 1, 7)")
    run(
        engine,
        "INSERT INTO uv SELECT day, site, 1, to_bitmap(user_id), hll_hash(user_id), to_quantile_state(user_id, 2048) "
        "FROM ev",
    )
    # Stream Load with Doris's columns mapping idiom
    status, answer = put_stream_load(
        listener.port,
        "d",
        "uv",
        b"2024-01-02,1,99,40\n2024-01-02,1,8,60\n",
        {
            "column_separator": ",",
            "columns": "day, site, user_id, ms, pv=1, user_ids=to_bitmap(user_id), users=hll_hash(user_id), "
            "lat=to_quantile_state(ms, 2048)",
        },
    )
    assert status == 200 and answer["Status"] == "Success", answer
    assert answer["NumberLoadedRows"] == 2, answer

    expected = [
        ("2024-01-01", 1, 3, 5, "0,10,20,40000,9223372036854775807", 2, 20.0, 30.0),
        ("2024-01-01", 2, 1, 3, "1,2,3", 0, 5.0, 5.0),
        ("2024-01-02", 1, 5, 3, "7,8,99", 3, 8.0, 60.0),
    ]

    def shown(answers):
        return [(str(d), *rest) for d, *rest in answers]

    assert shown(_answers(engine)) == expected
    # a sketch column selected directly is NULL to the client, as Doris's
    assert rows(engine, "SELECT site, user_ids, users, lat FROM uv WHERE site = 2") == [(2, None, None, None)]

    # compaction merges the stored rows into one per key: the answers do not change
    stored_before = delta(engine, "uv").to_pyarrow_table().num_rows
    assert stored_before > 3
    uv = engine.catalog.load_table("d", "uv")
    tablets = service.table_tablets(engine, uv)
    ((key, view),) = tablets.views.items()
    service.compact(engine, tablets, key, view.rowsets, executor.BASE)  # every rowset into one
    assert shown(_answers(engine)) == expected
    table = delta(engine, "uv").to_pyarrow_table().to_pylist()
    assert len(table) == 3
    # what another engine reads: the documented plain types, BITMAP decoded by the documented rule
    users = {(day, site): {int(v) for v in text.split(",")} for day, site, _, _, text, *_ in expected}
    for row in table:
        assert _bitmap_values(row["user_ids"]) == users[(str(row["day"]), row["site"])]
        assert [e["bucket"] for e in row["user_ids"]] == sorted(e["bucket"] for e in row["user_ids"])
        assert isinstance(row["users"], bytes) and isinstance(row["lat"], bytes)

    # CREATE TABLE ... AS SELECT: a BITMAP column read as it is, and a BITMAP expression
    run(engine, "DROP TABLE IF EXISTS uv_copy FORCE")
    run(engine, "CREATE TABLE uv_copy AS SELECT day, site, user_ids, bitmap_or(user_ids, to_bitmap(1)) AS ids FROM uv")
    copied = rows(engine, "SELECT site, bitmap_count(user_ids), bitmap_count(ids) FROM uv_copy ORDER BY day, site")
    assert copied == [(1, 5, 6), (2, 3, 3), (1, 3, 4)]
    assert [r[1] for r in rows(engine, "DESC uv_copy")][2:] == ["bitmap", "bitmap"]
    with pytest.raises(NotSupportedError, match="HLL or QUANTILE_STATE"):
        run(engine, "CREATE TABLE uv_bad AS SELECT site, hll_union(users) AS u FROM uv GROUP BY site")

    # DESC and SHOW CREATE TABLE show Doris's type names and aggregations
    desc = {r[0]: r for r in rows(engine, "DESC uv")}
    assert desc["user_ids"][1:3] == ("bitmap", "No") and desc["user_ids"][5] == "BITMAP_UNION"
    assert desc["users"][1] == "hll" and desc["users"][5] == "HLL_UNION"
    assert desc["lat"][1] == "quantile_state" and desc["lat"][5] == "QUANTILE_UNION"
    ddl = rows(engine, "SHOW CREATE TABLE uv")[0][1]
    assert "`user_ids` bitmap BITMAP_UNION NOT NULL" in ddl and "`users` hll HLL_UNION NOT NULL" in ddl


def test_duplicate_table_keeps_a_sketch_per_row_and_alter_adds_one(engine):
    run(engine, "DROP TABLE IF EXISTS dup FORCE")
    run(engine, "CREATE TABLE dup (k INT, b BITMAP, h HLL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(
        engine,
        "INSERT INTO dup VALUES (1, to_bitmap(5), hll_hash(5)), (1, to_bitmap(6), hll_hash(6)), (2, DEFAULT, DEFAULT)",
    )
    assert rows(
        engine, "SELECT k, bitmap_to_string(b), hll_cardinality(h) FROM dup ORDER BY k, bitmap_to_string(b)"
    ) == [
        (1, "5", 1),
        (1, "6", 1),
        (2, "", 0),
    ]
    # a column added later: its default (the empty bitmap) for the rows loaded before
    run(engine, "ALTER TABLE dup ADD COLUMN b2 BITMAP")
    run(engine, "INSERT INTO dup (k, b, h, b2) VALUES (3, bitmap_empty(), hll_empty(), bitmap_from_string('1,2'))")
    assert rows(engine, "SELECT k, bitmap_count(b2) FROM dup ORDER BY k") == [(1, 0), (1, 0), (2, 0), (3, 2)]
    with pytest.raises(AnalysisError, match="Hll type column can not set default value"):
        run(engine, "ALTER TABLE dup ADD COLUMN h2 HLL DEFAULT ''")
    with pytest.raises(AnalysisError, match="Key column can not set complex type:b3"):
        run(engine, "ALTER TABLE dup ADD COLUMN b3 BITMAP KEY")


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        (
            "CREATE TABLE r1 (k BITMAP, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(v) BUCKETS 1",
            "Key column can not set complex type:k",
        ),
        (
            "CREATE TABLE r2 (k INT, b BITMAP SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
            "Aggregate type SUM is not compatible with primitive type BITMAP",
        ),
        (
            "CREATE TABLE r3 (k INT, h HLL BITMAP_UNION) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
            "Aggregate type BITMAP_UNION is not compatible with primitive type HLL",
        ),
        (
            "CREATE TABLE r4 (k INT, b BITMAP) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
            "AGG_KEYS table should specify aggregate type for non-key column[b]",
        ),
        (
            "CREATE TABLE r5 (k INT, h HLL HLL_UNION DEFAULT '') AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
            "Hll type column can not set default value",
        ),
        (
            "CREATE TABLE r6 (k INT, b BITMAP BITMAP_UNION DEFAULT '1') AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
            "Bitmap type column default value only support BITMAP_EMPTY",
        ),
    ],
)
def test_sketch_column_refusals(engine, ddl, message):
    with pytest.raises(AnalysisError) as refused:
        run(engine, ddl)
    assert message in str(refused.value)


def test_sketch_load_refusals_change_nothing(engine):
    run(engine, "DROP TABLE IF EXISTS ref FORCE")
    run(
        engine,
        "CREATE TABLE ref (k INT, b BITMAP BITMAP_UNION, h HLL HLL_UNION) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    with pytest.raises(AnalysisError, match="Invalid value 5 for column 'b' of type BITMAP"):
        run(engine, "INSERT INTO ref VALUES (1, 5, hll_empty())")
    with pytest.raises(DorisqlError, match="NOT NULL"):
        run(engine, "INSERT INTO ref VALUES (1, NULL, hll_empty())")
    assert rows(engine, "SELECT count(*) FROM ref") == [(0,)]
