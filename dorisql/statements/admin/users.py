"""CREATE/DROP USER, SET PASSWORD, GRANT/REVOKE, SHOW [ALL] GRANTS (SHOW LOAD: statements.load.load_jobs).

Users live in the catalog (`Catalog.create_user`, `update_user` is the one door for changes,
`drop_user`); the rules and messages are Doris 2.1's (fe-core Auth: ERR_CANNOT_USER "Operation
CREATE USER failed for 'u'@'%'", ERR_NONEXISTING_GRANT, ERR_PASSWORD_NO_MATCH). Passwords are
stored as MySQL's native hash (dorisql.auth.passwords). Who may run these is decided before, in
Engine.execute (dorisql.auth.privileges.required: ADMIN, or nothing for one's own password).
"""

from __future__ import annotations

import dataclasses

from dorisql import ast
from dorisql.auth import privileges
from dorisql.auth.passwords import check_stored_hash, native_hash
from dorisql.catalog.base import BUILTIN_USERS, UserEntry
from dorisql.errors import AnalysisError, CatalogError
from dorisql.result import Result
from dorisql.session.session import Session
from dorisql.session.visibility import ROOT
from dorisql.statements.handler import Handlers
from dorisql.warehouse import validate_name


def _cannot(operation: str, user: ast.UserIdentity) -> CatalogError:
    err = CatalogError(f"Operation {operation} failed for {user}")
    err.code = 1396
    return err


def _password(text: str, is_hash: bool) -> str:
    return check_stored_hash(text) if is_hash else native_hash(text)


def _check_identity(user: ast.UserIdentity) -> None:
    if not user.user:
        raise AnalysisError("Does not support anonymous user")
    if len(user.user) > 64:
        raise AnalysisError(f"User name '{user.user}' is longer than 64 characters")


def create_user(session: Session, stmt: ast.CreateUser) -> Result:
    _check_identity(stmt.user)
    password = _password(stmt.password, stmt.password_is_hash) if stmt.password is not None else ""
    entry = UserEntry(stmt.user.user, stmt.user.host, password=password, created_at=session.now())
    if not session.catalog.create_user(entry) and not stmt.if_not_exists:
        raise _cannot("CREATE USER", stmt.user)
    return Result.ok()


def drop_user(session: Session, stmt: ast.DropUser) -> Result:
    if (stmt.user.user, stmt.user.host) in BUILTIN_USERS or stmt.user.user in ("root", "admin"):
        raise AnalysisError("Can not drop root or admin user")
    if session.user is not None and (session.user.user, session.user.host) == (stmt.user.user, stmt.user.host):
        raise AnalysisError("Can not drop the current user")
    if not session.catalog.drop_user(stmt.user.user, stmt.user.host) and not stmt.if_exists:
        raise _cannot("DROP USER", stmt.user)
    return Result.ok()


def set_password(session: Session, stmt: ast.SetPassword) -> Result:
    target = stmt.user or session.user or ROOT
    password = _password(stmt.password, stmt.password_is_hash)
    changed = session.catalog.update_user(
        target.user, target.host, lambda entry: dataclasses.replace(entry, password=password)
    )
    if changed is None:
        err = CatalogError("Can't find any matching row in the user table")
        err.code = 1133
        raise err
    return Result.ok()


def _target(stmt: ast.Grant | ast.Revoke) -> tuple[str, str]:
    if stmt.db != "*":
        validate_name("database", stmt.db)
    if stmt.table != "*":
        validate_name("table", stmt.table)
    return stmt.db, stmt.table


def grant(session: Session, stmt: ast.Grant) -> Result:
    db, table = _target(stmt)
    privs = privileges.privilege_names(stmt.privileges, db, table)
    if stmt.user.user == "root" and stmt.user.host == "%":
        return Result.ok()  # root holds every privilege already
    changed = session.catalog.update_user(
        stmt.user.user,
        stmt.user.host,
        lambda entry: dataclasses.replace(entry, grants=privileges.add_grant(entry.grants, db, table, privs)),
    )
    if changed is None:
        raise CatalogError(f"user {stmt.user} does not exist")
    return Result.ok()


def revoke(session: Session, stmt: ast.Revoke) -> Result:
    db, table = _target(stmt)
    privs = privileges.privilege_names(stmt.privileges, db, table)
    if (stmt.user.user, stmt.user.host) in BUILTIN_USERS:
        raise AnalysisError(f"Can not revoke privileges from {stmt.user}")

    def change(entry: UserEntry) -> UserEntry:
        held = next((frozenset(g.privileges) for g in entry.grants if (g.db, g.table) == (db, table)), frozenset())
        if not privs & held:
            err = CatalogError(f"There is no such grant defined for user '{entry.name}' on host '{entry.host}'")
            err.code = 1141
            raise err
        return dataclasses.replace(entry, grants=privileges.revoke_grant(entry.grants, db, table, privs))

    if session.catalog.update_user(stmt.user.user, stmt.user.host, change) is None:
        raise CatalogError(f"user {stmt.user} does not exist")
    return Result.ok()


_ROLES = {"root": "operator", "admin": "admin"}


def _grant_row(entry: UserEntry) -> tuple:
    identity = ast.UserIdentity(entry.name, entry.host)
    builtin = (entry.name, entry.host) in BUILTIN_USERS
    return privileges.grant_columns(
        identity,
        entry.password != "",
        entry.grants,
        roles=_ROLES.get(entry.name, "") if builtin else "",
        comment=entry.comment,
    )


def show_grants(session: Session, stmt: ast.ShowGrants) -> Result:
    if stmt.all:
        entries = session.catalog.list_users()
    else:
        who = stmt.user or session.user or ROOT
        entry = session.catalog.get_user(who.user, who.host)
        if entry is None:
            raise CatalogError(f"user {who} does not exist")
        entries = [entry]
    return Result.table(privileges.GRANT_COLUMNS, [_grant_row(e) for e in entries])


# ---------------------------------------------------------------------- SHOW [STREAM] LOAD

HANDLERS: Handlers = {
    ast.CreateUser: create_user,
    ast.DropUser: drop_user,
    ast.SetPassword: set_password,
    ast.Grant: grant,
    ast.Revoke: revoke,
    ast.ShowGrants: show_grants,
}
