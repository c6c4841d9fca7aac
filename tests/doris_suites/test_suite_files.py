"""The pure tier's part of the Doris suites harness: the suites are well formed, and values are
written as Doris's regression framework writes them (no Spark here)."""

from __future__ import annotations

import pytest

from suite_runner import as_out_value, java_datetime, java_double, load_suite, parse_out, parse_sql, suite_names


@pytest.mark.parametrize("name", suite_names())
def test_every_tag_has_its_block_and_every_block_a_tag(name: str) -> None:
    suite = load_suite(name)
    tags = [check.name for _, check in suite.checks() if check.kind == "tag"]
    assert sorted(tags) == sorted(suite.blocks), f"{name}: .sql tags {tags}, .out blocks {list(suite.blocks)}"
    assert suite.statements, f"{name}: no statements"


@pytest.mark.parametrize("name", suite_names())
def test_suite_cites_its_doris_source(name: str) -> None:
    from suite_runner import SUITES

    text = (SUITES / f"{name}.sql").read_text()
    assert "regression-test/suites/" in text and f"{name}.groovy" in text


def test_annotations_attach_to_the_next_statement() -> None:
    statements = parse_sql(
        "-- a comment\n-- !q1\nSELECT 1;\n\n-- rows 2\n-- !q1 order\nSHOW TABLES;\n"
        "-- exception is intersected with range\nALTER TABLE t\n  ADD PARTITION p VALUES LESS THAN ('1');\n"
        "SELECT 2;\n-- try\n/* c */ DROP TABLE x;\n"
    )
    assert [s.line for s in statements] == [3, 7, 9, 11, 13]
    q1, show, alter, plain, drop = statements
    assert [(c.kind, c.name) for c in q1.checks] == [("tag", "q1")]
    assert [(c.kind, c.name, c.ordered) for c in show.checks] == [("rows", "rows", True), ("tag", "q1#2", False)]
    assert [(c.kind, c.arg) for c in alter.checks] == [("exception", "is intersected with range")]
    assert plain.checks == [] and [c.kind for c in drop.checks] == ["try"]


def test_out_blocks_repeat_tags_and_keep_empty_results() -> None:
    blocks = parse_out("-- generated\n-- !sql --\n1\t\\N\n2\tb\n\n-- !sql --\n\n-- !other --\nx\n")
    assert blocks == {"sql": [["1", "\\N"], ["2", "b"]], "sql#2": [], "other": [["x"]]}


def test_values_as_the_regression_framework_writes_them() -> None:
    assert java_datetime("2011-01-01 00:00:00") == "2011-01-01T00:00"
    assert java_datetime("2011-01-01 08:09:10") == "2011-01-01T08:09:10"
    assert java_datetime("2011-01-01 00:00:00.123000") == "2011-01-01T00:00:00.123"
    assert java_datetime("2011-01-01 00:00:00.123456") == "2011-01-01T00:00:00.123456"
    assert [java_double(t) for t in ("1.0", "505.55522", "10000000.0", "1.5e-05", "0.001")] == [
        "1.0",
        "505.55522",
        "1.0E7",
        "1.5E-5",
        "0.001",
    ]
    assert as_out_value(None, "int") == "\\N"
    assert as_out_value("1", "bool") == "true"
    assert as_out_value("7395.2310670", "decimal") == "7395.2310670"
