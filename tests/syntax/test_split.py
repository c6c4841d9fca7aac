"""split_statements and is_complete: delimiters inside strings, names and comments do not count."""

from __future__ import annotations

import pytest

from dorisql.syntax import is_complete, parse, split_statements


def texts(sql, **kw):
    return [t for t, _, _ in split_statements(sql, **kw)]


def test_simple_split_with_positions():
    sql = "SHOW DATABASES;\n  USE db1 ;SHOW TABLES;\n\n-- c\nDESC t"
    assert split_statements(sql) == [
        ("SHOW DATABASES", 1, 1),
        ("USE db1", 2, 3),
        ("SHOW TABLES", 2, 12),
        ("DESC t", 5, 1),
    ]


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELECT 'a;b'; SELECT 2", ["SELECT 'a;b'", "SELECT 2"]),
        ('SELECT "a;b"; SELECT 2', ['SELECT "a;b"', "SELECT 2"]),
        ("SELECT `a;b` FROM t; SELECT 2", ["SELECT `a;b` FROM t", "SELECT 2"]),
        ("SELECT 'it''s;'; SELECT 2", ["SELECT 'it''s;'", "SELECT 2"]),
        ("SELECT 'a\\';b'; SELECT 2", ["SELECT 'a\\';b'", "SELECT 2"]),
        ("SELECT 1 -- x;y\n; SELECT 2", ["SELECT 1 -- x;y", "SELECT 2"]),
        ("SELECT 1 # x;y\n; SELECT 2", ["SELECT 1 # x;y", "SELECT 2"]),
        ("SELECT 1 /* x;\ny */; SELECT 2", ["SELECT 1 /* x;\ny */", "SELECT 2"]),
        (";;; ;\n;", []),
        ("-- only\n/* comments */ ; # here", []),
        ("SELECT 1;;SELECT 2;", ["SELECT 1", "SELECT 2"]),
        ("SELECT 'unterminated; SELECT 2", ["SELECT 'unterminated; SELECT 2"]),
        ("SELECT 1; /* unterminated ; comment", ["SELECT 1", "/* unterminated ; comment"]),
    ],
)
def test_delimiters_inside_quotes_and_comments(sql, expected):
    assert texts(sql) == expected


def test_leading_comments_are_not_part_of_the_statement():
    [(text, line, col)] = split_statements("-- Range Partition\n\n  /* x */ CREATE DATABASE d")
    assert (text, line, col) == ("CREATE DATABASE d", 3, 11)


def test_custom_delimiter():
    sql = "DELIMITER //\nSELECT 1; SELECT 2 //\nSELECT '//' //"
    assert texts(sql[len("DELIMITER //\n") :], delimiter="//") == ["SELECT 1; SELECT 2", "SELECT '//'"]
    assert texts("a $$ b $$", delimiter="$$") == ["a", "b"]
    with pytest.raises(ValueError):
        split_statements("x", delimiter="")


def test_statement_positions_feed_error_positions():
    stmts = parse("SHOW DATABASES; SHOW TABLES;\n\n  SHOW DATA", check=False)
    assert [(s.pos.line, s.pos.column) for s in stmts] == [(1, 1), (1, 17), (3, 3)]
    assert [s.text for s in stmts] == ["SHOW DATABASES", "SHOW TABLES", "SHOW DATA"]


@pytest.mark.parametrize(
    "text, complete",
    [
        ("SELECT 1;", True),
        ("SELECT 1;  \n", True),
        ("SELECT 1; -- done", True),
        ("SELECT 1; /* done */", True),
        ("SELECT 1", False),
        ("SELECT 'a;", False),
        ("SELECT 'a;';", True),
        ('SELECT "a', False),
        ("SELECT `a;", False),
        ("SELECT 1 /* ; ", False),
        ("SELECT 1 /* ; */", False),
        ("SELECT 1 -- ;", False),
        ("SELECT 1; SELECT 2", False),
        ("SELECT 1; SELECT 2;", True),
        ("", False),
        ("   ", False),
        (";", True),
        ("CREATE TABLE t (\n  k INT COMMENT 'x;y'\n)", False),
        ("CREATE TABLE t (\n  k INT COMMENT 'x;y'\n);", True),
    ],
)
def test_is_complete(text, complete):
    assert is_complete(text) is complete


def test_is_complete_with_delimiter():
    assert is_complete("SELECT 1; SELECT 2 //", delimiter="//")
    assert not is_complete("SELECT 1;", delimiter="//")
    assert not is_complete("SELECT '//", delimiter="//")


def test_completion_tracker_fed_line_by_line_agrees_with_is_complete():
    """The tracker carries open strings, quoted names, comments (and a line comment cut at a
    line break other than \\n) from one line to the next: after every line it says what
    is_complete says of all the text so far."""
    import random

    from dorisql.syntax.split import CompletionTracker

    atoms = [";", ";", "'", '"', "`", "/*", "*/", "--", "#", "\n", "\n", "\r", "\x0c", " ", "a", "\\", "//", "$$"]
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(0, 16)))
        for delimiter in (";", "//", "$$"):
            tracker, seen = CompletionTracker(delimiter), ""
            for line in text.splitlines(keepends=True):
                seen += line
                assert tracker.feed(line) == is_complete(seen, delimiter), (seen, delimiter)
