"""Tables from tables: CREATE TABLE ... AS SELECT column derivation and UPDATE as a query.

Pure logic (no Spark): the engine hands over the query's Spark schema as ``jsonValue()`` data.

CTAS follows Doris's CreateTableCommand (Nereids, 2.1+):
- a query column whose name is no valid column name is _col0, _col1, ... (InternalCatalog);
- the first column, if a string, is VARCHAR(65533) (an OLAP table's first column cannot be STRING);
- a column read straight from a table keeps that column's type and nullability, and its DEFAULT
  and COMMENT (InternalCatalog.createTableAsSelect; regression-test/data/ddl_p0/test_ctas.out);
- any other string is VARCHAR(65533) (session variable use_max_length_of_varchar_in_ctas, on by
  default), a NULL literal is TINYINT, and every expression is nullable;
- without DISTRIBUTED BY: HASH(first column) BUCKETS 10 (CreateTableInfo.validateCreateTableAsSelect);
  keys default as for any CREATE TABLE (dorisql.analysis.checks.default_keys).

UPDATE follows UpdateCommand: only UNIQUE KEY tables, only value columns; the statement becomes
``INSERT INTO t SELECT <every column, assigned ones replaced> FROM t [alias] [, from] [WHERE ...]``
whose rows are new versions of the matching rows (the UNIQUE merge keeps the latest).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from dorisql import ast
from dorisql import types as doris_types
from dorisql.analysis.checks import DORISQL_HIDDEN_COLUMNS, DORISQL_NAME_PREFIX, check_column_name
from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.syntax.dialect import Dorisql

#: CreateTableInfo.validateCreateTableAsSelect: "bucket num is hard coded 10".
CTAS_BUCKETS = 10

_VARCHAR_MAX = ast.DataType("VARCHAR", (doris_types.MAX_VARCHAR_LENGTH,))

_SIMPLE = {
    "boolean": "BOOLEAN",
    "byte": "TINYINT",
    "short": "SMALLINT",
    "integer": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "date": "DATE",
}


def doris_type(spark: Any) -> ast.DataType:
    """The Doris type of an expression of this Spark type (`DataType.jsonValue()`)."""
    if isinstance(spark, str):
        if spark in _SIMPLE:
            return ast.DataType(_SIMPLE[spark])
        if spark == "string" or spark.startswith(("varchar", "char")):
            return _VARCHAR_MAX
        if spark == "void":  # a NULL literal
            return ast.DataType("TINYINT")
        if spark in ("timestamp", "timestamp_ntz"):
            return ast.DataType("DATETIME", (6,))  # Spark keeps microseconds
        if spark.startswith("decimal("):
            precision, scale = (int(x) for x in spark[len("decimal(") : -1].split(","))
            return ast.DataType("DECIMAL", (precision, scale))
        if spark == "binary":  # an HLL and a QUANTILE_STATE are both sketches in BINARY
            raise NotSupportedError(
                "a CREATE TABLE ... AS SELECT column computed as an HLL or QUANTILE_STATE value "
                "(select the column of a table, or create the table first and INSERT ... SELECT)"
            )
        raise NotSupportedError(f"a CREATE TABLE ... AS SELECT column of Spark type {spark}")
    kind = spark.get("type")
    if kind == "array" and _is_bitmap(spark["elementType"]):  # translate.sketch_storage's BITMAP
        return ast.DataType("BITMAP")
    if kind == "array":
        return ast.DataType("ARRAY", args=(doris_type(spark["elementType"]),))
    if kind == "map":
        return ast.DataType("MAP", args=(doris_type(spark["keyType"]), doris_type(spark["valueType"])))
    if kind == "struct":
        return ast.DataType(
            "STRUCT", fields=tuple(ast.StructField(f["name"], doris_type(f["type"])) for f in spark["fields"])
        )
    raise NotSupportedError(f"a CREATE TABLE ... AS SELECT column of Spark type {kind}")


def _is_bitmap(element: Any) -> bool:
    fields = element.get("fields", []) if isinstance(element, dict) and element.get("type") == "struct" else []
    return [(f["name"], f["type"]) for f in fields] == [("bucket", "long"), ("bits", "binary")]


def ctas_columns(
    fields: list[tuple[str, Any]], origins: list[ast.ColumnDef | None] | None = None
) -> tuple[ast.ColumnDef, ...]:
    """The new table's columns: (name, Spark jsonValue type) per query column, and for each the
    table column it reads unchanged (None for an expression)."""
    columns = []
    unnamed = 0
    for i, (name, spark) in enumerate(fields):
        if not _valid_column_name(name):
            # InternalCatalog.createTableAsSelect: a label FeNameFormat refuses (an expression's
            # text such as json_object('a', v)) becomes _col0, _col1, ... in its order
            name, unnamed = f"_col{unnamed}", unnamed + 1
        origin = origins[i] if origins else None
        default, comment = None, None
        if origin is not None:
            data_type, nullable = doris_types.canonical(origin.type), origin.nullable is not False
            # InternalCatalog.createTableAsSelect: a column read as-is keeps its DEFAULT and COMMENT
            # (nothing else: no key, aggregation, AUTO_INCREMENT, ON UPDATE or generation)
            default, comment = origin.default, origin.comment
        else:
            data_type, nullable = doris_type(spark), True
        if i == 0 and data_type.name == "STRING":  # a first column cannot be STRING
            data_type = _VARCHAR_MAX
        columns.append(ast.ColumnDef(name, data_type, nullable=nullable, default=default, comment=comment))
    return tuple(columns)


def _valid_column_name(name: str) -> bool:
    """FeNameFormat.checkColumnName's verdict; dorisql's reserved names stay (refused later)."""
    if name.lower() in DORISQL_HIDDEN_COLUMNS or name.lower().startswith(DORISQL_NAME_PREFIX):
        return True
    try:
        check_column_name(name)
    except AnalysisError:
        return False
    return True


def ctas_definition(stmt: ast.CreateTable, columns: tuple[ast.ColumnDef, ...]) -> ast.CreateTable:
    """The CREATE TABLE a CTAS amounts to (before Doris's defaults: analysis.normalize_create_table)."""
    distribution = stmt.distribution
    if distribution is None:
        distribution = ast.DistributedBy("HASH", (columns[0].name,), CTAS_BUCKETS)
    return dataclasses.replace(stmt, columns=columns, distribution=distribution, as_query=None)


def query_origins(sql: str, resolve) -> list[ast.ColumnDef | None] | None:
    """For each output column of a SELECT, the table column it returns unchanged, or None.

    `resolve(ast.TableName)` gives a table's columns (or raises). None when the output cannot be
    matched item by item (set operations, `t.*` mixed with unknown tables ...): then every column
    is typed as an expression."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read=Dorisql)
    except Exception:  # the query itself reports its errors when it runs
        return None
    if not isinstance(tree, exp.Select):
        return None
    sources: list[tuple[str, tuple[ast.ColumnDef, ...], bool]] = []  # (alias or name, columns, outer side)
    from_ = tree.args.get("from_") or tree.args.get("from")
    relations = [from_.this] if from_ is not None else []
    joins = tree.args.get("joins") or []
    relations += [j.this for j in joins]
    outer = any(j.side for j in joins)
    for rel in relations:
        if not isinstance(rel, exp.Table):
            return None
        try:
            cols = resolve(ast.TableName(rel.name, rel.db or None))
        except Exception:
            return None
        sources.append(((rel.alias_or_name).lower(), tuple(cols), outer))
    out: list[ast.ColumnDef | None] = []
    for item in tree.expressions:
        inner = item.this if isinstance(item, exp.Alias) else item
        if isinstance(inner, exp.Star):
            for _name, cols, nullable in sources:
                out.extend(_maybe_nullable(c, nullable) for c in cols)
            continue
        if isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star):
            src = [s for s in sources if s[0] == inner.table.lower()]
            if len(src) != 1:
                return None
            out.extend(_maybe_nullable(c, src[0][2]) for c in src[0][1])
            continue
        if isinstance(inner, exp.Column):
            found = [
                (c, nullable)
                for name, cols, nullable in sources
                if not inner.table or name == inner.table.lower()
                for c in cols
                if c.name.lower() == inner.name.lower()
            ]
            out.append(_maybe_nullable(*found[0]) if len(found) == 1 else None)
            continue
        out.append(None)
    return out


def _maybe_nullable(column: ast.ColumnDef, outer: bool) -> ast.ColumnDef:
    return dataclasses.replace(column, nullable=True) if outer else column


# ---------------------------------------------------------------------- UPDATE


def update_query(stmt: ast.Update, definition: ast.CreateTable, db: str) -> str:
    """The SELECT whose rows are the updated rows (Doris's UpdateCommand.completeQueryPlan),
    with Doris's refusals."""
    keys = definition.keys
    if keys is None or keys.type.upper() != "UNIQUE":
        raise AnalysisError("Only unique table could be updated.")
    table_name = stmt.table.name
    assigned: dict[str, str] = {}
    for parts, expr in stmt.assignments:
        _check_assignment_column(stmt, parts, db)
        assigned[parts[-1].lower()] = expr
    key_names = {k.lower() for k in keys.columns}
    if any(name in key_names for name in assigned if name in {c.name.lower() for c in definition.columns}):
        raise AnalysisError("Only value columns of unique table could be updated")
    qualifier = f"`{stmt.alias or table_name}`"
    items = []
    for c in definition.columns:
        value = assigned.pop(c.name.lower(), None)
        if value is not None:
            items.append(f"{value} AS `{c.name}`")
        elif c.on_update:
            items.append(f"{c.on_update} AS `{c.name}`")
        else:
            items.append(f"{qualifier}.`{c.name}`")
    if assigned:
        raise AnalysisError("unknown column in assignment list: " + ", ".join(assigned))
    target = f"`{db}`.`{table_name}`" + (f" AS `{stmt.alias}`" if stmt.alias else "")
    sql = f"SELECT {', '.join(items)} FROM {target}"
    if stmt.from_sql:
        sql += f", {stmt.from_sql}"
    if stmt.where_sql:
        sql += f" WHERE {stmt.where_sql}"
    return sql


def _check_assignment_column(stmt: ast.Update, parts: tuple[str, ...], db: str) -> None:
    """UpdateCommand.checkAssignmentColumn: a qualified column must name the updated table."""
    if len(parts) <= 1:
        return
    invalid = AnalysisError("column in assignment list is invalid, " + ".".join(parts))
    if len(parts) > 3 or (len(parts) == 3 and stmt.alias is not None):
        raise invalid
    qualifier = parts[-2]
    expected = stmt.alias or stmt.table.name
    if qualifier.lower() != expected.lower() or (len(parts) == 3 and parts[0].lower() != db.lower()):
        raise invalid
