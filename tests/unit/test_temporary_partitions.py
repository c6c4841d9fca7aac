"""Temporary partitions and REPLACE PARTITION: parsing and Doris's rules (pure: no Spark)."""

from __future__ import annotations

import pytest

from dorisql import ast
from dorisql.analysis.checks import normalize_create_table
from dorisql.catalog.model import PartitionMeta, TableMeta
from dorisql.errors import AnalysisError
from dorisql.partitioning.temporary import check_new_name, check_replace, replace_options, replaced
from dorisql.syntax import parse_one
from dorisql.syntax.generator import to_sql

RANGE_DDL = "CREATE TABLE d.t (k INT NOT NULL, v INT) DUPLICATE KEY(k) PARTITION BY RANGE(k) () DISTRIBUTED BY HASH(k) BUCKETS 2"
LIST_DDL = (
    "CREATE TABLE d.t (k INT NOT NULL, v INT) DUPLICATE KEY(k) PARTITION BY LIST(k) () DISTRIBUTED BY HASH(k) BUCKETS 2"
)


def ranged(name, pid, lower, upper):
    return PartitionMeta(pid, name, 2, lower=(f"{lower}",), upper=(f"{upper}",))


def listed(name, pid, *values):
    return PartitionMeta(pid, name, 2, values=tuple((str(v),) for v in values))


def range_table(temps=()):
    definition = normalize_create_table(parse_one(RANGE_DDL))
    formal = (ranged("p1", 1, -2147483648, 10), ranged("p2", 2, 10, 20), ranged("p3", 3, 20, 30))
    return TableMeta(id=9, db="d", name="t", definition=definition, partitions=formal, temp_partitions=tuple(temps))


def list_table(temps=()):
    definition = normalize_create_table(parse_one(LIST_DDL))
    formal = (listed("p1", 1, 1, 2), listed("p2", 2, 3), listed("p3", 3, 4))
    return TableMeta(id=9, db="d", name="t", definition=definition, partitions=formal, temp_partitions=tuple(temps))


def replace_clause(sql):
    (action,) = parse_one(sql).actions
    return action


# ---------------------------------------------------------------------- syntax


def test_statements_parse_and_print_back():
    for sql in (
        "ALTER TABLE `t` ADD TEMPORARY PARTITION `tp` VALUES LESS THAN ('10')",
        "ALTER TABLE `t` DROP TEMPORARY PARTITION IF EXISTS `tp`",
        "ALTER TABLE `t` REPLACE PARTITION (`p1`, `p2`) WITH TEMPORARY PARTITION (`tp1`) "
        "PROPERTIES ('strict_range' = 'false')",
        "INSERT OVERWRITE TABLE `t` PARTITION (*) VALUES (1)",
        "INSERT INTO `t` TEMPORARY PARTITION (`tp`) VALUES (1)",
    ):
        stmt = parse_one(sql)
        assert parse_one(to_sql(stmt)) == stmt
    insert = parse_one("INSERT OVERWRITE TABLE t PARTITION (*) (k, v) SELECT 1, 2")
    assert insert.overwrite and insert.all_partitions and insert.partitions == () and insert.columns == ("k", "v")
    insert = parse_one("INSERT INTO t TEMPORARY PARTITION tp VALUES (1, 2)")
    assert insert.temporary and insert.partitions == ("tp",) and not insert.overwrite
    (add,) = parse_one("ALTER TABLE t ADD TEMPORARY PARTITION tp VALUES IN ((1), (2))").actions
    assert add.temporary and isinstance(add.partition, ast.ListPartition)


def test_replace_clause_options_and_refusals():
    sql = "ALTER TABLE t REPLACE PARTITION (p1) WITH TEMPORARY PARTITION (tp1)"
    assert replace_options(replace_clause(sql)) == (True, False)
    props = " PROPERTIES ('strict_range' = 'FALSE', 'use_temp_partition_name' = 'true')"
    assert replace_options(replace_clause(sql + props)) == (False, True)
    # Doris: Boolean.parseBoolean, anything but "true" is false
    assert replace_options(replace_clause(sql + " PROPERTIES ('strict_range' = 'yes')")) == (False, False)
    with pytest.raises(AnalysisError, match=r"^Unknown properties: \[colour\]$"):
        replace_options(replace_clause(sql + " PROPERTIES ('colour' = 'red')"))
    for bad in (
        "ALTER TABLE t REPLACE PARTITION (p1) WITH PARTITION (p2)",
        "ALTER TABLE t REPLACE TEMPORARY PARTITION (tp1) WITH TEMPORARY PARTITION (tp2)",
    ):
        with pytest.raises(AnalysisError, match="^Only support replace partitions with temp partitions$"):
            replace_options(replace_clause(bad))


# ---------------------------------------------------------------------- RANGE


def test_strict_range_accepts_the_same_keys_split_differently():
    # Doris's examples: {[0,10), [10,20)} == {[0,20)}; {[0,10), [15,20)} == {[0,10), [15,18), [18,20)}
    meta = range_table([ranged("tp", 11, -2147483648, 20)])
    check_replace(meta, ["p1", "p2"], ["tp"], strict_range=True)
    after = replaced(meta, ["p1", "p2"], ["tp"], use_temp_name=True)  # what the accepted replace makes
    assert [(p.name, p.lower, p.upper) for p in after.partitions] == [
        ("tp", ("-2147483648",), ("20",)),
        ("p3", ("20",), ("30",)),
    ]
    meta = range_table([ranged("ta", 11, 10, 15), ranged("tb", 12, 15, 20)])
    check_replace(meta, ["p2"], ["ta", "tb"], strict_range=True)
    after = replaced(meta, ["p2"], ["ta", "tb"], use_temp_name=True)
    assert [(p.name, p.lower, p.upper) for p in after.partitions] == [
        ("p1", ("-2147483648",), ("10",)),
        ("ta", ("10",), ("15",)),
        ("tb", ("15",), ("20",)),
        ("p3", ("20",), ("30",)),
    ]
    assert after.temp_partitions == ()


def test_strict_range_refuses_other_keys():
    meta = range_table([ranged("tp", 11, 10, 25)])
    with pytest.raises(AnalysisError, match=r"^2 range lists are not stricly matched\. "):
        check_replace(meta, ["p2"], ["tp"], strict_range=True)
    meta = range_table([ranged("tp", 11, 12, 20)])
    with pytest.raises(AnalysisError, match=r"keys: \[10\];  vs\. types: \[INT\]; keys: \[12\]; $"):
        check_replace(meta, ["p2"], ["tp"], strict_range=True)


def test_loose_range_refuses_only_overlap_with_partitions_that_stay():
    meta = range_table([ranged("tp", 11, 10, 25)])
    with pytest.raises(
        AnalysisError, match=r"^Range: \[.*keys: \[10\].*keys: \[25\]; \) conflicts with existing range$"
    ):
        check_replace(meta, ["p2"], ["tp"], strict_range=False)
    check_replace(meta, ["p2", "p3"], ["tp"], strict_range=False)  # [20, 25) of p3's range goes with it
    meta = range_table([ranged("tp", 11, 12, 18)])
    check_replace(meta, ["p2"], ["tp"], strict_range=False)


def test_names_must_exist_in_their_own_kind():
    meta = range_table([ranged("tp", 11, 10, 20)])
    with pytest.raises(AnalysisError, match=r"^Partition\[px\] does not exist$"):
        check_replace(meta, ["px"], ["tp"], strict_range=True)
    with pytest.raises(AnalysisError, match=r"^Temp partition\[p1\] does not exist$"):
        check_replace(meta, ["p2"], ["p1"], strict_range=True)
    with pytest.raises(AnalysisError, match="^Duplicate partition name TP$"):
        check_new_name(meta, "TP")
    with pytest.raises(AnalysisError, match="^Duplicate partition name p1$"):
        check_new_name(meta, "p1")


def test_replaced_keeps_ids_and_takes_names_as_doris():
    meta = range_table([ranged("tp", 11, 10, 20), ranged("other", 12, 40, 50)])
    after = replaced(meta, ["p2"], ["tp"], use_temp_name=False)
    assert [(p.name, p.id) for p in after.partitions] == [("p1", 1), ("p2", 11), ("p3", 3)]
    assert [p.name for p in after.temp_partitions] == ["other"]
    after = replaced(meta, ["p2"], ["tp"], use_temp_name=True)
    assert [(p.name, p.id) for p in after.partitions][1] == ("tp", 11)
    # unequal counts: the temporary names stay whatever the property says
    meta = range_table([ranged("tp", 11, -2147483648, 20)])
    after = replaced(meta, ["p1", "p2"], ["tp"], use_temp_name=False)
    assert [p.name for p in after.partitions] == ["tp", "p3"]


# ---------------------------------------------------------------------- LIST


def test_list_strict_and_loose():
    meta = list_table([listed("tp", 11, 2, 1, 3)])
    check_replace(meta, ["p1", "p2"], ["tp"], strict_range=True)
    meta = list_table([listed("tp", 11, 1, 2, 5)])
    with pytest.raises(AnalysisError, match=r"^2 partition key lists are not matched\. "):
        check_replace(meta, ["p1"], ["tp"], strict_range=True)
    check_replace(meta, ["p1"], ["tp"], strict_range=False)  # 5 is in no partition that stays
    meta = list_table([listed("tp", 11, 1, 4)])
    with pytest.raises(
        AnalysisError, match=r'^The partition key\[\("4"\)\] is overlap with current \[types: \[INT\]; keys: \[4\]; \]$'
    ):
        check_replace(meta, ["p1"], ["tp"], strict_range=False)
