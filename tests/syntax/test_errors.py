"""Bad input: every failure is a SqlSyntaxError or NotSupportedError with the right line and
column, a caret context and words a Doris user knows; never another exception type."""

from __future__ import annotations

import pytest

from dorisql.errors import DorisqlError, NotSupportedError, SqlSyntaxError
from dorisql.syntax import parse, parse_one


def fail(sql: str, check: bool = False) -> DorisqlError:
    with pytest.raises(DorisqlError) as info:
        parse(sql, check=check)
    err = info.value
    assert isinstance(err, (SqlSyntaxError, NotSupportedError)), type(err)
    assert err.line is not None and err.column is not None
    assert err.statement_line is not None
    assert err.context and err.context.splitlines()[-1].rstrip().endswith("^")
    return err


def caret_column(err) -> int:
    return len(err.context.splitlines()[-1]) - 1 + 1


# ----------------------------------------------------------------------------- truncated / unbalanced


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE t (k1 INT",
        "CREATE TABLE t (k1 INT,",
        "CREATE TABLE t (k1 INT) DISTRIBUTED BY HASH(k1) BUCKETS",
        "ALTER TABLE t ADD PARTITION p VALUES LESS THAN",
        "SHOW PARTITIONS FROM",
        "CREATE TABLE",
        "INSERT INTO t VALUES (1, 2",
        "SET x =",
        "DROP TABLE",
    ],
)
def test_truncated_statement(sql):
    err = fail(sql)
    assert isinstance(err, SqlSyntaxError)
    assert "unexpected end of input" in str(err)
    assert (err.line, err.column) == (1, len(sql) + 1)


def test_truncated_reports_what_was_expected():
    assert "expected a table or database name" in str(fail("SHOW PARTITIONS FROM"))
    assert "expected one of AUTO, a number" in str(fail("CREATE TABLE t (k1 INT) DISTRIBUTED BY HASH(k1) BUCKETS"))


def test_unclosed_parenthesis_points_back_at_it():
    err = fail("CREATE TABLE t (\n  k1 INT,\n  k2 INT\nDISTRIBUTED BY HASH(k1)")
    assert (err.line, err.column) == (4, 1)
    assert "'(' at line 1, column 16 is not closed" in str(err)
    err = fail("CREATE TABLE t (k1 INT")
    assert "'(' at line 1, column 16 is never closed" in str(err)


def test_extra_closing_parenthesis():
    err = fail("CREATE TABLE t (k1 INT))")
    assert "')' has no matching '('" in str(err)
    assert (err.line, err.column) == (1, 24)


def test_unexpected_token_names_what_was_expected():
    err = fail('CREATE TABLE t (k1 INT) PARTITION BY RANGE(k1) (PARTITION p1 VALUES LESS THAN ("1"),)')
    assert "unexpected ')'" in str(err) and "FROM" in str(err) and "PARTITION" in str(err)
    err = fail("CREATE TABLE t (k1 INT) DUPLICATE KEY(")
    assert "expected a column name" in str(err)
    err = fail('CREATE TABLE t (k1 INT) PROPERTIES ("a" = "b",)')
    assert "unexpected ')' — expected one of a property name" in str(err)


# ----------------------------------------------------------------------------- quotes and comments


@pytest.mark.parametrize(
    "sql, what, col",
    [
        ("CREATE TABLE t (k1 INT COMMENT 'abc)", "unterminated string", 32),
        ('CREATE TABLE t (k1 INT COMMENT "abc)', "unterminated string", 32),
        ("CREATE TABLE `t (k1 INT)", "unterminated quoted name", 14),
        ("CREATE TABLE t (k1 INT) /* comment", "unterminated comment", 25),
    ],
)
def test_unterminated(sql, what, col):
    err = fail(sql)
    assert what in str(err)
    assert (err.line, err.column) == (1, col)


def test_unterminated_string_in_second_statement_has_script_position():
    err = fail("SHOW DATABASES;\nCREATE TABLE t (\n  k1 INT COMMENT 'abc\n)")
    assert err.statement_line == 2
    assert (err.line, err.column) == (3, 18)
    assert "quote ' at line 3, column 18" in str(err)


# ----------------------------------------------------------------------------- odd characters


@pytest.mark.parametrize(
    "ch, words",
    [
        ("\uff08", "full-width character '\uff08' (U+FF08) — use ASCII '('"),
        ("\uff0c", "full-width character '\uff0c' (U+FF0C) — use ASCII ','"),
        ("\u3000", "full-width space (U+3000)"),
        ("\u00a0", "U+00A0 (no-break space) — use an ordinary space"),
        ("\u200b", "U+200B (zero width space) — delete it"),
        ("\ufeff", "U+FEFF (byte order mark)"),
        ("\u201c", "typographic character '\u201c'"),
    ],
)
def test_full_width_and_hidden_characters(ch, words):
    sql = f"CREATE TABLE t (k1 INT,{ch}k2 INT)"
    err = fail(sql)
    assert isinstance(err, SqlSyntaxError)
    assert words in str(err)
    assert (err.line, err.column) == (1, 24)


def test_hidden_character_on_a_later_line():
    err = fail("CREATE TABLE t (\n  k1 INT,\n  k2\u00a0INT\n)")
    assert (err.line, err.column) == (3, 5)


@pytest.mark.parametrize(
    "data",
    [
        "\x00\x01\x02\x03binary",
        "\ufffd\ufffdPNG\r\n\x1a\n",
        "".join(chr(i) for i in range(1, 32)),
        bytes(range(256)).decode("latin-1"),
    ],
)
def test_binary_garbage(data):
    err = fail(data)
    assert isinstance(err, SqlSyntaxError)


# ----------------------------------------------------------------------------- words


@pytest.mark.parametrize(
    "sql, word, col",
    [
        ("CREATE TABLE t (range INT)", "range", 17),
        ("CREATE TABLE t (k1 INT, `ok` INT, key INT)", "key", 35),
        ("CREATE TABLE t (k1 INT) PARTITION BY RANGE(k1) (PARTITION partition VALUES LESS THAN (1))", "partition", 59),
        ("CREATE TABLE select (k1 INT)", "select", 14),
        ("DROP TABLE table", "table", 12),
    ],
)
def test_reserved_words_need_backquotes(sql, word, col):
    err = fail(sql)
    assert f"'{word}' is a reserved word; write it as `{word}`" in str(err)
    assert err.column == col


def test_backquoted_reserved_words_are_fine():
    (stmt,) = parse("CREATE TABLE `select` (`range` INT, `key` INT, date DATE, comment INT, status INT)", check=False)
    assert [c.name for c in stmt.columns] == ["range", "key", "date", "comment", "status"]


def test_unknown_statement_keyword():
    err = fail("CRATE TABLE t (k1 INT)")
    assert "unknown statement 'CRATE' — did you mean CREATE?" in str(err)
    assert (err.line, err.column) == (1, 1)
    assert "unknown statement 'FROBNICATE'" in str(fail("FROBNICATE everything"))


def test_unknown_type():
    err = fail("CREATE TABLE t (k1 VARCHARR(20))")
    assert "unknown column type 'VARCHARR' — did you mean VARCHAR?" in str(err)
    assert err.column == 20


# ----------------------------------------------------------------------------- not supported


@pytest.mark.parametrize(
    "sql, feature",
    [
        ("CREATE EXTERNAL TABLE t (a INT) ENGINE=hive", "CREATE EXTERNAL TABLE"),
        ("CREATE MATERIALIZED VIEW mv AS SELECT 1", "CREATE MATERIALIZED VIEW"),
        ('CREATE ROUTINE LOAD db.job ON t FROM KAFKA ("kafka_topic" = "x")', "CREATE ROUTINE LOAD"),
        ("EXPLAIN DELETE FROM t WHERE a = 1", "EXPLAIN DELETE"),
        ("SHOW ROUTINE LOAD", "SHOW ROUTINE LOAD"),
        ("CREATE TABLE t (a INT) ENGINE=mysql", "ENGINE=MYSQL (only OLAP tables are managed by dorisql)"),
        ("EXPLAIN GRAPH SELECT 1", "EXPLAIN GRAPH"),
        ("CREATE TABLE t (a INT, b AGG_STATE<max_by(int, int)> GENERIC)", "AGG_STATE columns"),
    ],
)
def test_not_supported(sql, feature):
    err = fail(sql, check=True)
    assert isinstance(err, NotSupportedError), str(err)
    assert err.feature == feature
    assert str(err) == f"not supported: {feature}"


#: Out-of-scope constructs the grammar accepts (their text is kept): the semantic step refuses them.
REFUSED_BY_ANALYSIS = [
    ("ALTER TABLE t ADD (c INT, d ARRAY<INT>) TO r", "ALTER TABLE ... ADD COLUMN", "ADD ("),
    ("ALTER TABLE t ENABLE FEATURE 'BATCH_DELETE'", "ALTER TABLE ... ENABLE FEATURE", "ENABLE FEATURE"),
    ("ALTER TABLE t MODIFY ENGINE TO odbc", "ALTER TABLE ... MODIFY ENGINE", "MODIFY ENGINE"),
]


@pytest.mark.parametrize(
    "sql, feature",
    [
        ("CREATE TABLE t (k1, k2) AS SELECT 1, 2", "CREATE TABLE ... AS SELECT"),
        ("CREATE TABLE t (k INT) DISTRIBUTED BY HASH(k) AS SELECT 1", "CREATE TABLE ... AS SELECT"),
        ("CREATE TABLE t LIKE s WITH ROLLUP", "CREATE TABLE ... LIKE"),
    ],
)
def test_not_supported_forms_the_grammar_does_not_take(sql, feature):
    err = fail(sql)
    assert isinstance(err, NotSupportedError), str(err)
    assert err.feature == feature


@pytest.mark.parametrize("sql, feature, at", REFUSED_BY_ANALYSIS)
def test_not_supported_after_parsing(sql, feature, at):
    """Parsed (the syntax step accepts it and the generator writes it back) but refused by
    parse()'s semantic step, pointing at the construct."""
    from dorisql.syntax.generator import to_sql

    [stmt] = parse(sql, check=False)
    assert parse_one(to_sql(stmt), check=False) == stmt
    err = fail(sql, check=True)
    assert isinstance(err, NotSupportedError), str(err)
    assert err.feature == feature and str(err) == f"not supported: {feature}"
    assert sql[err.column - 1 :].startswith(at), (err.column, sql)


def test_partition_expression_without_auto_is_refused():
    from dorisql.errors import AnalysisError

    sql = "CREATE TABLE t (k DATE NOT NULL) PARTITION BY RANGE (date_trunc(k, 'day')) () DISTRIBUTED BY HASH(k)"
    parse(sql, check=False)
    with pytest.raises(AnalysisError, match="Non-auto partition table not support partition expr"):
        parse(sql)


@pytest.mark.parametrize(
    "sql, feature, at",
    [
        ("ALTER TABLE t ADD ROLLUP r (a, b)", "ALTER TABLE ... ADD ROLLUP", "ADD ROLLUP"),
        ("ALTER TABLE t DROP ROLLUP r", "ALTER TABLE ... DROP ROLLUP", "DROP ROLLUP"),
        ("ALTER TABLE t SET ('a' = 'b'), ADD ROLLUP r (a)", "ALTER TABLE ... ADD ROLLUP", "ADD ROLLUP"),
    ],
)
def test_rollups_are_an_unsupported_operation(sql, feature, at):
    """Doris's words for an operation its deployment cannot do (DdlException "Unsupported
    operation"), with the reason: Delta has no rollup index."""
    from dorisql.errors import UnsupportedOperationError
    from dorisql.syntax.generator import to_sql

    [stmt] = parse(sql, check=False)
    assert parse_one(to_sql(stmt), check=False) == stmt
    err = fail(sql, check=True)
    assert isinstance(err, UnsupportedOperationError) and err.feature == feature
    assert (
        str(err)
        == f"Unsupported operation: {feature} (a Delta table has no rollup index; see docs/compatibility.md, Rollups)"
    )
    assert sql[err.column - 1 :].startswith(at), (err.column, sql)


def test_not_supported_position():
    err = fail(
        "SHOW DATABASES;\nALTER TABLE t\n  ADD PARTITION p1 VALUES LESS THAN ('1'),\n  ADD ROLLUP r (a)", check=True
    )
    assert err.feature == "ALTER TABLE ... ADD ROLLUP"
    assert (err.statement_line, err.line, err.column) == (2, 4, 3)


# ----------------------------------------------------------------------------- size and robustness


def test_one_megabyte_statement_parses():
    rows = ", ".join(f"({i}, 'name {i}', {i}.5, now())" for i in range(30000))
    sql = "INSERT INTO t (a, b, c, d) VALUES " + rows
    assert len(sql) > 1_000_000
    stmt = parse_one(sql, check=False)
    assert len(stmt.rows) == 30000


def test_one_megabyte_of_garbage_fails_cleanly():
    sql = "CREATE TABLE t (" + "k INT, " * 150000 + " ??? )"
    assert len(sql) > 1_000_000
    err = fail(sql)
    assert err.line == 1 and err.column == sql.index("???") + 1
    assert len(err.context.splitlines()[0]) < 300  # the context is cut around the caret


def test_one_megabyte_line_without_end():
    err = fail("SELECT '" + "x" * 1_000_000)
    assert "unterminated string" in str(err) or "cannot read" in str(err)


@pytest.mark.parametrize(
    "sql",
    [
        "",
        ";",
        "   ",
        "-- only a comment",
        "(",
        ")",
        "'",
        "`",
        "/*",
        "*/",
        ",",
        "SELECT",
        "WITH",
        "EXPLAIN",
        "DESC",
        "INSERT",
        "SET",
        "HELP",
        "SHOW",
        "((((((",
        "CREATE TABLE t (" + "(" * 5000,
        "@@",
        "@",
        "$",
        "\\",
        "CREATE TABLE t (k ARRAY<ARRAY<INT>>>)",
        "SHOW PARTITIONS FROM t WHERE (((a = 1",
    ],
)
def test_never_another_exception(sql):
    try:
        parse(sql, check=False)
    except DorisqlError as e:
        assert isinstance(e, (SqlSyntaxError, NotSupportedError))
        assert e.line is not None


def test_parse_one_needs_exactly_one_statement():
    with pytest.raises(SqlSyntaxError, match="expected one statement, found 2"):
        parse_one("SHOW DATABASES; SHOW TABLES")
    with pytest.raises(SqlSyntaxError, match="empty statement"):
        parse_one("  -- nothing\n")


def test_shift_error_moves_a_statement_error_into_its_script():
    from dorisql.syntax import shift_error

    with pytest.raises(SqlSyntaxError) as info:
        parse_one("CREATE TABLE t (k1 INT COMMENT 'abc\n)", check=False)
    err = shift_error(info.value, 5, 3)
    assert (err.statement_line, err.line, err.column) == (5, 5, 34)
    assert str(err) == (
        "Syntax error at line 5, column 34: unterminated string — the quote ' at line 5, column 34 is never closed"
    )
