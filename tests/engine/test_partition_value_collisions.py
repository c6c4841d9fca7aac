"""Values that differ only in case, in trailing spaces or in Unicode normalisation, loaded into
every partitioning kind and read back, all of them (issue 28, item 1: a silent row loss).

Doris keeps such values apart: AUTO PARTITION BY LIST gives 'XXX' the partition pXXX3 and 'xxx'
pxxx3 (regression-test/suites/partition_p0/auto_partition/test_auto_partition_name.groovy lists
both), its partition names are case-sensitive (OlapTable.nameToPartition), and a string is
compared as its bytes, so 'a ' is not 'a' and NFC 'é' is not NFD 'e' + U+0301.
"""

from __future__ import annotations

import datetime as dt

import pytest

from dorisql.errors import AnalysisError, LoadError

from .conftest import rows, run

pytestmark = pytest.mark.spark

NFC = "\u00e9"  # é, one code point
NFD = "e\u0301"  # e + COMBINING ACUTE ACCENT: the same letter, decomposed
#: value -> its row's v, loaded over several statements (a later load meets the earlier partitions)
VALUES = {"XXX": 1, "xxx": 2, "Xxx": 3, "a": 4, "a ": 5, NFC: 6, NFD: 7}
LOADS = (("XXX",), ("xxx",), ("Xxx", "a"), ("a ", NFC, NFD))
#: Doris's AUTO LIST names (PartitionExprUtil: value + its length, other characters as hex)
AUTO_NAMES = {"XXX": "pXXX3", "xxx": "pxxx3", "Xxx": "pXxx3", "a": "pa1", "a ": "pa202", NFC: "pe91", NFD: "pe3012"}


def _load(engine, table: str, extra: str = "") -> None:
    for load in LOADS:
        tuples = ", ".join(f"('{s}', {VALUES[s]}{extra})" for s in load)
        run(engine, f"INSERT INTO {table} VALUES {tuples}")


def _check_rows(engine, table: str) -> None:
    assert rows(engine, f"SELECT s, v FROM {table} ORDER BY v") == list(VALUES.items())
    for s, v in VALUES.items():  # pruning and the filter keep exactly the value's row
        assert rows(engine, f"SELECT v FROM {table} WHERE s = '{s}'") == [(v,)], s
        assert rows(engine, f"SELECT v FROM {table} WHERE s IN ('{s}') AND v > 0") == [(v,)], s


def _partitions(engine, table: str) -> dict[str, int]:
    """PartitionName -> RowCount of SHOW PARTITIONS."""
    return {r[1]: r[-1] for r in rows(engine, f"SHOW PARTITIONS FROM {table}")}


def test_auto_list_keeps_every_value_in_its_own_partition(engine):
    run(
        engine,
        "CREATE TABLE auto_s (s VARCHAR(10) NOT NULL, v INT) AUTO PARTITION BY LIST (s) () "
        "DISTRIBUTED BY HASH(s) BUCKETS 2",
    )
    _load(engine, "auto_s")
    _check_rows(engine, "auto_s")
    assert _partitions(engine, "auto_s") == {name: 1 for name in AUTO_NAMES.values()}
    for s, name in AUTO_NAMES.items():
        assert rows(engine, f"SELECT s, v FROM auto_s PARTITION ({name})") == [(s, VALUES[s])], name
    # a name equal to several partitions' ignoring case names none of them
    with pytest.raises(AnalysisError, match="Unknown partition 'PXXX3'"):
        run(engine, "SELECT * FROM auto_s PARTITION (PXXX3)")
    # the same values again go to the same partitions: no new partition, no refused row
    _load(engine, "auto_s")
    assert _partitions(engine, "auto_s") == {name: 2 for name in AUTO_NAMES.values()}
    assert len(rows(engine, "SELECT * FROM auto_s")) == 2 * len(VALUES)


def test_auto_list_on_two_columns(engine):
    run(
        engine,
        "CREATE TABLE auto_sk (s VARCHAR(10) NOT NULL, v INT, k INT NOT NULL) "
        "AUTO PARTITION BY LIST (s, k) () DISTRIBUTED BY HASH(s) BUCKETS 1",
    )
    _load(engine, "auto_sk", extra=", 1")
    _check_rows(engine, "auto_sk")
    assert sorted(_partitions(engine, "auto_sk")) == sorted(name + "11" for name in AUTO_NAMES.values())


def test_explicit_list_partitions(engine):
    parts = ", ".join(f"PARTITION q{v} VALUES IN ('{s}')" for s, v in VALUES.items())
    run(
        engine,
        f"CREATE TABLE list_s (s VARCHAR(10) NOT NULL, v INT) PARTITION BY LIST (s) ({parts}) "
        "DISTRIBUTED BY HASH(s) BUCKETS 2",
    )
    _load(engine, "list_s")
    _check_rows(engine, "list_s")
    assert _partitions(engine, "list_s") == {f"q{v}": 1 for v in VALUES.values()}
    with pytest.raises(LoadError, match="fit no partition"):  # 'A' is none of the values
        run(engine, "INSERT INTO list_s VALUES ('A', 8)")


def test_range_and_unpartitioned_tables(engine):
    # Doris refuses a string RANGE partition key ("cannot be a range partition key"): the string
    # values ride in the partitions of a date range here
    run(
        engine,
        "CREATE TABLE range_s (s VARCHAR(10) NOT NULL, v INT, d DATE NOT NULL) PARTITION BY RANGE (d) "
        "(PARTITION p1 VALUES LESS THAN ('2024-01-02'), PARTITION p2 VALUES LESS THAN ('2024-01-03')) "
        "DISTRIBUTED BY HASH(s) BUCKETS 2",
    )
    _load(engine, "range_s", extra=", '2024-01-01'")
    _check_rows(engine, "range_s")
    assert _partitions(engine, "range_s") == {"p1": len(VALUES), "p2": 0}
    assert rows(engine, "SELECT DISTINCT d FROM range_s") == [(dt.date(2024, 1, 1),)]

    run(engine, "CREATE TABLE plain_s (s VARCHAR(10) NOT NULL, v INT) DISTRIBUTED BY HASH(s) BUCKETS 3")
    _load(engine, "plain_s")
    _check_rows(engine, "plain_s")


def test_partition_statements_name_one_partition(engine):
    """ALTER TABLE ... MODIFY PARTITION and TRUNCATE on pxxx3 touch pxxx3 only, not pXXX3."""
    run(
        engine,
        "CREATE TABLE auto_ddl (s VARCHAR(10) NOT NULL, v INT) AUTO PARTITION BY LIST (s) () "
        "DISTRIBUTED BY HASH(s) BUCKETS 1",
    )
    run(engine, "INSERT INTO auto_ddl VALUES ('XXX', 1), ('xxx', 2)")
    run(engine, "ALTER TABLE auto_ddl MODIFY PARTITION (pxxx3) SET ('storage_medium' = 'SSD')")
    media = {r[1]: r[10] for r in rows(engine, "SHOW PARTITIONS FROM auto_ddl")}
    assert media == {"pXXX3": "HDD", "pxxx3": "SSD"}
    run(engine, "TRUNCATE TABLE auto_ddl PARTITION (pxxx3)")
    assert rows(engine, "SELECT s, v FROM auto_ddl") == [("XXX", 1)]
