"""Doris's BITMAP, HLL and QUANTILE_STATE functions (dorisql.translate.sketch_functions) on real
Spark, with Doris's own expected results: the cases of apache/doris
regression-test/suites/query_p0/sql_functions/bitmap_functions/test_bitmap_function.groovy and
its .out (regression-test/data/...), many expressions to a SELECT (docs/doris_suites.md says which
cases are left out and why). Tables of Doris's suite are written as CTEs of the same values."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, NotSupportedError

from .conftest import rows, run

BFS = "bitmap_from_string"

#: (expression, Doris's result) from test_bitmap_function's qt_sql* cases, in the suite's order.
SCALARS: list[tuple[str, object]] = [
    # BITMAP_AND
    ("bitmap_count(bitmap_and(to_bitmap(1), to_bitmap(2)))", 0),
    ("bitmap_count(bitmap_and(to_bitmap(1), to_bitmap(1)))", 1),
    ("bitmap_to_string(bitmap_and(to_bitmap(1), to_bitmap(1)))", "1"),
    (f"bitmap_to_string(bitmap_and({BFS}('1,2,3'), {BFS}('1,2'), {BFS}('1,2,3,4,5')))", "1,2"),
    (f"bitmap_to_string(bitmap_and({BFS}('1,2,3'), {BFS}('1,2'), {BFS}('1,2,3,4,5'), bitmap_empty()))", ""),
    (f"bitmap_to_string(bitmap_and({BFS}('1,2,3'), {BFS}('1,2'), {BFS}('1,2,3,4,5'), NULL))", None),
    # BITMAP_CONTAINS, BITMAP_EMPTY, BITMAP_FROM_STRING
    ("bitmap_contains(to_bitmap(1), 2)", False),
    ("bitmap_contains(to_bitmap(1), 1)", True),
    ("bitmap_count(bitmap_empty())", 0),
    ("bitmap_to_string(bitmap_empty())", ""),
    (f"bitmap_to_string({BFS}('0, 1, 2'))", "0,1,2"),
    (f"{BFS}('-1, 0, 1, 2') IS NULL", True),
    # BITMAP_HAS_ANY, BITMAP_HAS_ALL
    ("bitmap_has_any(to_bitmap(1), to_bitmap(2))", False),
    ("bitmap_has_any(to_bitmap(1), to_bitmap(1))", True),
    (f"bitmap_has_all({BFS}('0, 1, 2'), {BFS}('1, 2'))", True),
    (f"bitmap_has_all(bitmap_empty(), {BFS}('1, 2'))", False),
    # BITMAP_OR: NULL arguments skipped
    ("bitmap_count(bitmap_or(to_bitmap(1), to_bitmap(2)))", 2),
    ("bitmap_count(bitmap_or(to_bitmap(1), to_bitmap(1)))", 1),
    ("bitmap_to_string(bitmap_or(to_bitmap(1), to_bitmap(2)))", "1,2"),
    ("bitmap_to_string(bitmap_or(to_bitmap(1), to_bitmap(2), to_bitmap(10), to_bitmap(0), NULL))", "0,1,2,10"),
    (
        "bitmap_to_string(bitmap_or(to_bitmap(1), to_bitmap(2), to_bitmap(10), to_bitmap(0), bitmap_empty()))",
        "0,1,2,10",
    ),
    (f"bitmap_to_string(bitmap_or(to_bitmap(10), {BFS}('1,2'), {BFS}('1,2,3,4,5')))", "1,2,3,4,5,10"),
    ("bitmap_count(bitmap_or(to_bitmap(1), NULL))", 1),
    (f"{BFS}('1') IS NULL", False),
    (f"{BFS}('a') IS NULL", True),
    (f"bitmap_or({BFS}('a'), {BFS}('b')) IS NULL", True),
    (f"bitmap_count(bitmap_or({BFS}('a'), {BFS}('b')))", 0),
    (f"bitmap_or_count({BFS}('a'), {BFS}('b'))", 0),
    (f"bitmap_to_string(bitmap_or({BFS}('a'), {BFS}('b')))", None),
    ("bitmap_or(NULL, NULL) IS NULL", True),
    ("bitmap_to_string(bitmap_or(NULL, NULL))", None),
    # BITMAP_AND_COUNT, BITMAP_OR_COUNT
    (f"bitmap_and_count({BFS}('1,2,3'), bitmap_empty())", 0),
    (f"bitmap_and_count({BFS}('1,2,3'), {BFS}('1,2,3'))", 3),
    (f"bitmap_and_count({BFS}('1,2,3'), {BFS}('3,4,5'))", 1),
    (f"bitmap_and_count({BFS}('1,2,3'), {BFS}('1,2'), {BFS}('1,2,3,4,5'))", 2),
    (f"bitmap_and_count({BFS}('1,2,3'), {BFS}('1,2'), {BFS}('1,2,3,4,5'), bitmap_empty())", 0),
    (f"bitmap_and_count({BFS}('1,2,3'), {BFS}('1,2'), {BFS}('1,2,3,4,5'), NULL)", 0),
    (f"bitmap_or_count({BFS}('1,2,3'), bitmap_empty())", 3),
    (f"bitmap_or_count({BFS}('1,2,3'), {BFS}('1,2,3'))", 3),
    (f"bitmap_or_count({BFS}('1,2,3'), {BFS}('3,4,5'))", 5),
    (f"bitmap_or_count({BFS}('1,2,3'), {BFS}('3,4,5'), to_bitmap(100), bitmap_empty())", 6),
    (f"bitmap_or_count({BFS}('1,2,3'), {BFS}('3,4,5'), to_bitmap(100), NULL)", 6),
    # BITMAP_XOR, BITMAP_XOR_COUNT: NULL if any argument is
    (f"bitmap_count(bitmap_xor({BFS}('2,3'), {BFS}('1,2,3,4')))", 2),
    (f"bitmap_to_string(bitmap_xor({BFS}('2,3'), {BFS}('1,2,3,4')))", "1,4"),
    (f"bitmap_to_string(bitmap_xor({BFS}('2,3'), {BFS}('1,2,3,4'), {BFS}('3,4,5')))", "1,3,5"),
    (f"bitmap_to_string(bitmap_xor({BFS}('2,3'), {BFS}('1,2,3,4'), {BFS}('3,4,5'), bitmap_empty()))", "1,3,5"),
    (f"bitmap_to_string(bitmap_xor({BFS}('2,3'), {BFS}('1,2,3,4'), {BFS}('3,4,5'), NULL))", None),
    (f"bitmap_xor_count({BFS}('1,2,3'), {BFS}('3,4,5'))", 4),
    (f"bitmap_xor_count({BFS}('1,2,3'), {BFS}('1,2,3'))", 0),
    (f"bitmap_xor_count({BFS}('1,2,3'), {BFS}('4,5,6'))", 6),
    (f"bitmap_xor_count({BFS}('2,3'), {BFS}('1,2,3,4'), {BFS}('3,4,5'))", 3),
    (f"bitmap_xor_count({BFS}('2,3'), {BFS}('1,2,3,4'), {BFS}('3,4,5'), bitmap_empty())", 3),
    (f"bitmap_xor_count({BFS}('2,3'), {BFS}('1,2,3,4'), {BFS}('3,4,5'), NULL)", 0),
    # BITMAP_NOT, BITMAP_AND_NOT, BITMAP_AND_NOT_COUNT
    (f"bitmap_count(bitmap_not({BFS}('2,3'), {BFS}('1,2,3,4')))", 0),
    (f"bitmap_to_string(bitmap_not({BFS}('2,3,5'), {BFS}('1,2,3,4')))", "5"),
    (f"bitmap_count(bitmap_and_not({BFS}('1,2,3'), {BFS}('3,4,5')))", 2),
    (f"bitmap_and_not_count({BFS}('1,2,3'), {BFS}('3,4,5'))", 2),
    (f"bitmap_and_not_count({BFS}('1,2,3'), NULL)", 0),
    # BITMAP_SUBSET_IN_RANGE, BITMAP_SUBSET_LIMIT, SUB_BITMAP
    (f"bitmap_to_string(bitmap_subset_in_range({BFS}('1,2,3,4,5'), 0, 9))", "1,2,3,4,5"),
    (f"bitmap_to_string(bitmap_subset_in_range({BFS}('1,2,3,4,5'), 2, 3))", "2"),
    (f"bitmap_to_string(bitmap_subset_limit({BFS}('1,2,3,4,5'), 0, 3))", "1,2,3"),
    (f"bitmap_to_string(bitmap_subset_limit({BFS}('1,2,3,4,5'), 4, 3))", "4,5"),
    (f"bitmap_to_string(sub_bitmap({BFS}('1,0,1,2,3,1,5'), 0, 3))", "0,1,2"),
    (f"bitmap_to_string(sub_bitmap({BFS}('1,0,1,2,3,1,5'), -3, 2))", "2,3"),
    (f"bitmap_to_string(sub_bitmap({BFS}('1,0,1,2,3,1,5'), 2, 100))", "2,3,5"),
    # BITMAP_TO_STRING, TO_BITMAP, BITMAP_MAX, BITMAP_TO_ARRAY
    ("bitmap_to_string(NULL)", None),
    ("bitmap_to_string(to_bitmap(1))", "1"),
    ("bitmap_count(to_bitmap(10))", 1),
    ("bitmap_to_string(to_bitmap(-1))", ""),
    (f"bitmap_max({BFS}(''))", None),
    (f"bitmap_max({BFS}('1,9999999999'))", 9999999999),
    ("bitmap_to_array(bitmap_empty())", []),
    (f"bitmap_to_array({BFS}('100,200,3,4'))", [3, 4, 100, 200]),
    (f"bitmap_to_string(sub_bitmap({BFS}('1,2,3,4,5'), 0, 3))", "1,2,3"),
    (f"bitmap_to_string(sub_bitmap({BFS}('1'), 0, 3))", "1"),
    (f"bitmap_to_string(bitmap_subset_limit({BFS}('100'), 0, 3))", "100"),
    (f"bitmap_to_string(bitmap_subset_in_range({BFS}('20221103'), 0, 20221104))", "20221103"),
    # dorisql's own: values across buckets (0, a bucket's first and last, the largest BIGINT)
    (f"bitmap_to_string({BFS}('9223372036854775807,32769,32768,1,0'))", "0,1,32768,32769,9223372036854775807"),
    (f"bitmap_min({BFS}('40000,32768'))", 32768),
    (f"bitmap_count(bitmap_and({BFS}('0,1,32768,32769'), {BFS}('1,32769,70000')))", 2),
]


def test_scalar_functions_as_doris(engine):
    got = rows(engine, "SELECT " + ", ".join(sql for sql, _ in SCALARS))[0]
    mismatches = [(sql, want, value) for (sql, want), value in zip(SCALARS, got) if value != want]
    assert mismatches == []


def _bitmaps(name: str, values: list[tuple[int, str]]) -> str:
    """A CTE of (dt, id) rows, id a BITMAP of the comma-separated values (Doris's suite loads such
    rows into an AGGREGATE table with bitmap_from_string)."""
    selects = " UNION ALL ".join(f"SELECT {dt} AS dt, {BFS}('{v}') AS id" for dt, v in values)
    return f"{name} AS ({selects})"


def test_bitmaps_of_rows_and_their_unions(engine):
    # test_bitmap_function's sql_bitmap_and_count7 / xor_count7 / and_not_count3: a left join of
    # two tables of bitmaps (NULL on the right counts 0)
    left = _bitmaps("l", [(1, "11,111"), (2, "22,222"), (3, "33,333"), (4, "44,444")])
    right = _bitmaps("r", [(1, "11,1111"), (2, "22,2222"), (5, "55,5555")])
    assert rows(
        engine,
        f"WITH {left}, {right} SELECT l.dt, bitmap_and_count(l.id, r.id), bitmap_xor_count(l.id, r.id), "
        "bitmap_and_not_count(l.id, r.id), bitmap_to_string(bitmap_or(l.id, r.id)) "
        "FROM l LEFT JOIN r ON l.dt = r.dt ORDER BY l.dt",
    ) == [(1, 1, 2, 1, "11,111,1111"), (2, 1, 2, 1, "22,222,2222"), (3, 0, 0, 0, "33,333"), (4, 0, 0, 0, "44,444")]
    # BITMAP_UNION (the suite's page_id table: one to_bitmap per INSERT) and INTERSECT_COUNT
    pages = "u AS (SELECT * FROM VALUES (1, 1), (1, 2), (1, 3), (2, 1), (2, 2) AS v(page_id, uid))"
    assert rows(
        engine,
        f"WITH {pages} SELECT page_id, bitmap_count(bitmap_union(to_bitmap(uid))), "
        "bitmap_to_string(bitmap_union(to_bitmap(uid))) FROM u GROUP BY page_id ORDER BY page_id",
    ) == [(1, 3, "1,2,3"), (2, 2, "1,2")]
    days = (
        "i AS (SELECT dt, to_bitmap(uid) AS user_id FROM VALUES (3, 1), (3, 2), (3, 3), (3, 4), (3, 5), "
        "(4, 1), (4, 2), (4, 3) AS v(dt, uid))"
    )
    assert rows(
        engine, f"WITH {days} SELECT intersect_count(user_id, dt, 3, 4), intersect_count(user_id, dt, 3) FROM i"
    ) == [(3, 5)]
    assert rows(
        engine,
        f"WITH {days} SELECT bitmap_to_string(orthogonal_bitmap_intersect(user_id, dt, 3, 4)), "
        "orthogonal_bitmap_intersect_count(user_id, dt, 3, 4), orthogonal_bitmap_union_count(user_id) FROM i",
    ) == [("1,2,3", 3, 5)]


def test_bitmap_union_count_is_count_distinct(engine):
    """count(DISTINCT x) equals bitmap_union_count(to_bitmap(x)) on the same values, beside other
    aggregates, with GROUP BY ordinals and a HAVING on the bitmap; HLL within Doris's error."""
    got = rows(
        engine,
        "SELECT number % 3 AS k, count(DISTINCT number * 7 % 50000), bitmap_union_count(to_bitmap(number * 7 % 50000)), "
        "count(*), sum(number), hll_union_agg(hll_hash(number * 7 % 50000)), ndv(number * 7 % 50000) "
        'FROM numbers("number" = "100000") GROUP BY 1 HAVING bitmap_union_count(to_bitmap(number)) > 0 ORDER BY k',
    )
    assert [r[0] for r in got] == [0, 1, 2]
    for k, exact, bitmap, count, total, hll, ndv in got:
        assert bitmap == exact and count == (33334 if k == 0 else 33333)
        assert total == sum(n for n in range(100000) if n % 3 == k)
        assert abs(hll - exact) <= 0.02 * exact and hll == ndv
    # no rows: 0, as count(*)
    assert rows(
        engine, 'SELECT bitmap_union_count(to_bitmap(number)), count(*) FROM numbers("number" = "3") WHERE number > 5'
    ) == [(0, 0)]
    # quantiles of a KLL sketch: exact while it holds every value
    assert rows(
        engine,
        "SELECT quantile_percent(quantile_union(to_quantile_state(number, 2048)), 0.5), "
        'quantile_percent(to_quantile_state(7, 2048), 0.9) FROM numbers("number" = "101")',
    ) == [(50.0, 7.0)]


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        (
            "SELECT bitmap_min(to_bitmap(1), 2)",
            AnalysisError,
            "Can not found function 'bitmap_min' which has 2 arity",
        ),
        ("SELECT bitmap_and(to_bitmap(1))", AnalysisError, "Can not found function 'bitmap_and' which has 1 arity"),
        ("SELECT bitmap_hash('a')", NotSupportedError, "not supported: bitmap_hash"),
        ("SELECT hll_hash(1)", NotSupportedError, "not supported: hll_hash outside"),
        ("SELECT to_quantile_state(1, 2048)", NotSupportedError, "not supported: to_quantile_state outside"),
    ],
)
def test_refusals(engine, sql, error, message):
    with pytest.raises(error, match=message):
        rows(engine, sql)


def test_suite_tables_of_sketch_columns(engine):
    """The tables of Doris's suites, loaded with the load functions (dorisql.translate.sketch_storage,
    the load side): test_bitmap_function's bitmap_union table and test_hll_functions' table (its
    rows as one INSERT ... VALUES; hll_to_base64 / hll_from_base64 left out: Doris's own bytes)."""
    engine.execute_sql(
        "CREATE TABLE bu (page_id INT, user_id BITMAP BITMAP_UNION) AGGREGATE KEY(page_id) "
        "DISTRIBUTED BY HASH(page_id) BUCKETS 1;"
        "INSERT INTO bu VALUES (1, to_bitmap(1)), (1, to_bitmap(2)), (2, to_bitmap(1)), (2, to_bitmap(2));"
        "INSERT INTO bu VALUES (1, to_bitmap(3))"
    )
    assert rows(
        engine,
        "SELECT page_id, bitmap_count(bitmap_union(user_id)), bitmap_union_count(user_id) "
        "FROM bu GROUP BY page_id ORDER BY page_id",
    ) == [(1, 3, 3), (2, 2, 2)]
    # the stored rows merged by key (AGGREGATE KEY's BITMAP_UNION), read by the scalar functions
    assert rows(engine, "SELECT page_id, bitmap_to_string(user_id), bitmap_max(user_id) FROM bu ORDER BY page_id") == [
        (1, "1,2,3", 3),
        (2, "1,2", 2),
    ]
    engine.execute_sql(
        "CREATE TABLE hf (dt DATE, id INT, province CHAR(10), os CHAR(10), pv HLL HLL_UNION) "
        "AGGREGATE KEY (dt, id, province, os) DISTRIBUTED BY HASH(id) BUCKETS 2;"
        "INSERT INTO hf VALUES ('2022-05-05', 10001, 'beijing', 'windows', hll_hash('windows')), "
        "('2022-05-05', 10002, 'beijing', 'linux', hll_hash('linux')), "
        "('2022-05-05', 10003, 'beijing', 'macos', hll_hash('macos')), "
        "('2022-05-05', 10004, 'hebei', 'windows', hll_hash('windows')), "
        "('2022-05-06', 10001, 'shanghai', 'windows', hll_hash('windows')), "
        "('2022-05-06', 10002, 'shanghai', 'linux', hll_hash('linux')), "
        "('2022-05-06', 10003, 'jiangsu', 'macos', hll_hash('macos')), "
        "('2022-05-06', 10004, 'shanxi', 'windows', hll_hash('windows')), "
        "('2022-05-07', 10005, 'shanxi', 'windows', hll_empty())"
    )
    assert rows(engine, "SELECT hll_union_agg(pv) FROM hf") == [(3,)]
    assert rows(engine, "SELECT province, hll_union_agg(pv) FROM hf GROUP BY province ORDER BY province") == [
        ("beijing", 3),
        ("hebei", 1),
        ("jiangsu", 1),
        ("shanghai", 2),
        ("shanxi", 1),
    ]
    assert rows(engine, "SELECT hll_cardinality(pv) AS res FROM hf ORDER BY res LIMIT 1") == [(0,)]


def test_sketch_unions_read_the_stored_rows_unmerged(engine):
    """A query that only unions an AGGREGATE table's sketch columns, grouped and filtered by keys,
    reads its stored rows without merging them by key first (Doris's PREAGGREGATION: ON): the
    same answers as the merged read, with no merge in the plan; another aggregate turns it off."""
    engine.execute_sql(
        "CREATE TABLE pre (day DATE NOT NULL, site INT NOT NULL, u BITMAP BITMAP_UNION NOT NULL, "
        "h HLL HLL_UNION NOT NULL, cost BIGINT SUM NOT NULL) AGGREGATE KEY(day, site) "
        "DISTRIBUTED BY HASH(site) BUCKETS 2"
    )
    for offset in (0, 50):  # two loads of the same keys: the stored rows repeat each key
        engine.execute_sql(
            "INSERT INTO pre SELECT date_add('2024-01-01', CAST(number % 3 AS INT)), CAST(number % 2 AS INT), "
            f'to_bitmap(number + {offset}), hll_hash(number + {offset}), 1 FROM numbers("number" = "100")'
        )
    # day > 2024-01-01: the rows of numbers n with n % 3 in (1, 2), by n % 2, values n and n + 50
    want = {s: len({n + o for n in range(100) for o in (0, 50) if n % 3 != 0 and n % 2 == s}) for s in (0, 1)}
    unions = "SELECT site, bitmap_union_count(u), hll_union_agg(h) FROM pre WHERE day > '2024-01-01' GROUP BY site"
    assert rows(engine, unions + " ORDER BY site") == [(s, want[s], want[s]) for s in (0, 1)]
    merged = unions.replace("hll_union_agg(h)", "hll_union_agg(h), sum(cost)")
    assert [r[:3] for r in rows(engine, merged + " ORDER BY site")] == [(s, want[s], want[s]) for s in (0, 1)]
    plan = "\n".join(str(r[0]) for r in run(engine, "EXPLAIN " + unions).rows)
    merged_plan = "\n".join(str(r[0]) for r in run(engine, "EXPLAIN " + merged).rows)
    assert "Join" not in plan and "Join" in merged_plan  # the BITMAP_UNION merge joins on the keys
