"""Statements (dorisql.ast) -> canonical Doris SQL.

`to_sql(stmt)` gives text that parses back to an equal statement: `parse_one(to_sql(s)) == s`
for every statement the parser accepts. CREATE TABLE is pretty-printed in the style of Doris's
SHOW CREATE TABLE; everything else is one line. No trailing ';'.

`type_sql(DataType)` gives a column type alone (e.g. "DECIMAL(27, 9)", "ARRAY<INT>"), as Doris's
error messages and DESC print it; `column_type_sql(DataType)` gives it as a column definition of
CREATE TABLE (and so SHOW CREATE TABLE) prints it (e.g. "decimal(27,9)", "array<int>").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import singledispatch

from dorisql import ast
from dorisql.syntax.words import RESERVED

__all__ = [
    "to_sql",
    "type_sql",
    "column_type_sql",
    "quote_name",
    "quote_string",
    "literal_sql",
    "predicate_sql",
    "partition_item_sql",
    "distribution_sql",
    "properties_sql",
]

# --------------------------------------------------------------------------- pieces

_STRING_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\0": "\\0",
    "\x1a": "\\Z",
    "\b": "\\b",
}
_NEEDS_ESCAPE = re.compile(r'[\\"\n\r\t\0\x1a\b]')


def quote_string(value: str) -> str:
    """A double-quoted Doris string literal."""
    if _NEEDS_ESCAPE.search(value):
        value = _NEEDS_ESCAPE.sub(lambda m: _STRING_ESCAPES[m.group()], value)
    return f'"{value}"'


def quote_single(value: str) -> str:
    """A single-quoted Doris string literal (how SHOW CREATE TABLE prints a table comment)."""
    text = quote_string(value)[1:-1].replace('\\"', '"').replace("'", "\\'")
    return f"'{text}'"


def quote_name(name: str) -> str:
    """A backquoted identifier (`` for a backquote inside)."""
    return "`" + name.replace("`", "``") + "`"


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _partition_name(name: str) -> str:
    """A partition or struct field name bare, as SHOW CREATE TABLE prints it, unless it needs backquotes."""
    if _PLAIN_NAME.match(name) and name.upper() not in RESERVED:
        return name
    return quote_name(name)


def table_sql(t: ast.TableName) -> str:
    return f"{quote_name(t.db)}.{quote_name(t.name)}" if t.db else quote_name(t.name)


def _names(names) -> str:
    return ", ".join(quote_name(n) for n in names)


def type_sql(t: ast.DataType) -> str:
    """A column type, e.g. VARCHAR(20), DECIMAL(27, 9), MAP<STRING, INT>, STRUCT<a:INT>."""
    return _render_type(t, _MESSAGE_STYLE)


def column_type_sql(t: ast.DataType) -> str:
    """A column type as current Doris's SHOW CREATE TABLE prints it (Column.toSql: fe-type's
    Type.hideVersionForVersionColumn and ScalarType.toSql; Doris 2.1/3.0 printed upper case):
    lower case, no space between parameters, e.g. varchar(20), decimal(10,2), map<text,int>,
    struct<a:int>. Clients that read SHOW CREATE TABLE (SQLAlchemy's MySQL dialect) know only
    lower-case names. A struct field keeps its COMMENT (Doris drops it) so the text re-creates
    the same table."""
    return _render_type(t, _COLUMN_STYLE)


@dataclass(frozen=True)
class _TypeStyle:
    """How a type is spelled: its names, the separator of parameters (and of MAP's types and
    STRUCT's fields), and how a STRUCT field's name is quoted."""

    name: Callable[[str], str]
    separator: str
    field_name: Callable[[str], str]


#: Doris prints STRING as text in a column definition (ScalarType.toSql).
_COLUMN_TYPE_NAMES = {"STRING": "text"}
_MESSAGE_STYLE = _TypeStyle(name=lambda n: n, separator=", ", field_name=lambda n: quote_name(n))
_COLUMN_STYLE = _TypeStyle(
    name=lambda n: _COLUMN_TYPE_NAMES.get(n, n.lower()), separator=",", field_name=lambda n: _partition_name(n)
)


def _render_type(t: ast.DataType, style: _TypeStyle) -> str:
    name = style.name(t.name)
    if t.name in ("ARRAY", "MAP"):
        return f"{name}<{style.separator.join(_render_type(a, style) for a in t.args)}>"
    if t.name == "STRUCT":
        fields = []
        for f in t.fields:
            field = f"{style.field_name(f.name)}:{_render_type(f.type, style)}"
            if f.comment is not None:
                field += f" COMMENT {quote_string(f.comment)}"
            fields.append(field)
        return f"{name}<{style.separator.join(fields)}>"
    if t.params:
        return f"{name}({style.separator.join(str(p) for p in t.params)})"
    return name


def literal_sql(lit: ast.Literal) -> str:
    """A literal as SQL: strings quoted, NULL/TRUE/FALSE as keywords, the rest as written."""
    if lit.kind == "null" or lit.value is None:
        return "NULL"
    if lit.kind == "string":
        return quote_string(lit.value)
    if lit.kind == "bool":
        return lit.value.upper()
    return lit.value  # number, function, expr: their text


def _value_sql(v: ast.PartitionValue) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return quote_string(v)
    return "MAXVALUE"  # ast.MAXVALUE


def _values_sql(values) -> str:
    return "(" + ", ".join(_value_sql(v) for v in values) + ")"


def properties_sql(properties: ast.Properties, pretty: bool = False) -> str:
    """PROPERTIES (...) body: ("k" = "v", ...), one per line when pretty."""
    items = [f"{quote_string(k)} = {quote_string(v)}" for k, v in properties]
    if pretty:
        return "(\n" + ",\n".join(items) + "\n)"
    return "(" + ", ".join(items) + ")"


def partition_item_sql(item: ast.PartitionItem, *, for_add: bool = False) -> str:
    """One partition definition: PARTITION p VALUES LESS THAN (...) / [(...), (...)) / IN (...),
    or FROM (...) TO (...) INTERVAL n UNIT."""
    if isinstance(item, ast.BatchRangePartition):
        s = f"FROM {_values_sql(item.start)} TO {_values_sql(item.end)} INTERVAL {item.interval}"
        return s + (f" {item.unit}" if item.unit else "")
    head = "PARTITION " + ("IF NOT EXISTS " if item.if_not_exists else "") + _partition_name(item.name)
    if isinstance(item, ast.RangePartition):
        if item.lower is not None:
            body = f" VALUES [{_values_sql(item.lower)}, {_values_sql(item.upper)})"
        elif item.upper == (ast.MAXVALUE,):
            body = " VALUES LESS THAN MAXVALUE"
        else:
            body = f" VALUES LESS THAN {_values_sql(item.upper)}"
    else:
        if not item.values:
            body = ""
        elif all(len(v) == 1 for v in item.values):
            body = " VALUES IN (" + ", ".join(_value_sql(v[0]) for v in item.values) + ")"
        else:
            body = " VALUES IN (" + ", ".join(_values_sql(v) for v in item.values) + ")"
    s = head + body
    if item.properties:
        s += " " + properties_sql(item.properties)
    return s


def distribution_sql(d: ast.DistributedBy) -> str:
    s = f"DISTRIBUTED BY HASH({_names(d.columns)})" if d.kind == "HASH" else "DISTRIBUTED BY RANDOM"
    if d.auto:
        s += " BUCKETS AUTO"
    elif d.buckets is not None:
        s += f" BUCKETS {d.buckets}"
    return s


def column_sql(c: ast.ColumnDef) -> str:
    parts = [quote_name(c.name), column_type_sql(c.type)]
    if c.agg_type:
        parts.append(c.agg_type)
    if c.generated is not None:  # Doris's Column.toSql: after the aggregation type
        parts.append(f"AS ({c.generated})")
    if c.nullable is not None:
        parts.append("NULL" if c.nullable else "NOT NULL")
    if c.auto_increment:
        parts.append(
            "AUTO_INCREMENT" if c.auto_increment_start is None else f"AUTO_INCREMENT({c.auto_increment_start})"
        )
    if c.default is not None:
        parts.append("DEFAULT " + literal_sql(c.default))
    if c.on_update:
        parts.append("ON UPDATE " + c.on_update)
    if c.comment is not None:
        parts.append("COMMENT " + quote_string(c.comment))
    return " ".join(parts)


def index_sql(i: ast.IndexDef) -> str:
    s = f"INDEX {quote_name(i.name)} ({_names(i.columns)})"
    if i.using:
        s += f" USING {i.using}"
    if i.properties:
        s += " PROPERTIES " + properties_sql(i.properties)
    if i.comment and i.comment.strip():  # Doris's Index.toSql: single quotes, none when blank
        s += " COMMENT " + quote_single(i.comment)
    return s


def predicate_sql(p: ast.Predicate, nested: bool = False) -> str:
    if isinstance(p, ast.Comparison):
        return f"{quote_name(p.column)} {p.op} {literal_sql(p.value)}"
    s = f" {p.op} ".join(predicate_sql(item, nested=True) for item in p.items)
    return f"({s})" if nested else s


# --------------------------------------------------------------------------- statements


@singledispatch
def to_sql(stmt) -> str:
    """Canonical Doris SQL for a statement (or a DataType, Literal, partition item...)."""
    raise TypeError(f"to_sql does not know {type(stmt).__name__}")


@to_sql.register
def _(t: ast.DataType) -> str:
    return type_sql(t)


@to_sql.register
def _(lit: ast.Literal) -> str:
    return literal_sql(lit)


@to_sql.register
def _(t: ast.TableName) -> str:
    return table_sql(t)


@to_sql.register
def _(s: ast.CreateDatabase) -> str:
    out = "CREATE DATABASE " + ("IF NOT EXISTS " if s.if_not_exists else "") + quote_name(s.name)
    if s.properties:
        out += " PROPERTIES " + properties_sql(s.properties)
    return out


@to_sql.register
def _(s: ast.DropDatabase) -> str:
    return "DROP DATABASE " + ("IF EXISTS " if s.if_exists else "") + quote_name(s.name) + (" FORCE" if s.force else "")


@to_sql.register
def _(s: ast.Use) -> str:
    return "USE " + quote_name(s.db)


@to_sql.register
def _(s: ast.CreateTable) -> str:
    elements = [column_sql(c) for c in s.columns] + [index_sql(i) for i in s.indexes]
    head = "CREATE TABLE " + ("IF NOT EXISTS " if s.if_not_exists else "") + table_sql(s.table)
    if s.as_query is not None and not elements:  # CREATE TABLE t ... AS <query>
        lines = [head]
        if s.engine:
            lines.append(f"ENGINE={s.engine}")
    else:
        lines = [head + " ("]
        lines.append(",\n".join("  " + e for e in elements))
        lines.append(")" + (f" ENGINE={s.engine}" if s.engine else ""))
    if s.keys:
        lines.append(f"{s.keys.type} KEY({_names(s.keys.columns)})")
    if s.comment is not None:  # Doris: the table comment in single quotes (Env.addTableComment)
        lines.append("COMMENT " + quote_single(s.comment))
    if s.partition:
        p = s.partition
        by = ", ".join(p.expressions) if p.expressions else _names(p.columns)
        lines.append(("AUTO " if p.auto_partition else "") + f"PARTITION BY {p.kind}({by})")
        if p.items:
            lines.append("(" + ",\n".join(partition_item_sql(i) for i in p.items) + ")")
        else:
            lines.append("()")
    if s.distribution:
        lines.append(distribution_sql(s.distribution))
    if s.rollups:
        rollups = []
        for r in s.rollups:
            t = f"{quote_name(r.name)} ({_names(r.columns)})"
            if r.duplicate_keys:
                t += f" DUPLICATE KEY({_names(r.duplicate_keys)})"
            if r.properties:
                t += " PROPERTIES " + properties_sql(r.properties)
            rollups.append(t)
        lines.append("ROLLUP (" + ",\n".join(rollups) + ")")
    if s.properties:
        lines.append("PROPERTIES " + properties_sql(s.properties, pretty=True))
    if s.as_query is not None:
        lines.append("AS " + s.as_query.sql)
    return "\n".join(lines)


@to_sql.register
def _(s: ast.CreateTableLike) -> str:
    return (
        "CREATE TABLE "
        + ("IF NOT EXISTS " if s.if_not_exists else "")
        + table_sql(s.table)
        + " LIKE "
        + table_sql(s.source)
    )


@to_sql.register
def _(s: ast.DropTable) -> str:
    return "DROP TABLE " + ("IF EXISTS " if s.if_exists else "") + table_sql(s.table) + (" FORCE" if s.force else "")


@to_sql.register
def _(s: ast.TruncateTable) -> str:
    out = "TRUNCATE TABLE " + table_sql(s.table)
    if s.partitions:
        out += f" PARTITION ({_names(s.partitions)})"
    if s.force:
        out += " FORCE"
    return out


def _action_sql(a) -> str:
    if isinstance(a, ast.AddPartition):
        out = "ADD " + ("TEMPORARY " if a.temporary else "") + partition_item_sql(a.partition)
        if a.distribution:
            out += " " + distribution_sql(a.distribution)
        return out
    if isinstance(a, ast.DropPartition):
        return (
            "DROP "
            + ("TEMPORARY " if a.temporary else "")
            + "PARTITION "
            + ("IF EXISTS " if a.if_exists else "")
            + quote_name(a.name)
            + (" FORCE" if a.force else "")
        )
    if isinstance(a, ast.ReplacePartition):
        out = (
            "REPLACE "
            + ("TEMPORARY " if a.temporary else "")
            + f"PARTITION ({_names(a.partitions)}) WITH "
            + ("TEMPORARY " if a.with_temporary else "")
            + f"PARTITION ({_names(a.temp_partitions)})"
        )
        if a.properties:
            out += " PROPERTIES " + properties_sql(a.properties)
        return out + (" FORCE" if a.force else "")
    if isinstance(a, ast.SetProperties):
        return "SET " + properties_sql(a.properties)
    if isinstance(a, ast.RenameTable):
        return "RENAME " + quote_name(a.new_name)
    if isinstance(a, ast.RenamePartition):
        return f"RENAME PARTITION {_partition_name(a.old_name)} {_partition_name(a.new_name)}"
    if isinstance(a, ast.ReplaceTable):
        out = "REPLACE WITH TABLE " + quote_name(a.table)
        if a.properties:
            out += " PROPERTIES " + properties_sql(a.properties)
        return out + (" FORCE" if a.force else "")
    if isinstance(a, ast.AddIndex):
        head = "INDEX IF NOT EXISTS " if a.if_not_exists else "INDEX "
        return "ADD " + head + index_sql(a.index)[len("INDEX ") :]
    if isinstance(a, ast.DropIndex):
        return "DROP INDEX " + ("IF EXISTS " if a.if_exists else "") + quote_name(a.name)
    if isinstance(a, ast.UnsupportedAlter):
        return a.text
    if isinstance(a, ast.ModifyDistribution):
        return "MODIFY DISTRIBUTION" + (" " + distribution_sql(a.distribution) if a.distribution else "")
    return _schema_change_sql(a)


def _alter_column_sql(c: ast.ColumnDef) -> str:
    text = column_sql(c)
    if c.key:  # KEY goes right after the type
        head = quote_name(c.name) + " " + column_type_sql(c.type)
        text = head + " KEY" + text[len(head) :]
    return text


def _position_sql(p: ast.ColumnPosition | None) -> str:
    if p is None:
        return ""
    return " FIRST" if p.after is None else " AFTER " + quote_name(p.after)


def _schema_change_sql(a) -> str:
    props = (
        a.properties if isinstance(a, (ast.AddColumns, ast.DropColumn, ast.ModifyColumn, ast.ReorderColumns)) else ()
    )
    return _schema_change_clause(a) + (" PROPERTIES " + properties_sql(props) if props else "")


def _schema_change_clause(a) -> str:
    rollup = f" TO {quote_name(a.rollup)}" if getattr(a, "rollup", None) else ""
    if isinstance(a, ast.AddColumns):
        if a.parenthesised:
            return "ADD COLUMN (" + ", ".join(_alter_column_sql(c) for c in a.columns) + ")" + rollup
        return "ADD COLUMN " + _alter_column_sql(a.columns[0]) + _position_sql(a.position) + rollup
    if isinstance(a, ast.DropColumn):
        return "DROP COLUMN " + quote_name(a.name) + (f" FROM {quote_name(a.rollup)}" if a.rollup else "")
    if isinstance(a, ast.ModifyColumn):
        return "MODIFY COLUMN " + _alter_column_sql(a.column) + _position_sql(a.position) + rollup
    if isinstance(a, ast.ModifyColumnComment):
        return f"MODIFY COLUMN {quote_name(a.name)} COMMENT {quote_string(a.comment)}"
    if isinstance(a, ast.RenameColumn):
        return f"RENAME COLUMN {quote_name(a.old_name)} {quote_name(a.new_name)}"
    if isinstance(a, ast.ModifyTableComment):
        return "MODIFY COMMENT " + quote_string(a.comment)
    if isinstance(a, ast.ReorderColumns):
        return f"ORDER BY ({_names(a.columns)})" + (f" FROM {quote_name(a.rollup)}" if a.rollup else "")
    if isinstance(a, ast.ModifyPartition):
        target = (
            "(*)"
            if a.all
            else (_partition_name(a.partitions[0]) if len(a.partitions) == 1 else f"({_names(a.partitions)})")
        )
        return f"MODIFY PARTITION {target} SET " + properties_sql(a.properties)
    raise TypeError(f"to_sql does not know ALTER action {type(a).__name__}")


@to_sql.register
def _(s: ast.AlterTable) -> str:
    return "ALTER TABLE " + table_sql(s.table) + " " + ", ".join(_action_sql(a) for a in s.actions)


@to_sql.register
def _(s: ast.ShowIndex) -> str:
    return "SHOW INDEX FROM " + table_sql(s.table)


@to_sql.register
def _(s: ast.ShowAlterTableColumn) -> str:
    out = f"SHOW ALTER TABLE {s.kind}" + (f" FROM {quote_name(s.db)}" if s.db else "")
    if s.where is not None:
        out += " WHERE " + predicate_sql(s.where)
    if s.order_by:
        out += " ORDER BY " + ", ".join(quote_name(o.column) + (" DESC" if o.descending else "") for o in s.order_by)
    if s.limit is not None:
        out += f" LIMIT {s.limit}" + (f" OFFSET {s.offset}" if s.offset is not None else "")
    return out


@to_sql.register
def _(s: ast.ShowDatabases) -> str:
    return "SHOW DATABASES" + (f" LIKE {quote_string(s.like)}" if s.like is not None else "")


@to_sql.register
def _(s: ast.ShowTables) -> str:
    out = "SHOW TABLES"
    if s.db is not None:
        out += " FROM " + quote_name(s.db)
    if s.like is not None:
        out += " LIKE " + quote_string(s.like)
    return out


@to_sql.register
def _(s: ast.ShowCreateTable) -> str:
    return "SHOW CREATE TABLE " + table_sql(s.table)


@to_sql.register
def _(s: ast.ShowCreateDatabase) -> str:
    return "SHOW CREATE DATABASE " + quote_name(s.name)


@to_sql.register
def _(s: ast.ShowPartitions) -> str:
    out = "SHOW " + ("TEMPORARY " if s.temporary else "") + "PARTITIONS FROM " + table_sql(s.table)
    if s.where is not None:
        out += " WHERE " + predicate_sql(s.where)
    if s.order_by:
        out += " ORDER BY " + ", ".join(quote_name(o.column) + (" DESC" if o.descending else "") for o in s.order_by)
    if s.limit is not None:
        out += f" LIMIT {s.limit}"
        if s.offset is not None:
            out += f" OFFSET {s.offset}"
    elif s.offset is not None:
        raise ValueError("SHOW PARTITIONS: OFFSET needs a LIMIT")
    return out


@to_sql.register
def _(s: ast.ShowDynamicPartitionTables) -> str:
    return "SHOW DYNAMIC PARTITION TABLES" + (f" FROM {quote_name(s.db)}" if s.db is not None else "")


@to_sql.register
def _(s: ast.ShowProc) -> str:
    return "SHOW PROC " + quote_string(s.path)


@to_sql.register
def _(s: ast.ShowData) -> str:
    return "SHOW DATA" + (" FROM " + table_sql(s.table) if s.table is not None else "")


@to_sql.register
def _(s: ast.ShowBuckets) -> str:
    return "SHOW BUCKETS FROM " + table_sql(s.table)


@to_sql.register
def _(s: ast.Describe) -> str:
    return "DESC " + table_sql(s.table) + (" ALL" if s.all else "")


@to_sql.register
def _(s: ast.AdminSetFrontendConfig) -> str:
    return "ADMIN SET FRONTEND CONFIG " + properties_sql(s.properties)


def _recover_tail(object_id, new_name) -> str:
    return (f" {object_id}" if object_id is not None else "") + (
        " AS " + quote_name(new_name) if new_name is not None else ""
    )


@to_sql.register
def _(s: ast.RecoverDatabase) -> str:
    return "RECOVER DATABASE " + quote_name(s.name) + _recover_tail(s.id, s.new_name)


@to_sql.register
def _(s: ast.RecoverTable) -> str:
    return "RECOVER TABLE " + table_sql(s.table) + _recover_tail(s.id, s.new_name)


@to_sql.register
def _(s: ast.RecoverPartition) -> str:
    return (
        "RECOVER PARTITION " + _partition_name(s.name) + _recover_tail(s.id, s.new_name) + " FROM " + table_sql(s.table)
    )


@to_sql.register
def _(s: ast.ShowCatalogRecycleBin) -> str:
    return "SHOW CATALOG RECYCLE BIN" + (" WHERE " + predicate_sql(s.where) if s.where is not None else "")


@to_sql.register
def _(s: ast.AdminCleanTrash) -> str:
    return "ADMIN CLEAN TRASH"


@to_sql.register
def _(s: ast.Sync) -> str:
    return "SYNC"


@to_sql.register
def _(s: ast.AdminSetColocationGroup) -> str:
    return f"ADMIN SET COLOCATION GROUP {table_sql(s.group)} {'STABLE' if s.stable else 'UNSTABLE'}"


@to_sql.register
def _(s: ast.AdminCheckTable) -> str:
    return "ADMIN CHECK TABLE " + table_sql(s.table)


@to_sql.register
def _(s: ast.SetVariable) -> str:
    name = s.name if _PLAIN_NAME.match(s.name) and s.name.upper() not in RESERVED else quote_name(s.name)
    return "SET " + (f"{s.scope} " if s.scope else "") + f"{name} = {literal_sql(s.value)}"


@to_sql.register
def _(s: ast.Help) -> str:
    words = s.topic.split(" ")
    if s.topic and all(_PLAIN_NAME.match(w) for w in words):
        return "HELP " + s.topic
    return "HELP " + quote_string(s.topic)


@to_sql.register
def _(s: ast.Query) -> str:
    return s.sql


@to_sql.register
def _(s: ast.Explain) -> str:
    return "EXPLAIN " + ("VERBOSE " if s.verbose else "") + s.query.sql


@to_sql.register
def _(s: ast.Insert) -> str:
    out = "INSERT " + ("OVERWRITE TABLE " if s.overwrite else "INTO ") + table_sql(s.table)
    if s.all_partitions:
        out += " PARTITION (*)"
    elif s.partitions:
        out += (" TEMPORARY" if s.temporary else "") + f" PARTITION ({_names(s.partitions)})"
    if s.label is not None:
        out += " WITH LABEL " + quote_name(s.label)
    if s.columns:
        out += f" ({_names(s.columns)})"
    if s.query is not None:
        return out + " " + s.query.sql
    rows = ", ".join("(" + ", ".join(literal_sql(v) for v in row) + ")" for row in (s.rows or ()))
    return out + " VALUES " + rows
