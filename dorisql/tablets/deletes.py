"""DELETE as Doris does it: a *delete version* that hides earlier rows until compaction drops them.

``DELETE FROM t [PARTITION p | PARTITIONS (p1, p2)] WHERE <conditions>`` writes no data file. It
is one Delta commit (version ``d``) that sets the table property ``dorisql.delete.<d>`` to the
condition, the partitions it applies to and what SHOW DELETE prints. Every read of the table
then drops the rows that match the condition *and* were committed before ``d`` (their file's
``.v<N>.parquet`` stamp, ``__commit_seq``, is < d) *and* lie in those partitions
(merge-on-read, `apply_deletes`); a later load of the same key is visible again. Base compaction
drops the rows physically with the same function and then retires the delete version
(`retire_delete_versions`). Readers outside dorisql (``deltalake``, Spark's Delta reader) see
the deleted rows until then, as Doris's raw segment files hold them until compaction.

Why a table property: it is in the table's metadata action, which every reader already loads
with the snapshot (no log walk per query), it survives restarts, other processes see it, and
the commit that sets it is a Delta version of its own, so it sits in the tablets' version chains.

The condition rules are Doris's (Nereids ``DeleteFromCommand``, ``DeleteHandler``): conjuncts
joined by AND of ``col op literal`` (=, !=, <, <=, >, >=), ``col [NOT] IN (literals)``,
``col IS [NOT] NULL``; no float/double or complex column; on AGGREGATE KEY tables key columns
only. ``col <=> v`` is ``col = v`` and ``col <=> NULL`` is ``col IS NULL``, as Nereids
rewrites them in a filter (NullSafeEqualToEqual). On a UNIQUE KEY table a condition outside those
rules (a value column, a function of a column, OR, ...) makes Doris fall back to a load of
delete-sign rows for the keys whose latest row matches (DeleteFromUsingCommand); here that is a
*key delete version*: the matching keys, recorded like any delete version, hide every row of
those keys committed before it, which is what a delete-sign row does (docs/delete.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dorisql import ast
from dorisql import types as doris_types
from dorisql.errors import AnalysisError, UnknownColumnError
from dorisql.syntax.dialect import parse_query
from dorisql.tablets.tables import df_column

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = [
    "PROPERTY_PREFIX",
    "MAX_IN_ELEMENTS",
    "Condition",
    "DeleteVersion",
    "PredicateShapeError",
    "MAX_KEY_DELETE_ROWS",
    "analyze_conditions",
    "predicate_sql",
    "parse_predicate",
    "shown_conditions",
    "delete_versions",
    "applicable",
    "apply_deletes",
    "arrow_keep_mask",
    "record_delete",
    "retire_delete_versions",
]

#: Table property key prefix: ``dorisql.delete.<version>`` = JSON (see `DeleteVersion`).
PROPERTY_PREFIX = "dorisql.delete."
#: Doris's ``max_allowed_in_element_num_of_delete`` (fe Config, default 1024).
MAX_IN_ELEMENTS = 1024
#: The most keys one key delete version records (its keys live in the table's Delta metadata,
#: which every reader loads): dorisql's limit, Doris (a load) has none.
MAX_KEY_DELETE_ROWS = 10_000

_ONLY = "Where clause only supports compound predicate, binary predicate, is_null predicate or in predicate."
_OPS: dict[type[exp.Expression], str] = {
    exp.EQ: "=",
    exp.NEQ: "!=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.NullSafeEQ: "<=>",
}
_NEGATED = {"<=>": "!=", "=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_SWAPPED = {"<=>": "<=>", "=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
#: Doris's BinaryPredicate.Operator names, as SHOW DELETE prints them.
_OP_NAMES = {"=": "EQ", "!=": "NE", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}


@dataclass(frozen=True)
class Condition:
    """One conjunct: ``column op value``, ``column [NOT] IN (values)``, ``column IS [NOT] NULL``.

    `op` is one of = != < <= > >= IN, NOT IN, IS NULL, IS NOT NULL; `values` are the literals'
    canonical texts for the column's type (Doris's format)."""

    column: str
    op: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeleteVersion:
    """A DELETE: rows committed before `version`, in `partitions` (Delta partition values, the
    ``__partition`` folder names; None = every partition), matching `predicate` are deleted."""

    version: int
    partitions: frozenset[str] | None
    #: The condition as Doris SQL (`predicate_sql`): ```k1` = 3 AND `k2` IN ('a', 'b')``.
    predicate: str
    #: SHOW DELETE's PartitionName: ``*`` without a PARTITION clause, else the names given.
    partition_names: str = "*"
    #: SHOW DELETE's CreateTime (``yyyy-MM-dd HH:mm:ss``).
    created: str = ""
    #: A key delete version (UNIQUE KEY, Doris's delete-sign load): the key columns, and the
    #: keys (canonical texts, None for NULL) whose rows it deletes, matched NULL-safely;
    #: `predicate` is then the DELETE's WHERE as written, for information only.
    key_columns: tuple[str, ...] = ()
    key_rows: tuple[tuple[str | None, ...], ...] = ()

    def columns(self) -> tuple[str, ...]:
        """The columns a row's deletion depends on."""
        if self.key_columns:
            return self.key_columns
        return tuple(dict.fromkeys(c.column for c in parse_predicate(self.predicate)))

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "predicate": self.predicate,
            "partitions": None if self.partitions is None else sorted(self.partitions),
            "partition_names": self.partition_names,
            "created": self.created,
        }
        if self.key_columns:
            data["key_columns"] = list(self.key_columns)
            data["key_rows"] = [list(r) for r in self.key_rows]
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, version: int, text: str) -> DeleteVersion:
        data = json.loads(text)
        parts = data.get("partitions")
        return cls(
            version=version,
            partitions=None if parts is None else frozenset(str(p) for p in parts),
            predicate=data["predicate"],
            partition_names=data.get("partition_names", "*"),
            created=data.get("created", ""),
            key_columns=tuple(data.get("key_columns", ())),
            key_rows=tuple(tuple(r) for r in data.get("key_rows", ())),
        )


# --------------------------------------------------------------------------- analysis (pure)


class PredicateShapeError(AnalysisError):
    """A condition Doris's delete-predicate path refuses (checkColumn, checkPredicate): on a
    UNIQUE KEY table Doris then runs the DELETE as a delete-sign load (a key delete here)."""


def _column_of(definition: ast.CreateTable, name: str) -> ast.ColumnDef:
    lowered = name.lower()
    for c in definition.columns:
        if c.name.lower() == lowered:
            return c
    raise UnknownColumnError(f"Unknown column '{name}' in 'table list'")


def _key_model(definition: ast.CreateTable) -> str:
    return definition.keys.type.upper() if definition.keys is not None else "DUPLICATE"


def _check_column(definition: ast.CreateTable, column: ast.ColumnDef) -> None:
    """Doris's DeleteFromCommand.checkColumn, in its order."""
    t = column.type
    if doris_types.is_complex(t) or doris_types.canonical(t).name in ("HLL", "BITMAP", "QUANTILE_STATE", "AGG_STATE"):
        raise PredicateShapeError(f"Can not apply delete condition to column type: {doris_types.type_sql(t)}")
    if doris_types.is_float(t):
        raise PredicateShapeError(f"Column[{column.name}] type is float or double.")
    model = _key_model(definition)
    keys = {k.lower() for k in definition.keys.columns} if definition.keys is not None else set()
    if model == "DUPLICATE" or column.name.lower() in keys:
        return
    table = definition.table.name
    if model == "AGGREGATE":
        raise PredicateShapeError(
            "delete predicate on value column only supports Unique table with merge-on-write enabled and "
            f"Duplicate table, but Table[{table}] is an Aggregate table."
        )
    mow = ast.props(definition.properties).get("enable_unique_key_merge_on_write", "true").lower() == "true"
    if not mow:
        raise PredicateShapeError(
            "delete predicate on value column only supports Unique table with merge-on-write enabled and "
            f"Duplicate table, but Table[{table}] is an unique table without merge-on-write."
        )
    # merge-on-write: Doris runs this as a load of delete-sign rows (a key delete here)
    raise PredicateShapeError(f"delete predicate on value column '{column.name}' of a unique table")


def _conjuncts(e: exp.Expression) -> list[exp.Expression]:
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return _conjuncts(e.this) + _conjuncts(e.expression)
    return [e]


def _unparen(e: exp.Expression) -> exp.Expression:
    while isinstance(e, exp.Paren):
        e = e.this
    return e


def _sql(e: exp.Expression) -> str:
    return e.sql(dialect="doris")


def _expr_type(definition: ast.CreateTable, e: exp.Expression) -> str:
    """A short type name for Doris's 'expr type' in messages (a column's type; else the kind)."""
    if isinstance(e, exp.Column):
        try:
            return doris_types.type_sql(_column_of(definition, e.name).type).lower()
        except AnalysisError:
            return "unknown"
    if isinstance(e, exp.Literal):
        return "varchar" if e.is_string else "numeric"
    return "expression"


#: Nothing can match (``k = NULL``, ``k IN (NULL)``): Doris folds the filter to an empty relation.
class _NothingMatches(Exception):
    pass


def _literal_text(e: exp.Expression) -> str | None:
    """A literal's text (None for NULL); raises TypeError when `e` is no literal."""
    e = _unparen(e)
    if isinstance(e, exp.Null):
        return None
    if isinstance(e, exp.Boolean):
        return "true" if e.this else "false"
    if isinstance(e, exp.Literal):
        return e.this
    if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
        return "-" + e.this.this
    raise TypeError


def _typed_text(column: ast.ColumnDef, text: str) -> str:
    try:
        value = doris_types.parse_value(text, column.type, full_range=True)
    except AnalysisError:
        raise AnalysisError(f"Invalid column value[{text}] for column {column.name}") from None
    if doris_types.beyond_storage(value, column.type):
        # a LARGEINT Doris takes but DECIMAL(38,0) cannot hold: say the limit, as loads do
        raise AnalysisError(
            f"Invalid column value[{text}] for column {column.name}: {doris_types.largeint_storage_error(text)}"
        )
    return doris_types.format_value(value, column.type)


def _condition(definition: ast.CreateTable, e: exp.Expression, negate: bool = False) -> Condition:
    """Doris's checkPredicate for one conjunct (below AND)."""
    e = _unparen(e)
    if isinstance(e, exp.Not) and not negate:
        inner = _unparen(e.this)
        if isinstance(inner, (exp.Is, exp.In, *_OPS)):
            return _condition(definition, inner, negate=True)
        raise PredicateShapeError(f"{_ONLY} But we meet {_sql(inner)}")
    if type(e) in _OPS:
        op = _OPS[type(e)]
        left, right = _unparen(e.this), _unparen(e.expression)
        if not isinstance(left, exp.Column) and isinstance(right, exp.Column):
            left, right, op = right, left, _SWAPPED[op]  # Nereids normalises `3 = k` to `k = 3`
        if not isinstance(left, exp.Column):
            raise PredicateShapeError(
                f"Left expr of binary predicate should be column name, predicate: {_sql(e)}, "
                f"left expr type:{_expr_type(definition, left)}"
            )
        try:
            text = _literal_text(right)
        except TypeError:
            raise PredicateShapeError(
                f"Right expr of binary predicate should be value, predicate: {_sql(e)}, "
                f"right expr type:{_expr_type(definition, right)}"
            ) from None
        column = _column_of(definition, left.name)
        if op == "<=>":  # Nereids in a filter: k <=> NULL is k IS NULL, k <=> v is k = v
            if text is None:
                return Condition(column.name, "IS NOT NULL" if negate else "IS NULL")
            if negate and column.nullable is not False:  # NOT k <=> v keeps NULLs: no delete predicate says it
                raise PredicateShapeError(f"{_ONLY} But we meet {_sql(e)}")
            op = "="
        if text is None:
            raise _NothingMatches
        return Condition(column.name, _NEGATED[op] if negate else op, (_typed_text(column, text),))
    if isinstance(e, exp.In):
        left = _unparen(e.this)
        if not isinstance(left, exp.Column):
            raise PredicateShapeError(
                f"Left expr of in predicate should be column name, predicate: {_sql(e)}, "
                f"left expr type:{_expr_type(definition, left)}"
            )
        if e.args.get("query") is not None:
            raise PredicateShapeError(_ONLY)
        options = list(e.expressions)
        if len(options) > MAX_IN_ELEMENTS:
            raise PredicateShapeError(f"Element num of in predicate should not be more than {MAX_IN_ELEMENTS}")
        column = _column_of(definition, left.name)
        texts = []
        for option in options:
            try:
                texts.append(_literal_text(option))
            except TypeError:
                raise PredicateShapeError(f"Child of in predicate should be value, but get {_sql(option)}") from None
        values = tuple(dict.fromkeys(_typed_text(column, t) for t in texts if t is not None))
        if not values:
            raise _NothingMatches  # k IN (NULL) matches nothing; k NOT IN (NULL) too
        if negate and len(values) < len(texts):
            raise _NothingMatches  # k NOT IN (1, NULL) is never true
        return Condition(column.name, "NOT IN" if negate else "IN", values)
    if isinstance(e, exp.Is) and isinstance(_unparen(e.expression), exp.Null):
        child = _unparen(e.this)
        if not isinstance(child, exp.Column):
            raise PredicateShapeError(f"Child expr of is_null predicate should be column name, predicate: {_sql(e)}")
        return Condition(_column_of(definition, child.name).name, "IS NOT NULL" if negate else "IS NULL")
    raise PredicateShapeError(f"{_ONLY} But we meet {_sql(e)}")


def analyze_conditions(definition: ast.CreateTable, where: exp.Expression) -> tuple[Condition, ...] | None:
    """Check a DELETE's WHERE condition with Doris's rules and messages; returns its conditions
    (values in canonical form for their column types), or None when nothing can match
    (``k = NULL``: Doris answers OK and records no delete)."""
    if any(True for _ in where.find_all(exp.Query, exp.Subquery, exp.Exists)):
        raise PredicateShapeError(_ONLY)
    conjuncts = _conjuncts(where)
    # Doris checks the columns of every conjunct (checkColumn) before its shape (checkPredicate).
    for c in conjuncts:
        for col in c.find_all(exp.Column):
            _check_column(definition, _column_of(definition, col.name))
    try:
        return tuple(_condition(definition, c) for c in conjuncts)
    except _NothingMatches:
        return None


def _quote_value(column: ast.ColumnDef | None, text: str) -> str:
    if column is not None and (
        doris_types.is_integer(column.type) or doris_types.canonical(column.type).name == "DECIMAL"
    ):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _quote_name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def predicate_sql(conditions: Sequence[Condition], definition: ast.CreateTable | None = None) -> str:
    """The conditions as one Doris SQL predicate (what a DeleteVersion records)."""
    parts = []
    for c in conditions:
        column = None
        if definition is not None:
            column = _column_of(definition, c.column)
        name = _quote_name(c.column)
        if c.op in ("IS NULL", "IS NOT NULL"):
            parts.append(f"{name} {c.op}")
        elif c.op in ("IN", "NOT IN"):
            parts.append(f"{name} {c.op} (" + ", ".join(_quote_value(column, v) for v in c.values) + ")")
        else:
            parts.append(f"{name} {c.op} {_quote_value(column, c.values[0])}")
    return " AND ".join(parts)


def parse_predicate(predicate: str) -> tuple[Condition, ...]:
    """`predicate_sql`'s text back into conditions (values as text)."""

    where = parse_query(f"SELECT 1 FROM t WHERE {predicate}").args["where"].this
    out = []
    for e in _conjuncts(where):
        negate = isinstance(e, exp.Not)
        e = _unparen(e.this) if negate else e
        if isinstance(e, exp.Is):
            out.append(Condition(e.this.name, "IS NOT NULL" if negate else "IS NULL"))
        elif isinstance(e, exp.In):
            out.append(
                Condition(
                    e.this.name, "NOT IN" if negate else "IN", tuple(_literal_text(o) or "" for o in e.expressions)
                )
            )
        else:
            out.append(Condition(e.this.name, _OPS[type(e)], (_literal_text(e.expression) or "",)))
    return tuple(out)


def shown_conditions(conditions: Sequence[Condition], definition: ast.CreateTable | None = None) -> str:
    """SHOW DELETE's DeleteCondition, as Doris's DeleteHandler writes it: ``k1 EQ "3"``,
    ``k2 IN ('a', 'b')``, ``k3 IS NULL``, joined by ``, ``."""
    parts = []
    for c in conditions:
        column = _column_of(definition, c.column) if definition is not None else None
        if c.op in ("IS NULL", "IS NOT NULL"):
            parts.append(f"{c.column} {c.op}")
        elif c.op in ("IN", "NOT IN"):
            parts.append(f"{c.column} {c.op} (" + ", ".join(_quote_value(column, v) for v in c.values) + ")")
        else:
            parts.append(f'{c.column} {_OP_NAMES[c.op]} "{c.values[0]}"')
    return ", ".join(parts)


# --------------------------------------------------------------------------- reading the versions


def delete_versions(store_or_properties: Any) -> tuple[DeleteVersion, ...]:
    """The table's live delete versions, oldest first, from a DeltaStore, a Snapshot (its
    ``properties``) or a table-property mapping. Retired ones (empty value) are left out."""
    source = store_or_properties
    if hasattr(source, "properties"):
        source = source.properties() if callable(source.properties) else source.properties
    out = []
    for key, value in dict(source or {}).items():
        if not key.startswith(PROPERTY_PREFIX) or not value:
            continue
        suffix = key[len(PROPERTY_PREFIX) :]
        if suffix.isdigit():
            out.append(DeleteVersion.from_json(int(suffix), value))
    return tuple(sorted(out, key=lambda d: d.version))


def applicable(deletes: Iterable[DeleteVersion], partition: str, version: int) -> tuple[DeleteVersion, ...]:
    """The delete versions that apply to a file of `partition` committed as `version`."""
    return tuple(d for d in deletes if version < d.version and (d.partitions is None or partition in d.partitions))


# --------------------------------------------------------------------------- applying them


def apply_deletes(
    df: DataFrame,
    deletes: Sequence[DeleteVersion],
    partition_column: str | None = "__partition",
    version_column: str = "__commit_seq",
) -> DataFrame:
    """`df` without the rows the delete versions delete: for each one, rows with
    ``version_column < d.version``, ``partition_column`` in its partitions (when it names any)
    and matching its predicate (NULL never matches). Rows stay otherwise, hidden columns too.

    `partition_column` may be None when every delete applies to all partitions, or the caller
    has already kept only the deletes of the partition `df` holds."""
    from pyspark.sql import functions as F

    if not deletes:
        return df
    types = {f.name: f.dataType for f in df.schema.fields}
    deleted = None
    for d in deletes:
        matched = F.col(version_column) < F.lit(d.version)
        if d.partitions is not None and partition_column is not None:
            matched = matched & F.col(partition_column).isin(sorted(d.partitions))
        if d.key_columns:
            deleted = _or(deleted, matched & _spark_key_match(df, types, d))
            continue
        for c in parse_predicate(d.predicate):
            name = df_column(df, c.column)
            col = F.col(_quote_name(name))
            dtype = types[name]
            values = [F.lit(v).cast(dtype) for v in c.values]
            if c.op == "IS NULL":
                cond = col.isNull()
            elif c.op == "IS NOT NULL":
                cond = col.isNotNull()
            elif c.op == "IN":
                cond = col.isin(values)
            elif c.op == "NOT IN":
                cond = ~col.isin(values)
            else:
                v = values[0]
                cond = {
                    "=": col == v,
                    "!=": col != v,
                    "<": col < v,
                    "<=": col <= v,
                    ">": col > v,
                    ">=": col >= v,
                }[c.op]
            matched = matched & cond
        deleted = _or(deleted, matched)
    assert deleted is not None
    return df.where(~F.coalesce(deleted, F.lit(False)))


def _or(a, b):
    return b if a is None else a | b


def _spark_key_match(df: DataFrame, types: dict, d: DeleteVersion):
    """A row's key is one of a key delete's keys, NULL-safely (a delete-sign row hides its key's
    rows whatever their key values, NULL included). Keys without a NULL: one IN over the key
    struct (Spark hashes it); the few with a NULL: NULL-safe equalities."""
    from pyspark.sql import functions as F

    names = [df_column(df, c) for c in d.key_columns]
    cols = [F.col(_quote_name(n)) for n in names]

    def lit(i: int, v: str):
        return F.lit(v).cast(types[names[i]])

    plain = [r for r in d.key_rows if None not in r]
    with_null = [r for r in d.key_rows if None in r]
    match = None
    if plain:
        if len(cols) == 1:
            match = cols[0].isin([lit(0, r[0]) for r in plain])  # type: ignore[arg-type]
        else:
            key = F.struct(*[c.alias(f"k{i}") for i, c in enumerate(cols)])
            match = key.isin([F.struct(*[lit(i, v).alias(f"k{i}") for i, v in enumerate(r)]) for r in plain])  # type: ignore[arg-type]
    for r in with_null:
        one = None
        for i, v in enumerate(r):
            cond = cols[i].isNull() if v is None else cols[i].eqNullSafe(lit(i, v))
            one = cond if one is None else one & cond
        match = _or(match, one)
    return F.coalesce(match, F.lit(False)) if match is not None else F.lit(False)


def arrow_keep_mask(table, deletes: Sequence[DeleteVersion]):
    """For a pyarrow table of one file (all its rows share a partition and a commit version, so
    `deletes` are the `applicable` ones): a boolean array, True for the rows to keep. The
    table must hold every column the predicates name (case-insensitive)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names = {n.lower(): n for n in table.column_names}
    keep = pa.array([True] * table.num_rows, pa.bool_())
    for d in deletes:
        if d.key_columns:
            keep = pc.and_(keep, pc.invert(_arrow_key_match(table, names, d)))
            continue
        matched = pa.array([True] * table.num_rows, pa.bool_())
        for c in parse_predicate(d.predicate):
            col = table.column(names[c.column.lower()])
            values = [pa.scalar(v).cast(col.type) for v in c.values]
            if c.op == "IS NULL":
                cond = pc.is_null(col)
            elif c.op == "IS NOT NULL":
                cond = pc.is_valid(col)
            elif c.op in ("IN", "NOT IN"):
                cond = pc.is_in(col, value_set=pa.array([v.as_py() for v in values], col.type))
                cond = pc.if_else(pc.is_null(col), None, cond)
                if c.op == "NOT IN":
                    cond = pc.invert(cond)
            else:
                fn = {
                    "=": pc.equal,
                    "!=": pc.not_equal,
                    "<": pc.less,
                    "<=": pc.less_equal,
                    ">": pc.greater,
                    ">=": pc.greater_equal,
                }[c.op]
                cond = fn(col, values[0])
            matched = pc.and_kleene(matched, cond)
        keep = pc.and_(keep, pc.invert(pc.fill_null(matched, False)))
    return keep


def _arrow_key_match(table, names: dict[str, str], d: DeleteVersion):
    """`_spark_key_match` for a pyarrow table: True where the row's key is one of `d`'s keys."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cols = [table.column(names[c.lower()]) for c in d.key_columns]
    typed = [
        tuple(None if v is None else pa.scalar(v).cast(cols[i].type).as_py() for i, v in enumerate(r))
        for r in d.key_rows
    ]
    if len(cols) == 1:  # is_in with skip_nulls=False matches a NULL key to a NULL in the set
        value_set = pa.array([r[0] for r in typed], cols[0].type)
        return pc.fill_null(pc.is_in(cols[0], value_set=value_set, skip_nulls=False), False)
    wanted = set(typed)
    rows = zip(*(c.to_pylist() for c in cols))
    return pa.array([r in wanted for r in rows], pa.bool_())


# --------------------------------------------------------------------------- recording and retiring


def record_delete(
    store,
    predicate: str,
    partitions: frozenset[str] | None,
    *,
    partition_names: str = "*",
    created: str = "",
    key_columns: Sequence[str] = (),
    key_rows: Sequence[Sequence[str | None]] = (),
    metadata: dict[str, Any] | None = None,
) -> DeleteVersion:
    """Commit a delete version: one Delta commit (under the table's commit lock) setting the
    property ``dorisql.delete.<d>``, d being the version that commit becomes. With `key_columns`
    it is a key delete version of `key_rows` (`predicate`: the WHERE as written). `metadata`
    goes into the commit's commitInfo (a Stream Load's label)."""
    columns = tuple(key_columns)
    rows = tuple(tuple(r) for r in key_rows)

    def made(version: int) -> DeleteVersion:
        return DeleteVersion(version, partitions, predicate, partition_names, created, columns, rows)

    version = store.commit_properties(lambda v: {f"{PROPERTY_PREFIX}{v}": made(v).to_json()}, metadata)
    return made(version)


def retire_delete_versions(store, versions: Iterable[int]) -> int | None:
    """Retire delete versions (their property becomes empty: `delete_versions` ignores them).

    Call it only when no file older than each version remains in the partitions it applies to
    (base compaction has rewritten them without the deleted rows): reads stop applying it, so
    any such file left would show its deleted rows again. One Delta commit; returns its version,
    or None when there was nothing to retire."""
    wanted = {int(v) for v in versions}
    live = {d.version for d in delete_versions(store)}
    keys = {f"{PROPERTY_PREFIX}{v}": "" for v in sorted(wanted & live)}
    if not keys:
        return None
    return store.set_properties(keys)
