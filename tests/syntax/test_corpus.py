"""The whole dev corpus: every statement parses or is refused as "not supported", and every
parsed statement survives generate -> parse unchanged."""

from __future__ import annotations

import pytest

from dorisql.errors import NotSupportedError
from dorisql.generator import to_sql
from dorisql.syntax import parse_statement

from .helpers import CORPUS, corpus_entries

ENTRIES = corpus_entries()
pytestmark = pytest.mark.skipif(
    not ENTRIES, reason=f"dev corpus not found at {CORPUS} (expected ../shared/corpus/dev next to the repo)"
)

#: Corpus feature tags that dorisql does not implement: such statements may be refused.
OUT_OF_SCOPE = {"auto_partition", "generated_column", "ctas", "column_change", "modify_partition", "like"}


def _out_of_scope(entry) -> bool:
    features = set(entry["features"])
    # CREATE TABLE ... ROLLUP (...) is parsed; ALTER TABLE ... ADD/DROP ROLLUP is not implemented
    return bool(features & OUT_OF_SCOPE) or (entry["kind"] == "alter_table" and "rollup" in features)


def _parse(entry):
    text = (CORPUS / entry["file"]).read_text(encoding="utf-8")
    try:
        return parse_statement(text), None
    except NotSupportedError as e:
        return None, e


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_statement_parses_or_is_not_supported(entry):
    stmt, refused = _parse(entry)
    if refused is not None:
        assert refused.feature, "a not-supported error must name the feature"
        assert refused.line is not None and refused.column is not None
        assert refused.context and "^" in refused.context
    else:
        assert stmt is not None


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_round_trip(entry):
    stmt, refused = _parse(entry)
    if refused is not None:
        pytest.skip(f"not supported: {refused.feature}")
    assert parse_statement(to_sql(stmt)) == stmt


def test_parse_rate():
    """At least 95% of the corpus parses, counting only statements without out-of-scope
    features (the others must be refused cleanly, which the test above checks)."""
    in_scope = [e for e in ENTRIES if not _out_of_scope(e)]
    parsed = [e for e in in_scope if _parse(e)[0] is not None]
    rate = len(parsed) / len(in_scope)
    print(f"corpus: {len(parsed)}/{len(in_scope)} in-scope statements parse ({rate:.1%}); "
          f"{sum(_parse(e)[0] is not None for e in ENTRIES)}/{len(ENTRIES)} overall")
    assert rate >= 0.95, f"{len(parsed)}/{len(in_scope)} in-scope statements parse ({rate:.1%})"


def test_semantically_wrong_statements_still_parse():
    """Statements the corpus marks "expected to fail semantically" are valid syntax: the parse
    step alone accepts them (semantic checks are dorisql.analysis's job)."""
    marked = [e for e in ENTRIES if "expected to fail semantically" in e.get("note", "")
              and not _out_of_scope(e)]
    assert marked
    for e in marked:
        stmt, refused = _parse(e)
        assert stmt is not None, (e["file"], refused)


def test_out_of_scope_features_are_named():
    features = {}
    for e in ENTRIES:
        _, refused = _parse(e)
        if refused is not None:
            features[e["file"]] = refused.feature
    auto = [e["file"] for e in ENTRIES if "auto_partition" in e["features"]]
    assert auto and all(features.get(f) == "AUTO PARTITION" for f in auto)
    assert set(features.values()) >= {"AUTO PARTITION", "generated columns", "CREATE TABLE ... AS SELECT",
                                      "CREATE TABLE ... LIKE"}
