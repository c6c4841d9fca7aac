"""Stream Load, pure: the request's headers as options, and Doris's JSON response.

Headers and defaults are Doris 2.1's (docs: data-operate/import/import-way/stream-load-manual):
``label``, ``format`` (csv, csv_with_names, json), ``column_separator`` (default ``\\t``; ``\\x01``
hex notation), ``line_delimiter`` (default ``\\n``), ``columns`` (``k1, k2, v = k2 * 2``),
``where``, ``partitions`` (and ``temporary_partitions``), ``max_filter_ratio`` (default 0),
``strict_mode`` (default false), ``timezone``, ``strip_outer_array``, ``read_json_by_line``.
Other headers are ignored as Doris ignores headers it has no use for; two_phase_commit and the
formats dorisql does not read are refused. No Spark here: dorisql.statements.load.stream_load loads.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Mapping

from dorisql.errors import AnalysisError, NotSupportedError

__all__ = ["StreamLoadOptions", "ColumnMapping", "parse_options", "decode_separator", "response", "Outcome"]

_FORMATS = ("csv", "csv_with_names", "json")
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
    if _bool(h, "two_phase_commit", False):
        raise NotSupportedError("Stream Load two_phase_commit")
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
        timezone=load_time_zone(h["timezone"]) if (h.get("timezone") or "").strip() else None,
        strip_outer_array=_bool(h, "strip_outer_array", False),
        read_json_by_line=_bool(h, "read_json_by_line", False),
        comment=h.get("comment", ""),
    )


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
