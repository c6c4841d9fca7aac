"""Doris's secondary indexes (INVERTED, BITMAP, NGRAM_BF) and REPLACE WITH TABLE's options: the
rules and messages, without Spark.

dorisql records an index in the table's definition (SHOW CREATE TABLE prints it, SHOW INDEX lists
it) and builds nothing: Spark reads Parquet with its own statistics, and an inverted index has no
Delta meaning (docs/compatibility.md, Indexes). The checks are Doris's, so DDL that runs here runs
on Doris and the other way round (IndexDefinition, SchemaChangeHandler.processAddIndex /
processDropIndex).
"""

from __future__ import annotations

import dataclasses

from dorisql import ast
from dorisql import types as doris_types
from dorisql.errors import AnalysisError

#: IndexDefinition: an index written without USING is an inverted index.
DEFAULT_INDEX_TYPE = "INVERTED"
#: IndexDef.NGRAM_SIZE_KEY / NGRAM_BF_SIZE_KEY and their defaults.
_NGRAM_DEFAULTS = (("gram_size", "2"), ("bf_size", "256"))
_MAX_NAME_LENGTH = 64


def normalized(index: ast.IndexDef) -> ast.IndexDef:
    """The index with Doris's defaults (USING INVERTED; NGRAM_BF's gram_size and bf_size),
    after IndexDefinition.validate's checks."""
    using = (index.using or DEFAULT_INDEX_TYPE).upper()
    if using not in ("INVERTED", "BITMAP", "NGRAM_BF"):
        raise AnalysisError(f"unknown index type {using}")
    properties = index.properties
    if using == "NGRAM_BF":
        written = {k for k, _ in properties}
        properties = properties + tuple((k, v) for k, v in _NGRAM_DEFAULTS if k not in written)
    if using in ("BITMAP", "INVERTED"):
        if len(index.columns) != 1:
            raise AnalysisError(f"{using} index can only apply to a single column.")
        if not index.name:
            raise AnalysisError("index name cannot be blank.")
        if len(index.name) > _MAX_NAME_LENGTH:
            raise AnalysisError("index name too long, the index name length at most is 64.")
    return dataclasses.replace(index, using=using, properties=properties)


def _supported(t: ast.DataType) -> bool:
    """IndexDefinition.isSupportIdxType: scalar types and arrays of them."""
    if t.name == "ARRAY":
        return t.args[0].name != "ARRAY" and _supported(t.args[0])
    return (
        doris_types.is_date_like(t)
        or doris_types.is_integer(t)
        or doris_types.is_string_like(t)
        or doris_types.is_float(t)
        or t.name in ("DECIMAL", "BOOLEAN", "VARIANT", "IPV4", "IPV6")
    )


def checked(definition: ast.CreateTable, index: ast.IndexDef) -> ast.IndexDef:
    """`index` normalised and checked against the table's columns (IndexDefinition.checkColumn);
    its column names as the table spells them."""
    index = normalized(index)
    by_name = {c.name.lower(): c for c in definition.columns}
    keys = {k.lower() for k in definition.keys.columns} if definition.keys else set()
    names = []
    for name in index.columns:
        column = by_name.get(name.lower())
        if column is None:
            raise AnalysisError(f"BITMAP column does not exist in table. invalid column: {name}")
        if not _supported(column.type):
            raise AnalysisError(
                f"{doris_types.type_sql(column.type)} is not supported in {index.using} index. "
                f"invalid index: {index.name}"
            )
        if definition.keys is not None and definition.keys.type == "AGGREGATE" and column.name.lower() not in keys:
            raise AnalysisError(
                "index should only be used in columns of DUP_KEYS/UNIQUE_KEYS table or key columns of "
                f"AGG_KEYS table. invalid index: {index.name}"
            )
        if index.using == "NGRAM_BF" and not doris_types.is_string_like(column.type):
            raise AnalysisError(
                f"{doris_types.type_sql(column.type)} is not supported in ngram_bf index. invalid column: {name}"
            )
        names.append(column.name)
    return dataclasses.replace(index, columns=tuple(names))


def with_index(definition: ast.CreateTable, action: ast.AddIndex) -> ast.CreateTable | None:
    """The definition with the index added; None when IF NOT EXISTS finds its name taken
    (SchemaChangeHandler.processAddIndex)."""
    index = checked(definition, action.index)
    wanted = {c.lower() for c in index.columns}
    for existing in definition.indexes:
        if existing.name.lower() == index.name.lower():
            if action.if_not_exists:
                return None
            raise AnalysisError(f"index `{index.name}` already exist.")
        if {c.lower() for c in existing.columns} == wanted:
            raise AnalysisError(f"index for columns ({','.join(index.columns)} ) already exist.")
    return dataclasses.replace(definition, indexes=definition.indexes + (index,))


def without_index(definition: ast.CreateTable, action: ast.DropIndex) -> ast.CreateTable | None:
    """The definition without the index; None when IF EXISTS finds none."""
    kept = tuple(i for i in definition.indexes if i.name.lower() != action.name.lower())
    if len(kept) == len(definition.indexes):
        if action.if_exists:
            return None
        raise AnalysisError(f"index {action.name} does not exist")
    return dataclasses.replace(definition, indexes=kept)


#: SHOW INDEX's columns (Doris ShowIndexCommand).
SHOW_INDEX_COLUMNS = (
    "Table",
    "Non_unique",
    "Key_name",
    "Seq_in_index",
    "Column_name",
    "Collation",
    "Cardinality",
    "Sub_part",
    "Packed",
    "Null",
    "Index_type",
    "Comment",
    "Properties",
)


def index_rows(table: str, definition: ast.CreateTable) -> list[tuple]:
    """One SHOW INDEX row per index, as Doris fills them (the MySQL-only columns empty)."""
    rows = []
    for i in definition.indexes:
        props = ", ".join(f'"{k}" = "{v}"' for k, v in i.properties)
        rows.append(
            (table, "", i.name, "", ",".join(i.columns), "", "", "", "", "", i.using or DEFAULT_INDEX_TYPE)
            + (i.comment, f"({props})" if props else "")
        )
    return rows


#: ReplaceTableClause: PropertyAnalyzer.PROPERTIES_SWAP_TABLE.
SWAP = "swap"


def replace_swaps(action: ast.ReplaceTable) -> bool:
    """Whether REPLACE WITH TABLE exchanges the two names (default) or drops the replaced table:
    Boolean.parseBoolean of "swap" (only "true", any case, is true); other keys are refused."""
    props = dict(action.properties)
    swap = props.pop(SWAP, "true").lower() == "true"
    if props:
        raise AnalysisError("Unknown properties: [" + ", ".join(props) + "]")
    return swap
