"""Tab completion: keywords, databases, tables, columns, partitions and table property keys.

`suggest()` is pure (text before the cursor + the known names -> candidates) so it is tested
without a terminal; `DorisCompleter` wraps it for prompt_toolkit. The names come from
`engine.completion_names()` and are refreshed in the background after DDL
(`completion_refresher.py`, as litecli does).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from prompt_toolkit.completion import Completer, Completion

KEYWORDS = sorted(
    set(
        """
ADD ADMIN AGGREGATE ALL ALTER AND AS ASC AUTO BETWEEN BIGINT BITMAP BITMAP_UNION BOOLEAN BUCKETS
BY CASE CHAR COLOCATE COLUMN COLUMNS COMMENT CONFIG COUNT CREATE CROSS CURRENT_TIMESTAMP DATA
DATABASE DATABASES DATE DATETIME DAY DECIMAL DEFAULT DELETE DELIMITER DESC DESCRIBE DISTINCT
DISTRIBUTED DOUBLE DROP DUPLICATE DYNAMIC ELSE END ENGINE EXISTS EXPLAIN FALSE FLOAT FORCE FROM
FRONTEND FULL GLOBAL GROUP HASH HAVING HELP HLL HLL_UNION HOUR IF IN INDEX INNER INSERT INT INTERVAL
INTO IS JOIN JSON KEY KEYS LARGEINT LEFT LESS LIKE LIMIT LIST MAX MAXVALUE MIN MONTH NOT NULL OFFSET
ON OR ORDER OUTER OVERWRITE PARTITION PARTITIONS PROC PROPERTIES RANDOM RANGE RENAME REPLACE
REPLACE_IF_NOT_NULL RIGHT ROLLUP SELECT SESSION SET SHOW SMALLINT SOURCE STRING SUM SYNC TABLE TABLES
TABLET TABLETS TEMPORARY THAN THEN TINYINT TO TRUE TRUNCATE UNION UNIQUE UNSIGNED USE USING VALUES
VARCHAR VARIABLES WEEK WHEN WHERE WITH YEAR
BACKENDS CHARSET COLLATION ERRORS FIELDS FRONTENDS NAMES STATUS WARNINGS
""".split()
    )
)

FUNCTIONS = sorted(
    """
abs avg cast coalesce concat count curdate current_date date_add date_format date_sub date_trunc
datediff day floor hour if ifnull length lower max min month now round str_to_date substr
substring sum to_date trim upper year
""".split()
)

#: Table property keys (PROPERTIES("...")) with the dynamic_partition family first.
PROPERTY_KEYS = [
    "dynamic_partition.enable",
    "dynamic_partition.time_unit",
    "dynamic_partition.start",
    "dynamic_partition.end",
    "dynamic_partition.prefix",
    "dynamic_partition.buckets",
    "dynamic_partition.replication_num",
    "dynamic_partition.create_history_partition",
    "dynamic_partition.history_partition_num",
    "dynamic_partition.hot_partition_num",
    "dynamic_partition.reserved_history_periods",
    "dynamic_partition.start_day_of_week",
    "dynamic_partition.start_day_of_month",
    "dynamic_partition.time_zone",
    "dynamic_partition.storage_medium",
    "estimate_partition_size",
    "replication_num",
    "replication_allocation",
    "colocate_with",
    "storage_medium",
    "storage_cooldown_time",
    "compaction_policy",
    "disable_auto_compaction",
    "enable_unique_key_merge_on_write",
    "light_schema_change",
    "bloom_filter_columns",
    "in_memory",
]

#: Frontend settings for ADMIN SET FRONTEND CONFIG ("..." = "...").
FRONTEND_KEYS = [
    "dynamic_partition_enable",
    "dynamic_partition_check_interval_seconds",
    "max_dynamic_partition_num",
    "autobucket_min_buckets",
    "autobucket_max_buckets",
    "cluster_backends",
    "cluster_disks_per_backend",
    "cluster_disk_capacity",
]

_TABLE_BEFORE = {"FROM", "JOIN", "TABLE", "INTO", "UPDATE", "DESC", "DESCRIBE", "TRUNCATE", "EXISTS"}
_DB_BEFORE = {"USE", "DATABASE", "SCHEMA"}
_PARTITION_BEFORE = {"PARTITION", "PARTITIONS"}
_COLUMN_BEFORE = {"SELECT", "WHERE", "BY", "ON", "AND", "OR", "HAVING", ",", "(", "=", "<", ">", "SET"}
_WORD = re.compile(r"[\w$.]*$")
_TOKENS = re.compile(r"`[^`]*`|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[\w$.]+|[(),=<>]")
_MENTIONED = re.compile(
    r"\b(?:FROM|JOIN|TABLE|INTO|UPDATE|DESC|DESCRIBE|TRUNCATE)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    r"`?([\w$]+)`?(?:\s*\.\s*`?([\w$]+)`?)?",
    re.IGNORECASE,
)


@dataclass
class Names:
    """What the completer knows about the warehouse (a snapshot; replaced whole on refresh)."""

    databases: list[str] = field(default_factory=list)
    tables: dict[str, list[str]] = field(default_factory=dict)
    columns: dict[str, list[str]] = field(default_factory=dict)
    partitions: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_engine(cls, names: dict) -> Names:
        return cls(
            databases=sorted(names.get("databases") or []),
            tables={db: sorted(ts) for db, ts in (names.get("tables") or {}).items()},
            columns={t: list(cs) for t, cs in (names.get("columns") or {}).items()},
            partitions={t: list(ps) for t, ps in (names.get("partitions") or {}).items()},
        )


def _open_quote(text: str) -> int | None:
    """Index of an unclosed ' or " in `text` (the cursor is inside a string), else None."""
    quote, start, i = None, None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote, start = ch, i
        elif ch == "`":
            end = text.find("`", i + 1)
            if end < 0:
                return None
            i = end
        i += 1
    return start if quote else None


def _match(prefix: str, candidates, casing: bool = False) -> list[str]:
    low = prefix.lower()
    out, seen = [], set()
    for cand in candidates:
        if cand.lower().startswith(low) and cand not in seen:
            seen.add(cand)
            if casing and prefix and prefix[-1:].islower() and prefix.lower() == prefix:
                cand = cand.lower()
            out.append(cand)
    return out


def suggest(text: str, names: Names, current_db: str | None = None) -> tuple[str, list[str]]:
    """(the word being completed, the candidates) for the text before the cursor."""
    quote_at = _open_quote(text)
    if quote_at is not None:
        word = text[quote_at + 1 :]
        before = text[:quote_at].upper()
        if "FRONTEND" in before and "CONFIG" in before:
            return word, _match(word, FRONTEND_KEYS)
        if "PROPERTIES" in before or re.search(r"\bSET\s*\(\s*(\"[^\"]*\"\s*=\s*\"[^\"]*\"\s*,\s*)*$", before):
            return word, _match(word, PROPERTY_KEYS)
        return word, []

    found = _WORD.search(text)  # matches every text (the empty word at its end at least)
    word = found.group(0) if found else ""
    head = text[: len(text) - len(word)]
    tokens = _TOKENS.findall(head)
    prev = tokens[-1].upper() if tokens else ""
    prev2 = tokens[-2].upper() if len(tokens) > 1 else ""
    mentioned = [(m.group(2) and m.group(1), m.group(2) or m.group(1)) for m in _MENTIONED.finditer(text)]

    if "." in word:
        db, _, part = word.rpartition(".")
        if db in names.tables:
            return part, _match(part, names.tables[db])
        return word, []
    if (
        prev in _DB_BEFORE
        or (prev in ("FROM", "IN") and prev2 in ("TABLES", "PARTITION", "DYNAMIC"))
        or (prev == "FROM" and "SHOW" in (t.upper() for t in tokens) and "TABLES" in (t.upper() for t in tokens))
    ):
        if prev2 == "CREATE":
            return word, []
        return word, _match(word, names.databases)
    if prev in _TABLE_BEFORE or prev == "ON" and prev2 == "DATA":
        if prev2 == "CREATE" or prev2 == "EXISTS" and "CREATE" in (t.upper() for t in tokens[-4:]):
            return word, []
        tables = names.tables.get(current_db or "", []) if current_db else []
        others = [t for db, ts in names.tables.items() if db != current_db for t in ts]
        return word, _match(word, tables + names.databases + others)
    if prev in _PARTITION_BEFORE or (prev in ("(", ",") and any(t.upper() in _PARTITION_BEFORE for t in tokens[-6:])):
        parts = [p for _, table in mentioned for p in names.partitions.get(table, [])]
        if parts or prev in _PARTITION_BEFORE:
            extra = ["BY"] if prev == "PARTITION" else []  # CREATE TABLE ... PARTITION BY
            return word, _match(word, parts) + _match(word, extra, casing=True)
    candidates = []
    if prev in _COLUMN_BEFORE or prev2 in _COLUMN_BEFORE:
        candidates += [c for _, table in mentioned for c in names.columns.get(table, [])]
    candidates += _match(word, KEYWORDS, casing=True)
    if prev in _COLUMN_BEFORE:
        candidates += _match(word, FUNCTIONS)
    return word, _match(word, candidates) if candidates else []


class DorisCompleter(Completer):
    """prompt_toolkit completer over a `Names` snapshot that the refresher swaps in."""

    def __init__(self, current_db=lambda: None):
        self.names = Names()
        self._current_db = current_db
        self._lock = threading.Lock()

    def set_names(self, names: Names) -> None:
        with self._lock:
            self.names = names

    def get_completions(self, document, complete_event):
        text = document.text_before_cursor
        if not text.strip() and not complete_event.completion_requested:
            return
        word, candidates = suggest(text, self.names, self._current_db())
        for cand in candidates:
            yield Completion(cand, start_position=-len(word))
