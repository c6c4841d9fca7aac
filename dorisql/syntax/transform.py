"""Lark parse tree -> typed statements (dorisql.ast).

The transformer runs inline in the LALR parser (no tree is built). It raises SqlSyntaxError /
NotSupportedError with the offending token's position (relative to the statement text); the
parser module turns that into script-relative positions and a caret context.
"""

from __future__ import annotations

import contextvars
import difflib
import re
from typing import Any

from lark import Token, Transformer

from dorisql import ast
from dorisql.errors import NotSupportedError, SqlSyntaxError
from dorisql.syntax.lexer import _MASTER
from dorisql.syntax.words import RESERVED

#: The statement text being parsed (expressions keep their source text).
SOURCE: contextvars.ContextVar[str] = contextvars.ContextVar("dorisql_sql_source", default="")


class PositionedError(Exception):
    """Carries an error and its offset in the statement text out of the transformer."""

    def __init__(self, error, pos: int):
        super().__init__(str(error))
        self.error = error
        self.pos = pos


def syntax_error_at(token: Token, detail: str) -> PositionedError:
    return PositionedError(SqlSyntaxError(detail), token.start_pos or 0)  # (always set by .lexer.Driver)


def not_supported_at(token: Token, feature: str) -> PositionedError:
    return PositionedError(NotSupportedError(feature), token.start_pos or 0)


# --------------------------------------------------------------------------- literals

_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "%": "\\%", "_": "\\_"}
_ESCAPE_RE = re.compile(r"\\([\s\S])|('')|(\"\")")


def _escape_sub(m: re.Match) -> str:
    if m.group(1) is not None:
        c = m.group(1)
        return _ESCAPES.get(c, c)
    return m.group()[0]


def unquote(text: str) -> str:
    """The value of a '...' or "..." literal: MySQL backslash escapes, doubled quotes."""
    body = text[1:-1]
    if "\\" in body or "''" in body or '""' in body:
        q = text[0]
        if q == "'":
            body = _ESCAPE_RE.sub(lambda m: m.group() if m.group(3) else _escape_sub(m), body)
        else:
            body = _ESCAPE_RE.sub(lambda m: m.group() if m.group(2) else _escape_sub(m), body)
    return body


def identifier(token: Token) -> str:
    """A name as written: backquotes removed (`` is a backquote), bare reserved words refused."""
    if token.type == "QUOTED_NAME":
        return token.value[1:-1].replace("``", "`")
    value = token.value
    if value.upper() in RESERVED:
        raise syntax_error_at(token, f"'{value}' is a reserved word; write it as `{value}`")
    return value


def _text(token) -> str:
    """Text of a property key or value."""
    if isinstance(token, Token):
        if token.type == "STRING":
            return unquote(token.value)
        if token.type == "QUOTED_NAME":
            return token.value[1:-1].replace("``", "`")
        return token.value
    return token  # signed_number already gave text


# --------------------------------------------------------------------------- types

#: Type names as written -> canonical name.
TYPE_NAMES = {
    "TINYINT": "TINYINT",
    "SMALLINT": "SMALLINT",
    "INT": "INT",
    "INTEGER": "INT",
    "BIGINT": "BIGINT",
    "LARGEINT": "LARGEINT",
    "BOOLEAN": "BOOLEAN",
    "FLOAT": "FLOAT",
    "DOUBLE": "DOUBLE",
    "DECIMAL": "DECIMAL",
    "DECIMALV2": "DECIMALV2",
    "DECIMALV3": "DECIMALV3",
    "DATE": "DATE",
    "DATETIME": "DATETIME",
    "DATEV1": "DATEV1",
    "DATETIMEV1": "DATETIMEV1",
    "DATEV2": "DATEV2",
    "DATETIMEV2": "DATETIMEV2",
    "TIME": "TIME",
    "CHAR": "CHAR",
    "CHARACTER": "CHAR",
    "VARCHAR": "VARCHAR",
    "STRING": "STRING",
    "TEXT": "STRING",
    "JSON": "JSON",
    "JSONB": "JSON",
    "VARIANT": "VARIANT",
    "HLL": "HLL",
    "BITMAP": "BITMAP",
    "QUANTILE_STATE": "QUANTILE_STATE",
    "IPV4": "IPV4",
    "IPV6": "IPV6",
}

#: Time units of FROM (...) TO (...) INTERVAL n <unit>.
BATCH_UNITS = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"}


def _int(token: Token) -> int:
    try:
        return int(token.value)
    except ValueError:
        raise syntax_error_at(token, f"expected a whole number, found {token.value}") from None


class _Expr:
    """A delimited value expression: its tokens (first and last) and direct child tokens."""

    __slots__ = ("first", "last", "items")

    def __init__(self, first: Token, last: Token, items: list):
        self.first = first
        self.last = last
        self.items = items

    def source(self) -> str:
        return SOURCE.get()[self.first.start_pos : self.last.end_pos]


_NO_SPACE_AFTER = frozenset("([{.:")
_NO_SPACE_BEFORE = frozenset(")]},.:")


def canonical_text(text: str) -> str:
    """SQL text with its tokens re-joined in one canonical way: comments dropped, one space
    between tokens except inside brackets, before ',' and around '.' and ':', and none between a
    name and its '(' (`date_trunc(k, 'day')`). Strings and quoted names are kept as written.
    Idempotent, so text kept in the AST survives generate -> parse unchanged."""
    out: list[str] = []
    prev = prev_kind = None
    pos, end = 0, len(text)
    while pos < end:
        m = _MASTER.match(text, pos)
        if m is None:  # cannot happen for text that was lexed already; keep the rest as is
            out.append((" " if out else "") + text[pos:].strip())
            break
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        value = m.group()
        if prev is not None:
            glue = (
                (prev in _NO_SPACE_AFTER and not (prev == "." and kind == "NUMBER"))
                or (value in _NO_SPACE_BEFORE and not (value == "." and prev_kind == "NUMBER"))
                or (value == "(" and prev_kind in ("NAME", "QUOTED_NAME"))
            )
            if not glue:
                out.append(" ")
        out.append(value)
        prev, prev_kind = value, kind
    return "".join(out)


def _span_text(first: Token, last: Token) -> str:
    return canonical_text(SOURCE.get()[first.start_pos : last.end_pos])


def _first_token(x) -> Token:
    while isinstance(x, _Expr):
        x = x.first
    return x


def _last_token(x) -> Token:
    while isinstance(x, _Expr):
        x = x.last
    return x


#: ALTER TABLE clauses kept as text (grammar rule unsupported_alter): leading words -> feature.
_UNSUPPORTED_ALTER = {
    ("ADD",): "ALTER TABLE ... ADD COLUMN",
    ("ADD", "ROLLUP"): "ALTER TABLE ... ADD ROLLUP",
    ("DROP", "ROLLUP"): "ALTER TABLE ... DROP ROLLUP",
    ("ENABLE", "FEATURE"): "ALTER TABLE ... ENABLE FEATURE",
    ("MODIFY", "ENGINE"): "ALTER TABLE ... MODIFY ENGINE",
}


class _Opt(tuple):
    """A column option: (kind, value)."""


def _opt(kind, value=True) -> _Opt:
    return _Opt((kind, value))


class ToAst(Transformer):
    """One method per grammar rule; each receives the rule's kept children as a list."""

    # ------------------------------------------------------------------ top level

    def statement(self, c):
        return c[0]

    def insert_head(self, c):
        return self._insert(c, rows=None)

    # ------------------------------------------------------------------ names

    def name(self, c):
        return identifier(c[0])

    def name_list(self, c):
        return tuple(c)

    def table_name(self, c):
        if c[1] is None:
            return ast.TableName(c[0])
        return ast.TableName(c[1], db=c[0])

    def signed_number(self, c):
        return ("-" + c[1].value) if c[0] is not None else c[1].value

    # ------------------------------------------------------------------ flags

    def if_not_exists(self, c):
        return True

    if_exists = force = temporary = all = random = auto = maxvalue = into = if_not_exists

    def overwrite(self, c):
        return "OVERWRITE"

    # ------------------------------------------------------------------ properties

    def property(self, c):
        return (_text(c[0]), _text(c[1]))

    def property_list(self, c):
        return tuple(c)

    def properties(self, c):
        return c[0] or ()

    # ------------------------------------------------------------------ databases

    def create_database(self, c):
        return ast.CreateDatabase(c[1], if_not_exists=bool(c[0]), properties=c[2] or ())

    def drop_database(self, c):
        return ast.DropDatabase(c[1], if_exists=bool(c[0]), force=bool(c[2]))

    def use_db(self, c):
        return ast.Use(c[0])

    # ------------------------------------------------------------------ CREATE TABLE

    def create_table(self, c):
        ine, table, elements, engine, keys, comment, partition, dist, rollups, props = c
        columns = tuple(e for e in elements if isinstance(e, ast.ColumnDef))
        indexes = tuple(e for e in elements if isinstance(e, ast.IndexDef))
        return ast.CreateTable(
            table,
            columns,
            indexes=indexes,
            if_not_exists=bool(ine),
            engine=engine,
            keys=keys,
            comment=comment,
            partition=partition,
            distribution=dist,
            rollups=rollups or (),
            properties=props or (),
        )

    def create_table_as_head(self, c):
        """CREATE TABLE ... before AS <query>; the parser adds the query (`as_query`)."""
        ine, table, engine, keys, comment, partition, dist, props = c
        return ast.CreateTable(
            table,
            (),
            if_not_exists=bool(ine),
            engine=engine,
            keys=keys,
            comment=comment,
            partition=partition,
            distribution=dist,
            properties=props or (),
        )

    def create_table_like(self, c):
        return ast.CreateTableLike(c[1], c[2], if_not_exists=bool(c[0]))

    def table_elements(self, c):
        return c

    def engine(self, c):
        tok = c[0]
        name = tok.value.upper()
        if name != "OLAP":
            raise not_supported_at(tok, f"ENGINE={name} (only OLAP tables are managed by dorisql)")
        return name

    def keys_desc(self, c):
        return ast.KeysDesc(c[0], c[1])

    def key_type(self, c):
        return c[0].value.upper()

    def table_comment(self, c):
        return unquote(c[0].value)

    # columns

    def column_def(self, c):
        name, dtype, *opts = c
        kw: dict[str, Any] = {}  # ColumnDef's optional fields, of their various types
        for kind, value in opts:
            if kind == "key":
                kw["key"] = True  # CREATE TABLE: the key desc decides; ALTER ... ADD COLUMN: a key column
                continue
            if kind == "auto_increment":
                kw["auto_increment"] = True
                kw["auto_increment_start"] = value
            else:
                kw[kind] = value
        return ast.ColumnDef(name, dtype, **kw)

    def col_key(self, c):
        return _opt("key")

    def col_agg(self, c):
        return _opt("agg_type", c[0])

    def agg_type(self, c):
        return c[0].value.upper()

    def col_not_null(self, c):
        return _opt("nullable", False)

    def col_null(self, c):
        return _opt("nullable", True)

    def col_auto_increment(self, c):
        return _opt("auto_increment", int(c[0]) if c[0] is not None else None)

    def col_default(self, c):
        return _opt("default", c[0])

    def col_on_update(self, c):
        precision = c[0]
        return _opt("on_update", f"CURRENT_TIMESTAMP({_int(precision)})" if precision else "CURRENT_TIMESTAMP")

    def col_comment(self, c):
        return _opt("comment", unquote(c[0].value))

    def col_generated(self, c):
        e = c[-1]
        return _opt("generated", _span_text(_first_token(e), _last_token(e)))

    def dv_string(self, c):
        return ast.Literal(unquote(c[0].value), "string")

    def dv_number(self, c):
        return ast.Literal(c[0], "number")

    def dv_null(self, c):
        return ast.Literal(None, "null")

    def dv_current_timestamp(self, c):
        if c[0] is None:
            return ast.Literal("CURRENT_TIMESTAMP", "function")
        return ast.Literal(f"CURRENT_TIMESTAMP({_int(c[0])})", "function")

    def default_value(self, c):
        return c[0]

    def dv_keyword(self, c):
        return ast.Literal(c[0].value.upper(), "function")

    # types

    def simple_type(self, c):
        tok, params = c
        upper = tok.value.upper()
        name = TYPE_NAMES.get(upper)
        if name is None:
            if upper == "AGG_STATE":
                raise not_supported_at(tok, "AGG_STATE columns")
            close = difflib.get_close_matches(upper, TYPE_NAMES, n=1)
            hint = f" — did you mean {close[0]}?" if close else ""
            raise syntax_error_at(tok, f"unknown column type '{tok.value}'{hint}")
        return ast.DataType(name, params or ())

    def type_params(self, c):
        return tuple(_int(t) for t in c)

    def array_type(self, c):
        return ast.DataType("ARRAY", args=(c[0],))

    def map_type(self, c):
        return ast.DataType("MAP", args=(c[0], c[1]))

    def struct_type(self, c):
        return ast.DataType("STRUCT", fields=tuple(c))

    def struct_field(self, c):
        return ast.StructField(c[0], c[1], unquote(c[2].value) if c[2] is not None else None)

    # indexes

    def index_def(self, c):
        _ine, name, cols, using, props, comment = c
        return _index(name, cols, using, props, comment)

    def add_index(self, c):
        ine, name, cols, using, props, comment = c
        return ast.AddIndex(_index(name, cols, using, props, comment), if_not_exists=bool(ine))

    def drop_index_clause(self, c):
        return ast.DropIndex(c[1], if_exists=bool(c[0]))

    def create_index(self, c):
        # Doris: CREATE INDEX is ALTER TABLE t ADD INDEX (CreateIndexClause in an AlterTableStmt)
        ine, name, table, cols, using, props, comment = c
        return ast.AlterTable(table, (ast.AddIndex(_index(name, cols, using, props, comment), bool(ine)),))

    def drop_index(self, c):
        return ast.AlterTable(c[2], (ast.DropIndex(c[1], if_exists=bool(c[0])),))

    def show_index(self, c):
        table, db = c
        return ast.ShowIndex(ast.TableName(table.name, db) if db is not None else table)

    def index_type(self, c):
        return c[0].value.upper()

    # partitions

    def partition_by(self, c):
        auto, kind, exprs, items = c
        cols, texts = [], []
        for e in exprs:
            if len(e.items) == 1 and isinstance(e.items[0], Token) and e.items[0].type in ("NAME", "QUOTED_NAME"):
                cols.append(identifier(e.items[0]))
            texts.append(_span_text(_first_token(e), _last_token(e)))
        if len(cols) == len(exprs):
            return ast.PartitionBy(kind, tuple(cols), tuple(items or ()), auto_partition=bool(auto))
        return ast.PartitionBy(kind, (), tuple(items or ()), auto_partition=bool(auto), expressions=tuple(texts))

    def partition_exprs(self, c):
        return c

    def partition_kind(self, c):
        return c[0].value.upper()

    def partition_items(self, c):
        return c

    def less_than_partition(self, c):
        ine, name, upper, props = c
        if upper is True:  # MAXVALUE without parentheses
            upper = (ast.MAXVALUE,)
        return ast.RangePartition(name, upper, None, if_not_exists=bool(ine), properties=props or ())

    def fixed_range_partition(self, c):
        ine, name, lower, upper, props = c
        return ast.RangePartition(name, upper, lower, if_not_exists=bool(ine), properties=props or ())

    def list_partition(self, c):
        ine, name, values, props = c
        return ast.ListPartition(name, values or (), if_not_exists=bool(ine), properties=props or ())

    def batch_partition(self, c):
        start, end, interval, unit = c
        if unit is not None:
            u = unit.value.upper()
            if u not in BATCH_UNITS:
                raise syntax_error_at(
                    unit, f"unknown time unit '{unit.value}' — expected one of YEAR, MONTH, WEEK, DAY, HOUR"
                )
            unit = u
        return ast.BatchRangePartition(start, end, _int(interval), unit)

    def partition_props(self, c):
        return c[0]

    def list_values(self, c):
        return tuple(v if isinstance(v, tuple) else (v,) for v in c)

    def value_list(self, c):
        return tuple(c)

    def pv_string(self, c):
        return unquote(c[0].value)

    def pv_number(self, c):
        return c[0]

    def pv_maxvalue(self, c):
        return ast.MAXVALUE

    def pv_null(self, c):
        return None

    def distributed_by(self, c):
        kind_cols, buckets = c
        kind, cols = kind_cols if isinstance(kind_cols, tuple) else ("RANDOM", ())
        if buckets == "AUTO":
            return ast.DistributedBy(kind, cols, None, auto=True)
        return ast.DistributedBy(kind, cols, buckets)

    def hash_columns(self, c):
        return ("HASH", c[0])

    def buckets(self, c):
        v = c[0]
        if v is True:
            return "AUTO"
        # BUCKETS 0 parses: Doris refuses it in analysis, with a message naming the statement's kind.
        return _int(v)

    def rollups(self, c):
        return tuple(c)

    def rollup_def(self, c):
        name, cols, dup, props = c
        return ast.RollupDef(name, cols, duplicate_keys=dup or (), properties=props or ())

    # ------------------------------------------------------------------ other table DDL

    def drop_table(self, c):
        return ast.DropTable(c[1], if_exists=bool(c[0]), force=bool(c[2]))

    # ------------------------------------------------------------------ views (the parser adds the query)

    def view_head(self, c):
        return c[0]

    def create_view_head(self, c):
        or_replace, ine, table, columns, comment = c
        return ast.CreateView(
            table,
            ast.Query(""),
            columns=columns or (),
            comment=comment,
            or_replace=bool(or_replace),
            if_not_exists=bool(ine),
        )

    def alter_view_head(self, c):
        table, columns, comment = c
        return ast.CreateView(table, ast.Query(""), columns=columns or (), comment=comment, alter=True)

    def or_replace(self, c):
        return True

    def view_columns(self, c):
        return tuple(c)

    def view_column(self, c):
        return ast.ViewColumnDef(c[0], unquote(c[1].value) if c[1] is not None else None)

    def drop_view(self, c):
        return ast.DropView(c[1], if_exists=bool(c[0]))

    def show_create_view(self, c):
        return ast.ShowCreateView(c[0])

    def truncate_table(self, c):
        return ast.TruncateTable(c[0], partitions=c[1] or (), force=bool(c[2]))

    def partition_spec(self, c):
        v = c[0]
        return v if isinstance(v, tuple) else (v,)

    def alter_table(self, c):
        return ast.AlterTable(c[0], tuple(c[1:]))

    def add_partition(self, c):
        return ast.AddPartition(c[1], c[2], temporary=bool(c[0]))

    def drop_partition(self, c):
        return ast.DropPartition(c[2], if_exists=bool(c[1]), force=bool(c[3]), temporary=bool(c[0]))

    def replace_partition(self, c):
        temporary, names, with_temporary, temp_names, properties, force = c
        return ast.ReplacePartition(
            names,
            temp_names,
            properties=properties or (),
            force=bool(force),
            temporary=bool(temporary),
            with_temporary=bool(with_temporary),
        )

    def set_properties(self, c):
        return ast.SetProperties(c[0])

    def rename_table(self, c):
        return ast.RenameTable(c[0])

    def replace_table(self, c):
        return ast.ReplaceTable(c[0], properties=c[1] or (), force=bool(c[2]))

    def rename_partition(self, c):
        return ast.RenamePartition(c[0], c[1])

    # schema change

    def add_column(self, c):
        return ast.AddColumns((c[0],), position=c[1], rollup=c[2], properties=c[3] or ())

    def add_columns(self, c):
        *columns, rollup, props = c
        return ast.AddColumns(tuple(columns), rollup=rollup, parenthesised=True, properties=props or ())

    def drop_column(self, c):
        return ast.DropColumn(c[0], rollup=c[1], properties=c[2] or ())

    def modify_column(self, c):
        name, *rest = c
        props = rest.pop() or ()
        rollup = rest.pop()
        position = rest.pop()
        if len(rest) == 1 and isinstance(rest[0], Token):  # MODIFY COLUMN c COMMENT '...'
            return ast.ModifyColumnComment(name, unquote(rest[0].value))
        return ast.ModifyColumn(self.column_def([name, *rest]), position=position, rollup=rollup, properties=props)

    def rename_column(self, c):
        return ast.RenameColumn(c[0], c[1])

    def reorder_columns(self, c):
        names, rollup, props = c
        return ast.ReorderColumns(tuple(names), rollup=rollup, properties=props or ())

    def modify_table_comment(self, c):
        return ast.ModifyTableComment(unquote(c[0].value))

    def position_first(self, c):
        return ast.ColumnPosition(None)

    def position_after(self, c):
        return ast.ColumnPosition(c[0])

    def rollup_target(self, c):
        return c[0]

    def modify_partition(self, c):
        target, props = c
        if isinstance(target, Token):  # (*)
            return ast.ModifyPartition((), props, all=True)
        return ast.ModifyPartition(target if isinstance(target, tuple) else (target,), props)

    def show_alter_column(self, c):
        kind, db, where, order, limit = c
        lim, off = limit if limit else (None, None)
        return ast.ShowAlterTableColumn(db=db, where=where, order_by=order or (), limit=lim, offset=off, kind=kind)

    def alter_job_kind(self, c):
        return " ".join(t.value.upper() for t in c)

    def modify_distribution(self, c):
        return ast.ModifyDistribution(c[0])

    def unsupported_alter(self, c):
        words = []
        for x in c:
            if not (isinstance(x, Token) and x.type not in ("LPAR", "NAME")):
                break
            words.append(x.value.upper())
        rest = [x for x in c[len(words) :] if x is not None]
        feature = _UNSUPPORTED_ALTER[tuple(words)]
        return ast.UnsupportedAlter(
            feature, " ".join(words) + " " + _span_text(_first_token(rest[0]), _last_token(rest[-1]))
        )

    # ------------------------------------------------------------------ SHOW and friends

    def show_databases(self, c):
        return ast.ShowDatabases(like=c[0])

    def show_tables(self, c):
        full, db, filt = c
        return ast.ShowTables(db=db, full=bool(full), **_like_or_where(filt))

    def like(self, c):
        return unquote(c[0].value)

    def from_db(self, c):
        return c[0]

    def show_create_table(self, c):
        return ast.ShowCreateTable(c[0])

    def show_create_database(self, c):
        return ast.ShowCreateDatabase(c[0])

    def show_partitions(self, c):
        temporary, table, where, order, limit = c
        lim, off = limit if limit else (None, None)
        return ast.ShowPartitions(
            table, where=where, order_by=order or (), limit=lim, offset=off, temporary=bool(temporary)
        )

    def show_dynamic(self, c):
        return ast.ShowDynamicPartitionTables(db=c[0])

    def show_proc(self, c):
        return ast.ShowProc(unquote(c[0].value))

    def show_data(self, c):
        return ast.ShowData(c[0])

    def delete_from(self, c):
        return ast.Delete(c[0], partitions=c[1] or (), where=c[2].source())

    def show_delete(self, c):
        return ast.ShowDelete(c[0])

    def show_buckets(self, c):
        return ast.ShowBuckets(c[0])

    def describe(self, c):
        return ast.Describe(c[0], all=bool(c[1]))

    def admin_set_config(self, c):
        return ast.AdminSetFrontendConfig(c[0])

    # metadata statements of MySQL clients and tools

    def show_columns(self, c):
        full, table, db, filt = c
        if db is not None:  # SHOW COLUMNS FROM t FROM db: the second FROM names the database
            table = ast.TableName(table.name, db)
        return ast.ShowColumns(table, full=bool(full), **_like_or_where(filt))

    def show_table_status(self, c):
        return ast.ShowTableStatus(db=c[0], **_like_or_where(c[1]))

    def show_variables(self, c):
        scope = "SESSION" if c[0] == "LOCAL" else c[0]
        return ast.ShowVariables(scope=scope, **_like_or_where(c[1]))

    def show_warnings(self, c):
        errors, limit = c
        lim, off = limit if limit else (None, None)
        return ast.ShowWarnings(errors=errors, limit=lim, offset=off)

    def warnings(self, c):
        return False

    def errors(self, c):
        return True

    def show_frontends(self, c):
        return ast.ShowFrontends()

    def show_backends(self, c):
        return ast.ShowBackends()

    def full(self, c):
        return True

    def like_or_where(self, c):
        return c[0]

    def set_names(self, c):
        return ast.SetNames(c[0], collation=c[1])

    def charset_name(self, c):
        if not c:  # DEFAULT
            return None
        return unquote(c[0].value) if c[0].type == "STRING" else c[0].value

    def show_collation(self, c):
        return ast.ShowCollation(**_like_or_where(c[0]))

    def show_charset(self, c):
        return ast.ShowCollation(charsets=True, **_like_or_where(c[0]))

    # recycle bin and trash

    def recover_database(self, c):
        name, number, new_name = c
        return ast.RecoverDatabase(name, id=_object_id(number), new_name=new_name)

    def recover_table(self, c):
        table, number, new_name = c
        return ast.RecoverTable(table, id=_object_id(number), new_name=new_name)

    def recover_partition(self, c):
        name, number, new_name, table = c
        return ast.RecoverPartition(name, table, id=_object_id(number), new_name=new_name)

    def show_recycle_bin(self, c):
        return ast.ShowCatalogRecycleBin(where=c[0])

    def admin_clean_trash(self, c):
        return ast.AdminCleanTrash()

    def sync(self, c):
        return ast.Sync()

    def begin_txn(self, c):
        return ast.Begin(label=c[0])

    def commit_txn(self, c):
        return ast.Commit()

    def rollback_txn(self, c):
        return ast.Rollback()

    def admin_check_table(self, c):
        return ast.AdminCheckTable(c[0])

    def admin_compact_table(self, c):
        return ast.AdminCompactTable(c[0], c[1] or (), c[2])

    def show_tablets(self, c):
        return ast.ShowTablets(c[0], c[1] or ())

    def admin_set_colocation_group(self, c):
        return ast.AdminSetColocationGroup(c[0], stable=c[1])

    def stable(self, c):
        return True

    def unstable(self, c):
        return False

    def where(self, c):
        return c[0]

    def or_pred(self, c):
        return c[0] if len(c) == 1 else ast.BoolOp("OR", tuple(c))

    def and_pred(self, c):
        return c[0] if len(c) == 1 else ast.BoolOp("AND", tuple(c))

    def comparison(self, c):
        return ast.Comparison(c[0], c[1], c[2])

    def compare_op(self, c):
        return c[0].value.upper()

    def lit_string(self, c):
        return ast.Literal(unquote(c[0].value), "string")

    def lit_number(self, c):
        return ast.Literal(c[0], "number")

    def lit_null(self, c):
        return ast.Literal(None, "null")

    def lit_true(self, c):
        return ast.Literal("TRUE", "bool")

    def lit_false(self, c):
        return ast.Literal("FALSE", "bool")

    def order_by(self, c):
        return tuple(c)

    def order_item(self, c):
        return ast.OrderItem(c[0], descending=c[1] == "DESC")

    def order_dir(self, c):
        return c[0].value.upper()

    def limit_offset(self, c):
        return (_int(c[0]), _int(c[1]) if c[1] is not None else None)

    def limit_comma(self, c):
        return (_int(c[1]), _int(c[0]))

    # SET

    def set_var(self, c):
        scope, target, value = c
        if isinstance(target, Token):  # @@[scope.]name
            body = target.value[2:]
            head, dot, rest = body.partition(".")
            if dot and head.upper() in ("GLOBAL", "SESSION", "LOCAL"):
                if scope is not None:
                    raise syntax_error_at(target, f"the scope is given twice: {scope} and {target.value}")
                scope = head.upper()
                body = rest
            name = body
        else:
            name = target
        if scope == "LOCAL":
            scope = "SESSION"
        return ast.SetVariable(name, _literal(value, signed_numbers=True), scope=scope)

    def set_scope(self, c):
        return c[0].value.upper()

    def help(self, c):
        words = [unquote(t.value) if t.type == "STRING" else t.value for t in c]
        return ast.Help(" ".join(words))

    # ------------------------------------------------------------------ INSERT

    def insert_values(self, c):
        return self._insert(c[:5], rows=tuple(c[5:]))

    def _insert(self, c, rows):
        mode, table, partitions, label, columns = c
        temporary, names = partitions if isinstance(partitions, tuple) else (False, ())
        return ast.Insert(
            table,
            partitions=names,
            columns=columns or (),
            rows=rows,
            label=label,
            overwrite=mode == "OVERWRITE",
            temporary=temporary,
            all_partitions=partitions == "*",
        )

    def insert_partitions(self, c):
        return (bool(c[0]), c[1])

    def all_partitions(self, c):
        return "*"

    def label(self, c):
        return c[0]

    def column_list(self, c):
        return c[0]

    def row(self, c):
        if len(c) == 1 and c[0] is None:
            return ()
        return tuple(_literal(e) for e in c)

    def expr(self, c):
        items = [x for x in c if x is not None]
        first = items[0]
        while isinstance(first, _Expr):
            first = first.first
        last = items[-1]
        while isinstance(last, _Expr):
            last = last.last
        return _Expr(first, last, items)


def _object_id(token) -> int | None:
    """The optional id of RECOVER (a database, table or partition id)."""
    return None if token is None else _int(token)


def _literal(e: _Expr, signed_numbers: bool = False) -> ast.Literal:
    """A single literal token becomes a typed Literal; anything else keeps its source text."""
    items = e.items
    if len(items) == 1 and isinstance(items[0], Token):
        tok = items[0]
        if tok.type == "STRING":
            return ast.Literal(unquote(tok.value), "string")
        if tok.type == "NUMBER":
            return ast.Literal(tok.value, "number")
        if tok.type == "NAME":
            upper = tok.value.upper()
            if upper == "NULL":
                return ast.Literal(None, "null")
            if upper in ("TRUE", "FALSE"):
                return ast.Literal(upper, "bool")
    if (
        signed_numbers
        and len(items) == 2
        and isinstance(items[0], Token)
        and items[0].value == "-"
        and isinstance(items[1], Token)
        and items[1].type == "NUMBER"
        and items[0].end_pos == items[1].start_pos
    ):
        return ast.Literal("-" + items[1].value, "number")
    return ast.Literal(e.source(), "expr")


# --------------------------------------------------------------------------- users, privileges, loads


def _user_text(part) -> str:
    """A user or host name: a '...' string or a name."""
    if isinstance(part, Token) and part.type == "STRING":
        return unquote(part.value)
    return str(part)


class _UserRules:
    """CREATE/DROP USER, SET PASSWORD, GRANT/REVOKE, SHOW GRANTS, SHOW [STREAM] LOAD."""

    def create_user(self, c):
        if_not_exists, user, identified = c
        password, is_hash = identified if identified else (None, False)
        return ast.CreateUser(user, password=password, password_is_hash=is_hash, if_not_exists=bool(if_not_exists))

    def identified_by(self, c):
        return (unquote(c[1].value), c[0] is not None)

    def password_kw(self, c):
        return True

    def drop_user(self, c):
        return ast.DropUser(c[1], if_exists=bool(c[0]))

    def set_password(self, c):
        user, value = c
        if isinstance(value, Token):  # '*HEX': the stored hash itself
            return ast.SetPassword(unquote(value.value), password_is_hash=True, user=user)
        return ast.SetPassword(value, user=user)

    def password_call(self, c):
        return unquote(c[0].value)

    def grant(self, c):
        privileges, (db, table), user = c
        return ast.Grant(privileges, db, table, user)

    def revoke(self, c):
        privileges, (db, table), user = c
        return ast.Revoke(privileges, db, table, user)

    def privilege_list(self, c):
        return tuple(c)

    def privilege(self, c):
        return c[0].value.upper()  # ALL PRIVILEGES is ALL

    def privilege_target(self, c):
        parts = [p.value if isinstance(p, Token) and p.type == "STAR" else p for p in c if p is not None]
        if len(parts) == 3:
            catalog = parts[0]
            if catalog not in ("internal", "*"):
                raise PositionedError(NotSupportedError(f"privileges on catalog {catalog}"), 0)
            parts = parts[1:]
        db, table = parts
        if db == "*" and table != "*":
            raise PositionedError(SqlSyntaxError(f"expected *.* or db.* or db.table, found *.{table}"), 0)
        return (db, table)

    def user_identity(self, c):
        user, host = c[0], (c[2] if len(c) == 3 else None)
        return ast.UserIdentity(_user_text(user), _user_text(host) if host is not None else "%")

    def user_at_name(self, c):
        return ast.UserIdentity(_user_text(c[0]), c[1].value[1:])

    def show_grants(self, c):
        return ast.ShowGrants(all=bool(c[0]), user=c[1])

    def show_load(self, c):
        stream, db, where, order, limit = c
        lim, off = limit if limit else (None, None)
        return ast.ShowLoad(stream=bool(stream), db=db, where=where, order_by=order or (), limit=lim, offset=off)

    def show_transaction(self, c):
        return ast.ShowTransaction(db=c[0], where=c[1])

    def clean_label(self, c):
        return ast.CleanLabel(db=c[1], label=c[0])

    def stream(self, c):
        return True


for _name, _rule in vars(_UserRules).items():
    if not _name.startswith("_"):
        setattr(ToAst, _name, _rule)


def _like_or_where(filt) -> dict:
    """The LIKE pattern (a string) or WHERE predicate of a SHOW statement, as keyword arguments."""
    if filt is None:
        return {}
    return {"like": filt} if isinstance(filt, str) else {"where": filt}


def _index(name, cols, using, props, comment) -> ast.IndexDef:
    return ast.IndexDef(
        name,
        cols,
        using=using,
        properties=props or (),
        comment=unquote(comment.value) if comment is not None else None,
    )
