"""The MySQL protocol of ``dorisql server`` (Doris FE's query port), on mysql-mimic.

mysql-mimic speaks the wire protocol (handshake, mysql_native_password, packets, prepared
statements); everything a client sends as SQL goes to dorisql's own parser and one `Engine` per
connection, never to sqlglot's MySQL dialect (Doris DDL is not MySQL). What stays here:

- what a client needs to connect and that has no place in the engine: ``SET NAMES``,
  ``SET TRANSACTION`` (BEGIN / COMMIT / ROLLBACK are the engine's: statements.load.transaction); the
  engine answers ``@@variables``, ``DATABASE()``, ``CONNECTION_ID()`` (the connection's id),
  SHOW VARIABLES and SHOW WARNINGS (dorisql.translate.variables, dorisql.statements.show.client_metadata);
- what belongs to connections: ``KILL [QUERY|CONNECTION] id`` and ``SHOW [FULL] PROCESSLIST``;
- errors as Doris sends them (`ERROR_CODES`: code, SQLSTATE, ``errCode = 2, detailMessage =
  ...``); an unexpected exception becomes one generic 1105 line, its traceback goes to the log;
- result columns with MySQL types (from the Spark types of a SELECT, else from the values), so
  drivers return int, Decimal, date and datetime.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import datetime as dt
import decimal
import functools
import itertools
import logging
import re
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mysql_mimic import packets
from mysql_mimic.auth import AuthInfo, AuthState, Forbidden, IdentityProvider, NativePasswordAuthPlugin, Success, User
from mysql_mimic.charset import CharacterSet
from mysql_mimic.connection import Connection
from mysql_mimic.constants import DEFAULT_SERVER_CAPABILITIES, KillKind
from mysql_mimic.control import LocalControl
from mysql_mimic.errors import MysqlError
from mysql_mimic.results import ResultColumn, ResultSet
from mysql_mimic.session import BaseSession
from mysql_mimic.stream import ConnectionClosed, MysqlStream
from mysql_mimic.types import Capabilities, ColumnDefinition, ColumnType, ServerStatus, uint_len
from mysql_mimic.variables import SYSTEM_VARIABLES, Variables, VariableSchema

from dorisql import ast, logfile
from dorisql.engine import Engine
from dorisql.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    AuthenticationError,
    CancelledError,
    DorisqlError,
    NoDatabaseSelectedError,
    NotSupportedError,
    ReadOnlyWarehouseError,
    SqlSyntaxError,
    StatementTooLargeError,
    UnknownColumnError,
    UnknownDatabaseError,
    UnknownTableError,
)
from dorisql.result import Float32, Result, ScaledDatetime, render_value
from dorisql.server import wire
from dorisql.server.context import SHUTDOWN_GRACE_SECONDS, ServerContext
from dorisql.server.framing import CONNECT_TIMEOUT_SECONDS, HANDSHAKE_MAX_BYTES, LimitedStream, PacketTooLarge
from dorisql.session import failures
from dorisql.session.visibility import Visibility
from dorisql.syntax import parse_one
from dorisql.syntax.generator import quote_name
from dorisql.syntax.input_limits import MAX_STATEMENT_BYTES
from dorisql.translate.variables import MYSQL_VERSION, VERSION_COMMENT

log = logging.getLogger("dorisql.server")
# mysql-mimic logs every refused statement and unexpected exception itself; the server reports
# those (ServerConnection.error), so its own logger stays quiet.
logging.getLogger("mysql_mimic").setLevel(logging.CRITICAL + 1)

# ---------------------------------------------------------------------------------- errors

#: dorisql's errors as Doris reports them over MySQL, first match wins (Doris fe-core
#: common/ErrorCode.java: ERR_BAD_DB_ERROR 1049 42000, ERR_BAD_TABLE_ERROR 1051 42S02,
#: ERR_TABLE_EXISTS_ERROR 1050 42S01, ERR_BAD_FIELD_ERROR 1054 42S22, ERR_NO_DB_ERROR 1046
#: 3D000, ERR_NOT_SUPPORTED_YET 1235 42000, ERR_OPTION_PREVENTS_STATEMENT 1290 HY000,
#: ERR_ACCESS_DENIED_ERROR 1045 28000, ERR_SPECIFIC_ACCESS_DENIED_ERROR 1227 42000; syntax errors
#: 1064 42000; everything else ERR_UNKNOWN_ERROR 1105 HY000, as Doris reports an
#: AnalysisException or a failed load). An error raised with its own code (``err.code = 1225``:
#: a privilege on a database) keeps it.
ERROR_CODES: tuple[tuple[type[DorisqlError], int, str], ...] = (
    (SqlSyntaxError, 1064, "42000"),
    (UnknownDatabaseError, 1049, "42000"),
    (UnknownTableError, 1051, "42S02"),
    (AlreadyExistsError, 1050, "42S01"),
    (UnknownColumnError, 1054, "42S22"),
    (NoDatabaseSelectedError, 1046, "3D000"),
    (NotSupportedError, 1235, "42000"),
    (ReadOnlyWarehouseError, 1290, "HY000"),
    (StatementTooLargeError, 1153, "08S01"),  # ER_NET_PACKET_TOO_LARGE
    (CancelledError, 1317, "70100"),  # ER_QUERY_INTERRUPTED (KILL QUERY)
    (AuthenticationError, 1045, "28000"),
    (AccessDeniedError, 1227, "42000"),
    (DorisqlError, 1105, "HY000"),
)

#: Codes the protocol layer raises itself (ErrorCode.java), with their SQLSTATE.
ER_ACCESS_DENIED = 1045  # ERR_ACCESS_DENIED_ERROR
ER_UNKNOWN_COM = 1047  # ERR_UNKNOWN_COM_ERROR
ER_NO_SUCH_THREAD = 1094  # ERR_NO_SUCH_THREAD
ER_KILL_DENIED = 1095  # ERR_KILL_DENIED_ERROR
ER_UNKNOWN_ERROR = 1105
ER_UNKNOWN_CHARACTER_SET = 1115  # ERR_UNKNOWN_CHARACTER_SET
ER_NET_PACKET_TOO_LARGE = 1153
ER_INVALID_CHARACTER_STRING = 1300
ER_MALFORMED_PACKET = 1835
ER_HANDSHAKE_ERROR = 1043
ER_UNKNOWN_STMT_HANDLER = 1243

#: The largest packet a logged-in client may send: a statement of the longest length
#: (syntax.input_limits, Doris's max_allowed_packet) with its command byte and query attributes.
MAX_PACKET_BYTES = MAX_STATEMENT_BYTES + 64 * 1024

SQLSTATES: dict[int, str] = {
    **{code: state for _cls, code, state in reversed(ERROR_CODES)},
    ER_UNKNOWN_COM: "08S01",
    ER_HANDSHAKE_ERROR: "08S01",
    ER_NET_PACKET_TOO_LARGE: "08S01",
    ER_UNKNOWN_CHARACTER_SET: "42000",
    1040: "08004",  # ER_CON_COUNT_ERROR
}

#: What a client sees for an exception dorisql did not raise on purpose (the log has the rest).
INTERNAL_ERROR = "Unexpected exception: internal error in dorisql server (the details are in its log file)"


class DorisError(MysqlError):
    """A MySQL error with its SQLSTATE."""

    def __init__(self, msg: str, code: int, sqlstate: str | None = None):
        super().__init__(msg, code=code)
        self.sqlstate = sqlstate or SQLSTATES.get(code, "HY000")


def doris_message(message: str) -> str:
    """Doris's wording of an error sent to a client (UserException.getMessage)."""
    return f"errCode = 2, detailMessage = {message}"


def doris_code(err: DorisqlError) -> tuple[int, str]:
    if err.code != type(err).code:  # set for this one error
        return err.code, err.sqlstate
    return next((code, state) for cls, code, state in ERROR_CODES if isinstance(err, cls))


def protocol_error(err: DorisqlError) -> DorisError:
    """The MySQL error for a dorisql error: code from `doris_code`, the message in Doris's
    wording, the caret context of a syntax error on the lines below it."""
    code, sqlstate = doris_code(err)
    message = failures.for_remote_client(err.message or str(err))  # the log is the server's
    if err.context:
        message += "\n" + err.context.rstrip("\n")
    return DorisError(doris_message(message), code, sqlstate)


def error_packet(capabilities: Capabilities, charset: CharacterSet, code: int, message: str, sqlstate: str) -> bytes:
    head = bytes([0xFF]) + code.to_bytes(2, "little")
    if Capabilities.CLIENT_PROTOCOL_41 in capabilities:
        head += b"#" + sqlstate.encode("ascii")
    return head + charset.encode(message)


# ---------------------------------------------------------------------------------- variables

#: The variables mysql-mimic keeps for the connection itself (character sets after SET NAMES,
#: the handshake's server version), with Doris's values (dorisql.translate.variables). Everything
#: else a client reads (``@@x``, SHOW VARIABLES, DATABASE()) the engine answers.
DORIS_VARIABLES: dict[str, VariableSchema] = {
    "version": (str, MYSQL_VERSION, False),
    "version_comment": (str, VERSION_COMMENT, False),
}


class DorisVariables(Variables):
    def __init__(self) -> None:
        super().__init__()
        self._schema: dict[str, VariableSchema] = {**SYSTEM_VARIABLES, **DORIS_VARIABLES}

    @property
    def schema(self) -> dict[str, VariableSchema]:
        return self._schema


# ---------------------------------------------------------------------------------- columns


@dataclass(frozen=True)
class ColumnMeta:
    """One result column as a MySQL column definition."""

    name: str
    type: ColumnType
    length: int = 65533
    decimals: int = 0

    @property
    def numeric_or_temporal(self) -> bool:
        return self.type not in (ColumnType.VAR_STRING, ColumnType.STRING, ColumnType.BLOB, ColumnType.NULL)

    def definition(self, server_charset: CharacterSet) -> bytes:
        return _column_definition(self, server_charset)

    def _definition(self, server_charset: CharacterSet) -> bytes:
        binary = self.numeric_or_temporal or self.type == ColumnType.BLOB
        flags = ColumnDefinition(0)
        if binary:
            flags |= ColumnDefinition.BINARY_FLAG
        if self.type in _NUMERIC:
            flags |= ColumnDefinition.NUM_FLAG
        return packets.make_column_definition_41(
            server_charset=server_charset,
            name=self.name,
            column_type=self.type,
            character_set=CharacterSet.binary if binary else CharacterSet.utf8mb4,
            column_length=self.length,
            flags=flags,
            decimals=self.decimals,
        )

    def result_column(self) -> ResultColumn:
        return ResultColumn(name=self.name, type=self.type)


@functools.lru_cache(maxsize=4096)
def _column_definition(meta: ColumnMeta, server_charset: CharacterSet) -> bytes:
    """A column definition packet, built once per column shape: every point query's result has
    the same columns, and building one is a tenth of a millisecond (mysql-mimic's packet code)."""
    return meta._definition(server_charset)


_NUMERIC = frozenset(
    {
        ColumnType.TINY,
        ColumnType.SHORT,
        ColumnType.LONG,
        ColumnType.LONGLONG,
        ColumnType.FLOAT,
        ColumnType.DOUBLE,
        ColumnType.NEWDECIMAL,
    }
)

#: Spark SQL type names (DataType.simpleString) → MySQL column type and display length, as
#: Doris sends its types (BOOLEAN is TINYINT(1), LARGEINT arrives as decimal(38,0)).
_SPARK_TYPES: dict[str, tuple[ColumnType, int]] = {
    "boolean": (ColumnType.TINY, 1),
    "tinyint": (ColumnType.TINY, 4),
    "smallint": (ColumnType.SHORT, 6),
    "int": (ColumnType.LONG, 11),
    "bigint": (ColumnType.LONGLONG, 20),
    "float": (ColumnType.FLOAT, 12),
    "double": (ColumnType.DOUBLE, 22),
    "date": (ColumnType.DATE, 10),
    "timestamp": (ColumnType.DATETIME, 26),
    "timestamp_ntz": (ColumnType.DATETIME, 26),
    "binary": (ColumnType.BLOB, 65535),
}
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")


def _decimal_scale(values: Sequence[Any]) -> int:
    exponents = [v.as_tuple().exponent for v in values if isinstance(v, decimal.Decimal) and v.is_finite()]
    return max([0, *(-e for e in exponents if isinstance(e, int))])


def column_from_spark(name: str, spark_type: str, values: Sequence[Any]) -> ColumnMeta:
    spark_type = spark_type.lower()
    match = _DECIMAL.fullmatch(spark_type)
    if match:
        precision, scale = int(match.group(1)), int(match.group(2))
        return ColumnMeta(name, ColumnType.NEWDECIMAL, precision + (1 if scale else 0) + 1, scale)
    known = _SPARK_TYPES.get(spark_type)
    if known is None:  # strings, and arrays/maps/structs sent as their JSON text
        return ColumnMeta(name, ColumnType.VAR_STRING)
    mysql_type, length = known
    decimals = 0
    if mysql_type == ColumnType.DATETIME:
        scales = {v.scale for v in values if isinstance(v, ScaledDatetime)}
        if scales:  # DATETIME(p): Doris sends p as the column's decimals
            decimals = max(scales)
        else:
            decimals = 6 if any(isinstance(v, dt.datetime) and v.microsecond for v in values) else 0
        length = 19 + (decimals + 1 if decimals else 0)
    return ColumnMeta(name, mysql_type, length, decimals)


def column_from_values(name: str, values: Sequence[Any]) -> ColumnMeta:
    """A column's type from its values, for results that do not carry types (SHOW ...)."""
    sample = next((v for v in values if v is not None), None)
    if isinstance(sample, bool):
        return ColumnMeta(name, ColumnType.TINY, 1)
    if isinstance(sample, int):
        return ColumnMeta(name, ColumnType.LONGLONG, 20)
    if isinstance(sample, Float32):
        return ColumnMeta(name, ColumnType.FLOAT, 12)
    if isinstance(sample, float):
        return ColumnMeta(name, ColumnType.DOUBLE, 22)
    if isinstance(sample, decimal.Decimal):
        scale = _decimal_scale(values)
        return ColumnMeta(name, ColumnType.NEWDECIMAL, 38 + 2, scale)
    if isinstance(sample, dt.datetime):
        return column_from_spark(name, "timestamp", values)
    if isinstance(sample, dt.date):
        return ColumnMeta(name, ColumnType.DATE, 10)
    return ColumnMeta(name, ColumnType.VAR_STRING)


def result_columns(result: Result) -> list[ColumnMeta]:
    names = list(result.columns or [])
    types = list(result.column_types or [])
    columns = []
    for i, name in enumerate(names):
        values = [row[i] for row in result.rows]
        if i < len(types) and types[i]:
            columns.append(column_from_spark(str(name), types[i], values))
        else:
            columns.append(column_from_values(str(name), values))
    return columns


def typed_result_set(result: Result) -> ResultSet:
    """A query's result as mysql-mimic's ResultSet, with its typed columns."""
    columns = [meta.result_column() for meta in result_columns(result)]
    return ResultSet(rows=[tuple(row) for row in result.rows], columns=columns)


def text_row(row: Sequence[Any]) -> tuple[str | None, ...]:
    """A row in the text protocol: each value as the shell shows it, NULL as NULL."""
    return tuple(None if value is None else render_value(value) for value in row)


# ---------------------------------------------------------------------------------- statements

_LEADING_COMMENTS = re.compile(r"\A(?:\s+|/\*.*?\*/|(?:--|#)[^\n]*\n)*", re.S)
_KILL = re.compile(r"KILL\s+(?:(QUERY|CONNECTION)\s+)?(\S+)", re.I)
_PROCESSLIST = re.compile(r"SHOW\s+(FULL\s+)?PROCESSLIST", re.I)
_SET_NAMES = re.compile(r"SET\s+(?:NAMES|CHARACTER\s+SET|CHARSET)\s+(.+)", re.I | re.S)
_SET_TRANSACTION = re.compile(r"SET\s+(?:(?:SESSION|GLOBAL|LOCAL)\s+)?TRANSACTION\b.*", re.I | re.S)


def statement_text(sql: str) -> str:
    """The statement without leading comments, trailing semicolons and spaces."""
    text = _LEADING_COMMENTS.sub("", sql, count=1)
    return text.strip().rstrip(";").strip()


@dataclass
class ConnectionState:
    """What SHOW PROCESSLIST shows of one connection (Doris 2.1's ShowProcesslistStmt columns)."""

    id: int
    user: str
    host: str
    login_time: dt.datetime
    command: str = "Sleep"
    started: float = field(default_factory=time.monotonic)
    state: str = "OK"
    query_id: str = ""
    info: str = ""


PROCESSLIST_COLUMNS = (
    "CurrentConnected",
    "Id",
    "User",
    "Host",
    "LoginTime",
    "Catalog",
    "Db",
    "Command",
    "Time",
    "State",
    "QueryId",
    "Info",
)


def _query_id() -> str:
    hex_id = uuid.uuid4().hex
    return f"{hex_id[:16]}-{hex_id[16:]}"


class Connections:
    """The open connections of one listener, by connection id (KILL, SHOW PROCESSLIST)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[int, ServerSession] = {}
        self._ids = itertools.count(1)

    def next_id(self) -> int:
        return next(self._ids)

    def add(self, session: ServerSession) -> None:
        with self._lock:
            self._sessions[session.state.id] = session

    def remove(self, session: ServerSession) -> None:
        with self._lock:
            self._sessions.pop(session.state.id, None)

    def get(self, connection_id: int) -> ServerSession | None:
        with self._lock:
            return self._sessions.get(connection_id)

    def all(self) -> list[ServerSession]:
        with self._lock:
            return sorted(self._sessions.values(), key=lambda s: s.state.id)


class ServerSession(BaseSession):
    """One client connection: its engine (current database, session variables, Spark job group)
    and the one worker thread its statements run on, in order."""

    def __init__(self, context: ServerContext, connections: Connections):
        self.context = context
        self.connections = connections
        self.variables = DorisVariables()
        self.username: str | None = None
        self.database: str | None = None
        self.engine: Engine | None = None
        #: Who logged in (dorisql.session.access); the engine checks every statement against it.
        self.identity: ast.UserIdentity | None = None
        self.state = ConnectionState(id=0, user="", host="", login_time=dt.datetime.now())
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="dorisql-conn")
        #: Held while a statement starts or ends and while KILL cancels: a cancel meant for one
        #: statement never reaches the connection's next one.
        self._statement_lock = threading.Lock()
        self._connection: ServerConnection | None = None
        #: This connection's Spark FAIR scheduler pool (ServerContext.pools), once logged in.
        self.pool: str | None = None

    # ------------------------------------------------------------------ lifecycle

    async def init(self, connection: Connection) -> None:
        assert isinstance(connection, ServerConnection)
        self._connection = connection
        peer = connection.stream.writer.get_extra_info("peername") or ("", 0)
        self.state = ConnectionState(
            id=connection.connection_id,
            user=self.username or "",
            host=f"{peer[0]}:{peer[1]}",
            login_time=dt.datetime.now(),
        )
        self.pool = self.context.pools.take()
        engine = await self.in_worker(self.context.new_engine, self.pool)
        engine.user = self.identity
        engine.connection_id = connection.connection_id  # CONNECTION_ID(), KILL, SHOW PROCESSLIST
        engine.process_rows = self.process_rows  # information_schema.processlist
        if connection.login_database:
            await self.in_worker(self._use, engine, connection.login_database)
        self.engine = engine
        self.variables.engine = engine
        self.connections.add(self)

    async def reset(self) -> None:
        """COM_CHANGE_USER: the new user, and the database it named."""
        self.state.user = self.username or ""
        if self.engine is not None:
            self.engine.user = self.identity
        if self.engine is not None and self.database and self.database != self.engine.current_db:
            await self.use(self.database)

    async def close(self) -> None:
        self.connections.remove(self)
        engine = self.engine
        if engine is not None:
            engine.cancel()
            try:
                await self.in_worker(engine.close)
            except Exception:  # closing a session must never fail the server
                pass
        if self.pool is not None:
            self.context.pools.give_back(self.pool)
            self.pool = None
        self._worker.shutdown(wait=False)

    def end_statement(self, timeout: float) -> None:
        """The server is stopping: cancel the statement running on this connection, every half
        second until it has ended or `timeout` passed (from another thread). Its Spark jobs are
        cancelled again and again because a job that starts after a cancel is not cancelled by
        it; KILL's repeated cancel (`cancel_statement`) cannot do it here, as it watches the
        connection's task, which the stop has already ended while the worker still runs."""
        done = threading.Event()
        try:
            self._worker.submit(done.set)
        except RuntimeError:  # already shut down: nothing runs
            return
        deadline = time.monotonic() + timeout
        while not done.wait(max(min(0.5, deadline - time.monotonic()), 0.0)):
            if time.monotonic() >= deadline:
                return
            engine = self.engine
            if engine is not None:
                engine.cancel()

    def cancel_statement(self) -> None:
        """Cancel the running statement (KILL): its Spark jobs now, and again every half second
        until it has ended, since a job that starts after a cancel is not cancelled by it."""
        engine, query_id = self.engine, self.state.query_id
        if engine is None:
            return

        def cancel_if_running() -> bool:
            with self._statement_lock:  # the statement cannot end (and the next start) meanwhile
                running = self.state.command == "Query" and self.state.query_id == query_id
                if running:
                    engine.cancel()
                return running

        if not cancel_if_running():
            return

        def keep_cancelling() -> None:
            while True:
                time.sleep(0.5)
                if not cancel_if_running():
                    return

        threading.Thread(target=keep_cancelling, name="dorisql-kill", daemon=True).start()

    async def _execute_watched(self, sql: str, single: bool) -> tuple[list[Result], DorisqlError | None]:
        """`_execute` on the worker; a client that hangs up meanwhile cancels the statement
        (nobody is left to read its result)."""
        # The executor's own future, not a task around a coroutine: one object fewer per statement.
        future = asyncio.get_running_loop().run_in_executor(self._worker, self._execute, sql, single)
        reader = self._connection.stream.reader if self._connection is not None else None
        while True:
            done, _pending = await asyncio.wait({future}, timeout=0.5)
            if done:
                return future.result()
            if reader is not None and reader.at_eof():
                self.cancel_statement()
                reader = None

    async def in_worker(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._worker, fn, *args)

    @property
    def current_db(self) -> str | None:
        return self.engine.current_db if self.engine is not None else self.database

    # ------------------------------------------------------------------ statements

    async def run(self, sql: str, *, single: bool = False) -> tuple[list[Result], MysqlError | None]:
        """A COM_QUERY: its results in order, and the error that stopped it, if any. `single`
        (prepared statements, COM_FIELD_LIST): the text must hold exactly one statement."""
        state = self.state
        with self._statement_lock:
            state.command, state.started, state.info, state.query_id = "Query", time.monotonic(), sql, _query_id()
        state.state = "OK"  # Doris resets the state when a command starts
        results: list[Result] = []
        error: MysqlError | None = None
        try:
            answered = self.answer(sql)
            if answered is not None:
                results = [answered]
            else:
                results, failure = await self._execute_watched(sql, single)
                if failure is not None:
                    raise failure
        except DorisqlError as err:
            error = protocol_error(err)
        except MysqlError as err:
            error = err
        finally:
            with self._statement_lock:
                state.command, state.started = "Sleep", time.monotonic()
        state.state = "ERR" if error is not None else ("EOF" if results and results[-1].is_query else "OK")
        return results, error

    async def handle_query(self, sql: str, attrs: dict[str, str], *, single: bool = True) -> ResultSet:
        """mysql-mimic's entry (prepared statements): the one statement's result, typed."""
        results, error = await self.run(sql, single=single)
        if error is not None:
            raise error
        if not results or not results[-1].is_query:
            return ResultSet([], [])
        return typed_result_set(results[-1])

    async def use(self, database: str) -> None:
        """COM_INIT_DB (the mysql client's ``use db``)."""
        assert self.engine is not None
        try:
            await self.in_worker(self._use, self.engine, database)
        except DorisqlError as err:
            raise protocol_error(err) from None

    @staticmethod
    def _use(engine: Engine, database: str) -> None:
        engine.execute(parse_one("USE " + quote_name(database)))

    def _execute(self, sql: str, single: bool = False) -> tuple[list[Result], DorisqlError | None]:
        """On the worker: parse with dorisql's grammar and run each statement."""

        engine = self.engine
        assert engine is not None
        statements = engine.parse(sql)  # a KILL stops even the reading of a 16 MiB statement
        if single and len(statements) != 1:
            return [], SqlSyntaxError("A prepared statement holds exactly one statement")
        results: list[Result] = []
        self.context.running(engine, True)
        try:
            for statement in statements:
                if self.context.stopping.is_set():
                    raise CancelledError()
                try:
                    results.append(engine.execute(statement))
                except DorisqlError as err:
                    return results, err
                except Exception as exc:  # an engine bug: one line for the client, the detail in the log
                    return results, failures.translate(exc, warehouse=engine.warehouse, statement=statement.text)
        finally:
            self.context.running(engine, False)
        return results or [Result.ok()], None

    # ------------------------------------------------------------------ protocol statements

    def answer(self, sql: str) -> Result | None:
        """The statements this layer answers itself (see the module docstring), else None."""
        text = statement_text(sql)
        match = _KILL.fullmatch(text)
        if match:
            return self.kill(match.group(1), match.group(2))
        match = _PROCESSLIST.fullmatch(text)
        if match:
            return self.processlist(full=bool(match.group(1)))
        match = _SET_NAMES.fullmatch(text)
        if match:
            return self.set_names(match.group(1))
        if _SET_TRANSACTION.fullmatch(text):
            return Result.ok()  # an isolation level: accepted, as Doris does
        return None

    def kill(self, kind: str | None, target: str) -> Result:
        try:
            connection_id = int(target)
        except ValueError:
            raise DorisError(doris_message(f"Unknown thread id: {target}"), ER_NO_SUCH_THREAD) from None
        victim = self.connections.get(connection_id)
        if victim is None:
            raise DorisError(doris_message(f"Unknown thread id: {connection_id}"), ER_NO_SUCH_THREAD)
        if victim.state.user != self.state.user and not self.is_admin():
            raise DorisError(doris_message(f"You are not owner of thread {connection_id}"), ER_KILL_DENIED)
        victim.cancel_statement()
        if (kind or "CONNECTION").upper() == "CONNECTION" and victim._connection is not None:
            victim._connection.kill(KillKind.CONNECTION)
        return Result.ok()

    def processlist(self, *, full: bool) -> Result:
        rows = [
            tuple(row[c] if c != "Info" or full else row[c][:100] for c in PROCESSLIST_COLUMNS)
            for row in self.process_rows()
        ]
        return Result.table(PROCESSLIST_COLUMNS, rows)

    def process_rows(self) -> list[dict[str, Any]]:
        """The connections this one may see, by information_schema.processlist's column names
        (SHOW PROCESSLIST shows the same minus TraceId, FE and CloudCluster)."""
        now = time.monotonic()
        rows = []
        everyone = self.is_admin()
        for session in self.connections.all():
            state = session.state
            if not everyone and state.user != self.state.user:
                continue  # Doris shows other users' connections to ADMIN only
            rows.append(
                {
                    "CurrentConnected": "Yes" if session is self else "No",
                    "Id": state.id,
                    "User": state.user,
                    "Host": state.host,
                    "LoginTime": state.login_time.replace(microsecond=0),
                    "Catalog": "internal",
                    "Db": session.current_db or "",
                    "Command": state.command,
                    "Time": int(now - state.started),
                    "State": state.state,
                    "QueryId": state.query_id,
                    "TraceId": "",
                    "Info": state.info,
                    "FE": "",
                    "CloudCluster": "",
                }
            )
        return rows

    def is_admin(self) -> bool:
        """Whether this connection's user sees everything (ADMIN): every connection in SHOW
        PROCESSLIST, and may KILL any of them (dorisql.session.visibility, the one door)."""

        engine = self.engine
        if engine is None or self.identity is None:
            return False
        return Visibility.for_identity(engine.catalog, self.identity).everything

    def set_names(self, rest: str) -> Result:
        words = re.split(r"\s+", rest.strip())
        name = words[0].strip("'\"`").lower()
        if name == "default":
            charset = CharacterSet.utf8mb4
        else:
            try:
                charset = CharacterSet[name]
            except KeyError:
                raise DorisError(doris_message(f"Unknown character set: '{name}'"), ER_UNKNOWN_CHARACTER_SET) from None
        for variable in ("character_set_client", "character_set_connection", "character_set_results"):
            self.variables.set(variable, charset.name)
        if len(words) >= 3 and words[1].upper() == "COLLATE":
            self.variables.set("collation_connection", words[2].strip("'\"`"))
        else:
            self.variables.set("collation_connection", charset.default_collation.name)
        return Result.ok()


# ---------------------------------------------------------------------------------- identity


#: The client address of the connection being authenticated, and the identity its login
#: gave (each connection runs in its own asyncio task, so its own context).
_CLIENT_HOST: contextvars.ContextVar[str] = contextvars.ContextVar("dorisql_client_host", default="")
_IDENTITY: contextvars.ContextVar[ast.UserIdentity | None] = contextvars.ContextVar("dorisql_identity", default=None)


class DorisNativePassword(NativePasswordAuthPlugin):
    """mysql_native_password checked by the server's `Authenticator` (the catalog's users),
    refusing with Doris's message ("Access denied for user 'u'@'host' (using password: YES)")."""

    def __init__(self, context: ServerContext):
        self.context = context

    async def auth(self, auth_info: AuthInfo | None = None) -> AuthState:
        if auth_info and auth_info.handshake_plugin_name == self.name and auth_info.handshake_auth_data:
            nonce = auth_info.handshake_auth_data.rstrip(b"\x00")
        else:
            from mysql_mimic import utils

            nonce = utils.nonce(20)
            auth_info = yield nonce + b"\x00"
        assert auth_info is not None
        try:
            identity = self.context.authenticator.login_native(
                auth_info.username, _CLIENT_HOST.get(), nonce, auth_info.data
            )
        except AuthenticationError as err:
            yield Forbidden(err.message)
        except DorisqlError as err:  # the users could not be read (a catalog server that is down)
            raise DorisError(doris_message(f"Cannot check the login now: {err.message}"), ER_UNKNOWN_ERROR) from None
        else:
            _IDENTITY.set(identity)
            yield Success(auth_info.username)


class DorisIdentity(IdentityProvider):
    def __init__(self, context: ServerContext):
        self.plugin = DorisNativePassword(context)

    def get_plugins(self):
        return [self.plugin]

    async def get_user(self, username: str) -> User | None:
        # Every name reaches the plugin, which refuses unknown users with the same message as a
        # wrong password (no hint which names exist).
        return User(name=username, auth_plugin=self.plugin.name)


# ---------------------------------------------------------------------------------- connection


class _LoginRefused(Exception):
    """The login failed and the client has been told; end the connection quietly."""


class ServerConnection(Connection):
    """mysql-mimic's connection with Doris's errors, typed result columns, affected rows and
    several result sets for one COM_QUERY."""

    session: ServerSession

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.login_database: str | None = None
        self._checking_login = False
        self._login_refused = False

    @property
    def status_flags(self) -> int:
        """Every OK/EOF packet's server status, as Doris sends it: AUTOCOMMIT, and IN_TRANS while
        the connection has a transaction open (BEGIN ... COMMIT); drivers read it from there."""
        engine = getattr(getattr(self, "session", None), "engine", None)
        if getattr(engine, "transaction", None) is not None:
            return ServerStatus.SERVER_STATUS_AUTOCOMMIT | ServerStatus.SERVER_STATUS_IN_TRANS
        return ServerStatus.SERVER_STATUS_AUTOCOMMIT

    @status_flags.setter
    def status_flags(self, _value: int) -> None:
        pass  # mysql-mimic's initial value: computed above instead

    async def authenticate(self, username, auth_response, client_plugin_name, connect_attrs, *args, **kwargs):
        # The database a client names at login must exist (Doris answers 1049 after a correct
        # password); the check runs where mysql-mimic would send its OK, see ok().
        peer = self.stream.writer.get_extra_info("peername") or ("",)
        _CLIENT_HOST.set(str(peer[0]))
        self._checking_login = True
        try:
            await super().authenticate(username, auth_response, client_plugin_name, connect_attrs, *args, **kwargs)
        finally:
            self._checking_login = False
        if self.session.username is None or self._login_refused:
            raise _LoginRefused()
        self.login_database = self.session.database
        self.session.identity = _IDENTITY.get()

    # ------------------------------------------------------------------ reading packets
    # Every packet a client sends is read by dorisql.server.wire (bounds-checked), never by
    # mysql-mimic's compiled readers, which loop for ever on a field without its NUL.

    async def connection_phase(self) -> None:
        """mysql-mimic's connection phase with dorisql's handshake reader; each packet of the
        login must come within the connect timeout and under the handshake's size limit."""
        stream = self.stream
        assert isinstance(stream, LimitedStream)
        stream.timeout, stream.max_bytes = CONNECT_TIMEOUT_SECONDS, HANDSHAKE_MAX_BYTES
        plugin = self.identity_provider.get_default_plugin()
        auth_data, auth_state = await plugin.start()
        assert isinstance(auth_data, bytes)
        self.handshake_auth_data = auth_data
        self.handshake_auth_plugin = plugin.name
        await stream.write(
            packets.make_handshake_v10(
                capabilities=self.server_capabilities,
                server_charset=self.server_charset,
                server_version=str(self.session.variables.get("version")),
                connection_id=self.connection_id,
                auth_data=auth_data,
                status_flags=self.status_flags,
                auth_plugin_name=plugin.name,
            )
        )
        response = wire.parse_handshake_response(self.server_capabilities, await stream.read())
        if not isinstance(response, packets.HandshakeResponse41):  # an SSLRequest: not offered
            raise wire.MalformedPacket("SSL was not offered")
        self.capabilities = response.capabilities
        self.max_packet_size = response.max_packet_size
        self.session.variables.set("character_set_client", response.client_charset.name)
        self.session.database = response.database
        self.client_plugin_name = response.client_plugin
        self.client_connect_attrs = response.connect_attrs
        self.session.variables.set("external_user", response.username, force=True)
        await self.authenticate(
            auth_state=auth_state,
            server_plugin=plugin,
            username=response.username,
            client_plugin_name=response.client_plugin,
            auth_response=response.auth_response,
            connect_attrs=response.connect_attrs,
        )
        stream.reset_seq()
        stream.timeout, stream.max_bytes, stream.empty_allowed = None, MAX_PACKET_BYTES, False

    async def handle_change_user(self, data: bytes) -> None:
        change = wire.parse_com_change_user(self.capabilities, self.client_charset, data)
        self.session.database = change.database or None
        self.session.variables.set("external_user", change.username, force=True)
        if change.client_charset:
            self.session.variables.set("character_set_client", change.client_charset.name)
        if change.connect_attrs:
            self.client_connect_attrs = change.connect_attrs
        await self.authenticate(
            username=change.username,
            auth_response=change.auth_response,
            client_plugin_name=change.client_plugin,
            connect_attrs=change.connect_attrs,
        )
        await self.session.reset()

    async def handle_field_list(self, data: bytes) -> None:
        """COM_FIELD_LIST (the mysql client's column completion): one definition per column."""
        request = wire.parse_com_field_list(self.client_charset, data)
        sql = f"SHOW FULL COLUMNS FROM {quote_name(request.table)}"
        if request.wildcard:
            sql += f" LIKE {wire.literal(request.wildcard, 1)}"
        results, error = await self.session.run(sql, single=True)
        if error is not None:
            raise error
        rows = results[-1].rows if results else []
        self.stream.write_many(
            [
                packets.make_column_definition_41(
                    server_charset=self.server_charset,
                    table=request.table,
                    name=str(row[0]),
                    is_com_field_list=True,
                    default=None if row[5] is None else str(row[5]),
                )
                for row in rows
            ]
        )
        await self.stream.write(self.ok_or_eof())

    async def handle_stmt_prepare(self, data: bytes) -> None:
        sql = wire.parse_com_query(Capabilities(0), self.client_charset, data).sql
        if wire.statement_count(sql) != 1:
            raise DorisError(doris_message("A prepared statement holds exactly one statement"), 1064, "42000")
        marks = wire.parameter_marks(sql)
        stmt = wire.PreparedMarks(stmt_id=next(self.prepared_stmt_seq), sql=sql, num_params=len(marks), marks=marks)
        self.prepared_stmts[stmt.stmt_id] = stmt
        for packet in self.com_stmt_prepare_response(stmt):
            await self.stream.write(packet, drain=False)
        await self.stream.drain()

    def get_stmt(self, stmt_id: int) -> wire.PreparedMarks:
        stmt = self.prepared_stmts.get(stmt_id)
        if not isinstance(stmt, wire.PreparedMarks):
            message = f"Unknown prepared statement handler ({stmt_id}) given to EXECUTE"
            raise DorisError(message, ER_UNKNOWN_STMT_HANDLER)
        return stmt

    async def handle_stmt_send_long_data(self, data: bytes) -> None:
        stmt_id, param, piece = wire.parse_com_stmt_send_long_data(data)
        stmt = self.prepared_stmts.get(stmt_id)
        if not isinstance(stmt, wire.PreparedMarks) or param >= stmt.num_params:
            return  # MySQL sends no answer to this command, not even an error
        if stmt.long_data_bytes + len(piece) > MAX_PACKET_BYTES:
            stmt.param_buffers, stmt.long_data_bytes = None, 0
            raise DorisError("Got a packet bigger than 'max_allowed_packet' bytes", ER_NET_PACKET_TOO_LARGE)
        stmt.long_data_bytes += len(piece)
        buffers = stmt.param_buffers if stmt.param_buffers is not None else {}
        buffers.setdefault(param, bytearray()).extend(piece)
        stmt.param_buffers = buffers

    async def handle_stmt_execute(self, data: bytes) -> None:
        """COM_STMT_EXECUTE: the parameters bound as literals of their types into the one
        prepared statement (wire.bind), which runs alone."""
        request = wire.parse_com_stmt_execute(self.capabilities, self.client_charset, data, self.get_stmt)
        stmt = self.get_stmt(request.stmt_id)
        stmt.param_buffers, stmt.long_data_bytes, stmt.param_types = None, 0, request.types
        try:
            sql = wire.bind(stmt.sql, stmt.marks, request.params)
        except wire.BindError as err:
            raise DorisError(doris_message(str(err)), ER_UNKNOWN_ERROR) from None
        results, error = await self.session.run(sql, single=True)
        if error is not None:
            raise error
        if not results or not results[-1].is_query:
            # the OK packet COM_QUERY sends: affected rows (a driver's cursor.rowcount) and info
            await self.stream.write(self.ok_packet(results[-1]) if results else self.ok())
            return
        result_set = typed_result_set(results[-1])
        await self.stream.write(uint_len(len(result_set.columns)))
        for column in result_set.columns:
            await self.stream.write(
                packets.make_column_definition_41(
                    server_charset=self.server_charset,
                    name=column.name,
                    column_type=column.type,
                    character_set=column.character_set,
                )
            )
        rows = [packets.make_binary_resultrow(row, result_set.columns) for row in result_set.rows]
        if request.use_cursor:
            stmt.cursor = _async_rows(rows)
            await self.stream.write(self.ok_or_eof(flags=ServerStatus.SERVER_STATUS_CURSOR_EXISTS))
            return
        if not self.deprecate_eof():
            await self.stream.write(self.eof())
        self.stream.write_many(rows)
        await self.stream.write(self.ok_or_eof())

    async def handle_stmt_fetch(self, data: bytes) -> None:
        stmt_id, wanted = wire.parse_com_stmt_fetch(data)
        stmt = self.get_stmt(stmt_id)
        if stmt.cursor is None:
            raise DorisError("The statement has no open cursor", ER_UNKNOWN_STMT_HANDLER)
        sent = 0
        async for row in stmt.cursor:
            await self.stream.write(row, drain=False)
            sent += 1
            if sent >= wanted:
                break
        flags = ServerStatus.SERVER_STATUS_CURSOR_EXISTS
        if sent < wanted:
            flags, stmt.cursor = ServerStatus.SERVER_STATUS_LAST_ROW_SENT, None
        await self.stream.write(self.ok_or_eof(flags=flags))

    async def handle_stmt_reset(self, data: bytes) -> None:
        stmt = self.get_stmt(wire.parse_stmt_id(data))
        stmt.param_buffers, stmt.long_data_bytes, stmt.cursor = None, 0, None
        await self.stream.write(self.ok())

    async def handle_stmt_close(self, data: bytes) -> None:
        self.prepared_stmts.pop(wire.parse_stmt_id(data), None)  # no answer, as in MySQL

    def ok(self, **kwargs: Any) -> bytes:
        if self._checking_login and self.session.database:
            if not self.session.context.database_exists(self.session.database):
                self._login_refused = True
                self.session.username = None
                return error_packet(
                    self.capabilities,
                    self.server_charset,
                    1049,
                    doris_message(f"Unknown database '{self.session.database}'"),
                    "42000",
                )
        return super().ok(**kwargs)

    def error(self, msg: Any = "", code: int = ER_UNKNOWN_ERROR, sqlstate: str | None = None, **kwargs: Any) -> bytes:
        if isinstance(msg, _LoginRefused):  # the client was told already and has gone
            msg, code = "Access denied", ER_ACCESS_DENIED
        elif isinstance(msg, (ConnectionClosed, PacketTooLarge)):  # the client is gone or was told
            msg, code = "Bad handshake", ER_HANDSHAKE_ERROR
        elif isinstance(msg, wire.InvalidText):
            msg, code, sqlstate = doris_message(str(msg)), ER_INVALID_CHARACTER_STRING, "HY000"
        elif isinstance(msg, wire.MalformedPacket):
            log.info("malformed packet: %s", msg)
            if code == ER_HANDSHAKE_ERROR:
                msg = "Bad handshake"
            else:
                msg, code, sqlstate = "Malformed communication packet.", ER_MALFORMED_PACKET, "HY000"
        elif isinstance(msg, BaseException) and not isinstance(msg, MysqlError):
            # mysql-mimic passes unexpected exceptions (malformed packets, bugs) as they are:
            # never their text to the client.

            logfile.record_failure(msg, shown=f"ERROR {ER_UNKNOWN_ERROR} (HY000): {INTERNAL_ERROR}")
            msg, code = doris_message(INTERNAL_ERROR), ER_UNKNOWN_ERROR
        elif isinstance(msg, MysqlError):
            sqlstate = getattr(msg, "sqlstate", None)
            msg, code = msg.msg, int(msg.code)
        if code == ER_ACCESS_DENIED and not str(msg).startswith("Access denied"):
            msg = "Access denied"
        try:
            charset = self.server_charset
        except (KeyError, ValueError):
            charset = CharacterSet.utf8mb4
        return error_packet(self.capabilities, charset, int(code), str(msg), sqlstate or SQLSTATES.get(code, "HY000"))

    def ok_packet(self, result: Result, flags: int = 0) -> bytes:
        parts = packets.make_ok(
            capabilities=self.capabilities,
            status_flags=self.status_flags,
            affected_rows=result.affected_rows,
            warnings=min(len(result.warnings), 0xFFFF),
            flags=flags,
        )
        info = result.message if result.message and result.message != "Database changed" else ""
        if not info:
            return parts
        # A length-encoded string, as Doris's OkPacket writes it: libmysqlclient and libmariadb
        # read the info that way and refuse the packet ("Received malformed packet") otherwise.
        encoded = self.server_charset.encode(info)
        return parts + uint_len(len(encoded)) + encoded

    async def handle_query(self, data: bytes) -> None:
        com_query = wire.parse_com_query(self.capabilities, self.client_charset, data)
        results, error = await self.session.run(com_query.sql)
        more = ServerStatus.SERVER_MORE_RESULTS_EXISTS
        for i, result in enumerate(results):
            last = i == len(results) - 1 and error is None
            flags = 0 if last else more
            if result.is_query:
                await self.write_result(result, flags)
            else:
                await self.stream.write(self.ok_packet(result, flags))
        if error is not None:
            await self.stream.write(self.error(msg=error))

    async def write_result(self, result: Result, flags: int) -> None:
        columns = result_columns(result)
        header = [packets.make_column_count(capabilities=self.capabilities, column_count=len(columns))]
        header += [column.definition(self.server_charset) for column in columns]
        if not self.deprecate_eof():
            header.append(self.eof())
        self.stream.write_many(header)
        text_columns = [column.result_column() for column in columns]
        batch = 10_000
        for start in range(0, len(result.rows), batch):
            self.stream.write_text_rows([text_row(row) for row in result.rows[start : start + batch]], text_columns)
            await asyncio.sleep(0)
        warnings = min(len(result.warnings), 0xFFFF)
        if self.deprecate_eof():
            end = self.ok(eof=True, affected_rows=0, warnings=warnings, flags=flags)
        else:
            end = self.eof(warnings=warnings, flags=flags)
        await self.stream.write(end)


def _framing_error(code: int, message: str, sqlstate: str) -> bytes:
    """The framing's answer to a packet it refuses (the connection ends after it)."""
    return error_packet(Capabilities.CLIENT_PROTOCOL_41, CharacterSet.utf8mb4, code, message, sqlstate)


async def _async_rows(rows: list[bytes]):
    for row in rows:
        yield row


#: What the server says it can do: mysql-mimic's defaults, several statements in one query,
#: several results in one answer, transactions.
SERVER_CAPABILITIES = (
    DEFAULT_SERVER_CAPABILITIES
    | Capabilities.CLIENT_MULTI_STATEMENTS
    | Capabilities.CLIENT_MULTI_RESULTS
    | Capabilities.CLIENT_TRANSACTIONS
)


class MySQLListener:
    """The MySQL protocol on ``host:port``: an asyncio loop on its own thread; each connection's
    statements on the connection's own worker thread."""

    def __init__(self, context: ServerContext, host: str, port: int):
        self.context = context
        self.host = host
        self.port = port
        self.connections = Connections()
        self.tasks: set[asyncio.Task] = set()
        self.control = LocalControl()
        self.identity_provider = DorisIdentity(context)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None

    def new_session(self) -> ServerSession:
        return ServerSession(self.context, self.connections)

    @property
    def bound_port(self) -> int:
        """The port actually bound (``port`` 0 picks a free one)."""
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    def start(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._server = loop.run_until_complete(
                asyncio.start_server(self.serve_connection, host=self.host, port=self.port, reuse_address=True)
            )
        except OSError:
            loop.close()
            raise
        self.port = self.bound_port
        self._thread = threading.Thread(target=loop.run_forever, name="dorisql-mysql", daemon=True)
        self._thread.start()

    async def serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client, from the handshake to the end of its connection, with dorisql's
        `ServerConnection` (built on mysql-mimic's public `Connection`) on a `LimitedStream`;
        a client that breaks the protocol ends only its own connection. The asyncio server's
        callback: mysql-mimic's `MysqlServer` has no public way to choose the connection class
        or stream, so dorisql runs the asyncio server itself."""
        session = self.new_session()
        stream = LimitedStream(MysqlStream(reader, writer), HANDSHAKE_MAX_BYTES, _framing_error)
        connection = ServerConnection(
            stream=stream,
            session=session,
            control=self.control,
            server_capabilities=SERVER_CAPABILITIES,
            identity_provider=self.identity_provider,
        )
        connection.connection_id = self.connections.next_id()
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        try:
            await connection.start()
        except (
            _LoginRefused,
            PacketTooLarge,
            ConnectionClosed,
            ConnectionError,
            asyncio.IncompleteReadError,
            asyncio.CancelledError,
        ):
            pass
        except Exception as exc:  # a malformed handshake: the client got an error packet
            log.info("connection %s ended: %s", connection.connection_id, type(exc).__name__)
        finally:
            if task is not None:
                self.tasks.discard(task)
            try:
                writer.close()
            except RuntimeError:  # the loop is already stopping
                pass

    def stop(self) -> None:
        loop, server = self._loop, self._server
        if loop is None or server is None:
            return
        sessions = self.connections.all()
        for session in sessions:
            session.cancel_statement()

        async def close() -> None:
            server.close()
            for task in list(self.tasks):
                task.cancel()
            await asyncio.sleep(0)

        asyncio.run_coroutine_threadsafe(close(), loop).result(timeout=10)

        deadline = time.monotonic() + SHUTDOWN_GRACE_SECONDS
        for session in sessions:  # a cancelled statement ends before or after its commit
            session.end_statement(max(deadline - time.monotonic(), 0.1))

        async def drain() -> None:  # the connections close their sessions, then end
            if self.tasks:
                await asyncio.wait(list(self.tasks), timeout=10)

        try:
            asyncio.run_coroutine_threadsafe(drain(), loop).result(timeout=15)
        except (TimeoutError, concurrent.futures.TimeoutError):
            log.warning("connections still open at shutdown: %d", len(self.tasks))
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
