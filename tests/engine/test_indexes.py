"""Doris's index statements (CREATE INDEX / DROP INDEX ... ON t, ALTER TABLE ADD / DROP INDEX,
INDEX in CREATE TABLE): recorded with the table, checked as Doris checks them, listed by SHOW
INDEX and printed by SHOW CREATE TABLE; nothing is built (docs/compatibility.md, Indexes)."""

from __future__ import annotations

import pytest

from dorisql.errors import DorisqlError

from .conftest import rows, run

COLUMNS = [
    "Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation", "Cardinality",
    "Sub_part", "Packed", "Null", "Index_type", "Comment", "Properties",
]  # fmt: skip


def test_indexes_are_recorded_listed_and_checked(make_engine, tmp_path):
    engine = make_engine(tmp_path / "wh")  # no statement here needs Spark
    run(engine, "CREATE DATABASE d; USE d")
    run(
        engine,
        "CREATE TABLE t (k INT, `index` BIGINT, s VARCHAR(20), m MAP<INT, INT>, "
        'INDEX i_s (s) USING INVERTED PROPERTIES ("parser" = "english") COMMENT \'words\') '
        "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    run(engine, "CREATE INDEX ix_t_index ON t (`index`)")  # pandas to_sql(index=True): no USING is INVERTED
    run(engine, "ALTER TABLE t DROP INDEX i_s, ADD INDEX ng (s) USING NGRAM_BF COMMENT 'n\\'gram'")
    result = run(engine, "SHOW INDEX FROM t")
    assert list(result.columns) == COLUMNS
    assert [tuple(r) for r in result.rows] == [
        ("t", "", "ix_t_index", "", "index", "", "", "", "", "", "INVERTED", None, ""),
        ("t", "", "ng", "", "s", "", "", "", "", "", "NGRAM_BF", "n'gram", '("gram_size" = "2", "bf_size" = "256")'),
    ]
    create = rows(engine, "SHOW CREATE TABLE t")[0][1]
    assert "INDEX `ix_t_index` (`index`) USING INVERTED," in create and "i_s" not in create
    assert "USING NGRAM_BF PROPERTIES" in create and create.count(" COMMENT 'n\\'gram'") == 1  # Index.toSql's quotes
    before = engine.catalog.load_table("d", "t").version
    for sql, message in [
        ("CREATE INDEX ix_t_index ON t (k)", "index `ix_t_index` already exist."),
        ("CREATE INDEX other ON t (`index`)", r"index for columns \(index \) already exist."),
        ("CREATE INDEX i ON t (nope)", "BITMAP column does not exist in table. invalid column: nope"),
        ("CREATE INDEX i ON t (m)", "MAP<INT, INT> is not supported in INVERTED index. invalid index: i"),
        ("CREATE INDEX i ON t (k, s)", "INVERTED index can only apply to a single column."),
        ("DROP INDEX nope ON t", "index nope does not exist"),
    ]:
        with pytest.raises(DorisqlError, match=message):
            run(engine, sql)
    run(engine, "CREATE INDEX IF NOT EXISTS ix_t_index ON t (k); DROP INDEX IF EXISTS nope ON t")
    assert engine.catalog.load_table("d", "t").version == before  # nothing changed
    # DROP COLUMN drops the indexes on the column (SchemaChangeHandler.processDropColumn)
    run(engine, "ALTER TABLE t DROP COLUMN s")
    assert [r[2] for r in rows(engine, "SHOW INDEX FROM t")] == ["ix_t_index"]
    assert "`ng`" not in rows(engine, "SHOW CREATE TABLE t")[0][1]
    run(engine, "CREATE INDEX ng ON t (k)")  # the name is free again
    run(engine, "CREATE TABLE a (k INT, v INT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    with pytest.raises(DorisqlError, match="index should only be used in columns of DUP_KEYS/UNIQUE_KEYS"):
        run(engine, "CREATE INDEX iv ON a (v)")
    assert [r[2] for r in rows(engine, "SHOW KEYS FROM a")] == []
