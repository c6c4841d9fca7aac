"""Doris's scalar functions that Spark lacks, under Doris's names, with the results of Doris's
documentation examples (one Spark query for all of them)."""

from __future__ import annotations

import pytest

from dorisql.errors import NotSupportedError
from dorisql.result import render_value

from .conftest import rows, run

#: (Doris expression, what Doris's documentation shows it returns)
EXAMPLES = [
    # JSON
    ("json_object('title', 'Amount', 'value', 1.1)", '{"title":"Amount","value":1.1}'),
    ("json_object('id', 87, 'name', 'carrot')", '{"id":87,"name":"carrot"}'),
    ("json_object('k', NULL)", '{"k":null}'),
    ("json_object('k', json_array(1, 2))", '{"k":[1,2]}'),
    ("json_array(1, 'abc', NULL, true)", '[1,"abc",null,true]'),
    ("json_array()", "[]"),
    ("json_array(json_object('a', 1))", '[{"a":1}]'),
    ('get_json_int(\'{"k1":1, "k2":"2"}\', \'$.k1\')', "1"),
    ("get_json_bigint('{\"k1\":1678708107000}', '$.k1')", "1678708107000"),
    ('get_json_double(\'{"k1":1.3, "k2":"2"}\', \'$.k1\')', "1.3"),
    ('get_json_string(\'{"k1":"v1", "k2":"v2"}\', \'$.k1\')', "v1"),
    ('json_extract_string(\'{"id": 123, "name": "doris"}\', \'$.name\')', "doris"),
    ('json_extract_int(\'{"id": 123, "name": "doris"}\', \'$.id\')', "123"),
    ("json_extract_bool('{\"ok\": true}', '$.ok')", "1"),
    ('json_valid(\'{"k1":"v31","k2":300}\')', "1"),
    ("json_valid('invalid json')", "0"),
    ("json_valid(NULL)", "NULL"),
    ("json_quote('a\"b')", '"a\\"b"'),
    ("json_quote('null')", '"null"'),
    # math
    ("bitand(3, 5)", "1"),
    ("bitor(3, 5)", "7"),
    ("bitxor(3, 5)", "6"),
    ("bitnot(7)", "-8"),
    ("bit_shift_left(5, 2)", "20"),
    ("bit_shift_left(9223372036854775807, 1)", "-2"),
    ("bit_shift_right(1024, 3)", "128"),
    ("bit_shift_right(-1, 1)", "9223372036854775807"),
    ("fmod(10, 3)", "1"),
    ("fmod(10, 0)", "NULL"),
    ("round_bankers(0.4)", "0"),
    ("round_bankers(-3.5)", "-4"),
    ("round_bankers(-3.4)", "-3"),
    ("round_bankers(10.755, 2)", "10.76"),
    # string
    ("append_trailing_char_if_absent('a', 'c')", "ac"),
    ("append_trailing_char_if_absent('ac', 'c')", "ac"),
    ("append_trailing_char_if_absent('a', 'cd')", "NULL"),
    ("mask_first_n('1234-5678-8765-4321', 4)", "nnnn-5678-8765-4321"),
    ("mask_last_n('1234-5678-8765-4321', 4)", "1234-5678-8765-nnnn"),
    ("mask_first_n('abC-12')", "xxX-nn"),
    ("mid('abcdef', 2, 3)", "bcd"),
    ("money_format(17014116)", "17,014,116.00"),
    ("money_format(1123.456)", "1,123.46"),
    ("money_format(1123.4)", "1,123.40"),
    ("null_or_empty(NULL)", "1"),
    ("null_or_empty('')", "1"),
    ("null_or_empty('a')", "0"),
    ("not_null_or_empty(NULL)", "0"),
    ("not_null_or_empty('')", "0"),
    ("not_null_or_empty('a')", "1"),
    ("regexp_extract_or_null('abc', 'a(b)c', 1)", "b"),
    ("regexp_extract_or_null('abc', 'x(b)', 1)", "NULL"),
    ("split_by_regexp('a12bc23de345f', '[0-9]+')", '["a", "bc", "de", "f"]'),
    ("strcmp('test', 'test')", "0"),
    ("strcmp('test1', 'test')", "1"),
    ("strcmp('test', 'test1')", "-1"),
    ("strleft('Hello doris', 5)", "Hello"),
    ("strright('Hello doris', 5)", "doris"),
    ("trim_in('   ab d   ')", "ab d"),
    ("trim_in('ababccaab', 'ab')", "cc"),
    # date and time
    ("from_days(730669)", "2000-07-03"),
    ("makedate(2021, 1)", "2021-01-01"),
    ("makedate(2021, 100)", "2021-04-10"),
    ("makedate(2021, 400)", "2022-02-04"),
    ("microsecond(CAST('1999-01-02 10:11:12.000123' AS DATETIME(6)))", "123"),
    ("microseconds_add(CAST('2010-11-30 23:50:50' AS DATETIME(6)), 2)", "2010-11-30 23:50:50.000002"),
    ("to_monday('2022-09-10')", "2022-09-05"),
    ("years_diff('2020-12-25', '2019-10-25')", "1"),
    ("months_diff('2020-12-25', '2020-10-25')", "2"),
    ("weeks_diff('2020-12-25', '2020-10-25')", "8"),
    ("days_diff('2020-12-25 22:00:00', '2020-12-24 22:00:01')", "0"),
    ("hours_diff('2020-12-25 22:00:00', '2020-12-25 21:00:00')", "1"),
    ("minutes_diff('2020-12-25 22:00:00', '2020-12-25 21:00:00')", "60"),
    ("seconds_diff('2020-12-25 22:00:00', '2020-12-25 21:00:00')", "3600"),
]


def test_doris_functions_with_documented_results(engine):
    items = ", ".join(sql for sql, _ in EXAMPLES)
    (got,) = rows(engine, f"SELECT {items}")
    assert [(sql, render_value(v)) for (sql, _), v in zip(EXAMPLES, got)] == EXAMPLES


def test_functions_over_columns(engine):
    run(
        engine,
        "CREATE TABLE fx (k INT, v1 DECIMAL(5, 1), s VARCHAR(16)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "INSERT INTO fx VALUES (1, 1.1, 'ab'), (2, NULL, NULL)")
    got = rows(
        engine,
        "SELECT json_object('title', 'Amount', 'value', v1), json_array(k, s), strcmp(s, 'ab'), null_or_empty(s) "
        "FROM fx ORDER BY k",
    )
    assert [[render_value(v) for v in r] for r in got] == [
        ['{"title":"Amount","value":1.1}', '[1,"ab"]', "0", "0"],
        ['{"title":"Amount","value":null}', "[2,null]", "NULL", "1"],
    ]


def test_json_object_key_must_be_a_literal(engine):
    with pytest.raises(NotSupportedError, match="json_object with a key that is not a string literal"):
        run(engine, "SELECT json_object(concat('a', 'b'), 1)")
