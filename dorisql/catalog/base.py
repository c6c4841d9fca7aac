"""The catalog interface: what every catalog backend (SQLite today, a server database next) offers.

A backend implements the primitive operations (load, conditional commit, create, drop, ...).
Changing a table goes through one door, `Catalog.update_table`: it loads the table, asks the
caller's `change` function for the new metadata, commits it conditionally on the version it
loaded, and on a concurrent change reloads and asks again. Retrying lives here, once, and not in
every caller (PyIceberg's ``commit_table`` with requirements works the same way).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence

from dorisql.ast import DataType, Properties
from dorisql.auth.privileges import ADMIN, Grant
from dorisql.catalog.model import PartitionMeta, TableMeta, ViewMeta
from dorisql.errors import AnalysisError, CommitConflictError, DamagedTableError
from dorisql.warehouse import validate_name

__all__ = [
    "Catalog",
    "TableChange",
    "Recycled",
    "DatabaseMeta",
    "ColocationGroup",
    "COMMIT_RETRIES",
    "GLOBAL_GROUP_PREFIX",
    "group_key",
    "RecycleBinEntry",
    "RecycledFile",
    "RECYCLED_DATABASE",
    "RECYCLED_TABLE",
    "RECYCLED_PARTITION",
    "UserEntry",
    "UserChange",
    "LoadRecord",
    "BUILTIN_USERS",
]

#: How often `update_table` re-reads and retries when another session changed the table meanwhile.
COMMIT_RETRIES = 20

#: Colocation groups named with this prefix are shared by all databases (Doris).
GLOBAL_GROUP_PREFIX = "__global__"

#: A change to one table: the current metadata in, the new metadata out. Returning the argument
#: itself (or None) means "nothing to change"; raising aborts the update with nothing written.
#: It may be called several times (once per retry), each time with fresher metadata, so it must
#: decide from its argument alone.
TableChange = Callable[[TableMeta], TableMeta | None]

#: What a table change puts in the recycle bin, in the same transaction as the change: called
#: with the metadata before and after the change (once per attempt, like TableChange).
Recycled = Callable[[TableMeta, TableMeta], Sequence["RecycleBinEntry"]]


@dataclasses.dataclass(frozen=True)
class DatabaseMeta:
    id: int
    name: str
    properties: Properties = ()
    created_at: dt.datetime = dataclasses.field(default_factory=dt.datetime.now)


@dataclasses.dataclass(frozen=True)
class ColocationGroup:
    """A colocation group (SHOW PROC '/colocation_group').

    `name` is the group name as written in ``"colocate_with"``; `db` is its database, or "" for a
    global group (name starting with ``__global__``). Tables join a group with the same bucket
    count and the same distribution column types (Doris checks type and length).
    """

    name: str
    db: str
    buckets: int
    distribution_types: tuple[DataType, ...] = ()
    replication_num: int = 1
    is_stable: bool = True
    id: int = 0

    @property
    def full_name(self) -> str:
        """Doris's ``dbId_name`` form is internal; dorisql shows ``db.name`` (or the global name)."""
        return self.name if not self.db else f"{self.db}.{self.name}"


#: The kinds of recycle-bin entries, as SHOW CATALOG RECYCLE BIN prints them.
RECYCLED_DATABASE = "Database"
RECYCLED_TABLE = "Table"
RECYCLED_PARTITION = "Partition"


@dataclasses.dataclass(frozen=True)
class RecycledFile:
    """A data file of a dropped partition: an ``add`` action its DROP removed from the Delta log,
    recorded so RECOVER PARTITION can add exactly the same files back."""

    #: Relative to the table folder, as on disk (``__partition=<id>/__bucket=<n>/<file>``).
    path: str
    bucket: int
    size: int
    num_records: int | None = None
    #: ms since the epoch, as the add action had it.
    modification_time: int = 0


@dataclasses.dataclass(frozen=True)
class RecycleBinEntry:
    """A dropped database, table or partition in the catalog recycle bin (Doris CatalogRecycleBin).

    `id` is the object's own id (ids are never reused, so one id is one entry). A Database entry
    lists the tables dropped with it (each has its own Table entry); a Partition entry holds the
    partition's catalog metadata, its Delta partition value and the files its drop removed.
    The data stays on disk until the entry expires (``catalog_trash_expire_second`` after
    `dropped_at`, on the engine's clock) or is recovered.
    """

    kind: str
    id: int
    name: str
    db_id: int
    #: The database's name when the object was dropped.
    db_name: str
    #: Table entries: their own id; Partition entries: their table's; Database entries: None.
    table_id: int | None
    dropped_at: dt.datetime
    database: DatabaseMeta | None = None
    table_ids: tuple[int, ...] = ()
    table: TableMeta | None = None
    partition: PartitionMeta | None = None
    storage_key: str | None = None
    files: tuple[RecycledFile, ...] = ()

    @property
    def files_size(self) -> int:
        return sum(f.size for f in self.files)


@dataclasses.dataclass(frozen=True)
class UserEntry:
    """A user identity 'name'@'host': its password as MySQL's native hash ('*' + 40 hex digits,
    '' for none: dorisql.auth.passwords) and its grants (dorisql.auth.privileges.Grant)."""

    name: str
    host: str
    password: str = ""
    grants: tuple = ()
    comment: str = ""
    created_at: dt.datetime = dataclasses.field(default_factory=dt.datetime.now)


#: A change to one user: the current entry in, the new entry out (may be called again on retry).
UserChange = Callable[[UserEntry], UserEntry]


def _builtin_users() -> dict[tuple[str, str], UserEntry]:
    every = Grant("*", "*", (ADMIN,))
    return {
        ("root", "%"): UserEntry("root", "%", grants=(every,), comment="ROOT", created_at=dt.datetime(1970, 1, 1)),
        ("admin", "%"): UserEntry("admin", "%", grants=(every,), comment="ADMIN", created_at=dt.datetime(1970, 1, 1)),
    }


#: Doris's built-in users, both with every privilege and no password until one is set. They
#: exist without a catalog row; SET PASSWORD writes their row. They cannot be dropped.
BUILTIN_USERS = _builtin_users()


@dataclasses.dataclass(frozen=True)
class LoadRecord:
    """A load with a label (Stream Load): the label is unique per database and makes the load
    idempotent (docs/stream_load.md). `state` is LOADING while a request holds it, FINISHED
    once its Delta commit is recorded, CANCELLED when it failed (the label may be used again)."""

    db: str
    label: str
    table: str
    txn_id: int
    state: str
    created_at: dt.datetime
    finished_at: dt.datetime | None = None
    user: str = ""
    load_type: str = "STREAM_LOAD"
    total_rows: int = 0
    loaded_rows: int = 0
    filtered_rows: int = 0
    unselected_rows: int = 0
    load_bytes: int = 0
    message: str = ""
    error_url: str = ""
    delta_version: int | None = None
    #: The address the load came from (SHOW STREAM LOAD's ClientIp).
    client_ip: str = ""


def renamed(meta: TableMeta, new_name: str) -> TableMeta:
    """The table under a new name (RENAME, REPLACE WITH TABLE): its definition follows, and so does
    the one partition of an unpartitioned table, which Doris names after the table
    (OlapTable.setName)."""
    definition = dataclasses.replace(meta.definition, table=dataclasses.replace(meta.definition.table, name=new_name))
    partitions = meta.partitions
    if definition.partition is None and len(partitions) == 1 and partitions[0].name == meta.name:
        partitions = (dataclasses.replace(partitions[0], name=new_name),)
    return dataclasses.replace(meta, name=new_name, definition=definition, partitions=partitions)


def group_key(db: str, group_name: str) -> tuple[str, str]:
    """The (db, name) a colocate_with value names: global groups belong to no database."""
    return ("" if group_name.startswith(GLOBAL_GROUP_PREFIX) else db), group_name


class Catalog(ABC):
    """Doris-level metadata of one warehouse: databases, tables, partitions, groups, FE config."""

    #: A catalog that cannot be written (permissions, a read-only mount): reads work, and the
    #: statements that would change anything are refused before they start.
    read_only: bool = False

    # ------------------------------------------------------------------ the one door for table changes

    def update_table(
        self,
        db: str,
        name: str,
        change: TableChange,
        *,
        table_id: int | None = None,
        expected_version: int | None = None,
        retries: int = COMMIT_RETRIES,
        recycled: Recycled | None = None,
        restore: int | None = None,
    ) -> TableMeta:
        """Apply `change` to the table and commit it, retrying on concurrent changes.

        With `table_id`, the update applies only to that incarnation of the table: if it was
        dropped and re-created under the same name meanwhile, CommitConflictError. With
        `expected_version` the caller decided on that version of the table: no retry, and
        CommitConflictError if the table has moved on since. Returns the
        metadata as committed (or as found, when `change` had nothing to do). Errors raised by
        `change` (e.g. AnalysisError) leave the catalog untouched.

        The recycle bin moves with the change, in the same transaction: `recycled(before, after)`
        gives the entries the change puts in the bin (DROP PARTITION), `restore` is the id of the
        entry the change takes out of it (RECOVER PARTITION; if that entry is gone by commit
        time, nothing is committed and CatalogError says so).
        """
        if expected_version is not None:
            retries = 1
        for attempt in range(retries):
            current = self.load_table(db, name)
            if table_id is not None and current.id != table_id:
                raise CommitConflictError(
                    f"Table '{db}.{name}' was dropped and re-created by another session; nothing was committed"
                )
            if expected_version is not None and current.version != expected_version:
                raise CommitConflictError(
                    f"Table '{db}.{name}' was changed by another session (catalog version is {current.version}, "
                    f"this change was based on version {expected_version}); nothing was committed, retry the statement"
                )
            new = change(current)
            if new is None or new is current:
                return current
            try:
                return self.commit_table(
                    new,
                    expected_version=current.version,
                    recycle=recycled(current, new) if recycled is not None else (),
                    restore=restore,
                )
            except CommitConflictError:
                if attempt == retries - 1:
                    raise
        raise CommitConflictError(f"Table '{db}.{name}' kept changing; gave up after {retries} attempts")

    # ------------------------------------------------------------------ ids

    @abstractmethod
    def next_ids(self, count: int) -> range:
        """`count` new consecutive ids, larger than every id handed out before."""

    def next_id(self) -> int:
        return self.next_ids(1)[0]

    # ------------------------------------------------------------------ databases

    @abstractmethod
    def create_database(
        self, name: str, if_not_exists: bool = False, properties: Properties | Mapping[str, str] | None = None
    ) -> DatabaseMeta: ...

    @abstractmethod
    def get_database(self, name: str) -> DatabaseMeta: ...

    @abstractmethod
    def database_exists(self, name: str) -> bool: ...

    @abstractmethod
    def list_databases(self) -> list[str]: ...

    @abstractmethod
    def drop_database(
        self, name: str, if_exists: bool = False, force: bool = False, *, dropped_at: dt.datetime | None = None
    ) -> list[TableMeta]:
        """DROP DATABASE: the database and its tables leave the catalog in one transaction and,
        unless `force`, enter the recycle bin (stamped `dropped_at`). Returns the tables."""

    # ------------------------------------------------------------------ tables

    @abstractmethod
    def create_table(self, meta: TableMeta, if_not_exists: bool = False) -> TableMeta: ...

    @abstractmethod
    def load_table(self, db: str, name: str) -> TableMeta: ...

    @abstractmethod
    def table_exists(self, db: str, name: str) -> bool: ...

    @abstractmethod
    def list_tables(self, db: str) -> list[str]: ...

    @abstractmethod
    def list_table_metas(
        self, db: str | None = None, *, damaged: list[DamagedTableError] | None = None
    ) -> list[TableMeta]:
        """Every readable table, ordered by (db, name); unreadable ones are appended to `damaged`."""

    @abstractmethod
    def commit_table(
        self,
        meta: TableMeta,
        expected_version: int | None = None,
        *,
        recycle: Sequence[RecycleBinEntry] = (),
        restore: int | None = None,
    ) -> TableMeta:
        """Replace the table's metadata if its version is still `expected_version` (else
        CommitConflictError, nothing written), adding `recycle` to the recycle bin and taking
        entry `restore` out of it in the same transaction. Backends implement this; callers
        use `update_table`."""

    @abstractmethod
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
        """DROP TABLE: the table leaves the catalog and, unless `force`, enters the recycle bin
        (stamped `dropped_at`) in the same transaction. With `force` the bin also forgets the
        table's dropped partitions (their files go with the table's folder)."""

    @abstractmethod
    def create_view(self, view: ViewMeta, *, or_replace: bool = False, if_not_exists: bool = False) -> ViewMeta | None:
        """CREATE [OR REPLACE] VIEW: the view in the tables' namespace (None: `if_not_exists`
        found the name taken)."""

    @abstractmethod
    def get_view(self, db: str, name: str) -> ViewMeta | None: ...

    @abstractmethod
    def list_views(self, db: str | None = None) -> list[ViewMeta]: ...

    @abstractmethod
    def drop_view(self, db: str, name: str, if_exists: bool = False) -> ViewMeta | None: ...

    def rename_table(self, db: str, name: str, new_name: str, expected_version: int | None = None) -> TableMeta:
        """ALTER TABLE name RENAME new_name (metadata only: the engine moves the folder)."""

        validate_name("table", new_name)
        if new_name == name:
            raise AnalysisError("Same table name")

        return self.update_table(db, name, lambda meta: renamed(meta, new_name), expected_version=expected_version)

    @abstractmethod
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
        """ALTER TABLE name REPLACE WITH TABLE other, in one catalog transaction: `other` takes
        the name `name`; with `swap` the table called `name` takes the name `other`, else it is
        dropped (into the recycle bin unless `force`). No reader ever sees both tables under one
        name or either name missing. With `table_ids`, (id of `name`, id of `other`) as the caller
        found them: if either name now holds another table, CommitConflictError and nothing
        changes. Returns (the table now called `name`, the one now called `other` or the dropped one)."""

    # ------------------------------------------------------------------ recycle bin

    @abstractmethod
    def list_recycle_bin(
        self, *, kind: str | None = None, db_id: int | None = None, table_id: int | None = None
    ) -> list[RecycleBinEntry]:
        """Entries of the recycle bin (optionally of one kind / database / table), oldest drop first."""

    @abstractmethod
    def recover_database(self, entry_id: int, new_name: str | None = None) -> tuple[DatabaseMeta, list[TableMeta]]:
        """RECOVER DATABASE: the database of bin entry `entry_id` and the tables dropped with it
        come back (under `new_name` if given) in one transaction; their entries leave the bin."""

    @abstractmethod
    def recover_table(self, entry_id: int, new_name: str | None = None) -> TableMeta:
        """RECOVER TABLE: the table of bin entry `entry_id` comes back into its database (by id,
        under its current name), named `new_name` if given; its entry leaves the bin."""

    @abstractmethod
    def erase_recycled(self, entry_ids: Sequence[int]) -> list[RecycleBinEntry]:
        """Forget bin entries for good (their data is deleted next, by the caller): with a
        database go its tables, with a table its partitions. Returns the entries this call
        removed (not those already gone: a concurrent RECOVER wins or loses as a whole)."""

    # ------------------------------------------------------------------ frontend config

    @abstractmethod
    def get_config(self, key: str, default: str | None = None) -> str | None: ...

    @abstractmethod
    def set_configs(self, values: Mapping[str, object] | Sequence[tuple[str, object]]) -> None: ...

    def set_config(self, key: str, value: object) -> None:
        self.set_configs({key: value})

    @abstractmethod
    def unset_config(self, key: str) -> None: ...

    @abstractmethod
    def all_config(self) -> dict[str, str]: ...

    # ------------------------------------------------------------------ colocation groups

    @abstractmethod
    def create_colocation_group(self, group: ColocationGroup) -> ColocationGroup: ...

    @abstractmethod
    def get_colocation_group(self, db: str, name: str) -> ColocationGroup | None: ...

    @abstractmethod
    def list_colocation_groups(self) -> list[ColocationGroup]: ...

    @abstractmethod
    def update_colocation_group(self, group: ColocationGroup) -> ColocationGroup: ...

    @abstractmethod
    def drop_colocation_group(self, db: str, name: str, if_exists: bool = False) -> bool: ...

    @abstractmethod
    def colocation_group_tables(self, db: str, name: str) -> list[TableMeta]: ...

    # ------------------------------------------------------------------ users (dorisql.auth)

    @abstractmethod
    def get_user(self, name: str, host: str) -> UserEntry | None:
        """The user 'name'@'host' (exactly that host pattern), the built-ins included."""

    @abstractmethod
    def list_users(self) -> list[UserEntry]:
        """Every user, the built-ins included, ordered by (name, host)."""

    @abstractmethod
    def create_user(self, entry: UserEntry) -> bool:
        """Add a user; False (nothing written) if 'name'@'host' exists already."""

    @abstractmethod
    def update_user(self, name: str, host: str, change: UserChange) -> UserEntry | None:
        """The one door for changing a user (password, grants): `change` runs on the current
        entry inside one write transaction. None (nothing written) if the user does not exist."""

    @abstractmethod
    def drop_user(self, name: str, host: str) -> bool:
        """Remove a user; False if there was none (the built-ins cannot be dropped: the engine refuses)."""

    # ------------------------------------------------------------------ load labels (Stream Load)

    @abstractmethod
    def claim_load(self, record: LoadRecord, *, replace_states: Sequence[str] = ()) -> LoadRecord | None:
        """Record a new load under its label, atomically: None when it was recorded, else the
        record already holding that label (unique per database). A held record whose state is
        in `replace_states` is replaced instead (a CANCELLED load's label is free again; the
        caller decides when a LOADING one is stale)."""

    @abstractmethod
    def update_load(self, record: LoadRecord) -> None:
        """Store a load's new state (by database and label)."""

    @abstractmethod
    def get_load(self, db: str, label: str) -> LoadRecord | None: ...

    @abstractmethod
    def forget_loads(self, records: Sequence[LoadRecord]) -> int:
        """Remove these loads' records (their labels may be used again), each only while the
        label still holds that load (same txn_id and state): a label claimed again meanwhile
        keeps its new record. Returns how many were removed."""

    @abstractmethod
    def list_loads(self, db: str | None = None, limit: int | None = None) -> list[LoadRecord]:
        """Recent loads, newest first."""

    # ------------------------------------------------------------------ transaction intents

    @abstractmethod
    def put_txn_intent(self, txn_id: str, entry: str) -> None:
        """Record, durably and in one catalog transaction, that explicit transaction `txn_id` is
        committing what `entry` (JSON) lists (dorisql.tablets.transactions)."""

    @abstractmethod
    def txn_intents(self) -> list[tuple[str, str]]:
        """The transactions recorded as committing: (txn_id, entry), oldest first."""

    @abstractmethod
    def drop_txn_intent(self, txn_id: str) -> bool:
        """Forget a transaction's intent once all of it is committed; whether it was there."""

    # ------------------------------------------------------------------ lifecycle

    @abstractmethod
    def close(self) -> None: ...
