"""The colocate join: two tables of one stable colocation group, joined on all their bucket
columns, are joined bucket by bucket with no shuffle (docs/colocation.md).

Bucket b of every table of a group holds exactly the rows whose bucket columns hash to b, so the
join of the two tables is the union over b of the joins of their bucket-b files. The plan:

- `decide` (pure, called by the planner's `plan_join` seam) says whether a join qualifies, or
  why not, with Apache Doris's reasons (DistributedPlanColocateRule): ``Session disabled``
  (here the FE switch ``disable_colocate_join``), ``Tables are not in the same group``,
  ``Colocate group is not stable``, ``Inconsistent distribution of table and queries`` (the
  join is not on every bucket column, in bucket-column order);
- `build` makes one Spark DataFrame of the joined rows: ``spark.range(B)`` split into B tasks,
  and ``mapInArrow`` in each task reads that bucket's Parquet files of both (pruned) tables with
  pyarrow, applies each table's key model (UNIQUE: latest row; AGGREGATE: merged) and joins them
  with ``pyarrow.Table.join``. No row crosses the network for the join; what runs on top (a
  filter, aggregates, ORDER BY) is Spark's as before.

Result columns are positional (``__l0``, ``__l1``, ... for the left table, ``__r0``, ... for the
right); the planner points the query's column references at them.

A chain ``FROM t0 JOIN t1 ON ... JOIN t2 ON ...`` of INNER joins, each joining its table to an
earlier one of the chain on all the bucket columns, is joined the same way (`build_chain`): every
table's bucket b holds the rows whose bucket columns hash to b, so the chain's rows of bucket b
are the joins of the bucket-b files of all of them. Its columns are ``__c<table>_<column>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from dorisql.catalog.base import ColocationGroup
from dorisql.catalog.model import TableMeta
from dorisql.errors import NotSupportedError
from dorisql.query.residual import to_expression
from dorisql.storage.layout import BUCKET_IN_PATH, commit_version, partition_of_path
from dorisql.tablets.deletes import DeleteVersion, applicable, arrow_keep_mask
from dorisql.tablets.merge import key_model, needs_merge
from dorisql.tablets.read import TableScan
from dorisql.tablets.tables import COMMIT_SEQ_COLUMN, LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN, sequence_column

__all__ = [
    "ColocationContext",
    "Decision",
    "decide",
    "build",
    "build_chain",
    "JOIN_TYPES",
    "column_name",
    "chain_column",
]

#: SQL join kinds (as JoinSides.kind spells them) -> pyarrow join types.
JOIN_TYPES = {
    "INNER": "inner",
    "LEFT": "left outer",
    "LEFT OUTER": "left outer",
    "RIGHT": "right outer",
    "RIGHT OUTER": "right outer",
    "FULL": "full outer",
    "FULL OUTER": "full outer",
    "LEFT SEMI": "left semi",
    "LEFT ANTI": "left anti",
    "RIGHT SEMI": "right semi",
    "RIGHT ANTI": "right anti",
}

# Doris's reasons (fe DistributedPlanColocateRule), and dorisql's own where Doris has none.
SESSION_DISABLED = "Session disabled"
NOT_SAME_GROUP = "Tables are not in the same group"
NOT_STABLE = "Colocate group is not stable"
INCONSISTENT = "Inconsistent distribution of table and queries"


@dataclass(frozen=True)
class ColocationContext:
    """What the planner needs to know about colocation: each table's group, the FE switch."""

    group_of: Callable[[TableMeta], ColocationGroup | None]
    disabled: bool = False


@dataclass(frozen=True)
class Decision:
    colocate: bool
    reason: str = ""
    group: ColocationGroup | None = None
    #: (left column, right column) per bucket column, in bucket-column order
    keys: tuple[tuple[str, str], ...] = ()
    join_type: str = ""
    #: the other ON conditions of an OUTER/SEMI/ANTI join, evaluated in each bucket's task
    #: (dorisql.query.residual tree); an INNER join's are a filter after the join, in Spark
    residual: tuple | None = None
    #: in a chain of more than two tables: the position in the chain of the earlier table this
    #: join's table is joined to (`keys` pair its columns with the joined table's); -1: two tables
    chain_left: int = -1


def column_name(side: str, index: int) -> str:
    return f"__{side}{index}"


def chain_column(table: int, index: int) -> str:
    """A chain's result column: column `index` of the chain's `table`-th table."""
    return f"__c{table}_{index}"


def decide(
    left: TableMeta,
    right: TableMeta,
    kind: str,
    equalities: Sequence[tuple[str, str]],
    context: ColocationContext,
) -> Decision:
    """May this join run colocated? `equalities` are the ON clause's ``left.col = right.col``
    conjuncts (column names as written). Other conditions never stop it: both rows of a pair
    that could match are in one bucket (the planner checks that they can be evaluated there:
    dorisql.query.residual)."""
    if context.disabled:
        return Decision(False, f"{SESSION_DISABLED} (disable_colocate_join)")
    lg, rg = context.group_of(left), context.group_of(right)
    if lg is None or rg is None or (lg.db, lg.name) != (rg.db, rg.name):
        return Decision(False, NOT_SAME_GROUP)
    if not lg.is_stable:
        return Decision(False, NOT_STABLE)
    join_type = JOIN_TYPES.get(kind.upper())
    if join_type is None:
        return Decision(False, f"{kind} JOIN is not planned colocated")
    ldist = [c.lower() for c in (left.definition.distribution.columns if left.definition.distribution else ())]
    rdist = [c.lower() for c in (right.definition.distribution.columns if right.definition.distribution else ())]
    pairs = {(a.lower(), b.lower()) for a, b in equalities}
    keys = tuple((ldist[i], rdist[i]) for i in range(len(ldist)) if i < len(rdist) and (ldist[i], rdist[i]) in pairs)
    if not ldist or len(keys) != len(ldist):
        return Decision(False, INCONSISTENT)
    if left.column_versions or right.column_versions:
        # added columns are filled per file by the Spark scan (dorisql.tablets.read.scan_table), not here
        return Decision(False, "a table of the join had columns added by ALTER TABLE ADD COLUMN")
    return Decision(True, group=lg, keys=keys, join_type=join_type)


# ---------------------------------------------------------------------- the joined DataFrame

_BUCKET_IN_PATH = re.compile(BUCKET_IN_PATH)


def _files_by_bucket(files: Sequence[str]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for f in files:
        m = _BUCKET_IN_PATH.search(f)
        if m is None:
            raise NotSupportedError(f"colocate join: data file outside a bucket folder: {f}")
        out.setdefault(int(m.group(1)), []).append(f)
    return out


@dataclass(frozen=True)
class _Side:
    """One table as a task needs it: its files per bucket, columns, key model."""

    files: dict[int, list[str]]
    columns: tuple[str, ...]
    model: str
    keys: tuple[str, ...]
    aggs: tuple[str, ...]  # per column: "" for keys, else SUM/MAX/MIN/REPLACE/REPLACE_IF_NOT_NULL
    #: The delete versions the scan applies (dorisql.tablets.deletes): applied per file here.
    deletes: tuple[DeleteVersion, ...] = ()
    #: UNIQUE KEY with a sequence column (tablets.tables.sequence_column): its position.
    sequence: int | None = None


def _local_path(uri: str) -> str:
    """A file URI as Spark lists it (``file:///a%20b/x.parquet``) -> the path pyarrow opens;
    other schemes stay URIs (pyarrow's filesystems read them)."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme in ("file", "") else uri


def side_of(meta: TableMeta, files: Sequence[str], deletes: Sequence[DeleteVersion] = ()) -> _Side:
    model = key_model(meta) if needs_merge(meta) else "DUPLICATE"  # merge-on-write: one row per key
    keys = tuple(meta.definition.keys.columns) if meta.definition.keys is not None else ()
    key_set = {k.lower() for k in keys}
    aggs = tuple("" if c.name.lower() in key_set else (c.agg_type or "").upper() for c in meta.definition.columns)
    if model == "AGGREGATE":
        for c, agg in zip(meta.definition.columns, aggs):
            if agg and agg not in ("SUM", "MAX", "MIN", "REPLACE", "REPLACE_IF_NOT_NULL"):
                raise NotSupportedError(f"reading {agg} column '{c.name}' of AGGREGATE KEY table {meta.name}")
    return _Side(
        files=_files_by_bucket([_local_path(f) for f in files]),
        columns=tuple(c.name for c in meta.definition.columns),
        model=model,
        keys=keys,
        aggs=aggs,
        deletes=tuple(deletes),
        sequence=_sequence_index(meta),
    )


def _sequence_index(meta: TableMeta) -> int | None:
    name = sequence_column(meta.definition)
    if name is None:
        return None
    return next(i for i, c in enumerate(meta.definition.columns) if c.name.lower() == name.lower())


def _read_indices(side: _Side, wanted: Collection[int]) -> list[int]:
    """The column positions to read from `side`'s files: the wanted ones, plus the key columns
    its key model groups by (UNIQUE/AGGREGATE merge per key even when a key is not selected)."""
    if side.model == "DUPLICATE":
        return sorted(set(wanted))
    key_set = {k.lower() for k in side.keys}
    ordering = {side.sequence} if side.sequence is not None else set()
    return sorted(set(wanted) | ordering | {i for i, c in enumerate(side.columns) if c.lower() in key_set})


def _read_files(side: _Side, bucket: int, indices: Sequence[int], schema):
    """The bucket's stored rows of one table: only the columns at `indices`, renamed and cast to
    `schema` (one field per index), plus the ordering columns a merging key model needs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    extra = [LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN] if side.model != "DUPLICATE" else []
    parts = []
    for path in side.files.get(bucket, ()):
        f = pq.ParquetFile(path)
        names = {n.lower(): n for n in f.schema_arrow.names}
        stored = [names[side.columns[i].lower()] for i in indices] + [names[c.lower()] for c in extra]
        # projection pushdown: Parquet decodes only these columns
        gone = _deletes_of(side, path)
        if gone:  # a DELETE after this file: drop its rows first, reading the columns it names
            named = {c.lower() for d in gone for c in d.columns()}
            wanted = list(dict.fromkeys([*stored, *(names[n] for n in sorted(named))]))
            full = f.read(columns=wanted, use_threads=False)
            t = full.filter(arrow_keep_mask(full, gone)).select(stored)
        else:
            t = f.read(columns=stored, use_threads=False)
        out = t.rename_columns([*schema.names, *extra])
        if side.model != "DUPLICATE":
            version = commit_version(path)
            out = out.append_column(COMMIT_SEQ_COLUMN, pa.repeat(pa.scalar(version, pa.int64()), out.num_rows))
        parts.append(out.cast(pa.schema([*schema, *list(out.schema)[len(schema) :]])))
    if not parts:
        return pa.schema([*schema, *(pa.field(c, pa.int64()) for c in extra)]).empty_table()
    return parts[0] if len(parts) == 1 else pa.concat_tables(parts)


def _deletes_of(side: _Side, path: str) -> tuple:
    """The delete versions that apply to the file at `path` (by its partition and commit version)."""
    if not side.deletes:
        return ()
    return applicable(side.deletes, partition_of_path(path), commit_version(path))


def _read(side: _Side, bucket: int, indices: Sequence[int], schema):
    """The bucket's rows of one table (columns at `indices`, named as `schema`), merged by its
    key model."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _read_files(side, bucket, indices, schema)
    if side.model == "DUPLICATE":
        return table
    if table.num_rows == 0:
        return schema.empty_table()
    # commit order, then load order, then row order: the latest row last (tablets.merge); a
    # sequence column first (NULL the smallest)
    by_sequence = []
    if side.model == "UNIQUE" and side.sequence is not None:
        by_sequence = [(schema.names[indices.index(side.sequence)], "ascending", "at_start")]
    table = table.sort_by(
        [*by_sequence, (COMMIT_SEQ_COLUMN, "ascending"), (LOAD_SEQ_COLUMN, "ascending"), (ROW_SEQ_COLUMN, "ascending")]
    )
    table = table.append_column("__idx", pa.array(range(table.num_rows), pa.int64()))
    key_set = {k.lower() for k in side.keys}
    keys = [schema.names[j] for j, i in enumerate(indices) if side.columns[i].lower() in key_set]
    if side.model == "UNIQUE":
        last = table.group_by(keys, use_threads=False).aggregate([("__idx", "max")])
        return table.take(last.column("__idx_max")).select(schema.names)
    aggregations: list[tuple[Any, ...]] = []  # (column, pyarrow aggregate[, its options])
    for j, i in enumerate(indices):
        agg = side.aggs[i]
        if not agg:
            continue
        name = schema.names[j]
        if agg in ("SUM", "MAX", "MIN"):
            aggregations.append((name, agg.lower()))
        elif agg == "REPLACE":
            aggregations.append((name, "last", pc.ScalarAggregateOptions(skip_nulls=False)))
        else:  # REPLACE_IF_NOT_NULL: the latest non-NULL value
            aggregations.append((name, "last", pc.ScalarAggregateOptions(skip_nulls=True)))
    merged = table.group_by(keys, use_threads=False).aggregate(aggregations)
    renamed = {f"{a[0]}_{a[1]}": a[0] for a in aggregations}
    merged = merged.rename_columns([renamed.get(n, n) for n in merged.column_names])
    return merged.select(schema.names).cast(schema)


def residual_columns(node) -> list[str]:
    """The columns a residual tree (dorisql.query.residual) reads."""
    if node[0] == "col":
        return [node[1]]
    if node[0] == "lit":
        return []
    return [c for n in node[1:] for c in residual_columns(n)]


def _join_with_conditions(lt, rt, lkeys, rkeys, join_type: str, residual, out_schema):
    """One bucket's join whose ON has conditions besides the bucket columns: the pairs equal on
    the keys that `residual` accepts, plus what the join kind keeps of the rows matched by no
    such pair (an OUTER side's rows padded with NULLs, SEMI's matched rows once, ANTI's
    unmatched ones). Rows are told apart by their position in the bucket."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lt = lt.append_column("__lid", pa.array(range(lt.num_rows), pa.int64()))
    rt = rt.append_column("__rid", pa.array(range(rt.num_rows), pa.int64()))
    pairs = lt.join(rt, keys=lkeys, right_keys=rkeys, join_type="inner", coalesce_keys=False, use_threads=False)
    pairs = pairs.filter(to_expression(residual))
    lmatched = pc.is_in(lt.column("__lid"), value_set=pairs.column("__lid").combine_chunks())
    rmatched = pc.is_in(rt.column("__rid"), value_set=pairs.column("__rid").combine_chunks())
    if join_type == "left semi":
        return lt.filter(lmatched)
    if join_type == "left anti":
        return lt.filter(pc.invert(lmatched))
    if join_type == "right semi":
        return rt.filter(rmatched)
    if join_type == "right anti":
        return rt.filter(pc.invert(rmatched))

    def padded(rows):  # rows of one side, NULL in every column of the other
        names = set(rows.column_names)
        columns = {
            f.name: rows.column(f.name) if f.name in names else pa.nulls(rows.num_rows, f.type) for f in out_schema
        }
        return pa.table(columns).cast(out_schema)

    parts = [padded(pairs)]
    if join_type in ("left outer", "full outer"):
        parts.append(padded(lt.filter(pc.invert(lmatched))))
    if join_type in ("right outer", "full outer"):
        parts.append(padded(rt.filter(pc.invert(rmatched))))
    return pa.concat_tables(parts)


#: Join types whose result is empty when the left (right) side's bucket is empty.
_NEEDS_LEFT = ("inner", "left outer", "left semi", "left anti", "right semi")
_NEEDS_RIGHT = ("inner", "right outer", "right semi", "right anti", "left semi")


def build(
    spark,
    decision: Decision,
    left: TableScan,
    right: TableScan,
    columns: Collection[str] | None = None,
):
    """The joined DataFrame: columns ``__l<i>`` (left table's columns) then ``__r<i>`` (right's;
    none for LEFT SEMI/ANTI, only them for RIGHT SEMI/ANTI). `left`/`right`: the two tables'
    scans, pruned - only their files, delete versions and stored schema are used. `columns`: the
    result columns the query reads (None: all); only they are read from the files and sent
    back to Spark, as Spark cannot prune the columns of a mapInArrow result itself."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructField, StructType

    join_type = decision.join_type
    sides, structs = [], []
    for tag, scan in (("l", left), ("r", right)):
        meta = scan.meta
        # the merged rows have the stored columns' types (tablets.merge): read off the raw scan's
        # schema, without planning the merge in Spark only to ask for its schema
        stored = {f.name.lower(): f.dataType for f in scan.frame.schema.fields}
        fields = [
            StructField(column_name(tag, i), stored[c.name.lower()], True)
            for i, c in enumerate(meta.definition.columns)
        ]
        sides.append(side_of(meta, scan.files, scan.deletes))
        structs.append(fields)
    (lside, rside), (lfields, rfields) = sides, structs
    if join_type in ("left semi", "left anti"):
        out_fields = lfields
    elif join_type in ("right semi", "right anti"):
        out_fields = rfields
    else:
        out_fields = lfields + rfields
    if columns is not None:
        wanted = {c.lower() for c in columns}
        # a result of no columns (count(*)) still carries its rows: keep the first column
        out_fields = [f for f in out_fields if f.name.lower() in wanted] or out_fields[:1]
    out_struct = StructType(out_fields)
    out_schema = to_arrow_schema(out_struct)
    out_names = set(out_schema.names)
    lnames = {c.lower(): i for i, c in enumerate(lside.columns)}
    rnames = {c.lower(): i for i, c in enumerate(rside.columns)}
    lkey_idx = [lnames[a] for a, _ in decision.keys]
    rkey_idx = [rnames[b] for _, b in decision.keys]

    residual = decision.residual
    read_names = out_names | (set(residual_columns(residual)) if residual is not None else set())

    def projection(side: _Side, fields, key_idx):
        indices = _read_indices(side, [*key_idx, *(i for i, f in enumerate(fields) if f.name in read_names)])
        return indices, to_arrow_schema(StructType([fields[i] for i in indices]))

    lindices, lschema = projection(lside, lfields, lkey_idx)
    rindices, rschema = projection(rside, rfields, rkey_idx)
    lkeys = [column_name("l", i) for i in lkey_idx]
    rkeys = [column_name("r", i) for i in rkey_idx]

    def join_bucket(batches):
        for batch in batches:
            for bucket in batch.column(0).to_pylist():
                # an empty side that empties the result spares reading the other one
                lt = _read(lside, bucket, lindices, lschema)
                if lt.num_rows == 0 and join_type in _NEEDS_LEFT:
                    continue
                rt = _read(rside, bucket, rindices, rschema)
                if rt.num_rows == 0 and join_type in _NEEDS_RIGHT:
                    continue
                if residual is None:
                    joined = lt.join(
                        rt, keys=lkeys, right_keys=rkeys, join_type=join_type, coalesce_keys=False, use_threads=False
                    )
                else:
                    joined = _join_with_conditions(lt, rt, lkeys, rkeys, join_type, residual, out_schema)
                yield from joined.select(out_schema.names).cast(out_schema).to_batches()

    buckets = decision.group.buckets if decision.group is not None else 0
    ids = spark.range(0, buckets, 1, max(buckets, 1))
    return ids.mapInArrow(join_bucket, out_struct)


def build_chain(
    spark,
    group: ColocationGroup,
    scans: Sequence[TableScan],
    links: Sequence[tuple[int, tuple[tuple[str, str], ...]]],
    columns: Collection[str] | None = None,
):
    """The rows of a chain of INNER joins ``t0 JOIN t1 ... JOIN tn`` of one stable group, joined
    bucket by bucket: `scans` are the tables' pruned scans in chain order, `links[j - 1]` says
    which earlier table tj joins and on which (earlier column, tj column) bucket-column pairs.
    Columns ``__c<j>_<i>``; `columns`: those the query reads (None: all)."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructField, StructType

    sides, fields = [], []
    for j, scan in enumerate(scans):
        stored = {f.name.lower(): f.dataType for f in scan.frame.schema.fields}
        fields.append(
            [
                StructField(chain_column(j, i), stored[c.name.lower()], True)
                for i, c in enumerate(scan.meta.definition.columns)
            ]
        )
        sides.append(side_of(scan.meta, scan.files, scan.deletes))
    out_fields = [f for per_table in fields for f in per_table]
    if columns is not None:
        wanted = {c.lower() for c in columns}
        out_fields = [f for f in out_fields if f.name.lower() in wanted] or out_fields[:1]
    out_struct = StructType(out_fields)
    out_schema = to_arrow_schema(out_struct)
    out_names = set(out_schema.names)

    def position(j: int, name: str) -> int:
        return [c.lower() for c in sides[j].columns].index(name.lower())

    # the key columns each table is joined by (as the earlier or the later table of a link)
    needed: list[set[int]] = [set() for _ in scans]
    pairs = []
    for j, (earlier, keys) in enumerate(links, start=1):
        left_idx = [position(earlier, a) for a, _ in keys]
        right_idx = [position(j, b) for _, b in keys]
        needed[earlier].update(left_idx)
        needed[j].update(right_idx)
        pairs.append(([chain_column(earlier, i) for i in left_idx], [chain_column(j, i) for i in right_idx]))
    projections = []
    for j, side in enumerate(sides):
        indices = _read_indices(side, [*needed[j], *(i for i, f in enumerate(fields[j]) if f.name in out_names)])
        projections.append((indices, to_arrow_schema(StructType([fields[j][i] for i in indices]))))

    def join_bucket(batches):
        for batch in batches:
            for bucket in batch.column(0).to_pylist():
                joined = None
                for j, side in enumerate(sides):
                    t = _read(side, bucket, *projections[j])
                    if t.num_rows == 0:  # an INNER chain with an empty table is empty
                        joined = None
                        break
                    if joined is None:
                        joined = t
                    else:
                        lkeys, rkeys = pairs[j - 1]
                        joined = joined.join(
                            t, keys=lkeys, right_keys=rkeys, join_type="inner", coalesce_keys=False, use_threads=False
                        )
                if joined is not None and joined.num_rows:
                    yield from joined.select(out_schema.names).cast(out_schema).to_batches()

    ids = spark.range(0, group.buckets, 1, max(group.buckets, 1))
    return ids.mapInArrow(join_bucket, out_struct)
