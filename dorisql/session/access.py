"""Login and the per-statement privilege check, over the users the catalog stores.

The server's seams:

- MySQL handshake: `authenticate_native(catalog, user, client_host, salt, response)`;
- HTTP Basic (Stream Load): `authenticate_password(catalog, user, client_host, password)`;

both return the `ast.UserIdentity` the session runs as (the stored identity whose host pattern
matched, most specific first, as Doris and MySQL pick it) and raise `AuthenticationError`
(``Access denied for user 'u'@'host' (using password: YES)``) otherwise. Set it as
`Engine.user`; from then on `Engine.execute` calls `authorize` before every statement.
`Engine.user` None (the local shell and scripts) acts as root, as before users existed.
"""

from __future__ import annotations

import re

from dorisql import ast
from dorisql.auth import privileges
from dorisql.auth.passwords import verify_native_scramble, verify_password
from dorisql.catalog.base import Catalog, UserEntry
from dorisql.errors import AccessDeniedError, AuthenticationError
from dorisql.result import Result
from dorisql.session.visibility import Visibility, grants_of

__all__ = [
    "host_matches",
    "match_user",
    "authenticate_native",
    "authenticate_password",
    "root_has_password",
    "privileged_without_password",
    "grants_of",
    "authorize",
    "database_denied",
    "filter_result",
]


_LOOPBACK = frozenset(("127.0.0.1", "::1", "localhost"))


def host_matches(pattern: str, host: str) -> bool:
    """Doris/MySQL host patterns: '%' any run of characters, '_' one; 'localhost' is loopback."""
    if pattern == "%":
        return True
    if pattern.lower() == "localhost":
        return host in _LOOPBACK or host.startswith("127.")
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, host, re.IGNORECASE) is not None


def _specificity(entry: UserEntry) -> tuple:
    """Exact hosts first, then patterns with more fixed text, '%' last."""
    wild = sum(entry.host.count(c) for c in "%_")
    return (entry.host == "%", wild > 0, -len(entry.host) + wild)


def match_user(catalog: Catalog, user: str, client_host: str) -> UserEntry | None:
    """The stored identity a login of `user` from `client_host` is, if any."""
    candidates = [e for e in catalog.list_users() if e.name == user and host_matches(e.host, client_host)]
    return min(candidates, key=_specificity) if candidates else None


def _denied(user: str, client_host: str, used_password: bool) -> AuthenticationError:
    return AuthenticationError(
        f"Access denied for user '{user}'@'{client_host}' (using password: {'YES' if used_password else 'NO'})"
    )


def authenticate_native(
    catalog: Catalog, user: str, client_host: str, salt: bytes, response: bytes
) -> ast.UserIdentity:
    """The MySQL handshake's check (mysql_native_password): `salt` the server's 20-byte scramble,
    `response` the client's auth response."""
    entry = match_user(catalog, user, client_host)
    if entry is None or not verify_native_scramble(entry.password, salt, response):
        raise _denied(user, client_host, bool(response))
    return ast.UserIdentity(entry.name, entry.host)


def authenticate_password(catalog: Catalog, user: str, client_host: str, password: str) -> ast.UserIdentity:
    """HTTP Basic's check: the clear password against the stored hash."""
    entry = match_user(catalog, user, client_host)
    if entry is None or not verify_password(entry.password, password):
        raise _denied(user, client_host, bool(password))
    return ast.UserIdentity(entry.name, entry.host)


def root_has_password(catalog: Catalog) -> bool:
    entry = catalog.get_user("root", "%")
    return entry is not None and entry.password != ""


def privileged_without_password(catalog: Catalog) -> list[UserEntry]:
    """The users who hold a privilege and log in with an empty password (Doris ships two such:
    ``root`` and ``admin``). The server listens beyond loopback only while there are none."""
    return [entry for entry in catalog.list_users() if entry.grants and entry.password == ""]


def database_denied(identity: ast.UserIdentity, db: str) -> AccessDeniedError:
    """Doris's ERR_DBACCESS_DENIED_ERROR (1044): USE and SHOW TABLE STATUS of a database the
    user cannot see."""
    err = AccessDeniedError(f"Access denied for user {identity} to database '{db}'")
    err.code = 1044
    return err


def authorize(catalog: Catalog, identity: ast.UserIdentity, stmt: ast.Statement, current_db: str | None) -> None:
    """Raise AccessDeniedError unless `identity` may run `stmt` (dorisql.auth.privileges.required)."""
    grants = grants_of(catalog, identity)
    needs = privileges.required(stmt, current_db)
    if isinstance(stmt, (ast.Use, ast.ShowTableStatus)) and needs and not privileges.allowed(grants, needs[0]):
        raise database_denied(identity, str(needs[0].db))
    checked = []
    for need in needs:
        if privileges.is_self_or_admin(need):
            target = getattr(stmt, "user", None)
            if target is not None and (target.user, target.host) == (identity.user, identity.host):
                continue
            need = privileges.Need(frozenset((privileges.ADMIN,)))
        checked.append(need)
    privileges.check(grants, checked)


#: Listings whose handlers do not filter their rows themselves: their rows are filtered
#: here, by the column naming the table, through the same door (Visibility.table). SHOW DELETE
#: lists the tables the user may LOAD (Doris's DeleteHandler.getDeleteInfosByDb).
_FILTERED_AFTER: dict[type, tuple[str, frozenset[str]]] = {
    ast.ShowDelete: ("TableName", frozenset((privileges.LOAD,))),
}


def filter_result(catalog: Catalog, identity: ast.UserIdentity, stmt: ast.Statement, result: Result, db: str | None):
    """The rows of a listing the user may see. Most listings filter at their source
    (dorisql.session.visibility.Visibility, used by statements.show.client_metadata,
    statements.show.objects and statements.admin.users); this drops the rows of the ones in `_FILTERED_AFTER`."""

    rule = _FILTERED_AFTER.get(type(stmt))
    if rule is None or not result.columns:
        return result
    column, wanted = rule
    shown_db = getattr(stmt, "db", None) or db
    if shown_db is None or column not in result.columns:  # cannot tell the tables: show none
        result.rows = []
        return result
    visibility = Visibility.for_identity(catalog, identity)
    at = list(result.columns).index(column)
    result.rows = [row for row in result.rows if visibility.table(str(shown_db), str(row[at]), wanted)]
    return result
