"""EXPLAIN's Spark part, kept short (pure: text in, lines out).

EXPLAIN leads with dorisql's own plan (`dorisql.query.planner.scan_lines` and `join_lines`:
partitions and tablets read, colocate joins, the key model's merge, delete versions) and then
shows Spark's. Spark's full physical plan prints every column list, file path and read schema
on one line per operator, hundreds of characters wide, which buries the plan in a MySQL table;
plain EXPLAIN shows only the operator tree of Spark's ``EXPLAIN FORMATTED`` (``Scan parquet
(1)``, ``Filter (3)``, ...) and EXPLAIN VERBOSE the whole of it, each operator's details under
its number (Doris's EXPLAIN VERBOSE adds detail the same way).
"""

from __future__ import annotations

from collections.abc import Sequence


def operator_tree(formatted: Sequence[str]) -> list[str]:
    """The header and operator tree of Spark's ``EXPLAIN FORMATTED`` lines: everything before
    the first blank line after the tree starts (the numbered details follow it)."""
    tree: list[str] = []
    for line in formatted:
        if not line.strip():
            if any(not t.startswith("==") for t in tree):
                break
            continue
        tree.append(line)
    return tree
