"""INSERT, SELECT and EXPLAIN.

A load is one Spark pass: the source rows are cast to the table's types, routed to a partition
and a bucket, checked (strict mode), and written as Parquet into the table's folder; then one
Delta commit makes them visible, under the table's commit lock after re-checking that every
target partition still exists (a load racing DROP PARTITION fails cleanly instead of landing in
a dropped partition). Anything that fails before that commit leaves the table as it was.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import enum
import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

from dorisql import ast
from dorisql.bucketing.hashing import bucket_expr_sql
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, CommitConflictError, LoadError, NotSupportedError
from dorisql.partitioning.keys import routing_sql
from dorisql.query import short_circuit
from dorisql.query import table_functions as tvf
from dorisql.query.colocate_join import ColocationContext
from dorisql.query.planner import explain as explain_query
from dorisql.query.planner import register_view, run_query
from dorisql.query.sources import QuerySources
from dorisql.result import Float32, Result, ScaledDatetime
from dorisql.session.committed import after_commit
from dorisql.session.session import Session
from dorisql.statements.ddl.alter_columns import schema_changed
from dorisql.statements.ddl.colocation_groups import group_of
from dorisql.statements.ddl.partitions import bump_versions
from dorisql.statements.handler import Handlers
from dorisql.statements.load import partial_update, sketch_load
from dorisql.statements.load.new_partitions import ensure_partitions
from dorisql.statements.show.client_metadata import identity
from dorisql.statements.show.information_schema import schema_table_frame
from dorisql.storage.layout import BUCKET_COLUMN, PARTITION_COLUMN
from dorisql.storage.sizing import explained_bytes
from dorisql.storage.snapshot import WriteResult
from dorisql.storage.spark_views import release_views
from dorisql.syntax.cancel import checked
from dorisql.syntax.generator import quote_name, type_sql
from dorisql.tablets import transactions
from dorisql.tablets.consistency import require_storage, table_storage
from dorisql.tablets.merge_on_write import supersede_for
from dorisql.tablets.read import scan_table
from dorisql.tablets.tables import (
    LOAD_SEQ_COLUMN,
    ROW_SEQ_COLUMN,
    check_sequence_given,
    column,
    needs_sequence,
    storage_view,
)
from dorisql.translate.expressions import expression_over_columns
from dorisql.translate.literals import default_sql, is_complex, is_default, plain_default, plain_value, value_sql
from dorisql.translate.temporal import SCALE_METADATA, cast_sql
from dorisql.translate.variables import constant_select, substitute
from dorisql.types import (
    INT_RANGES,
    LARGEINT_STORAGE_MAX,
    canonical,
    is_date_like,
    is_string_like,
    max_byte_length,
    spark_string,
    spark_type,
)

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import Observation

_BAD = "__dorisql_bad"
_WHY = "__dorisql_why"
_RAW = "__dorisql_raw"


class _StrictModeViolation(Exception):
    """Raised inside the commit guard; turned into a LoadError (with sample rows) outside the lock."""


_SAMPLE_ROWS = 3


# ---------------------------------------------------------------------- reading


def _resolver(session: Session):
    def resolve(table: ast.TableName) -> TableMeta:
        return session.catalog.load_table(session.resolve_db(table.db), table.name)

    return resolve


def query_sources(session: Session) -> QuerySources:
    """How the query planner reaches the session: catalog lookups, table scans, table functions,
    information_schema, colocation groups, the session's values (``@@x``, DATABASE())."""

    spark = session.spark

    def read_table_function(name: str, properties: dict):
        return tvf.read_table_function(
            spark,
            name,
            properties,
            base_dir=session.base_dir,
            secure_path=session.config.frontend.get("user_files_secure_path"),
            staging=session.local_files,
        )

    return QuerySources(
        resolve_table=_resolver(session),
        scan=lambda meta, partitions, buckets: scan_table(session, meta, partitions, buckets),
        current_db=session.current_db,
        read_table_function=read_table_function,
        colocation=ColocationContext(
            group_of=lambda meta: group_of(session, meta),
            disabled=session.frontend("disable_colocate_join") == "true",
        ),
        system_table=lambda db, name: schema_table_frame(session, name, db),
        prepare=lambda tree: substitute(tree, session.session_vars, identity(session)),
        resolve_view=lambda name: session.catalog.get_view(session.resolve_db(name.db), name.name),
        pin=lambda tables: transactions.consistent_reads(session.catalog, session.warehouse, tables),
    )


def _run_query(session: Session, query: ast.Query):
    return run_query(session.spark, query, query_sources(session))


def select(session: Session, stmt: ast.Query) -> Result:
    # a query that reads a table is never constant: skip parsing it once more to find out
    constant = None if stmt.tables else constant_select(stmt.sql, session.session_vars, identity(session))
    if constant is not None:  # SELECT @@version_comment, DATABASE(), ...: no Spark needed
        return Result.table(*constant)
    point = short_circuit.answer(session, stmt)  # a point query: pyarrow, no Spark job
    if point is not None:
        return point
    df, _scans = _run_query(session, stmt)
    df = sketch_load.as_shown(df)  # BITMAP / HLL / QUANTILE_STATE values: NULL, as Doris's
    types = [field.dataType for field in df.schema.fields]
    scales = [field.metadata.get(SCALE_METADATA) for field in df.schema.fields]  # DATETIME(p)'s p
    rows = [tuple(_shown_value(v, t, s) for v, t, s in zip(row, types, scales)) for row in df.collect()]
    result = Result.table(df.columns, rows)
    result.column_types = [t.simpleString() for t in types]
    return result


def _shown_value(value, data_type, scale: int | None = None):
    """A fetched value with FLOAT values marked as such (`Float32`: Doris prints them with
    float32 digits; Spark hands them over as Python doubles), inside arrays, maps and structs too;
    a DATETIME(p) column's with its p (`ScaledDatetime`, `scale` from the column's metadata)."""
    from pyspark.sql import types as spark_types

    if value is None:
        return None
    if scale is not None and isinstance(value, dt.datetime):
        return ScaledDatetime.of(value, scale)
    if isinstance(data_type, spark_types.FloatType):
        return Float32(value)
    if isinstance(data_type, spark_types.ArrayType):
        return [_shown_value(v, data_type.elementType) for v in value]
    if isinstance(data_type, spark_types.MapType):
        return {_shown_value(k, data_type.keyType): _shown_value(v, data_type.valueType) for k, v in value.items()}
    if isinstance(data_type, spark_types.StructType):
        # shown as Doris shows a struct: {"name":value, ...}
        return {f.name: _shown_value(v, f.dataType) for v, f in zip(value, data_type.fields)}
    return value


def explain(session: Session, stmt: ast.Explain) -> Result:
    point = short_circuit.plan(session, stmt.query)
    if point is not None:  # answered without Spark: Doris's SHORT-CIRCUIT plan
        return Result.table(["Explain String"], [(line,) for line in short_circuit.explain_lines(point)])
    lines = explain_query(session.spark, stmt.query, query_sources(session), verbose=stmt.verbose)
    return Result.table(["Explain String"], [(line,) for line in lines])


# ---------------------------------------------------------------------- loading


class SourceSize(enum.Enum):
    """What a load's caller knows of its source's size, which decides how its rows are written.
    With the setting `small_load_max_bytes` 0, every load is written as LARGE."""

    #: Collected to this process as Arrow and written by pyarrow (`_small_source`): an INSERT's
    #: VALUES list is.
    SMALL = "small"
    #: Written by Spark's executors.
    LARGE = "large"
    #: Spark's estimate of the source decides between the two (`_small_source`).
    ESTIMATED = "estimated"


def insert(session: Session, stmt: ast.Insert, *, metadata=None, written: dict | None = None) -> Result:
    """INSERT INTO / INSERT OVERWRITE, into formal or (TEMPORARY PARTITION) temporary partitions.
    `metadata` goes into the Delta commit (a label: statements.load.load_jobs); `written`, when
    given, is filled with what was committed (committed, version, meta)."""

    db = session.resolve_db(stmt.table.db)
    meta = session.catalog.load_table(db, stmt.table.name)
    target = _target_columns(meta, stmt.columns)
    for i, c in enumerate(target):
        # a generated column's value is its expression's: only DEFAULT may stand for it
        given = stmt.rows is None or any(not is_default(row[i]) for row in stmt.rows if len(row) == len(target))
        if c.generated is not None and given:
            raise AnalysisError(
                f"The value specified for generated column '{c.name}' in table '{meta.name}' is not allowed."
            )
    # INSERT OVERWRITE replaces whole partitions: an ordinary load
    partial = None if stmt.overwrite else partial_update.insert_plan(meta, stmt.columns, session.session_vars)
    if partial is not None and session.transaction is not None:  # staged there without the merge-on-write step
        raise NotSupportedError("a partial column update (enable_unique_key_partial_update) inside a transaction")
    if partial is None and session.session_vars.get("require_sequence_in_insert", "true").lower() != "false":
        check_sequence_given(meta.definition, stmt.columns)
    with partial_update.applying(partial):  # completes the rows under the commit lock (_Load._write)
        return load_insert(session, stmt, meta, target, metadata=metadata, written=written)


def load_insert(
    session: Session, stmt: ast.Insert, meta: TableMeta, target: list[ast.ColumnDef], *, metadata=None, written=None
) -> Result:
    """An INSERT's rows into `target`, a generated column's values computed whatever the rows
    hold for it (UPDATE's query selects the old ones)."""
    require_storage(session.warehouse, meta)
    if stmt.rows is not None:
        source = _values_frame(session.spark, sketch_load.values_rows(stmt.rows, target), target, session.now())
    else:
        assert stmt.query is not None  # ast.Insert has exactly one of rows and query
        sources = query_sources(session)
        if sketch_load.has_sketches(target):  # load functions give the values sketches are built from
            sources = dataclasses.replace(sources, prepare=sketch_load.select_rewriter(target, sources.prepare))
        source, _ = run_query(session.spark, stmt.query, sources)
        if len(source.columns) != len(target):
            raise AnalysisError(
                f"Column count doesn't match value count: {len(target)} target columns, {len(source.columns)} selected"
            )
    result, stored, loaded = load_frame(
        session,
        meta,
        source,
        target,
        stmt.partitions,
        stmt.text,
        overwrite=stmt.overwrite,
        overwrite_detected=stmt.all_partitions,
        temporary=stmt.temporary,
        metadata=metadata,
        # a VALUES list: its rows are in the statement
        size=SourceSize.SMALL if stmt.rows is not None else SourceSize.ESTIMATED,
    )
    if written is not None:
        # every row filtered (non-strict mode): nothing committed, yet Doris's load finished
        filtered = not stored.committed and result.affected_rows == 0 and result.message is not None
        written.update(committed=stored.committed, version=stored.version, meta=loaded, all_filtered=filtered)
    return result


def load_frame(
    session: Session,
    meta: TableMeta,
    source,
    target,
    partitions=(),
    text=None,
    *,
    listed: bool = True,
    overwrite: bool = False,
    overwrite_detected: bool = False,
    temporary: bool = False,
    filter_policy=None,
    metadata=None,
    size: SourceSize = SourceSize.ESTIMATED,
):
    """Load a DataFrame (one column per `target` column, in order) into the table in one Delta
    commit: (Result, the store's write outcome, the table as loaded: with the partitions an
    AUTO PARTITION table gained).

    `listed` is False for a table not yet in the catalog (CREATE TABLE ... AS SELECT commits its
    data before the catalog entry): no partition can be dropped meanwhile, and the caller records
    the versions in the entry it creates. `temporary`: `partitions` name temporary partitions.

    INSERT OVERWRITE (`overwrite`) is one Delta commit that adds the new rows and removes every
    file of the partitions it replaces (DeltaStore.overwrite): the named ones, those the rows
    fall in (PARTITION (*): `overwrite_detected`), or all of the table's. Doris does it with
    temporary partitions swapped in at the end; the effect is the same: readers see the old or
    the new rows, a failure leaves the old ones, a load into another partition meanwhile is
    kept, and a target partition dropped meanwhile makes it fail (its guard).

    `filter_policy(bad, total)`, when given, decides instead of strict mode whether rows that
    fit no partition or column may be left out: it raises to refuse the load (Stream Load's
    max_filter_ratio), under the commit lock like the strict-mode check. `metadata` goes into
    the Delta commit's commitInfo (a Stream Load's label: docs/stream_load.md). `size`: what the
    caller knows of the source's size (`SourceSize`).

    The steps (`_Load`): the rows routed (`_Load.route`), counted as they are collected or
    written (`_Load.rows`), staged and committed under the guard (`_Load.commit`), and the
    committed versions recorded in the catalog (`_Load.record`)."""

    source = source.toDF(*[f"__src{i}" for i in range(len(target))])
    if sketch_load.has_sketches(target):  # BITMAP / HLL / QUANTILE_STATE built from the load's values
        source = sketch_load.pre_aggregate(session.spark, meta, source, target)
    if not partitions and not temporary:  # INSERT ... PARTITION (p) into an AUTO PARTITION table creates none
        meta = ensure_partitions(session, meta, source, target, listed=listed)
    load = _Load(
        session,
        meta,
        source,
        target,
        partitions,
        listed=listed,
        overwrite=overwrite,
        overwrite_detected=overwrite_detected,
        temporary=temporary,
        filter_policy=filter_policy,
    )
    routed, small = load.route(size)
    written = load.commit(load.rows(routed, small), text, metadata)
    return load.result(load.record(written)), written, meta


class _Load:
    """One load_frame call's state: the table as loaded, the partitions it addresses, and the
    row counts (filled when the rows are collected, or once Spark has written them)."""

    def __init__(
        self,
        session: Session,
        meta: TableMeta,
        source,
        target,
        partitions,
        *,
        listed: bool,
        overwrite: bool,
        overwrite_detected: bool,
        temporary: bool,
        filter_policy,
    ) -> None:
        self.session, self.meta, self.source, self.target = session, meta, source, target
        self.partitions, self.listed, self.temporary = partitions, listed, temporary
        self.overwrite, self.overwrite_detected, self.filter_policy = overwrite, overwrite_detected, filter_policy
        # The partitions the statement addresses: the formal ones, or the temporary ones.
        self.view = meta.temporary_view() if temporary else meta
        self.named: set[str] = set(self.view.partition_keys(partitions).values()) if partitions else set()
        # Every row that is kept lands in this partition (the only one named, or the table's only
        # one): it is written into that folder (DeltaStore._stage), without a __partition column.
        keys = self.named or set(self.view.partition_keys().values())
        self.only: str | None = next(iter(keys)) if len(keys) == 1 else None
        self.counts: dict[str, int] = {}
        #: A large load's counts, observed while Spark writes it (None: a small load, counted already).
        self.observation: Observation | None = None

    # ------------------------------------------------------------------ the rows

    def route(self, size: SourceSize):
        """(The routed frame, whether it is collected as a small load). Spark plans the size
        estimate, when one is needed, while it plans the routing statement."""

        session = self.session
        with _as_view(session, self.source) as relation:
            limit = int(session.frontend("small_load_max_bytes"))
            if limit == 0:  # every load is written by Spark's executors
                return self._routed(relation), False
            if size is not SourceSize.ESTIMATED:
                return self._routed(relation), size is SourceSize.SMALL
            estimate = _ESTIMATES.submit(_small_source, session.spark, relation, limit)
            try:
                routed = self._routed(relation)
            finally:
                wait([estimate])  # done with the view before it goes
            return routed, estimate.result()

    def _routed(self, relation: str):
        return _routed_frame(
            self.session,
            self.view,
            self.source,
            self.target,
            self.partitions,
            relation,
            with_partition=self.only is None,
        )

    def rows(self, routed, small: bool):
        """The rows to store, without the refused ones: a small load's collected (and counted)
        now, a large load's as a frame that counts them while Spark writes it."""
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        if small:
            rows, self.counts["total"], self.counts["bad"] = _collected(routed)
            return rows
        self.observation = Observation("dorisql_load")
        # SQL text, not Column objects: each Column function call is a Py4J round trip
        weight = f"`{_ROWS}`" if _ROWS in routed.columns else "1"  # a pre-aggregated row's source rows
        observed = routed.observe(
            self.observation,
            F.expr(f"sum({weight}) AS total"),
            F.expr(f"sum(CASE WHEN `{_BAD}` THEN {weight} ELSE 0 END) AS bad"),
        )
        return observed.filter(f"NOT `{_BAD}`").drop(_BAD, _ROWS)

    def strict_violation(self) -> bool:
        """Whether strict mode refuses the load (the counts taken first, when Spark observed
        them); with a `filter_policy`, it decides instead, raising to refuse."""

        counts = self.counts
        if self.observation is not None:  # filled once Spark has written the files
            metrics = self.observation.get
            counts["total"], counts["bad"] = int(metrics.get("total") or 0), int(metrics.get("bad") or 0)
        if self.filter_policy is not None:
            self.filter_policy(counts["bad"], counts["total"])  # raises to refuse
            return False
        return bool(counts["bad"]) and self.session.strict_mode()

    # ------------------------------------------------------------------ the commit

    def commit(self, rows, text, metadata):
        """Stage the rows and commit them in one Delta commit under the guard: the store's write
        outcome. A strict-mode refusal (before writing, under the lock, or with nothing written)
        is a LoadError with sample rows, and leaves the table as it was."""

        try:
            if self.observation is None and self.strict_violation():  # counted already: refused before writing
                raise _StrictModeViolation()
            if self.session.transaction is not None and self.listed:  # BEGIN ... COMMIT: staged until COMMIT
                return self._stage_in_transaction(rows, text)
            # A transaction committed into this table is finished first (its version comes first).
            transactions.settle(self.session.catalog, self.session.warehouse, [self.meta])
            # The commit is refused under the lock when the log is behind the catalog (a lost commit
            # whose version number this one would otherwise take).
            with table_storage(self.session.warehouse, self.meta) as store:
                written = self._write(store, rows, text, metadata)
            if not written.committed and self.strict_violation():  # nothing written, so the guard did not run
                raise _StrictModeViolation()
        except _StrictModeViolation:
            raise LoadError(
                _filtered_message(
                    self.session,
                    self.view,
                    self.source,
                    self.target,
                    self.partitions,
                    self.counts["bad"],
                    self.counts["total"],
                )
            ) from None
        return written

    def _stage_in_transaction(self, rows, text):
        """Inside BEGIN ... COMMIT: the rows written but not committed (the transaction commits
        them at COMMIT: dorisql.tablets.transactions); strict mode refuses as it would here."""
        if self.overwrite or self.temporary:
            raise NotSupportedError("INSERT OVERWRITE or into temporary partitions inside a transaction")
        size = int(self.session.frontend("target_file_size_bytes"))
        with table_storage(self.session.warehouse, self.meta) as store:
            staged = store.stage(rows, target_file_size=size, partition=self.only)
        if self.strict_violation():
            staged.discard()
            raise _StrictModeViolation()
        transactions.enlist(self.session, self.meta, staged, text or "")
        return WriteResult.nothing(-1)

    def _write(self, store, rows, text, metadata):
        size = int(self.session.frontend("target_file_size_bytes"))
        supersede = supersede_for(self.meta, store.path)  # merge-on-write: in the same commit
        supersede = partial_update.wrap(supersede, store.path)  # a partial update: its rows completed first
        if self.overwrite:
            return store.overwrite(
                rows,
                self.replaced,
                statement=text,
                metadata=metadata,
                expected_partitions=self.guard,
                target_file_size=size,
                partition=self.only,
                supersede=supersede,
            )
        return store.write(
            rows,
            operation="dorisql INSERT",
            statement=text,
            metadata=metadata,
            expected_partitions=self.guard,
            target_file_size=size,
            partition=self.only,
            supersede=supersede,
        )

    def guard(self, touched: frozenset) -> None:
        """Under the storage commit lock, just before the Delta commit: strict mode, every
        partition written still the same one, and the schema unchanged."""

        if self.strict_violation():
            raise _StrictModeViolation()
        if self.listed:  # CREATE TABLE ... AS SELECT loads a table not yet in the catalog
            current = self._current_table()
            _check_partitions_still_exist(self.view, self._as_addressed(current), set(touched) | self.named)

            if schema_changed(self.meta, current):  # ALTER TABLE ... COLUMN committed meanwhile
                raise CommitConflictError(
                    f"The schema of table '{current.name}' was changed while loading; "
                    "nothing was loaded, retry the load"
                )

    def replaced(self, touched: frozenset) -> set[str]:
        """Under the same lock, after the guard: the partitions INSERT OVERWRITE empties."""

        if self.overwrite_detected:
            return set(touched)
        if self.partitions:
            return self.named
        return set(self._as_addressed(self._current_table()).partition_keys().values())

    def _current_table(self) -> TableMeta:
        return self.session.catalog.load_table(self.meta.db, self.meta.name) if self.listed else self.meta

    def _as_addressed(self, table: TableMeta) -> TableMeta:
        return table.temporary_view() if self.temporary else table

    # ------------------------------------------------------------------ after the commit

    def record(self, written) -> str | None:
        """After the commit: the loaded partitions' versions in the catalog (a warning when it
        cannot record them), or, with nothing committed, the counts taken."""

        if written.committed and self.listed:
            # Committed: the statement has happened. A catalog that cannot record it now is a
            # warning on its success, not its failure (engine.committed: a retry would load twice).

            changed = set(written.partitions) | {f.partition for f in written.removed}
            return after_commit(
                "The load",
                written.version,
                lambda: _bump_loaded_partitions(
                    self.session, self.view, changed, written.version, temporary=self.temporary
                ),
            )
        if not written.committed:
            self.strict_violation()
        return None

    def result(self, warning: str | None) -> Result:
        total, bad = self.counts["total"], self.counts["bad"]
        message = f"{bad} rows filtered (enable_insert_strict = false)" if bad else None
        result = Result.ok(total - bad, message=message)
        if warning:
            result.warnings.append(warning)
        return result


#: Threads that plan a load's size estimate while the caller plans its routing statement (each
#: its own Py4J connection: the two statements are planned at once).
_ESTIMATES = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dorisql-estimate")


@contextlib.contextmanager
def _as_view(session: Session, source) -> Iterator[str]:
    """`source` as a temporary view for the statements that read it, dropped once they are
    planned (on Spark Connect, at the statement's end: query.release_views)."""

    relation = register_view(source, "load")
    try:
        yield relation
    finally:
        release_views(session.spark, [relation])


#: A pre-aggregated load's source rows per row (statements.load.sketch_load), counted as loaded.
_ROWS = sketch_load.ROWS_COLUMN


def _collected(routed):
    """A small load's routed rows as one Arrow table (Spark's only job for it): (the rows to
    store; rows in all; rows refused)."""
    import pyarrow.compute as pc

    table = routed.toArrow()
    refused = table[_BAD]
    if _ROWS in table.column_names:  # pre-aggregated rows (sketch_load): the source rows each stands for
        weights = table[_ROWS]
        total = int(pc.sum(weights).as_py() or 0)
        bad = int(pc.sum(pc.if_else(refused, weights, 0)).as_py() or 0)
        table = table.drop_columns([_ROWS])
    else:
        total, bad = table.num_rows, int(pc.sum(refused.cast("int64")).as_py() or 0)
    kept = table.filter(pc.invert(refused)) if bad else table
    return kept.drop_columns([_BAD]), total, bad


def _small_source(spark, relation: str, limit: int) -> bool:
    """Spark estimates the view `relation` at most `limit` bytes (its optimized plan's
    sizeInBytes: a file's size on disk, a VALUES list's rows; an unknown size, a cross join's or
    a large numbers() table's, is too big).

    `limit` is the setting `small_load_max_bytes`. Such a load is collected to this process as
    Arrow and written by pyarrow (`_collected`, DeltaStore._stage): one Spark job that only
    reads and routes the rows, no shuffle by tablet and no Spark write (its planning, output
    committer and per-file costs outweigh a small load's writing). The bound keeps the collected
    rows to a few hundred MB at most; larger loads keep Spark's parallel write on the executors.

    EXPLAIN COST as a statement (it plans, runs nothing), not DataFrame.explain, which prints:
    catching its output would swap sys.stdout for every thread of the process (a server's other
    connections, the shell's output)."""

    # One row, the plan; or, when Spark cannot plan the source, its error in several rows (no
    # size: too big), which the routing statement then raises as Spark's error.
    lines = spark.sql(f"EXPLAIN COST SELECT * FROM {relation}").collect()
    size = explained_bytes(lines[0][0]) if len(lines) == 1 else None
    return size is not None and size <= limit


def _target_columns(meta: TableMeta, columns: tuple[str, ...]) -> list[ast.ColumnDef]:
    if not columns:
        return list(meta.definition.columns)
    seen: set[str] = set()
    result = []
    for name in columns:
        col = column(meta.definition, name)
        if col.name.lower() in seen:
            raise AnalysisError(f"Column '{name}' specified twice")
        seen.add(col.name.lower())
        result.append(col)
    return result


def _values_frame(spark, rows, target, now=None):
    """INSERT ... VALUES as a Spark DataFrame of raw (uncast) values, one column per target
    (`DEFAULT` is the column's default value).

    Rows of plain literals (the common case, and every large one: a 16 MiB statement holds some
    850,000 rows) go to Spark as Arrow batches of strings (`_plain_columns`), the values Spark
    SQL's VALUES list would have held: as many bytes in the driver as the values themselves.
    Spark SQL text of that size made the driver parse and analyse millions of expression nodes
    and run out of memory. Rows with expressions (``now()``, ``1 + 1``) or ARRAY/MAP/STRUCT
    values are Spark SQL, one SELECT per row joined by UNION ALL, whose expressions Spark
    evaluates."""

    width = len(target)
    for i, row in enumerate(checked(rows), start=1):
        if len(row) != width:
            raise AnalysisError(
                f"Column count doesn't match value count at row {i}: expected {width} values, got {len(row)}"
            )
    plain = _plain_columns(rows, target, now)
    if plain is not None:
        import pyarrow as pa

        table = pa.table({f"__src{i}": pa.array(values, type=pa.string()) for i, values in enumerate(plain)})
        return spark.createDataFrame(table)
    # One SELECT per row, not an inline VALUES table: Spark evaluates an inline table's
    # expressions while planning and refuses one it cannot fold, as the size bounds of
    # functions._bound_sizes (raise_error) are. UNION ALL widens the types as VALUES does.
    body = " UNION ALL ".join(
        "SELECT "
        + ", ".join(
            f"{default_sql(c, now) if is_default(v) else value_sql(c, v)} AS __src{i}"
            for i, (c, v) in enumerate(zip(target, row))
        )
        for row in rows
    )
    return spark.sql(body)


def _plain_columns(rows, target, now=None) -> list[list[str | None]] | None:
    """The VALUES rows as one list of strings per column (None: NULL), exactly the values
    `sql_literals.value_sql` writes as Spark string literals, when every value is a plain
    literal (a string, a number, TRUE/FALSE, NULL, a signed number, or DEFAULT with a constant
    default); None when one is not (an expression, an ARRAY/MAP/STRUCT column)."""

    if any(is_complex(c.type) for c in target):
        return None
    defaults: list[tuple[bool, str | None]] = [plain_default(c, now) for c in target]
    columns: list[list[str | None]] = [[] for _ in target]
    for row in checked(rows):
        for i, literal in enumerate(row):
            if is_default(literal):
                known, value = defaults[i]
            else:
                known, value = plain_value(literal)
            if not known:
                return None
            columns[i].append(value)
    return columns


def _routed_frame(
    session: Session,
    meta: TableMeta,
    source,
    target: list[ast.ColumnDef],
    only_partitions: tuple[str, ...],
    relation: str,
    diagnose: bool = False,
    with_partition: bool = True,
):
    """Cast to the table's types, add __partition/__bucket (and load order), and flag bad rows.
    `relation`: `source` as a view (`_as_view`), which the statement reads. Without
    `with_partition` (every row goes to one partition) the rows are routed and checked, but
    carry no __partition.

    With ``diagnose`` (only on the failure path: strict mode refused the load) the frame also
    carries the raw source values and, per bad row, why it was refused (_WHY).

    The frame is one SQL statement over the source (``spark.sql`` with the source as a
    relation): building it from Column objects cost a Py4J round trip per function call, some
    500 for a three-column table, and each is slow on a busy driver. A column whose source
    already has the table's type is neither cast nor checked for fit (Spark would drop the cast;
    the check could never fire). Rows are routed among the named partitions only when the
    statement names some (a row outside them is refused either way), so a one-partition load
    tests one range per row instead of every partition's.

    The statement's three levels: the typed columns with the value checks (`_typed_columns`),
    each row's partition (`_partition_routing`), and the outputs (`_diagnosis_outputs`, or
    `_storage_outputs`)."""

    definition = meta.definition
    columns, checks = _typed_columns(session, definition, source, target)
    value_bad = " OR ".join(f"coalesce({check}, false)" for check, _ in checks) or "false"
    typed = [*columns, f"{value_bad} AS `{_BAD}`"]
    if diagnose:
        typed += _diagnosis_columns(target, checks)
    routed, names, partition_ok = _partition_routing(meta, only_partitions, diagnose)
    kept = [quote_name(c.name) for c in definition.columns]
    if _ROWS in source.columns:  # carried to the counts (_collected, _Load.rows)
        typed.append(f"`{_ROWS}`")
        kept.append(f"`{_ROWS}`")
    outputs = [*kept, f"`{_BAD}` OR NOT coalesce({partition_ok}, false) AS `{_BAD}`"]
    if diagnose:
        outputs += _diagnosis_outputs(target, names, partition_ok)
    else:
        outputs += _storage_outputs(session, routed, with_partition)
    head = (
        f"SELECT {', '.join(outputs)} FROM (SELECT *, {routing_sql(routed)} AS `{PARTITION_COLUMN}` FROM "
        f"(SELECT {', '.join(typed)} FROM "
    )
    return session.spark.sql(f"{head}{relation}) AS typed) AS routed")


def _typed_columns(
    session: Session, definition: ast.CreateTable, source, target: list[ast.ColumnDef]
) -> tuple[list[str], list[tuple[str, str]]]:
    """(Each table column's value, cast to its type, as SQL; the checks its value must pass:
    (SQL condition that the value is bad, SQL text of why)). A column the load does not name is
    its default."""

    by_name = {c.name.lower(): i for i, c in enumerate(target)}
    source_types = {f.name: f.dataType.simpleString() for f in source.schema.fields}
    checks: list[tuple[str, str]] = []
    values: dict[str, str] = {}
    # Generated columns last: each is computed from the row's typed values, in definition order
    # (one reads only generated columns defined before it: dorisql.syntax.generated).
    for c in sorted(definition.columns, key=lambda c: c.generated is not None):
        stype = spark_type(c.type)
        index = None if c.generated is not None else by_name.get(c.name.lower())
        if c.generated is not None:
            raw = f"({expression_over_columns(c.generated, values)})"
        else:
            raw = default_sql(c, session.now()) if index is None else f"`__src{index}`"
        source_type = source_types.get(f"__src{index}") if index is not None else None
        if source_type == stype.lower().replace(" ", "") and not is_date_like(c.type):
            typed = raw  # already the column's type: nothing to cast, nothing that cannot fit
        else:
            # DATE / DATETIME(p) as Doris stores them: compact forms, rounded to the scale
            typed = cast_sql(raw, source_type, c.type)
            # The value does not fit the type (not a number/date, or out of range).
            checks.append((f"({raw} IS NOT NULL AND {typed} IS NULL)", _misfit_reason(c, raw)))
        # (a column a partial update leaves to the current rows is checked once they are known)
        if c.nullable is False and not (index is None and partial_update.leaves(c.name)):
            checks.append((f"({typed} IS NULL)", spark_string(f"column `{c.name}` is NOT NULL but the value is NULL")))
        if is_string_like(c.type):
            # Bytes that are not UTF-8 (a CSV body or a local() file read as they are): Doris's
            # CSV reader filters the row ("all CSV files must be UTF-8 encoded"); never U+FFFD.
            checks.append((f"(NOT is_valid_utf8({typed}))", spark_string(_NOT_UTF8.format(name=c.name))))
        length = max_byte_length(c.type)  # Doris counts UTF-8 bytes
        if length is not None:
            reason = _format_sql(f"column `{c.name}`: '%s' is longer than {_type_text(c.type)} ({length} bytes)", raw)
            checks.append((f"(octet_length({typed}) > {length})", reason))
        values[c.name.lower()] = typed
    return [f"{values[c.name.lower()]} AS {quote_name(c.name)}" for c in definition.columns], checks


def _diagnosis_columns(target: list[ast.ColumnDef], checks: list[tuple[str, str]]) -> list[str]:
    """With diagnose, beside the typed columns: the raw source values as text, and why each
    value check a row fails failed (_WHY)."""

    extra = [f"CAST(`__src{i}` AS STRING) AS `{_RAW}{i}`" for i in range(len(target))]
    reasons = ", ".join(f"CASE WHEN coalesce({check}, false) THEN {reason} END" for check, reason in checks)
    extra.append(f"concat_ws('; '{', ' if reasons else ''}{reasons}) AS `{_WHY}`")
    return extra


def _partition_routing(
    meta: TableMeta, only_partitions: tuple[str, ...], diagnose: bool
) -> tuple[TableMeta, list[str], str]:
    """(The table whose partitions the rows are routed among; the partitions the statement
    names; the SQL condition that a row's partition is one it may load into)."""

    # Rows are routed to partition names to explain a refusal, else straight to storage keys.
    routed = meta if diagnose else storage_view(meta)
    names: list[str] = []
    partition_ok = f"`{PARTITION_COLUMN}` IS NOT NULL"
    if only_partitions:
        names = [_existing_partition(meta, name) for name in only_partitions]
        allowed = names if diagnose else list(meta.partition_keys(names).values())
        partition_ok += f" AND `{PARTITION_COLUMN}` IN ({', '.join(spark_string(n) for n in allowed)})"
        # A DEFAULT list partition holds the rows no other partition does: routing among the
        # named ones only would send it rows of the others.
        if not diagnose and all(p.values != () for p in routed.partitions if p.name in allowed):
            routed = dataclasses.replace(routed, partitions=tuple(p for p in routed.partitions if p.name in allowed))
    return routed, names, partition_ok


def _diagnosis_outputs(target: list[ast.ColumnDef], names: list[str], partition_ok: str) -> list[str]:
    """With diagnose, after the kept columns: the raw values, every reason a row was refused
    (its values' and its partition's), and its partition."""

    # Doris's words (BE VOlapTableSink: "no partition for this tuple. tuple=...")
    no_partition = f"WHEN `{PARTITION_COLUMN}` IS NULL THEN 'no partition for this tuple'"
    if names:
        why = spark_string(f"its partition %s is not one of PARTITION ({', '.join(names)})")
        no_partition += f" WHEN NOT ({partition_ok}) THEN format_string({why}, `{PARTITION_COLUMN}`)"
    return [
        *[f"`{_RAW}{i}`" for i in range(len(target))],
        # an empty reason is NULL, which concat_ws skips: no leading "; "
        f"concat_ws('; ', CASE WHEN `{_WHY}` != '' THEN `{_WHY}` END, CASE {no_partition} END) AS `{_WHY}`",
        f"`{PARTITION_COLUMN}`",
    ]


def _storage_outputs(session: Session, routed: TableMeta, with_partition: bool) -> list[str]:
    """For storing, after the kept columns: the partition (unless every row goes to one), the
    bucket, and the load order of a table that needs one (sequence columns)."""

    outputs = [
        *([f"`{PARTITION_COLUMN}`"] if with_partition else []),
        f"{_bucket_sql(routed)} AS `{BUCKET_COLUMN}`",
    ]
    if needs_sequence(routed.definition):
        outputs.append(f"CAST({session.catalog.next_id()} AS BIGINT) AS `{LOAD_SEQ_COLUMN}`")
        outputs.append(f"monotonically_increasing_id() AS `{ROW_SEQ_COLUMN}`")
    return outputs


#: Why a row with a text value that is not UTF-8 was filtered; Doris's CSV reader says
#: "Invalid file encoding: all CSV files must be UTF-8 encoded".
_NOT_UTF8 = "column `{name}`: invalid file encoding: the value is not UTF-8 (all files must be UTF-8 encoded)"


def _format_sql(template: str, raw: str) -> str:
    """SQL for Spark's format_string(template, raw as text)."""
    return f"format_string({spark_string(template)}, CAST({raw} AS STRING))"


def _bucket_sql(meta: TableMeta) -> str:
    """Each row's bucket. HASH: ``pmod(hash(cols), n)`` with its partition's bucket count n;
    RANDOM: one randomly chosen tablet per partition for the whole load (Doris: each load batch
    goes to a random tablet).

    Partitions usually share one bucket count: then the expression has no per-partition CASE
    (comparing every row's partition name against each partition is the costliest part of
    routing a wide table). Otherwise only partitions whose count differs from the most common
    one are named, in IN lists (hash lookups)."""
    from collections import Counter

    partitions = list(meta.partitions)
    if not partitions:
        return "CAST(NULL AS INT)"
    distribution = meta.definition.distribution
    if distribution is not None and distribution.kind == "HASH":

        def per(count_sql: str) -> str:
            return bucket_expr_sql([f"`{c}`" for c in distribution.columns], count_sql)

        common = Counter(p.buckets for p in partitions).most_common(1)[0][0]
        others: dict[int, list[str]] = {}
        for p in partitions:
            if p.buckets != common:
                others.setdefault(p.buckets, []).append(p.name)
        if not others:
            return f"CAST({per(str(common))} AS INT)"
        cases = " ".join(
            f"WHEN `{PARTITION_COLUMN}` IN ({', '.join(spark_string(n) for n in names)}) THEN {count}"
            for count, names in sorted(others.items())
        )
        return f"CAST({per(f'CASE {cases} ELSE {common} END')} AS INT)"
    # RANDOM
    counts = {p.buckets for p in partitions}
    if len(counts) == 1:
        return f"CAST({random.randrange(counts.pop())} AS INT)"
    cases = " ".join(f"WHEN {spark_string(p.name)} THEN {random.randrange(p.buckets)}" for p in partitions)
    return f"CAST(CASE `{PARTITION_COLUMN}` {cases} END AS INT)"


def _type_text(data_type: ast.DataType) -> str:
    return type_sql(data_type)


def _misfit_reason(c: ast.ColumnDef, raw: str) -> str:
    """Why a value (`raw`, SQL) does not fit its column, naming the column, the value and the
    type's range: SQL for the text."""

    name = canonical(c.type).name
    if name == "LARGEINT":
        rule = (
            f"not an integer within dorisql's LARGEINT range [-(10^38-1), 10^38-1] = "
            f"[-{LARGEINT_STORAGE_MAX}, {LARGEINT_STORAGE_MAX}] (LARGEINT is stored as DECIMAL(38,0))"
        )
    elif name in INT_RANGES:
        low, high = INT_RANGES[name]
        rule = f"not a {name} in [{low}, {high}]"
    else:
        rule = f"not a valid {_type_text(c.type)}"
    return _format_sql(f"column `{c.name}`: '%s' is {rule}", raw)


def _existing_partition(meta: TableMeta, name: str) -> str:
    found = meta.partition(name)
    if found is None:
        raise AnalysisError(f"Unknown partition '{name}' in table '{meta.name}'")
    return found.name


def _filtered_message(session: Session, meta: TableMeta, source, target, only_partitions, bad: int, total: int) -> str:
    """Doris's strict-mode refusal, with the count and a few of the offending rows (as given,
    with the reason each was refused)."""
    from pyspark.sql import functions as F

    with _as_view(session, source) as relation:
        diagnosed = _routed_frame(session, meta, source, target, only_partitions, relation, diagnose=True)
    raw = [f"{_RAW}{i}" for i in range(len(target))]
    sample = diagnosed.filter(F.col(_BAD)).select(*raw, _WHY).limit(_SAMPLE_ROWS).collect()
    names = ", ".join(c.name for c in target)
    shown = "; ".join(
        "(" + ", ".join("NULL" if v is None else str(v) for v in row[:-1]) + ")" + (f": {row[-1]}" if row[-1] else "")
        for row in sample
    )
    return (
        f"Insert has filtered data in strict mode: {bad} of {total} rows fit no partition or have "
        f"values that do not fit their column. First {len(sample)} refused rows ({names}): {shown}. "
        f"Nothing was loaded; SET enable_insert_strict = false to load the other rows."
    )


def rejected_rows(session: Session, meta: TableMeta, source, target, only_partitions=(), limit: int = 1000):
    """Up to `limit` source rows a load leaves out (values that fit no column or no partition):
    (the row's values as text, why), for a load's error log (Stream Load's ErrorURL)."""
    from pyspark.sql import functions as F

    source = source.toDF(*[f"__src{i}" for i in range(len(target))])
    if sketch_load.has_sketches(target):
        source = sketch_load.pre_aggregate(session.spark, meta, source, target)
    with _as_view(session, source) as relation:
        diagnosed = _routed_frame(session, meta, source, target, only_partitions, relation, diagnose=True)
    raw = [f"{_RAW}{i}" for i in range(len(target))]
    return [
        (tuple(row[:-1]), row[-1] or "")
        for row in diagnosed.filter(F.col(_BAD)).select(*raw, _WHY).limit(limit).collect()
    ]


def _check_partitions_still_exist(loaded: TableMeta, current: TableMeta, touched: set[str]) -> None:
    """`touched`: the Delta partition values the load wrote; each must still be the same partition."""
    before = {loaded.partition_key(p): p for p in loaded.partitions}
    now = {current.partition_key(p): p.id for p in current.partitions}
    gone = sorted(
        before[key].name if key in before else key
        for key in touched
        if key not in before or now.get(key) != before[key].id
    )
    if gone:
        raise CommitConflictError(
            f"Partition {', '.join(gone)} of table '{current.name}' was dropped or replaced while loading; "
            "nothing was loaded"
        )


def _bump_loaded_partitions(
    session: Session, meta: TableMeta, touched: set[str], delta_version: int, temporary: bool = False
) -> None:
    names = {meta.partition_key(p): p.name for p in meta.partitions}
    bump_versions(
        session, meta, [names[key] for key in touched if key in names], delta_version=delta_version, temporary=temporary
    )


HANDLERS: Handlers = {
    # (ast.Insert: statements.load.load_jobs.insert_job, an INSERT as a labelled load job)
    ast.Query: select,
    ast.Explain: explain,
}
