"""The whole Doris DDL corpus (tests/data/corpus): every statement parses (the grammar also
accepts the Doris features dorisql does not implement), every parsed statement survives
generate -> parse unchanged, and the out-of-scope ones are then refused by the semantic step
with a clear "not supported" error."""

from __future__ import annotations

import re

import pytest

from dorisql import ast
from dorisql.errors import DorisqlError, NotSupportedError
from dorisql.syntax import parse, parse_statement
from dorisql.syntax.generator import to_sql

from .helpers import CORPUS, corpus_entries

ENTRIES = corpus_entries()

TEXTS = {e["file"]: (CORPUS / e["file"]).read_text(encoding="utf-8") for e in ENTRIES}


def _syntax(text: str):
    """(statement, None) or (None, error): the parse step alone, no semantic checks."""
    try:
        return parse_statement(text), None
    except DorisqlError as e:
        return None, e


#: Computed once: file -> (statement | None, error | None).
SYNTAX = {f: _syntax(t) for f, t in TEXTS.items()}
PARSED = [e for e in ENTRIES if SYNTAX[e["file"]][0] is not None]


def _unsupported_feature(stmt: ast.Statement) -> str | None:
    """The feature a parsed statement uses that dorisql does not implement (the first one the
    semantic step refuses), from the AST alone."""
    if isinstance(stmt, ast.AlterTable):
        for a in stmt.actions:
            if isinstance(a, ast.UnsupportedAlter):
                return a.feature
    return None


UNSUPPORTED = [(e, _unsupported_feature(SYNTAX[e["file"]][0])) for e in PARSED]
UNSUPPORTED = [(e, f) for e, f in UNSUPPORTED if f is not None]

#: Corpus feature tags of out-of-scope constructs -> the feature the error must name.
TAG_FEATURES: dict[str, set[str]] = {}


def _tagged_features(entry) -> set[str] | None:
    """The features an entry's tags say it uses out of scope (None: no such tag)."""
    found: set[str] = set()
    for tag in entry["features"]:
        found |= TAG_FEATURES.get(tag, set())
    if entry["kind"] == "alter_table" and "rollup" in entry["features"]:
        found |= {"ALTER TABLE ... ADD ROLLUP", "ALTER TABLE ... DROP ROLLUP"}
    return found or None


def test_the_index_describes_every_corpus_file():
    assert len(ENTRIES) >= 170
    assert sorted(e["file"] for e in ENTRIES) == sorted(p.name for p in CORPUS.glob("*.sql"))


def test_parse_rate():
    """At least 95% of ALL corpus statements parse at the syntax level (out-of-scope ones
    included: they are refused later, by the semantic step)."""
    rate = len(PARSED) / len(ENTRIES)
    failed = {f: str(err) for f, (stmt, err) in SYNTAX.items() if stmt is None}
    print(f"corpus: {len(PARSED)}/{len(ENTRIES)} statements parse ({rate:.1%})")
    assert rate >= 0.95, (f"{len(PARSED)}/{len(ENTRIES)} statements parse ({rate:.1%})", failed)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_a_statement_that_does_not_parse_fails_cleanly(entry):
    stmt, err = SYNTAX[entry["file"]]
    if stmt is None:
        assert err.line is not None and err.column is not None
        assert err.context and "^" in err.context


@pytest.mark.parametrize("entry", PARSED, ids=[e["file"] for e in PARSED])
def test_round_trip(entry):
    stmt = SYNTAX[entry["file"]][0]
    sql = to_sql(stmt)
    assert parse_statement(sql) == stmt
    assert to_sql(parse_statement(sql)) == sql


def test_every_out_of_scope_statement_parses():
    """Statements tagged with an out-of-scope feature are accepted by the grammar, and the AST
    shows that feature."""
    tagged = [e for e in ENTRIES if _tagged_features(e)]
    # schema change, MODIFY PARTITION, CTAS/LIKE, AUTO PARTITION and generated columns are implemented since
    assert tagged
    found = dict((e["file"], f) for e, f in UNSUPPORTED)
    for e in tagged:
        stmt, err = SYNTAX[e["file"]]
        assert stmt is not None, (e["file"], err)
        assert found.get(e["file"]) in _tagged_features(e), (e["file"], found.get(e["file"]))


@pytest.mark.parametrize("entry, feature", UNSUPPORTED, ids=[e["file"] for e, _ in UNSUPPORTED])
def test_out_of_scope_statement_is_refused_by_the_semantic_step(entry, feature):
    text = TEXTS[entry["file"]]
    with pytest.raises(NotSupportedError) as info:
        parse(text)
    err = info.value
    assert err.feature == feature
    assert str(err).startswith(
        f"Unsupported operation: {feature} (" if "ROLLUP" in feature else f"not supported: {feature}"
    )
    assert err.statement_line is not None
    assert err.line is not None and err.column is not None
    assert err.context and err.context.splitlines()[-1].rstrip().endswith("^")
    # the caret points at the construct: its first word starts at line/column
    first_word = {
        "CREATE TABLE ... AS SELECT": "AS",
        "CREATE TABLE ... LIKE": "LIKE",
    }.get(feature) or feature.split()[3]
    line = text.splitlines()[err.line - 1]
    assert re.match(first_word, line[err.column - 1 :], re.IGNORECASE), (line, err.column)


def test_generated_column_statements_pass_the_checks():
    """Corpus CREATE TABLEs with generated columns (Doris 2.1) pass every check now."""
    tagged = [e for e in ENTRIES if "generated_column" in e["features"]]
    assert tagged
    for e in tagged:
        (stmt,) = parse(TEXTS[e["file"]])
        assert any(c.generated is not None for c in stmt.columns), e["file"]


def test_schema_change_statements_parse_to_their_actions():
    """Corpus ALTERs tagged column_change / modify_partition are implemented statements now."""
    from dorisql import ast

    tagged = [e for e in ENTRIES if {"column_change", "modify_partition"} & set(e["features"])]
    assert tagged
    for e in tagged:
        stmt, err = SYNTAX[e["file"]]
        assert stmt is not None, (e["file"], err)
        kinds = (ast.AddColumns, ast.DropColumn, ast.ModifyColumn, ast.ModifyColumnComment, ast.ModifyPartition)
        assert stmt.actions and all(isinstance(a, kinds) for a in stmt.actions), (e["file"], stmt.actions)


def test_out_of_scope_features_are_named():
    features = {f for _, f in UNSUPPORTED}
    assert features >= {
        "ALTER TABLE ... ADD ROLLUP",
        "ALTER TABLE ... DROP ROLLUP",
        "ALTER TABLE ... ENABLE FEATURE",
        "ALTER TABLE ... MODIFY ENGINE",
    }


def test_semantically_wrong_statements_still_parse():
    """Statements the corpus marks "expected to fail semantically" are valid syntax: the parse
    step alone accepts them (semantic checks are dorisql.analysis.checks's job)."""
    marked = [e for e in ENTRIES if "expected to fail semantically" in e.get("note", "")]
    assert marked
    for e in marked:
        stmt, err = SYNTAX[e["file"]]
        assert stmt is not None, (e["file"], err)


def test_out_of_scope_statements_survive_the_catalog_codec():
    """The new AST nodes and fields are plain dataclasses with defaults: the JSON codec takes them."""
    from dorisql.catalog.codec import decode, encode

    for entry, _ in UNSUPPORTED:
        stmt = SYNTAX[entry["file"]][0]
        assert decode(encode(stmt)) == stmt


def test_auto_partition_statements_are_accepted():
    """AUTO PARTITION is implemented: the corpus's AUTO PARTITION tables pass the semantic step,
    except where Doris refuses them too (a nullable AUTO RANGE column, dynamic partitions of
    another unit)."""
    refused = {}
    entries = [e for e in ENTRIES if "auto_partition" in e["features"]]
    for e in entries:
        try:
            parse(TEXTS[e["file"]])
        except DorisqlError as err:
            refused[e["file"]] = str(err)
    assert len(entries) - len(refused) >= 15
    assert set(refused.values()) <= {
        "AUTO RANGE PARTITION doesn't support NULL column",
        "If support auto partition and dynamic partition at same time, they must have the same interval unit.",
    }
