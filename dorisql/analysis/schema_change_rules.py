"""Schema change (ALTER TABLE ADD/DROP/MODIFY/RENAME COLUMN, MODIFY COMMENT): the pure part.

`apply_action` takes a table definition (normalised CREATE TABLE) and one schema-change action
and returns the new definition, with Doris's rules and messages (fe SchemaChangeHandler
processAddColumn/addColumnInternal/processDropColumn/processModifyColumn and createJob's
"value after key" check; Column.checkSchemaChangeAllowed and ColumnType's schemaChangeMatrix).
No Spark, no catalog: the engine (dorisql.statements.ddl.alter_columns) stores the result.

`in_place_widening` says whether a type change can be read from the existing files without
rewriting them: Spark 4's Parquet reader and deltalake both read INT32 as BIGINT, FLOAT as
DOUBLE and DECIMAL(p, s) as a wider DECIMAL; strings stay strings. Doris allows more (INT to
VARCHAR, INT to DATE ...): those need a data rewrite, which dorisql does not do yet.
"""

from __future__ import annotations

import dataclasses

from dorisql import ast
from dorisql import types as doris_types
from dorisql.analysis.checks import _check_complex_default, _nullable
from dorisql.errors import AnalysisError, NotSupportedError

__all__ = ["apply_action", "in_place_widening", "doris_allows_type_change"]

_INTS = ("TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT")
_STRINGS = ("CHAR", "VARCHAR", "STRING")

#: Doris ColumnType.schemaChangeMatrix (fe-core catalog/ColumnType.java): old -> allowed new.
_DORIS_MATRIX: dict[str, set[str]] = {
    "TINYINT": {"SMALLINT", "INT", "BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
    "SMALLINT": {"INT", "BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
    "INT": {"BIGINT", "LARGEINT", "FLOAT", "DOUBLE", "DATE", "VARCHAR", "STRING"},
    "BIGINT": {"LARGEINT", "FLOAT", "DOUBLE", "VARCHAR", "STRING"},
    "LARGEINT": {"FLOAT", "DOUBLE", "VARCHAR", "STRING"},
    "FLOAT": {"DOUBLE", "VARCHAR", "STRING"},
    "DOUBLE": {"FLOAT", "VARCHAR", "STRING"},
    "CHAR": {"CHAR", "VARCHAR", "STRING"},
    "VARCHAR": {"VARCHAR", "STRING"},
    "STRING": {"STRING"},
    "DECIMAL": {"DECIMAL", "VARCHAR", "STRING"},
    "DATE": {"DATETIME", "VARCHAR", "STRING"},
    "DATETIME": {"DATE", "DATETIME", "VARCHAR", "STRING"},
}


def _type_name(t: ast.DataType) -> str:
    """Doris prints the primitive type in "Can not change X to Y"."""
    return doris_types.primitive_name(t)


def doris_allows_type_change(old: ast.DataType, new: ast.DataType) -> bool:
    old, new = doris_types.canonical(old), doris_types.canonical(new)
    if old == new:
        return True
    return new.name in _DORIS_MATRIX.get(old.name, set())


def in_place_widening(old: ast.DataType, new: ast.DataType) -> bool:
    """True when files written with `old` read correctly as `new` (no rewrite needed)."""
    old, new = doris_types.canonical(old), doris_types.canonical(new)
    if old == new:
        return True
    if old.name in _INTS[:4] and new.name in _INTS[:4]:
        return _INTS.index(new.name) >= _INTS.index(old.name)
    if old.name == "FLOAT" and new.name == "DOUBLE":
        return True
    if old.name in _STRINGS and new.name in ("VARCHAR", "STRING"):
        return True  # stored as Parquet strings either way; lengths are checked below
    if old.name == "DECIMAL" and new.name == "DECIMAL":
        (p0, s0), (p1, s1) = old.params, new.params
        return s1 >= s0 and p1 - s1 >= p0 - s0
    return False


def _find(columns: list[ast.ColumnDef], name: str) -> int:
    lowered = name.lower()
    for i, c in enumerate(columns):
        if c.name.lower() == lowered:
            return i
    return -1


def _key_names(definition: ast.CreateTable) -> list[str]:
    return list(definition.keys.columns) if definition.keys else []


def _model(definition: ast.CreateTable) -> str:
    return definition.keys.type if definition.keys else "DUPLICATE"


def _partition_columns(definition: ast.CreateTable, partition_columns) -> set[str]:
    if partition_columns is not None:
        return {c.lower() for c in partition_columns}
    part = definition.partition
    return {c.lower() for c in part.columns} if part else set()


def _distribution_columns(definition: ast.CreateTable) -> set[str]:
    d = definition.distribution
    return {c.lower() for c in d.columns} if d and d.kind == "HASH" else set()


def _rebuild(definition: ast.CreateTable, columns: list[ast.ColumnDef], keys: set[str]) -> ast.CreateTable:
    """The definition with `columns` in order; key columns (lowered names in `keys`) first, else
    Doris's "value should be after key"."""
    meet_value = False
    has_key = False
    for c in columns:
        is_key = c.name.lower() in keys
        if is_key and meet_value:
            raise AnalysisError(f"Invalid column order. value should be after key. index[{definition.table.name}]")
        meet_value = meet_value or not is_key
        has_key = has_key or is_key
    if not has_key and definition.keys is not None:
        raise AnalysisError(f"No key column left. index[{definition.table.name}]")
    key_names = tuple(c.name for c in columns if c.name.lower() in keys)
    new_keys = dataclasses.replace(definition.keys, columns=key_names) if definition.keys else None
    return dataclasses.replace(definition, columns=tuple(columns), keys=new_keys)


def _normalise_new_column(definition: ast.CreateTable, c: ast.ColumnDef) -> tuple[ast.ColumnDef, bool]:
    """Doris addColumnInternal: the aggregation rules of the table's model; returns the column
    (type canonical, nullability explicit) and whether it is a key column."""

    name = c.name
    model = _model(definition)
    agg = c.agg_type.upper() if c.agg_type else None
    if c.key and agg is not None:
        raise AnalysisError(f"Key column can not set aggregation type: {name}")  # ColumnDef.analyze, first
    if c.auto_increment:
        raise AnalysisError(f"Can not add auto-increment column {name}")
    if c.generated is not None:
        raise AnalysisError("Not supporting alter table add generated columns.")
    if model == "AGGREGATE":
        is_key = agg is None
        if agg == "SUM" and c.default is not None and c.default.value not in ("0", None):
            raise AnalysisError(f"The default value of '{name}' with SUM aggregation function must be zero")
        distribution = definition.distribution
        if agg in ("REPLACE", "REPLACE_IF_NOT_NULL") and distribution is not None and distribution.kind == "RANDOM":
            raise AnalysisError(
                f"Can not add value column with aggregation type {agg} for olap table with random distribution : {name}"
            )
    elif model == "UNIQUE":
        if agg is not None:
            raise AnalysisError(f"Can not assign aggregation method on column in Unique data model table: {name}")
        is_key = c.key
    else:
        if agg is not None:
            raise AnalysisError(f"Can not assign aggregation method on column in Duplicate data model table: {name}")
        is_key = c.key
    t = doris_types.check_type(doris_types.canonical(c.type), name)
    if t.name in doris_types.AGG_ONLY_TYPES and not doris_types.is_sketch(t):
        raise NotSupportedError(f"{t.name} columns")
    if doris_types.is_sketch(t) and is_key:
        raise AnalysisError(f"Key column can not set complex type:{name}")
    if doris_types.is_sketch(t):  # Hll: no DEFAULT; Bitmap: only BITMAP_EMPTY (as CREATE TABLE)
        _check_complex_default(c, t)
    nullable = _nullable(c)
    if c.default is not None and c.default.kind == "null" and not nullable:
        raise AnalysisError(f"Can not set null default value to non nullable column: {name}")
    # a BITMAP's and an HLL's default is the empty one (ColumnDefinition.validate): old rows get it
    if not nullable and c.default is None and t.name not in ("BITMAP", "HLL"):
        # The rows already in the table need a value (Doris ColumnDef analysis for ADD COLUMN).
        raise AnalysisError(f"Can not add not null column without default value: {name}")
    if c.default is not None and c.default.kind in ("string", "number") and c.default.value is not None:
        try:
            doris_types.parse_value(c.default.value, t)
        except AnalysisError as e:
            raise AnalysisError(f"Invalid default value for '{name}': {e.message}") from None
    if is_key:
        msg = doris_types.key_type_error(t, name)
        if msg:
            raise AnalysisError(msg)
    return dataclasses.replace(c, type=t, nullable=nullable, agg_type=agg, key=False), is_key


def _insert(
    columns: list[ast.ColumnDef], keys: set[str], column: ast.ColumnDef, is_key: bool, position
) -> list[ast.ColumnDef]:
    """Doris checkAndAddColumn: FIRST, AFTER x, else a key after the last key, a value last."""
    out = list(columns)
    if position is not None:
        if position.after is None:
            out.insert(0, column)
            return out
        at = _find(out, position.after)
        if at < 0:
            raise AnalysisError(f"Column[{position.after}] does not found")
        out.insert(at + 1, column)
        return out
    if is_key:
        last_key = max((i for i, c in enumerate(out) if c.name.lower() in keys), default=-1)
        out.insert(last_key + 1, column)
        return out
    out.append(column)
    return out


def apply_action(definition: ast.CreateTable, action: ast.SchemaChange, *, partition_columns=None) -> ast.CreateTable:
    """The definition after one schema-change action, or AnalysisError with Doris's message.

    `partition_columns` overrides the definition's partition columns (the catalog keeps the
    live partition list apart; its columns are still in `definition.partition`)."""
    table = definition.table.name
    columns = list(definition.columns)
    keys = {k.lower() for k in _key_names(definition)}
    parts = _partition_columns(definition, partition_columns)
    dist = _distribution_columns(definition)

    rollup = getattr(action, "rollup", None)
    if rollup:
        raise AnalysisError(f"Index[{rollup}] does not exist in table[{table}]")

    if isinstance(action, ast.AddColumns):
        added: set[str] = set()
        for c in action.columns:
            column, is_key = _normalise_new_column(definition, c)
            if _find(columns, c.name) >= 0:
                if c.name.lower() in added:
                    raise AnalysisError(f"Repeatedly add column: {c.name}")
                raise AnalysisError(f"Can not add column which already exists in base table: {c.name}")
            columns = _insert(columns, keys, column, is_key, action.position)
            added.add(c.name.lower())
            if is_key:
                keys.add(c.name.lower())
        return _rebuild(definition, columns, keys)

    if isinstance(action, ast.DropColumn):
        at = _find(columns, action.name)
        if at < 0:
            raise AnalysisError(f"Column does not exists: {action.name}")
        name = columns[at].name
        model = _model(definition)
        is_key = name.lower() in keys
        if model == "UNIQUE" and is_key:
            raise AnalysisError("Can not drop key column in Unique data model table")
        if model == "UNIQUE" and name.lower() == _sequence_col(definition).lower():
            raise AnalysisError(
                f"Can not drop sequence mapping column[{action.name}] in Unique data model table[{table}]"
            )
        if model == "AGGREGATE" and is_key:
            if any((c.agg_type or "") in ("REPLACE", "REPLACE_IF_NOT_NULL") for c in columns):
                raise AnalysisError(
                    "Can not drop key column when table has value column with REPLACE aggregation method"
                )
        if name.lower() in parts:
            raise AnalysisError(f"Partition column[{name}] cannot be dropped. index[{table}]")
        if name.lower() in dist:
            raise AnalysisError(f"Distribution column[{name}] cannot be dropped. index[{table}]")
        if len(columns) == 1:
            raise AnalysisError(f"Do not allow remove last column of table: {table} column: {name}")
        del columns[at]
        keys.discard(name.lower())
        # an index on the column goes with it (SchemaChangeHandler.processDropColumn)
        indexes = tuple(i for i in definition.indexes if name.lower() not in {c.lower() for c in i.columns})
        return _rebuild(dataclasses.replace(definition, indexes=indexes), columns, keys)

    if isinstance(action, ast.ModifyColumnComment):
        at = _find(columns, action.name)
        if at < 0:
            raise AnalysisError(f"Column[{action.name}] does not exists")
        columns[at] = dataclasses.replace(columns[at], comment=action.comment)
        return dataclasses.replace(definition, columns=tuple(columns))

    if isinstance(action, ast.RenameColumn):
        at = _find(columns, action.old_name)
        if at < 0:
            raise AnalysisError(f"Column[{action.old_name}] does not exists")
        old = columns[at].name
        if old == action.new_name:
            raise AnalysisError(f"Same column name: {old}")
        if _find(columns, action.new_name) >= 0:
            raise AnalysisError(f"Column name[{action.new_name}] is already used")
        columns[at] = dataclasses.replace(columns[at], name=action.new_name)
        definition = _rename_everywhere(definition, old, action.new_name)
        keys = {action.new_name.lower() if k == old.lower() else k for k in keys}
        return _rebuild(dataclasses.replace(definition, columns=tuple(columns)), columns, keys)

    if isinstance(action, ast.ModifyColumn):
        return _modify(definition, action, columns, keys, parts, dist)

    if isinstance(action, ast.ModifyTableComment):
        return dataclasses.replace(definition, comment=action.comment)
    if isinstance(action, ast.ReorderColumns):
        return _rebuild(definition, _reorder(columns, action.columns), keys)
    raise TypeError(f"not a schema change: {type(action).__name__}")


def _modify(definition, action: ast.ModifyColumn, columns, keys, parts, dist) -> ast.CreateTable:
    """Doris 3.0's MODIFY COLUMN (ColumnDef analysis, SchemaChangeHandler.processModifyColumn, then
    createJob's checks in its order): the clause says whether the column is a key (KEY; on an
    AGGREGATE table, no aggregation method), the move and the key order come first, then
    Column.checkSchemaChangeAllowed, then the partition and distribution columns. (Doris master's
    ModifyColumnOp keeps the old column's key flag instead and words a few refusals differently.)"""
    table = definition.table.name
    new = action.column
    name = new.name
    model = _model(definition)
    agg = new.agg_type.upper() if new.agg_type else None
    if new.key and agg is not None:
        raise AnalysisError(f"Key column can not set aggregation type: {name}")  # ColumnDef.analyze
    if model == "AGGREGATE":
        is_key = agg is None
    elif agg is not None:
        kind = "Unique" if model == "UNIQUE" else "Duplicate"
        raise AnalysisError(f"Can not assign aggregation method on column in {kind} data model table: {name}")
    else:
        is_key = new.key
    at = _find(columns, name)
    if at < 0:
        raise AnalysisError(f"Column[{name}] does not exists")
    old = columns[at]
    name = old.name
    new_type = doris_types.check_type(doris_types.canonical(new.type), name)
    agg = agg if model == "AGGREGATE" else None
    modified = dataclasses.replace(new, name=name, type=new_type, nullable=_nullable(new), agg_type=agg, key=False)
    if modified.comment is None:
        modified = dataclasses.replace(modified, comment=old.comment)
    columns = _move(columns, at, modified, action.position)
    was_key = name.lower() in keys
    keys = (keys | {name.lower()}) if is_key else (keys - {name.lower()})
    changed = _rebuild(definition, columns, keys)  # "value should be after key", "No key column left"
    old_type = doris_types.canonical(old.type)
    if not doris_allows_type_change(old_type, new_type):
        raise AnalysisError(f"Can not change {_type_name(old_type)} to {_type_name(new_type)}")
    # A key has no aggregation method and a value has one (Doris's implicit NONE/REPLACE outside
    # AGGREGATE tables): a key column turned value, or the reverse, changes it.
    if (old.agg_type or None) != (modified.agg_type or None) or was_key != is_key:
        raise AnalysisError("Can not change aggregation type")
    if old.nullable is not False and modified.nullable is False:
        raise AnalysisError("Can not change from nullable to non-nullable")
    if old.default != modified.default:
        raise AnalysisError("Can not change default value")
    if old_type.name in ("CHAR", "VARCHAR") and new_type.name in ("CHAR", "VARCHAR"):
        if old_type.params and new_type.params and old_type.params[0] > new_type.params[0]:
            raise AnalysisError("Cannot shorten string length")
    # a column only moved (same definition) may be a partition or distribution column
    same = dataclasses.replace(old, type=old_type, key=False, comment=None) == dataclasses.replace(
        modified, comment=None
    )
    if name.lower() in parts and not same:
        raise AnalysisError(f"Can not modify partition column[{name}]. index[{table}]")
    if name.lower() in dist and not same:
        raise AnalysisError(f"Can not modify distribution column[{name}]. index[{table}]")
    if not in_place_widening(old_type, new_type):
        raise NotSupportedError(
            f"ALTER TABLE ... MODIFY COLUMN from {doris_types.type_sql(old_type)} to {doris_types.type_sql(new_type)} "
            "(it needs a data rewrite; dorisql changes types only where the stored files read as the new type)"
        )
    return changed


def _move(columns: list[ast.ColumnDef], at: int, column: ast.ColumnDef, position) -> list[ast.ColumnDef]:
    """SchemaChangeHandler.processModifyColumn: in place, FIRST, or right after another column."""
    out = list(columns)
    if position is None:
        out[at] = column
        return out
    if position.after is not None:
        after = _find(out, position.after)
        if after < 0:
            raise AnalysisError(f"Column[{position.after}] does not exists")
        if after == at:
            raise AnalysisError(f"Column[{position.after}] modify position is invalid")
    del out[at]
    out.insert(0 if position.after is None else _find(out, position.after) + 1, column)
    return out


def _reorder(columns: list[ast.ColumnDef], names: tuple[str, ...]) -> list[ast.ColumnDef]:
    """SchemaChangeHandler.processReorderColumn: every column named once, in the new order."""
    out: list[ast.ColumnDef] = []
    seen: set[str] = set()
    for name in names:
        at = _find(columns, name)
        if at < 0:
            raise AnalysisError(f"Column[{name}] not exists")
        out.append(columns[at])
        if name.lower() in seen:
            raise AnalysisError(f"Reduplicative column[{name}]")
        seen.add(name.lower())
    if len(out) != len(columns):
        raise AnalysisError("Reorder stmt should contains all columns")
    return out


def _sequence_col(definition: ast.CreateTable) -> str:
    """The value column "function_column.sequence_col" maps the sequence to ("" without one)."""
    props = {k.lower(): v for k, v in ast.props(definition.properties).items()}
    return (props.get("function_column.sequence_col") or "").strip()


def _rename_everywhere(definition: ast.CreateTable, old: str, new: str) -> ast.CreateTable:
    """Key, partition and distribution column lists follow a renamed column, and so does the
    sequence mapping (SchemaChangeHandler.processRenameColumn: setSequenceMapCol)."""

    def swap(names):
        return tuple(new if n.lower() == old.lower() else n for n in names)

    out = definition
    if out.keys is not None:
        out = dataclasses.replace(out, keys=dataclasses.replace(out.keys, columns=swap(out.keys.columns)))
    if out.partition is not None:
        out = dataclasses.replace(
            out, partition=dataclasses.replace(out.partition, columns=swap(out.partition.columns))
        )
    if out.distribution is not None:
        out = dataclasses.replace(
            out, distribution=dataclasses.replace(out.distribution, columns=swap(out.distribution.columns))
        )
    if _sequence_col(out).lower() == old.lower():
        properties = tuple((k, new if k.lower() == "function_column.sequence_col" else v) for k, v in out.properties)
        out = dataclasses.replace(out, properties=properties)
    return out
