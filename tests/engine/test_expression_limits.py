"""What one value may take: a call that would build a string over Doris's limit
(string_type_length_soft_limit_bytes, 1 MiB) or an array of more elements is refused with
Doris's message while Spark keeps serving; before, ``SELECT length(space(2000000000))`` ran the
driver out of memory and stopped Spark for every session of the server."""

from __future__ import annotations

import re

import pytest

from dorisql.errors import InvalidValueError
from dorisql.server.http import HttpListener
from dorisql.translate.functions import MAX_STRING_BYTES

from .conftest import rows, run
from httpkit import put_stream_load


@pytest.fixture(scope="module")
def words(engine):
    run(
        engine,
        "CREATE TABLE IF NOT EXISTS words (k INT, s VARCHAR(20)) DUPLICATE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1')",
    )
    run(engine, "INSERT INTO words VALUES (1, 'ab'), (2, 'xyz')")
    return "words"


@pytest.mark.parametrize(
    ("sql", "shown"),
    [
        ("SELECT length(space(2000000000))", r"space\(\) would return 2000000000 bytes"),
        ("SELECT repeat('ab', 1e9)", r"repeat\(\) would return 2000000000 bytes"),
        ("SELECT lpad('a', 5e8, 'b')", r"lpad\(\) would return 500000000 bytes"),
        ("SELECT rpad('a', 5e8, 'b')", r"rpad\(\) would return 500000000 bytes"),
        # each part within the limit, the whole not: refused once built, before it grows further
        (
            "SELECT concat_ws(',', repeat('ab', 400000), repeat('ab', 400000))",
            r"concat_ws\(\) would return 1600001 bytes",
        ),
        ("SELECT size(array_repeat('a', 2000000000))", r"array_repeat\(\) would return 2000000000 elements"),
        # computed from a table's rows, not constants: the check runs per row
        ("SELECT k, repeat(s, 600000) FROM words ORDER BY k", r"repeat\(\) would return (1200000|1800000) bytes"),
    ],
)
def test_a_value_over_the_limit_is_refused_and_spark_goes_on(engine, words, sql, shown):
    with pytest.raises(InvalidValueError) as caught:
        run(engine, sql)
    message = str(caught.value)
    assert message.startswith("string column length is too large: ")
    assert re.search(shown, message), message
    assert str(MAX_STRING_BYTES) in message
    assert "Exception" not in message and "raise_error" not in message
    # the same session (and its Spark) answers the next statement
    assert rows(engine, "SELECT k, length(s) FROM words ORDER BY k") == [(1, 2), (2, 3)]


def test_values_within_the_limit_are_computed_as_before(engine, words):
    assert rows(
        engine,
        "SELECT repeat('ab', 3), length(space(1048576)), lpad('7', 3, '0'), rpad('7', 3, '0'), "
        "concat('a', repeat('b', 2)), concat_ws('-', 'x', 'y'), size(array_repeat('a', 3)), repeat('ab', -1)",
    ) == [("ababab", 1048576, "007", "700", "abb", "x-y", 3, "")]
    # the column headers are the calls as written
    result = run(engine, "SELECT repeat(s, 2), lpad(s, 4, '*') FROM words ORDER BY k")
    assert result.columns == ["repeat(s, 2)", "lpad(s, 4, '*')"]
    assert [tuple(r) for r in result.rows] == [("abab", "**ab"), ("xyzxyz", "*xyz")]
    assert rows(engine, "SELECT repeat(NULL, 3), space(NULL)") == [(None, None)]


def test_bounded_calls_group_and_order_as_written(engine, words):
    """The bound is inside the call (no lambda for plain arguments), so GROUP BY and ORDER BY
    still match the SELECT item they repeat."""
    run(engine, "INSERT INTO words VALUES (3, 'ab')")
    assert rows(engine, "SELECT concat(s, 'x'), count(*) FROM words GROUP BY concat(s, 'x') ORDER BY 1") == [
        ("abx", 2),
        ("xyzx", 1),
    ]
    assert rows(engine, "SELECT repeat(s, 2), count(*) FROM words GROUP BY repeat(s, 2) ORDER BY repeat(s, 2)") == [
        ("abab", 2),
        ("xyzxyz", 1),
    ]
    assert rows(engine, "SELECT count(*) FROM words WHERE concat(s, 'x') = 'abx'") == [(2,)]
    assert rows(engine, "SELECT repeat(s, count(*)) FROM words GROUP BY s ORDER BY 1") == [("abab",), ("xyz",)]


def test_a_stream_load_whose_mapping_is_over_the_limit_fails_in_dorises_shape(engine, words, make_engine, spark):
    """A Stream Load's `columns` mapping goes through the same bound; the load fails with the
    same message (failures.translate, the one door), nothing is loaded, and no internal error."""
    with HttpListener(lambda: make_engine(engine.warehouse, spark=spark), "127.0.0.1", 0) as server:
        headers = {"label": "over-the-limit", "column_separator": ",", "columns": "k, tmp, s = repeat(tmp, 600000)"}
        _status, out = put_stream_load(server.port, engine.current_db, "words", b"7,ab\n", headers)
    assert out["Status"] == "Fail", out
    assert "string column length is too large: repeat() would return 1200000 bytes" in out["Message"], out
    assert rows(engine, "SELECT count(*) FROM words WHERE k = 7") == [(0,)]
