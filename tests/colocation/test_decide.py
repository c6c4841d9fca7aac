"""Which joins run colocated, and Doris's reason when not (pure: no Spark)."""

from __future__ import annotations

import dataclasses

from dorisql.analysis.checks import normalize_create_table
from dorisql.catalog.base import ColocationGroup
from dorisql.catalog.colocation import doris_type_name, schema_of
from dorisql.catalog.model import PartitionMeta, TableMeta
from dorisql.query.colocate_join import ColocationContext, decide
from dorisql.syntax import parse_one

GROUP_DDL = 'CREATE TABLE d.{name} (a INT, b VARCHAR(5), v INT) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a, b) BUCKETS 4 PROPERTIES ("colocate_with" = "{group}")'


def table(name, group="g"):
    definition = normalize_create_table(parse_one(GROUP_DDL.format(name=name, group=group)))
    return TableMeta(id=1, db="d", name=name, definition=definition, partitions=(PartitionMeta(1, name, 4),))


def context(stable=True, disabled=False):
    def group_of(meta):
        return dataclasses.replace(schema_of(meta), is_stable=stable)

    return ColocationContext(group_of=group_of, disabled=disabled)


def test_all_bucket_columns_in_order_colocate():
    d = decide(table("x"), table("y"), "INNER", [("b", "b"), ("a", "a")], context())
    assert d.colocate and d.keys == (("a", "a"), ("b", "b")) and d.join_type == "inner"
    assert decide(table("x"), table("y"), "LEFT SEMI", [("A", "a"), ("b", "B")], context()).join_type == "left semi"


def test_reasons():
    x, y = table("x"), table("y")
    full = [("a", "a"), ("b", "b")]
    assert decide(x, y, "INNER", full, context(disabled=True)).reason == "Session disabled (disable_colocate_join)"
    assert decide(x, table("z", group="h"), "INNER", full, context()).reason == "Tables are not in the same group"
    assert decide(x, y, "INNER", full, context(stable=False)).reason == "Colocate group is not stable"
    assert decide(x, y, "INNER", [("a", "a")], context()).reason == "Inconsistent distribution of table and queries"
    crossed = [("a", "b"), ("b", "a")]
    assert not decide(x, y, "INNER", crossed, context()).colocate
    # other ON conditions do not stop it (the planner evaluates them within a bucket)
    assert decide(x, y, "LEFT OUTER", full, context()).colocate


def test_group_schema_of_a_table_and_doris_type_names():
    g = schema_of(table("x"))
    assert (g.db, g.name, g.buckets, g.replication_num) == ("d", "g", 4, 1)
    assert [doris_type_name(t) for t in g.distribution_types] == ["int", "varchar(5)"]
    assert schema_of(table("x", group="__global__g")).db == ""
    names = [
        doris_type_name(t)
        for t in ColocationGroup("n", "d", 1, ()).distribution_types
        + tuple(
            parse_one(
                "CREATE TABLE t (a DATE, b DATETIME(3), c DECIMAL(10, 2), d STRING, e BIGINT) DISTRIBUTED BY HASH(a)"
            )
            .columns[i]
            .type
            for i in range(5)
        )
    ]
    assert names == ["datev2", "datetimev2(3)", "decimalv3(10,2)", "text", "bigint"]
