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
from typing import Callable, Mapping, Optional, Sequence, Union

from dorisql.ast import DataType, Properties
from dorisql.catalog.model import TableMeta
from dorisql.errors import CommitConflictError, DamagedTableError

__all__ = ["Catalog", "TableChange", "DatabaseMeta", "ColocationGroup", "COMMIT_RETRIES",
           "GLOBAL_GROUP_PREFIX", "group_key"]

#: How often `update_table` re-reads and retries when another session changed the table meanwhile.
COMMIT_RETRIES = 20

#: Colocation groups named with this prefix are shared by all databases (Doris).
GLOBAL_GROUP_PREFIX = "__global__"

#: A change to one table: the current metadata in, the new metadata out. Returning the argument
#: itself (or None) means "nothing to change"; raising aborts the update with nothing written.
#: It may be called several times (once per retry), each time with fresher metadata, so it must
#: decide from its argument alone.
TableChange = Callable[[TableMeta], Optional[TableMeta]]


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


def group_key(db: str, group_name: str) -> tuple[str, str]:
    """The (db, name) a colocate_with value names: global groups belong to no database."""
    return ("" if group_name.startswith(GLOBAL_GROUP_PREFIX) else db), group_name


class Catalog(ABC):
    """Doris-level metadata of one warehouse: databases, tables, partitions, groups, FE config."""

    # ------------------------------------------------------------------ the one door for table changes

    def update_table(self, db: str, name: str, change: TableChange, *, table_id: Optional[int] = None,
                     expected_version: Optional[int] = None, retries: int = COMMIT_RETRIES) -> TableMeta:
        """Apply `change` to the table and commit it, retrying on concurrent changes.

        With `table_id`, the update applies only to that incarnation of the table: if it was
        dropped and re-created under the same name meanwhile, CommitConflictError. With
        `expected_version` the caller decided on that version of the table: no retry, and
        CommitConflictError if the table has moved on since. Returns the
        metadata as committed (or as found, when `change` had nothing to do). Errors raised by
        `change` (e.g. AnalysisError) leave the catalog untouched.
        """
        if expected_version is not None:
            retries = 1
        for attempt in range(retries):
            current = self.load_table(db, name)
            if table_id is not None and current.id != table_id:
                raise CommitConflictError(
                    f"Table '{db}.{name}' was dropped and re-created by another session; nothing was committed")
            if expected_version is not None and current.version != expected_version:
                raise CommitConflictError(
                    f"Table '{db}.{name}' was changed by another session (catalog version is {current.version}, "
                    f"this change was based on version {expected_version}); nothing was committed, retry the statement")
            new = change(current)
            if new is None or new is current:
                return current
            try:
                return self.commit_table(new, expected_version=current.version)
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
    def create_database(self, name: str, if_not_exists: bool = False,
                        properties: Union[Properties, Mapping[str, str], None] = None) -> DatabaseMeta: ...

    @abstractmethod
    def get_database(self, name: str) -> DatabaseMeta: ...

    @abstractmethod
    def database_exists(self, name: str) -> bool: ...

    @abstractmethod
    def list_databases(self) -> list[str]: ...

    @abstractmethod
    def drop_database(self, name: str, if_exists: bool = False, force: bool = False) -> list[TableMeta]: ...

    # ------------------------------------------------------------------ tables

    @abstractmethod
    def create_table(self, meta: TableMeta, if_not_exists: bool = False, *,
                     colocation_group: Optional[ColocationGroup] = None) -> TableMeta: ...

    @abstractmethod
    def load_table(self, db: str, name: str) -> TableMeta: ...

    @abstractmethod
    def table_exists(self, db: str, name: str) -> bool: ...

    @abstractmethod
    def list_tables(self, db: str) -> list[str]: ...

    @abstractmethod
    def list_table_metas(self, db: Optional[str] = None, *,
                         damaged: Optional[list[DamagedTableError]] = None) -> list[TableMeta]:
        """Every readable table, ordered by (db, name); unreadable ones are appended to `damaged`."""

    @abstractmethod
    def commit_table(self, meta: TableMeta, expected_version: Optional[int] = None) -> TableMeta:
        """Replace the table's metadata if its version is still `expected_version` (else
        CommitConflictError, nothing written). Backends implement this; callers use `update_table`."""

    @abstractmethod
    def drop_table(self, db: str, name: str, if_exists: bool = False,
                   expected_version: Optional[int] = None) -> Optional[TableMeta]: ...

    def rename_table(self, db: str, name: str, new_name: str, expected_version: Optional[int] = None) -> TableMeta:
        """ALTER TABLE name RENAME new_name (metadata only: the engine moves the folder)."""
        from dorisql.errors import AnalysisError
        from dorisql.warehouse import validate_name

        validate_name("table", new_name)
        if new_name == name:
            raise AnalysisError("Same table name")

        def rename(meta: TableMeta) -> TableMeta:
            definition = dataclasses.replace(meta.definition,
                                             table=dataclasses.replace(meta.definition.table, name=new_name))
            return dataclasses.replace(meta, name=new_name, definition=definition)

        return self.update_table(db, name, rename, expected_version=expected_version)

    # ------------------------------------------------------------------ frontend config

    @abstractmethod
    def get_config(self, key: str, default: Optional[str] = None) -> Optional[str]: ...

    @abstractmethod
    def set_configs(self, values: Union[Mapping[str, object], Sequence[tuple[str, object]]]) -> None: ...

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
    def get_colocation_group(self, db: str, name: str) -> Optional[ColocationGroup]: ...

    @abstractmethod
    def list_colocation_groups(self) -> list[ColocationGroup]: ...

    @abstractmethod
    def update_colocation_group(self, group: ColocationGroup) -> ColocationGroup: ...

    @abstractmethod
    def drop_colocation_group(self, db: str, name: str, if_exists: bool = False) -> bool: ...

    @abstractmethod
    def colocation_group_tables(self, db: str, name: str) -> list[TableMeta]: ...

    # ------------------------------------------------------------------ lifecycle

    @abstractmethod
    def close(self) -> None: ...
