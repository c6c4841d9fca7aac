"""One damaged catalog entry (hand-edited, torn, or from a newer dorisql) affects only its table:
the others keep working and keep being scheduled, and DROP TABLE / DROP DATABASE remove it."""

from __future__ import annotations

import sqlite3

import pytest

from dorisql.errors import DamagedTableError

from .conftest import dynamic_table


def _damage(h, table: str, text: str = '{"not": "json"') -> None:
    conn = sqlite3.connect(h.warehouse / "_catalog" / "catalog.db")
    with conn:
        conn.execute("UPDATE tables SET meta = ?, version = version + 1 WHERE db = 'd' AND name = ?", (text, table))
    conn.close()


@pytest.mark.parametrize("text", ['{"not": "json"', '{"__t": "Nope"}', '"just a string"'])
def test_a_damaged_table_does_not_stop_the_others(h, text):
    h.at("2020-05-29 10:00:00")
    h.sql(dynamic_table("good", time_unit="DAY", start=-1, end=1))
    h.sql(dynamic_table("bad", time_unit="DAY", start=-1, end=1))
    bad_folder = h.folder("bad")
    _damage(h, "bad", text)

    assert [r[0] for r in h.one("SHOW TABLES").rows] == ["bad", "good"]
    with pytest.raises(DamagedTableError, match=r"Table 'd.bad' \(id \d+\) has a damaged catalog entry"):
        h.sql("SHOW PARTITIONS FROM bad")
    assert len(h.one("SHOW PARTITIONS FROM good").rows) == 2  # start -1 is history: today and tomorrow

    report = h.run_pass("2020-05-30 00:10:00")  # the good table still rolls forward
    assert report.created == {"d.good": ["p20200531"]}
    assert "damaged catalog entry" in report.errors["d.bad"]
    assert [r[0] for r in h.one("SHOW DYNAMIC PARTITION TABLES").rows] == ["good"]

    h.sql("DROP TABLE bad")
    assert [r[0] for r in h.one("SHOW TABLES").rows] == ["good"]
    assert not bad_folder.exists()
    assert not h.run_pass("2020-05-30 00:20:00").errors


def test_drop_database_with_a_damaged_table(h):
    h.sql("CREATE DATABASE d2")
    h.sql("CREATE TABLE d2.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
    conn = sqlite3.connect(h.warehouse / "_catalog" / "catalog.db")
    with conn:
        conn.execute("UPDATE tables SET meta = '{' WHERE db = 'd2'")
    conn.close()
    h.sql("DROP DATABASE d2")
    assert "d2" not in [r[0] for r in h.one("SHOW DATABASES").rows]
    h.sql("CREATE DATABASE d2")  # the name is free again
    assert h.one("SHOW TABLES FROM d2").rows == []
