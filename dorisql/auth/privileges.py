"""Privileges as Doris has them: their names, grants on *.* / db.* / db.tbl, and what each
statement needs (pure: no catalog, no Spark).

Names follow Doris 2.1 (fe-core mysql/privilege: Privilege, AccessPrivilege; GRANT's docs): the
privileges are SELECT_PRIV, LOAD_PRIV, ALTER_PRIV, CREATE_PRIV, DROP_PRIV and ADMIN_PRIV (global
only). GRANT also takes the MySQL-style words Doris maps: SELECT, INSERT/LOAD (LOAD_PRIV), ALTER,
CREATE, DROP, READ_ONLY (SELECT_PRIV) and ALL / ALL PRIVILEGES / READ_WRITE (SELECT, LOAD, ALTER,
CREATE and DROP). ADMIN_PRIV satisfies every check (Doris's predicates all include Admin_priv).

A statement's needs (`required`) are evaluated against a user's grants (`allowed`); a denial is
an `AccessDeniedError` with Doris's ErrorCode messages:
``Access denied; you need (at least one of) the (SELECT) privilege(s) on table db.t for this operation``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable

from dorisql import ast
from dorisql.errors import AccessDeniedError, AnalysisError
from dorisql.syntax.diagnose import mask
from dorisql.syntax.queries import query_tables

__all__ = [
    "PRIVILEGES",
    "ADMIN",
    "SELECT",
    "LOAD",
    "ALTER",
    "CREATE",
    "DROP",
    "ANY",
    "Grant",
    "Need",
    "privilege_names",
    "add_grant",
    "revoke_grant",
    "allowed",
    "check",
    "required",
    "denied_error",
    "grant_columns",
    "can_see_database",
    "can_see_table",
    "display_name",
]

SELECT, LOAD, ALTER, CREATE, DROP, ADMIN = (
    "SELECT_PRIV",
    "LOAD_PRIV",
    "ALTER_PRIV",
    "CREATE_PRIV",
    "DROP_PRIV",
    "ADMIN_PRIV",
)
#: In Doris's order (Privilege.privileges), which SHOW GRANTS keeps.
PRIVILEGES = (ADMIN, SELECT, LOAD, ALTER, CREATE, DROP)
#: Doris's SHOW predicate: any privilege on the object lets a user see it.
ANY = frozenset((SELECT, LOAD, ALTER, CREATE, DROP))

_TABLE_LEVEL = (SELECT, LOAD, ALTER, CREATE, DROP)
#: Words GRANT/REVOKE accept -> the privileges they stand for.
_WORDS: dict[str, tuple[str, ...]] = {
    **{p: (p,) for p in PRIVILEGES},
    "SELECT": (SELECT,),
    "READ_ONLY": (SELECT,),
    "INSERT": (LOAD,),
    "LOAD": (LOAD,),
    "ALTER": (ALTER,),
    "CREATE": (CREATE,),
    "DROP": (DROP,),
    "ALL": _TABLE_LEVEL,
    "READ_WRITE": _TABLE_LEVEL,
    "ADMIN": (ADMIN,),
}

#: SHOW GRANTS's names (Doris's Privilege.getName()).
_SHOWN = {
    ADMIN: "Admin_priv",
    SELECT: "Select_priv",
    LOAD: "Load_priv",
    ALTER: "Alter_priv",
    CREATE: "Create_priv",
    DROP: "Drop_priv",
}


def display_name(privilege: str) -> str:
    """SELECT_PRIV -> SELECT, as the access-denied messages name it."""
    return privilege.removesuffix("_PRIV")


@dataclasses.dataclass(frozen=True)
class Grant:
    """Privileges on `db`.`table` ('*' for all): *.* is global, db.* a database, db.t a table."""

    db: str
    table: str
    #: In PRIVILEGES order (a tuple: the catalog stores it as JSON).
    privileges: tuple[str, ...]

    @property
    def target(self) -> str:
        return f"{self.db}.{self.table}"


def privilege_names(words: Iterable[str], db: str, table: str) -> frozenset[str]:
    """GRANT's privilege words as privileges, refused as Doris refuses them."""
    result: set[str] = set()
    for word in words:
        found = _WORDS.get(word.upper())
        if found is None:
            if word.upper() == "NODE_PRIV":
                raise AnalysisError("Can not grant NODE_PRIV to any other users or roles")
            raise AnalysisError(f"Unknown privilege type {word}")
        result.update(found)
    if ADMIN in result and (db, table) != ("*", "*"):
        raise AnalysisError("ADMIN_PRIV privilege can only be granted or revoked on *.*.*")
    return frozenset(result)


def add_grant(grants: tuple[Grant, ...], db: str, table: str, privileges: frozenset[str]) -> tuple[Grant, ...]:
    """The grants with `privileges` added on db.table (one Grant per target, in target order)."""
    merged = {(g.db, g.table): frozenset(g.privileges) for g in grants}
    merged[(db, table)] = merged.get((db, table), frozenset()) | privileges
    return _ordered(merged)


def revoke_grant(grants: tuple[Grant, ...], db: str, table: str, privileges: frozenset[str]) -> tuple[Grant, ...]:
    """The grants with `privileges` taken off db.table. Doris refuses revoking what was never
    granted on that target: ``There is no such grant defined for ...``, raised by the caller."""
    merged = {(g.db, g.table): frozenset(g.privileges) for g in grants}
    merged[(db, table)] = merged.get((db, table), frozenset()) - privileges
    return _ordered(merged)


def _ordered(merged: dict[tuple[str, str], frozenset[str]]) -> tuple[Grant, ...]:
    return tuple(
        Grant(db, table, tuple(p for p in PRIVILEGES if p in privs))
        for (db, table), privs in sorted(merged.items())
        if privs
    )


# --------------------------------------------------------------------------- checks


@dataclasses.dataclass(frozen=True)
class Need:
    """At least one of `privileges` on `db`.`table` (table None: on the database; db None:
    global). `all_of` instead asks for every one of them."""

    privileges: frozenset[str]
    db: str | None = None
    table: str | None = None
    all_of: bool = False


def _held(grants: Iterable[Grant], db: str | None, table: str | None, *, any_table: bool = False) -> frozenset[str]:
    """Privileges the grants give on db.table (global, database and table grants together)."""
    held: set[str] = set()
    for g in grants:
        if g.db == "*":
            held.update(g.privileges)
        elif db is not None and g.db == db and (g.table == "*" or (table is not None and g.table == table)):
            held.update(g.privileges)
        elif any_table and db is not None and g.db == db:
            held.update(g.privileges)
    return frozenset(held)


def allowed(grants: Iterable[Grant], need: Need) -> bool:
    grants = tuple(grants)
    if any(g.db == "*" and ADMIN in g.privileges for g in grants):
        return True
    held = _held(grants, need.db, need.table, any_table=need.table is None and need.privileges == ANY)
    if need.all_of:
        return need.privileges <= held
    return bool(need.privileges & held)


def denied_error(need: Need) -> AccessDeniedError:
    names = "/".join(display_name(p) for p in PRIVILEGES if p in need.privileges)
    if need.db is None:
        return AccessDeniedError(
            f"Access denied; you need (at least one of) the ({names}) privilege(s) for this operation"
        )
    if need.table is None:
        err = AccessDeniedError(
            f"Access denied; you need (at least one of) the ({names}) privilege(s) on database {need.db} "
            "for this operation"
        )
        err.code = 1225
        return err
    err = AccessDeniedError(
        f"Access denied; you need (at least one of) the ({names}) privilege(s) on table "
        f"{need.db}.{need.table} for this operation"
    )
    err.code = 1224
    return err


def check(grants: Iterable[Grant], needs: Iterable[Need]) -> None:
    """Raise AccessDeniedError for the first need the grants do not meet."""
    grants = tuple(grants)
    for need in needs:
        if not allowed(grants, need):
            raise denied_error(need)


def can_see_database(grants: Iterable[Grant], db: str) -> bool:
    """Any privilege on the database or one of its tables (information_schema and mysql: always).
    Callers go through dorisql.session.visibility.Visibility, the one door."""
    return db.lower() in ("information_schema", "mysql") or allowed(grants, Need(ANY, db))


def can_see_table(grants: Iterable[Grant], db: str, table: str, wanted: frozenset[str] = ANY) -> bool:
    """Any of `wanted` (default: any privilege) on the table, its database or globally."""
    return allowed(grants, Need(wanted, db, table))


# --------------------------------------------------------------------------- what statements need

_SYSTEM_DATABASES = frozenset(("information_schema", "mysql", "__internal_schema"))
_LOCAL_TVF = re.compile(r"\blocal\s*\(", re.IGNORECASE)


def _table(name: ast.TableName, current_db: str | None, privileges: frozenset[str], *, all_of=False) -> list[Need]:
    db = name.db or current_db
    if db is None:  # "No database selected" is the statement's own error
        return []
    if db.lower() in _SYSTEM_DATABASES:
        return []
    return [Need(privileges, db, name.name, all_of=all_of)]


def _db(db: str | None, current_db: str | None, privileges: frozenset[str]) -> list[Need]:
    name = db or current_db
    if name is None or name.lower() in _SYSTEM_DATABASES:
        return []
    return [Need(privileges, name)]


def _query(query: ast.Query, current_db: str | None) -> list[Need]:
    needs = [n for t in query.tables for n in _table(t, current_db, frozenset((SELECT,)))]
    # local() reads the server's own files: Doris allows it to ADMIN only.
    if _LOCAL_TVF.search(mask(query.sql)):
        needs.append(Need(frozenset((ADMIN,))))
    return needs


def _admin(stmt, current_db) -> list[Need]:
    return [Need(frozenset((ADMIN,)))]


def _nothing(stmt, current_db) -> list[Need]:
    return []


def _one(privilege: str) -> frozenset[str]:
    return frozenset((privilege,))


def _create_table(stmt: ast.CreateTable, current_db):
    needs = _table(stmt.table, current_db, _one(CREATE))
    if stmt.as_query is not None:
        needs += _query(stmt.as_query, current_db)
    return needs


def _create_view(stmt: ast.CreateView, current_db):
    # CreateViewCommand / AlterViewCommand: CREATE (ALTER) on the view, SELECT on what it reads
    needs = _table(stmt.table, current_db, _one(ALTER if stmt.alter else CREATE))
    return needs + _query(stmt.query, current_db)


def _insert(stmt: ast.Insert, current_db):
    needs = _table(stmt.table, current_db, _one(LOAD))
    if stmt.query is not None:
        needs += _query(stmt.query, current_db)
    return needs


def _update(stmt: ast.Update, current_db):
    needs = _table(stmt.table, current_db, _one(LOAD))
    if stmt.from_sql:  # UPDATE ... FROM s: the joined tables are read
        sources = query_tables(f"SELECT 1 FROM {stmt.from_sql}")
        needs += [n for t in sources for n in _table(t, current_db, _one(SELECT))]
    return needs


def _delete(stmt: ast.Delete, current_db):
    needs = _table(stmt.table, current_db, _one(LOAD))
    if stmt.using:  # DELETE ... USING s: the joined tables are read
        sources = query_tables(f"SELECT 1 FROM {stmt.using}")
        needs += [n for t in sources for n in _table(t, current_db, _one(SELECT))]
    return needs


def _alter_table(stmt: ast.AlterTable, current_db):
    needs = _table(stmt.table, current_db, _one(ALTER))
    for action in stmt.actions:
        if isinstance(action, ast.ReplaceTable):
            # Doris checks only the ALTERed table; the other one changes name or is dropped too,
            # and its rows would become readable under the first one's grants (docs/security.md).
            needs += _table(ast.TableName(action.table, stmt.table.db), current_db, _one(ALTER))
    return needs


def _set_variable(stmt: ast.SetVariable, current_db):
    return _admin(stmt, current_db) if stmt.scope == "GLOBAL" else []


def _set_password(stmt: ast.SetPassword, current_db):
    # Changing one's own password needs nothing; another user's needs ADMIN. The engine
    # resolves `user` None to the session's user, so only an explicit FOR is checked here.
    return [] if stmt.user is None else [_SELF_OR_ADMIN]


#: Marker need: met when the statement names the session's own user (the engine checks).
_SELF_OR_ADMIN = Need(frozenset((ADMIN,)), db="", table="")

_RULES: dict[type, Callable[..., list[Need]]] = {
    ast.Query: lambda s, db: _query(s, db),
    ast.Explain: lambda s, db: _query(s.query, db),
    ast.Insert: _insert,
    ast.Delete: _delete,
    ast.Update: lambda s, db: _update(s, db),
    ast.TruncateTable: lambda s, db: _table(s.table, db, _one(LOAD)),
    ast.CreateDatabase: lambda s, db: _db(s.name, None, _one(CREATE)),
    ast.DropDatabase: lambda s, db: _db(s.name, None, _one(DROP)),
    ast.CreateTable: _create_table,
    ast.CreateTableLike: lambda s, db: _table(s.table, db, _one(CREATE)) + _table(s.source, db, _one(SELECT)),
    ast.DropTable: lambda s, db: _table(s.table, db, _one(DROP)),
    ast.CreateView: _create_view,
    ast.DropView: lambda s, db: _table(s.table, db, _one(DROP)),
    ast.ShowCreateView: lambda s, db: _table(s.table, db, ANY),
    ast.AlterTable: lambda s, db: _alter_table(s, db),
    ast.RecoverDatabase: lambda s, db: _db(s.new_name or s.name, None, frozenset((ALTER, CREATE))),
    ast.RecoverTable: lambda s, db: _table(s.table, db, frozenset((ALTER, CREATE)), all_of=True),
    ast.RecoverPartition: lambda s, db: _table(s.table, db, frozenset((ALTER, CREATE)), all_of=True),
    ast.Use: lambda s, db: _db(s.db, None, ANY),
    # Statements naming one table need a privilege on it (ERR_TABLE_ACCESS_DENIED_ERROR, 1224).
    # Listings need nothing: they show what dorisql.session.visibility lets the user see.
    ast.ShowDatabases: _nothing,
    ast.ShowTables: _nothing,
    ast.ShowCreateTable: lambda s, db: _table(s.table, db, ANY),
    # ShowCreateDatabaseCommand: SHOW (any privilege) on the database
    ast.ShowCreateDatabase: lambda s, db: _db(s.name, db, ANY),
    ast.ShowPartitions: lambda s, db: _table(s.table, db, ANY),
    ast.Describe: lambda s, db: _table(s.table, db, ANY),
    ast.ShowColumns: lambda s, db: _table(s.table, db, ANY),
    ast.ShowIndex: lambda s, db: _table(s.table, db, ANY),
    # ShowTableStatusCommand: checkDbPriv(SHOW), "Access denied for user ... to database ..."
    # (1044, raised by dorisql.session.access.authorize), then only the visible tables.
    ast.ShowTableStatus: lambda s, db: _db(s.db, db, ANY),
    ast.ShowData: lambda s, db: _table(s.table, db, ANY) if s.table is not None else [],
    ast.ShowBuckets: lambda s, db: _table(s.table, db, ANY),
    ast.ShowTablets: _admin,
    ast.ShowDelete: _nothing,
    ast.ShowAlterTableColumn: _nothing,
    ast.ShowDynamicPartitionTables: _nothing,
    ast.ShowProc: _admin,
    ast.ShowCatalogRecycleBin: _admin,
    ast.AdminSetFrontendConfig: _admin,
    ast.AdminCleanTrash: _admin,
    ast.AdminSetColocationGroup: _admin,
    ast.AdminCompactTable: _admin,
    ast.AdminCheckTable: _admin,
    ast.SetVariable: _set_variable,
    ast.Sync: _nothing,
    ast.Begin: _nothing,
    ast.Commit: _nothing,
    ast.Rollback: _nothing,
    ast.Help: _nothing,
    ast.CreateUser: _admin,
    ast.DropUser: _admin,
    ast.Grant: _admin,
    ast.Revoke: _admin,
    ast.SetPassword: _set_password,
    # ShowGrantsCommand: one's own grants, also named (FOR 'me'@'%'); anyone else's: ADMIN
    ast.ShowGrants: lambda s, db: _admin(s, db) if s.all else [_SELF_OR_ADMIN] if s.user is not None else [],
    ast.ShowLoad: _nothing,
    # ShowTransactionCommand: ADMIN
    ast.ShowTransaction: _admin,
    # CleanLabelStmt: LOAD on the database
    ast.CleanLabel: lambda s, db: _db(s.db, db, _one(LOAD)),
    # ShowFrontendsCommand / ShowBackendsCommand: ADMIN (or NODE, which dorisql does not have)
    ast.ShowFrontends: _admin,
    ast.ShowBackends: _admin,
    ast.ShowVariables: _nothing,
    ast.ShowWarnings: _nothing,
    ast.ShowCollation: _nothing,
    ast.SetNames: _nothing,
}


def required(stmt: ast.Statement, current_db: str | None) -> list[Need]:
    """The privileges `stmt` needs, run with `current_db` as the current database.

    A statement type not listed here (added later) needs nothing when it only reads metadata
    (`reads_only`) and ADMIN otherwise: safe by default."""
    rule = _RULES.get(type(stmt))
    if rule is None:
        return [] if stmt.reads_only else _admin(stmt, current_db)
    return rule(stmt, current_db)


def is_self_or_admin(need: Need) -> bool:
    return need is _SELF_OR_ADMIN


# --------------------------------------------------------------------------- SHOW GRANTS

#: SHOW GRANTS's columns (Doris 2.1's AuthProcDir / ShowGrantsStmt; no catalogs, resources,
#: workload groups or roles here, so those columns are NULL or the built-in role).
GRANT_COLUMNS = (
    "UserIdentity",
    "Comment",
    "Password",
    "Roles",
    "GlobalPrivs",
    "CatalogPrivs",
    "DatabasePrivs",
    "TablePrivs",
    "ColPrivs",
    "ResourcePrivs",
    "WorkloadGroupPrivs",
)


def _shown(privileges: Iterable[str]) -> str:
    privileges = frozenset(privileges)
    return ",".join(_SHOWN[p] for p in PRIVILEGES if p in privileges)


def grant_columns(
    user: ast.UserIdentity, has_password: bool, grants: Iterable[Grant], roles: str = "", comment: str = ""
) -> tuple:
    """One SHOW GRANTS row."""
    grants = tuple(grants)
    global_privs = [g for g in grants if g.db == "*"]
    dbs = [g for g in grants if g.db != "*" and g.table == "*"]
    tables = [g for g in grants if g.db != "*" and g.table != "*"]
    return (
        str(user),
        comment,
        "Yes" if has_password else "No",
        roles,
        _shown(global_privs[0].privileges) if global_privs else None,
        None,
        "; ".join(f"internal.{g.db}: {_shown(g.privileges)}" for g in dbs) or None,
        "; ".join(f"internal.{g.db}.{g.table}: {_shown(g.privileges)}" for g in tables) or None,
        None,
        None,
        None,
    )
