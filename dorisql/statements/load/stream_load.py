"""Stream Load: a CSV or JSON body loaded into one table in one Delta commit, once per label.

The body is read by Spark from the file the HTTP layer streamed it to (never held in memory),
shaped by the ``columns`` / ``where`` headers, and loaded through the one load path
(`dml.load_frame`, as INSERT): cast, routed, bucketed, one Delta commit. Rows that do not fit
(a wrong number of columns, a value that is no value of its column, no partition) are left out
and listed in an error log (the response's ErrorURL); more of them than ``max_filter_ratio``
allows fails the load with nothing committed.

The label makes a load idempotent (docs/stream_load.md). In order:

1. the label's lock (a file lock under ``<warehouse>/_staging/stream_load``), taken without
   waiting: a second request with the label while the first runs answers "Label Already Exists"
   (RUNNING). The lock dies with its process, so a crash never leaves it held;
2. the catalog's record of the label (`Catalog.claim_load`: one row per database and label,
   state LOADING). A FINISHED record answers "Label Already Exists" (FINISHED). A LOADING
   record found while holding the lock was left by a load that died: its table's Delta log
   tells whether it committed (every Stream Load commit carries its label in its commitInfo);
   if it did, the record becomes FINISHED and the label is taken, else the label is free;
3. the body (under its own lock while it exists: `orphan_bodies` tells a killed load's body
   from a live one's), then the load: the Delta commit carries ``dorisql.load_label``;
4. the record becomes FINISHED. A failure frees the label (CANCELLED, as in Doris) only once the
   Delta log shows the load did not commit: a failure after the commit (the catalog's partition
   versions, the error log, the record itself) is the load's success, and a record that cannot
   be written stays LOADING for step 2 of the next request.

A crash between 3 and 4 leaves a LOADING record whose commit is in the log: the next request
with the label finds it (step 2) and loads nothing. A crash before 3 leaves no commit: the label
is free again. So a load is in the table once or not at all, whatever fails when.

A lock that cannot be taken because the lock service (a PostgreSQL catalog) is unreachable is a
CatalogError, a retryable failure, never "Label Already Exists". Finished and failed labels are
forgotten after ``label_keep_max_second`` (`label_expired`, `expire_labels`: the trash job).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from dorisql import ast, logfile
from dorisql import types as doris_types
from dorisql.catalog.base import LoadRecord
from dorisql.errors import (
    AnalysisError,
    CommitConflictError,
    DorisqlError,
    LoadError,
    NotSupportedError,
    UnknownDatabaseError,
    UnknownTableError,
)
from dorisql.session import failures
from dorisql.session.committed import DISK_FULL_MESSAGE, after_commit, disk_full
from dorisql.session.session import Session
from dorisql.statements.ddl.partitions import bump_versions
from dorisql.statements.load import partial_update
from dorisql.statements.load.insert import load_frame, rejected_rows
from dorisql.statements.load.stream_load_options import ColumnMapping, Outcome, StreamLoadOptions
from dorisql.storage.locks import file_lock
from dorisql.tablets import deletes as D
from dorisql.tablets.consistency import meta_dir, table_storage
from dorisql.tablets.tables import check_sequence_given, column, sequence_column
from dorisql.translate.expressions import expression_spark_sql
from dorisql.translate.literals import sketch_value_sql
from dorisql.warehouse import staging_dir

__all__ = ["stream_load", "error_log_dir", "body_dir", "LABEL_KEY"]

#: The commitInfo key carrying a Stream Load's ``<db>/<label>``.
LABEL_KEY = "dorisql.load_label"
#: How many refused rows an error log lists at most.
ERROR_LOG_ROWS = 1000
#: Error logs are kept this long (Doris: load_error_log_reserve_hours, 48).
ERROR_LOG_RESERVE_SECONDS = 48 * 3600
#: How far back (ms) before a stale record's creation its commit is looked for (clock skew).
_HISTORY_SLACK_MS = 60_000

LOADING, FINISHED, CANCELLED = "LOADING", "FINISHED", "CANCELLED"


def body_dir(warehouse: Path) -> Path:
    return staging_dir(warehouse) / "stream_load"


def error_log_dir(warehouse: Path) -> Path:
    return staging_dir(warehouse) / "load_errors"


def label_lock(warehouse: Path, db: str, label: str):
    digest = hashlib.sha1(f"{db}\0{label}".encode()).hexdigest()
    return file_lock(str(body_dir(warehouse) / "labels" / f"{digest}.lock"), 0.0, f"label {label}")


def _body_lock(path: Path):
    """The lock a load holds on its body file while the file exists (a ``flock`` on the body
    itself, or the lock service's lock of that name), taken without waiting."""

    return file_lock(str(path), 0.0, f"Stream Load body {path.name}")


def _exists(label: str, record: LoadRecord, status: str) -> Outcome:
    return Outcome(
        label=label,
        status="Label Already Exists",
        existing_job_status=status,
        txn_id=record.txn_id,
        message=f"[LABEL_ALREADY_EXISTS]Label [{label}] has already been used, relate to txn [{record.txn_id}]",
    )


def committed_version(session: Session, record: LoadRecord, meta=None) -> int | None:
    """The Delta version the load of this record committed, if it did (`meta`: its table, if
    known). A catalog that cannot be read raises: "not committed" would free the label."""
    from deltalake import DeltaTable

    if meta is None:
        try:
            meta = session.catalog.load_table(record.db, record.table)
        except (UnknownTableError, UnknownDatabaseError):
            return None  # its table is gone: nothing of it is visible
    wanted = f"{record.db}/{record.label}"
    since = int(record.created_at.timestamp() * 1000) - _HISTORY_SLACK_MS
    for info in DeltaTable(str(meta_dir(session.warehouse, meta))).history():
        if info.get(LABEL_KEY) == wanted:
            return int(info["version"])
        if int(info.get("timestamp") or 0) < since:
            break
    return None


def stream_load(
    session: Session,
    db: str,
    table: str,
    options: StreamLoadOptions,
    receive_body: Callable[[Path], int],
    error_url: Callable[[str], str],
    user: str = "",
    client_ip: str = "",
) -> Outcome:
    """Load a Stream Load request's body into db.table. `receive_body(path)` is called once the
    label is claimed: it writes the body to `path` and returns its size (it raises if the body
    is cut short). `error_url(name)` is where the error log `name` is served. Errors before the
    load starts (unknown table, an unreachable catalog) raise DorisqlError; the load's own
    failures are in the Outcome. A full disk, wherever it strikes, is an Outcome "Fail" whose
    message says ``No space left on device`` (never an exception the HTTP layer would answer
    with its 500)."""
    started = time.perf_counter()
    try:
        return _stream_load(session, db, table, options, receive_body, error_url, user, started, client_ip)
    except DorisqlError:
        raise
    except Exception as exc:
        if not disk_full(exc):
            raise

        logfile.record_failure(exc, shown=f"(Stream Load {db}.{table}) {DISK_FULL_MESSAGE}")
        return _timed(Outcome(label=options.label, status="Fail", message=DISK_FULL_MESSAGE), started)


def check_table_options(meta, options: StreamLoadOptions) -> None:
    """The headers that depend on the table, refused before anything happens (Doris's
    NereidsStreamLoadPlanner.plan checks and messages)."""
    keys = meta.definition.keys
    unique = keys is not None and keys.type.upper() == "UNIQUE"
    if options.merge_type != "APPEND" and not unique:
        raise AnalysisError("load by MERGE or DELETE is only supported in unique tables.")
    props = {k.lower(): v for k, v in ast.props(meta.definition.properties).items()}
    sequence = "function_column.sequence_type" in props or "function_column.sequence_col" in props
    if options.sequence_col is not None and not sequence:
        raise AnalysisError(f"There is no sequence column in the table {meta.name}")
    if sequence and options.sequence_col is None and "function_column.sequence_col" not in props:
        raise AnalysisError(f"Table {meta.name} has sequence column, need to specify the sequence column")
    if options.sequence_col is not None and sequence_column(meta.definition) is None:
        # a table of an older dorisql with the hidden column (function_column.sequence_type alone)
        raise NotSupportedError("Stream Load header function_column.sequence_col: a hidden sequence column")
    # (a table mapping its sequence to a value column orders rows by that column: the header
    # adds nothing, as Doris's load planner then ignores it)
    if options.partial_columns:
        partial_update.check_merge_on_write(meta)
        if options.flexible_columns:
            raise NotSupportedError("Stream Load header unique_key_update_mode: UPDATE_FLEXIBLE_COLUMNS")
        if options.merge_type != "APPEND":
            raise NotSupportedError(f"Stream Load header partial_columns with merge_type {options.merge_type}")


def _stream_load(session, db, table, options, receive_body, error_url, user, started, client_ip="") -> Outcome:
    meta = session.catalog.load_table(db, table)
    check_table_options(meta, options)
    label = options.label
    try:
        lock = label_lock(session.warehouse, db, label)
        lock.__enter__()
    except CommitConflictError:  # another request holds the label right now
        # (Only a lock some other request holds: a lock service that cannot be reached raises
        # CatalogError, a retryable failure, never "the label exists": docs/stream_load.md.)
        running = session.catalog.get_load(db, label)
        placeholder = running or LoadRecord(db, label, table, 0, LOADING, wall_clock())
        return _exists(label, placeholder, "RUNNING")
    try:
        taken = label_taken(session, db, label)
        if taken is not None:
            return taken
        record = LoadRecord(
            db, label, meta.name, session.catalog.next_id(), LOADING, wall_clock(), user=user, client_ip=client_ip
        )
        held = session.catalog.claim_load(record, replace_states=(LOADING, CANCELLED))
        if held is not None:  # (cannot happen while the lock is held; kept safe all the same)
            return _exists(label, held, "RUNNING" if held.state == LOADING else "FINISHED")
        begin_ms = int((time.perf_counter() - started) * 1000)
        outcome = Outcome(label=label, txn_id=record.txn_id, begin_txn_ms=begin_ms, comment=options.comment)
        path = body_dir(session.warehouse) / f"{record.txn_id}.body"
        loading = False  # whether the Delta commit may have happened (the load began)
        version = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # The body's own lock, held while the body exists: what tells the cleanup
            # (orphan_bodies) a live load's body from a dead one's.
            with _body_lock(path):
                try:
                    read_started = time.perf_counter()
                    outcome.load_bytes = receive_body(path)
                    outcome.read_data_ms = int((time.perf_counter() - read_started) * 1000)
                    write_started = time.perf_counter()
                    loading = True
                    version = _load(session, meta, options, path, record, outcome, error_url)
                    outcome.write_data_ms = int((time.perf_counter() - write_started) * 1000)
                finally:
                    path.unlink(missing_ok=True)
        except Exception as exc:
            try:
                version = committed_version(session, record, meta) if loading else None
            except Exception as unknown:  # the log cannot be read now: the record stays LOADING
                logfile.record_failure(unknown, shown=f"(Stream Load {db}.{label}: its record stays LOADING)")
                outcome.status = "Fail"
                outcome.message = (
                    f"{_failure_message(session, exc)}; whether the load was committed is not known yet: "
                    "send it again with the same label (it loads, or answers Label Already Exists)"
                )
                return _timed(outcome, started)
            if version is None:  # a failed load: nothing committed, the label is free again
                outcome.status, outcome.message = "Fail", _failure_message(session, exc)
                _record(session, _finished(session, record, outcome, CANCELLED, None))
                return _timed(outcome, started)
            # The commit is in the Delta log: the load has happened, whatever failed after it.

            outcome.status, outcome.message = "Success", "OK"
            logfile.record_failure(exc, shown=f"(Stream Load {db}.{label}: committed at Delta version {version})")
        except BaseException:
            # Cancelled (the server stopping): the record stays LOADING, and the next request with
            # the label asks the Delta log whether this load committed (step 2).
            raise
        state = FINISHED if outcome.status == "Success" else CANCELLED
        _record(session, _finished(session, record, outcome, state, version))
        return _timed(outcome, started)
    finally:
        lock.__exit__(None, None, None)


def label_taken(session: Session, db: str, label: str) -> Outcome | None:
    """The answer when the label (its lock held) already names a load: one that finished, or
    one left LOADING by a process that died after its Delta commit (recorded FINISHED now).
    None: the label is free (unused, cancelled, or left LOADING without a commit)."""
    existing = session.catalog.get_load(db, label)
    if existing is not None and existing.state == FINISHED:
        return _exists(label, existing, "FINISHED")
    if existing is not None and existing.state == LOADING:  # left by a load that died
        version = committed_version(session, existing)
        if version is not None:  # the label is taken, recorded now or by a later request
            _record(
                session,
                dataclasses.replace(
                    existing,
                    state=FINISHED,
                    delta_version=version,
                    finished_at=wall_clock(),
                    message=f"committed at Delta version {version}; recorded after its process stopped",
                ),
            )
            return _exists(label, existing, "FINISHED")
    return None


def _failure_message(session: Session, exc: Exception) -> str:
    if disk_full(exc):
        logfile.record_failure(exc, shown=DISK_FULL_MESSAGE)
        return DISK_FULL_MESSAGE
    error = exc if isinstance(exc, DorisqlError) else failures.translate(exc, warehouse=session.warehouse)
    return _without_server_paths(str(error), session)


#: A failure whose message would show the server's files (its log, its warehouse folder).
INTERNAL_MESSAGE = "[INTERNAL_ERROR]the load failed; the server's log has the details"


def _without_server_paths(message: str, session: Session) -> str:
    """The message for the client, unless it names a server path (an internal error pointing at
    the log file): then Doris's INTERNAL_ERROR wording, the detail being in the log already."""

    places = {str(session.warehouse.resolve()), str(session.warehouse), str(logfile.log_path().parent)}
    return INTERNAL_MESSAGE if any(p and p in message for p in places) else message


def _record(session: Session, record: LoadRecord) -> None:
    """Store a load's final state, best effort. When the catalog cannot be written (down, full)
    the record stays LOADING: the load's own answer stands, and the next request with the label
    finishes the record from the Delta log (step 2): FINISHED if the load committed, else free."""
    try:
        session.catalog.update_load(record)
    except Exception as exc:
        logfile.record_failure(exc, shown=f"(Stream Load {record.db}.{record.label}: its record stays LOADING)")


def wall_clock() -> dt.datetime:
    """Load records use the machine's clock, not the session's (SET dorisql_now): a dead load's
    commit is looked for in the Delta log by time."""
    return dt.datetime.now()


def _timed(outcome: Outcome, started: float) -> Outcome:
    outcome.load_time_ms = int((time.perf_counter() - started) * 1000)
    return outcome


def _finished(session: Session, record: LoadRecord, outcome: Outcome, state: str, version: int | None) -> LoadRecord:
    return dataclasses.replace(
        record,
        state=state,
        finished_at=wall_clock(),
        total_rows=outcome.total_rows,
        loaded_rows=outcome.loaded_rows,
        filtered_rows=outcome.filtered_rows,
        unselected_rows=outcome.unselected_rows,
        load_bytes=outcome.load_bytes,
        message=outcome.message,
        error_url=outcome.error_url or "",
        delta_version=version,
    )


# ---------------------------------------------------------------------- reading and loading


def _java_quote(text: str) -> str:
    """`text` as a literal in a Java regex (Spark's split)."""
    return "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def _frames(session: Session, meta, options: StreamLoadOptions, path: Path):
    """(rows, well_formed, reason_of_malformed, raw_text): the body as a DataFrame of text
    columns named as the file's columns, a Column telling well-formed rows, why a row is not,
    and its text as read (for the error log)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    spark = session.spark
    names = list(options.file_columns) if options.columns else [c.name for c in meta.definition.columns]
    if options.format == "json" and (options.jsonpaths or options.json_root):
        return (*_json_by_paths(spark, options, path, names), names)
    if options.format == "json":
        corrupt = "__dorisql_corrupt"
        schema = StructType([StructField(n, StringType(), True) for n in names] + [StructField(corrupt, StringType())])
        reader = spark.read.schema(schema).option("columnNameOfCorruptRecord", corrupt).option("mode", "PERMISSIVE")
        reader = reader.option("multiLine", not options.read_json_by_line)
        if options.read_json_by_line and options.line_delimiter != "\n":
            reader = reader.option("lineSep", options.line_delimiter)
        rows = reader.json(str(path)).cache()  # Spark refuses queries on the corrupt column of an uncached read
        ok = F.col(corrupt).isNull()
        why = F.lit("Parse json data failed: not a valid JSON object")
        raw = F.col(corrupt)
        return rows, ok, why, raw, names
    lines = spark.read.option("lineSep", options.line_delimiter).text(str(path))
    # One file: its first lines are the first rows of the first partition, ids 0, 1, ...
    skipped = 1 if options.format == "csv_with_names" else options.skip_lines
    if skipped:
        lines = lines.filter(F.monotonically_increasing_id() >= skipped)
    parts = _csv_fields(options)
    columns = [_csv_value(parts[i], options).alias(n) for i, n in enumerate(names)]
    # A line that is not UTF-8 is filtered, as Doris's CSV reader does (split would make U+FFFD of it).
    utf8 = F.expr("is_valid_utf8(value)").alias("__dorisql_utf8")
    rows = lines.select(*columns, F.size(parts).alias("__dorisql_width"), F.col("value").alias("__dorisql_line"), utf8)
    ok = (F.col("__dorisql_width") == len(names)) & F.col("__dorisql_utf8")
    not_utf8 = F.lit("Invalid file encoding: all CSV files must be UTF-8 encoded")
    quoting = "".join(
        f", {what}: [{value!r}]" for what, value in (("enclose", options.enclose), ("escape", options.escape)) if value
    )
    why = F.when(~F.col("__dorisql_utf8"), not_utf8).otherwise(
        F.format_string(
            f"actual column number in csv file is %d, but schema column number is {len(names)}; "
            f"column separator: [{options.column_separator!r}], line delimiter: [{options.line_delimiter!r}]"
            + quoting.replace("%", "%%"),
            F.col("__dorisql_width"),
        )
    )
    return rows, ok, why, F.col("__dorisql_line"), names


def _csv_fields(options: StreamLoadOptions):
    """A CSV line's fields, as an array Column. With ``enclose`` / ``escape`` (Doris's
    EncloseCsvLineReaderCtx): a separator inside an enclosed field, or escaped, splits nothing.
    The line gets a separator in front, so each field is one match: separator, then an
    optional enclosed part, then anything up to the next separator."""
    from pyspark.sql import functions as F

    sep = _java_quote(options.column_separator)
    if options.enclose is None and options.escape is None:
        return F.split(F.col("value"), sep, -1)
    escaped = f"{_java_quote(options.escape)}." if options.escape else None
    plain = f"(?:{escaped}|(?!{sep}).)*" if escaped else f"(?:(?!{sep}).)*"
    field = plain
    if options.enclose is not None:
        q = _java_quote(options.enclose)
        inner = f"(?:{escaped}|(?!{q}).)*" if escaped else f"(?:(?!{q}).)*"
        field = f"(?:{q}{inner}{q})?{plain}"
    pattern = f"(?s){sep}({field})"
    line = F.concat(F.lit(options.column_separator), F.col("value"))
    return F.regexp_extract_all(line, F.lit(pattern), F.lit(1))


def _csv_value(field, options: StreamLoadOptions):
    """One CSV field's value as Doris reads it: the enclosing characters trimmed, ``\\N`` NULL
    (but not ``"\\N"`` with trim_double_quotes), the escape character removed, one pair of
    outer double quotes trimmed with trim_double_quotes."""
    from pyspark.sql import functions as F

    def outer(x, quote: str):
        return (F.length(x) >= 2) & x.startswith(quote) & x.endswith(quote)

    def inner(x):
        return x.substr(F.lit(2), F.length(x) - 2)

    value = field
    if options.enclose is not None:
        value = F.when(outer(value, options.enclose), inner(value)).otherwise(value)
    if options.trim_double_quotes:
        value = F.when(outer(value, '"'), inner(value)).when(value == "\\N", F.lit(None)).otherwise(value)
    else:
        value = F.when(value == "\\N", F.lit(None)).otherwise(value)
    if options.escape is not None:
        value = F.regexp_replace(value, f"(?s){_java_quote(options.escape)}(.)", "$1")
    return value


def _json_by_paths(spark, options: StreamLoadOptions, path: Path, names: list[str]):
    """JSON read Doris's matching way (``jsonpaths``, ``json_root``): each document (the body,
    or each line with read_json_by_line) taken at ``json_root``, split into its array's elements
    with strip_outer_array, and each file column the value at its path (in order: the n-th path
    is the n-th column), or at ``$.<name>`` without jsonpaths. A value is its JSON text (a string
    unquoted, a number as written). (rows, ok, why, raw)."""
    from pyspark.sql import functions as F

    if options.read_json_by_line:
        docs = spark.read.option("lineSep", options.line_delimiter).text(str(path))
        docs = docs.filter(F.trim(F.col("value")) != "")
    else:
        docs = spark.read.text(str(path), wholetext=True)
    doc = F.col("value")
    if options.json_root:
        doc = F.get_json_object(doc, options.json_root)
    if options.strip_outer_array:
        element = F.explode_outer(F.from_json(doc, "array<string>"))
    else:
        element = doc
    elements = docs.select(element.alias("__dorisql_json"))
    item = F.col("__dorisql_json")
    paths = list(options.jsonpaths) or ["$['" + n.replace("'", "\\'") + "']" for n in names]
    values = [
        (F.get_json_object(item, paths[i]) if i < len(paths) else F.lit(None).cast("string")).alias(n)
        for i, n in enumerate(names)
    ]
    rows = elements.select(*values, item)
    start = F.ltrim(item)
    ok = item.isNotNull() & start.startswith("{")
    why = F.when(
        start.startswith("["), F.lit("JSON data is array-object, `strip_outer_array` must be TRUE.")
    ).otherwise(F.lit("Parse json data failed: not a valid JSON object"))
    return rows, ok, why, F.coalesce(item, F.lit(""))


def _mapping(meta, options: StreamLoadOptions, names: list[str]):
    """(target ColumnDefs, Spark Columns giving their values, derived columns for WHERE)."""
    from pyspark.sql import functions as F

    by_name = {c.name.lower(): c for c in meta.definition.columns}
    targets, values, derived = [], [], []
    items = options.columns or tuple(_plain(n) for n in names)
    for item in items:
        if item.expr is None:
            if item.name.lower() in by_name:  # else a helper column for expressions only
                target = column(meta.definition, item.name)
                if doris_types.is_sketch(target.type):  # a file holds no sketch: Doris's load functions build it
                    kind = doris_types.canonical(target.type).name
                    raise AnalysisError(
                        f"column '{target.name}' of type {kind} is loaded through a function in the columns "
                        f"header, e.g. {target.name}={_LOADER[kind]}(<file column>)"
                    )
                targets.append(target)
                value = F.col(f"`{item.name}`")
                values.append(_zoned_datetime(value) if target.type.name.upper().startswith("DATETIME") else value)
            continue
        if item.name.lower() not in by_name:
            raise AnalysisError(f"Unknown column '{item.name}' in table '{meta.name}'")
        target = column(meta.definition, item.name)
        what = f"expression in the columns header: {item.name} = {item.expr}"
        expr = _header_expression(item.expr, what, target if doris_types.is_sketch(target.type) else None)
        targets.append(target)
        values.append(expr)
        derived.append(expr.alias(item.name))
    if not targets:
        raise AnalysisError("The columns header names no column of the table")
    return targets, values, derived


#: A datetime text that names its zone: 'Z', an offset ('+08:00', '-0500') or a region ('Asia/Shanghai').
_ZONED_DATETIME = r"(Z|[+-][0-9]{2}:?[0-9]{2}|\s+[A-Za-z]+(/[A-Za-z_+-]+)+)$"


def _zoned_datetime(value):
    """A DATETIME text with its own zone becomes the wall time of the load's time zone (the
    Spark session's, see _load), as Doris converts it; other text is left to the column's
    cast. (A plain cast to TIMESTAMP_NTZ would drop the zone.)"""
    from pyspark.sql import functions as F

    text = value.cast("string")
    return F.when(text.rlike(_ZONED_DATETIME), F.to_timestamp(text).cast("timestamp_ntz").cast("string")).otherwise(
        value
    )


#: The load function of each sketch type a columns header names in a refusal.
_LOADER = {"BITMAP": "to_bitmap", "HLL": "hll_hash", "QUANTILE_STATE": "to_quantile_state"}


def _header_expression(text: str, what: str, sketch: ast.ColumnDef | None = None):
    """A `columns` / `where` header expression as a Spark Column, under a query's rules (Doris
    syntax, allowed functions only, no table or query: engine.query.expression_spark_sql), so a
    header reaches no more than a SELECT may: no reflect(), no file read by path. For a BITMAP /
    HLL / QUANTILE_STATE column (`sketch`), a load function gives the values the load builds the
    sketch from (statements.load.sketch_load)."""
    from pyspark.sql import functions as F

    try:
        sql = expression_spark_sql(text) if sketch is None else sketch_value_sql(sketch, ast.Literal(text, "expr"))
    except DorisqlError as exc:
        raise AnalysisError(f"Invalid {what}: {exc}") from None
    try:
        return F.expr(sql)
    except Exception:
        raise AnalysisError(f"Invalid {what}") from None


def _plain(name: str):
    return ColumnMapping(name)


def _load(session: Session, meta, options, path: Path, record: LoadRecord, outcome: Outcome, error_url) -> int | None:
    """Read, shape, count and load; fill `outcome`. Returns the Delta version committed.

    With a ``timezone`` header the load runs in a Spark session of that time zone (Doris: the
    load's time zone): now() / current_timestamp() and from_unixtime() in the columns header,
    and a datetime written with its zone or offset in the data ('2024-01-01 00:00:00+00:00'),
    give that zone's wall time."""
    with session.spark_in_time_zone(options.timezone):
        rows, ok, why, raw, names = _frames(session, meta, options, path)
        try:
            return _load_rows(session, meta, options, record, outcome, error_url, rows, ok, why, raw, names)
        finally:
            rows.unpersist()  # the JSON read is cached


def _load_rows(session: Session, meta, options, record, outcome: Outcome, error_url, rows, ok, why, raw, names):
    from pyspark.sql import functions as F

    targets, values, derived = _mapping(meta, options, names)
    selected = F.lit(True)
    if options.where:
        condition = _header_expression(options.where, f"where header: {options.where}")
        selected = F.coalesce(condition, F.lit(False))
    shaped = rows.select("*", *derived) if derived else rows
    counts = shaped.select(
        F.count(F.lit(1)).alias("total"),
        F.sum((~ok).cast("long")).alias("malformed"),
        F.sum((ok & ~selected).cast("long")).alias("unselected"),
    ).collect()[0]
    total, malformed, unselected = int(counts["total"]), int(counts["malformed"] or 0), int(counts["unselected"] or 0)
    outcome.filtered_rows = malformed
    source = shaped.filter(ok & selected).select(*[v.alias(f"__v{i}") for i, v in enumerate(values)])
    loaded: dict[str, int] = {}

    def policy(bad: int, considered: int) -> None:
        loaded["bad"], loaded["considered"] = bad, considered
        filtered = bad + malformed
        if filtered and filtered > options.max_filter_ratio * (total - unselected):
            raise LoadError("[DATA_QUALITY_ERROR]too many filtered rows")

    outcome.total_rows, outcome.unselected_rows = total, unselected
    if options.merge_type != "APPEND":
        merged = _merge(
            session, meta, options, record, outcome, error_url, shaped, ok, why, raw, selected, targets, values
        )
        if merged is not _UPSERT_ONLY:
            return merged
    version = None
    failure: LoadError | None = None
    given = [t.name for t in targets]
    partial = None
    if options.partial_columns:
        partial = partial_update.stream_load_plan(meta, given, options.new_key_behavior)
    elif options.columns:  # without a columns header every column is the data's
        check_sequence_given(meta.definition, given)
    try:
        with partial_update.applying(partial):  # completes the rows under the commit lock
            _result, written, _meta = load_frame(
                session,
                meta,
                source,
                targets,
                options.partitions,
                f"STREAM LOAD {record.db}.{meta.name} LABEL {record.label}",
                temporary=options.temporary_partitions,
                filter_policy=policy,
                metadata={LABEL_KEY: f"{record.db}/{record.label}", "dorisql.load_txn_id": str(record.txn_id)},
            )
        if written.committed:
            version = written.version
    except LoadError as exc:
        if "bad" not in loaded:
            raise
        failure = exc
    bad = loaded.get("bad", 0)
    outcome.filtered_rows = bad + malformed
    outcome.loaded_rows = 0 if failure else loaded.get("considered", 0) - bad
    if outcome.filtered_rows:
        outcome.error_url = error_url(
            _write_error_log(session, meta, options, record, shaped, ok, why, raw, source, targets, bad, rejected_rows)
        )
    if failure is not None:
        outcome.status, outcome.message = "Fail", str(failure)
    return version


def _merge(
    session: Session,
    meta,
    options,
    record,
    outcome: Outcome,
    error_url,
    shaped,
    ok,
    why,
    raw,
    selected,
    targets,
    values,
):
    """merge_type DELETE (every row deletes the row of its key) or MERGE (rows matching the
    ``delete`` condition delete, the others upsert), on a UNIQUE KEY table: the keys to delete
    are one key delete version (dorisql.tablets.deletes, as DELETE's), committed in one Delta
    commit carrying the label. A MERGE whose rows both delete and upsert is refused (nothing is
    committed): its two parts would be two Delta commits, and a load is one."""
    from pyspark.sql import functions as F

    keys = meta.definition.keys.columns
    position = {t.name.lower(): i for i, t in enumerate(targets)}
    missing = [k for k in keys if k.lower() not in position]
    if missing:
        raise AnalysisError(f"load by MERGE or DELETE needs every key column: {', '.join(missing)} is not loaded")
    rows = ok & selected
    deleting = rows
    if options.merge_type == "MERGE":
        condition = _header_expression(options.delete, f"delete header: {options.delete}")
        deleting = rows & F.coalesce(condition, F.lit(False))
        if shaped.filter(rows & ~deleting).limit(1).count():
            if shaped.filter(deleting).limit(1).count():
                raise NotSupportedError(
                    "Stream Load merge_type MERGE whose rows both delete and upsert: dorisql commits a load's "
                    "deletes and its rows in two Delta commits; send the deleted keys with merge_type DELETE "
                    "and the other rows with merge_type APPEND"
                )
            return _UPSERT_ONLY  # no row deletes: an ordinary load
    columns = [next(t for t in targets if t.name.lower() == k.lower()) for k in keys]
    picked = [values[position[k.lower()]].cast("string").alias(f"__k{i}") for i, k in enumerate(keys)]
    found = shaped.filter(deleting).select(*picked).distinct().limit(D.MAX_KEY_DELETE_ROWS + 1).collect()
    if len(found) > D.MAX_KEY_DELETE_ROWS:
        raise NotSupportedError(
            f"Stream Load merge_type {options.merge_type} of more than {D.MAX_KEY_DELETE_ROWS} keys "
            "(send them in several loads)"
        )
    key_rows, bad = set(), []
    for row in found:
        try:
            key_rows.add(
                tuple(
                    None if v is None else doris_types.format_value(doris_types.parse_value(v, c.type), c.type)
                    for v, c in zip(row, columns, strict=True)
                )
            )
        except DorisqlError as exc:
            bad.append((row, str(exc)))
    filtered = outcome.filtered_rows + len(bad)
    outcome.filtered_rows = filtered
    outcome.loaded_rows = outcome.total_rows - outcome.unselected_rows - filtered
    if filtered:
        lines = [
            f"Reason: {reason}. src line [{options.column_separator.join('' if v is None else v for v in row)}]; "
            for row, reason in bad
        ]
        outcome.error_url = error_url(
            _write_error_log(session, meta, options, record, shaped, ok, why, raw, None, targets, 0, None, extra=lines)
        )
        if filtered > options.max_filter_ratio * (outcome.total_rows - outcome.unselected_rows):
            outcome.status, outcome.message, outcome.loaded_rows = (
                "Fail",
                "[DATA_QUALITY_ERROR]too many filtered rows",
                0,
            )
            return None
    if not key_rows:
        return None
    with table_storage(session.warehouse, meta) as store:
        recorded = D.record_delete(
            store,
            f"STREAM LOAD {record.label} merge_type {options.merge_type}",
            None,
            created=session.now().strftime("%Y-%m-%d %H:%M:%S"),
            key_columns=[c.name for c in columns],
            key_rows=sorted(key_rows, key=lambda r: tuple("" if v is None else v for v in r)),
            metadata={LABEL_KEY: f"{record.db}/{record.label}", "dorisql.load_txn_id": str(record.txn_id)},
        )
    names = [p.name for p in meta.partitions]
    after_commit(
        "The load", recorded.version, lambda: bump_versions(session, meta, names, delta_version=recorded.version)
    )
    return recorded.version


#: What _merge returns for a MERGE none of whose rows deletes.
_UPSERT_ONLY = -1


def _write_error_log(
    session, meta, options, record, shaped, ok, why, raw, source, targets, bad, rejected_rows, extra=()
) -> str:
    """The rows left out, Doris's way: ``Reason: <why>. src line [<row>]; `` one per line
    (`extra`: lines of rows refused otherwise)."""
    lines = []
    for row in shaped.filter(~ok).select(why.alias("why"), raw.alias("raw")).limit(ERROR_LOG_ROWS).collect():
        lines.append(f"Reason: {row['why']}. src line [{row['raw']}]; ")
    lines.extend(list(extra)[: ERROR_LOG_ROWS - len(lines)])
    if bad and len(lines) < ERROR_LOG_ROWS:
        sep = options.column_separator
        for values, reason in rejected_rows(
            session, meta, source, targets, options.partitions, limit=ERROR_LOG_ROWS - len(lines)
        ):
            text = sep.join("\\N" if v is None else str(v) for v in values)
            lines.append(f"Reason: {reason}. src line [{text}]; ")
    folder = error_log_dir(session.warehouse)
    folder.mkdir(parents=True, exist_ok=True)
    _prune_error_logs(folder)
    name = f"error_log_{record.txn_id}_{os.urandom(4).hex()}"
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return name


def _prune_error_logs(folder: Path) -> None:
    """Forget error logs older than ERROR_LOG_RESERVE_SECONDS (each new log sweeps)."""
    cutoff = time.time() - ERROR_LOG_RESERVE_SECONDS
    for old in folder.glob("error_log_*"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:  # another load swept it first
            pass


# ---------------------------------------------------------------------- bodies left by dead loads

#: A body modified less than this many real seconds ago is never judged: its load may have
#: created it an instant ago (before taking its lock). A live load holds its lock from then on.
BODY_GRACE_SECONDS = 60.0


@dataclasses.dataclass(frozen=True)
class OrphanBody:
    """A Stream Load body no live load owns (its load was killed: SIGKILL, a lost machine)."""

    path: Path
    size: int
    #: The load it was the body of, while the catalog still has its label's record.
    record: LoadRecord | None


def orphan_bodies(session: Session, wall_now: float, *, remove: bool = False) -> list[OrphanBody]:
    """The bodies in ``_staging/stream_load`` that no live load owns, deleted when `remove`.

    A load holds its body's lock (`_body_lock`) from before the file exists until after it is
    deleted, in whichever process runs it, so a body whose lock can be taken belongs to a load
    that died; it is judged (and deleted) while that lock is held, so no load can start using it
    meanwhile. Bodies younger than BODY_GRACE_SECONDS of `wall_now` (epoch seconds, the real
    clock) are skipped. A dead load's LOADING record stays: the next request with its label
    asks the Delta log whether it committed (docs/stream_load.md)."""
    folder = body_dir(session.warehouse)
    if not folder.is_dir():
        return []
    candidates = []
    for path in sorted(folder.glob("*.body")):
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        if wall_now - st.st_mtime >= BODY_GRACE_SECONDS:
            candidates.append((path, st))
    if not candidates:
        return []
    records = {r.txn_id: r for r in session.catalog.list_loads()}
    found = []
    for path, st in candidates:
        try:
            with _body_lock(path):
                try:
                    now_st = path.stat()
                except FileNotFoundError:
                    continue
                if now_st.st_ino != st.st_ino:  # its load ended meanwhile; the lock made this one
                    path.unlink(missing_ok=True)
                    continue
                if remove:
                    path.unlink(missing_ok=True)
        except CommitConflictError:  # a live load holds it
            continue
        txn = path.name[: -len(".body")]
        found.append(OrphanBody(path, st.st_size, records.get(int(txn)) if txn.isdigit() else None))
    return found


# ---------------------------------------------------------------------- label expiry


def label_expired(record: LoadRecord, now: dt.datetime, keep_seconds: int) -> bool:
    """Doris's label cleaning (``label_keep_max_second``): a finished or failed load's label is
    forgotten once more than `keep_seconds` have passed since the load ended (its start, if no
    end was recorded) at `now`. A LOADING record never expires here: it may be the only trace of
    a load that committed and died before saying so (step 2 of stream_load resolves it)."""
    if record.state == LOADING:
        return False
    ended = record.finished_at or record.created_at
    return (now - ended).total_seconds() > keep_seconds


def expire_labels(session: Session, now: dt.datetime) -> list[LoadRecord]:
    """Forget the labels `label_expired` says are due at `now` (the trash job's clock); the
    records removed. A label claimed again meanwhile keeps its new record."""
    keep = int(session.frontend("label_keep_max_second"))
    due = [r for r in session.catalog.list_loads() if label_expired(r, now, keep)]
    session.catalog.forget_loads(due)
    return due
