"""What a user sees of loaded values and query columns, on real Spark: FLOAT digits, column
headers as written, Doris functions Spark lacks or types differently, and ARRAY / MAP / STRUCT
values loaded with INSERT ... VALUES (Doris's literal spelling)."""

from __future__ import annotations

from dorisql.result import Float32
from dorisql.shell.formatting import format_result

from .conftest import rows, run


def test_float_and_double_print_as_doris(engine):
    run(
        engine,
        "CREATE TABLE fl (id INT, f FLOAT, d DOUBLE) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1;"
        "INSERT INTO fl VALUES (1, 38.638844, 38.63884353637695), (2, 1, 100), (3, NULL, 0.1)",
    )
    result = run(engine, "SELECT f, d, f * 2 AS twice FROM fl ORDER BY id")
    assert isinstance(result.rows[0][0], Float32) and not isinstance(result.rows[0][1], Float32)
    # FLOAT has float32's shortest digits, DOUBLE double's (FLOAT arithmetic is DOUBLE, as in
    # Doris); whole numbers without ".0" (fmt's "{}")
    assert format_result(result, "tsv") == (
        "f\td\ttwice\n38.638844\t38.63884353637695\t77.2776870727539\n1\t100\t2\nNULL\t0.1\tNULL"
    )
    assert '"f": 38.638844' in format_result(result, "json")


def test_headers_are_the_query_text(engine):
    run(engine, "CREATE TABLE hd (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(engine, "INSERT INTO hd VALUES (1, 10), (1, 20), (2, 5)")
    result = run(engine, "SELECT k, count(*), SUM(v), v + 1 AS w, 'x' FROM hd GROUP BY k, v ORDER BY k, v")
    assert result.columns == ["k", "count(*)", "SUM(v)", "w", "'x'"]
    union = run(engine, "SELECT count(*) FROM hd UNION ALL SELECT max(v) FROM hd")
    assert union.columns == ["count(*)"] and sorted(r[0] for r in union.rows) == [3, 20]


def test_doris_functions_spark_lacks(engine):
    run(engine, "CREATE TABLE fn (id BIGINT, s STRING) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
    run(engine, 'INSERT INTO fn SELECT number, concat(\'s\', number % 3) FROM numbers("number" = "10")')
    result = run(
        engine,
        "SELECT ndv(s), max(date_add('2024-01-01', id % 366)), min(days_sub('2024-01-01', id)), "
        "max(hours_add('2024-01-01 00:00:00', id)), max(months_add('2024-01-31', id)) FROM fn",
    )
    assert result.columns[0] == "ndv(s)"
    ndv, last_day, first_day, last_hour, months = result.rows[0]
    assert ndv == 3
    assert str(last_day) == "2024-01-10" and str(first_day) == "2023-12-23"
    assert str(last_hour) == "2024-01-01 09:00:00" and str(months) == "2024-10-31"
    assert rows(engine, "SELECT map_values(map('a', 1, 'b', 2))") == [([1, 2],)]


def test_complex_columns_load_from_values(engine):
    run(
        engine,
        "CREATE TABLE cx (id INT, a ARRAY<STRING>, m MAP<STRING, INT>, s STRUCT<n:STRING, v:INT>, "
        "nested ARRAY<MAP<INT, ARRAY<INT>>>) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1",
    )
    run(
        engine,
        "INSERT INTO cx VALUES (1, ['x', 'y'], {'k': 1, 'j': 2}, {'a', 1}, [{1: [2, 3]}]), "
        "(2, NULL, map('z', 26), named_struct('n', 'b', 'v', 2), []), (3, '[\"q\"]', '{\"k\": 5}', NULL, NULL)",
    )
    run(engine, "INSERT INTO cx (id) VALUES (4)")  # the complex columns left out: NULL
    result = run(engine, "SELECT * FROM cx ORDER BY id")
    assert result.rows == [
        (1, ["x", "y"], {"k": 1, "j": 2}, {"n": "a", "v": 1}, [{1: [2, 3]}]),
        (2, None, {"z": 26}, {"n": "b", "v": 2}, []),
        (3, ["q"], {"k": 5}, None, None),
        (4, None, None, None, None),
    ]
    # shown as Doris shows them
    assert format_result(result, "tsv").splitlines()[3] == '3\t["q"]\t{"k":5}\tNULL\tNULL'
    assert format_result(result, "tsv").splitlines()[1].endswith('\t{"n":"a", "v":1}\t[{"1":[2, 3]}]')
