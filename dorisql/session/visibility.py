"""What a session may see: the one door every SHOW, DESC, information_schema row, load listing
and load error log goes through.

Doris's rule (fe-core AccessControllerManager.checkTblPriv / checkDbPriv with PrivPredicate.SHOW):
a table is visible when the user holds any privilege on it, on its database, or globally; a
database is visible when the user holds any privilege on it or on one of its tables;
``information_schema`` and ``mysql`` are visible to everyone; ADMIN sees everything. Some listings ask for one
privilege instead of "any" (Doris's own choices): SHOW LOAD / SHOW STREAM LOAD and SHOW DELETE list
what the user may LOAD, SHOW ALTER TABLE COLUMN what it may ALTER.

`Visibility.of(engine)` is the session's view, read once per statement from the catalog's
grants (a grant or revoke takes effect at the next statement). A session without a user (the
local shell, scripts) acts as root and sees everything. Listing statements drop what the user
cannot see instead of failing; statements that name one table are refused before they run
(`dorisql.auth.privileges.required`), so an invisible table and a missing one answer the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TypeVar

from dorisql import ast
from dorisql.auth import privileges
from dorisql.catalog.base import Catalog, LoadRecord
from dorisql.session.session import Session

__all__ = ["Visibility", "SHOW"]

#: Doris's PrivPredicate.SHOW: any privilege on the object.
SHOW = privileges.ANY

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Visibility:
    """One session's view of the catalog. `grants` None: everything (root, the local shell)."""

    grants: tuple[privileges.Grant, ...] | None
    user: str = "root"

    @classmethod
    def of(cls, session: Session) -> Visibility:
        return cls.for_identity(session.catalog, session.user)

    @classmethod
    def for_identity(cls, catalog: Catalog, identity: ast.UserIdentity | None) -> Visibility:
        if identity is None or (identity.user, identity.host) == (ROOT.user, ROOT.host):
            return cls(None, ROOT.user)
        return cls(tuple(grants_of(catalog, identity)), identity.user)

    @property
    def everything(self) -> bool:
        """Root or a user with ADMIN: nothing is hidden."""
        return self.grants is None or privileges.allowed(self.grants, privileges.Need(frozenset((privileges.ADMIN,))))

    def database(self, db: str) -> bool:
        """SHOW DATABASES, information_schema.schemata, SHOW TABLE STATUS FROM db."""
        return self.grants is None or privileges.can_see_database(self.grants, db)

    def table(self, db: str, table: str, wanted: frozenset[str] = SHOW) -> bool:
        """The table, for a listing that asks for `wanted` (any of them; default: any privilege)."""
        if self.grants is None or db.lower() in ("information_schema", "mysql"):
            return True
        return privileges.can_see_table(self.grants, db, table, wanted)

    def tables(self, items: Iterable[T], key: Callable[[T], tuple[str, str]], wanted: frozenset[str] = SHOW) -> list[T]:
        """The items (table metas, rows, ...) whose (db, table) `key` is visible."""
        return [item for item in items if self.table(*key(item), wanted)]

    def load(self, record: LoadRecord) -> bool:
        """A load's record and error log: the user who ran it, ADMIN, or LOAD on its table
        (Doris's SHOW LOAD lists the loads into tables the user may LOAD)."""
        if self.everything or (record.user and record.user == self.user):
            return True
        return self.table(record.db, record.table, frozenset((privileges.LOAD,)))


#: The identity a session without a user (local shell, scripts) acts as.
ROOT = ast.UserIdentity("root", "%")


def grants_of(catalog: Catalog, identity: ast.UserIdentity | None) -> tuple:
    """The grants of a session's user (None: root); a user dropped meanwhile has none."""
    entry = catalog.get_user(*(identity.user, identity.host) if identity else (ROOT.user, ROOT.host))
    return entry.grants if entry is not None else ()
