"""Completion candidates from the text before the cursor (pure: no terminal, no engine)."""

from __future__ import annotations

import pytest

from dorisql.shell.completer import Names, suggest

NAMES = Names.from_engine(
    {
        "databases": ["sales", "ops"],
        "tables": {"sales": ["orders", "order_items"], "ops": ["events"]},
        "columns": {"orders": ["order_id", "order_date", "amount"], "events": ["ts", "kind"]},
        "partitions": {"orders": ["p20200521", "p20200522"], "events": ["p1"]},
    }
)


def _suggest(text, db="sales"):
    return suggest(text, NAMES, db)


@pytest.mark.parametrize(
    "text, word, expected",
    [
        ("SEL", "SEL", ["SELECT"]),
        ("sel", "sel", ["select"]),  # keyword casing follows what is typed
        ("CREATE TA", "TA", ["TABLE", "TABLES", "TABLET", "TABLETS"]),
        ("USE ", "", ["ops", "sales"]),
        ("use s", "s", ["sales"]),
        ("SELECT * FROM ord", "ord", ["order_items", "orders"]),
        ("SELECT * FROM ops.", "", ["events"]),
        ("SELECT * FROM e", "e", ["events"]),  # tables of other databases come after the current one
        ("DESC o", "o", ["order_items", "orders", "ops"]),
        ("SHOW TABLES FROM ", "", ["ops", "sales"]),
        ("SHOW PARTITIONS FROM o", "o", ["order_items", "orders", "ops"]),
        ("ALTER TABLE orders DROP PARTITION p2020052", "p2020052", ["p20200521", "p20200522"]),
        ("SELECT * FROM orders PARTITION (p20200521, p", "p", ["p20200521", "p20200522"]),
        ("SELECT amount FROM orders WHERE order_", "order_", ["order_id", "order_date"]),
    ],
)
def test_suggestions(text, word, expected):
    got_word, got = _suggest(text)
    assert got_word == word
    assert got[: len(expected)] == expected if expected else got == []


def test_property_keys_inside_properties_quotes():
    word, got = _suggest(
        'CREATE TABLE t (k DATE) PARTITION BY RANGE(k) () DISTRIBUTED BY HASH(k) PROPERTIES ("dynamic_partition.ti'
    )
    assert (word, got) == ("dynamic_partition.ti", ["dynamic_partition.time_unit", "dynamic_partition.time_zone"])
    _, got = _suggest('ALTER TABLE orders SET ("colo')
    assert got == ["colocate_with"]
    _, got = _suggest('PROPERTIES ("replication_num" = "1", "estim')
    assert got == ["estimate_partition_size"]


def test_frontend_config_keys():
    _, got = _suggest('ADMIN SET FRONTEND CONFIG ("dynamic_partition_')
    assert got == ["dynamic_partition_enable", "dynamic_partition_check_interval_seconds"]


def test_nothing_inside_ordinary_strings_or_after_create_table():
    assert _suggest("SELECT * FROM orders WHERE k = 'ord")[1] == []
    assert _suggest("CREATE TABLE ord")[1] == []
    assert _suggest("CREATE DATABASE s")[1] == []
