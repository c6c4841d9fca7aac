"""Stream Load, pure: headers as options (Doris's defaults and refusals) and the response body."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.statements.load.stream_load_options import ColumnMapping, Outcome, parse_options, response


def test_defaults_are_dorises():
    options = parse_options({"label": "l1"})
    assert (options.label, options.format, options.column_separator, options.line_delimiter) == (
        "l1",
        "csv",
        "\t",
        "\n",
    )
    assert options.max_filter_ratio == 0.0 and not options.strict_mode and not options.strip_outer_array
    assert len(parse_options({}).label) == 36  # no label: a generated UUID, as Doris does


def test_headers_are_read_case_insensitively_with_separators_decoded():
    options = parse_options(
        {
            "Label": "a-b_c:1",
            "FORMAT": "JSON",
            "column_separator": "\\x01",
            "line_delimiter": "\\n",
            "columns": "k1, tmp, `v` = concat(tmp, ','), k2=k1 * 2",
            "where": "k1 > 1",
            "partitions": "p1, p2",
            "max_filter_ratio": "0.25",
            "strict_mode": "TRUE",
            "read_json_by_line": "true",
        }
    )
    assert options.format == "json" and options.column_separator == "\x01" and options.line_delimiter == "\n"
    assert options.columns == (
        ColumnMapping("k1"),
        ColumnMapping("tmp"),
        ColumnMapping("v", "concat(tmp, ',')"),
        ColumnMapping("k2", "k1 * 2"),
    )
    assert options.file_columns == ("k1", "tmp")
    assert options.partitions == ("p1", "p2") and options.max_filter_ratio == 0.25
    assert options.strict_mode and options.read_json_by_line and options.where == "k1 > 1"


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"label": "bad label!"}, "Label format error"),
        ({"format": "xml"}, "unknown data format: xml"),
        ({"max_filter_ratio": "2"}, r"Invalid max_filter_ratio '2'"),
        ({"strict_mode": "yes"}, "Invalid strict_mode value 'yes'"),
        ({"column_separator": ""}, "column_separator cannot be empty"),
        ({"columns": "a, , b"}, "an empty column name"),
        ({"columns": "a, a"}, "Duplicate column: a"),
        ({"columns": "a = "}, "no expression after 'a ='"),
    ],
)
def test_bad_headers_are_refused(headers, message):
    with pytest.raises(AnalysisError, match=message):
        parse_options(headers)


def test_unsupported_features_say_so():
    with pytest.raises(NotSupportedError, match="Stream Load format parquet"):
        parse_options({"format": "parquet"})
    with pytest.raises(NotSupportedError, match="two_phase_commit"):
        parse_options({"two_phase_commit": "true"})


def test_the_response_has_dorises_keys_in_order():
    body = response(Outcome(label="l1", txn_id=7, total_rows=3, loaded_rows=2, filtered_rows=1, error_url="http://x"))
    assert list(body)[:6] == ["TxnId", "Label", "Comment", "TwoPhaseCommit", "Status", "Message"]
    assert body["Status"] == "Success" and body["ErrorURL"] == "http://x" and "ExistingJobStatus" not in body
    for key in ("NumberTotalRows", "NumberLoadedRows", "NumberFilteredRows", "NumberUnselectedRows", "LoadBytes"):
        assert key in body
    exists = response(Outcome(label="l1", status="Label Already Exists", existing_job_status="FINISHED"))
    assert exists["ExistingJobStatus"] == "FINISHED" and "ErrorURL" not in exists


@pytest.mark.parametrize(
    ("header", "zone"),
    [
        ("Asia/Shanghai", "Asia/Shanghai"),
        ("cst", "Asia/Shanghai"),
        ("UTC", "UTC"),
        ("+08:00", "+08:00"),
        ("-14:00", "-14:00"),
    ],
)
def test_the_timezone_header_names_a_zone(header, zone):
    assert parse_options({"label": "l", "timezone": header}).timezone == zone


@pytest.mark.parametrize("header", ["Mars/Olympus", "+15:00", "+08:61", "../etc/passwd", "8"])
def test_an_unknown_timezone_is_refused_with_dorises_message(header):
    with pytest.raises(AnalysisError) as info:
        parse_options({"label": "l", "timezone": header})
    assert str(info.value) == f"Unknown or incorrect time zone: '{header}'"


def test_every_doris_header_is_known_and_none_is_dropped_silently():
    """One table says what dorisql does with each of Doris's headers; the refused ones fail
    unless they ask for nothing (their neutral value), naming the header."""
    from dorisql.statements.load.stream_load_options import HEADERS, REFUSED

    assert {"merge_type", "delete", "jsonpaths", "json_root", "enclose", "escape", "trim_double_quotes"} <= set(HEADERS)
    for name in ("hidden_columns", "compress_type", "negative", "group_commit", "sql", "txn_operation"):
        assert HEADERS[name] == REFUSED
        with pytest.raises(NotSupportedError, match=name):
            parse_options({name: "gz" if name == "compress_type" else "true"})
    for neutral in ({"negative": "false"}, {"group_commit": "off_mode"}, {"two_phase_commit": "false"}):
        parse_options(neutral)
    # not Doris's headers: ignored, as Doris ignores them
    parse_options({"Expect": "100-continue", "Content-Length": "10", "X-Anything": "1"})


def test_csv_json_and_merge_options_are_read():
    o = parse_options(
        {
            "enclose": "'",
            "escape": "\\",
            "trim_double_quotes": "true",
            "skip_lines": "2",
            "jsonpaths": '["$.id", "$.info.name"]',
            "json_root": "$.data",
            "merge_type": "merge",
            "delete": "flag = 1",
            "time_zone": "UTC",
        }
    )
    assert (o.enclose, o.escape, o.trim_double_quotes, o.skip_lines) == ("'", "\\", True, 2)
    assert (o.jsonpaths, o.json_root) == (("$.id", "$.info.name"), "$.data")
    assert (o.merge_type, o.delete, o.timezone) == ("MERGE", "flag = 1", "UTC")
    assert parse_options({"merge_type": "DELETE"}).merge_type == "DELETE"
    assert parse_options({}).merge_type == "APPEND" and parse_options({}).enclose is None


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"merge_type": "UPSERT"}, "Invalid merge type UPSERT"),
        ({"merge_type": "MERGE"}, "Excepted DELETE ON clause when merge type is MERGE."),
        ({"merge_type": "DELETE", "delete": "k = 1"}, "Not support DELETE ON clause when merge type is not MERGE."),
        ({"delete": "k = 1"}, "Not support DELETE ON clause when merge type is not MERGE."),
        ({"enclose": "''"}, "enclose must be single-char, actually is ''"),
        ({"escape": "ab"}, "escape must be single-char, actually is ab"),
        ({"skip_lines": "-1"}, "skipLines should not be less than 0."),
        ({"skip_lines": "x"}, "Invalid skip_lines value 'x'"),
        ({"jsonpaths": "$.id"}, "Invalid json path: \\$.id"),
        ({"jsonpaths": "[1]"}, "Invalid json path"),
        ({"partitions": "p1", "temporary_partitions": "tp1"}, "Can not specify both partitions and temporary"),
        ({"unique_key_update_mode": "X"}, "Invalid unique_key_update_mode X"),
    ],
)
def test_bad_option_values_get_dorises_messages(headers, message):
    with pytest.raises(AnalysisError, match=message):
        parse_options(headers)
