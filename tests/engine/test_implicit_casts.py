"""Doris's implicit casts on real Spark and Delta: a BOOLEAN compared with a number, a UNION of a
number and a string, and such a UNION loaded by INSERT ... SELECT."""

from __future__ import annotations

import pytest

from dorisql.errors import LoadError

from .conftest import rows, run

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def casts(spark, tmp_path_factory, make_engine):
    eng = make_engine(tmp_path_factory.mktemp("wh"), spark=spark)
    eng.execute_sql(
        "CREATE DATABASE ic; USE ic;"
        "CREATE TABLE p (id INT, flag BOOLEAN) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1"
        " PROPERTIES ('replication_num' = '1');"
        "CREATE TABLE t (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1')"
    )
    yield eng
    eng.close()


def test_a_boolean_compares_with_a_number_as_doris_casts_it(casts):
    # 1 and 0 into a BOOLEAN column are TRUE and FALSE
    run(casts, "INSERT INTO p VALUES (1, 1), (2, 0), (3, true), (4, NULL)")
    assert rows(casts, "SELECT id, flag FROM p ORDER BY id") == [(1, True), (2, False), (3, True), (4, None)]

    def ids(where: str) -> list[int]:
        return [r[0] for r in rows(casts, f"SELECT id FROM p WHERE {where} ORDER BY id")]

    assert ids("flag = 1") == [1, 3]
    assert ids("flag = 0") == [2]
    assert ids("flag = 2") == []
    assert ids("flag <> 1") == [2]
    assert ids("flag IN (0, 1)") == [1, 2, 3]
    assert ids("1 = flag AND id > 1") == [3]
    assert ids("flag <=> 0") == [2]
    assert ids("id = TRUE") == [1]  # the number's side: TRUE is 1
    assert ids("id > 1 AND flag >= 1") == [3]


def test_a_union_of_a_number_and_a_string_is_a_string_and_loads_as_values_do(casts):
    assert sorted(rows(casts, "SELECT k FROM (SELECT 2 k UNION ALL SELECT 'x') s")) == [("2",), ("x",)]

    union = "INSERT INTO t SELECT k FROM (SELECT 2 k UNION ALL SELECT 'x') s"
    # strict mode (the default): refused as the same VALUES are, nothing loaded
    for insert in (union, "INSERT INTO t VALUES (2), ('x')"):
        with pytest.raises(LoadError, match="1 of 2 rows"):
            run(casts, insert)
    assert rows(casts, "SELECT count(*) FROM t") == [(0,)]

    run(casts, "SET enable_insert_strict = false")
    try:
        by_values = run(casts, "INSERT INTO t VALUES (2), ('x')")
        by_union = run(casts, union)
    finally:
        run(casts, "SET enable_insert_strict = true")
    for result in (by_values, by_union):
        assert result.affected_rows == 1
        assert result.warnings[0] == "1 rows filtered (enable_insert_strict = false)"
    assert rows(casts, "SELECT k FROM t") == [(2,), (2,)]
