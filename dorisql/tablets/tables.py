"""How a Doris table definition becomes physical: its folder, its Arrow/Spark schemas, hidden columns."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from dorisql import ast
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError
from dorisql.storage.layout import BUCKET_COLUMN, PARTITION_COLUMN
from dorisql.types import arrow_type, spark_type
from dorisql.warehouse import table_id_path

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

#: Load order columns, written only for UNIQUE and AGGREGATE tables so "latest row" is defined.
LOAD_SEQ_COLUMN = "__load_seq"
ROW_SEQ_COLUMN = "__row_seq"
#: Not stored: the Delta version a row's file was committed as, added when reading for a merge
#: (rows of later commits win; files from before versions were stamped read as 0).
COMMIT_SEQ_COLUMN = "__commit_seq"
HIDDEN_COLUMNS = (PARTITION_COLUMN, BUCKET_COLUMN, LOAD_SEQ_COLUMN, ROW_SEQ_COLUMN, COMMIT_SEQ_COLUMN)
#: Doris's hidden sequence column (Column.SEQUENCE_COL): a UNIQUE table with
#: "function_column.sequence_type" and no "function_column.sequence_col" stores its values here.
SEQUENCE_COL = "__DORIS_SEQUENCE_COL__"


def needs_sequence(definition: ast.CreateTable) -> bool:
    return definition.keys is not None and definition.keys.type in ("UNIQUE", "AGGREGATE")


def sequence_column(definition: ast.CreateTable) -> str | None:
    """The stored column whose value orders a UNIQUE table's rows of equal keys (Doris's sequence
    column: the larger value wins whatever the load order), or None.

    "function_column.sequence_col" = "c" maps it to the value column c (its name as declared);
    "function_column.sequence_type" alone gives the hidden column ``__DORIS_SEQUENCE_COL__``.
    """
    if definition.keys is None or definition.keys.type.upper() != "UNIQUE":
        return None
    props = {k.lower(): v for k, v in ast.props(definition.properties).items()}
    mapped = (props.get("function_column.sequence_col") or "").strip()
    if mapped:
        lowered = mapped.lower()
        return next((c.name for c in definition.columns if c.name.lower() == lowered), mapped)
    if (props.get("function_column.sequence_type") or "").strip():
        return SEQUENCE_COL
    return None


#: Doris's hidden columns of a UNIQUE KEY table that DESC and SHOW COLUMNS list with
#: ``SET show_hidden_columns = true`` (Column.DELETE_SIGN, Column.VERSION_COL, Column.SEQUENCE_COL).
DELETE_SIGN = "__DORIS_DELETE_SIGN__"
VERSION_COL = "__DORIS_VERSION_COL__"


def hidden_columns(definition: ast.CreateTable) -> tuple[ast.ColumnDef, ...]:
    """The hidden columns Doris gives a UNIQUE KEY table, in its order: the delete sign, the
    version, and with a sequence column the sequence (of its type). dorisql keeps none of them
    as such (a DELETE is a delete version, load order orders rows): they are shown only."""
    if definition.keys is None or definition.keys.type.upper() != "UNIQUE":
        return ()
    zero = ast.Literal("0", "number")
    shown = [
        ast.ColumnDef(DELETE_SIGN, ast.DataType("TINYINT"), nullable=False, default=zero),
        ast.ColumnDef(VERSION_COL, ast.DataType("BIGINT"), nullable=False, default=zero),
    ]
    sequence = sequence_column(definition)
    if sequence is not None:
        mapped = next((c for c in definition.columns if c.name.lower() == sequence.lower()), None)
        if mapped is not None:
            shown.append(ast.ColumnDef(SEQUENCE_COL, mapped.type, nullable=True))
    return tuple(shown)


def check_sequence_given(definition: ast.CreateTable, columns: tuple[str, ...] | list[str]) -> None:
    """A load naming its columns must name the sequence column (Nereids BindSink, the Stream
    Load planner), unless the column's default is CURRENT_TIMESTAMP; a load of every column
    (no column list) gives it. Partial updates and ``require_sequence_in_insert = false`` skip
    this check (the callers)."""
    sequence = sequence_column(definition)
    if sequence is None or not columns or any(c.lower() == sequence.lower() for c in columns):
        return
    mapped = next((c for c in definition.columns if c.name.lower() == sequence.lower()), None)
    default = mapped.default if mapped is not None else None
    if (
        default is not None
        and default.kind == "function"
        and str(default.value).upper().startswith("CURRENT_TIMESTAMP")
    ):
        return
    raise AnalysisError(f"Table {definition.table.name} has sequence column, need to specify the sequence column")


def meta_dir(warehouse: Path, meta: TableMeta) -> Path:
    """A table's Delta folder: ``<warehouse>/<db>/<table id>`` (see TableMeta)."""

    return table_id_path(warehouse, meta.db, meta.id)


def df_column(df: DataFrame, name: str) -> str:
    """The DataFrame's spelling of a column (Parquet keeps case; Doris names are case-insensitive)."""
    lowered = name.lower()
    for c in df.columns:
        if c.lower() == lowered:
            return c
    raise AnalysisError(f"Unknown column '{name}' in table data")


def storage_view(meta: TableMeta) -> TableMeta:
    """The table with each partition named by its Delta partition value, so routing and bucket
    expressions built from it (dorisql.partitioning.keys.routing_sql) write storage keys directly."""
    return dataclasses.replace(
        meta, partitions=tuple(dataclasses.replace(p, name=meta.partition_key(p)) for p in meta.partitions)
    )


def arrow_schema(definition: ast.CreateTable) -> pa.Schema:
    """The Delta table schema: user columns, load-order columns if needed, then the layout columns."""
    import pyarrow as pa

    fields = [pa.field(c.name, arrow_type(c.type), nullable=True) for c in definition.columns]
    if needs_sequence(definition):
        fields += [pa.field(LOAD_SEQ_COLUMN, pa.int64()), pa.field(ROW_SEQ_COLUMN, pa.int64())]
    fields += [pa.field(PARTITION_COLUMN, pa.string()), pa.field(BUCKET_COLUMN, pa.int32())]
    return pa.schema(fields)


def spark_ddl_schema(definition: ast.CreateTable, with_sequence: bool = True) -> str:
    """The Spark DDL schema string of the data files (layout columns live in the folder names)."""

    parts = [f"`{c.name}` {spark_type(c.type)}" for c in definition.columns]
    if with_sequence and needs_sequence(definition):
        parts += [f"`{LOAD_SEQ_COLUMN}` BIGINT", f"`{ROW_SEQ_COLUMN}` BIGINT"]
    return ", ".join(parts)


def column(definition: ast.CreateTable, name: str) -> ast.ColumnDef:
    lowered = name.lower()
    for c in definition.columns:
        if c.name.lower() == lowered:
            return c

    raise AnalysisError(f"Unknown column '{name}' in table '{definition.table.name}'")
