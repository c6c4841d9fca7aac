"""The client's packets, read by dorisql itself: every length checked, nothing trusted.

mysql-mimic's packet readers (compiled) loop for ever on a NUL-terminated field that has no NUL
and allocate whatever a length field asks for, so one 33-byte handshake froze the whole server.
Everything a client sends before and after login is read here instead: `Reader` refuses to read
past the end of a packet (`MalformedPacket`), and counts (parameters, attributes) are bounded by
the bytes that are really there. The results are mysql-mimic's own packet dataclasses, so the
rest of the library (authentication, result writing) works on them unchanged.

Prepared statements: `parameter_marks` finds the ``?`` marks with the lexer's own token rules
(never inside a string, a quoted name or a comment), and `bind` puts each parameter in as a
literal of its type, then checks that the bound text has exactly the prepared statement's tokens
with each mark replaced by its literal's: a value can never become SQL.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mysql_mimic.charset import CharacterSet, Collation
from mysql_mimic.packets import ComChangeUser, ComFieldList, ComQuery, HandshakeResponse41, SSLRequest
from mysql_mimic.prepared import PreparedStatement
from mysql_mimic.types import Capabilities, ColumnType

from dorisql.syntax.generator import quote_single
from dorisql.syntax.lexer import token_spans

__all__ = [
    "MalformedPacket",
    "Reader",
    "parse_handshake_response",
    "parse_com_change_user",
    "parse_com_query",
    "parse_com_field_list",
    "parse_com_stmt_execute",
    "parse_stmt_id",
    "parse_com_stmt_send_long_data",
    "parse_com_stmt_fetch",
    "parameter_marks",
    "statement_count",
    "literal",
    "bind",
    "BindError",
    "InvalidText",
    "PreparedMarks",
    "ComStmtExecuteParams",
]

#: Query attributes a client may send with one statement (MySQL clients send a handful).
MAX_QUERY_ATTRIBUTES = 256

#: A parameter's query-attribute name ("" for a statement's parameter), MySQL type, unsigned.
ParamType = tuple[str, int, bool]


class MalformedPacket(Exception):
    """A packet that does not have the shape its command needs (MySQL's ER_MALFORMED_PACKET)."""


class Reader:
    """A cursor over one packet's payload that never reads past its end."""

    def __init__(self, data: bytes):
        self.data = bytes(data)
        self.pos = 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def fixed(self, n: int) -> bytes:
        if n < 0 or n > self.remaining:
            raise MalformedPacket(f"a field of {n} bytes where {self.remaining} remain")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def uint(self, n: int) -> int:
        return int.from_bytes(self.fixed(n), "little")

    def sint(self, n: int) -> int:
        return int.from_bytes(self.fixed(n), "little", signed=True)

    def lenenc_int(self) -> int:
        first = self.uint(1)
        if first < 0xFB:
            return first
        if first == 0xFC:
            return self.uint(2)
        if first == 0xFD:
            return self.uint(3)
        if first == 0xFE:
            return self.uint(8)
        raise MalformedPacket(f"0x{first:02x} does not start a length-encoded integer")

    def lenenc_bytes(self) -> bytes:
        return self.fixed(self.lenenc_int())

    def null_terminated(self) -> bytes:
        end = self.data.find(b"\x00", self.pos)
        if end < 0:
            raise MalformedPacket("a NUL-terminated field without its NUL")
        chunk = self.data[self.pos : end]
        self.pos = end + 1
        return chunk

    def rest(self) -> bytes:
        chunk = self.data[self.pos :]
        self.pos = len(self.data)
        return chunk


class InvalidText(MalformedPacket):
    """Text that is not valid in the client's character set (MySQL's ER_INVALID_CHARACTER_STRING)."""


def _decode(charset: CharacterSet, data: bytes, what: str) -> str:
    try:
        return data.decode(charset.codec)
    except (UnicodeDecodeError, LookupError) as err:
        # MySQL's ER_INVALID_CHARACTER_STRING: the offending bytes in upper-case hex
        bad = data[err.start : err.end] if isinstance(err, UnicodeDecodeError) else data[:16]
        raise InvalidText(f"Invalid {charset.name} character string: '{bad.hex().upper()}' in {what}") from None


def _collation(number: int) -> CharacterSet:
    try:
        return Collation(number).charset
    except ValueError:  # a collation mysql-mimic does not know: the server's default
        return CharacterSet.utf8mb4


def _connect_attrs(r: Reader, charset: CharacterSet) -> dict[str, str]:
    attrs = Reader(r.lenenc_bytes())
    pairs: dict[str, str] = {}
    while not attrs.at_end():
        key = _decode(charset, attrs.lenenc_bytes(), "a connection attribute")
        pairs[key] = _decode(charset, attrs.lenenc_bytes(), "a connection attribute")
    return pairs


# ------------------------------------------------------------------------------ connection phase


def parse_handshake_response(server_capabilities: Capabilities, data: bytes) -> HandshakeResponse41 | SSLRequest:
    """HandshakeResponse41 (or the SSLRequest that may precede it)."""
    r = Reader(data)
    client = Capabilities(r.uint(4))
    if Capabilities.CLIENT_PROTOCOL_41 not in client:
        raise MalformedPacket("the client does not speak protocol 4.1")
    capabilities = server_capabilities & client
    max_packet_size = r.uint(4)
    charset = _collation(r.uint(1))
    r.fixed(23)  # filler
    if r.at_end():
        return SSLRequest(max_packet_size=max_packet_size, capabilities=capabilities, client_charset=charset)
    username = _decode(charset, r.null_terminated(), "the user name")
    if Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA in capabilities:
        auth_response = r.lenenc_bytes()
    else:
        auth_response = r.fixed(r.uint(1))
    response = HandshakeResponse41(
        max_packet_size=max_packet_size,
        capabilities=capabilities,
        client_charset=charset,
        username=username,
        auth_response=auth_response,
    )
    # Older clients end the packet early instead of sending empty optional fields.
    if Capabilities.CLIENT_CONNECT_WITH_DB in capabilities and not r.at_end():
        response.database = _decode(charset, r.null_terminated(), "the database name") or None
    if Capabilities.CLIENT_PLUGIN_AUTH in capabilities and not r.at_end():
        response.client_plugin = _decode(charset, r.null_terminated(), "the plugin name")
    if Capabilities.CLIENT_CONNECT_ATTRS in capabilities and not r.at_end():
        response.connect_attrs = _connect_attrs(r, charset)
    if Capabilities.CLIENT_ZSTD_COMPRESSION_ALGORITHM in capabilities and not r.at_end():
        response.zstd_compression_level = r.uint(1)
    return response


def parse_com_change_user(capabilities: Capabilities, charset: CharacterSet, data: bytes) -> ComChangeUser:
    r = Reader(data)
    username = _decode(charset, r.null_terminated(), "the user name")
    if Capabilities.CLIENT_SECURE_CONNECTION in capabilities:
        auth_response = r.fixed(r.uint(1))
    else:
        auth_response = r.null_terminated()
    database = _decode(charset, r.null_terminated(), "the database name") if not r.at_end() else ""
    change = ComChangeUser(username=username, auth_response=auth_response, database=database)
    if not r.at_end() and Capabilities.CLIENT_PROTOCOL_41 in capabilities:
        charset = _collation(r.uint(2))
        change.client_charset = charset
    if not r.at_end() and Capabilities.CLIENT_PLUGIN_AUTH in capabilities:
        change.client_plugin = _decode(charset, r.null_terminated(), "the plugin name")
    if not r.at_end() and Capabilities.CLIENT_CONNECT_ATTRS in capabilities:
        change.connect_attrs = _connect_attrs(r, charset)
    return change


# ------------------------------------------------------------------------------ commands


def _query_attributes(capabilities: Capabilities, charset: CharacterSet, r: Reader, count: int) -> dict[str, str]:
    if count > MAX_QUERY_ATTRIBUTES:
        raise MalformedPacket(f"more than {MAX_QUERY_ATTRIBUTES} query attributes")
    values, _types = _read_values(capabilities, charset, r, count, {}, None)
    return {name: str(value) for name, value in values if name}


def parse_com_query(capabilities: Capabilities, charset: CharacterSet, data: bytes) -> ComQuery:
    """COM_QUERY's payload (after the command byte): query attributes, then the statement."""
    r = Reader(data)
    attrs: dict[str, str] = {}
    if Capabilities.CLIENT_QUERY_ATTRIBUTES in capabilities:
        count = r.lenenc_int()
        r.lenenc_int()  # parameter_set_count, always 1
        if count:
            attrs = _query_attributes(capabilities, charset, r, count)
    return ComQuery(sql=_decode(charset, r.rest(), "the statement"), query_attrs=attrs)


def parse_com_field_list(charset: CharacterSet, data: bytes) -> ComFieldList:
    r = Reader(data)
    table = _decode(charset, r.null_terminated(), "the table name")
    return ComFieldList(table=table, wildcard=_decode(charset, r.rest(), "the column pattern"))


def parse_stmt_id(data: bytes) -> int:
    """COM_STMT_CLOSE / COM_STMT_RESET: the statement id."""
    return Reader(data).uint(4)


def parse_com_stmt_fetch(data: bytes) -> tuple[int, int]:
    """COM_STMT_FETCH: (statement id, rows wanted)."""
    r = Reader(data)
    return r.uint(4), r.uint(4)


def parse_com_stmt_send_long_data(data: bytes) -> tuple[int, int, bytes]:
    """COM_STMT_SEND_LONG_DATA: (statement id, parameter number, a piece of its value)."""
    r = Reader(data)
    return r.uint(4), r.uint(2), r.rest()


@dataclass
class PreparedMarks(PreparedStatement):
    """A prepared statement with where its ``?`` marks are."""

    marks: tuple[int, ...] = ()
    long_data_bytes: int = 0
    #: The parameter types of the last execute: a client sends them once, then executes the
    #: statement again with "new params bound" unset and the values alone.
    param_types: list[ParamType] | None = None


@dataclass
class ComStmtExecuteParams:
    stmt_id: int
    use_cursor: bool
    params: list[Any] = field(default_factory=list)
    query_attrs: dict[str, str] = field(default_factory=dict)
    #: The parameters' (name, MySQL type, unsigned), sent or remembered.
    types: list[ParamType] = field(default_factory=list)


_CURSOR_TYPE_READ_ONLY = 0x01
_PARAMETER_COUNT_AVAILABLE = 0x08


def parse_com_stmt_execute(
    capabilities: Capabilities,
    charset: CharacterSet,
    data: bytes,
    get_stmt: Callable[[int], PreparedMarks],
) -> ComStmtExecuteParams:
    """COM_STMT_EXECUTE: the statement, and its parameters as Python values of their types."""
    r = Reader(data)
    stmt = get_stmt(r.uint(4))
    flags = r.uint(1)
    r.uint(4)  # iteration count, always 1
    count = stmt.num_params
    if Capabilities.CLIENT_QUERY_ATTRIBUTES in capabilities and (count or flags & _PARAMETER_COUNT_AVAILABLE):
        count = r.lenenc_int()
    if count < stmt.num_params:
        raise MalformedPacket(f"{count} parameters for a statement that has {stmt.num_params}")
    if count - stmt.num_params > MAX_QUERY_ATTRIBUTES:
        raise MalformedPacket(f"more than {MAX_QUERY_ATTRIBUTES} query attributes")
    values: list[tuple[str, Any]] = []
    types: list[ParamType] = []
    if count:
        values, types = _read_values(capabilities, charset, r, count, stmt.param_buffers or {}, stmt.param_types)
    params = [value for _name, value in values[: stmt.num_params]]
    attrs = {name: str(value) for name, value in values[stmt.num_params :] if name}
    return ComStmtExecuteParams(stmt.stmt_id, bool(flags & _CURSOR_TYPE_READ_ONLY), params, attrs, types)


_STRINGS = frozenset(
    {
        ColumnType.VARCHAR,
        ColumnType.VAR_STRING,
        ColumnType.STRING,
        ColumnType.JSON,
        ColumnType.ENUM,
        ColumnType.SET,
        ColumnType.TINY_BLOB,
        ColumnType.MEDIUM_BLOB,
        ColumnType.LONG_BLOB,
        ColumnType.BLOB,
        ColumnType.BIT,
        ColumnType.GEOMETRY,
    }
)
_INTEGERS = {
    ColumnType.TINY: 1,
    ColumnType.SHORT: 2,
    ColumnType.YEAR: 2,
    ColumnType.LONG: 4,
    ColumnType.INT24: 4,
    ColumnType.LONGLONG: 8,
}


def _read_values(
    capabilities: Capabilities,
    charset: CharacterSet,
    r: Reader,
    count: int,
    long_data: dict[int, bytearray],
    known: list[ParamType] | None,
) -> tuple[list[tuple[str, Any]], list[ParamType]]:
    """`count` typed values (the NULL bitmap, the types and names unless `known` from an
    earlier execute serves, then the values), and the types they were read with."""
    if count > 8 * r.remaining:  # every value takes at least its bit of the NULL bitmap
        raise MalformedPacket(f"{count} parameters in a packet of {len(r.data)} bytes")
    nulls = r.fixed((count + 7) // 8)
    types: list[ParamType] = []
    if r.uint(1):  # new-params-bound: the types (and names) follow
        for _ in range(count):
            column_type, flags = r.uint(1), r.uint(1)
            name = ""
            if Capabilities.CLIENT_QUERY_ATTRIBUTES in capabilities:
                name = _decode(charset, r.lenenc_bytes(), "a parameter name")
            types.append((name, column_type, bool(flags & 0x80)))
    elif known is not None and len(known) == count:
        types = known
    else:
        raise MalformedPacket("parameters without their types, and none sent before")
    values: list[tuple[str, Any]] = []
    for i, (name, column_type, unsigned) in enumerate(types):
        if nulls[i // 8] & (1 << (i % 8)):
            values.append((name, None))
        elif i in long_data:
            values.append((name, _text_or_bytes(charset, bytes(long_data[i]))))
        else:
            values.append((name, _read_value(charset, r, column_type, unsigned)))
    return values, types


def _text_or_bytes(charset: CharacterSet, data: bytes) -> str | bytes:
    try:
        return data.decode(charset.codec)
    except (UnicodeDecodeError, LookupError):
        return data


def _read_value(charset: CharacterSet, r: Reader, column_type: int, unsigned: bool) -> Any:
    if column_type in _STRINGS:
        return _text_or_bytes(charset, r.lenenc_bytes())
    if column_type in _INTEGERS:
        size = _INTEGERS[column_type]
        return r.uint(size) if unsigned else r.sint(size)
    if column_type == ColumnType.FLOAT:
        return struct.unpack("<f", r.fixed(4))[0]
    if column_type == ColumnType.DOUBLE:
        return struct.unpack("<d", r.fixed(8))[0]
    if column_type in (ColumnType.DECIMAL, ColumnType.NEWDECIMAL):
        text = _decode(charset, r.lenenc_bytes(), "a decimal parameter")
        try:
            return decimal.Decimal(text)
        except decimal.InvalidOperation:
            raise MalformedPacket(f"'{text[:40]}' is not a decimal") from None
    if column_type in (ColumnType.DATE, ColumnType.DATETIME, ColumnType.TIMESTAMP):
        return _read_datetime(r, date_only=column_type == ColumnType.DATE)
    if column_type == ColumnType.TIME:
        return _read_time(r)
    if column_type == ColumnType.NULL:
        return None
    raise MalformedPacket(f"unknown parameter type {column_type}")


def _read_datetime(r: Reader, *, date_only: bool) -> dt.date | dt.datetime:
    body = Reader(r.fixed(r.uint(1)))
    if body.remaining not in (0, 4, 7, 11):
        raise MalformedPacket(f"a date of {body.remaining} bytes")
    if body.at_end():
        return dt.datetime(1, 1, 1) if not date_only else dt.date(1, 1, 1)  # MySQL's zero date, as early as Python goes
    year, month, day = body.uint(2), body.uint(1), body.uint(1)
    hour = minute = second = micro = 0
    if not body.at_end():
        hour, minute, second = body.uint(1), body.uint(1), body.uint(1)
    if not body.at_end():
        micro = body.uint(4)
    try:
        if date_only:
            return dt.date(year, month, day)
        return dt.datetime(year, month, day, hour, minute, second, micro)
    except ValueError as err:
        raise MalformedPacket(f"not a date: {err}") from None


def _read_time(r: Reader) -> dt.timedelta:
    body = Reader(r.fixed(r.uint(1)))
    if body.remaining not in (0, 8, 12):
        raise MalformedPacket(f"a time of {body.remaining} bytes")
    if body.at_end():
        return dt.timedelta(0)
    negative, days = body.uint(1), body.uint(4)
    hours, minutes, seconds = body.uint(1), body.uint(1), body.uint(1)
    micro = body.uint(4) if not body.at_end() else 0
    if days > 34 or hours > 23 or minutes > 59 or seconds > 59 or micro > 999_999:
        raise MalformedPacket("not a time")
    value = dt.timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds, microseconds=micro)
    return -value if negative else value


# ------------------------------------------------------------------------------ binding


class BindError(Exception):
    """A parameter that cannot be bound (its message names it)."""


def parameter_marks(sql: str) -> tuple[int, ...]:
    """The offsets of the ``?`` parameter marks of `sql`: operator characters outside strings,
    quoted names and comments, as dorisql's lexer reads the text."""
    spans = token_spans(sql)
    return tuple(start + i for kind, start, text in spans if kind == "op" for i, c in enumerate(text) if c == "?")


def statement_count(sql: str) -> int:
    """How many statements `sql` holds (a ``;`` followed by more tokens starts another)."""
    count, pending = 0, False
    for kind, _start, text in token_spans(sql):
        if kind == "punct" and text == ";":
            count += pending
            pending = False
        else:
            pending = True
    return count + pending


def _time_text(value: dt.timedelta) -> str:
    sign = "-" if value < dt.timedelta(0) else ""
    value = abs(value)
    total = value.days * 86400 + value.seconds
    hours, rest = divmod(total, 3600)
    text = f"{sign}{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return text + (f".{value.microseconds:06d}" if value.microseconds else "")


def literal(value: Any, number: int) -> str:
    """`value` as a literal of its type (parameter `number`, from 1, names it in errors)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BindError(f"parameter {number} is {value}, which is not a number Doris stores")
        return repr(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise BindError(f"parameter {number} is {value}, which is not a number Doris stores")
        return str(value)
    if isinstance(value, dt.datetime):
        return quote_single(value.isoformat(sep=" "))
    if isinstance(value, dt.date):
        return quote_single(value.isoformat())
    if isinstance(value, dt.timedelta):
        return quote_single(_time_text(value))
    if isinstance(value, bytes):
        raise BindError(f"parameter {number} is not valid UTF-8 text")
    return quote_single(str(value))


def _tokens(sql: str) -> list[tuple[str, str]]:
    """The statement's tokens, operators one character each (how ``=?`` and ``= ?`` compare)."""
    tokens: list[tuple[str, str]] = []
    for kind, _start, text in token_spans(sql):
        if kind == "op":
            tokens.extend(("op", c) for c in text)
        else:
            tokens.append((kind, text))
    return tokens


def bind(sql: str, marks: Sequence[int], values: Sequence[Any]) -> str:
    """`sql` with each mark replaced by its value's literal. The bound text must lex as the
    prepared one with each ``?`` replaced by its literal's tokens, or nothing runs."""
    if len(values) != len(marks):
        raise BindError(f"the statement has {len(marks)} parameters, {len(values)} were sent")
    literals = [literal(value, i + 1) for i, value in enumerate(values)]
    pieces, expected, last = [], [], 0
    for mark, text in zip(marks, literals):
        pieces += [sql[last:mark], " ", text, " "]
        last = mark + 1
    pieces.append(sql[last:])
    bound = "".join(pieces)
    replacements = iter(literals)
    for token in _tokens(sql):
        if token == ("op", "?"):
            expected.extend(_tokens(next(replacements)))
        else:
            expected.append(token)
    if _tokens(bound) != expected:
        raise BindError("a parameter value changed the statement's structure")
    return bound
