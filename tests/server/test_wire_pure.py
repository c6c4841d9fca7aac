"""dorisql.server.wire without a server: every reader ends on any input (a value or
MalformedPacket), and binding never lets a value change a statement's structure."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mysql_mimic.charset import CharacterSet
from mysql_mimic.constants import DEFAULT_SERVER_CAPABILITIES
from mysql_mimic.packets import ComChangeUser, ComFieldList, ComQuery, HandshakeResponse41, SSLRequest
from mysql_mimic.types import Capabilities

from dorisql.server import wire
from dorisql.syntax import parse
from dorisql.syntax.transform import unquote

CAPS = DEFAULT_SERVER_CAPABILITIES | Capabilities.CLIENT_MULTI_STATEMENTS
UTF8 = CharacterSet.utf8mb4


def _statement(num_params: int) -> wire.PreparedMarks:
    return wire.PreparedMarks(stmt_id=1, sql="SELECT " + ", ".join("?" * num_params), num_params=num_params)


READERS = {
    "handshake": lambda data: wire.parse_handshake_response(CAPS, data),
    "change_user": lambda data: wire.parse_com_change_user(CAPS, UTF8, data),
    "query": lambda data: wire.parse_com_query(CAPS, UTF8, data),
    "field_list": lambda data: wire.parse_com_field_list(UTF8, data),
    "execute": lambda data: wire.parse_com_stmt_execute(CAPS, UTF8, data, lambda _id: _statement(2)),
    "fetch": wire.parse_com_stmt_fetch,
    "long_data": wire.parse_com_stmt_send_long_data,
}


#: What each reader returns when the bytes make a packet.
RETURNS = {
    "handshake": (HandshakeResponse41, SSLRequest),
    "change_user": ComChangeUser,
    "query": ComQuery,
    "field_list": ComFieldList,
    "execute": wire.ComStmtExecuteParams,
    "fetch": tuple,
    "long_data": tuple,
}


@pytest.mark.parametrize("name", sorted(READERS))
@settings(max_examples=300, deadline=1000)
@given(data=st.binary(max_size=200))
def test_every_reader_ends_on_any_bytes(name, data):
    try:
        packet = READERS[name](data)
    except wire.MalformedPacket:
        return
    assert isinstance(packet, RETURNS[name]), packet
    # the fixed-size fields are the bytes that are there, little-endian
    if name == "fetch":
        assert len(data) >= 8 and packet == struct.unpack_from("<II", data)
    elif name == "long_data":
        assert len(data) >= 6 and packet == (*struct.unpack_from("<IH", data), data[6:])


def test_the_packet_that_froze_mysql_mimic():
    packet = b"\x85\xa6\x0f\x00" + bytes(4) + b"\x21" + bytes(23) + b"a"
    with pytest.raises(wire.MalformedPacket, match="NUL-terminated field without its NUL"):
        wire.parse_handshake_response(CAPS, packet)


def test_counts_are_bounded_by_the_bytes_that_are_there():
    # a COM_QUERY announcing 2^64-1 query attributes in a 20-byte packet
    with pytest.raises(wire.MalformedPacket, match="more than 256 query attributes"):
        wire.parse_com_query(CAPS, UTF8, b"\xfe" + b"\xff" * 8 + b"\x01SELECT 1")
    # a statement's parameters: at most eight a byte (each takes its NULL bitmap bit)
    execute = struct.pack("<IBI", 1, 0, 1) + b"\x09" + b"\x00"
    with pytest.raises(wire.MalformedPacket, match="9 parameters in a packet of 11 bytes"):
        wire.parse_com_stmt_execute(CAPS, UTF8, execute, lambda _id: _statement(9))
    # an execute whose string length runs past the end
    execute = struct.pack("<IBI", 1, 0, 1) + b"\x02\x00\x01" + b"\xfe\x00\x00" * 2 + b"\xfc\xff\xff"
    with pytest.raises(wire.MalformedPacket, match="a field of 65535 bytes"):
        wire.parse_com_stmt_execute(CAPS, UTF8, execute, lambda _id: _statement(2))


def _execute_packet(values: list[tuple[int, bytes]]) -> bytes:
    """COM_STMT_EXECUTE's body for `values` (type, encoded value), no NULLs."""
    head = struct.pack("<IBI", 1, 0, 1) + bytes([len(values)]) + bytes((len(values) + 7) // 8) + b"\x01"
    types = b"".join(bytes([t, 0]) + b"\x00" for t, _v in values)  # type, flags, empty name
    return head + types + b"".join(v for _t, v in values)


def test_binary_values_of_every_type():
    values = [
        (0x08, (-5).to_bytes(8, "little", signed=True)),  # LONGLONG
        (0x05, struct.pack("<d", 2.5)),  # DOUBLE
        (0xF6, b"\x06" + b"12.345"),  # NEWDECIMAL
        (0x0A, b"\x04" + struct.pack("<HBB", 2024, 1, 2)),  # DATE
        (0x0C, b"\x0b" + struct.pack("<HBBBBBI", 2024, 1, 2, 3, 4, 5, 600000)),  # DATETIME
        (0x0B, b"\x08" + struct.pack("<BIBBB", 1, 0, 1, 2, 3)),  # TIME, negative
        (0xFE, b"\x03abc"),  # STRING
    ]
    statement = _statement(len(values))
    request = wire.parse_com_stmt_execute(CAPS, UTF8, _execute_packet(values), lambda _id: statement)
    assert request.params == [
        -5,
        2.5,
        Decimal("12.345"),
        dt.date(2024, 1, 2),
        dt.datetime(2024, 1, 2, 3, 4, 5, 600000),
        -dt.timedelta(hours=1, minutes=2, seconds=3),
        "abc",
    ]
    bound = wire.bind(statement.sql, wire.parameter_marks(statement.sql), request.params)
    assert bound.split() == [
        "SELECT",
        "-5",
        ",",
        "2.5",
        ",",
        "12.345",
        ",",
        "'2024-01-02'",
        ",",
        "'2024-01-02",
        "03:04:05.600000'",
        ",",
        "'-01:02:03'",
        ",",
        "'abc'",
    ]


def test_marks_outside_strings_names_and_comments():
    sql = "SELECT '?', \"?\", `?` /* ? */ FROM t WHERE a=? AND b IN (?,?) -- ?\n AND c <=> ?"
    marks = wire.parameter_marks(sql)
    assert len(marks) == 4 and all(sql[m] == "?" for m in marks)


def test_statement_count():
    assert wire.statement_count("SELECT 1") == 1
    assert wire.statement_count("SELECT 1;;  ") == 1
    assert wire.statement_count("SELECT ';'; ") == 1
    assert wire.statement_count("SELECT 1; DROP TABLE t") == 2


@settings(max_examples=300, deadline=2000)
@given(value=st.text(max_size=40) | st.sampled_from(["'", "\\", "\\'", "''", "--", "/*", "*/", "#", ";", "?", "\0"]))
def test_a_bound_string_is_one_literal_holding_the_value(value):
    sql = "SELECT k FROM t WHERE v = ? AND w = 1"
    bound = wire.bind(sql, wire.parameter_marks(sql), [value])
    (statement,) = parse(bound)
    literal = bound[bound.index("v = ") + 4 : bound.rindex(" AND w")].strip()
    assert unquote(literal) == value
    assert bound.endswith("AND w = 1") and statement.text.startswith("SELECT k FROM t")


def test_binding_refuses_what_cannot_be_a_value():
    with pytest.raises(wire.BindError, match="parameter 1 is nan"):
        wire.bind("SELECT ?", (7,), [float("nan")])
    with pytest.raises(wire.BindError, match="not valid UTF-8"):
        wire.bind("SELECT ?", (7,), [b"\xff"])
    with pytest.raises(wire.BindError, match="2 parameters, 1 were sent"):
        wire.bind("SELECT ?, ?", (7, 10), [1])


def test_a_second_execute_may_leave_out_the_types():
    """libmysqlclient sends the parameter types with the first execute only; later executes
    unset new-params-bound and send the values alone, read with the remembered types."""
    statement = _statement(2)
    first = _execute_packet([(0x08, (5).to_bytes(8, "little")), (0xFE, b"\x01a")])
    request = wire.parse_com_stmt_execute(CAPS, UTF8, first, lambda _id: statement)
    assert request.params == [5, "a"]
    statement.param_types = request.types
    again = struct.pack("<IBI", 1, 0, 1) + b"\x02" + b"\x00" + b"\x00" + (6).to_bytes(8, "little") + b"\x01b"
    assert wire.parse_com_stmt_execute(CAPS, UTF8, again, lambda _id: statement).params == [6, "b"]
    with pytest.raises(wire.MalformedPacket, match="none sent before"):
        wire.parse_com_stmt_execute(CAPS, UTF8, again, lambda _id: _statement(2))
