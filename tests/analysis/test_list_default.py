"""LIST DEFAULT partitions and partition-value typing in the key model (pure: no Spark).

Written from Doris's code and suites: ListPartitionInfo.createAndCheckPartitionItem,
PartitionKey.createListPartitionKeyWithTypes / toString, LiteralExpr.createInfinity,
regression-test/suites/partition_p0/list_partition/test_list_default_partition.groovy,
test_list_default_multi_col_partition.groovy, test_list_default_partition_show_create.groovy and
test_list_partition_datatype.groovy.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

import pytest

from dorisql.analysis.checks import normalize_create_table
from dorisql.ast import DataType, ListPartition
from dorisql.catalog.model import PartitionMeta
from dorisql.errors import AnalysisError
from dorisql.partitioning import keys as K
from dorisql.syntax import parse_one
from dorisql.syntax.generator import to_sql

TINYINT = DataType("TINYINT")
SMALLINT = DataType("SMALLINT")
DATE = DataType("DATE")


def _create(partitions: str, columns: str = "k1 TINYINT NOT NULL, k2 SMALLINT NOT NULL", cols: str = "k1"):
    return normalize_create_table(
        parse_one(
            f"CREATE TABLE t ({columns}) DUPLICATE KEY(k1) PARTITION BY LIST({cols}) ({partitions}) "
            "DISTRIBUTED BY HASH(k1) BUCKETS 1"
        )
    )


def _defs(partitions: str, **kw):
    return K.build_partitions(_create(partitions, **kw))


SUITE = 'PARTITION p1 VALUES IN ("1","2","3","4"), PARTITION p2 VALUES IN ("5","6","7","8"), PARTITION p3'


def test_a_partition_without_values_is_the_default_partition():
    p1, p2, p3 = _defs(SUITE)
    assert (p1.default, p2.default, p3.default) == (False, False, True)
    assert p3.meta_fields() == {"values": ()}  # the catalog form: no value list
    assert p3.show_text() == "[types: [TINYINT]; keys: [default key]; ]"  # PartitionKey.toString
    assert K.to_item(p3) == ListPartition("p3", ())
    assert K.list_from_texts("p3", (), (TINYINT,)) == p3


def test_rows_no_value_partition_holds_go_to_the_default_partition():
    defs = _defs(SUITE)
    router = K.Router(defs)
    for row, expected in [((1,), "p1"), ((8,), "p2"), ((10,), "p3"), ((11,), "p3"), ((-128,), "p3"), ((None,), "p3")]:
        assert K.route(row, defs) == expected
        assert router(row) == expected
    assert K.routing_sql(defs, ["`k1`"]).endswith(" ELSE 'p3' END")
    # without it, such a row has no partition
    assert K.Router(defs[:2])((10,)) is None
    assert K.routing_sql(defs[:2], ["`k1`"]).endswith(" ELSE CAST(NULL AS STRING) END")


def test_multi_column_default_partition():
    defs = _defs(
        'PARTITION p1 VALUES IN (("1","2"),("3","4")), PARTITION p2 VALUES IN (("5","6"),("7","8")), PARTITION p3',
        cols="k1, k2",
    )
    assert defs[2].show_text() == "[types: [TINYINT, SMALLINT]; keys: [default key]; ]"
    assert [K.route(r, defs) for r in [(1, 2), (10, 1), (1, 3)]] == ["p1", "p3", "p3"]


def test_one_default_partition_per_table():
    # Doris: a second default key equals the first ("Invalid list value format: The partition key")
    message = r"^Invalid list value format: The partition key\[\] in partition item\[\(\(\)\)\] is conflict with current partitionKeys\[\]$"
    with pytest.raises(AnalysisError, match=message):
        _defs("PARTITION p1, PARTITION p3")
    with pytest.raises(AnalysisError, match=message):
        K.add_list(_defs(SUITE), ListPartition("p5", ()), (TINYINT,))


def test_the_default_key_is_the_type_minimum():
    # Doris's default key is LiteralExpr.createInfinity(type, false) of each column, and
    # PartitionKey.equals ignores the default mark: a value partition holding the type minimum
    # and a default partition conflict, whichever comes first.
    with pytest.raises(
        AnalysisError, match=r'partition item\[\(\(\)\)\] is conflict with current partitionKeys\[\("-128"\)\]'
    ):
        _defs('PARTITION p1 VALUES IN ("-128"), PARTITION p3')
    with pytest.raises(
        AnalysisError, match=r'^Invalid list value format: The partition key\[\("-128"\)\] in .* partitionKeys\[\]$'
    ):
        K.add_list(_defs(SUITE), ListPartition("p4", (("-128",),)), (TINYINT,))
    assert _defs('PARTITION p1 VALUES IN ("-127"), PARTITION p3')[1].default


@pytest.mark.parametrize(
    "column, shown", [("VARCHAR(20)", "VARCHAR(20)"), ("CHAR(1)", "CHAR(1)"), ("BOOLEAN", "BOOLEAN")]
)
def test_no_default_partition_on_a_column_without_a_minimum(column, shown):
    # LiteralExpr.createInfinity has no minimum for strings and booleans
    with pytest.raises(AnalysisError, match=rf"^Invalid data type for creating infinity: {re.escape(shown)}$"):
        _defs('PARTITION p1 VALUES IN ("true"), PARTITION p3', columns=f"k1 {column} NOT NULL")


def test_a_value_partition_may_be_added_after_the_default_one():
    # Doris keeps the default partition's rows where they are (PR #15509); pruning never drops
    # the default partition, so they are still found (see tests/query/test_list_default_pruning.py).
    defs = _defs(SUITE)
    p4 = K.add_list(defs, ListPartition("p4", (("10",),)), (TINYINT,))
    assert K.Router([*defs, p4])((10,)) == "p4"
    assert K.Router([*defs, p4])((11,)) == "p3"


def test_show_create_table_prints_the_default_partition_bare_and_round_trips():
    defs = _defs('PARTITION p1 VALUES IN ("1"), PARTITION p3')
    stmt = _create('PARTITION p1 VALUES IN ("1"), PARTITION p3')
    text = to_sql(
        dataclasses.replace(
            stmt, partition=dataclasses.replace(stmt.partition, items=tuple(K.to_item(d) for d in defs))
        )
    )
    assert "PARTITION p3)" in text or "PARTITION p3\n" in text or "PARTITION p3," in text
    assert "p3 VALUES" not in text
    again = K.build_partitions(normalize_create_table(parse_one(text)))
    assert [(d.name, d.default) for d in again] == [("p1", False), ("p3", True)]


def test_catalog_partitions_sort_the_default_partition_first():
    # Doris sorts list partitions by their first key; the default key is the type minimum
    defs = K.from_meta(
        [
            PartitionMeta(id=1, name="p1", buckets=1, values=(("1",),)),
            PartitionMeta(id=2, name="p3", buckets=1, values=()),
        ],
        (TINYINT,),
    )
    assert [d.name for d in K._sorted_defs(defs)] == ["p3", "p1"]


def test_a_bare_partition_in_a_range_table_is_refused_as_doris_does():
    sql = (
        "CREATE TABLE t (k1 INT NOT NULL) DUPLICATE KEY(k1) PARTITION BY RANGE(k1) "
        '(PARTITION p1 VALUES LESS THAN ("10"), PARTITION p2) DISTRIBUTED BY HASH(k1) BUCKETS 1'
    )
    with pytest.raises(AnalysisError, match="partitions types is invalid, expected FIXED or LESS in range partitions"):
        normalize_create_table(parse_one(sql))


# --------------------------------------------------------------------------- partition values


def test_two_digit_years_are_1970_to_2069():
    # DateLiteral: appendValueReduced(YEAR, 2, 2, 1970); the suite's "00-01-01" is 2000-01-01
    (p,) = K.build_lists([ListPartition("p", (("99-01-01",), ("00-01-01",), ("69-12-31",), ("70-1-1",)))], [DATE])
    assert [k.values[0] for k in p.keys] == [
        dt.date(1999, 1, 1),
        dt.date(2000, 1, 1),
        dt.date(2069, 12, 31),
        dt.date(1970, 1, 1),
    ]
    with pytest.raises(
        AnalysisError,
        match=r"^Invalid list value format: The partition key\[\('2000-01-01'\)\] in partition item\[\('2000-01-01'\)\] is conflict "
        r"with current partitionKeys\[\(\('1990-01-01'\),\('2000-01-01'\)\)\]$",
    ):
        K.build_lists(
            [ListPartition("p1", (("1990-01-01",), ("2000-01-01",))), ListPartition("p2", (("00-01-01",),))], [DATE]
        )
    assert K.parse_range_key(("99-12-31",), (DATE,)).values == (dt.date(1999, 12, 31),)
    with pytest.raises(AnalysisError, match=r"^date literal \[00-13-01\] is invalid$"):  # the value as written
        K.build_lists([ListPartition("p", (("00-13-01",),))], [DATE])


def test_date_zero_is_a_list_value():
    # the suite's test_list_partition_ddl_tbl_1: VALUES IN ("0000-01-01","2000-01-01")
    (p,) = K.build_lists([ListPartition("p1", (("0000-01-01",), ("2000-01-01",)))], [DATE])
    assert p.keys[0].values == (K.MIN,)
    assert p.meta_fields() == {"values": (("0000-01-01",), ("2000-01-01",))}
    assert p.show_text() == "[types: [DATE]; keys: [0000-01-01]; , types: [DATE]; keys: [2000-01-01]; ]"
    assert K.list_from_texts("p1", (("0000-01-01",), ("2000-01-01",)), (DATE,)) == p
    assert K.Router([p])((dt.date(2000, 1, 1),)) == "p1"
    assert K.routing_sql([p], ["`d`"]) == (
        "CASE WHEN (`d` IS NOT NULL AND `d` IN (DATE'2000-01-01')) THEN 'p1' ELSE CAST(NULL AS STRING) END"
    )


def test_a_date_value_with_a_time_part_is_refused():
    with pytest.raises(
        AnalysisError,
        match=r"^date literal \[2000-01-02 08:00:00\] is invalid: Invalid date value: 2000-01-02 08:00:00$",
    ):
        K.build_lists([ListPartition("p2", (("2000-01-02 08:00:00",),))], [DATE])
    with pytest.raises(AnalysisError, match="Invalid date value: 2017-01-01 00:00:00"):
        K.parse_range_key(("2017-01-01 00:00:00",), (DATE,))


def test_a_char_value_longer_than_the_column_is_kept_and_routes_nothing():
    # test_list_partition_datatype: CHAR(1) ... VALUES IN ("c"," ","?","ddd") is created, and
    # inserting 'd' finds no partition (the value is not cut to 'd')
    stmt = _create(
        'PARTITION p1 VALUES IN ("a","b"), PARTITION p2 VALUES IN ("c"," ","?","ddd")',
        columns="k1 CHAR NOT NULL, v CHAR NOT NULL",
    )
    p1, p2 = K.build_partitions(stmt)
    assert p2.meta_fields() == {"values": (("c",), (" ",), ("?",), ("ddd",))}
    assert K.Router([p1, p2])(("d",)) is None
    assert K.Router([p1, p2])(("?",)) == "p2"
