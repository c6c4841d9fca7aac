"""A MySQL client written out byte by byte, for sending the server what no real driver would."""

from __future__ import annotations

import socket
import struct

CLIENT_PROTOCOL_41 = 0x200
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_CONNECT_WITH_DB = 0x8
CLIENT_QUERY_ATTRIBUTES = 1 << 27
LOGIN_CAPABILITIES = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH

COM_QUIT, COM_INIT_DB, COM_QUERY, COM_FIELD_LIST = 0x01, 0x02, 0x03, 0x04
COM_CHANGE_USER, COM_STMT_PREPARE, COM_STMT_EXECUTE = 0x11, 0x16, 0x17
COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE, COM_STMT_RESET, COM_STMT_FETCH = 0x18, 0x19, 0x1A, 0x1C


def frame(payload: bytes, seq: int) -> bytes:
    return len(payload).to_bytes(3, "little") + bytes([seq]) + payload


def handshake_response(
    user: str = "root", database: str | None = None, capabilities: int = LOGIN_CAPABILITIES
) -> bytes:
    """HandshakeResponse41 with an empty password (an empty mysql_native_password answer)."""
    if database is not None:
        capabilities |= CLIENT_CONNECT_WITH_DB
    body = struct.pack("<IIB", capabilities, 1 << 24, 33) + bytes(23)
    body += user.encode() + b"\0" + b"\0"  # user, then an auth response of length 0
    if database is not None:
        body += database.encode() + b"\0"
    return body + b"mysql_native_password\0"


class RawClient:
    """One connection: `read_packet`, `send` (a command packet, sequence 0), `login`."""

    def __init__(self, port: int, timeout: float = 20):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def read_exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed by the server")
            data += chunk
        return data

    def read_packet(self) -> bytes:
        header = self.read_exact(4)
        return self.read_exact(int.from_bytes(header[:3], "little"))

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, payload: bytes, seq: int = 0) -> None:
        self.sock.sendall(frame(payload, seq))

    def login(self, user: str = "root", database: str | None = None) -> bytes:
        """The handshake; returns the server's answer (an OK packet starts with 0x00)."""
        self.read_packet()
        self.send(handshake_response(user, database), seq=1)
        return self.read_packet()

    def read_until_closed(self) -> list[bytes]:
        """Every packet until the server closes the connection."""
        packets: list[bytes] = []
        try:
            while True:
                packets.append(self.read_packet())
        except (ConnectionError, OSError):
            return packets


def error_code(packet: bytes) -> int | None:
    """The code of an ERR packet, None for any other packet."""
    return int.from_bytes(packet[1:3], "little") if packet[:1] == b"\xff" else None
