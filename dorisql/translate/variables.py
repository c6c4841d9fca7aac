"""System variables as MySQL clients and tools read them: SHOW VARIABLES, ``@@name`` in a SELECT
list, and the session functions DATABASE(), VERSION(), CONNECTION_ID(), USER(), CURRENT_USER().

Pure: takes the session's variables and identity as plain values. Drivers and tools ask for
these on connect (``SELECT @@version_comment``, ``SELECT @@sql_mode``, ``SHOW VARIABLES LIKE
'lower_case_table_names'``, ``SELECT DATABASE()``): a query whose values are all such constants is
answered here without Spark (`constant_select`); any other query gets the values substituted as
literals before it is planned (`substitute`), so ``@@x`` never reaches Spark.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from sqlglot import exp

from dorisql import __version__
from dorisql.errors import AnalysisError
from dorisql.partitioning.dynamic import system_time_zone
from dorisql.settings import SESSION_DEFAULTS
from dorisql.syntax.cancel import checked
from dorisql.syntax.dialect import call_name, parse_query, replace_node
from dorisql.translate.doris_variables import DORIS_VARIABLES
from dorisql.translate.expressions import name_columns

#: What VERSION() and @@version answer: Doris answers a MySQL 5.7 version so that drivers pick
#: their 5.7 code paths (GlobalVariable.version in fe-core).
MYSQL_VERSION = "5.7.99"
VERSION_COMMENT = f"dorisql version {__version__} (Apache Doris compatible)"

#: Doris's values for the variables MySQL clients and tools read (VariableMgr / SessionVariable /
#: GlobalVariable in fe-core); booleans as Doris shows them.
SYSTEM_VARIABLES: dict[str, str] = {
    "auto_increment_increment": "1",
    "autocommit": "true",
    "character_set_client": "utf8mb4",
    "character_set_connection": "utf8mb4",
    "character_set_database": "utf8mb4",
    "character_set_results": "utf8mb4",
    "character_set_server": "utf8mb4",
    "collation_connection": "utf8mb4_0900_bin",
    "collation_database": "utf8mb4_0900_bin",
    "collation_server": "utf8mb4_0900_bin",
    "have_query_cache": "YES",
    "init_connect": "",
    "interactive_timeout": "3600",
    "language": "/palo/share/english/",
    "license": "Apache License, Version 2.0",
    "lower_case_table_names": "0",
    "max_allowed_packet": "16777216",
    "net_buffer_length": "16384",
    "net_read_timeout": "600",
    "net_write_timeout": "600",
    "performance_schema": "false",
    "query_cache_size": "1048576",
    "query_cache_type": "0",
    "query_timeout": "900",
    "sql_auto_is_null": "false",
    "sql_mode": "ONLY_FULL_GROUP_BY",
    "sql_select_limit": "9223372036854775807",
    "system_time_zone": "",
    "time_zone": "",
    "transaction_isolation": "REPEATABLE-READ",
    "transaction_read_only": "false",
    "tx_isolation": "REPEATABLE-READ",
    "tx_read_only": "false",
    "version": MYSQL_VERSION,
    "version_comment": VERSION_COMMENT,
    "wait_timeout": "28800",
}

#: Variables whose value is a number for ``SELECT @@x`` (drivers parse them as integers).
_BOOLEANS = {"true": 1, "false": 0}

#: Session functions and the identity field each answers.
_SESSION_FUNCTIONS = {
    "database": "database",
    "schema": "database",
    "current_database": "database",
    "version": "version",
    "connection_id": "connection_id",
    "user": "user",
    "session_user": "user",
    "system_user": "user",
    "current_user": "current_user",
}


@dataclass(frozen=True)
class SessionIdentity:
    """Who and where the session is, for DATABASE(), USER(), CONNECTION_ID()."""

    database: str | None
    connection_id: int
    user: str = "root"
    host: str = "%"

    def value(self, field: str):
        if field == "database":
            return self.database
        if field == "version":
            return MYSQL_VERSION
        if field == "connection_id":
            return self.connection_id
        if field == "user":
            return f"'{self.user}'@'{self.host}'"
        return f"'{self.user}'@'%'"  # current_user: the account, Doris's 'root'@'%'


def all_variables(session_vars: Mapping[str, str], scope: str | None = None) -> dict[str, str]:
    """Every variable and its value: Doris's, dorisql's session defaults, then what the session
    SET (GLOBAL shows the defaults only, as no SET here changes another session)."""
    values = dict(SYSTEM_VARIABLES)
    values["system_time_zone"] = system_time_zone()
    values.update(SESSION_DEFAULTS)
    if scope != "GLOBAL":
        values.update(session_vars)
    if not values.get("time_zone"):
        values["time_zone"] = values["system_time_zone"]
    return dict(sorted(values.items()))


def variable_value(session_vars: Mapping[str, str], name: str) -> str:
    """One variable's value for ``@@name``; Doris's error for a name it does not know."""
    scope = None
    lowered = name.lower()
    for prefix in ("global.", "session.", "local."):
        if lowered.startswith(prefix):
            scope, lowered = prefix[:-1].upper(), lowered[len(prefix) :]
    values = all_variables(session_vars, "GLOBAL" if scope == "GLOBAL" else None)
    if lowered not in values:
        raise unknown_variable(lowered)
    return values[lowered]


def unknown_variable(name: str) -> AnalysisError:
    """Doris's ERR_UNKNOWN_SYSTEM_VARIABLE (common/ErrorCode.java: 1193, HY000)."""
    err = AnalysisError(f"Unknown system variable '{name}'")
    err.code = 1193
    return err


def check_settable(name: str) -> None:
    """Refuse ``SET name`` for a name that is not a Doris variable nor one of dorisql's (lower
    case, without scope): Doris's error, 1193."""
    if name not in DORIS_VARIABLES and name not in SYSTEM_VARIABLES and name not in SESSION_DEFAULTS:
        raise unknown_variable(name)


def _literal(value) -> exp.Expr:
    if value is None:
        return exp.Null()
    if isinstance(value, int):
        return exp.Literal.number(value)
    return exp.Literal.string(value)


def _typed(value: str):
    """A variable's value for ``SELECT @@x``: numbers and booleans as integers (as MySQL and
    Doris return them), the rest as text."""
    if value in _BOOLEANS:
        return _BOOLEANS[value]
    if re.fullmatch(r"-?[0-9]{1,18}", value):
        return int(value)
    return value


def substitute(tree: exp.Expr, session_vars: Mapping[str, str], identity: SessionIdentity) -> bool:
    """Replace every ``@@x`` and session function call of `tree` by its value, in place.
    True if anything was replaced."""

    changed = False
    for node in checked(list(tree.find_all(exp.SessionParameter, exp.Func))):
        if isinstance(node, exp.SessionParameter):
            kind = node.args.get("kind")
            name = (f"{kind}." if kind else "") + node.name
            replace_node(node, _literal(_typed(variable_value(session_vars, name))))
            changed = True
            continue
        assert isinstance(node, exp.Func)  # (what find_all was asked for, but a SessionParameter)
        field = _SESSION_FUNCTIONS.get(call_name(node) or "")
        if field is None or node.expressions or (not isinstance(node, exp.Anonymous) and node.this is not None):
            continue  # another function, or a call with arguments: the allow-list judges it
        replace_node(node, _literal(identity.value(field)))
        changed = True
    return changed


def _constant(node: exp.Expr):
    """The Python value of a literal item, or raise LookupError if it is not one."""
    if isinstance(node, exp.Alias):
        return _constant(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        return int(text) if re.fullmatch(r"-?[0-9]+", text) else Decimal(text)
    raise LookupError


def constant_select(
    sql: str, session_vars: Mapping[str, str], identity: SessionIdentity
) -> tuple[list[str], list[tuple]] | None:
    """(columns, rows) of a SELECT of session values and literals only (``SELECT
    @@version_comment LIMIT 1``, ``SELECT DATABASE()``), answered without Spark; None for any
    other query (it is planned as usual)."""

    tree = parse_query(sql)
    if not isinstance(tree, exp.Select):
        return None
    clauses = {key for key, value in tree.args.items() if value and key not in ("expressions", "limit")}
    if clauses:
        return None
    limit = tree.args.get("limit")
    if limit is not None and not (isinstance(limit.expression, exp.Literal) and limit.expression.is_int):
        return None
    name_columns(tree)
    if not substitute(tree, session_vars, identity):
        return None
    try:
        row = tuple(_constant(item) for item in tree.expressions)
    except LookupError:
        return None
    columns = [item.alias_or_name for item in tree.expressions]
    rows = [row] if limit is None or int(limit.expression.this) > 0 else []
    return columns, rows
