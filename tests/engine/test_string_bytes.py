"""CHAR(n) / VARCHAR(n) as Doris measures them: loads count UTF-8 bytes (strict mode refuses a
longer value), partition values count characters (ADD PARTITION refuses a longer LIST value:
Nereids' PartitionDefinition checks String.length()). '北京' is 2 characters and 6 bytes;
'北京市' 3 characters and 9 bytes."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, LoadError

from .conftest import delta_rows, delta_version, run

CITIES = """CREATE TABLE cities (k INT, city VARCHAR(6) NOT NULL, code CHAR(3))
    DUPLICATE KEY(k) PARTITION BY LIST(city) (PARTITION p_bj VALUES IN ("北京"), PARTITION p_x VALUES IN ("x"))
    DISTRIBUTED BY HASH(k) BUCKETS 1"""


@pytest.fixture(scope="module")
def cities(engine):
    run(engine, CITIES)
    return "cities"


def test_load_counts_bytes(engine, cities):
    run(engine, "INSERT INTO cities VALUES (1, '北京', 'é'), (2, 'x', 'abc')")  # 6 bytes fit VARCHAR(6)
    version = delta_version(engine, cities)
    with pytest.raises(LoadError) as err:  # 'éé': 2 characters, 4 bytes > CHAR(3)
        run(engine, "INSERT INTO cities VALUES (3, 'x', 'éé')")
    assert "`code`" in str(err.value) and "(3 bytes)" in str(err.value), str(err.value)
    assert delta_version(engine, cities) == version
    assert sorted(
        (r["k"], r["city"], r["code"]) for r in delta_rows(engine, cities, columns=["k", "city", "code"])
    ) == [(1, "北京", "é"), (2, "x", "abc")]


def test_partition_values_count_characters(engine, cities):
    message = r"^Partition value 北京市海淀区西's length exceeds type length: 7 > 6 for VARCHAR\(6\)$"
    with pytest.raises(AnalysisError, match=message):
        run(engine, 'ALTER TABLE cities ADD PARTITION p_hd VALUES IN ("北京市海淀区西")')
    run(engine, 'ALTER TABLE cities ADD PARTITION p_sh VALUES IN ("上海市")')  # 9 bytes, 3 characters
    assert [r[0] for r in run(engine, "SHOW PARTITIONS FROM cities").rows if r[1] == "p_sh"]
    assert "p_hd" not in [r[1] for r in run(engine, "SHOW PARTITIONS FROM cities").rows]
