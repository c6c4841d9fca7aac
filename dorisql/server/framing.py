"""MySQL packet framing with the limits a server exposed to a network needs.

mysql-mimic's `MysqlStream` reads a logical packet of any size (it joins 16 MiB pieces until one
is shorter) and waits for a client for ever. `LimitedStream` wraps it and reads packets itself:

- a logical packet larger than `max_bytes` is refused at the header that would cross the limit,
  before its body is read (MySQL's and Doris's ``max_allowed_packet``): the client gets
  ``ERROR 1153 (08S01): Got a packet bigger than 'max_allowed_packet' bytes`` and the connection
  is closed, so a client can never make the server hold more than the limit;
- while `timeout` is set (the connection phase: MySQL's ``connect_timeout``, 10 s), a client that
  does not send its packet in time is disconnected;
- after login, an empty packet (a command without its command byte) is answered with ``ERROR
  1835 Malformed communication packet.`` and the connection is closed.

Writing and everything else goes to the wrapped stream unchanged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from mysql_mimic.errors import ErrorCode, MysqlError
from mysql_mimic.stream import ConnectionClosed, MysqlStream

__all__ = ["LimitedStream", "PacketTooLarge", "CONNECT_TIMEOUT_SECONDS", "HANDSHAKE_MAX_BYTES"]

#: MySQL's connect_timeout: how long a client may take over each packet of its login.
CONNECT_TIMEOUT_SECONDS = 10.0
#: The largest packet a client may send before it has logged in (a handshake response with
#: connection attributes is well under 1 KiB; MySQL caps attributes at 64 KiB).
HANDSHAKE_MAX_BYTES = 64 * 1024

_MAX_PIECE = 0xFFFFFF
ER_NET_PACKET_TOO_LARGE, ER_MALFORMED_PACKET = 1153, 1835


class PacketTooLarge(Exception):
    """A client's packet crossed the packet limit (already answered; the connection ends)."""


class LimitedStream:
    """`MysqlStream` whose `read` enforces a packet size limit and an optional timeout."""

    def __init__(self, inner: MysqlStream, max_bytes: int, error_packet: Callable[[int, str, str], bytes]):
        self._inner = inner
        self.max_bytes = max_bytes
        #: Seconds a read may wait (None: for ever).
        self.timeout: float | None = None
        #: Whether an empty packet is a packet: during login (an empty auth answer), not after
        #: it, where every command starts with its command byte.
        self.empty_allowed = True
        #: An error packet (code, message, SQLSTATE) to answer a refused packet with.
        self._error_packet = error_packet

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def read(self) -> bytes:
        if self.timeout is None:
            return await self._read()
        try:
            return await asyncio.wait_for(self._read(), self.timeout)
        except asyncio.TimeoutError:
            raise ConnectionClosed() from None

    async def _read(self) -> bytes:
        inner = self._inner
        data = bytearray()
        while True:
            try:
                header = await inner.reader.readexactly(4)
            except (asyncio.IncompleteReadError, ConnectionError):
                raise ConnectionClosed() from None
            word = int.from_bytes(header, "little")
            length, sequence = word & _MAX_PIECE, word >> 24
            expected = next(inner.seq)
            if sequence != expected:
                raise MysqlError(f"Expected seq({expected}) got seq({sequence})", ErrorCode.MALFORMED_PACKET)
            if len(data) + length > self.max_bytes:
                message = "Got a packet bigger than 'max_allowed_packet' bytes"
                await inner.write(self._error_packet(ER_NET_PACKET_TOO_LARGE, message, "08S01"))
                raise PacketTooLarge()
            if length:
                try:
                    data += await inner.reader.readexactly(length)
                except (asyncio.IncompleteReadError, ConnectionError):
                    raise ConnectionClosed() from None
            if length < _MAX_PIECE:
                if not data and not self.empty_allowed:  # no command byte: the connection ends
                    message = "Malformed communication packet."
                    await inner.write(self._error_packet(ER_MALFORMED_PACKET, message, "HY000"))
                    raise ConnectionClosed()
                return bytes(data)
