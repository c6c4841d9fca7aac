"""Doris's BITMAP, HLL and QUANTILE_STATE functions (dorisql.translate.sketch_functions) on real
Spark, with Doris's own expected results: the cases of apache/doris
regression-test/suites/query_p0/sql_functions/bitmap_functions/test_bitmap_function.groovy and
its .out (regression-test/data/...), many expressions to a SELECT (docs/doris_suites.md says which
cases are left out and why). Tables of Doris's suite are written as CTEs of the same values."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, NotSupportedError

from .conftest import rows

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
    ("bitmap_to_string(bitmap_or(to_bitmap(1), to_bitmap(2), to_bitmap(10), to_bitmap(0), bitmap_empty()))", "0,1,2,10"),
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
