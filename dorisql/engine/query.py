"""SELECT on Spark: Doris/MySQL-flavoured queries over dorisql tables.

`run_query` parses the query with sqlglot (``read="doris"``), and for every table reference:
resolves it in the catalog, prunes partitions and buckets from the predicates that constrain it
(:mod:`dorisql.engine.pruning`), reads the chosen tablets through the engine's `scan` callback,
applies the key model (:mod:`dorisql.engine.merge`), registers the result as a uniquely named
temporary view and points the reference at it. The rewritten query is transpiled to Spark SQL
(``write="spark"``) and handed to ``spark.sql``; the DataFrame is returned unexecuted.

Doris's ``FROM t PARTITION (p1, p2)`` / ``PARTITIONS (p1, p2)`` / ``PARTITION p1`` is taken out of
the text before parsing and restricts that reference to those partitions.

`explain` renders EXPLAIN: one Doris-style ``VOlapScanNode`` block per scan (partitions=k/n,
tablets=k/m, as Doris prints them) followed by Spark's physical plan.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError, UnsupportedError
from sqlglot.tokens import TokenType

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.engine import failures
from dorisql.engine.merge import key_model, merge_rows
from dorisql.engine.pruning import PruneResult, prune, split_conjuncts
from dorisql.errors import (AnalysisError, DorisqlError, NotSupportedError, SqlSyntaxError,
                            UnknownTableError)

__all__ = ["ScanInfo", "QueryPlan", "run_query", "explain", "plan_query", "ResolveTable", "Scan"]

#: Resolve a table reference (db already filled in) to its metadata. May raise UnknownTableError
#: itself or return None (then run_query raises Doris's message).
ResolveTable = Callable[[ast.TableName], Optional[TableMeta]]
#: Read the stored rows of `meta`: the given partitions (None: all) and, per partition, buckets
#: (None: all). Returns a DataFrame with the table's columns plus whatever hidden columns the
#: files hold (`__load_seq`, `__row_seq` for UNIQUE/AGGREGATE). Must accept an empty partition
#: list (return an empty DataFrame with the table's schema).
Scan = Callable[[TableMeta, Optional[list], Optional[dict]], "DataFrame"]  # noqa: F821

_VIEW_PREFIX = "__dorisql_scan_"
_view_counter = itertools.count()


@dataclass(frozen=True)
class ScanInfo:
    """What one table reference of a query reads."""

    table: str                      # "db.t"
    alias: Optional[str]            # the reference's alias, if any
    key_model: str                  # DUPLICATE | UNIQUE | AGGREGATE
    partitions: tuple[str, ...]     # partitions read, table order
    partitions_total: int           # partitions in the table
    buckets_read: int               # tablets (partition, bucket) read
    buckets_total: int              # tablets in the whole table
    buckets_in_partitions: int      # tablets in the partitions read (Doris's tablets=k/m "m")
    buckets: Optional[dict[str, frozenset[int]]] = None  # per partition when bucket-pruned
    explicit_partitions: Optional[tuple[str, ...]] = None  # FROM t PARTITION (...)
    files: tuple[str, ...] = ()     # data files the scan reads

    @property
    def partitions_read(self) -> int:
        return len(self.partitions)


@dataclass
class QueryPlan:
    """A query ready to run: the Spark SQL text, the views it reads, what each scan reads."""

    spark_sql: str
    scans: list[ScanInfo] = field(default_factory=list)
    views: dict[str, str] = field(default_factory=dict)  # view name -> original table text


# --------------------------------------------------------------------------- PARTITION clause


def _strip_partition_clauses(sql: str) -> tuple[str, dict[int, tuple[str, ...]]]:
    """Blank out Doris's `PARTITION(S) (...)` after table names (same offsets, spaces instead).

    Returns the new text and {end offset of the table-name token: partition names}.
    """
    try:
        tokens = sqlglot.Dialect.get_or_raise("doris").tokenize(sql)
    except TokenError as e:
        raise SqlSyntaxError(f"Syntax error: {e}") from None
    chars = list(sql)
    found: dict[int, tuple[str, ...]] = {}
    i = 0
    name_types = {TokenType.VAR, TokenType.IDENTIFIER}
    while i < len(tokens):
        tok = tokens[i]
        is_kw = tok.token_type == TokenType.PARTITION or (
            tok.token_type == TokenType.VAR and tok.text.upper() in ("PARTITION", "PARTITIONS"))
        if not is_kw or i == 0:
            i += 1
            continue
        start = tok.start
        prev_i = i - 1
        temporary = False
        if tokens[prev_i].token_type == TokenType.TEMPORARY or tokens[prev_i].text.upper() == "TEMPORARY":
            temporary = True
            start = tokens[prev_i].start
            prev_i -= 1
        if prev_i < 0 or i + 1 >= len(tokens):
            i += 1
            continue
        prev, nxt = tokens[prev_i], tokens[i + 1]
        prev_is_name = prev.token_type in name_types or (
            re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", prev.text or "") is not None
            and prev.token_type not in (TokenType.FROM, TokenType.JOIN, TokenType.SELECT, TokenType.WHERE))
        if not prev_is_name or nxt.text.upper() == "BY":
            i += 1
            continue
        names: list[str] = []
        if nxt.token_type == TokenType.L_PAREN:
            j = i + 2
            while j < len(tokens) and tokens[j].token_type != TokenType.R_PAREN:
                t = tokens[j]
                if t.token_type != TokenType.COMMA:
                    names.append(t.text)
                j += 1
            if j >= len(tokens):
                raise SqlSyntaxError("Syntax error: unterminated PARTITION (...) clause",
                                     line=tok.line, column=tok.col)
            end = tokens[j].end
        elif nxt.token_type in name_types or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", nxt.text or ""):
            names.append(nxt.text)
            j = i + 1
            end = nxt.end
        else:
            i += 1
            continue
        if temporary:
            raise NotSupportedError("TEMPORARY PARTITION in queries")
        if not names:
            raise SqlSyntaxError("Syntax error: empty PARTITION () clause", line=tok.line, column=tok.col)
        for k in range(start, end + 1):
            if chars[k] != "\n":
                chars[k] = " "
        found[prev.end] = tuple(names)
        i = j + 1
    return "".join(chars), found


# --------------------------------------------------------------------------- parsing


def _parse(sql: str) -> exp.Expression:
    try:
        statements = [s for s in sqlglot.parse(sql, read="doris") if s is not None]
    except ParseError as e:
        info = e.errors[0] if e.errors else {}
        desc = info.get("description") or str(e)
        raise SqlSyntaxError(f"Syntax error: {desc}", line=info.get("line"), column=info.get("col")) from None
    except TokenError as e:
        raise SqlSyntaxError(f"Syntax error: {e}") from None
    if len(statements) != 1:
        raise SqlSyntaxError("Syntax error: expected exactly one query")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise NotSupportedError(f"statement {tree.key.upper()} as a query")
    return tree


def _with_of(node: exp.Expression) -> Optional[exp.With]:
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


def _has_null_test(e: exp.Expression) -> bool:
    return any(True for _ in e.find_all(exp.Is, exp.NullSafeEQ))


def _conjuncts_for(table: exp.Table) -> list[exp.Expression]:
    """The predicates that may prune the rows read from `table` (see the module notes)."""
    parent = table.parent
    if isinstance(parent, exp.From):
        position = 0
    elif isinstance(parent, exp.Join):
        position = -1
    else:
        return []
    select = parent.parent
    if not isinstance(select, exp.Select):
        return []
    joins = list(select.args.get("joins") or [])
    if position == -1:
        position = next((k for k, j in enumerate(joins, start=1) if j is parent), 0)
        if position == 0:
            return []
    # Is the table on the null-supplying side of an outer join?
    null_supplying = False
    own: list[exp.Expression] = []
    others: list[exp.Expression] = []
    for k, join in enumerate(joins, start=1):
        side = (join.side or "").upper()
        kind = (join.kind or "").upper()
        on = join.args.get("on")
        if k == position:
            if side in ("LEFT", "FULL") and kind not in ("SEMI", "ANTI"):
                null_supplying = True
            applies = side != "FULL" and not (side == "RIGHT" and kind in ("", "OUTER")) \
                and not (side == "RIGHT" and kind == "ANTI")
            if on is not None and applies:
                own.extend(split_conjuncts(on))
        elif k > position:
            if side in ("RIGHT", "FULL") and kind not in ("SEMI", "ANTI"):
                null_supplying = True
            applies = (side == "" and kind in ("", "INNER", "CROSS")) or (side == "RIGHT" and kind != "ANTI") \
                or (side == "LEFT" and kind == "SEMI")
            if on is not None and applies:
                others.extend(split_conjuncts(on))
    where = select.args.get("where")
    if where is not None:
        others.extend(split_conjuncts(where))
    if null_supplying:
        others = [c for c in others if not _has_null_test(c)]
    return own + others


def _qualifiers(table: exp.Table) -> list[str]:
    return [table.alias] if table.alias else [table.name]


# --------------------------------------------------------------------------- running


#: Views the engine registers for table functions in FROM (dorisql.engine.tvf).
TABLE_FUNCTION_VIEW_PREFIX = "__tvf_"


def _table_refs(tree: exp.Expression) -> list[exp.Table]:
    refs = []
    for t in tree.find_all(exp.Table):
        if not isinstance(t.this, exp.Identifier):
            continue  # table functions and the like: left to Spark
        if not isinstance(t.parent, (exp.From, exp.Join)):
            continue
        if _is_cte_reference(t):
            continue
        if t.name.startswith(TABLE_FUNCTION_VIEW_PREFIX) and not t.db:
            continue  # a table function (local(), s3()...) the engine registered as a view
        refs.append(t)
    refs.sort(key=lambda t: (t.this.meta.get("start", 0) if t.this.meta else 0))
    return refs


def _resolve(resolve_table: ResolveTable, table: exp.Table, current_db: Optional[str]) -> TableMeta:
    catalog = table.catalog
    if catalog and catalog.lower() != "internal":
        raise NotSupportedError(f"catalog '{catalog}'")
    db = table.db or current_db
    if not db:
        err = AnalysisError("No database selected")
        err.code = 1046
        err.sqlstate = "3D000"
        raise err
    meta = resolve_table(ast.TableName(table.name, db))
    if meta is None:
        raise UnknownTableError(f"Table [{table.name}] does not exist in database [{db}].")
    return meta


def plan_query(spark, query: Union[ast.Query, str], resolve_table: ResolveTable, scan: Scan,
               current_db: Optional[str]) -> QueryPlan:
    """Register the scans of `query` as temporary views and return the Spark SQL that reads them.

    The caller runs `spark.sql(plan.spark_sql)` and then drops `plan.views` (run_query does both).
    """
    sql = query.sql if isinstance(query, ast.Query) else query
    text, clauses = _strip_partition_clauses(sql)
    tree = _parse(text)
    refs = _table_refs(tree)
    matched = set()
    plan = QueryPlan(spark_sql="")
    jobs = []
    for t in refs:
        end = t.this.meta.get("end") if t.this.meta else None
        selected = clauses.get(end) if end is not None else None
        if selected is not None:
            matched.add(end)
        jobs.append((t, selected, _conjuncts_for(t)))
    if set(clauses) - matched:
        raise NotSupportedError("PARTITION clause here (only after a table name in FROM/JOIN)")
    try:
        for t, selected, conjuncts in jobs:
            meta = _resolve(resolve_table, t, current_db)
            pruned = prune(meta, conjuncts, selected=selected, qualifiers=_qualifiers(t))
            buckets = None if pruned.buckets is None else {k: set(v) for k, v in pruned.buckets.items()}
            raw = scan(meta, list(pruned.partitions), buckets)
            try:
                files = tuple(raw.inputFiles())
            except Exception:  # pragma: no cover - e.g. a non-file source
                files = ()
            df = merge_rows(raw, meta)
            view = f"{_VIEW_PREFIX}{next(_view_counter)}"
            df.createOrReplaceTempView(view)
            plan.views[view] = f"{meta.db}.{meta.name}"
            plan.scans.append(_scan_info(meta, t, pruned, selected, files))
            alias = t.alias or t.name
            new = t.copy()
            new.set("this", exp.to_identifier(view))
            new.set("db", None)
            new.set("catalog", None)
            new.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
            t.replace(new)
        for col in tree.find_all(exp.Column):
            if col.args.get("db") is not None:
                col.set("db", None)
                col.set("catalog", None)
        try:
            plan.spark_sql = tree.sql(dialect="spark", unsupported_level=ErrorLevel.RAISE,
                                      normalize_functions=False)
        except UnsupportedError as e:
            raise NotSupportedError(str(e).splitlines()[0] if str(e) else "query construct") from None
    except BaseException:
        drop_views(spark, plan.views)
        raise
    return plan


def _scan_info(meta: TableMeta, t: exp.Table, pruned: PruneResult, selected, files) -> ScanInfo:
    by_name = {p.name: p for p in meta.partitions}
    in_parts = sum(by_name[n].buckets for n in pruned.partitions if n in by_name)
    return ScanInfo(
        table=f"{meta.db}.{meta.name}",
        alias=t.alias or None,
        key_model=key_model(meta),
        partitions=tuple(pruned.partitions),
        partitions_total=len(meta.partitions),
        buckets_read=pruned.bucket_count(meta),
        buckets_total=sum(p.buckets for p in meta.partitions),
        buckets_in_partitions=in_parts,
        buckets=pruned.buckets,
        explicit_partitions=tuple(selected) if selected is not None else None,
        files=files,
    )


def drop_views(spark, views) -> None:
    for view in list(views):
        try:
            spark.catalog.dropTempView(view)
        except Exception:  # pragma: no cover
            pass


def run_query(spark, query: Union[ast.Query, str], resolve_table: ResolveTable, scan: Scan,
              current_db: Optional[str]):
    """Run a SELECT: returns (DataFrame, [ScanInfo per table reference, in source order]).

    The DataFrame is lazy (nothing executed yet); its columns are the query's output columns.
    """
    plan = plan_query(spark, query, resolve_table, scan, current_db)
    try:
        df = spark.sql(plan.spark_sql)
    except DorisqlError:
        raise
    except Exception as e:
        if failures.is_spark_analysis_error(e):  # with the view names put back
            raise failures.translate(e, views=plan.views, statement=plan.spark_sql) from e
        raise
    finally:
        # spark.sql analyses eagerly: the DataFrame keeps the views' plans, the names can go.
        drop_views(spark, plan.views)
    return df, plan.scans


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
        lines.append("")
    return lines


def spark_plan_lines(df, verbose: bool = False) -> list[str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        df.explain(mode="formatted" if verbose else "simple")
    return buf.getvalue().rstrip("\n").splitlines()


def explain(spark, statement: Union[ast.Explain, ast.Query, str], resolve_table: ResolveTable, scan: Scan,
            current_db: Optional[str], verbose: Optional[bool] = None) -> list[str]:
    """EXPLAIN: the lines to print (one column, `Explain String` in Doris)."""
    if isinstance(statement, ast.Explain):
        query, verbose = statement.query, statement.verbose if verbose is None else verbose
    else:
        query = statement
    df, scans = run_query(spark, query, resolve_table, scan, current_db)
    lines = ["PLAN FRAGMENT 0", ""]
    lines += scan_lines(scans)
    lines.append("== Spark physical plan ==")
    lines += spark_plan_lines(df, bool(verbose))
    return lines
