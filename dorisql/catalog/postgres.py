"""The catalog in a PostgreSQL database (``--catalog postgresql://user@host:port/db``).

For a team whose dorisql processes (shells, schedulers, servers) run on several machines: the
metadata SQLite keeps in the warehouse lives in a database server instead, and the commit locks
become PostgreSQL advisory locks (`AdvisoryLocks`), which need no shared filesystem ``flock``.

Same store, same statements: `PostgresCatalog` is `dorisql.catalog.store.SqlCatalog` with a
psycopg 3 connection. The schema is the SQLite one (version 1 plus the same migrations) with two
type changes made when it is applied here: ``INTEGER`` is ``BIGINT`` (SQLite's INTEGER is 64-bit)
and ``TEXT`` is ``TEXT COLLATE "C"`` (SQLite compares bytes; ``ORDER BY name`` must not follow a
locale). The version lives in the one-row table ``dorisql_schema``.

Why psycopg and not SQLAlchemy Core: the store's SQL is already written in the dialect both
databases share, so Core would replace working statements with expression code and add a layer
between the store and both drivers; the differences left (placeholders, transactions, schema
version) fit in this module.

Writers: every write transaction first takes a transaction-scoped advisory lock, so writers
queue as SQLite's ``BEGIN IMMEDIATE`` makes them, and the store's read-modify-write steps and its
one conditional ``UPDATE tables ... WHERE id = ? AND version = ?`` mean the same on both. Reads
are single statements or a ``REPEATABLE READ`` snapshot. ``lock_timeout`` bounds the wait.

The URL's password never appears in a message: `redact` removes it (and errors are worded from
the redacted URL).
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import psycopg

from dorisql.catalog.store import _MIGRATIONS, _SCHEMA, FIRST_ID, SCHEMA_VERSION, Conn, SqlCatalog
from dorisql.catalog.urls import is_postgres_url, redact
from dorisql.errors import CatalogError

__all__ = ["PostgresCatalog", "AdvisoryLocks", "redact", "is_postgres_url"]

#: The transaction-scoped advisory lock every catalog writer takes (two int4 keys: a key space
#: apart from the one-bigint keys of `AdvisoryLocks`). 0x646F7269 is "dori".
_WRITER_KEY = (0x646F7269, 1)


def _scrub(text: str, url: str) -> str:
    """A driver message with the URL's password taken out, should libpq ever quote it."""
    password = urlsplit(url).password
    first = str(text).strip().splitlines()[0] if str(text).strip() else type(text).__name__
    return first.replace(password, "***") if password else first


@functools.lru_cache(maxsize=512)
def _placeholders(sql: str) -> str:
    """The store's ``?`` placeholders as psycopg's ``%s`` (its statements have no ``%`` or ``?`` literals)."""
    return sql.replace("?", "%s")


def _pg_ddl(script: str) -> str:
    """The SQLite schema in PostgreSQL's types (see the module docstring)."""
    return script.replace("INTEGER", "BIGINT").replace(" TEXT", ' TEXT COLLATE "C"')


#: Statements that may be sent again on a new connection when the old one turned out dead: they
#: change nothing (a read, or the start of a transaction), so sending them twice is harmless.
_REPEATABLE = ("SELECT", "BEGIN")


class _Connection:
    """A psycopg connection with sqlite3's calling convention, as `store.Conn` asks.

    A connection the server dropped (a restart, a failover, an idle timeout) is found out only
    when a statement is sent on it. Outside a transaction, a statement that changes nothing
    (``_REPEATABLE``) is then sent again on a new connection, so the first statement after a
    catalog restart works; anything else fails with CatalogError (the caller's transaction is
    gone, nothing of it committed unless the COMMIT itself was lost), and the next statement
    reconnects."""

    def __init__(self, conn: psycopg.Connection, url: str, timeout: float = 60.0):
        self.raw = conn
        self.url = url
        self.timeout = timeout

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        repeatable = not self.in_transaction and sql.lstrip().upper().startswith(_REPEATABLE)
        try:
            return self._execute(sql, parameters)
        except CatalogError:
            if not (repeatable and self.broken):
                raise
        self.reconnect()  # CatalogError naming the catalog when it is still down
        return self._execute(sql, parameters)

    def _execute(self, sql: str, parameters: Any) -> Any:
        try:
            return self.raw.execute(_placeholders(sql), tuple(parameters) if parameters else None)
        except psycopg.errors.LockNotAvailable as exc:
            raise CatalogError(
                f"the catalog {redact(self.url)} is busy: another dorisql process holds its write lock "
                f"({_scrub(str(exc), self.url)})"
            ) from None
        except psycopg.OperationalError as exc:
            raise CatalogError(f"lost the catalog {redact(self.url)}: {_scrub(str(exc), self.url)}") from None

    def reconnect(self) -> None:
        """A new server connection in place of a dead one."""
        try:
            self.raw.close()
        except psycopg.Error:  # pragma: no cover - closing a dead connection
            pass
        self.raw = connect(self.url, timeout=self.timeout)

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        rows = [tuple(p) for p in parameters]
        cursor = self.raw.cursor()
        if rows:
            try:
                cursor.executemany(_placeholders(sql), rows)
            except psycopg.OperationalError as exc:
                raise CatalogError(f"lost the catalog {redact(self.url)}: {_scrub(str(exc), self.url)}") from None
        return cursor

    @property
    def in_transaction(self) -> bool:
        return not self.raw.closed and self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    @property
    def broken(self) -> bool:
        return (
            self.raw.closed
            or self.raw.broken
            or self.raw.info.transaction_status == psycopg.pq.TransactionStatus.UNKNOWN
        )

    def close(self) -> None:
        self.raw.close()


def connect(url: str, *, timeout: float = 60.0) -> psycopg.Connection:
    """An autocommit connection (transactions are explicit), or CatalogError without the password."""
    try:
        given = psycopg.conninfo.conninfo_to_dict(url).get("options") or ""  # e.g. -csearch_path=...
        return psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=max(1, int(timeout)),
            options=f"{given} -c lock_timeout={int(timeout * 1000)}".strip(),
            application_name="dorisql",
        )
    except psycopg.Error as exc:
        raise CatalogError(f"cannot connect to the catalog {redact(url)}: {_scrub(str(exc), url)}") from None


class PostgresCatalog(SqlCatalog):
    """Doris-level metadata of one warehouse, in a PostgreSQL database (one database per warehouse).

    >>> cat = PostgresCatalog("postgresql://dorisql@db.example.com:5432/lakehouse")
    """

    backend = "PostgreSQL"
    read_only = False

    def __init__(self, url: str, *, timeout: float = 60.0):
        if not is_postgres_url(url):
            raise CatalogError(f"not a PostgreSQL URL: {redact(url)}")
        self.url = url
        self.timeout = timeout
        self._setup()
        self._init_schema()

    def __repr__(self) -> str:
        return f"PostgresCatalog({redact(self.url)!r})"

    def _connect(self) -> Conn:
        return _Connection(connect(self.url, timeout=self.timeout), self.url, self.timeout)

    def _conn(self) -> Conn:
        conn = super()._conn()
        if isinstance(conn, _Connection) and conn.broken:  # the server went away: open a new one
            self._local.conn = None
            conn = super()._conn()
        return conn

    @contextmanager
    def _write(self) -> Iterator[Conn]:
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT pg_advisory_xact_lock(?, ?)", _WRITER_KEY)
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            self._rollback(conn)
            raise

    @contextmanager
    def _read(self) -> Iterator[Conn]:
        conn = self._conn()
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            self._rollback(conn)
            raise

    @staticmethod
    def _rollback(conn: Conn) -> None:
        if isinstance(conn, _Connection) and not conn.broken and conn.in_transaction:
            try:
                conn.raw.execute("ROLLBACK")
            except psycopg.Error:  # pragma: no cover - the connection died meanwhile
                pass

    def _init_schema(self) -> None:
        """Create or migrate the schema in one transaction, under the writers' lock, so concurrent
        first openers apply each migration once (store's module docstring)."""
        where = redact(self.url)
        with self._write() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS dorisql_schema (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM dorisql_schema").fetchone()
            version = 0 if row is None else row[0]
            if version > SCHEMA_VERSION:
                raise CatalogError(
                    f"the catalog {where} has schema version {version}, newer than this "
                    f"dorisql understands ({SCHEMA_VERSION}); upgrade dorisql"
                )
            if version == SCHEMA_VERSION:
                return
            if row is None:
                conn.execute("INSERT INTO dorisql_schema (version) VALUES (0)")
            if version == 0:
                _run_script(conn, _pg_ddl(_SCHEMA))
                conn.execute(
                    "INSERT INTO sequences (name, value) VALUES ('id', ?) ON CONFLICT (name) DO NOTHING", (FIRST_ID,)
                )
                version = 1
            for target in range(version + 1, SCHEMA_VERSION + 1):
                try:
                    _run_script(conn, _pg_ddl(_MIGRATIONS[target]))
                except psycopg.Error as exc:
                    raise CatalogError(
                        f"could not upgrade the catalog {where} to schema version {target} "
                        f"({_scrub(str(exc), self.url)}); it was left unchanged at version {version}"
                    ) from None
            conn.execute("UPDATE dorisql_schema SET version = ?", (SCHEMA_VERSION,))

    def schema_version(self) -> int:
        row = self._conn().execute("SELECT version FROM dorisql_schema").fetchone()
        return 0 if row is None else int(row[0])

    def lock_service(self) -> AdvisoryLocks:
        return AdvisoryLocks(self.url, timeout=self.timeout)


def _run_script(conn: Conn, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def lock_key(name: str) -> int:
    """A lock name (a path relative to the warehouse root) as a signed 64-bit advisory lock key."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


class AdvisoryLocks:
    """The table commit locks and tablet locks as session-level PostgreSQL advisory locks
    (`dorisql.storage.locks.LockService`): held by this process's lock connection, released by
    the server when the process dies (its connection closes), so a killed holder blocks nobody.

    Names are paths relative to the warehouse root, so processes that mount one warehouse at
    different paths take the same locks. One connection per process, used under a mutex; waits
    are polls with `pg_try_advisory_lock` (dorisql.storage.locks decides how long to wait).
    """

    def __init__(self, url: str, *, timeout: float = 60.0):
        self.url = url
        self.timeout = timeout
        self._mutex = threading.Lock()
        self._conn: psycopg.Connection | None = None
        self._pid = 0

    def _connection(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed or self._pid != os.getpid():
            self._conn = connect(self.url, timeout=self.timeout)
            self._pid = os.getpid()
        return self._conn

    def try_acquire(self, name: str) -> bool:
        """Take the lock if free. A lock connection the server dropped (a catalog restart) is
        replaced once: the locks it held died with it on the server, so the new one starts
        clean. When the catalog cannot be reached, CatalogError, never CommitConflictError:
        callers read a conflict as "another process holds it" (a Stream Load would answer that
        its label is taken), and an unreachable catalog says nothing of the kind."""
        with self._mutex:
            for attempt in (1, 2):
                fresh = self._conn is None or self._conn.closed or self._pid != os.getpid()
                try:
                    row = self._connection().execute("SELECT pg_try_advisory_lock(%s)", (lock_key(name),)).fetchone()
                except psycopg.OperationalError as exc:
                    self._drop()
                    if attempt == 1 and not fresh:
                        continue  # a connection that died since its last use: one new one
                    raise CatalogError(
                        f"cannot take the lock {name}: lost the catalog {redact(self.url)} "
                        f"({_scrub(str(exc), self.url)}); retry when it is back"
                    ) from None
                except CatalogError as exc:  # connect() failed: the catalog is down
                    raise CatalogError(f"cannot take the lock {name}: {exc}; retry when it is back") from None
                return bool(row and row[0])
            raise AssertionError("unreachable")  # pragma: no cover

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except psycopg.Error:  # pragma: no cover
                pass
        self._conn = None

    def release(self, name: str) -> None:
        with self._mutex:
            if self._conn is None or self._conn.closed:
                return  # the connection died, and the server released its locks with it
            try:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", (lock_key(name),))
            except psycopg.OperationalError:
                self._conn = None

    def close(self) -> None:
        with self._mutex:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
