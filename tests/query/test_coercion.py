"""Doris's implicit casts written into the tree (translate.coercion): pure, no Spark."""

from __future__ import annotations

import pytest

from dorisql.ast import DataType
from dorisql.syntax.dialect import parse_query
from dorisql.translate.coercion import translate_coercions

TYPES = {"flag": DataType("BOOLEAN"), "id": DataType("INT"), "name": DataType("VARCHAR", (10,))}


def _rewritten(sql: str) -> str:
    tree = parse_query(sql)
    translate_coercions(tree, lambda col: TYPES.get(col.name))
    return tree.sql("spark")


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        # TypeCoercionUtils.processComparisonPredicate: a BOOLEAN and a number compare as numbers
        ("SELECT id FROM p WHERE flag = 1", "SELECT id FROM p WHERE CAST(flag AS INT) = 1"),
        ("SELECT id FROM p WHERE 0 <> flag", "SELECT id FROM p WHERE 0 <> CAST(flag AS INT)"),
        ("SELECT id FROM p WHERE flag IN (0, 1)", "SELECT id FROM p WHERE CAST(flag AS INT) IN (0, 1)"),
        ("SELECT id FROM p WHERE id = TRUE", "SELECT id FROM p WHERE id = CAST(TRUE AS INT)"),
        ("SELECT id FROM p WHERE flag <=> 1.5", "SELECT id FROM p WHERE CAST(flag AS INT) IS NOT DISTINCT FROM 1.5"),
        # nothing to cast: both BOOLEAN, a string, an unknown column, a subquery's column
        ("SELECT id FROM p WHERE flag = TRUE AND flag = '1'", "SELECT id FROM p WHERE flag = TRUE AND flag = '1'"),
        ("SELECT id FROM p WHERE other = 1", "SELECT id FROM p WHERE other = 1"),
        ("SELECT id FROM p WHERE 1 IN (SELECT flag FROM p)", "SELECT id FROM p WHERE 1 IN (SELECT flag FROM p)"),
        # a set operation's column of a string and a number is a STRING (findWiderTypeForTwo)
        ("SELECT 2 AS k UNION ALL SELECT 'x'", "SELECT CAST(2 AS STRING) AS k UNION ALL SELECT 'x'"),
        (
            "SELECT id FROM p UNION SELECT name FROM p UNION SELECT -3",
            "SELECT CAST(id AS STRING) AS `id` FROM p UNION SELECT name FROM p UNION SELECT CAST(-3 AS STRING)",
        ),
        ("SELECT 1 UNION SELECT id FROM p", "SELECT 1 UNION SELECT id FROM p"),
        ("SELECT * FROM p UNION SELECT 'x'", "SELECT * FROM p UNION SELECT 'x'"),
    ],
)
def test_doris_casts_are_written_into_the_tree(sql, expected):
    assert _rewritten(sql) == expected
