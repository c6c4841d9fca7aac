"""A ``dorisql -f`` script of the metadata statements MySQL tools send (no Spark needed)."""

from __future__ import annotations

SCRIPT = """\
CREATE DATABASE shop;
USE shop;
CREATE TABLE items (id INT NOT NULL, name VARCHAR(32)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1;
SHOW FULL TABLES;
SHOW COLUMNS FROM items;
SHOW TABLE STATUS LIKE 'items';
SHOW VARIABLES LIKE 'lower_case_table_names';
SELECT @@version_comment LIMIT 1;
SELECT DATABASE();
SHOW WARNINGS;
SHOW FRONTENDS;
USE information_schema;
SHOW TABLES;
"""


def test_a_script_of_metadata_statements(dorisql, tmp_path):
    script = tmp_path / "meta.sql"
    script.write_text(SCRIPT)
    done = dorisql("-f", str(script))
    assert done.returncode == 0, done.stderr
    blocks = done.stdout.split("\n")
    assert "Tables_in_shop\tTable_type" in blocks and "items\tBASE TABLE" in blocks
    assert "Field\tType\tNull\tKey\tDefault\tExtra" in blocks
    assert "id\tint\tNO\tYES\tNULL\t" in blocks and "name\tvarchar(32)\tYES\tNO\tNULL\t" in blocks
    assert any(line.startswith("items\tDoris\tNULL\tNULL\t0\t0\t0\t") for line in blocks)
    assert "lower_case_table_names\t0" in blocks
    assert any(line.startswith("dorisql version ") for line in blocks)
    assert "DATABASE()" in blocks and "shop" in blocks
    assert "Level\tCode\tMessage" in blocks
    assert any(line.startswith("Name\tIP\tHostName\tEditLogPort") for line in blocks)
    tail = done.stdout.rstrip("\n").split("\n")[-18:]
    assert tail[0] == "Tables_in_information_schema"
    assert {"columns", "partitions", "schemata", "tables", "views", "statistics", "processlist"} <= set(tail[1:])
