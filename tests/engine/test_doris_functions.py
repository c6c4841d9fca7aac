"""Doris's scalar functions that Spark lacks, under Doris's names, with the results of Doris's
documentation examples (one Spark query for all of them)."""

from __future__ import annotations

import pytest

from dorisql.errors import DorisqlError, NotSupportedError
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


def test_json_numbers_as_doris_writes_them(engine):
    """Doris passes DECIMAL, FLOAT and DOUBLE to its JSON writer as DOUBLE and prints "%.15g"
    (suite ddl_p0/test_ctas: DECIMAL(18,6) 1.1 in json_object is 1.1); integers and LARGEINT
    keep their digits."""
    run(
        engine,
        "CREATE TABLE jn (k INT, d DECIMAL(18, 6), f DOUBLE, big LARGEINT, s VARCHAR(8)) "
        "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(
        engine,
        "INSERT INTO jn VALUES (1, 1.1, 2.0, 99999999999999999999999999999999999999, '1.500'), "
        "(2, -0.00001, 1e20, -7, NULL), (3, 123456789012.345678, 12345678.9, NULL, 'x')",
    )
    got = rows(engine, "SELECT json_object('d', d, 'f', f, 'big', big, 's', s), json_array(d, f, k) FROM jn ORDER BY k")
    assert [tuple(r) for r in got] == [
        ('{"d":1.1,"f":2,"big":99999999999999999999999999999999999999,"s":"1.500"}', "[1.1,2,1]"),
        ('{"d":-1e-05,"f":1e+20,"big":-7,"s":null}', "[-1e-05,1e+20,2]"),
        ('{"d":123456789012.346,"f":12345678.9,"big":null,"s":"x"}', "[123456789012.346,12345678.9,3]"),
    ]


def test_json_object_key_must_be_a_literal(engine):
    with pytest.raises(NotSupportedError, match="json_object with a key that is not a string literal"):
        run(engine, "SELECT json_object(concat('a', 'b'), 1)")


#: Doris functions Spark has no form of, written in Spark SQL: (expression, Doris's documented result)
MORE_EXAMPLES = [
    # math
    ("gcd(54, 24)", "6"),
    ("gcd(-17, 31)", "1"),
    ("gcd(0, 10)", "10"),
    ("gcd(54, NULL)", "NULL"),
    ("gcd(1836311903, 1134903170)", "1"),  # consecutive Fibonacci numbers: Euclid's longest path
    ("gcd(99999999999999999999999999999999999999, 3)", "3"),  # DECIMAL(38, 0)'s largest, dorisql's LARGEINT
    ("lcm(12, 18)", "36"),
    ("lcm(0, 10)", "0"),
    ("lcm(-4, 6)", "12"),
    ("signbit(-1.0)", "1"),
    ("signbit(0.0)", "0"),
    ("signbit(1.0)", "0"),
    ("signbit(CAST('-0.0' AS DOUBLE))", "1"),
    # JSON
    ('json_length(\'{"k1":"v31","k2":300}\')', "2"),
    ("json_length('\"abc\"')", "1"),
    ("json_length('{\"x\": 1, \"y\": [1, 2]}', '$.y')", "2"),
    ("json_length('[1, 2, 3]')", "3"),
    ("json_length('not json')", "NULL"),
    ("json_length('{\"x\": 1}', '$.z')", "NULL"),
    (
        'json_unquote(\'"I am a \\\\"string\\\\" that contains double quotes."\')',
        'I am a "string" that contains double quotes.',
    ),
    ("json_unquote('\"\\\\u0000\"')", "\x00"),
    (
        'json_unquote(\'"I am a "string" that contains double quotes.\')',
        '"I am a "string" that contains double quotes.',
    ),
    (
        'json_unquote(\'I am a "string" that contains double quotes."\')',
        'I am a "string" that contains double quotes."',
    ),
    ("json_unquote(NULL)", "NULL"),
    ('json_exists_path(\'{"id": 123, "name": "doris"}\', \'$.name\')', "1"),
    ('json_exists_path(\'{"id": 123, "name": "doris"}\', \'$.age\')', "0"),
    ("json_exists_path('{\"k\": null}', '$.k')", "1"),
    ("json_extract_isnull('{\"k\": null, \"v\": 1}', '$.k')", "1"),
    ("json_extract_isnull('{\"k\": null, \"v\": 1}', '$.v')", "0"),
    ("json_extract_isnull('{\"k\": null, \"v\": 1}', '$.x')", "NULL"),
    # string
    ("field('Bb', 'Aa', 'Bb', 'Cc', 'Dd', 'Ff')", "2"),
    ("field('Gg', 'Aa', 'Bb', 'Cc', 'Dd', 'Ff')", "0"),
    ("field(NULL, 'Aa', NULL)", "0"),
    ("md5sum('ab')", "187ef4436122d1cc2f40dc2b92f0eba0"),
    ("md5sum('a', 'b')", "187ef4436122d1cc2f40dc2b92f0eba0"),
    ("md5sum('a', NULL)", "NULL"),
    ("split_by_regexp('a,b,c,d,e', ',', 3)", '["a", "b", "c,d,e"]'),
    ("split_by_regexp('1-2-3-4-5', '-', 2)", '["1", "2-3-4-5"]'),
    ("split_by_regexp('123abc456def', '[a-z]+', 0)", '["123", "456", ""]'),
    ("regexp_replace_one('a b c', ' ', '-')", "a-b c"),
    ("regexp_replace_one('a b b', '(b)', '<\\\\1>')", "a <b> b"),
    ("regexp_replace_one('abcabc', 'b', '$x')", "a$xcabc"),
    ("regexp_replace_one('xay', '(?<=x)a', 'A')", "xAy"),
    ("regexp_replace_one('abc', 'z', 'Z')", "abc"),
    ("replace_empty('abc', '', 'xyz')", "xyzaxyzbxyzcxyz"),
    ("replace_empty('', '', 'xyz')", "xyz"),
    ("replace_empty('hello world', 'world', 'universe')", "hello universe"),
    # date and time: Doris's TIME values as it shows them
    ("sec_to_time(59738)", "16:35:38"),
    ("sec_to_time(90061)", "25:01:01"),
    ("sec_to_time(-3600)", "-01:00:00"),
    ("sec_to_time(0)", "00:00:00"),
    ("sec_to_time(3661.9)", "01:01:01.900000"),
    ("sec_to_time(NULL)", "NULL"),
    ("sec_to_time(30245000)", "838:59:59"),
    ("sec_to_time(-30245000)", "-838:59:59"),
    ("time_to_sec('16:32:18')", "59538"),
    ("time_to_sec('2025-01-01 16:32:18')", "NULL"),
    ("time_to_sec(cast('2025-01-01 16:32:18' as datetime))", "59538"),
    ("time_to_sec('-02:30:00')", "-9000"),
    ("time_to_sec('-16:32:18.99')", "-59538"),
    ("time_to_sec('10:15:30.123456')", "36930"),
    ("time_to_sec('12:60:00')", "NULL"),
    ("time_to_sec('839:00:00')", "NULL"),
    ("time_to_sec(NULL)", "NULL"),
    ("timediff('2024-07-20 16:59:30', '2024-07-11 16:35:21')", "216:24:09"),
    ("timediff('2023-10-05 15:45:00', '2023-10-05')", "15:45:00"),
    ("timediff('2023-01-01 09:00:00', '2023-01-01 10:30:00')", "-01:30:00"),
    ("timediff('2023-12-31 23:59:59', '2023-12-31 23:59:50')", "00:00:09"),
    ("timediff('2024-01-01 00:00:01', '2023-12-31 23:59:59')", "00:00:02"),
    ("timediff('2023-07-13 12:34:56.789', '2023-07-13 12:34:50.123')", "00:00:06.666"),
    ("timediff(NULL, '2023-01-01 00:00:00')", "NULL"),
    ("time_to_sec(timediff('2024-07-20 16:59:30', '2024-07-11 16:35:21'))", "779049"),
    ("yearweek('2021-01-01')", "202052"),
    ("yearweek('2020-07-01')", "202026"),
    ("yearweek('2024-12-30', 1)", "202501"),
    ("yearweek('1987-01-01')", "198652"),
    ("week('2008-02-20')", "7"),
    ("week('2008-02-20', 0)", "7"),
    ("week('2008-02-20', 1)", "8"),
    ("week('2008-12-31', 1)", "53"),
    ("week('2000-01-01', 0)", "0"),
    ("week('2000-01-01', 2)", "52"),
]


def test_more_doris_functions_with_documented_results(engine):
    items = ", ".join(sql for sql, _ in MORE_EXAMPLES)
    (got,) = rows(engine, f"SELECT {items}")
    assert [(sql, render_value(v)) for (sql, _), v in zip(MORE_EXAMPLES, got)] == MORE_EXAMPLES


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        # not computable on Spark: refused by name, before Spark sees it (Doris's FunctionRegistry)
        ("SELECT sm3('abc')", "Can not found function 'sm3'"),
        ("SELECT uuid_numeric()", "Can not found function 'uuid_numeric'"),
        ("SELECT json_contains('[1, 2]', '1')", "Can not found function 'json_contains'"),
        ("SELECT no_such_function(1)", "Can not found function 'no_such_function'"),
        # a Doris function dorisql writes itself, with another number of arguments
        (
            "SELECT strleft('abc')",
            r"Can not found function 'strleft' which has 1 arity\. Candidate functions are: "
            r"\[strleft\(Expression, Expression\)\]",
        ),
        (
            "SELECT json_length()",
            r"Can not found function 'json_length' which has 0 arity\. Candidate functions are: "
            r"\[json_length\(Expression\), json_length\(Expression, Expression\)\]",
        ),
        # the same on the other paths a function name reaches Spark by
        ("INSERT INTO fx VALUES (3, 1, sm3('a'))", "Can not found function 'sm3'"),
        ("INSERT INTO fx SELECT 3, 1, gcd(1)", "Can not found function 'gcd' which has 1 arity"),
        ("CREATE TABLE fy AS SELECT sm3('a') AS s", "Can not found function 'sm3'"),
    ],
)
def test_unavailable_functions_answer_with_doris_message(engine, sql, message):
    run(
        engine,
        "CREATE TABLE IF NOT EXISTS fx (k INT, v1 DECIMAL(5, 1), s VARCHAR(16)) "
        "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    before = rows(engine, "SELECT count(*) FROM fx")
    with pytest.raises(DorisqlError, match=message):
        run(engine, sql)
    assert rows(engine, "SELECT count(*) FROM fx") == before
    assert "fy" not in [r[0] for r in rows(engine, "SHOW TABLES")]


def test_doris_runtime_errors_of_rewritten_functions(engine):
    with pytest.raises(DorisqlError, match=r"Invalid JSON text in argument 1 to function json_unquote"):
        run(engine, 'SELECT json_unquote(\'"I am a "string" that contains double quotes."\')')
    with pytest.raises(
        DorisqlError,
        match=r"The function timediff result of 2023-07-13 12:34:56\.789000, 2024-07-13 12:34:50\.123000 is out of range",
    ):
        run(engine, "SELECT timediff('2023-07-13 12:34:56.789', '2024-07-13 12:34:50.123')")
    with pytest.raises(NotSupportedError, match="regexp_replace_one with a replacement that is not a string literal"):
        run(engine, "SELECT regexp_replace_one('abc', 'b', concat('x', 'y'))")
