"""The catalog: Doris-level metadata in SQLite at ``<warehouse>/_catalog/catalog.db``.

What lives here: databases, each table's `TableMeta` (its Doris definition and live partition
list, as codec JSON next to indexed ``db``, ``name``, ``id`` and ``version`` columns), one id
sequence (table and partition ids, as Doris's FE shows them: 10001, 10002, ...), persisted
frontend config (ADMIN SET FRONTEND CONFIG) and colocation groups. The Delta log, not this file,
is the truth for data.

Concurrency (after PyIceberg's SqlCatalog): every write is one SQLite transaction taken with
``BEGIN IMMEDIATE``; a table update is one conditional ``UPDATE ... WHERE id = ? AND version = ?``
and raises `CommitConflictError` when another session changed the table since it was loaded (the
caller reloads and retries). The database runs in WAL mode with a busy timeout, so several
threads and several dorisql processes on one machine can share a warehouse: readers never block,
writers queue. Each thread gets its own connection (recreated after fork). WAL needs a local
filesystem (not NFS/SMB); several machines should use a server catalog instead.

Crash safety: each catalog operation is atomic and durable (``synchronous=FULL``) on its own: a
crash never leaves half an operation here. An operation that touches both the catalog and the
Delta log cannot be one transaction; the engine orders the two so that the state between them is
harmless and a retry finishes the job. The order this store is built for:

- the catalog says which partitions exist. Adding a partition commits the catalog first (a crash
  leaves an empty partition); dropping one commits the catalog first and then removes its files
  from Delta (a crash leaves files of a partition the catalog no longer has: orphans, which
  cleanup removes and no reader sees, since reads go through the catalog's partition list);
- data changes (loads, compaction) commit Delta first, then the catalog's statistics
  (visible_version) with `commit_table`; a crash in between leaves stale statistics only;
- a writer that read `TableMeta` version v before writing files re-checks that its target
  partitions still exist (`load_table`) right before its Delta commit, and after it, commits
  the catalog with expected version v; on `CommitConflictError` it reloads and, if a target
  partition was dropped meanwhile, removes what it just added.

Decoded `TableMeta`s are cached per `Catalog` by (table id, version): ids are never reused and
every change bumps the version, so a cached entry can never be stale, and `list_table_metas`
only decodes tables that changed since the last call.

The recycle bin (table ``recycle_bin``, schema version 2) holds dropped databases, tables and
partitions, one row per object id, written in the same transaction as the drop that puts them
there and deleted in the same transaction as the RECOVER that takes them out.

Schema versions (PRAGMA user_version): a new catalog gets the version-1 tables and then every
migration; an older catalog gets the migrations it lacks. Either way in one transaction, taken
with ``BEGIN IMMEDIATE``, so concurrent first openers apply a migration once and a failed
migration leaves the catalog as it was. A catalog newer than this dorisql is refused.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import threading
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from dorisql.ast import Properties, props
from dorisql.auth.privileges import Grant
from dorisql.catalog import codec, colocation
from dorisql.catalog.base import (
    BUILTIN_USERS,
    GLOBAL_GROUP_PREFIX,
    RECYCLED_DATABASE,
    RECYCLED_PARTITION,
    RECYCLED_TABLE,
    Catalog,
    ColocationGroup,
    DatabaseMeta,
    LoadRecord,
    RecycleBinEntry,
    RecycledFile,
    UserChange,
    UserEntry,
    group_key,
    renamed,
)
from dorisql.catalog.model import TableMeta, ViewMeta
from dorisql.errors import (
    AlreadyExistsError,
    AnalysisError,
    CatalogError,
    CommitConflictError,
    DamagedTableError,
    ReadOnlyWarehouseError,
    UnknownDatabaseError,
    UnknownTableError,
)
from dorisql.warehouse import CATALOG_FILE, catalog_dir, validate_name

__all__ = [
    "SqlCatalog",
    "SqliteCatalog",
    "DatabaseMeta",
    "ColocationGroup",
    "SCHEMA_VERSION",
    "FIRST_ID",
    "GLOBAL_GROUP_PREFIX",
]

#: Version of the SQLite schema: version 1 (`_SCHEMA`) plus every migration (PRAGMA user_version).
SCHEMA_VERSION = 6
#: The id sequence starts here, like Doris's FE (its first objects get ids just above 10000).
FIRST_ID = 10000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sequences (
    name   TEXT PRIMARY KEY,
    value  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS databases (
    name        TEXT PRIMARY KEY,
    id          INTEGER NOT NULL UNIQUE,
    properties  TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tables (
    id              INTEGER PRIMARY KEY,
    db              TEXT NOT NULL,
    name            TEXT NOT NULL,
    version         INTEGER NOT NULL,
    colocate_db     TEXT,
    colocate_group  TEXT,
    meta            TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    UNIQUE (db, name)
);
CREATE INDEX IF NOT EXISTS tables_by_group ON tables (colocate_db, colocate_group);
CREATE TABLE IF NOT EXISTS frontend_config (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS colocation_groups (
    db                  TEXT NOT NULL,
    name                TEXT NOT NULL,
    id                  INTEGER NOT NULL UNIQUE,
    buckets             INTEGER NOT NULL,
    distribution_types  TEXT NOT NULL,
    replication_num     INTEGER NOT NULL,
    is_stable           INTEGER NOT NULL,
    PRIMARY KEY (db, name)
);
"""


#: Schema migrations: the statements that take the catalog from version n - 1 to version n.
_MIGRATIONS: dict[int, str] = {
    # 2: the catalog recycle bin (DROP without FORCE, RECOVER, SHOW CATALOG RECYCLE BIN).
    2: """
CREATE TABLE recycle_bin (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    db_id       INTEGER NOT NULL,
    db_name     TEXT NOT NULL,
    table_id    INTEGER,
    dropped_at  TEXT NOT NULL,
    entry       TEXT NOT NULL
);
CREATE INDEX recycle_bin_by_db ON recycle_bin (db_id, kind);
CREATE INDEX recycle_bin_by_table ON recycle_bin (table_id, kind);
""",
    # 3: a table in the recycle bin stays in its colocation group (Doris removes it from the
    # group only when the bin erases it), so the bin records the group of each table entry.
    3: """
ALTER TABLE recycle_bin ADD COLUMN colocate_db TEXT;
ALTER TABLE recycle_bin ADD COLUMN colocate_group TEXT;
CREATE INDEX recycle_bin_by_group ON recycle_bin (colocate_db, colocate_group);
""",
    # 4: users and their grants (dorisql.auth), and load labels (Stream Load: a label is unique
    # per database, which makes a load idempotent).
    4: """
CREATE TABLE users (
    name   TEXT NOT NULL,
    host   TEXT NOT NULL,
    entry  TEXT NOT NULL,
    PRIMARY KEY (name, host)
);
CREATE TABLE load_labels (
    db          TEXT NOT NULL,
    label       TEXT NOT NULL,
    txn_id      INTEGER NOT NULL,
    state       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    entry       TEXT NOT NULL,
    PRIMARY KEY (db, label)
);
CREATE INDEX load_labels_by_time ON load_labels (created_at);
""",
    # 5: explicit transactions being committed (BEGIN ... COMMIT over several tables): the
    # intent that makes their Delta commits all-or-nothing (dorisql.tablets.transactions).
    5: """
CREATE TABLE txn_intents (
    txn_id      TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    entry       TEXT NOT NULL
);
""",
    # 6: views (CREATE VIEW): their own rows, in the tables' namespace (one name is a table or
    # a view; create_table and create_view check both), never seen by what walks tables' storage.
    6: """
CREATE TABLE views (
    id          INTEGER PRIMARY KEY,
    db          TEXT NOT NULL,
    name        TEXT NOT NULL,
    entry       TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    UNIQUE (db, name)
);
""",
}


codec.register(DatabaseMeta)
codec.register(ColocationGroup)
codec.register(RecycledFile)
codec.register(RecycleBinEntry)
codec.register(UserEntry)
codec.register(LoadRecord)
codec.register(Grant, "PrivilegeGrant")  # ast.Grant is the GRANT statement


class Conn(Protocol):
    """What the store needs of a connection: sqlite3's, or `postgres`'s wrapper around psycopg's."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...

    def executemany(self, sql: str, parameters: Any, /) -> Any: ...

    def close(self) -> None: ...


def _colocate_key(meta: TableMeta) -> tuple[str | None, str | None]:
    name = props(meta.definition.properties).get("colocate_with")
    if not name:
        return None, None
    return group_key(meta.db, name)


def _dropped_db_key(db_id: int) -> str:
    """The group key of a dropped database's colocation groups while the database is in the bin
    (no database name contains '#')."""
    return f"#{db_id}"


def _now_text() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


def _properties(value: Properties | Mapping[str, str] | None) -> Properties:
    if value is None:
        return ()
    if isinstance(value, Mapping):
        return tuple((str(k), str(v)) for k, v in value.items())
    return tuple((str(k), str(v)) for k, v in value)


class SqlCatalog(Catalog):
    """The catalog in a SQL database: everything but the connection, transaction and schema
    version handling, which `SqliteCatalog` and `dorisql.catalog.postgres.PostgresCatalog` add.

    The statements are written once, in the SQL both databases speak (``?`` placeholders, which
    the PostgreSQL connection turns into psycopg's ``%s``; ``INSERT ... ON CONFLICT``;
    ``RETURNING``). A write transaction serialises every writer (SQLite: ``BEGIN IMMEDIATE``;
    PostgreSQL: a transaction-scoped advisory lock), so the read-modify-write steps inside one
    behave the same on both, and a table update is the same conditional ``UPDATE``.
    """

    #: The backend's name, for messages.
    backend = "SQL"

    def _setup(self) -> None:
        self._local = threading.local()
        self._connections: list[Conn] = []
        self._lock = threading.Lock()
        #: table id -> (version, decoded TableMeta)
        self._meta_cache: dict[int, tuple[int, TableMeta]] = {}

    # ------------------------------------------------------------------ connections (per backend)

    @abstractmethod
    def _connect(self) -> Conn:
        """A new connection (one per thread and process: `_conn`)."""

    @abstractmethod
    def _write(self) -> AbstractContextManager[Conn]:
        """One write transaction that excludes every other writer for its duration."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Conn]:
        """A read transaction: several SELECTs see one snapshot."""

    def _conn(self) -> Conn:
        local = self._local
        conn = getattr(local, "conn", None)
        if conn is None or local.pid != os.getpid():
            conn = self._connect()
            local.conn, local.pid = conn, os.getpid()
            with self._lock:
                self._connections.append(conn)
        return conn

    def close(self) -> None:
        """Close every connection this Catalog opened (it reopens on next use)."""
        with self._lock:
            conns, self._connections = self._connections, []
        for conn in conns:
            try:
                conn.close()
            except Exception:  # pragma: no cover - closing a broken connection
                pass
        self._local = threading.local()

    def is_empty(self, conn: Conn | None = None) -> bool:
        """No database, table, user, group, setting, load label or bin entry (`catalog migrate`'s target)."""
        conn = conn or self._conn()
        for table in ("databases", "tables", "views", "users", "colocation_groups", "frontend_config", "load_labels"):
            if conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None:
                return False
        return conn.execute("SELECT 1 FROM recycle_bin LIMIT 1").fetchone() is None

    def __enter__(self) -> SqlCatalog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ ids

    def next_ids(self, count: int) -> range:
        """`count` new consecutive ids in one transaction."""
        if count < 0:
            raise ValueError("count must be >= 0")
        with self._write() as conn:
            return self._take_ids(conn, count)

    @staticmethod
    def _take_ids(conn: Conn, count: int) -> range:
        if count == 0:
            return range(0)
        (last,) = conn.execute(
            "UPDATE sequences SET value = value + ? WHERE name = 'id' RETURNING value", (count,)
        ).fetchone()
        return range(last - count + 1, last + 1)

    def _assign_partition_ids(self, conn: Conn, meta: TableMeta) -> TableMeta:
        missing = [i for i, p in enumerate(meta.partitions) if p.id <= 0]
        if not missing:
            return meta
        ids = iter(self._take_ids(conn, len(missing)))
        parts = list(meta.partitions)
        for i in missing:
            parts[i] = replace(parts[i], id=next(ids))
        return replace(meta, partitions=tuple(parts))

    # ------------------------------------------------------------------ databases

    def create_database(
        self, name: str, if_not_exists: bool = False, properties: Properties | Mapping[str, str] | None = None
    ) -> DatabaseMeta:
        """CREATE DATABASE. ``Can't create database 'db'; database exists`` (1007) unless `if_not_exists`."""
        validate_name("database", name)
        with self._write() as conn:
            row = conn.execute(
                "SELECT id, name, properties, created_at FROM databases WHERE name = ?", (name,)
            ).fetchone()
            if row is not None:
                if if_not_exists:
                    return self._database_from_row(row)
                err = AlreadyExistsError(f"Can't create database '{name}'; database exists")
                err.code, err.sqlstate = 1007, "HY000"
                raise err
            meta = DatabaseMeta(id=self._take_ids(conn, 1)[0], name=name, properties=_properties(properties))
            conn.execute(
                "INSERT INTO databases (name, id, properties, created_at) VALUES (?, ?, ?, ?)",
                (name, meta.id, codec.encode(meta.properties), codec.encode(meta.created_at)),
            )
            return meta

    @staticmethod
    def _database_from_row(row) -> DatabaseMeta:
        return DatabaseMeta(id=row[0], name=row[1], properties=codec.decode(row[2]), created_at=codec.decode(row[3]))

    def get_database(self, name: str) -> DatabaseMeta:
        """The database, or ``Unknown database 'db'`` (1049)."""
        row = (
            self._conn()
            .execute("SELECT id, name, properties, created_at FROM databases WHERE name = ?", (name,))
            .fetchone()
        )
        if row is None:
            raise UnknownDatabaseError(f"Unknown database '{name}'")
        return self._database_from_row(row)

    def database_exists(self, name: str) -> bool:
        return self._conn().execute("SELECT 1 FROM databases WHERE name = ?", (name,)).fetchone() is not None

    def list_databases(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT name FROM databases ORDER BY name")]

    def drop_database(
        self, name: str, if_exists: bool = False, force: bool = False, *, dropped_at: dt.datetime | None = None
    ) -> list[TableMeta]:
        """DROP DATABASE: removes the database and all its tables and colocation groups, as Doris does.

        Unless `force`, the database and its tables go into the recycle bin (stamped
        `dropped_at`, default now) in the same transaction; their data stays where it is. With
        `force` the bin forgets the tables' dropped partitions too. Returns the dropped tables'
        metadata. A missing database is ``Can't drop database 'db'; database doesn't exist``
        (1008) unless `if_exists`.
        """
        with self._write() as conn:
            db_row = conn.execute(
                "SELECT id, name, properties, created_at FROM databases WHERE name = ?", (name,)
            ).fetchone()
            if db_row is None:
                if if_exists:
                    return []
                err = UnknownDatabaseError(f"Can't drop database '{name}'; database doesn't exist")
                err.code, err.sqlstate = 1008, "HY000"
                raise err
            database = self._database_from_row(db_row)
            rows = conn.execute(
                "SELECT id, version, meta, db, name FROM tables WHERE db = ? ORDER BY name", (name,)
            ).fetchall()
            dropped = []
            for row in rows:  # a damaged entry goes with its database; its folder is found by id
                try:
                    dropped.append(self._meta_from_row(*row))
                except DamagedTableError:
                    pass
            conn.execute("DELETE FROM tables WHERE db = ?", (name,))
            conn.execute("DELETE FROM views WHERE db = ?", (name,))  # views keep no data: not recycled
            conn.execute("DELETE FROM databases WHERE name = ?", (name,))
            if force:
                self._forget_partitions(conn, [meta.id for meta in dropped])
                conn.execute("DELETE FROM colocation_groups WHERE db = ?", (name,))
                for meta in dropped:
                    self._gc_group(conn, *_colocate_key(meta))  # global groups the db's tables were in
            else:
                when = dropped_at or dt.datetime.now()
                self._put_in_bin(
                    conn,
                    RecycleBinEntry(
                        kind=RECYCLED_DATABASE,
                        id=database.id,
                        name=name,
                        db_id=database.id,
                        db_name=name,
                        table_id=None,
                        dropped_at=when,
                        database=database,
                        table_ids=tuple(meta.id for meta in dropped),
                    ),
                )
                for meta in dropped:
                    self._put_in_bin(conn, self._table_entry(meta, database.id, when))
                # Doris keys a database's groups by the database id: its groups stay (their tables
                # are in the bin) but no database of the same name reaches them; RECOVER does.
                hidden = _dropped_db_key(database.id)
                conn.execute("UPDATE recycle_bin SET colocate_db = ? WHERE colocate_db = ?", (hidden, name))
                conn.execute("UPDATE colocation_groups SET db = ? WHERE db = ?", (hidden, name))
                conn.execute(
                    "DELETE FROM colocation_groups WHERE db = ? AND name NOT IN "
                    "(SELECT colocate_group FROM recycle_bin WHERE colocate_db = ?)",
                    (hidden, hidden),
                )
        for meta in dropped:
            self._meta_cache.pop(meta.id, None)
        return dropped

    # ------------------------------------------------------------------ tables

    def _meta_from_row(
        self, table_id: int, version: int, text: str | None, db: str = "?", name: str = "?"
    ) -> TableMeta:
        cached = self._meta_cache.get(table_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        if text is None:
            raise KeyError(table_id)
        return self._remember(table_id, version, self._decode_meta(table_id, text, db, name))

    @staticmethod
    def _decode_meta(table_id: int, text: str, db: str, name: str) -> object:
        try:
            meta = codec.decode(text)
        except (ValueError, TypeError, KeyError) as exc:  # CodecError and JSON errors are ValueErrors
            raise DamagedTableError(db, name, table_id, str(exc).splitlines()[0][:200]) from None
        if not isinstance(meta, TableMeta):
            raise DamagedTableError(db, name, table_id, f"holds a {type(meta).__name__}, not a table")
        return meta

    def _remember(self, table_id: int, version: int, meta: object) -> TableMeta:
        if not isinstance(meta, TableMeta):
            raise CatalogError(f"catalog row of table id {table_id} does not hold a TableMeta")
        if meta.version != version or meta.id != table_id:  # the row's columns are the truth
            meta = replace(meta, id=table_id, version=version)
        self._meta_cache[table_id] = (version, meta)
        return meta

    def _require_database(self, conn: Conn, db: str) -> None:
        if conn.execute("SELECT 1 FROM databases WHERE name = ?", (db,)).fetchone() is None:
            raise UnknownDatabaseError(f"Unknown database '{db}'")

    def create_table(self, meta: TableMeta, if_not_exists: bool = False) -> TableMeta:
        """Add a table. Returns it with ``version == 1``, its id (``meta.id`` when it is one reserved
        with `next_ids`, else a new one) and an id for every partition whose id is <= 0.

        ``Unknown database 'db'`` (1049); ``Table 't' already exists`` (1050) unless
        `if_not_exists`, which returns the existing table unchanged. A table whose colocate_with
        names a group founds it in the same transaction, or must match its schema (Doris's
        rules and messages: dorisql.catalog.colocation).
        """
        validate_name("database", meta.db)
        validate_name("table", meta.name)
        for p in meta.partitions:
            validate_name("partition", p.name)
        with self._write() as conn:
            self._require_database(conn, meta.db)
            row = conn.execute(
                "SELECT id, version, meta, db, name FROM tables WHERE db = ? AND name = ?", (meta.db, meta.name)
            ).fetchone()
            if row is not None:
                if if_not_exists:
                    return self._meta_from_row(*row)
                raise AlreadyExistsError(f"Table '{meta.name}' already exists")
            if self._view_row(conn, meta.db, meta.name) is not None:  # one namespace (Doris)
                raise AlreadyExistsError(f"Table '{meta.name}' already exists")
            if _colocate_key(meta)[1] is not None:
                self._join_group(conn, meta)
            # An id reserved with next_ids() (the engine names the table's folder by it before the
            # table exists here); otherwise a new one.
            new = replace(meta, id=meta.id if meta.id > 0 else self._take_ids(conn, 1)[0], version=1)
            new = self._assign_partition_ids(conn, new)
            cdb, cgroup = _colocate_key(new)
            conn.execute(
                "INSERT INTO tables (id, db, name, version, colocate_db, colocate_group, meta, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (new.id, new.db, new.name, new.version, cdb, cgroup, codec.encode(new), _now_text()),
            )
        self._meta_cache[new.id] = (new.version, new)
        return new

    def load_table(self, db: str, name: str) -> TableMeta:
        """The table's current metadata; ``Unknown database 'db'`` (1049) or ``Unknown table 't'`` (1146)."""
        with self._read() as conn:
            row = conn.execute("SELECT id, version FROM tables WHERE db = ? AND name = ?", (db, name)).fetchone()
            if row is None:
                self._require_database(conn, db)
                raise UnknownTableError(f"Unknown table '{name}'")
            table_id, version = row
            cached = self._meta_cache.get(table_id)
            if cached is not None and cached[0] == version:
                return cached[1]
            (text,) = conn.execute("SELECT meta FROM tables WHERE id = ?", (table_id,)).fetchone()
        return self._meta_from_row(table_id, version, text, db, name)

    def table_exists(self, db: str, name: str) -> bool:
        return self._conn().execute("SELECT 1 FROM tables WHERE db = ? AND name = ?", (db, name)).fetchone() is not None

    def list_tables(self, db: str) -> list[str]:
        """Table names of `db`, sorted; ``Unknown database 'db'`` (1049)."""
        with self._read() as conn:
            self._require_database(conn, db)
            return [r[0] for r in conn.execute("SELECT name FROM tables WHERE db = ? ORDER BY name", (db,))]

    def list_table_metas(
        self, db: str | None = None, *, damaged: list[DamagedTableError] | None = None
    ) -> list[TableMeta]:
        """Every table's metadata (of one database, or all), ordered by (db, name), from one snapshot.

        Only tables changed since this Catalog last saw them are fetched and decoded. A table
        whose entry cannot be read is left out (one bad table must not stop the others) and,
        when `damaged` is given, its error is appended there.
        """
        with self._read() as conn:
            if db is None:
                heads = conn.execute("SELECT id, version, db, name FROM tables ORDER BY db, name").fetchall()
            else:
                self._require_database(conn, db)
                heads = conn.execute(
                    "SELECT id, version, db, name FROM tables WHERE db = ? ORDER BY name", (db,)
                ).fetchall()
            found: dict[int, TableMeta] = {}
            stale: list[int] = []
            for tid, version, _db, _name in heads:
                cached = self._meta_cache.get(tid)
                if cached is not None and cached[0] == version:
                    found[tid] = cached[1]
                else:
                    stale.append(tid)
            texts: dict[int, str] = {}
            for start in range(0, len(stale), 500):
                chunk = stale[start : start + 500]
                marks = ",".join("?" * len(chunk))
                texts.update(conn.execute(f"SELECT id, meta FROM tables WHERE id IN ({marks})", chunk))
        if texts:
            heads_by_id = {h[0]: h for h in heads}
            order = list(texts)
            try:
                decoded = list(zip(order, codec.decode_all(texts[t] for t in order)))
            except (ValueError, TypeError, KeyError):  # a damaged entry among them: one by one
                decoded = [(tid, None) for tid in order]
            for i, (tid, meta) in enumerate(decoded):
                if not isinstance(meta, TableMeta):
                    _tid, _version, tdb, tname = heads_by_id[tid]
                    try:
                        decoded[i] = (tid, self._decode_meta(tid, texts[tid], tdb, tname))
                    except DamagedTableError as exc:
                        if damaged is not None:
                            damaged.append(exc)
            decoded = [(tid, meta) for tid, meta in decoded if isinstance(meta, TableMeta)]
            for tid, meta in decoded:
                found[tid] = self._remember(tid, heads_by_id[tid][1], meta)
        return [found[h[0]] for h in heads if h[0] in found]

    def commit_table(
        self,
        meta: TableMeta,
        expected_version: int | None = None,
        *,
        recycle: Sequence[RecycleBinEntry] = (),
        restore: int | None = None,
    ) -> TableMeta:
        """Replace the table's metadata if nobody changed it since `expected_version`.

        `expected_version` defaults to ``meta.version`` (the version it was loaded at). The update
        is one ``UPDATE tables ... WHERE id = ? AND version = ?``; if it matches no row, nothing is
        written and `CommitConflictError` says what happened (changed, dropped, re-created).
        Returns the metadata as stored: ``version = expected + 1`` and ids for new partitions
        (id <= 0). The table is found by ``meta.id``, so `meta` may carry a new name or database
        (that is a rename; `rename_table` is the friendlier call).

        In the same transaction, `recycle` entries go into the recycle bin and entry `restore`
        leaves it (CatalogError, nothing written, if it is not there any more).
        """
        expected = meta.version if expected_version is None else expected_version
        validate_name("database", meta.db)
        validate_name("table", meta.name)
        for p in meta.partitions:
            validate_name("partition", p.name)
        with self._write() as conn:
            if (
                restore is not None
                and conn.execute("DELETE FROM recycle_bin WHERE id = ? AND table_id = ?", (restore, meta.id)).rowcount
                != 1
            ):
                raise CatalogError(
                    f"entry {restore} of table '{meta.db}.{meta.name}' is no longer in the "
                    "recycle bin (recovered or expired meanwhile); nothing was committed"
                )
            new = self._assign_partition_ids(conn, replace(meta, version=expected + 1))
            cdb, cgroup = _colocate_key(new)
            old_group = conn.execute(
                "SELECT colocate_db, colocate_group, db, name FROM tables WHERE id = ?", (meta.id,)
            ).fetchone()
            if old_group is not None and (old_group[2], old_group[3]) != (new.db, new.name):
                self._check_rename_target(conn, new.db, new.name)
            if cgroup is not None:
                if old_group is not None and (old_group[0], old_group[1]) == (cdb, cgroup):
                    existing = self._group_row(conn, cdb or "", cgroup)
                    if existing is not None:  # a member's new partitions must fit its group
                        colocation.check_schema(existing, new)
                    else:
                        self._join_group(conn, new)
                else:
                    self._join_group(conn, new)
            cur = conn.execute(
                "UPDATE tables SET db = ?, name = ?, version = version + 1, colocate_db = ?, colocate_group = ?, "
                "meta = ?, updated_at = ? WHERE id = ? AND version = ?",
                (new.db, new.name, cdb, cgroup, codec.encode(new), _now_text(), meta.id, expected),
            )
            if cur.rowcount != 1:
                raise self._conflict(conn, meta, expected)
            if old_group is not None and (old_group[0], old_group[1]) != (cdb, cgroup):
                self._gc_group(conn, old_group[0], old_group[1])
            for entry in recycle:
                self._put_in_bin(conn, entry)
        self._meta_cache[new.id] = (new.version, new)
        return new

    def _conflict(self, conn: Conn, meta: TableMeta, expected: int) -> CommitConflictError:
        row = conn.execute("SELECT version, db, name FROM tables WHERE id = ?", (meta.id,)).fetchone()
        label = f"{meta.db}.{meta.name}"
        if row is not None:
            return CommitConflictError(
                f"Table '{label}' was changed by another session (catalog version is {row[0]}, this change "
                f"was based on version {expected}); nothing was committed, retry the statement"
            )
        other = conn.execute("SELECT id FROM tables WHERE db = ? AND name = ?", (meta.db, meta.name)).fetchone()
        if other is not None:
            return CommitConflictError(
                f"Table '{label}' was dropped and re-created by another session (id {meta.id} is now "
                f"{other[0]}); nothing was committed, retry the statement"
            )
        return CommitConflictError(f"Table '{label}' was dropped by another session; nothing was committed")

    def _check_rename_target(self, conn: Conn, db: str, name: str) -> None:
        self._require_database(conn, db)
        if conn.execute("SELECT 1 FROM tables WHERE db = ? AND name = ?", (db, name)).fetchone():
            raise AlreadyExistsError(f"Table name[{name}] is already used")
        if self._view_row(conn, db, name) is not None:
            raise AlreadyExistsError(f"Table name[{name}] is already used")

    def drop_table(
        self,
        db: str,
        name: str,
        if_exists: bool = False,
        expected_version: int | None = None,
        *,
        force: bool = False,
        dropped_at: dt.datetime | None = None,
    ) -> TableMeta | None:
        """Remove the table's metadata and return it.

        Unless `force`, the table goes into the recycle bin (stamped `dropped_at`, default now)
        in the same transaction and its data stays where it is; with `force` the engine deletes
        the data and the bin forgets the table's dropped partitions.
        ``Unknown table 't'`` (1051, as Doris's DROP TABLE) unless `if_exists` (then None). With
        `expected_version`, refuses with CommitConflictError if the table changed since. A
        colocation group left without tables is removed, as in Doris.
        """
        with self._write() as conn:
            row = conn.execute(
                "SELECT id, version, meta, db, name, colocate_db, colocate_group FROM tables WHERE db = ? AND name = ?",
                (db, name),
            ).fetchone()
            if row is None:
                self._require_database(conn, db)
                if if_exists:
                    return None
                err = UnknownTableError(f"Unknown table '{name}'")
                err.code = 1051
                raise err
            if expected_version is not None and row[1] != expected_version:
                raise CommitConflictError(
                    f"Table '{db}.{name}' was changed by another session (catalog version is {row[1]}, this "
                    f"change was based on version {expected_version}); nothing was committed, retry the statement"
                )
            try:
                meta: TableMeta | None = self._meta_from_row(*row[:5])
            except DamagedTableError:
                meta = None  # a damaged entry can still be dropped
            conn.execute("DELETE FROM tables WHERE id = ?", (row[0],))
            if force or meta is None:  # a damaged entry cannot be recovered: it skips the bin
                self._forget_partitions(conn, [row[0]])
                self._gc_group(conn, row[5], row[6])
            else:  # stays in its colocation group until the bin erases it (Doris)
                (db_id,) = conn.execute("SELECT id FROM databases WHERE name = ?", (db,)).fetchone()
                self._put_in_bin(conn, self._table_entry(meta, db_id, dropped_at or dt.datetime.now()))
        self._meta_cache.pop(row[0], None)
        return meta

    # ------------------------------------------------------------------ views

    @staticmethod
    def _view_row(conn: Conn, db: str, name: str) -> tuple | None:
        return conn.execute("SELECT id, entry FROM views WHERE db = ? AND name = ?", (db, name)).fetchone()

    @staticmethod
    def _decode_view(row: tuple) -> ViewMeta:
        view = codec.decode(row[1])
        if not isinstance(view, ViewMeta):
            raise CatalogError(f"catalog row of view id {row[0]} does not hold a ViewMeta")
        return view

    def create_view(self, view: ViewMeta, *, or_replace: bool = False, if_not_exists: bool = False) -> ViewMeta | None:
        """Add a view (or replace one, with `or_replace`); None when `if_not_exists` found the name
        taken. A table of the name: ``Table 'v' already exists`` (1050), as Doris: one namespace."""
        validate_name("database", view.db)
        validate_name("table", view.name)
        with self._write() as conn:
            self._require_database(conn, view.db)
            if conn.execute("SELECT 1 FROM tables WHERE db = ? AND name = ?", (view.db, view.name)).fetchone():
                if if_not_exists:
                    return None
                raise AlreadyExistsError(f"Table '{view.name}' already exists")
            row = self._view_row(conn, view.db, view.name)
            if row is not None:
                if if_not_exists:
                    return None
                if not or_replace:
                    raise AlreadyExistsError(f"Table '{view.name}' already exists")
                old = self._decode_view(row)
                new = replace(view, id=row[0], created_at=old.created_at, updated_at=view.created_at)
                conn.execute(
                    "UPDATE views SET entry = ?, updated_at = ? WHERE id = ?", (codec.encode(new), _now_text(), row[0])
                )
                return new
            new = replace(view, id=self._take_ids(conn, 1)[0])
            conn.execute(
                "INSERT INTO views (id, db, name, entry, updated_at) VALUES (?, ?, ?, ?, ?)",
                (new.id, new.db, new.name, codec.encode(new), _now_text()),
            )
        return new

    def get_view(self, db: str, name: str) -> ViewMeta | None:
        """The view `db`.`name`, or None (no such view; a table is no view)."""
        row = self._view_row(self._conn(), db, name)
        return None if row is None else self._decode_view(row)

    def list_views(self, db: str | None = None) -> list[ViewMeta]:
        """Every view (of one database, or all), ordered by (db, name)."""
        if db is None:
            rows = self._conn().execute("SELECT id, entry FROM views ORDER BY db, name").fetchall()
        else:
            rows = self._conn().execute("SELECT id, entry FROM views WHERE db = ? ORDER BY name", (db,)).fetchall()
        return [self._decode_view(r) for r in rows]

    def drop_view(self, db: str, name: str, if_exists: bool = False) -> ViewMeta | None:
        """Remove the view and return it (None: absent with `if_exists`); ``Unknown table 'v'``
        (1051). A view holds no data, so it skips the recycle bin."""
        with self._write() as conn:
            row = self._view_row(conn, db, name)
            if row is None:
                self._require_database(conn, db)
                if if_exists:
                    return None
                err = UnknownTableError(f"Unknown table '{name}'")
                err.code = 1051
                raise err
            conn.execute("DELETE FROM views WHERE id = ?", (row[0],))
        return self._decode_view(row)

    def replace_table(
        self,
        db: str,
        name: str,
        other: str,
        *,
        swap: bool,
        force: bool = False,
        table_ids: tuple[int, int] | None = None,
        dropped_at: dt.datetime | None = None,
    ) -> tuple[TableMeta, TableMeta | None]:
        """Catalog.replace_table: one write transaction of conditional updates, so the exchange
        is all or nothing (a crash rolls it back) and readers see either side of it."""
        with self._write() as conn:
            rows = []
            for table_name in (name, other):
                row = conn.execute(
                    "SELECT id, version, meta, db, name, colocate_db, colocate_group FROM tables "
                    "WHERE db = ? AND name = ?",
                    (db, table_name),
                ).fetchone()
                if row is None:
                    self._require_database(conn, db)
                    err = UnknownTableError(f"table not found, tableName={table_name}")
                    err.code = 1051
                    raise err
                rows.append(row)
            if table_ids is not None and (rows[0][0], rows[1][0]) != table_ids:
                raise CommitConflictError(
                    f"Table '{db}.{name}' or '{db}.{other}' was dropped or replaced by another session; "
                    "nothing was committed, retry the statement"
                )
            old, new = (self._meta_from_row(*row[:5]) for row in rows)
            moved_in = replace(renamed(new, name), version=new.version + 1)
            moved_out = replace(renamed(old, other), version=old.version + 1) if swap else None
            update = "UPDATE tables SET name = ?, version = ?, meta = ?, updated_at = ? WHERE id = ? AND version = ?"
            if swap:  # names are unique at every statement: park the old one on a name no table can
                # have (a leading space; not NUL, which PostgreSQL's text refuses)
                conn.execute("UPDATE tables SET name = ? WHERE id = ?", (f" replacing {old.id}", old.id))
            else:
                conn.execute("DELETE FROM tables WHERE id = ?", (old.id,))
            for meta, before in ((moved_in, new), (moved_out, old)):
                if meta is None:
                    continue
                cur = conn.execute(
                    update, (meta.name, meta.version, codec.encode(meta), _now_text(), meta.id, before.version)
                )
                if cur.rowcount != 1:
                    raise self._conflict(conn, before, before.version)
            if not swap:
                if force:  # its dropped partitions go with its folder; a group left empty goes
                    self._forget_partitions(conn, [old.id])
                    self._gc_group(conn, rows[0][5], rows[0][6])
                else:  # into the recycle bin, staying in its colocation group (as DROP TABLE)
                    (db_id,) = conn.execute("SELECT id FROM databases WHERE name = ?", (db,)).fetchone()
                    self._put_in_bin(conn, self._table_entry(old, db_id, dropped_at or dt.datetime.now()))
        self._meta_cache.pop(old.id, None)
        self._meta_cache[moved_in.id] = (moved_in.version, moved_in)
        if moved_out is not None:
            self._meta_cache[moved_out.id] = (moved_out.version, moved_out)
        return moved_in, moved_out if swap else old

    # ------------------------------------------------------------------ recycle bin

    @staticmethod
    def _table_entry(meta: TableMeta, db_id: int, when: dt.datetime) -> RecycleBinEntry:
        return RecycleBinEntry(
            kind=RECYCLED_TABLE,
            id=meta.id,
            name=meta.name,
            db_id=db_id,
            db_name=meta.db,
            table_id=meta.id,
            dropped_at=when,
            table=meta,
        )

    @staticmethod
    def _put_in_bin(conn: Conn, entry: RecycleBinEntry) -> None:
        """A Table entry records the colocation group it stays a member of while in the bin."""
        gdb, gname = _colocate_key(entry.table) if entry.kind == RECYCLED_TABLE and entry.table else (None, None)
        conn.execute(
            "INSERT INTO recycle_bin (id, kind, name, db_id, db_name, table_id, dropped_at, entry, "
            "colocate_db, colocate_group) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "kind = excluded.kind, name = excluded.name, db_id = excluded.db_id, db_name = excluded.db_name, "
            "table_id = excluded.table_id, dropped_at = excluded.dropped_at, entry = excluded.entry, "
            "colocate_db = excluded.colocate_db, colocate_group = excluded.colocate_group",
            (
                entry.id,
                entry.kind,
                entry.name,
                entry.db_id,
                entry.db_name,
                entry.table_id,
                entry.dropped_at.isoformat(timespec="microseconds"),
                codec.encode(entry),
                gdb,
                gname,
            ),
        )

    @staticmethod
    def _forget_partitions(conn: Conn, table_ids: Sequence[int]) -> None:
        conn.executemany(
            "DELETE FROM recycle_bin WHERE table_id = ? AND kind = ?", [(tid, RECYCLED_PARTITION) for tid in table_ids]
        )

    @staticmethod
    def _bin_entry(conn: Conn, entry_id: int, kind: str) -> RecycleBinEntry | None:
        row = conn.execute("SELECT entry FROM recycle_bin WHERE id = ? AND kind = ?", (entry_id, kind)).fetchone()
        return None if row is None else codec.decode(row[0])

    def list_recycle_bin(
        self, *, kind: str | None = None, db_id: int | None = None, table_id: int | None = None
    ) -> list[RecycleBinEntry]:
        """Entries of the recycle bin, oldest drop first (then by id)."""
        where, args = [], []
        for column, value in (("kind", kind), ("db_id", db_id), ("table_id", table_id)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT entry FROM recycle_bin" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._conn().execute(sql + " ORDER BY dropped_at, id", args).fetchall()
        return list(codec.decode_all(r[0] for r in rows))

    def recover_database(self, entry_id: int, new_name: str | None = None) -> tuple[DatabaseMeta, list[TableMeta]]:
        """RECOVER DATABASE: the database of entry `entry_id` and the tables dropped with it come
        back in one transaction, under `new_name` if given (``Database[x] already exist.`` when
        the name is taken, as Doris says it)."""
        with self._write() as conn:
            entry = self._bin_entry(conn, entry_id, RECYCLED_DATABASE)
            if entry is None or entry.database is None:
                raise UnknownDatabaseError(
                    f"Unknown database id '{entry_id}' in the recycle bin (recovered or expired meanwhile)"
                )
            target = validate_name("database", new_name or entry.name)
            if conn.execute("SELECT 1 FROM databases WHERE name = ?", (target,)).fetchone():
                raise CatalogError(f"Database[{target}] already exist.")
            tables = [self._bin_entry(conn, tid, RECYCLED_TABLE) for tid in entry.table_ids]
            missing = [name for name, t in zip(entry.table_ids, tables) if t is None or t.db_id != entry.id]
            if missing:
                raise CatalogError(f"Tables[[{', '.join(map(str, missing))}]] is missing. Can not recover db")
            database = replace(entry.database, name=target)
            conn.execute(
                "INSERT INTO databases (name, id, properties, created_at) VALUES (?, ?, ?, ?)",
                (target, database.id, codec.encode(database.properties), codec.encode(database.created_at)),
            )
            hidden = _dropped_db_key(database.id)
            conn.execute("UPDATE colocation_groups SET db = ? WHERE db = ?", (target, hidden))
            conn.execute("UPDATE recycle_bin SET colocate_db = ? WHERE colocate_db = ?", (target, hidden))
            recovered = [
                self._insert_recovered(conn, t.table, target, t.table.name) for t in tables if t is not None and t.table
            ]
            conn.executemany("DELETE FROM recycle_bin WHERE id = ?", [(i,) for i in (entry.id, *entry.table_ids)])
        return database, recovered

    def recover_table(self, entry_id: int, new_name: str | None = None) -> TableMeta:
        """RECOVER TABLE: the table of entry `entry_id` comes back into its database (found by
        id), named `new_name` if given (``Table 'x' already exists`` when the name is taken)."""
        with self._write() as conn:
            entry = self._bin_entry(conn, entry_id, RECYCLED_TABLE)
            if entry is None or entry.table is None:
                raise UnknownTableError(
                    f"Unknown table id '{entry_id}' in the recycle bin (recovered or expired meanwhile)"
                )
            db_row = conn.execute("SELECT name FROM databases WHERE id = ?", (entry.db_id,)).fetchone()
            if db_row is None:
                raise UnknownDatabaseError(f"Unknown database '{entry.db_name}'")
            target = validate_name("table", new_name or entry.name)
            taken = conn.execute("SELECT 1 FROM tables WHERE db = ? AND name = ?", (db_row[0], target)).fetchone()
            if taken or self._view_row(conn, db_row[0], target) is not None:
                raise AlreadyExistsError(f"Table '{target}' already exists")
            meta = self._insert_recovered(conn, entry.table, db_row[0], target)
            conn.execute("DELETE FROM recycle_bin WHERE id = ?", (entry.id,))
        return meta

    def _insert_recovered(self, conn: Conn, meta: TableMeta, db: str, name: str) -> TableMeta:
        """Put a table from the bin back, in database `db` as `name`. Its version moves on, so no
        cached copy of the dropped table (other name, other database) is ever taken for it."""
        table = replace(meta.definition.table, name=name, db=db)
        meta = replace(
            meta, db=db, name=name, version=meta.version + 1, definition=replace(meta.definition, table=table)
        )
        cdb, cgroup = _colocate_key(meta)
        if cgroup is not None:  # the group normally waited for it; else it is founded again
            self._join_group(conn, meta)
        conn.execute(
            "INSERT INTO tables (id, db, name, version, colocate_db, colocate_group, meta, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (meta.id, db, name, meta.version, cdb, cgroup, codec.encode(meta), _now_text()),
        )
        self._meta_cache[meta.id] = (meta.version, meta)
        return meta

    def erase_recycled(self, entry_ids: Sequence[int]) -> list[RecycleBinEntry]:
        """Forget entries for good; a database takes its tables along, a table its partitions.
        Returns what this call removed."""
        erased: dict[int, RecycleBinEntry] = {}
        with self._write() as conn:
            pending = list(entry_ids)
            while pending:
                entry_id = pending.pop()
                if entry_id in erased:
                    continue
                row = conn.execute("SELECT entry FROM recycle_bin WHERE id = ?", (entry_id,)).fetchone()
                if row is None:
                    continue
                entry: RecycleBinEntry = codec.decode(row[0])
                erased[entry.id] = entry
                group = conn.execute(
                    "SELECT colocate_db, colocate_group FROM recycle_bin WHERE id = ?", (entry.id,)
                ).fetchone()
                conn.execute("DELETE FROM recycle_bin WHERE id = ?", (entry.id,))
                self._gc_group(conn, *group)
                if entry.kind == RECYCLED_DATABASE:
                    pending.extend(tid for tid in entry.table_ids if tid not in erased)
                elif entry.kind == RECYCLED_TABLE:
                    pending.extend(
                        r[0]
                        for r in conn.execute(
                            "SELECT id FROM recycle_bin WHERE table_id = ? AND kind = ?", (entry.id, RECYCLED_PARTITION)
                        )
                    )
        return list(erased.values())

    # ------------------------------------------------------------------ frontend config

    def get_config(self, key: str, default: str | None = None) -> str | None:
        row = self._conn().execute("SELECT value FROM frontend_config WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]

    def set_configs(self, values: Mapping[str, object] | Sequence[tuple[str, object]]) -> None:
        """Persist several settings in one transaction (ADMIN SET FRONTEND CONFIG ("k" = "v", ...))."""
        items = list(values.items()) if isinstance(values, Mapping) else list(values)
        with self._write() as conn:
            conn.executemany(
                "INSERT INTO frontend_config (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [(str(k), _config_text(v)) for k, v in items],
            )

    def unset_config(self, key: str) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM frontend_config WHERE key = ?", (key,))

    def all_config(self) -> dict[str, str]:
        return dict(self._conn().execute("SELECT key, value FROM frontend_config ORDER BY key"))

    # ------------------------------------------------------------------ colocation groups

    @staticmethod
    def _group_from_row(row) -> ColocationGroup:
        return ColocationGroup(
            db=row[0],
            name=row[1],
            id=row[2],
            buckets=row[3],
            distribution_types=codec.decode(row[4]),
            replication_num=row[5],
            is_stable=bool(row[6]),
        )

    _GROUP_COLUMNS = "db, name, id, buckets, distribution_types, replication_num, is_stable"

    def _insert_group(self, conn: Conn, group: ColocationGroup) -> ColocationGroup:
        if group.name.startswith(GLOBAL_GROUP_PREFIX) and group.db:
            group = replace(group, db="")
        try:
            validate_name(
                "table",
                group.name[len(GLOBAL_GROUP_PREFIX) :] if group.name.startswith(GLOBAL_GROUP_PREFIX) else group.name,
            )
        except AnalysisError:
            raise AnalysisError(f"Incorrect colocate group name '{group.name}'") from None
        if group.db:
            self._require_database(conn, group.db)
        if conn.execute("SELECT 1 FROM colocation_groups WHERE db = ? AND name = ?", (group.db, group.name)).fetchone():
            raise AlreadyExistsError(f"Colocate group '{group.full_name}' already exists")
        group = replace(group, id=self._take_ids(conn, 1)[0])
        conn.execute(
            f"INSERT INTO colocation_groups ({self._GROUP_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                group.db,
                group.name,
                group.id,
                group.buckets,
                codec.encode(group.distribution_types),
                group.replication_num,
                int(group.is_stable),
            ),
        )
        return group

    def create_colocation_group(self, group: ColocationGroup) -> ColocationGroup:
        """Add a group (its id comes from the sequence)."""
        with self._write() as conn:
            return self._insert_group(conn, group)

    def get_colocation_group(self, db: str, name: str) -> ColocationGroup | None:
        """The group that ``"colocate_with" = name`` names from database `db`, or None."""
        gdb, gname = group_key(db, name)
        row = (
            self._conn()
            .execute(f"SELECT {self._GROUP_COLUMNS} FROM colocation_groups WHERE db = ? AND name = ?", (gdb, gname))
            .fetchone()
        )
        return None if row is None else self._group_from_row(row)

    def list_colocation_groups(self) -> list[ColocationGroup]:
        return [
            self._group_from_row(r)
            for r in self._conn().execute(f"SELECT {self._GROUP_COLUMNS} FROM colocation_groups ORDER BY db, name")
        ]

    def update_colocation_group(self, group: ColocationGroup) -> ColocationGroup:
        """Change a group's buckets / types / replication / stability (found by db and name)."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE colocation_groups SET buckets = ?, distribution_types = ?, replication_num = ?, "
                "is_stable = ? WHERE db = ? AND name = ?",
                (
                    group.buckets,
                    codec.encode(group.distribution_types),
                    group.replication_num,
                    int(group.is_stable),
                    group.db,
                    group.name,
                ),
            )
            if cur.rowcount != 1:
                raise CatalogError(f"Colocate group '{group.full_name}' does not exist")
            row = conn.execute(
                f"SELECT {self._GROUP_COLUMNS} FROM colocation_groups WHERE db = ? AND name = ?", (group.db, group.name)
            ).fetchone()
            return self._group_from_row(row)

    def drop_colocation_group(self, db: str, name: str, if_exists: bool = False) -> bool:
        gdb, gname = group_key(db, name)
        with self._write() as conn:
            cur = conn.execute("DELETE FROM colocation_groups WHERE db = ? AND name = ?", (gdb, gname))
            if cur.rowcount == 0 and not if_exists:
                raise CatalogError(f"Colocate group '{name}' does not exist")
            return cur.rowcount > 0

    def colocation_group_tables(self, db: str, name: str) -> list[TableMeta]:
        """Tables whose ``colocate_with`` names this group, ordered by (db, name)."""
        gdb, gname = group_key(db, name)
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id, version, meta FROM tables WHERE colocate_db = ? AND colocate_group = ? ORDER BY db, name",
                (gdb, gname),
            ).fetchall()
        return [self._meta_from_row(*r) for r in rows]

    def _group_row(self, conn: Conn, gdb: str, gname: str) -> ColocationGroup | None:
        row = conn.execute(
            f"SELECT {self._GROUP_COLUMNS} FROM colocation_groups WHERE db = ? AND name = ?", (gdb, gname)
        ).fetchone()
        return None if row is None else self._group_from_row(row)

    def _join_group(self, conn: Conn, meta: TableMeta) -> None:
        """The table founds the group its colocate_with names or must match it (Doris's
        ColocateGroupSchema.checkColocateSchema messages)."""
        schema = colocation.schema_of(meta)
        existing = self._group_row(conn, schema.db, schema.name)
        if existing is None:
            self._insert_group(conn, schema)
            return
        colocation.check_schema(existing, meta)

    def _gc_group(self, conn: Conn, gdb: str | None, gname: str | None) -> None:
        if gname is None:
            return
        if (
            conn.execute(
                "SELECT 1 FROM tables WHERE colocate_db = ? AND colocate_group = ? LIMIT 1", (gdb, gname)
            ).fetchone()
            is None
        ):
            if (
                conn.execute(
                    "SELECT 1 FROM recycle_bin WHERE colocate_db = ? AND colocate_group = ? LIMIT 1", (gdb, gname)
                ).fetchone()
                is None
            ):
                conn.execute("DELETE FROM colocation_groups WHERE db = ? AND name = ?", (gdb, gname))

    # ------------------------------------------------------------------ users (dorisql.auth)

    def get_user(self, name: str, host: str) -> UserEntry | None:
        row = self._conn().execute("SELECT entry FROM users WHERE name = ? AND host = ?", (name, host)).fetchone()
        if row is not None:
            return codec.decode(row[0])
        return BUILTIN_USERS.get((name, host))

    def list_users(self) -> list[UserEntry]:
        stored = {
            (e.name, e.host): e for e in (codec.decode(r[0]) for r in self._conn().execute("SELECT entry FROM users"))
        }
        merged = {**BUILTIN_USERS, **stored}
        return [merged[k] for k in sorted(merged)]

    def create_user(self, entry: UserEntry) -> bool:
        if (entry.name, entry.host) in BUILTIN_USERS:
            return False
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO users (name, host, entry) VALUES (?, ?, ?) ON CONFLICT (name, host) DO NOTHING",
                (entry.name, entry.host, codec.encode(entry)),
            )
            return cursor.rowcount == 1

    def update_user(self, name: str, host: str, change: UserChange) -> UserEntry | None:
        with self._write() as conn:
            row = conn.execute("SELECT entry FROM users WHERE name = ? AND host = ?", (name, host)).fetchone()
            current = codec.decode(row[0]) if row is not None else BUILTIN_USERS.get((name, host))
            if current is None:
                return None
            new = change(current)
            conn.execute(
                "INSERT INTO users (name, host, entry) VALUES (?, ?, ?) "
                "ON CONFLICT (name, host) DO UPDATE SET entry = excluded.entry",
                (name, host, codec.encode(new)),
            )
            return new

    def drop_user(self, name: str, host: str) -> bool:
        with self._write() as conn:
            return conn.execute("DELETE FROM users WHERE name = ? AND host = ?", (name, host)).rowcount == 1

    # ------------------------------------------------------------------ load labels

    def claim_load(self, record: LoadRecord, *, replace_states: Sequence[str] = ()) -> LoadRecord | None:
        with self._write() as conn:
            row = conn.execute(
                "SELECT entry FROM load_labels WHERE db = ? AND label = ?", (record.db, record.label)
            ).fetchone()
            if row is not None:
                held = codec.decode(row[0])
                if held.state not in replace_states:
                    return held
            conn.execute(
                "INSERT INTO load_labels (db, label, txn_id, state, created_at, entry) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (db, label) DO UPDATE SET txn_id = excluded.txn_id, state = excluded.state, "
                "created_at = excluded.created_at, entry = excluded.entry",
                (
                    record.db,
                    record.label,
                    record.txn_id,
                    record.state,
                    record.created_at.isoformat(),
                    codec.encode(record),
                ),
            )
            return None

    def update_load(self, record: LoadRecord) -> None:
        with self._write() as conn:
            conn.execute(
                "UPDATE load_labels SET txn_id = ?, state = ?, entry = ? WHERE db = ? AND label = ?",
                (record.txn_id, record.state, codec.encode(record), record.db, record.label),
            )

    def forget_loads(self, records: Sequence[LoadRecord]) -> int:
        if not records:
            return 0
        removed = 0
        with self._write() as conn:
            for r in records:
                cursor = conn.execute(
                    "DELETE FROM load_labels WHERE db = ? AND label = ? AND txn_id = ? AND state = ?",
                    (r.db, r.label, r.txn_id, r.state),
                )
                removed += max(cursor.rowcount, 0)
        return removed

    def get_load(self, db: str, label: str) -> LoadRecord | None:
        row = self._conn().execute("SELECT entry FROM load_labels WHERE db = ? AND label = ?", (db, label)).fetchone()
        return codec.decode(row[0]) if row is not None else None

    def list_loads(self, db: str | None = None, limit: int | None = None) -> list[LoadRecord]:
        sql = "SELECT entry FROM load_labels"
        params: list = []
        if db is not None:
            sql += " WHERE db = ?"
            params.append(db)
        sql += " ORDER BY created_at DESC, txn_id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return [codec.decode(r[0]) for r in self._conn().execute(sql, params)]

    # ------------------------------------------------------------------ transaction intents

    def put_txn_intent(self, txn_id: str, entry: str) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO txn_intents (txn_id, created_at, entry) VALUES (?, ?, ?)", (txn_id, _now_text(), entry)
            )

    def txn_intents(self) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self._conn().execute("SELECT txn_id, entry FROM txn_intents ORDER BY created_at")]

    def drop_txn_intent(self, txn_id: str) -> bool:
        with self._write() as conn:
            return conn.execute("DELETE FROM txn_intents WHERE txn_id = ?", (txn_id,)).rowcount == 1


class SqliteCatalog(SqlCatalog):
    """Doris-level metadata of one warehouse, in SQLite (the embedded default).

    >>> cat = SqliteCatalog("/data/warehouse")
    >>> cat.create_database("db")
    >>> meta = cat.create_table(TableMeta(id=0, db="db", name="t", definition=create_table_stmt))
    >>> meta = cat.update_table("db", "t", lambda m: dataclasses.replace(m, partitions=...))  # version + 1
    """

    backend = "SQLite"

    def __init__(self, warehouse_root: str | os.PathLike[str], *, timeout: float = 60.0, path: Path | None = None):
        self.root = Path(warehouse_root)
        self.path = path or catalog_dir(self.root) / CATALOG_FILE
        self.timeout = timeout
        self._setup()
        #: A warehouse we cannot write (permissions, read-only mount): reads work, writes are refused.
        self.read_only = self.path.exists() and not _writable(self.path)
        if not self.read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._init_schema()

    # ------------------------------------------------------------------ connections

    @classmethod
    def at(cls, path: str | os.PathLike[str]) -> SqliteCatalog:
        """The catalog in the file `path` (``<warehouse>/_catalog/catalog.db`` normally)."""
        file = Path(path)
        return cls(file.parent.parent, path=file)

    def _connect(self) -> sqlite3.Connection:
        if self.read_only:
            return self._connect_read_only()
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            conn.close()
            raise CatalogError(
                f"cannot switch the catalog '{self.path}' to WAL mode (got {mode!r}); "
                "is the warehouse on a network filesystem?"
            )
        conn.execute("PRAGMA synchronous = FULL")
        return conn

    def _connect_read_only(self) -> sqlite3.Connection:
        """Read-only: through the WAL files if a writer left them (``mode=ro``), else as an
        immutable file (no WAL files means nothing uncheckpointed; no locks can be taken)."""
        uri = self.path.resolve().as_uri()
        for params in ("mode=ro", "mode=ro&immutable=1"):
            try:
                conn = sqlite3.connect(
                    f"{uri}?{params}", uri=True, timeout=self.timeout, isolation_level=None, check_same_thread=False
                )
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return conn
            except sqlite3.OperationalError:
                continue
        raise CatalogError(f"cannot read the catalog '{self.path}' of the read-only warehouse '{self.root}'")

    def _conn(self) -> sqlite3.Connection:
        conn = super()._conn()
        assert isinstance(conn, sqlite3.Connection)
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: BEGIN IMMEDIATE takes the write lock up front (waiting up to
        `timeout` behind other writers), so a read-modify-write inside cannot be interleaved."""
        if self.read_only:
            raise ReadOnlyWarehouseError(self.root)
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise CatalogError(
                f"the catalog '{self.path}' is busy ({exc}); another dorisql process holds "
                f"its write lock for more than {self.timeout:g}s"
            ) from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: several SELECTs see one snapshot."""
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def _init_schema(self) -> None:
        """Create or migrate the schema, all in one write transaction (see the module docstring)."""
        if self.read_only:
            version = self._conn().execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                raise CatalogError(
                    f"the catalog '{self.path}' has schema version {version} and dorisql "
                    f"{SCHEMA_VERSION}; the warehouse is read-only, so it cannot be migrated"
                )
            return
        with self._write() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise CatalogError(
                    f"the catalog '{self.path}' has schema version {version}, newer than this "
                    f"dorisql understands ({SCHEMA_VERSION}); upgrade dorisql"
                )
            if version == SCHEMA_VERSION:
                return
            if version == 0:
                _run_script(conn, _SCHEMA)
                conn.execute(
                    "INSERT INTO sequences (name, value) VALUES ('id', ?) ON CONFLICT (name) DO NOTHING", (FIRST_ID,)
                )
                version = 1
            for target in range(version + 1, SCHEMA_VERSION + 1):
                try:
                    _run_script(conn, _MIGRATIONS[target])
                except sqlite3.Error as exc:
                    raise CatalogError(
                        f"could not upgrade the catalog '{self.path}' to schema version {target} "
                        f"({exc}); it was left unchanged at version {version}"
                    ) from exc
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _writable(path: Path) -> bool:
    """Can this process change the catalog file and its folder (which SQLite's journal needs)?
    A read-only mount stops root as well, so it is checked besides the permissions."""
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return False
    except OSError:
        return False
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK)


def _run_script(conn: Conn, script: str) -> None:
    """Run `;`-separated statements one by one (executescript would commit the transaction)."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def _config_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
