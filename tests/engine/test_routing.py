"""Every partition-routing example of seed 003 (Data Partition), run through the engine and read
back from the Delta table: each row's `__partition` is what Doris's guide says."""

from __future__ import annotations

import pytest

from dorisql.errors import LoadError

from .conftest import delta_rows, delta_version, rows, run

RANGE_TBL = """
CREATE TABLE IF NOT EXISTS d.example_range_tbl
(
`user_id` LARGEINT NOT NULL COMMENT "User ID",
`date` DATE NOT NULL COMMENT "Date when the data are imported",
`timestamp` DATETIME NOT NULL COMMENT "Timestamp when the data are imported",
`city` VARCHAR(20) COMMENT "User location city",
`age` SMALLINT COMMENT "User age",
`sex` TINYINT COMMENT "User gender",
`last_visit_date` DATETIME REPLACE DEFAULT "1970-01-01 00:00:00" COMMENT "User last visit time",
`cost` BIGINT SUM DEFAULT "0" COMMENT "Total user consumption",
`max_dwell_time` INT MAX DEFAULT "0" COMMENT "Maximum user dwell time",
`min_dwell_time` INT MIN DEFAULT "99999" COMMENT "Minimum user dwell time"
)
ENGINE=olap
AGGREGATE KEY(`user_id`, `date`, `timestamp`, `city`, `age`, `sex`)
PARTITION BY RANGE(`date`)
(
PARTITION `p201701` VALUES LESS THAN ("2017-02-01"),
PARTITION `p201702` VALUES LESS THAN ("2017-03-01"),
PARTITION `p201703` VALUES LESS THAN ("2017-04-01"),
PARTITION `p2018` VALUES [("2018-01-01"), ("2019-01-01"))
)
DISTRIBUTED BY HASH(`user_id`) BUCKETS 16
PROPERTIES
(
"replication_num" = "3",
"storage_medium" = "SSD",
"storage_cooldown_time" = "2018-01-01 12:00:00"
)
"""

LIST_TBL = """
CREATE TABLE IF NOT EXISTS d.example_list_tbl
(
`user_id` LARGEINT NOT NULL COMMENT "User ID",
`date` DATE NOT NULL COMMENT "Date when the data are imported",
`timestamp` DATETIME NOT NULL COMMENT "Timestamp when the data are imported",
`city` VARCHAR(20) NOT NULL COMMENT "User location city",
`age` SMALLINT COMMENT "User Age",
`sex` TINYINT COMMENT "User gender",
`last_visit_date` DATETIME REPLACE DEFAULT "1970-01-01 00:00:00" COMMENT "User last visit time",
`cost` BIGINT SUM DEFAULT "0" COMMENT "Total user consumption",
`max_dwell_time` INT MAX DEFAULT "0" COMMENT "Maximum user dwell time",
`min_dwell_time` INT MIN DEFAULT "99999" COMMENT "Minimum user dwell time"
)
ENGINE=olap
AGGREGATE KEY(`user_id`, `date`, `timestamp`, `city`, `age`, `sex`)
PARTITION BY LIST(`city`)
(
PARTITION `p_cn` VALUES IN ("Beijing", "Shanghai", "Hong Kong"),
PARTITION `p_usa` VALUES IN ("New York", "San Francisco"),
PARTITION `p_jp` VALUES IN ("Tokyo")
)
DISTRIBUTED BY HASH(`user_id`) BUCKETS 16
PROPERTIES
(
"replication_num" = "3",
"storage_medium" = "SSD",
"storage_cooldown_time" = "2018-01-01 12:00:00"
)
"""


def _partition_of(engine, table: str, key: str) -> dict:
    """{key value: __partition} as an outside Delta reader sees it."""
    return {str(r[key]): r["__partition"] for r in delta_rows(engine, table, columns=[key, "__partition"])}


def _ranges(engine, table: str) -> dict[str, str]:
    return {r[1]: r[6] for r in rows(engine, f"SHOW PARTITIONS FROM {table}")}


def _load_lenient(engine, sql: str):
    run(engine, "SET enable_insert_strict = false")
    try:
        return run(engine, sql)
    finally:
        run(engine, "SET enable_insert_strict = true")


def _refused(engine, table: str, sql: str) -> str:
    """The statement fails in strict mode and the table is left exactly as it was."""
    version = delta_version(engine, table)
    count = rows(engine, f"SELECT count(*) FROM {table}")
    with pytest.raises(LoadError) as err:
        run(engine, sql)
    assert delta_version(engine, table) == version
    assert rows(engine, f"SELECT count(*) FROM {table}") == count
    return str(err.value)


def _visit(user_id: int, date: str, city: str = "Beijing") -> str:
    return f"({user_id}, '{date}', '{date} 08:00:00', '{city}', 30, 1, '{date} 09:00:00', 10, 5, 1)"


def test_example_range_tbl_routing_and_the_add_drop_sequence(engine):
    run(engine, RANGE_TBL)
    dates = {
        1: "2016-06-01",
        2: "2017-01-31",
        3: "2017-02-01",
        4: "2017-03-31",
        5: "2018-06-30",
        6: "2017-04-01",
        7: "2017-12-31",
        8: "2019-01-01",
    }
    result = _load_lenient(
        engine, "INSERT INTO example_range_tbl VALUES " + ", ".join(_visit(k, v) for k, v in dates.items())
    )
    assert result.affected_rows == 5
    assert "3 rows filtered" in result.warnings[0]
    assert _partition_of(engine, "example_range_tbl", "user_id") == {
        "1": "p201701",
        "2": "p201701",
        "3": "p201702",
        "4": "p201703",
        "5": "p2018",
    }
    # The table's "storage_medium" = "SSD" is each partition's StorageMedium.
    shown = run(engine, "SHOW PARTITIONS FROM example_range_tbl")
    medium = shown.columns.index("StorageMedium")
    assert {r[medium] for r in shown.rows} == {"SSD"}

    # "If we add Partition p201705 VALUES LESS THAN ("2017-06-01")" ...
    run(engine, 'ALTER TABLE example_range_tbl ADD PARTITION p201705 VALUES LESS THAN ("2017-06-01")')
    assert _ranges(engine, "example_range_tbl")["p201705"].endswith(
        "keys: [2017-04-01]; ..types: [DATE]; keys: [2017-06-01]; )"
    )
    # ... then we delete p201703: a gap [2017-03-01, 2017-04-01); loading into it fails.
    run(engine, "ALTER TABLE example_range_tbl DROP PARTITION p201703")
    text = _refused(engine, "example_range_tbl", "INSERT INTO example_range_tbl VALUES " + _visit(20, "2017-03-15"))
    assert "1 of 1 rows" in text and "2017-03-15" in text
    ranges = _ranges(engine, "example_range_tbl")
    assert list(ranges) == ["p201701", "p201702", "p2018", "p201705"] or sorted(ranges) == sorted(
        ["p201701", "p201702", "p2018", "p201705"]
    )
    assert "keys: [2017-02-01]; ..types: [DATE]; keys: [2017-03-01]" in ranges["p201702"]  # unchanged
    assert "keys: [2017-04-01]; ..types: [DATE]; keys: [2017-06-01]" in ranges["p201705"]  # unchanged

    # Now delete p201702: the gap expands to [2017-02-01, 2017-04-01).
    run(engine, "ALTER TABLE example_range_tbl DROP PARTITION p201702")
    _refused(engine, "example_range_tbl", "INSERT INTO example_range_tbl VALUES " + _visit(21, "2017-02-10"))
    # Add p201702new VALUES LESS THAN ("2017-03-01"): [2017-02-01, 2017-03-01), the gap shrinks.
    run(engine, 'ALTER TABLE example_range_tbl ADD PARTITION p201702new VALUES LESS THAN ("2017-03-01")')
    assert (
        "keys: [2017-02-01]; ..types: [DATE]; keys: [2017-03-01]" in _ranges(engine, "example_range_tbl")["p201702new"]
    )
    # Delete p201701 and add p201612 VALUES LESS THAN ("2017-01-01"): [MIN, 2017-01-01).
    run(engine, "ALTER TABLE example_range_tbl DROP PARTITION p201701")
    run(engine, 'ALTER TABLE example_range_tbl ADD PARTITION p201612 VALUES LESS THAN ("2017-01-01")')
    assert "keys: [0000-01-01]; ..types: [DATE]; keys: [2017-01-01]" in _ranges(engine, "example_range_tbl")["p201612"]
    # The new gap [2017-01-01, 2017-02-01) and the old [2017-03-01, 2017-04-01) refuse rows.
    for day in ("2017-01-01", "2017-01-31", "2017-03-01", "2017-03-31"):
        _refused(engine, "example_range_tbl", "INSERT INTO example_range_tbl VALUES " + _visit(22, day))
    run(
        engine,
        "INSERT INTO example_range_tbl VALUES "
        + ", ".join(
            [_visit(30, "2016-12-31"), _visit(31, "2017-02-10"), _visit(32, "2017-04-01"), _visit(33, "2017-05-31")]
        ),
    )
    placed = _partition_of(engine, "example_range_tbl", "user_id")
    assert {k: placed[k] for k in ("30", "31", "32", "33")} == {
        "30": "p201612",
        "31": "p201702new",
        "32": "p201705",
        "33": "p201705",
    }
    # Rows of the dropped partitions are gone, for dorisql and for an outside reader.
    assert sorted(placed) == ["30", "31", "32", "33", "5"]
    assert sorted(int(r[0]) for r in rows(engine, "SELECT user_id FROM example_range_tbl")) == [5, 30, 31, 32, 33]


def test_example_list_tbl_routing_add_and_drop(engine):
    run(engine, LIST_TBL)
    cities = {
        1: "Beijing",
        2: "Shanghai",
        3: "Hong Kong",
        4: "New York",
        5: "San Francisco",
        6: "Tokyo",
        7: "London",
        8: "beijing",
    }
    result = _load_lenient(
        engine,
        "INSERT INTO example_list_tbl VALUES " + ", ".join(_visit(k, "2017-01-01", c) for k, c in cities.items()),
    )
    assert result.affected_rows == 6 and "2 rows filtered" in result.warnings[0]
    assert _partition_of(engine, "example_list_tbl", "user_id") == {
        "1": "p_cn",
        "2": "p_cn",
        "3": "p_cn",
        "4": "p_usa",
        "5": "p_usa",
        "6": "p_jp",
    }
    run(engine, 'ALTER TABLE example_list_tbl ADD PARTITION p_uk VALUES IN ("London")')
    run(engine, "ALTER TABLE example_list_tbl DROP PARTITION p_jp")
    assert [r[1] for r in rows(engine, "SHOW PARTITIONS FROM example_list_tbl ORDER BY PartitionName")] == [
        "p_cn",
        "p_uk",
        "p_usa",
    ]
    _refused(engine, "example_list_tbl", "INSERT INTO example_list_tbl VALUES " + _visit(9, "2017-01-01", "Tokyo"))
    run(engine, "INSERT INTO example_list_tbl VALUES " + _visit(10, "2017-01-01", "London"))
    placed = _partition_of(engine, "example_list_tbl", "user_id")
    assert placed["10"] == "p_uk" and "6" not in placed


def test_multi_column_range(engine):
    run(
        engine,
        """CREATE TABLE mrange (`date` DATE NOT NULL, `id` INT NOT NULL, note VARCHAR(8))
        DUPLICATE KEY(`date`, `id`)
        PARTITION BY RANGE(`date`, `id`)
        (
        PARTITION `p201701_1000` VALUES LESS THAN ("2017-02-01", "1000"),
        PARTITION `p201702_2000` VALUES LESS THAN ("2017-03-01", "2000"),
        PARTITION `p201703_all` VALUES LESS THAN ("2017-04-01")
        )
        DISTRIBUTED BY HASH(`id`) BUCKETS 4 PROPERTIES ("replication_num" = "1")""",
    )
    expected = [
        ("2017-01-01", 200, "p201701_1000"),
        ("2017-01-01", 2000, "p201701_1000"),
        ("2017-02-01", 100, "p201701_1000"),
        ("2017-02-01", 2000, "p201702_2000"),
        ("2017-02-15", 5000, "p201702_2000"),
        ("2017-03-01", 2000, "p201703_all"),
        ("2017-03-10", 1, "p201703_all"),
        ("2017-04-01", 1000, None),
        ("2017-05-01", 1000, None),
    ]
    values = ", ".join(f"('{d}', {i}, 't{n}')" for n, (d, i, _) in enumerate(expected))
    text = _refused(engine, "mrange", f"INSERT INTO mrange VALUES {values}")
    assert "2 of 9 rows" in text
    result = _load_lenient(engine, f"INSERT INTO mrange VALUES {values}")
    assert result.affected_rows == 7
    placed = _partition_of(engine, "mrange", "note")
    assert placed == {f"t{n}": p for n, (_, _, p) in enumerate(expected) if p is not None}
    ranges = _ranges(engine, "mrange")
    assert ranges["p201703_all"] == (
        "[types: [DATE, INT]; keys: [2017-03-01, 2000]; ..types: [DATE, INT]; keys: [2017-04-01, -2147483648]; )"
    )


def test_multi_column_list(engine):
    run(
        engine,
        """CREATE TABLE mlist (`id` INT NOT NULL, `city` VARCHAR(20) NOT NULL, n INT)
        DUPLICATE KEY(`id`, `city`)
        PARTITION BY LIST(`id`, `city`)
        (
        PARTITION `p1_city` VALUES IN (("1", "Beijing"), ("1", "Shanghai")),
        PARTITION `p2_city` VALUES IN (("2", "Beijing"), ("2", "Shanghai")),
        PARTITION `p3_city` VALUES IN (("3", "Beijing"), ("3", "Shanghai"))
        )
        DISTRIBUTED BY HASH(`id`) BUCKETS 2 PROPERTIES ("replication_num" = "1")""",
    )
    expected = [
        (1, "Beijing", "p1_city"),
        (1, "Shanghai", "p1_city"),
        (2, "Shanghai", "p2_city"),
        (3, "Beijing", "p3_city"),
        (1, "Tianjin", None),
        (4, "Beijing", None),
    ]
    values = ", ".join(f"({i}, '{c}', {n})" for n, (i, c, _) in enumerate(expected))
    text = _refused(engine, "mlist", "INSERT INTO mlist VALUES (1, 'Tianjin', 99)")
    assert "1 of 1 rows" in text and "Tianjin" in text
    _refused(engine, "mlist", "INSERT INTO mlist VALUES (4, 'Beijing', 99)")
    result = _load_lenient(engine, f"INSERT INTO mlist VALUES {values}")
    assert result.affected_rows == 4 and "2 rows filtered" in result.warnings[0]
    assert _partition_of(engine, "mlist", "n") == {str(n): p for n, (_, _, p) in enumerate(expected) if p}


def test_null_list_partition(engine):
    run(
        engine,
        """create table null_list(
        k0 varchar null
        )
        partition by list (k0)
        (
        PARTITION pX values in ((NULL))
        )
        DISTRIBUTED BY HASH(`k0`) BUCKETS 1
        properties("replication_num" = "1")""",
    )
    assert run(engine, "insert into null_list values (null)").affected_rows == 1
    assert rows(engine, "select * from null_list") == [(None,)]
    assert delta_rows(engine, "null_list", columns=["k0", "__partition"]) == [{"k0": None, "__partition": "pX"}]
    _refused(engine, "null_list", "insert into null_list values ('a')")


def test_null_range_goes_to_the_lowest_less_than_partition(engine):
    run(
        engine,
        """create table null_range(
        k0 int null
        )
        partition by range (k0)
        (
        PARTITION p10 values less than (10),
        PARTITION p100 values less than (100),
        PARTITION pMAX values less than (maxvalue)
        )
        DISTRIBUTED BY HASH(`k0`) BUCKETS 1
        properties("replication_num" = "1")""",
    )
    assert run(engine, "insert into null_range values (null)").affected_rows == 1
    assert rows(engine, "select * from null_range partition(p10)") == [(None,)]
    assert rows(engine, "select * from null_range partition(p100)") == []
    assert delta_rows(engine, "null_range", columns=["k0", "__partition"]) == [{"k0": None, "__partition": "p10"}]


def test_null_range_without_a_less_than_partition_is_refused(engine):
    run(
        engine,
        """create table null_range2(
        k0 int null
        )
        partition by range (k0)
        (
        PARTITION p200 values [("100"), ("200"))
        )
        DISTRIBUTED BY HASH(`k0`) BUCKETS 1
        properties("replication_num" = "1")""",
    )
    text = _refused(engine, "null_range2", "insert into null_range2 values (null)")
    assert text.startswith("Insert has filtered data in strict mode")
    assert delta_rows(engine, "null_range2") == []
