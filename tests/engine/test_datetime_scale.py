"""DATE and DATETIME(p) values as Doris stores them, on every path that writes or casts one:
the fraction rounded half up to the column's scale (the carry into the next second, day and
year), compact and integer dates, and the range's end (dorisql.translate.temporal).

Expected values are Doris's: the rounding of regression-test/suites/datatype_p0/datetimev2/
test_round and test_precision, the carry of DateV2Value::format_datetime."""

from __future__ import annotations

import datetime as dt

import pytest

from dorisql.errors import LoadError
from dorisql.server.http import HttpListener

from .conftest import delta_rows, rows, run
from httpkit import put_stream_load

D = dt.datetime

#: (id, value as written for DATETIME, DATETIME(3), DATETIME(6), DATE) and what Doris stores.
WRITTEN = [
    (1, "2022-08-16 12:11:11.111111", "2022-08-16 12:11:11.111611", "2024-02-01 12:13:14.1234567", "2022-08-16"),
    (2, "2022-12-31 23:59:59.5", "2022-12-31 23:59:59.9995", "9999-12-31 23:59:59.999999", "20240408"),
    (3, "2024-02-29 23:59:59.499999", "2024-02-28 23:59:59.9999", "2024-02-01 12:13:14.12345615", "20240229"),
    (4, "20220816121111.6", "2022-08-16 12:11:11.1114", "2024-02-01 12:13:14.1234561", "2022-08-16 23:59:59.9"),
]
STORED = [
    (
        1,
        D(2022, 8, 16, 12, 11, 11),
        D(2022, 8, 16, 12, 11, 11, 112000),
        D(2024, 2, 1, 12, 13, 14, 123457),
        dt.date(2022, 8, 16),
    ),
    (2, D(2023, 1, 1), D(2023, 1, 1), D(9999, 12, 31, 23, 59, 59, 999999), dt.date(2024, 4, 8)),
    (3, D(2024, 2, 29, 23, 59, 59), D(2024, 2, 29), D(2024, 2, 1, 12, 13, 14, 123456), dt.date(2024, 2, 29)),
    (
        4,
        D(2022, 8, 16, 12, 11, 12),
        D(2022, 8, 16, 12, 11, 11, 111000),
        D(2024, 2, 1, 12, 13, 14, 123456),
        dt.date(2022, 8, 16),
    ),
]
COLUMNS = "(k INT, t0 DATETIME, t3 DATETIME(3), t6 DATETIMEV2(6), d DATE)"
KEYED = "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"


def _values(rows_) -> str:
    return ", ".join("(" + ", ".join([str(r[0]), *(f"'{v}'" for v in r[1:])]) + ")" for r in rows_)


@pytest.fixture(scope="module")
def scaled(engine):
    run(engine, f"CREATE TABLE scaled {COLUMNS} {KEYED}")
    run(engine, f"INSERT INTO scaled VALUES {_values(WRITTEN)}")
    return "scaled"


def test_insert_values_are_rounded_to_the_column_scale(engine, scaled):
    assert rows(engine, "SELECT * FROM scaled ORDER BY k") == STORED
    # what is stored in Delta, as an outside reader sees it
    stored = sorted(delta_rows(engine, "scaled", ["k", "t0", "t3", "t6", "d"]), key=lambda r: r["k"])
    assert [tuple(r.values()) for r in stored] == STORED


def test_integer_dates_load_like_their_text(engine):
    run(engine, f"CREATE TABLE int_dates (k INT, d DATE, t DATETIME) {KEYED}")
    run(engine, "INSERT INTO int_dates VALUES (1, 20240408, 20240408123456), (2, '20240409', '20240409')")
    run(engine, "INSERT INTO int_dates SELECT 3, 20240410, 20240410000001")
    assert rows(engine, "SELECT * FROM int_dates ORDER BY k") == [
        (1, dt.date(2024, 4, 8), D(2024, 4, 8, 12, 34, 56)),
        (2, dt.date(2024, 4, 9), D(2024, 4, 9)),
        (3, dt.date(2024, 4, 10), D(2024, 4, 10, 0, 0, 1)),
    ]


def test_comparisons_and_delete_see_the_stored_value(engine):
    run(engine, f"CREATE TABLE del {COLUMNS} {KEYED}")
    run(engine, f"INSERT INTO del VALUES {_values(WRITTEN)}")
    assert rows(engine, "SELECT k FROM del WHERE t0 = '2022-08-16 12:11:11'") == [(1,)]
    assert rows(engine, "SELECT k FROM del WHERE t3 = '2022-08-16 12:11:11.112' ORDER BY k") == [(1,)]
    assert rows(engine, "SELECT k FROM del WHERE t0 >= '2023-01-01' AND t0 < '2023-01-02'") == [(2,)]
    run(engine, "DELETE FROM del WHERE t0 = '2022-08-16 12:11:11'")
    run(engine, "DELETE FROM del WHERE t3 = '2024-02-29 00:00:00.000'")
    assert rows(engine, "SELECT k FROM del ORDER BY k") == [(2,), (4,)]


def test_a_carry_past_9999_is_out_of_range(engine):
    run(engine, f"CREATE TABLE edge (k INT, t0 DATETIME, t6 DATETIME(6)) {KEYED}")
    run(engine, "INSERT INTO edge VALUES (1, '9999-12-31 23:59:59.499999', '9999-12-31 23:59:59.999999')")
    assert rows(engine, "SELECT * FROM edge") == [(1, D(9999, 12, 31, 23, 59, 59), D(9999, 12, 31, 23, 59, 59, 999999))]
    for value in ("'9999-12-31 23:59:59.5', NULL", "NULL, '9999-12-31 23:59:59.9999995'"):
        with pytest.raises(LoadError, match="Insert has filtered data in strict mode: 1 of 1 rows"):
            run(engine, f"INSERT INTO edge VALUES (2, {value})")
    assert rows(engine, "SELECT count(*) FROM edge") == [(1,)]


def test_insert_select_ctas_and_update_round_too(engine, scaled):
    run(engine, f"CREATE TABLE narrow (k INT, t0 DATETIME, t1 DATETIME(1), d DATE) {KEYED}")
    # DATETIME(6) values (the source's type is Spark's TIMESTAMP_NTZ) into narrower scales
    run(engine, "INSERT INTO narrow SELECT k, t6, t6, t6 FROM scaled WHERE k IN (1, 3)")
    assert rows(engine, "SELECT * FROM narrow ORDER BY k") == [
        (1, D(2024, 2, 1, 12, 13, 14), D(2024, 2, 1, 12, 13, 14, 100000), dt.date(2024, 2, 1)),
        (3, D(2024, 2, 1, 12, 13, 14), D(2024, 2, 1, 12, 13, 14, 100000), dt.date(2024, 2, 1)),
    ]
    # CTAS keeps the source column's type and its values
    run(engine, "CREATE TABLE copied AS SELECT k, t3 FROM scaled")
    assert rows(engine, "SELECT t3 FROM copied WHERE k = 1") == [(D(2022, 8, 16, 12, 11, 11, 112000),)]
    run(engine, "CREATE TABLE upd (k INT, t3 DATETIME(3)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(engine, "INSERT INTO upd VALUES (1, '2020-01-01 00:00:00')")
    run(engine, "UPDATE upd SET t3 = '2022-08-16 23:59:59.9996' WHERE k = 1")
    assert rows(engine, "SELECT t3 FROM upd") == [(D(2022, 8, 17),)]


def test_casts_give_doris_values(engine, scaled):
    got = rows(
        engine,
        "SELECT CAST('2022-08-16 12:11:11.111611' AS DATETIME(3)), CAST(20240408 AS DATE), "
        "CAST('20240408' AS DATE), CAST('2024-02-01 12:13:14.1234567' AS DATETIME(6)), "
        "CAST('2022-12-31 23:59:59.5' AS DATETIME), CAST('9999-12-31 23:59:59.5' AS DATETIME)",
    )
    assert got == [
        (
            D(2022, 8, 16, 12, 11, 11, 112000),
            dt.date(2024, 4, 8),
            dt.date(2024, 4, 8),
            D(2024, 2, 1, 12, 13, 14, 123457),
            D(2023, 1, 1),
            None,
        )
    ]
    # a column's value cast to a narrower scale
    assert rows(engine, "SELECT CAST(t6 AS DATETIME(3)), CAST(t6 AS DATETIME) FROM scaled WHERE k = 1") == [
        (D(2024, 2, 1, 12, 13, 14, 123000), D(2024, 2, 1, 12, 13, 14))
    ]


def test_rows_are_routed_by_their_rounded_value(engine):
    run(
        engine,
        "CREATE TABLE routed (k INT, t DATETIME) DUPLICATE KEY(k) PARTITION BY RANGE(t) ("
        "PARTITION p2022 VALUES LESS THAN ('2023-01-01 00:00:00'), "
        "PARTITION p2023 VALUES LESS THAN ('2024-01-01 00:00:00')) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "INSERT INTO routed VALUES (1, '2022-12-31 23:59:59.4'), (2, '2022-12-31 23:59:59.5')")
    assert sorted((r["k"], r["__partition"]) for r in delta_rows(engine, "routed", ["k", "__partition"])) == [
        (1, "p2022"),
        (2, "p2023"),
    ]
    run(
        engine,
        "CREATE TABLE routed_days (k INT, d DATE) DUPLICATE KEY(k) PARTITION BY RANGE(d) ("
        "PARTITION p1 VALUES LESS THAN ('20240101'), PARTITION p2 VALUES LESS THAN (20250101)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "INSERT INTO routed_days VALUES (1, 20231231), (2, 20240101)")
    assert sorted((r["k"], r["__partition"]) for r in delta_rows(engine, "routed_days", ["k", "__partition"])) == [
        (1, "p1"),
        (2, "p2"),
    ]


def test_auto_partition_takes_the_rounded_day(engine):
    run(
        engine,
        "CREATE TABLE auto_days (k INT, t DATETIME NOT NULL) DUPLICATE KEY(k) "
        "AUTO PARTITION BY RANGE (date_trunc(t, 'day')) () DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "INSERT INTO auto_days VALUES (1, '2024-04-08 23:59:59.7')")
    assert rows(engine, "SELECT t FROM auto_days") == [(D(2024, 4, 9),)]
    (partition,) = {r["__partition"] for r in delta_rows(engine, "auto_days", ["__partition"])}
    assert partition == "p20240409000000"


@pytest.fixture
def listener(engine, make_engine, spark):
    with HttpListener(lambda: make_engine(engine.warehouse, spark=spark), "127.0.0.1", 0) as server:
        yield server


def test_stream_load_csv_and_json_round(engine, listener):
    run(engine, f"CREATE TABLE streamed {COLUMNS} {KEYED}")
    csv = "\n".join(",".join(str(v) for v in r) for r in WRITTEN[:2]).encode()
    out = put_stream_load(listener.port, "d", "streamed", csv, {"label": "scale-csv", "column_separator": ","})[1]
    assert out["Status"] == "Success", out
    body = "\n".join(
        f'{{"k": {r[0]}, "t0": "{r[1]}", "t3": "{r[2]}", "t6": "{r[3]}", "d": {r[4] if r[4].isdigit() else repr(r[4])}}}'.replace(
            "'", '"'
        )
        for r in WRITTEN[2:]
    ).encode()
    headers = {"label": "scale-json", "format": "json", "read_json_by_line": "true"}
    out = put_stream_load(listener.port, "d", "streamed", body, headers)[1]
    assert out["Status"] == "Success", out
    assert rows(engine, "SELECT * FROM streamed ORDER BY k") == STORED
