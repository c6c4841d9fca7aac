"""EXPLAIN's Spark part: the operator tree of Spark's EXPLAIN FORMATTED, its details left out."""

from __future__ import annotations

from dorisql.query.explain import operator_tree

FORMATTED = """\
== Physical Plan ==
AdaptiveSparkPlan (4)
+- Project (3)
   +- Filter (2)
      +- Scan parquet  (1)


(1) Scan parquet
Output [2]: [k#1, v#2]
ReadSchema: struct<k:int,v:int>

(2) Filter
Condition : (k#1 = 6)

===== Subqueries =====

Subquery:1 Hosting operator id = 2 Hosting Expression = Subquery subquery#7
* HashAggregate (9)
"""


def test_the_operator_tree_without_the_details():
    assert operator_tree(FORMATTED.splitlines()) == [
        "== Physical Plan ==",
        "AdaptiveSparkPlan (4)",
        "+- Project (3)",
        "   +- Filter (2)",
        "      +- Scan parquet  (1)",
    ]
    # a blank line between the header and the tree does not end it; nothing at all stays nothing
    assert operator_tree(["== Physical Plan ==", "", "Scan csv  (1)", "", "(1) Scan csv"]) == [
        "== Physical Plan ==",
        "Scan csv  (1)",
    ]
    assert operator_tree([]) == []
