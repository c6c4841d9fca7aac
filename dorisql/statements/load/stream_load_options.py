"""Stream Load, pure: the request's headers as options, and Doris's JSON response.

Every header Doris's Stream Load knows (be/src/http/http_common.h, the stream-load manual) is in
`HEADERS` with what dorisql does with it: honoured, accepted (a tuning knob of Doris's backends
with no effect on the rows loaded), or refused (NotSupportedError naming the header, or Doris's
own message) unless it has its neutral value. Headers that are not Doris's (``Expect``,
``Content-Length``, ``Authorization``, ...) are ignored, as Doris ignores them. No Spark here:
dorisql.statements.load.stream_load loads.
"""

from __future__ import annotations

import dataclasses
import json
import re
import uuid
from collections.abc import Mapping

from dorisql.errors import AnalysisError, NotSupportedError

__all__ = ["StreamLoadOptions", "ColumnMapping", "parse_options", "decode_separator", "response", "Outcome"]

_FORMATS = ("csv", "csv_with_names", "json")

HONOURED, ACCEPTED, REFUSED = "honoured", "accepted", "refused"

#: Every Stream Load header of Doris (be/src/http/http_common.h): what dorisql does with it.
#: ACCEPTED headers tune Doris's backends (memory, parallelism, profiling, time limits) and do not
#: change which rows are loaded; REFUSED ones fail the load unless they have their neutral value.
HEADERS: dict[str, str] = {
    "label": HONOURED,
    "format": HONOURED,
    "columns": HONOURED,
    "where": HONOURED,
    "column_separator": HONOURED,
    "line_delimiter": HONOURED,
    "enclose": HONOURED,
    "escape": HONOURED,
    "trim_double_quotes": HONOURED,
    "skip_lines": HONOURED,
    "max_filter_ratio": HONOURED,
    "partitions": HONOURED,
    "temporary_partitions": HONOURED,
    "strict_mode": HONOURED,
    "timezone": HONOURED,
    "time_zone": HONOURED,
    "jsonpaths": HONOURED,
    "json_root": HONOURED,
    "strip_outer_array": HONOURED,
    "read_json_by_line": HONOURED,
    "num_as_string": HONOURED,  # numbers are always read as their text: exact
    "merge_type": HONOURED,
    "delete": HONOURED,
    "comment": HONOURED,
    "fuzzy_parse": ACCEPTED,  # a parsing shortcut: the same rows either way
    "timeout": ACCEPTED,
    "exec_mem_limit": ACCEPTED,
    "send_batch_parallelism": ACCEPTED,
    "load_to_single_tablet": ACCEPTED,
    "memtable_on_sink_node": ACCEPTED,
    "load_stream_per_node": ACCEPTED,
    "enable_profile": ACCEPTED,
    "cloud_cluster": ACCEPTED,
    "function_column.sequence_col": REFUSED,  # checked against the table: stream_load.check_table_options
    "partial_columns": REFUSED,  # likewise
    "unique_key_update_mode": REFUSED,  # likewise (UPSERT is the default)
    "partial_update_new_key_behavior": ACCEPTED,  # with partial_columns (statements.load.partial_update)
    "hidden_columns": REFUSED,
    "negative": REFUSED,
    "compress_type": REFUSED,
    "two_phase_commit": REFUSED,
    "txn_id": REFUSED,
    "txn_operation": REFUSED,
    "group_commit": REFUSED,
    "sql": REFUSED,
}
#: The value a REFUSED header may have all the same: it asks for nothing dorisql lacks.
_NEUTRAL = {
    "negative": ("false",),
    "two_phase_commit": ("false",),
    "group_commit": ("off_mode",),
    "partial_columns": ("false",),
    "unique_key_update_mode": ("upsert",),
    "compress_type": ("plain",),
}
_MERGE_TYPES = ("APPEND", "DELETE", "MERGE")
_HEX = re.compile(r"\\x([0-9a-fA-F]{2})")


@dataclasses.dataclass(frozen=True)
class ColumnMapping:
    """One item of the ``columns`` header: a file column (`expr` None) or ``name = expr``."""

    name: str
    expr: str | None = None


@dataclasses.dataclass(frozen=True)
class StreamLoadOptions:
    label: str
    format: str = "csv"
    column_separator: str = "\t"
    line_delimiter: str = "\n"
    columns: tuple[ColumnMapping, ...] = ()
    where: str | None = None
    partitions: tuple[str, ...] = ()
    temporary_partitions: bool = False
    max_filter_ratio: float = 0.0
    strict_mode: bool = False
    timezone: str | None = None
    strip_outer_array: bool = False
    read_json_by_line: bool = False
    comment: str = ""
    #: CSV: the enclosing and escape characters (one each), Doris's trim_double_quotes, skip_lines.
    enclose: str | None = None
    escape: str | None = None
    trim_double_quotes: bool = False
    skip_lines: int = 0
    #: JSON: the values' paths, in the order of the file's columns, and the root of each document.
    jsonpaths: tuple[str, ...] = ()
    json_root: str | None = None
    #: APPEND | DELETE (every row deletes its key) | MERGE (rows matching `delete` delete).
    merge_type: str = "APPEND"
    delete: str | None = None
    #: Checked against the table before the load (stream_load.check_table_options).
    sequence_col: str | None = None
    partial_columns: bool = False
    #: unique_key_update_mode UPDATE_FLEXIBLE_COLUMNS (each JSON row its own columns)
    flexible_columns: bool = False
    #: APPEND (a new key's row is inserted) | ERROR (refused): partial_update_new_key_behavior
    new_key_behavior: str = "APPEND"

    @property
    def file_columns(self) -> tuple[str, ...]:
        """The columns each row of the file holds, in order (``columns`` items without ``=``)."""
        return tuple(c.name for c in self.columns if c.expr is None)


def decode_separator(value: str, what: str) -> str:
    """A separator as Doris reads it: ``\\t``/``\\n`` escapes and ``\\xNN`` hex bytes."""
    text = _HEX.sub(lambda m: chr(int(m.group(1), 16)), value)
    text = text.replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r")
    if text == "":
        raise AnalysisError(f"{what} cannot be empty")
    return text


def _bool(headers: Mapping[str, str], name: str, default: bool) -> bool:
    value = headers.get(name)
    if value is None or value.strip() == "":
        return default
    lowered = value.strip().lower()
    if lowered not in ("true", "false"):
        raise AnalysisError(f"Invalid {name} value '{value}': expected true or false")
    return lowered == "true"


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets and quotes (``v = concat(a, b)`` stays one item)."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items]


_NAME = re.compile(r"`([^`]+)`|([A-Za-z_][A-Za-z0-9_$]*)")


def parse_columns(text: str) -> tuple[ColumnMapping, ...]:
    result = []
    for item in _split_top_level(text):
        if not item:
            raise AnalysisError(f"Invalid columns header '{text}': an empty column name")
        name_text, eq, expr = item.partition("=")
        m = _NAME.fullmatch(name_text.strip())
        if m is None:
            raise AnalysisError(f"Invalid columns header '{text}': '{name_text.strip()}' is not a column name")
        name = m.group(1) or m.group(2)
        if eq and not expr.strip():
            raise AnalysisError(f"Invalid columns header '{text}': no expression after '{name} ='")
        result.append(ColumnMapping(name, expr.strip() if eq else None))
    seen: set[str] = set()
    for c in result:
        if c.name.lower() in seen:
            raise AnalysisError(f"Duplicate column: {c.name}")
        seen.add(c.name.lower())
    return tuple(result)


def parse_options(headers: Mapping[str, str]) -> StreamLoadOptions:
    """The load's options from its HTTP headers (names case-insensitive). Raises AnalysisError
    (a header's value is wrong) or NotSupportedError."""
    h = {k.lower(): v for k, v in headers.items()}
    label = (h.get("label") or "").strip() or str(uuid.uuid4())
    if len(label) > 128 or not re.fullmatch(r"[-_A-Za-z0-9:]+", label):
        raise AnalysisError(
            f"Label format error. regex: ^[-_A-Za-z0-9:]{{1,128}}$, label: {label}"
        )  # Doris FeNameFormat.checkLabel
    fmt = (h.get("format") or "csv").strip().lower()
    if fmt not in _FORMATS:
        if fmt in ("parquet", "orc", "csv_with_names_and_types", "arrow"):
            raise NotSupportedError(f"Stream Load format {fmt}")
        raise AnalysisError(f"unknown data format: {fmt}")
    _refuse_unsupported(h)
    ratio_text = h.get("max_filter_ratio")
    ratio = 0.0
    if ratio_text is not None and ratio_text.strip():
        try:
            ratio = float(ratio_text)
        except ValueError:
            raise AnalysisError(f"Invalid max_filter_ratio '{ratio_text}': expected a number in [0, 1]") from None
        if not 0.0 <= ratio <= 1.0:
            raise AnalysisError(f"Invalid max_filter_ratio '{ratio_text}': expected a number in [0, 1]")
    partitions_text = h.get("partitions") or h.get("temporary_partitions") or ""
    partitions = tuple(p.strip() for p in partitions_text.split(",") if p.strip())
    columns = parse_columns(h["columns"]) if (h.get("columns") or "").strip() else ()
    if h.get("partitions") and h.get("temporary_partitions"):
        raise AnalysisError("Can not specify both partitions and temporary partitions")
    # merge_type and delete: Doris's BE checks (StreamLoadAction::_process_put)
    merge_type = (h.get("merge_type") or "").strip().upper() or "APPEND"
    if merge_type not in _MERGE_TYPES:
        raise AnalysisError(f"Invalid merge type {h['merge_type']}")
    delete = (h.get("delete") or "").strip() or None
    if merge_type == "MERGE" and delete is None:
        raise AnalysisError("Excepted DELETE ON clause when merge type is MERGE.")
    if merge_type != "MERGE" and delete is not None:
        raise AnalysisError("Not support DELETE ON clause when merge type is not MERGE.")
    partial = _bool(h, "partial_columns", False)
    update_mode = (h.get("unique_key_update_mode") or "").strip().upper()
    if update_mode and update_mode not in ("UPSERT", "UPDATE_FIXED_COLUMNS", "UPDATE_FLEXIBLE_COLUMNS"):
        raise AnalysisError(f"Invalid unique_key_update_mode {h['unique_key_update_mode']}")
    partial = partial or update_mode in ("UPDATE_FIXED_COLUMNS", "UPDATE_FLEXIBLE_COLUMNS")
    new_keys = (h.get("partial_update_new_key_behavior") or "").strip().upper() or "APPEND"
    if new_keys not in ("APPEND", "ERROR"):  # Doris's BE (StreamLoadAction::_process_put)
        raise AnalysisError(f"Invalid partial_update_new_key_behavior {new_keys}, must be one of {{'APPEND', 'ERROR'}}")
    zone = h.get("timezone") or h.get("time_zone") or ""
    return StreamLoadOptions(
        label=label,
        format=fmt,
        column_separator=decode_separator(h["column_separator"], "column_separator")
        if "column_separator" in h
        else "\t",
        line_delimiter=decode_separator(h["line_delimiter"], "line_delimiter") if "line_delimiter" in h else "\n",
        columns=columns,
        where=(h.get("where") or "").strip() or None,
        partitions=partitions,
        temporary_partitions=bool(h.get("temporary_partitions")) and not h.get("partitions"),
        max_filter_ratio=ratio,
        strict_mode=_bool(h, "strict_mode", False),
        timezone=load_time_zone(zone) if zone.strip() else None,
        strip_outer_array=_bool(h, "strip_outer_array", False),
        read_json_by_line=_bool(h, "read_json_by_line", False),
        comment=h.get("comment", ""),
        enclose=_single_char(h, "enclose"),
        escape=_single_char(h, "escape"),
        trim_double_quotes=_bool(h, "trim_double_quotes", False),
        skip_lines=_skip_lines(h.get("skip_lines")),
        jsonpaths=_jsonpaths(h.get("jsonpaths")),
        json_root=(h.get("json_root") or "").strip() or None,
        merge_type=merge_type,
        delete=delete,
        sequence_col=(h.get("function_column.sequence_col") or "").strip() or None,
        partial_columns=partial,
        flexible_columns=update_mode == "UPDATE_FLEXIBLE_COLUMNS",
        new_key_behavior=new_keys,
    )


def _refuse_unsupported(h: Mapping[str, str]) -> None:
    """Refuse the headers dorisql cannot honour, naming them (those that depend on the table are
    refused later, by stream_load.check_table_options)."""
    for name, kind in HEADERS.items():
        value = (h.get(name) or "").strip()
        if kind != REFUSED or not value or value.lower() in _NEUTRAL.get(name, ()):
            continue
        if name in ("function_column.sequence_col", "partial_columns", "unique_key_update_mode"):
            continue
        if name == "txn_operation" or name == "txn_id":
            raise NotSupportedError(f"Stream Load header {name} (two-phase commit)")
        raise NotSupportedError(f"Stream Load header {name}: {value}")


def _single_char(h: Mapping[str, str], name: str) -> str | None:
    value = h.get(name) or ""
    if not value:
        return None
    if len(value) != 1:  # Doris's BE (StreamLoadAction::_process_put)
        raise AnalysisError(f"{name} must be single-char, actually is {value}")
    return value


def _skip_lines(text: str | None) -> int:
    if text is None or not text.strip():
        return 0
    try:
        lines = int(text.strip())
    except ValueError:
        raise AnalysisError(f"Invalid skip_lines value '{text}': expected an integer") from None
    if lines < 0:
        raise AnalysisError("skipLines should not be less than 0.")  # Doris's CsvFileFormatProperties
    return lines


def _jsonpaths(text: str | None) -> tuple[str, ...]:
    """The jsonpaths header: a JSON array of paths (``["$.id", "$.info.name"]``)."""
    if text is None or not text.strip():
        return ()
    try:
        paths = json.loads(text)
    except ValueError:
        paths = None
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p.startswith("$") for p in paths):
        raise AnalysisError(f"Invalid json path: {text}")
    return tuple(paths)


#: Doris's time zone aliases (TimeUtils.timeZoneAliasMap) and a UTC offset ('+08:00').
_ZONE_ALIASES = {"CST": "Asia/Shanghai", "PRC": "Asia/Shanghai", "UTC": "UTC", "GMT": "UTC"}
_OFFSET = re.compile(r"[+-](\d{2}):(\d{2})")


def load_time_zone(text: str) -> str:
    """The ``timezone`` header as a zone id Spark and Python both know: an IANA name, one of
    Doris's aliases (CST, UTC) or an offset up to +-14:00. Doris's message otherwise
    (ERR_UNKNOWN_TIME_ZONE, TimeUtils.checkTimeZoneValidAndStandardize)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    value = text.strip()
    offset = _OFFSET.fullmatch(value)
    if offset:
        hours, minutes = int(offset.group(1)), int(offset.group(2))
        if minutes < 60 and hours * 60 + minutes <= 14 * 60:
            return value
    else:
        zone = _ZONE_ALIASES.get(value.upper(), value)
        try:
            if zone and not zone.startswith("/") and ".." not in zone:
                ZoneInfo(zone)
                return zone
        except (ZoneInfoNotFoundError, ValueError):
            pass
    raise AnalysisError(f"Unknown or incorrect time zone: '{text}'")


# --------------------------------------------------------------------------- the response


@dataclasses.dataclass
class Outcome:
    """What a Stream Load did: the fields of Doris's response."""

    label: str
    status: str = "Success"  # Success | Fail | Label Already Exists
    message: str = "OK"
    txn_id: int = 0
    existing_job_status: str | None = None  # RUNNING | FINISHED, with "Label Already Exists"
    total_rows: int = 0
    loaded_rows: int = 0
    filtered_rows: int = 0
    unselected_rows: int = 0
    load_bytes: int = 0
    load_time_ms: int = 0
    begin_txn_ms: int = 0
    read_data_ms: int = 0
    write_data_ms: int = 0
    commit_ms: int = 0
    error_url: str | None = None
    comment: str = ""


def response(outcome: Outcome) -> dict:
    """Doris's Stream Load response body (BE StreamLoadContext::to_json), in its key order."""
    body: dict = {
        "TxnId": outcome.txn_id,
        "Label": outcome.label,
        "Comment": outcome.comment,
        "TwoPhaseCommit": "false",
        "Status": outcome.status,
    }
    if outcome.existing_job_status is not None:
        body["ExistingJobStatus"] = outcome.existing_job_status
    body.update(
        {
            "Message": outcome.message,
            "NumberTotalRows": outcome.total_rows,
            "NumberLoadedRows": outcome.loaded_rows,
            "NumberFilteredRows": outcome.filtered_rows,
            "NumberUnselectedRows": outcome.unselected_rows,
            "LoadBytes": outcome.load_bytes,
            "LoadTimeMs": outcome.load_time_ms,
            "BeginTxnTimeMs": outcome.begin_txn_ms,
            "StreamLoadPutTimeMs": 0,
            "ReadDataTimeMs": outcome.read_data_ms,
            "WriteDataTimeMs": outcome.write_data_ms,
            "ReceiveDataTimeMs": outcome.read_data_ms,
            "CommitAndPublishTimeMs": outcome.commit_ms,
        }
    )
    if outcome.error_url:
        body["ErrorURL"] = outcome.error_url
    return body
