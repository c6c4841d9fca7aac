"""The server's pure rules (no Spark): error codes, column types, the address check, options."""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import time
from decimal import Decimal

import pytest
from mysql_mimic.types import ColumnType

from dorisql import ast
from dorisql.config import Config, ConfigError
from dorisql.errors import (
    AccessDeniedError,
    AuthenticationError,
    CancelledError,
    DorisqlError,
    InternalError,
    LoadError,
    NoDatabaseSelectedError,
    SqlSyntaxError,
    UnknownDatabaseError,
    UnknownTableError,
)
from dorisql.result import Float32, Result
from dorisql.server.context import Authenticator, catalog_source
from dorisql.server.main import is_loopback, refusal
from dorisql.server.mysql import (
    column_from_spark,
    column_from_values,
    protocol_error,
    result_columns,
    statement_text,
    text_row,
)
from dorisql.shell.cli import build_parser, server_options

from .serverkit import DORISQL
from isolation import dorisql_env


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (SqlSyntaxError("Syntax error at line 1, column 1: unknown statement 'selec'"), 1064),
        (UnknownDatabaseError("Unknown database 'x'"), 1049),
        (UnknownTableError("Unknown table 'x'"), 1051),
        (NoDatabaseSelectedError(), 1046),
        (CancelledError(), 1317),
        (LoadError("Insert has filtered data in strict mode"), 1105),
        (InternalError("Internal error (see the log)"), 1105),
        (DorisqlError("anything else"), 1105),
        (AuthenticationError("Access denied for user 'x'@'h' (using password: NO)"), 1045),
        (AccessDeniedError("Access denied; you need (at least one of) the (SELECT) privilege(s)"), 1227),
    ],
)
def test_errors_map_onto_doris_codes_and_wording(error, code):
    mapped = protocol_error(error)
    assert mapped.code == code
    assert mapped.msg == f"errCode = 2, detailMessage = {error.message}"


def test_an_error_raised_with_its_own_code_keeps_it():
    error = AccessDeniedError("Access denied; you need (at least one of) the (SELECT) privilege(s) on database d")
    error.code = 1225
    mapped = protocol_error(error)
    assert (mapped.code, mapped.sqlstate) == (1225, "42000")


def test_a_syntax_error_carries_its_caret_context():
    error = SqlSyntaxError("Syntax error at line 1, column 1: unknown statement 'selec'")
    error.context = "selec 1\n^\n"
    assert protocol_error(error).msg.endswith("unknown statement 'selec'\nselec 1\n^")


def test_column_types_from_spark_and_from_values():
    decimal = column_from_spark("d", "decimal(10,2)", [Decimal("1.50")])
    assert (decimal.type, decimal.length, decimal.decimals) == (ColumnType.NEWDECIMAL, 12, 2)
    stamp = column_from_spark("ts", "timestamp", [dt.datetime(2024, 1, 1, 0, 0, 0, 500)])
    assert (stamp.type, stamp.decimals) == (ColumnType.DATETIME, 6)
    assert column_from_spark("a", "array<int>", []).type == ColumnType.VAR_STRING
    assert column_from_spark("b", "boolean", []).type == ColumnType.TINY
    assert [column_from_values("x", [None, v]).type for v in (1, Float32(1.5), 1.5, dt.date(2024, 1, 1), "s")] == [
        ColumnType.LONGLONG,
        ColumnType.FLOAT,
        ColumnType.DOUBLE,
        ColumnType.DATE,
        ColumnType.VAR_STRING,
    ]
    assert column_from_values("x", [Decimal("1.5"), Decimal("2.125")]).decimals == 3
    typed = Result(columns=["k", "n"], rows=[(1, "a")], column_types=["int"])  # the second from its values
    assert [c.type for c in result_columns(typed)] == [ColumnType.LONG, ColumnType.VAR_STRING]


def test_values_are_sent_as_the_shell_shows_them():
    assert text_row((None, True, Float32(0.1), Decimal("1E+2"), dt.datetime(2024, 1, 2, 3, 4, 5), [1, None])) == (
        None,
        "1",
        "0.1",
        "100",
        "2024-01-02 03:04:05",
        "[1, null]",
    )


def test_statement_text():
    assert statement_text("/* client */ -- note\n  KILL QUERY 3 ;; ") == "KILL QUERY 3"


def test_privileged_users_without_password_listen_on_loopback_only(tmp_path, make_engine):
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")
    authenticator = Authenticator(catalog_source(Config(warehouse=str(tmp_path / "wh"))))
    assert refusal("127.0.0.1", authenticator) is None
    refused = refusal("0.0.0.0", authenticator)
    assert "'admin'@'%', 'root'@'%' have privileges and no password" in refused
    assert "SET PASSWORD FOR 'admin'@'%' = PASSWORD('...')" in refused
    assert authenticator.login_password("root", "127.0.0.1", "") == ast.UserIdentity("root", "%")
    engine = make_engine(tmp_path / "wh")
    engine.execute_sql("SET PASSWORD FOR 'root' = PASSWORD('secret')")
    # root alone is not enough: Doris's admin logs in with an empty password and has Admin_priv
    assert "'admin'@'%' has privileges and no password" in refusal("0.0.0.0", authenticator)
    assert authenticator.login_password("admin", "192.0.2.7", "") == ast.UserIdentity("admin", "%")
    engine.execute_sql("SET PASSWORD FOR 'admin' = PASSWORD('other')")
    assert refusal("0.0.0.0", authenticator) is None
    # a user with a grant and no password reopens the gap; one without any privilege does not
    engine.execute_sql("CREATE USER 'idle'@'%'")
    assert refusal("0.0.0.0", authenticator) is None
    engine.execute_sql("GRANT SELECT_PRIV ON *.* TO 'idle'@'%'")
    assert "'idle'@'%' has privileges and no password" in refusal("0.0.0.0", authenticator)
    engine.execute_sql("SET PASSWORD FOR 'idle'@'%' = PASSWORD('x')")
    assert refusal("0.0.0.0", authenticator) is None
    assert authenticator.login_password("root", "127.0.0.1", "secret") == ast.UserIdentity("root", "%")
    with pytest.raises(AuthenticationError, match=r"Access denied for user 'root'@'127.0.0.1' \(using password: NO\)"):
        authenticator.login_password("root", "127.0.0.1", "")
    with pytest.raises(AuthenticationError, match=r"Access denied for user 'admin'@'192.0.2.7' \(using password: NO\)"):
        authenticator.login_password("admin", "192.0.2.7", "")


def test_the_server_command_refuses_a_public_address_before_starting(tmp_path):
    done = subprocess.run(
        [DORISQL, "server", "--warehouse", str(tmp_path / "wh"), "--host", "0.0.0.0"],
        env=dorisql_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0: 'admin'@'%', 'root'@'%' have privileges and no password" in done.stderr
    assert "SET PASSWORD FOR 'admin'@'%' = PASSWORD('...')" in done.stderr


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["server", *argv])


def test_server_options_from_flags_and_the_config_file():
    config = Config(server={"host": "127.0.0.2", "query_port": "19030"})
    options = server_options(_args(), config)
    assert (options.host, options.query_port, options.http_port) == ("127.0.0.2", 19030, 8030)
    options = server_options(_args("--query-port", "9031", "--host", "::1"), config)
    assert (options.host, options.query_port) == ("::1", 9031)
    with pytest.raises(ConfigError, match=r"\[server\]: unknown setting\(s\): port"):
        server_options(_args(), Config(server={"port": "1"}))
    with pytest.raises(ConfigError, match="not a port number"):
        server_options(_args("--http-port", "70000"), Config())


def test_a_stop_that_hangs_ends_the_process_at_its_deadline():
    """SIGTERM's deadline: whatever still runs (here: a main thread that never returns), the
    process ends, with a line saying so."""
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import time; from dorisql.server.main import exit_after; exit_after(1.0); time.sleep(60)",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert "shutdown did not finish within 1 s: exiting now" in done.stderr
    assert time.monotonic() - started < 20
