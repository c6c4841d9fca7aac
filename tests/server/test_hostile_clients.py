"""``dorisql server`` against clients that attack it: hostile prepared-statement parameters
through every driver's prepared path, malformed and oversized packets, a fuzzed connection
phase and command phase, clients that never log in, and users who reach for other users'
connections. One real server process; its SIGTERM is tested last."""

from __future__ import annotations

import datetime as dt
import os
import random
import signal
import socket
import struct
import threading
import time
from decimal import Decimal

import mysql.connector
import pymysql
import pytest

from .rawclient import (
    COM_CHANGE_USER,
    COM_FIELD_LIST,
    COM_QUERY,
    COM_STMT_CLOSE,
    COM_STMT_EXECUTE,
    COM_STMT_FETCH,
    COM_STMT_PREPARE,
    COM_STMT_RESET,
    COM_STMT_SEND_LONG_DATA,
    RawClient,
    error_code,
    frame,
    handshake_response,
)
from .serverkit import require_mysql_client
from waiting import wait_until

pytestmark = pytest.mark.spark

#: Values that break a statement pasted together as text.
HOSTILE = (
    "x'; DROP TABLE victim; SELECT '1",
    "a' OR '1'='1",
    "back\\slash",
    "tail\\",
    "\\'; DROP TABLE victim; -- ",
    'double"quote',
    "nul\0byte",
    "-- a comment",
    "/* open comment",
    "# hash comment",
    "semi; colon",
    "?",
    "`backquote`",
    "new\nline\ttab",
    "unicode ☃ 😀",
    "",
)


@pytest.fixture(scope="module")
def loaded(server):
    """Database ``h``: ``t`` holding every hostile value once (k = its index), ``victim`` one row."""
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE h")
        cur.execute("USE h")
        cur.execute(
            "CREATE TABLE t (k INT, v VARCHAR(100)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
            "PROPERTIES ('replication_num' = '1')"
        )
        cur.execute("CREATE TABLE victim (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        cur.execute("INSERT INTO victim VALUES (1)")
        cur.executemany("INSERT INTO t VALUES (%s, %s)", list(enumerate(HOSTILE)))  # PyMySQL escapes client-side
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (len(HOSTILE),)
    return server


def victim_intact(server) -> bool:
    with server.connect(database="h") as conn, conn.cursor() as cur:
        cur.execute("SHOW TABLES")
        if ("victim",) not in cur.fetchall():
            return False
        cur.execute("SELECT count(*) FROM victim")
        return cur.fetchone() == (1,)


def test_hostile_values_through_mysql_connector_prepared_statements(loaded):
    conn = mysql.connector.connect(host="127.0.0.1", port=loaded.port, user="root", password="", database="h")
    try:
        cur = conn.cursor(prepared=True)  # COM_STMT_PREPARE / COM_STMT_EXECUTE: binary parameters
        for k, value in enumerate(HOSTILE):
            cur.execute("SELECT k, v FROM t WHERE v = ?", (value,))
            assert cur.fetchall() == [(k, value)], value
            cur.execute("SELECT ?", (value,))  # the value comes back exactly as sent
            assert cur.fetchall() == [(value,)], value
        # a placeholder's neighbours stay what they were: `1 -?` is minus a negative number, no comment
        cur.execute("SELECT 1 -?", (-5,))
        assert cur.fetchall() == [(6,)]
        # marks inside strings, names and comments are no marks
        cur.execute("SELECT '?', k /* ? */ FROM t WHERE k = ?", (0,))
        assert cur.fetchall() == [("?", 0)]
        # every parameter type mysql-connector sends, bound as a value of its type
        cur.execute(
            "SELECT ?, ?, ?, ?, ?, ?, ?, ?",
            (
                7,
                -2.5,
                Decimal("12.345"),
                dt.date(2024, 1, 2),
                dt.datetime(2024, 1, 2, 3, 4, 5, 600000),
                dt.time(1, 2, 3),
                None,
                True,
            ),
        )
        assert cur.fetchall() == [
            (7, -2.5, Decimal("12.345"), "2024-01-02", "2024-01-02 03:04:05.600000", "01:02:03", None, 1)
        ]
        cur.execute("SELECT count(*) FROM t WHERE k IN (?, ?) AND v <> ?", (1, 2, "?"))
        assert cur.fetchall() == [(2,)]
        # one statement per prepared statement: a second one is refused at prepare, not run
        with pytest.raises(mysql.connector.Error) as info:
            cur.execute("SELECT 1; DROP TABLE victim")
        assert info.value.errno == 1064 and "exactly one statement" in info.value.msg
        # a hostile value into a DML statement is stored as data
        cur.execute("INSERT INTO t VALUES (?, ?)", (100, HOSTILE[0]))
        cur.execute("SELECT v FROM t WHERE k = ?", (100,))
        assert cur.fetchall() == [(HOSTILE[0],)]
        cur.execute("DELETE FROM t WHERE k = ?", (100,))
    finally:
        conn.close()
    assert victim_intact(loaded)


def test_hostile_values_through_pymysql_client_side_parameters(loaded):
    with loaded.connect(database="h") as conn, conn.cursor() as cur:
        for k, value in enumerate(HOSTILE):
            cur.execute("SELECT k, v FROM t WHERE v = %s", (value,))  # PyMySQL escapes into the text
            assert cur.fetchall() == ((k, value),), value
        cur.execute("SELECT %s, %s", (Decimal("1.50"), dt.datetime(2024, 1, 2, 3, 4, 5)))
        assert cur.fetchall() == ((Decimal("1.50"), "2024-01-02 03:04:05"),)
    assert victim_intact(loaded)


def test_hostile_values_through_sql_text_with_the_mysql_client(loaded):
    """The mysql command-line client sends the statement text; a quote inside a literal stays
    inside it, and the one-statement rule of prepared statements does not apply to scripts."""
    import subprocess

    client = require_mysql_client()
    script = "SELECT count(*) FROM t WHERE v = 'x\\'; DROP TABLE victim; SELECT \\'1';\n"
    done = subprocess.run(
        [client, "-h127.0.0.1", f"-P{loaded.port}", "-uroot", "-N", "-B", "h"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]
    assert victim_intact(loaded)


def read_result(client: RawClient) -> list[bytes]:
    """A result set's packets (column count, definitions, EOF, rows, EOF), or up to an error."""
    packets, eofs = [], 0
    while eofs < 2:
        packets.append(client.read_packet())
        if error_code(packets[-1]) is not None:
            break
        eofs += packets[-1][:1] == b"\xfe" and len(packets[-1]) < 9
    return packets


def _prepare(client: RawClient, sql: str) -> tuple[int, int]:
    client.send(bytes([COM_STMT_PREPARE]) + sql.encode())
    ok = client.read_packet()
    assert ok[0] == 0, ok
    stmt_id, _columns, params = struct.unpack("<IHH", ok[1:9])
    for _ in range(params + (1 if params else 0)):  # parameter definitions, then EOF
        client.read_packet()
    return stmt_id, params


def test_binary_parameters_of_every_type_and_malformed_executes(loaded):
    with RawClient(loaded.port) as client:
        assert client.login(database="h")[0] == 0
        stmt_id, params = _prepare(client, "SELECT ?")
        assert params == 1
        # a string parameter whose length runs past the end of the packet
        execute = struct.pack("<IBI", stmt_id, 0, 1) + b"\x00\x01" + b"\xfe\x00" + b"\xfc\xff\xff" + b"abc"
        client.send(bytes([COM_STMT_EXECUTE]) + execute)
        assert error_code(client.read_packet()) == 1835
        # an unknown statement id
        client.send(bytes([COM_STMT_EXECUTE]) + struct.pack("<IBI", 999, 0, 1))
        assert error_code(client.read_packet()) == 1243
        # long data in pieces, then the execute: the pieces are the value
        for piece in (b"x'; DROP TABLE ", b"victim; --"):
            client.send(bytes([COM_STMT_SEND_LONG_DATA]) + struct.pack("<IH", stmt_id, 0) + piece)
        client.send(bytes([COM_STMT_EXECUTE]) + struct.pack("<IBI", stmt_id, 0, 1) + b"\x00\x01" + b"\xfe\x00")
        packets = read_result(client)
        assert error_code(packets[-1]) is None
        assert any(b"x'; DROP TABLE victim; --" in p for p in packets)
        client.send(bytes([COM_STMT_RESET]) + struct.pack("<I", stmt_id))
        assert client.read_packet()[0] == 0
        client.send(bytes([COM_STMT_CLOSE]) + struct.pack("<I", stmt_id))  # no answer
        client.send(bytes([COM_STMT_FETCH]) + struct.pack("<II", stmt_id, 1))
        assert error_code(client.read_packet()) == 1243
    assert victim_intact(loaded)


def test_a_handshake_without_its_nul_does_not_freeze_the_server(loaded):
    """The issue's 33-byte packet: mysql-mimic's reader looped for ever on it, holding the GIL."""
    with RawClient(loaded.port) as client:
        client.read_packet()
        payload = b"\x85\xa6\x0f\x00" + bytes(4) + b"\x21" + bytes(23) + b"a"
        client.send(payload, seq=1)
        answer = client.read_packet()
        assert error_code(answer) == 1043 and b"Bad handshake" in answer
    started = time.monotonic()
    with loaded.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW DATABASES")
        assert ("h",) in cur.fetchall()
    assert time.monotonic() - started < 10


def test_an_empty_command_packet_is_malformed_not_an_internal_error(loaded):
    with RawClient(loaded.port) as client:
        assert client.login()[0] == 0
        client.send(b"")  # a command without its command byte
        assert error_code(client.read_packet()) == 1835
        assert client.read_until_closed() == []


def test_com_field_list_lists_every_column_and_quotes_the_name(loaded):
    with RawClient(loaded.port) as client:
        assert client.login(database="h")[0] == 0
        client.send(bytes([COM_FIELD_LIST]) + b"t\0")
        names = []
        while True:
            packet = client.read_packet()
            if packet[:1] in (b"\xfe", b"\x00") or error_code(packet):
                break
            names.append(packet)
        assert error_code(packet) is None
        assert len(names) == 2 and b"\x01k" in names[0] and b"\x01v" in names[1]
        client.send(bytes([COM_FIELD_LIST]) + b"t`; DROP TABLE victim; --\0")
        assert error_code(client.read_packet()) is not None
        client.send(bytes([COM_FIELD_LIST]) + b"no nul terminator")
        assert error_code(client.read_packet()) == 1835
    assert victim_intact(loaded)


def test_invalid_utf8_in_a_statement_is_named(loaded):
    with RawClient(loaded.port) as client:
        assert client.login()[0] == 0
        client.send(bytes([COM_QUERY]) + b"SELECT '\xff\xfe'")
        answer = client.read_packet()
        assert error_code(answer) == 1300
        assert b"Invalid utf8 character string: 'FF' in the statement" in answer  # the client's utf8
        assert b"/" not in answer.split(b"detailMessage")[-1]  # no server path
        client.send(bytes([COM_QUERY]) + b"SELECT 1")  # the connection goes on
        assert error_code(client.read_packet()) is None


def test_a_packet_over_max_allowed_packet_is_refused_at_its_header(loaded):
    """A 16 MiB piece, then a header announcing 16 MiB more: the server answers 1153 without
    waiting for (or holding) the second piece, and closes the connection."""
    with RawClient(loaded.port, timeout=60) as client:
        assert client.login()[0] == 0
        first = bytes([COM_QUERY]) + b"SELECT '" + b"a" * (0xFFFFFF - 9)
        client.send_raw(b"\xff\xff\xff\x00" + first)
        client.send_raw(b"\xff\xff\xff\x01")  # the second piece's header; its body never comes
        answer = client.read_packet()
        assert error_code(answer) == 1153 and b"max_allowed_packet" in answer
        assert client.read_until_closed() == []
    # before login the limit is far smaller: a 1 MiB "handshake" is refused the same way
    with RawClient(loaded.port) as client:
        client.read_packet()
        client.send_raw((1 << 20).to_bytes(3, "little") + b"\x01")
        assert error_code(client.read_packet()) == 1153


def test_users_see_and_kill_only_their_own_connections(loaded):
    with loaded.connect() as root, root.cursor() as cur:
        for user in ("kim", "lee"):
            cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
            cur.execute(f"GRANT SELECT_PRIV ON h.* TO '{user}'@'%'")
        kim = pymysql.connect(host="127.0.0.1", port=loaded.port, user="kim", password="pw")
        kim2 = pymysql.connect(host="127.0.0.1", port=loaded.port, user="kim", password="pw")
        lee = pymysql.connect(host="127.0.0.1", port=loaded.port, user="lee", password="pw")
        try:
            with lee.cursor() as lc:
                lc.execute("SHOW FULL PROCESSLIST")
                assert {row[2] for row in lc.fetchall()} == {"lee"}  # no root, no kim
                for statement in (f"KILL {kim.thread_id()}", f"KILL QUERY {root.thread_id()}"):
                    with pytest.raises(pymysql.MySQLError) as info:
                        lc.execute(statement)
                    target = statement.split()[-1]
                    assert info.value.args == (
                        1095,
                        f"errCode = 2, detailMessage = You are not owner of thread {target}",
                    )
            with kim.cursor() as kc:
                kc.execute("SHOW PROCESSLIST")
                assert sorted(row[1] for row in kc.fetchall()) == sorted([kim.thread_id(), kim2.thread_id()])
                kc.execute(f"KILL {kim2.thread_id()}")  # a user may end its own connections
            cur.execute("SHOW PROCESSLIST")  # ADMIN sees everyone
            users = {row[2] for row in cur.fetchall()}
            assert {"root", "kim", "lee"} <= users
            wait_until(
                lambda: kim2.thread_id() not in {row[1] for row in _processlist(cur)},
                10,
                "kim's killed connection to leave the process list",
                interval=0.1,
            )
            with kim.cursor() as kc:  # lee's refused KILL changed nothing
                kc.execute("SELECT 1")
                assert kc.fetchone() == (1,)
        finally:
            for conn in (kim, lee):
                conn.close()


def _processlist(cur) -> tuple:
    cur.execute("SHOW PROCESSLIST")
    return cur.fetchall()


def _mutations(rng: random.Random, valid: bytes) -> bytes:
    choice = rng.randrange(5)
    if choice == 0:  # truncated
        return valid[: rng.randrange(len(valid) + 1)]
    if choice == 1:  # bytes flipped
        data = bytearray(valid)
        for _ in range(rng.randrange(1, 6)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if choice == 2:  # garbage
        return rng.randbytes(rng.randrange(1, 200))
    if choice == 3:  # length fields at their extremes
        return valid + b"\xfe" + b"\xff" * 8
    return valid + rng.randbytes(rng.randrange(1, 50))  # trailing junk


#: Well-formed command packets the fuzzer mutates.
_COMMANDS = (
    bytes([COM_QUERY]) + b"SHOW DATABASES",
    bytes([COM_QUERY]) + b"\x01\x01\x00\x01\xfe\x00\x01a\x01b" + b"SELECT 1",  # with a query attribute
    bytes([COM_FIELD_LIST]) + b"t\0%",
    bytes([COM_CHANGE_USER]) + b"root\0\0h\0" + b"\x21\x00" + b"mysql_native_password\0",
    bytes([COM_STMT_PREPARE]) + b"SELECT ? FROM t WHERE k = ?",
    bytes([COM_STMT_EXECUTE])
    + struct.pack("<IBI", 1, 0, 1)
    + b"\x00\x01\xfe\x00\x08\x00\x01a"
    + (5).to_bytes(8, "little"),
    bytes([COM_STMT_SEND_LONG_DATA]) + struct.pack("<IH", 1, 0) + b"abc",
    bytes([COM_STMT_FETCH]) + struct.pack("<II", 1, 5),
    bytes([COM_STMT_RESET]) + struct.pack("<I", 1),
)


def _drain(client: RawClient) -> None:
    """Read what the server answers to one fuzzed packet: it answers at once or not at all
    (COM_STMT_CLOSE and COM_STMT_SEND_LONG_DATA have no answer)."""
    wait = 0.5
    try:
        while True:
            client.sock.settimeout(wait)
            client.read_packet()
            wait = 0.05
    except TimeoutError:
        pass
    finally:
        client.sock.settimeout(20)


def test_fuzzed_connection_and_command_phases(loaded):
    """Malformed logins and commands for a bounded time; a watcher checks throughout that the
    server answers a real client within 10 s. Meanwhile a client that never logs in is
    disconnected after MySQL's connect_timeout (10 s)."""
    rng = random.Random(25)
    stop = threading.Event()
    slow: list[float] = []
    silent = RawClient(loaded.port, timeout=30)
    silent.read_packet()  # the server's handshake; this client says nothing
    silent_since = time.monotonic()
    silent_closed: list[float] = []

    def wait_for_close() -> None:
        silent.read_until_closed()
        silent_closed.append(time.monotonic() - silent_since)

    closer = threading.Thread(target=wait_for_close)
    closer.start()

    def watch() -> None:
        while not stop.is_set():
            started = time.monotonic()
            try:
                with loaded.connect(connect_timeout=10, read_timeout=10) as conn, conn.cursor() as cur:
                    cur.execute("SHOW DATABASES")
                    cur.fetchall()
            except pymysql.MySQLError as exc:
                slow.append(float("inf"))
                print("watcher:", exc)
            slow.append(time.monotonic() - started)
            stop.wait(0.5)

    watcher = threading.Thread(target=watch)
    watcher.start()
    deadline = time.monotonic() + 15
    logins = commands = 0
    try:
        while time.monotonic() < deadline:
            for _ in range(3):
                with RawClient(loaded.port, timeout=20) as client:  # the connection phase
                    client.read_packet()
                    packet = _mutations(rng, handshake_response(database=rng.choice([None, "h", "nope"])))
                    seq = rng.choice([1, 1, 1, 0, 7])
                    client.send_raw(frame(packet, seq) if rng.random() < 0.9 else rng.randbytes(rng.randrange(1, 9)))
                    client.sock.shutdown(socket.SHUT_WR)
                    client.read_until_closed()
                    logins += 1
            with RawClient(loaded.port, timeout=20) as client:  # the command phase, logged in
                if client.login(database="h")[0] != 0:
                    continue
                for _ in range(10):
                    client.send(_mutations(rng, rng.choice(_COMMANDS)))
                    try:
                        _drain(client)
                    except (ConnectionError, OSError):
                        break  # the server may end a connection that broke the protocol
                    commands += 1
    finally:
        stop.set()
        watcher.join(timeout=30)
        closer.join(timeout=30)
        silent.close()
    assert logins >= 20 and commands >= 60, (logins, commands)
    assert slow and max(slow) < 10, slow
    assert len(silent_closed) == 1 and 8 < silent_closed[0] < 20, silent_closed
    # every malformed packet was answered as one, none as an internal error of the server
    log = loaded.warehouse.parent / "home" / ".local" / "state" / "dorisql" / "dorisql.log"
    assert "Traceback" not in (log.read_text() if log.exists() else ""), log.read_text()
    assert victim_intact(loaded)


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = open(f"/proc/{entry}/status").read()
            except OSError:
                continue
            if f"\nPPid:\t{pid}\n" in status:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie (dead, waiting for its parent to reap it)."""
    try:
        status = open(f"/proc/{pid}/status").read()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def test_a_killed_spark_driver_is_replaced_and_the_server_goes_on(loaded):
    """The driver JVM dies (an out-of-memory exits it; here SIGKILL): the next statement that
    needs Spark starts a new one instead of hanging, and says so in the server's log."""
    with loaded.connect(database="h") as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM victim")  # Spark is up
        assert cur.fetchone() == (1,)
    jvms = [pid for pid in _children(loaded.process.pid) if b"java" in open(f"/proc/{pid}/cmdline", "rb").read()]
    assert len(jvms) == 1, jvms
    os.kill(jvms[0], signal.SIGKILL)
    # the kill takes effect a moment later: until then it runs
    wait_until(lambda: not _running(jvms[0]), 30, "the killed driver JVM to stop running")
    with loaded.connect(database="h", read_timeout=300) as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM victim")
        assert cur.fetchone() == (1,)
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (len(HOSTILE),)
    assert "Spark's driver had stopped (out of memory, or killed); starting a new one" in loaded.output()


def test_sigterm_stops_the_server_after_the_attacks(loaded):
    """Last in the module: after everything above, SIGTERM still stops the server at once."""
    loaded.process.send_signal(signal.SIGTERM)
    assert loaded.process.wait(timeout=30) == 0, loaded.output()
    assert "Traceback" not in loaded.output()
