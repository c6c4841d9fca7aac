"""SELECT on Spark: Doris/MySQL-flavoured queries over dorisql tables.

`plan_query` reads the query with the Doris dialect of :mod:`dorisql.syntax.dialect` (no text is
edited first) and plans over that tree:

1. every function the query calls must be on the allow-list (:mod:`dorisql.translate.functions`);
2. every table in it is classified: a dorisql table (resolved in the catalog, with its
   ``PARTITION (...)`` selection), a CTE name, or a table function in FROM (``local()``, ``s3()``,
   ``hdfs()``, read through `QuerySources.read_table_function`). Nothing else reaches Spark: a name
   that is none of these is an error, never a Spark table, view or file;
3. each join between dorisql tables is offered to `plan_join`, the one place where a join gets a
   plan of its own: a colocate join (:mod:`dorisql.query.colocate_join`) runs bucket by bucket
   without a shuffle and is read as one view; any other join is Spark's;
4. each dorisql table is pruned to partitions and buckets from the predicates that constrain it
   (:mod:`dorisql.query.pruning`), read through `QuerySources.scan` (a
   :class:`dorisql.tablets.read.TableScan`), merged by its key model
   (:mod:`dorisql.tablets.merge`) and registered as a uniquely named temporary view that the
   reference is pointed at.

The tree is then written as Spark SQL (sqlglot, ``dialect="spark"``, comments left out) for
``spark.sql``; `run_query` returns the DataFrame unexecuted.

`explain` renders EXPLAIN: one Doris-style ``VOlapScanNode`` block per scan (partitions=k/n,
tablets=k/m, as Doris prints them) followed by Spark's physical plan (its operator tree;
VERBOSE: with each operator's details, :mod:`dorisql.query.explain`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.errors import ErrorLevel, UnsupportedError

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError, DorisqlError, NoDatabaseSelectedError, NotSupportedError, UnknownTableError
from dorisql.query import colocate_join, residual
from dorisql.query.colocate_join import column_name
from dorisql.query.explain import operator_tree
from dorisql.query.pruning import PruneResult, prune, split_conjuncts
from dorisql.query.sources import QuerySources, ReadTableFunction, ResolveTable, Scan, SystemTable
from dorisql.query.table_functions import TABLE_FUNCTIONS, table_function_properties
from dorisql.session import failures
from dorisql.storage.spark_views import drop_views, release_views
from dorisql.syntax.cancel import checked, checkpoint
from dorisql.syntax.dialect import is_temporary, parse_query, partition_names
from dorisql.tablets.merge import declared_columns, key_model, needs_merge
from dorisql.tablets.read import TableScan
from dorisql.translate.arithmetic import translate_arithmetic
from dorisql.translate.coercion import translate_coercions
from dorisql.translate.expressions import name_columns, outer_select
from dorisql.translate.functions import check_functions, translate_functions
from dorisql.translate.sketch_functions import PREAGGREGATION
from dorisql.translate.temporal import SCALE_METADATA, ColumnType, datetime_scale, translate_casts
from dorisql.types import canonical

__all__ = [
    "ScanInfo",
    "QueryPlan",
    "TableRef",
    "JoinSides",
    "JoinPlan",
    "plan_join",
    "run_query",
    "explain",
    "plan_query",
    "QuerySources",
]

_VIEW_PREFIX = "__dorisql_"
_view_counter = itertools.count()


@dataclass(frozen=True)
class ScanInfo:
    """What one table reference of a query reads."""

    table: str  # "db.t"
    alias: str | None  # the reference's alias, if any
    key_model: str  # DUPLICATE | UNIQUE | AGGREGATE
    partitions: tuple[str, ...]  # partitions read, table order
    partitions_total: int  # partitions in the table
    buckets_read: int  # tablets (partition, bucket) read
    buckets_total: int  # tablets in the whole table
    buckets_in_partitions: int  # tablets in the partitions read (Doris's tablets=k/m "m")
    buckets: dict[str, frozenset[int]] | None = None  # per partition when bucket-pruned
    explicit_partitions: tuple[str, ...] | None = None  # FROM t PARTITION (...)
    files: tuple[str, ...] = ()  # data files the scan reads
    delete_versions: int = 0  # DELETEs applied to the files read (merge-on-read until compaction)

    @property
    def partitions_read(self) -> int:
        return len(self.partitions)


@dataclass(frozen=True, eq=False)
class TableRef:
    """One reference to a dorisql table in the query tree, resolved in the catalog."""

    node: exp.Table  # the reference (alias, PARTITION clause) in the tree
    meta: TableMeta
    selected: tuple[str, ...] | None  # FROM t PARTITION (...): the partitions named

    @property
    def qualifier(self) -> str:
        """The name its columns are qualified by in the query (alias, else table name)."""
        return self.node.alias or self.node.name


@dataclass(frozen=True, eq=False)
class JoinSides:
    """A join whose inputs are all dorisql tables: what `plan_join` decides on.

    `left` is every table joined before (the FROM table and earlier joins of the same SELECT, in
    order; a left-deep chain, as Doris plans it), `right` the table this JOIN adds."""

    join: exp.Join
    left: tuple[TableRef, ...]
    right: TableRef

    @property
    def select(self) -> exp.Select:
        """The SELECT whose FROM the join is in (a colocated join's, as `plan_join` checked)."""
        select = self.join.parent
        assert isinstance(select, exp.Select), select
        return select

    @property
    def on(self) -> exp.Expr | None:
        return self.join.args.get("on")

    @property
    def using(self) -> list[exp.Expr]:
        return list(self.join.args.get("using") or [])

    @property
    def kind(self) -> str:
        """``INNER``, ``LEFT OUTER``, ``LEFT SEMI``, ``CROSS``..., as written (``INNER`` if bare)."""
        words = " ".join(w for w in ((self.join.side or "").upper(), (self.join.kind or "").upper()) if w)
        return words or "INNER"


@dataclass(frozen=True)
class JoinPlan:
    """How a join between dorisql tables runs (see `plan_join`): "colocate" (dorisql's own
    bucket-by-bucket plan) or "spark" (Spark's join; `reason` says why it is not colocated)."""

    strategy: str
    reason: str = ""
    decision: colocate_join.Decision | None = None


def plan_join(sides: JoinSides, colocation: colocate_join.ColocationContext | None = None) -> JoinPlan | None:
    """The planner's seam for joins between dorisql tables: a plan, or None (no colocation
    information: Spark's join, nothing to report).

    Called once per JOIN whose inputs are all dorisql tables, with both sides resolved to their
    TableMeta, their PARTITION selection and the ON / USING condition, before any table is read.
    A join of two tables of one stable colocation group on all their bucket columns is planned
    colocated (:mod:`dorisql.query.colocate_join`); `colocation` is its ColocationContext.
    """

    if colocation is None:
        return None
    select = sides.join.parent
    if not isinstance(select, exp.Select):
        return JoinPlan("spark", "a join outside a SELECT's FROM")
    if len(select.args.get("joins") or []) != 1:
        return _chain_plan(sides, colocation)
    if sides.using or sides.on is None:
        return JoinPlan("spark", colocate_join.INCONSISTENT + " (no ON condition)")
    left, right = sides.left[0], sides.right
    equalities = [pair for c in split_conjuncts(sides.on) if (pair := _equality_columns(c, left, right)) is not None]
    decision = colocate_join.decide(left.meta, right.meta, sides.kind, equalities, colocation)
    if not decision.colocate:
        return JoinPlan("spark", decision.reason, decision)
    extra = _other_conditions(sides, decision)
    if extra and decision.join_type != "inner":
        # they decide which rows match: evaluated in each bucket's task, when pyarrow can as Spark does
        def column(col: exp.Column):
            found = _side_of_column(col, left, right)
            if found is None:
                return None
            ref = left if found[0] == "l" else right
            return colocate_join.column_name(*found), ref.meta.definition.columns[found[1]].type

        try:
            tree = residual.compile_conditions(extra, column)
        except residual.Untranslatable as e:
            reason = f"{colocate_join.INCONSISTENT} (other join conditions of a {sides.kind} JOIN: {e})"
            return JoinPlan("spark", reason, decision)
        decision = dataclasses.replace(decision, residual=tree)
    return JoinPlan("colocate", "", decision)


#: Why a join of a chain is not colocated when one before it is not.
CHAIN_BROKEN = "a join before it in this FROM is not colocated"


def _chain_plan(sides: JoinSides, colocation: colocate_join.ColocationContext) -> JoinPlan:
    """A join of a FROM of more than two inputs: colocated when it and every join before it are
    INNER joins of tables of one stable group, each joining its table to an earlier one on all
    the bucket columns (a chain joined bucket by bucket: colocate_join.build_chain)."""
    joins = sides.select.args.get("joins") or []
    tables = (*sides.left, sides.right)
    at = next(i for i, j in enumerate(joins) if j is sides.join)
    for j in range(at + 1):
        link = _chain_link(JoinSides(join=joins[j], left=tables[: j + 1], right=tables[j + 1]), colocation)
        if not link.colocate:
            return JoinPlan("spark", link.reason if j == at else CHAIN_BROKEN, link)
    return JoinPlan("colocate", "", link)


def _chain_link(sides: JoinSides, colocation: colocate_join.ColocationContext) -> colocate_join.Decision:
    """May the chain's join `sides` add its table bucket by bucket? It must be INNER, and join
    the table to one earlier table of the chain on all the bucket columns (Doris's rules: decide)."""
    if sides.kind not in ("INNER", "JOIN"):
        return colocate_join.Decision(False, f"{sides.kind} JOIN in a FROM of more than two inputs")
    if sides.using or sides.on is None:
        return colocate_join.Decision(False, colocate_join.INCONSISTENT + " (no ON condition)")
    first = None
    for position, earlier in enumerate(sides.left):
        conjuncts = split_conjuncts(sides.on)
        equalities = [p for c in conjuncts if (p := _equality_columns(c, earlier, sides.right)) is not None]
        decision = colocate_join.decide(earlier.meta, sides.right.meta, "INNER", equalities, colocation)
        if decision.colocate:
            return dataclasses.replace(decision, chain_left=position)
        first = first or decision
    assert first is not None
    return first


def _other_conditions(sides: JoinSides, decision: colocate_join.Decision) -> list[exp.Expr]:
    """The ON conjuncts besides the bucket-column equalities the colocate join joins on."""
    left, right = sides.left[0], sides.right
    keys = {(a.lower(), b.lower()) for a, b in decision.keys}
    out: list[exp.Expr] = []
    for c in split_conjuncts(sides.on):
        pair = _equality_columns(c, left, right)
        if pair is None or (pair[0].lower(), pair[1].lower()) not in keys:
            out.append(c)
    return out


def _side_of_column(col: exp.Column, left: TableRef, right: TableRef) -> tuple[str, int] | None:
    """("l" or "r", column position) of a column reference to one of the two tables."""
    name = col.name.lower()
    found = []
    for tag, ref in (("l", left), ("r", right)):
        if col.table and col.table.lower() not in [q.lower() for q in _qualifiers(ref.node)]:
            continue
        for i, c in enumerate(ref.meta.definition.columns):
            if c.name.lower() == name:
                found.append((tag, i))
    return found[0] if len(found) == 1 else None


def _equality_columns(c: exp.Expr, left: TableRef, right: TableRef) -> tuple[str, str] | None:
    if not isinstance(c, exp.EQ) or not isinstance(c.this, exp.Column) or not isinstance(c.expression, exp.Column):
        return None
    a, b = _side_of_column(c.this, left, right), _side_of_column(c.expression, left, right)
    if a is None or b is None or a[0] == b[0]:
        return None
    if a[0] == "r":
        a, b = b, a
    return (
        left.meta.definition.columns[a[1]].name,
        right.meta.definition.columns[b[1]].name,
    )


#: The alias of a colocated join's view in the rewritten query.
_COLOCATED_ALIAS = "__colocated"


def _rewrite_colocated(sides: JoinSides, view: str, join_type: str, extra: list[exp.Expr]) -> None:
    """Replace ``FROM a JOIN b ON ...`` by ``FROM <view> __colocated`` and point the select's
    column references at the view's positional columns (keeping output names)."""

    select = sides.select
    left, right = sides.left[0], sides.right
    with_left = join_type not in ("right semi", "right anti")
    with_right = join_type not in ("left semi", "left anti")

    def target(tag: str, i: int) -> exp.Column:
        return exp.column(column_name(tag, i), table=_COLOCATED_ALIAS)

    def expand(refs) -> list[exp.Expr]:
        out: list[exp.Expr] = []
        for tag, ref in refs:
            for i, c in enumerate(ref.meta.definition.columns):
                out.append(exp.alias_(target(tag, i), c.name, quoted=True))
        return out

    every = [(t, r) for t, r, keep in (("l", left, with_left), ("r", right, with_right)) if keep]
    expressions = []
    for e in select.expressions:
        if isinstance(e, exp.Star):
            expressions.extend(expand(every))
        elif isinstance(e, exp.Column) and isinstance(e.this, exp.Star):
            expressions.extend(
                expand([(t, r) for t, r in every if e.table.lower() in [q.lower() for q in _qualifiers(r.node)]])
            )
        elif isinstance(e, exp.Column):
            expressions.append(exp.alias_(e, e.name, quoted=True))
        else:
            expressions.append(e)
    select.set("expressions", expressions)
    select.set("joins", None)
    if extra:
        where = select.args.get("where")
        condition = exp.and_(*(extra + ([where.this] if where is not None else [])))
        select.set("where", exp.Where(this=condition))
    for col in list(select.find_all(exp.Column)):
        if col.find_ancestor(exp.Select) is not select or isinstance(col.this, exp.Star):
            continue
        found = _side_of_column(col, left, right)
        if found is not None:
            col.replace(target(*found))
    select.args["from_"].set(
        "this", exp.Table(this=exp.to_identifier(view), alias=exp.TableAlias(this=exp.to_identifier(_COLOCATED_ALIAS)))
    )


@dataclass
class QueryPlan:
    """A query ready to run: the Spark SQL text, the views it reads, what each scan reads."""

    spark_sql: str
    scans: list[ScanInfo] = field(default_factory=list)
    views: dict[str, str] = field(default_factory=dict)  # view name -> what it stands for ("db.t", "local()")
    joins: list[tuple[JoinSides, JoinPlan]] = field(default_factory=list)  # joins given a special plan
    #: The output columns' DATETIME scales by Doris's typing, of the SELECT items before its
    #: first ``*`` and after its last (None: not known here; a column read from a table carries
    #: its own in the Spark schema, SCALE_METADATA).
    scales: tuple[list[int | None], list[int | None]] = ([], [])


# --------------------------------------------------------------------------- predicates


def _with_of(node: exp.Expr) -> exp.With | None:
    w = node.args.get("with_") if "with_" in node.args else node.args.get("with")
    return w if isinstance(w, exp.With) else None


def _is_cte_reference(table: exp.Table) -> bool:
    if table.args.get("db") is not None or table.args.get("catalog") is not None:
        return False
    name = table.name.lower()
    node = table.parent
    while node is not None:
        w = _with_of(node)
        if w is not None and any(cte.alias.lower() == name for cte in w.expressions):
            return True
        node = node.parent
    return False


def _has_null_test(e: exp.Expr) -> bool:
    return any(True for _ in e.find_all(exp.Is, exp.NullSafeEQ))


def _conjuncts_for(table: exp.Table) -> list[exp.Expr]:
    """The predicates that may prune the rows read from `table` (see the module notes)."""
    own, others, _null_supplying = _conjunct_parts(table)
    return own + others


def _conjunct_parts(table: exp.Table) -> tuple[list[exp.Expr], list[exp.Expr], bool]:
    """(`table`'s own ON conjuncts, the other conjuncts that filter its rows, whether it is on
    the null-supplying side of an outer join: then the others hold no null test)."""
    parent = table.parent
    if isinstance(parent, exp.From):
        position = 0
    elif isinstance(parent, exp.Join):
        position = -1
    else:
        return [], [], False
    select = parent.parent
    if not isinstance(select, exp.Select):
        return [], [], False
    joins = list(select.args.get("joins") or [])
    if position == -1:
        position = next((k for k, j in enumerate(joins, start=1) if j is parent), 0)
        if position == 0:
            return [], [], False
    # Is the table on the null-supplying side of an outer join?
    null_supplying = False
    own: list[exp.Expr] = []
    others: list[exp.Expr] = []
    for k, join in enumerate(joins, start=1):
        side = (join.side or "").upper()
        kind = (join.kind or "").upper()
        on = join.args.get("on")
        if k == position:
            if side in ("LEFT", "FULL") and kind not in ("SEMI", "ANTI"):
                null_supplying = True
            applies = (
                side != "FULL"
                and not (side == "RIGHT" and kind in ("", "OUTER"))
                and not (side == "RIGHT" and kind == "ANTI")
            )
            if on is not None and applies:
                own.extend(split_conjuncts(on))
        elif k > position:
            if side in ("RIGHT", "FULL") and kind not in ("SEMI", "ANTI"):
                null_supplying = True
            applies = (
                (side == "" and kind in ("", "INNER", "CROSS"))
                or (side == "RIGHT" and kind != "ANTI")
                or (side == "LEFT" and kind == "SEMI")
            )
            if on is not None and applies:
                others.extend(split_conjuncts(on))
    where = select.args.get("where")
    if where is not None:
        others.extend(split_conjuncts(where))
    if null_supplying:
        others = [c for c in others if not _has_null_test(c)]
    return own, others, null_supplying


def _qualifiers(table: exp.Table) -> list[str]:
    return [table.alias] if table.alias else [table.name]


# --------------------------------------------------------------------------- the query's tables


@dataclass
class _Sources:
    """Every table of a query tree, classified."""

    tables: list[exp.Table] = field(default_factory=list)  # dorisql tables, in source order
    functions: list[exp.Table] = field(default_factory=list)  # table functions in FROM


def refuse_time_travel(tree: exp.Expr) -> None:
    """``FOR VERSION AS OF`` / ``FOR TIME AS OF`` (and Spark's ``VERSION|TIMESTAMP AS OF``):
    Doris reads older snapshots of external Iceberg, Paimon and Hudi tables only; a Doris table
    (and so a dorisql table) has none to read."""
    for table in tree.find_all(exp.Table):
        if table.args.get("version") is not None:
            raise NotSupportedError(
                f"time travel (FOR VERSION AS OF / FOR TIME AS OF) on table '{table.name}': Doris "
                "reads older versions of external Iceberg, Paimon and Hudi tables only"
            )


def _sources(tree: exp.Expr) -> _Sources:
    """Classify every `exp.Table` of the tree; refuse what dorisql cannot read."""
    found = _Sources()
    for t in tree.find_all(exp.Table):
        if t.args.get("tablets") is not None:
            raise NotSupportedError("TABLET (...) in queries")
        if isinstance(t.this, exp.Func):
            name = t.this.name.lower()
            if name not in TABLE_FUNCTIONS:
                raise AnalysisError(f"Could not find table function {name}")
            if t.args.get("partition") is not None:
                raise NotSupportedError("PARTITION clause after a table function")
            found.functions.append(t)
        elif not isinstance(t.this, exp.Identifier):
            raise NotSupportedError(f"table name {t.sql(dialect='doris')}")
        elif _is_cte_reference(t):
            if t.args.get("partition") is not None:
                raise NotSupportedError("PARTITION clause here (only after a table name in FROM/JOIN)")
        else:
            found.tables.append(t)
    found.tables.sort(key=_source_position)
    found.functions.sort(key=_source_position)
    return found


#: The read-only databases of metadata views (dorisql.statements.show.information_schema builds
#: their tables).
SYSTEM_DATABASES = ("information_schema", "mysql")


def _is_system(t: exp.Table, current_db: str | None) -> bool:
    db = t.db or current_db
    return db is not None and db.lower() in SYSTEM_DATABASES and (t.catalog or "internal").lower() == "internal"


def _source_position(t: exp.Table) -> int:
    return t.this.meta.get("start", 0) if t.this.meta else 0


def _resolve(
    resolve_table: ResolveTable, table: exp.Table, current_db: str | None, temporary: bool = False
) -> TableMeta:
    catalog = table.catalog
    if catalog and catalog.lower() != "internal":
        raise NotSupportedError(f"catalog '{catalog}'")
    db = table.db or current_db
    if not db:
        raise NoDatabaseSelectedError()
    meta = resolve_table(ast.TableName(table.name, db))
    if meta is None:
        raise UnknownTableError(f"Table [{table.name}] does not exist in database [{db}].")
    # `t TEMPORARY PARTITION (...)` reads the table through its temporary partitions
    return meta.temporary_view() if temporary else meta


def _join_sides(refs: Sequence[TableRef]) -> list[JoinSides]:
    """The joins whose inputs are all dorisql tables, with both sides resolved."""
    by_node = {id(r.node): r for r in refs}
    out: list[JoinSides] = []
    for select in {
        id(r.node.parent.parent): r.node.parent.parent for r in refs if isinstance(r.node.parent, (exp.From, exp.Join))
    }.values():
        if not isinstance(select, exp.Select) or select.args.get("from_") is None:
            continue
        left: list[TableRef] = []
        first = by_node.get(id(select.args["from_"].this))
        if first is None:
            continue
        left.append(first)
        for join in select.args.get("joins") or []:
            right = by_node.get(id(join.this))
            if right is None:
                break  # a subquery or table function: the inputs after it are not all tables
            out.append(JoinSides(join=join, left=tuple(left), right=right))
            left.append(right)
    return out


# --------------------------------------------------------------------------- planning


def right_semi_joins_as_left(tree: exp.Expr) -> None:
    """Spark SQL has LEFT SEMI/ANTI joins only; Doris also has RIGHT ones. ``FROM a RIGHT SEMI
    JOIN b ON c`` is ``FROM b LEFT SEMI JOIN a ON c`` (both keep b's rows that have (SEMI) or
    have not (ANTI) a match in a), so a SELECT of one such join is rewritten in place; after
    other joins the left side is a join result, which this cannot swap: refused plainly."""
    for select in tree.find_all(exp.Select):
        joins = select.args.get("joins") or []
        for i, join in enumerate(joins):
            if (join.side or "").upper() != "RIGHT" or (join.kind or "").upper() not in ("SEMI", "ANTI"):
                continue
            source = select.args.get("from_")
            if i != 0 or len(joins) != 1 or source is None:
                raise NotSupportedError(
                    f"RIGHT {join.kind.upper()} JOIN after other joins (write it as a LEFT {join.kind.upper()} JOIN)"
                )
            left, right = source.this, join.this
            source.set("this", right.copy())
            join.set("this", left.copy())
            join.set("side", "LEFT")


def plan_query(spark, query: ast.Query | str, sources: QuerySources) -> QueryPlan:
    """Register the scans of `query` as temporary views and return the Spark SQL that reads them.

    The caller runs `spark.sql(plan.spark_sql)` and then drops `plan.views` (run_query does both).
    `sources` says where the query's tables are read from (see QuerySources).

    The steps: the tree checked and translated (`_prepared_tree`), its tables resolved
    (`_resolved_tables`), its joins between dorisql tables planned (`_planned_joins`), every
    source registered as a view (table functions, information_schema tables, scans: `_register_*`),
    the colocated joins built, and the Spark SQL written (`_spark_sql`). A failure drops the
    views registered so far.
    """
    tree = _prepared_tree(query, sources)
    found = _sources(tree)
    system, refs = _resolved_tables(found.tables, sources)
    column_type = _column_types(refs)
    scales = _output_scales(tree, column_type)  # before the casts are rewritten
    translate_casts(tree, column_type)  # CAST(... AS DATE / DATETIME(p)) with Doris's values
    calls = [(t, t.this.name.lower(), table_function_properties(t.this)) for t in found.functions]
    if calls and sources.read_table_function is None:
        raise NotSupportedError(f"table function {calls[0][1]}() here")
    jobs = [(ref, _conjuncts_for(ref.node)) for ref in refs]
    plan = QueryPlan(spark_sql="", scales=scales)
    colocated = _planned_joins(plan, refs, sources.colocation)
    # Doris's integer result types (INT + INT is BIGINT): after the joins are planned, whose
    # residual ON conditions are compiled for pyarrow from the conditions as written
    translate_arithmetic(tree, column_type)
    translate_coercions(tree, column_type)  # Doris's casts: BOOLEAN = 1, UNION of 2 and 'x'
    try:
        _register_table_functions(plan, calls, sources.read_table_function)
        _register_system_tables(plan, system, sources.system_table, sources.current_db)
        # Every table's snapshot in one block: a COMMIT's tables all or none (sources.pin).
        with sources.pin([ref.meta for ref, _ in jobs]) if sources.pin else contextlib.nullcontext():
            scanned = _register_scans(plan, jobs, sources.scan, colocated)
        chains: dict[int, list[tuple[JoinSides, JoinPlan]]] = {}
        for sides, special in plan.joins:
            if special.strategy != "colocate":
                continue
            assert special.decision is not None
            if special.decision.chain_left < 0:
                _plan_colocated(spark, plan, sides, special, scanned)
            else:  # a FROM of more than two inputs: its colocated joins built as one chain
                chains.setdefault(id(sides.select), []).append((sides, special))
        for links in chains.values():
            _plan_colocated_chain(spark, plan, links, scanned)
        plan.spark_sql = _spark_sql(tree)
    except BaseException:
        drop_views(spark, plan.views)
        raise
    return plan


def _with_scales(frame, meta: TableMeta):
    """The scan's DATETIME columns carrying their scale p in the Spark schema: Spark keeps a
    column's metadata through references, aliases, subqueries, views and GROUP BY keys."""
    for c in meta.definition.columns:
        t = canonical(c.type)
        if t.name == "DATETIME" and c.name in frame.columns:
            frame = frame.withMetadata(c.name, {SCALE_METADATA: t.params[0]})
    return frame


def _prepared_tree(query: ast.Query | str, sources: QuerySources) -> exp.Expr:
    """The query parsed, its items named, the session's values substituted, its functions
    checked and translated to Spark's, and RIGHT SEMI joins written as LEFT ones."""

    tree = parse_query(query.sql if isinstance(query, ast.Query) else query)
    expand_views(tree, sources)
    refuse_time_travel(tree)
    name_columns(tree)  # before `prepare`: an item's header is its text as written
    if sources.prepare is not None:
        sources.prepare(tree)
    check_functions(tree)
    translate_functions(tree)
    right_semi_joins_as_left(tree)
    return tree


# --------------------------------------------------------------------------- views

#: Views read through views: Doris refuses deeper nesting as a cycle long before this.
_VIEW_DEPTH = 32


def expand_views(tree: exp.Expr, sources: QuerySources, _seen: tuple[str, ...] = ()) -> None:
    """Each reference to a view replaced, in place, by the view's query as a derived table under
    the reference's name (its column list as the derived table's column aliases), so everything
    the planner does to a query (functions, casts, pruning, joins) applies inside views too.
    Unqualified tables in a view's query are in the view's database. A WHERE over the view that
    only filters its rows is copied into a simple view's query, where it prunes partitions."""
    if sources.resolve_view is None:
        return
    for t in list(tree.find_all(exp.Table)):
        if not isinstance(t.this, exp.Identifier) or _is_cte_reference(t) or _is_system(t, sources.current_db):
            continue
        if (t.catalog or "internal").lower() != "internal":
            continue
        db = t.db or sources.current_db
        view = sources.resolve_view(ast.TableName(t.name, db)) if db else None
        if view is None:
            continue
        key = f"{view.db}.{view.name}".lower()
        if key in _seen or len(_seen) >= _VIEW_DEPTH:
            raise AnalysisError(f"View `{view.db}`.`{view.name}` refers to itself")
        if t.args.get("partition") is not None or t.args.get("tablets") is not None:
            raise AnalysisError(f"PARTITION and TABLET cannot be used on view `{view.db}`.`{view.name}`")
        inner = parse_query(view.query)
        name_columns(inner)
        for it in inner.find_all(exp.Table):  # the view's own names are in its database
            if isinstance(it.this, exp.Identifier) and not it.args.get("db") and not _is_cte_reference(it):
                it.set("db", exp.to_identifier(view.db))
        expand_views(inner, dataclasses.replace(sources, current_db=view.db), (*_seen, key))
        names = [c.name for c in view.columns]
        if not view.named_columns:  # the query's own names: as the view was checked
            names = []
        alias = exp.TableAlias(
            this=exp.to_identifier(t.alias or t.name, quoted=True),
            columns=[exp.to_identifier(n, quoted=True) for n in names] or None,
        )
        pushed = _filters_for_view(t, [c.name for c in view.columns], inner)
        subquery = exp.Subquery(this=inner, alias=alias)
        t.replace(subquery)
        if pushed:
            _push_filters(inner, pushed)


def _filters_for_view(t: exp.Table, columns: list[str], inner: exp.Expr) -> list[exp.Expr]:
    """The conjuncts that filter the rows of view reference `t`, rewritten over the view query's
    own expressions, when that query is a plain SELECT (no aggregation, window, DISTINCT or
    LIMIT: filtering its output is filtering its input) and `t` is not outer-joined."""
    if not isinstance(inner, exp.Select) or any(
        inner.args.get(k) for k in ("group", "having", "limit", "offset", "distinct", "qualify", "with_", "with")
    ):
        return []
    items = list(inner.expressions)
    if len(items) != len(columns) or any(isinstance(e, exp.Star) or e.is_star for e in items):
        return []
    if any(e.find(exp.AggFunc, exp.Window, exp.Subquery) for e in items):
        return []
    by_name = {n.lower(): (e.this if isinstance(e, exp.Alias) else e) for n, e in zip(columns, items)}
    qualifier = (t.alias or t.name).lower()
    own, others, null_supplying = _conjunct_parts(t)
    out = []
    for c in own + ([] if null_supplying else others):
        if c.find(exp.Subquery, exp.Select, exp.Rand, exp.AggFunc, exp.Window):
            continue
        cols = list(c.find_all(exp.Column))
        if not cols or any(
            (col.table and col.table.lower() != qualifier) or col.name.lower() not in by_name for col in cols
        ):
            continue
        rewritten = c.copy()
        for col in list(rewritten.find_all(exp.Column)):
            col.replace(by_name[col.name.lower()].copy())
        out.append(rewritten)
    return out


def _push_filters(inner: exp.Expr, filters: list[exp.Expr]) -> None:
    where = inner.args.get("where")
    condition = exp.and_(*([where.this] if where is not None else []), *filters)
    inner.set("where", exp.Where(this=condition))


def _column_types(refs: Sequence[TableRef]) -> ColumnType:
    """The Doris type of a column a query names, from the tables of its own SELECT's FROM
    (None: a subquery's, a CTE's or an unknown column)."""

    def column_type(col: exp.Column):
        select = col.find_ancestor(exp.Select)
        found = [
            c.type
            for ref in refs
            if ref.node.find_ancestor(exp.Select) is select
            and (not col.table or col.table.lower() == ref.qualifier.lower())
            for c in ref.meta.definition.columns
            if c.name.lower() == col.name.lower()
        ]
        return found[0] if len(found) == 1 else None

    return column_type


def _output_scales(tree: exp.Expr, column_type: ColumnType) -> tuple[list[int | None], list[int | None]]:
    """The DATETIME scales (`datetime_scale`) of the output items before the SELECT list's
    first ``*`` (all of them without one) and after its last."""
    select = outer_select(tree)
    if select is None:
        return [], []
    items = list(select.expressions)
    stars = [i for i, e in enumerate(items) if isinstance(e, exp.Star) or e.is_star]
    head = items[: stars[0]] if stars else items
    tail = items[stars[-1] + 1 :] if stars else []
    return [datetime_scale(e, column_type) for e in head], [datetime_scale(e, column_type) for e in tail]


def _resolved_tables(tables: Sequence[exp.Table], sources: QuerySources) -> tuple[list[exp.Table], list[TableRef]]:
    """(The information_schema tables; every other table, resolved in the catalog)."""

    current_db, system_table = sources.current_db, sources.system_table
    system = [t for t in tables if system_table is not None and _is_system(t, current_db)]
    refs = [
        TableRef(
            node=t, meta=_resolve(sources.resolve_table, t, current_db, is_temporary(t)), selected=partition_names(t)
        )
        for t in tables
        if not any(t is s for s in system)
    ]
    return system, refs


def _planned_joins(
    plan: QueryPlan, refs: Sequence[TableRef], colocation: colocate_join.ColocationContext | None
) -> dict[int, JoinSides]:
    """Plan the joins between dorisql tables (into `plan.joins`): the colocated ones' sides, by
    id(ref.node) of each table they read."""

    colocated: dict[int, JoinSides] = {}
    for sides in _join_sides(refs):
        special = plan_join(sides, colocation)
        if special is not None:
            plan.joins.append((sides, special))
            if special.strategy == "colocate":
                colocated[id(sides.left[0].node)] = colocated[id(sides.right.node)] = sides
    return colocated


def _register_table_functions(
    plan: QueryPlan, calls: list[tuple[exp.Table, str, dict]], read_table_function: ReadTableFunction | None
) -> None:
    """Each table function in FROM (``local()``, ``s3()``...) read into a view the tree reads."""

    for t, name, properties in calls:
        assert read_table_function is not None  # (refused above without it)
        view = register_view(read_table_function(name, properties), "tvf")
        plan.views[view] = f"{name}()"
        _point_at_view(t, view, keep_name=False)


def _register_system_tables(
    plan: QueryPlan, system: list[exp.Table], system_table: SystemTable | None, current_db: str | None
) -> None:
    """Each information_schema / mysql table read into a view the tree reads."""

    for t in system:
        if t.args.get("partition") is not None:
            raise NotSupportedError("PARTITION clause after an information_schema table")
        assert system_table is not None  # (`system` is empty without it)
        db = (t.db or current_db or "").lower()
        view = register_view(system_table(db, t.name), "schema")
        plan.views[view] = f"{db}.{t.name.lower()}"
        _point_at_view(t, view, keep_name=True)


def _register_scans(
    plan: QueryPlan, jobs: list[tuple[TableRef, list[exp.Expr]]], scan_table: Scan, colocated: dict[int, JoinSides]
) -> dict[int, TableScan]:
    """Each dorisql table's pruned scan (reported in `plan.scans`) as a view the tree reads,
    except a colocated join's tables, whose scans are returned (by id(ref.node)) for the join."""

    scanned: dict[int, TableScan] = {}
    for ref, conjuncts in jobs:
        meta, t = ref.meta, ref.node
        pruned = prune(meta, conjuncts, selected=ref.selected, qualifiers=_qualifiers(t))
        buckets = None if pruned.buckets is None else {k: set(v) for k, v in pruned.buckets.items()}
        scan = scan_table(meta, list(pruned.partitions), buckets)
        plan.scans.append(_scan_info(scan, t, pruned, ref.selected))
        if id(t) in colocated:
            scanned[id(t)] = scan
            continue
        rows = _preaggregated_rows(scan, t) or scan.rows()
        view = register_view(_with_scales(rows, meta), "scan")
        plan.views[view] = f"{meta.db}.{meta.name}"
        _point_at_view(t, view, keep_name=True)
    return scanned


def _preaggregated_rows(scan: TableScan, t: exp.Expr):
    """An AGGREGATE table's stored rows unmerged, when the SELECT reading it only unions its
    sketch columns, each by its own aggregation, and reads nothing else but key columns
    (translate.sketch_functions.PREAGGREGATION; Doris's PREAGGREGATION: ON): the union of
    unions is the union, so the merge by key before the query is work for nothing. Else None."""
    mark = t.meta.get(PREAGGREGATION)
    meta = scan.meta
    if mark is None or key_model(meta) != "AGGREGATE" or not needs_merge(meta):
        return None
    if scan.merged is not None and scan.merged.alone:  # nothing to merge: rows() reads it as it is
        return None
    unions, others = mark
    keys = {k.lower() for k in (meta.definition.keys.columns if meta.definition.keys else ())}
    aggregation = {c.name.lower(): (c.agg_type or "").upper() for c in meta.definition.columns}
    if not others <= keys or any(aggregation.get(c) != agg for c, agg in unions.items()):
        return None
    rows = declared_columns(scan.frame, meta)
    if scan.merged is not None:
        rows = rows.unionByName(declared_columns(scan.merged.frame, meta))
    return rows


def _spark_sql(tree: exp.Expr) -> str:
    """The tree (its tables now views) as Spark SQL, columns unqualified by database."""

    for col in checked(tree.find_all(exp.Column)):
        if col.args.get("db") is not None:
            col.set("db", None)
            col.set("catalog", None)
    checkpoint()
    try:
        spark_sql = tree.sql(
            dialect="spark", unsupported_level=ErrorLevel.RAISE, normalize_functions=False, comments=False
        )
    except UnsupportedError as e:
        raise NotSupportedError(str(e).splitlines()[0] if str(e) else "query construct") from None
    checkpoint()  # (writing a huge query's text takes a while: cancelled meanwhile, not run)
    return spark_sql


def _plan_colocated(spark, plan: QueryPlan, sides: JoinSides, special: JoinPlan, scanned: dict[int, TableScan]) -> None:
    decision = special.decision
    assert isinstance(decision, colocate_join.Decision)
    left, right = sides.left[0], sides.right
    view = _view_name("colocate")
    select = sides.select
    # an INNER join's other conditions filter its rows in Spark; the others' ran in the tasks
    extra = _other_conditions(sides, decision) if decision.residual is None else []
    _rewrite_colocated(sides, view, decision.join_type, extra)
    # built after the rewrite: the view then carries only the columns the query reads
    joined = colocate_join.build(
        spark, decision, scanned[id(left.node)], scanned[id(right.node)], _view_columns(select)
    )
    joined.createOrReplaceTempView(view)
    plan.views[view] = f"{left.meta.db}.{left.meta.name} JOIN {right.meta.db}.{right.meta.name}"


def _plan_colocated_chain(
    spark, plan: QueryPlan, links: list[tuple[JoinSides, JoinPlan]], scanned: dict[int, TableScan]
) -> None:
    """The colocated joins of one FROM (a chain from its first table, in order) as one view."""
    last = links[-1][0]
    select = last.select
    tables = (*last.left, last.right)
    decisions = [special.decision for _, special in links]
    extra: list[exp.Expr] = []  # the ON conditions besides the bucket columns: INNER, so a filter
    for (sides, _), d in zip(links, decisions):
        assert d is not None
        keys = {(a.lower(), b.lower()) for a, b in d.keys}
        for c in split_conjuncts(sides.on):
            pair = _equality_columns(c, tables[d.chain_left], sides.right)
            if pair is None or (pair[0].lower(), pair[1].lower()) not in keys:
                extra.append(c)
    view = _view_name("colocate")
    _rewrite_chain(select, tables, len(links), view, extra)
    group = decisions[0].group if decisions[0] is not None else None
    assert group is not None
    links_of = [(d.chain_left, d.keys) for d in decisions if d is not None]
    joined = colocate_join.build_chain(
        spark, group, [scanned[id(t.node)] for t in tables], links_of, _view_columns(select)
    )
    joined.createOrReplaceTempView(view)
    plan.views[view] = " JOIN ".join(f"{t.meta.db}.{t.meta.name}" for t in tables)


def _rewrite_chain(select: exp.Select, tables: Sequence[TableRef], count: int, view: str, extra) -> None:
    """Replace ``FROM t0 JOIN t1 ... JOIN tn`` (the first `count` joins) by ``FROM <view>
    __colocated``, keeping the joins after them, and point the column references at the view's
    columns (as `_rewrite_colocated` does for two tables)."""

    def target(j: int, i: int) -> exp.Column:
        return exp.column(colocate_join.chain_column(j, i), table=_COLOCATED_ALIAS)

    def of(ref: TableRef) -> list[str]:
        return [q.lower() for q in _qualifiers(ref.node)]

    def find(col: exp.Column) -> tuple[int, int] | None:
        found = [
            (j, i)
            for j, ref in enumerate(tables)
            if not col.table or col.table.lower() in of(ref)
            for i, c in enumerate(ref.meta.definition.columns)
            if c.name.lower() == col.name.lower()
        ]
        return found[0] if len(found) == 1 else None

    def expand(positions) -> list[exp.Expr]:
        return [
            exp.alias_(target(j, i), c.name, quoted=True)
            for j in positions
            for i, c in enumerate(tables[j].meta.definition.columns)
        ]

    rest = list(select.args.get("joins") or [])[count:]
    expressions: list[exp.Expr] = []
    for e in select.expressions:
        if isinstance(e, exp.Star):
            expressions.extend(expand(range(len(tables))))
            expressions.extend(exp.Column(this=exp.Star(), table=exp.to_identifier(j.this.alias_or_name)) for j in rest)
        elif isinstance(e, exp.Column) and isinstance(e.this, exp.Star):
            mine = [j for j, ref in enumerate(tables) if e.table.lower() in of(ref)]
            expressions.extend(expand(mine) if mine else [e])
        elif isinstance(e, exp.Column):
            expressions.append(exp.alias_(e, e.name, quoted=True))
        else:
            expressions.append(e)
    select.set("expressions", expressions)
    select.set("joins", rest or None)
    if extra:
        where = select.args.get("where")
        select.set("where", exp.Where(this=exp.and_(*(extra + ([where.this] if where is not None else [])))))
    for col in list(select.find_all(exp.Column)):
        if col.find_ancestor(exp.Select) is not select or isinstance(col.this, exp.Star):
            continue
        found = find(col)
        if found is not None:
            col.replace(target(*found))
    select.args["from_"].set(
        "this", exp.Table(this=exp.to_identifier(view), alias=exp.TableAlias(this=exp.to_identifier(_COLOCATED_ALIAS)))
    )


def _view_columns(select: exp.Expr) -> set[str]:
    """The colocated view's columns `select` (rewritten) reads; a nested colocated join's
    columns may be included too (a superset only costs reading them)."""
    return {c.name for c in select.find_all(exp.Column) if c.table == _COLOCATED_ALIAS}


def register_view(df, kind: str) -> str:
    """`df` as a new temporary view (dropped by `release_views`)."""
    view = _view_name(kind)
    df.createOrReplaceTempView(view)
    return view


def _view_name(kind: str) -> str:
    return f"{_VIEW_PREFIX}{kind}_{next(_view_counter)}"


def _point_at_view(t: exp.Table, view: str, keep_name: bool) -> None:
    """Make the reference `t` read `view`, in place. With `keep_name`, an unaliased reference is
    aliased by its table name so that `t.col` still resolves."""
    name = t.name
    t.set("this", exp.to_identifier(view))
    for arg in ("db", "catalog", "partition", "tablets"):
        t.set(arg, None)
    if keep_name and not t.alias:
        t.set("alias", exp.TableAlias(this=exp.to_identifier(name, quoted=True)))


def _scan_info(scan: TableScan, t: exp.Table, pruned: PruneResult, selected) -> ScanInfo:
    meta = scan.meta
    by_name = {p.name: p for p in meta.partitions}
    in_parts = sum(by_name[n].buckets for n in pruned.partitions if n in by_name)
    return ScanInfo(
        table=f"{meta.db}.{meta.name}",
        alias=t.alias or None,
        key_model=scan.key_model,
        partitions=tuple(pruned.partitions),
        partitions_total=len(meta.partitions),
        buckets_read=pruned.bucket_count(meta),
        buckets_total=sum(p.buckets for p in meta.partitions),
        buckets_in_partitions=in_parts,
        buckets=pruned.buckets,
        explicit_partitions=tuple(selected) if selected is not None else None,
        files=scan.files,
        delete_versions=len(scan.deletes),
    )


def run_query(spark, query: ast.Query | str, sources: QuerySources):
    """Run a SELECT: returns (DataFrame, [ScanInfo per table reference, in source order]).

    The DataFrame is lazy (nothing executed yet); its columns are the query's output columns.
    """
    df, plan = _run(spark, query, sources)
    return df, plan.scans


def _run(spark, query: ast.Query | str, sources: QuerySources):
    plan = plan_query(spark, query, sources)
    try:
        df = _output_with_scales(spark.sql(plan.spark_sql), plan.scales)
    except DorisqlError:
        raise
    except Exception as e:
        if failures.is_spark_analysis_error(e):  # with the view names put back
            raise failures.translate(e, views=plan.views, statement=plan.spark_sql) from e
        raise
    finally:
        release_views(spark, plan.views)
    return df, plan


def _output_with_scales(df, scales: tuple[list[int | None], list[int | None]]):
    """The query's output columns given the DATETIME scales the query's expressions have
    (Spark keeps none through a function or a cast). A plan-only change: nothing runs."""
    head, tail = scales
    between = len(df.columns) - len(head) - len(tail)  # the columns of the ``*`` items
    if between < 0 or all(s is None for s in head + tail):
        return df
    from pyspark.sql import functions as F

    names = list(df.columns)
    slots = [f"_c{i}" for i in range(len(names))]  # (output names may repeat)
    columns = [
        F.col(slot) if s is None else F.col(slot).alias(slot, metadata={SCALE_METADATA: s})
        for slot, s in zip(slots, [*head, *[None] * between, *tail])
    ]
    return df.toDF(*slots).select(*columns).toDF(*names)


# --------------------------------------------------------------------------- EXPLAIN


def scan_lines(scans: Sequence[ScanInfo]) -> list[str]:
    """Doris-style scan node blocks (as in `EXPLAIN` of Apache Doris 2.x, Nereids)."""
    lines: list[str] = []
    for node_id, s in enumerate(scans):
        name = s.table.split(".", 1)[-1]
        shown = ",".join(s.partitions)
        lines.append(f"  {node_id}:VOlapScanNode")
        lines.append(f"     TABLE: {s.table}({name}), PREAGGREGATION: ON")
        lines.append(f"     partitions={s.partitions_read}/{s.partitions_total}" + (f" ({shown})" if shown else ""))
        lines.append(f"     tablets={s.buckets_read}/{s.buckets_in_partitions}")
        if s.buckets is not None:
            per = ", ".join(f"{p}=[{','.join(str(b) for b in sorted(bs))}]" for p, bs in s.buckets.items())
            lines.append(f"     buckets: {per}")
        if s.key_model != "DUPLICATE":
            lines.append(f"     merge: {s.key_model} KEY (merge on read)")
        lines.append(f"     files={len(s.files)}")
        if s.delete_versions:
            lines.append(f"     delete versions: {s.delete_versions}")
        lines.append("")
    return lines


def join_lines(joins) -> list[str]:
    """One block per join between dorisql tables: colocated or not, and why not (Doris's reasons)."""
    lines: list[str] = []
    for sides, special in joins:
        names = " JOIN ".join(f"{r.meta.db}.{r.meta.name}" for r in (*sides.left, sides.right))
        lines.append(f"  HASH JOIN: {sides.kind} JOIN ({names})")
        if special.strategy == "colocate":
            decision = special.decision
            group = getattr(decision, "group", None)
            lines.append("     colocate: true" + (f", group: {group.full_name}" if group is not None else ""))
            keys = getattr(decision, "keys", ())
            lines.append("     equal join conjunct: " + ", ".join(f"{a} = {b}" for a, b in keys))
        else:
            lines.append(f"     colocate: false, reason: {special.reason}")
        lines.append("")
    return lines


def spark_plan_lines(df, verbose: bool = False) -> list[str]:
    """Spark's plan of `df`, as DataFrame.explain prints it, through the EXPLAIN statement:
    catching explain's printed output would swap sys.stdout for every thread of the process
    (a server's other connections)."""
    (plan,) = df.sparkSession.sql("EXPLAIN FORMATTED SELECT * FROM {df}", df=df).collect()
    lines = plan[0].rstrip("\n").splitlines()
    return lines if verbose else operator_tree(lines)


def explain(
    spark, statement: ast.Explain | ast.Query | str, sources: QuerySources, verbose: bool | None = None
) -> list[str]:
    """EXPLAIN: the lines to print (one column, `Explain String` in Doris)."""
    query: ast.Query | str
    if isinstance(statement, ast.Explain):
        query, verbose = statement.query, statement.verbose if verbose is None else verbose
    else:
        query = statement
    df, plan = _run(spark, query, sources)
    lines = ["PLAN FRAGMENT 0", ""]
    lines += join_lines(plan.joins)
    lines += scan_lines(plan.scans)
    lines.append("== Spark physical plan ==")
    lines += spark_plan_lines(df, bool(verbose))
    return lines
