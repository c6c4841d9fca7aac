"""Users and privileges, pure: password hashes and the mysql_native_password check, privilege
names, grants, what each statement needs (no catalog, no Spark)."""

from __future__ import annotations

import hashlib
import os

import pytest

from dorisql import ast
from dorisql.auth import privileges as P
from dorisql.auth.passwords import (
    check_stored_hash,
    native_hash,
    native_scramble,
    verify_native_scramble,
    verify_password,
)
from dorisql.errors import AccessDeniedError, AnalysisError, SqlSyntaxError
from dorisql.session.access import host_matches
from dorisql.syntax import parse

# --------------------------------------------------------------------------- hashes


def test_native_hash_is_mysqls_password_function():
    # MySQL: SELECT PASSWORD('123456') = '*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9'
    assert native_hash("123456") == "*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9"
    assert native_hash("") == ""
    assert verify_password(native_hash("pw"), "pw")
    assert not verify_password(native_hash("pw"), "pW")
    assert verify_password("", "") and not verify_password("", "x")


def test_the_scramble_a_client_sends_verifies_against_the_stored_hash_only():
    salt = os.urandom(20)
    stored = native_hash("s3cret")
    answer = native_scramble("s3cret", salt)
    # the client's answer as MySQL defines it, computed independently here
    stage1 = hashlib.sha1(b"s3cret").digest()
    key = hashlib.sha1(salt + hashlib.sha1(stage1).digest()).digest()
    assert answer == bytes(a ^ b for a, b in zip(stage1, key))
    assert verify_native_scramble(stored, salt, answer)
    assert not verify_native_scramble(stored, os.urandom(20), answer)  # another handshake's salt
    assert not verify_native_scramble(stored, salt, native_scramble("wrong", salt))
    assert not verify_native_scramble(stored, salt, b"")  # no password sent
    assert not verify_native_scramble(stored, salt, answer[:10])
    assert verify_native_scramble("", salt, b"") and not verify_native_scramble("", salt, answer)


def test_a_given_hash_must_be_41_hex_digits():
    assert check_stored_hash("*6bb4837eb74329105ee4568dda7dc67ed2ca2ad9") == "*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9"
    for bad in ("6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9", "*XYZ", "*" + "A" * 39):
        with pytest.raises(AnalysisError, match="41-digit hexadecimal"):
            check_stored_hash(bad)


def test_host_patterns():
    assert host_matches("%", "10.1.2.3")
    assert host_matches("192.168.%", "192.168.0.7") and not host_matches("192.168.%", "10.0.0.1")
    assert host_matches("10.0.0._", "10.0.0.5") and not host_matches("10.0.0._", "10.0.0.55")
    assert host_matches("localhost", "127.0.0.1") and host_matches("localhost", "::1")
    assert not host_matches("localhost", "10.0.0.1")


# --------------------------------------------------------------------------- statements


def _one(sql):
    (stmt,) = parse(sql)
    return stmt


def test_user_statements_parse():
    assert _one("CREATE USER IF NOT EXISTS 'jack'@'192.168.%' IDENTIFIED BY 'pw'") == ast.CreateUser(
        ast.UserIdentity("jack", "192.168.%"), password="pw", if_not_exists=True
    )
    assert _one("create user jack identified by password '*AB'") == ast.CreateUser(
        ast.UserIdentity("jack"), password="*AB", password_is_hash=True
    )
    assert _one("DROP USER IF EXISTS 'u'@localhost") == ast.DropUser(ast.UserIdentity("u", "localhost"), True)
    assert _one("SET PASSWORD = PASSWORD('x')") == ast.SetPassword("x")
    assert _one("SET PASSWORD FOR 'u'@'%' = '*AB'") == ast.SetPassword("*AB", True, ast.UserIdentity("u"))
    assert _one("GRANT SELECT_PRIV, load_priv ON db1.* TO 'u'@'%'") == ast.Grant(
        ("SELECT_PRIV", "LOAD_PRIV"), "db1", "*", ast.UserIdentity("u")
    )
    assert _one("GRANT ALL PRIVILEGES ON internal.db.t TO u") == ast.Grant(("ALL",), "db", "t", ast.UserIdentity("u"))
    assert _one("REVOKE SELECT ON *.* FROM 'u'") == ast.Revoke(("SELECT",), "*", "*", ast.UserIdentity("u"))
    assert _one("SHOW ALL GRANTS") == ast.ShowGrants(all=True)
    assert _one("SHOW GRANTS FOR u") == ast.ShowGrants(user=ast.UserIdentity("u"))
    assert _one("SHOW STREAM LOAD FROM db WHERE Label = 'l1' LIMIT 5").stream
    assert _one("SET password_reuse = 1") == ast.SetVariable("password_reuse", ast.Literal("1", "number"))
    with pytest.raises(SqlSyntaxError, match=r"expected \*\.\* or db\.\* or db\.table"):
        parse("GRANT SELECT ON *.t TO u")


def test_privilege_words_are_dorises():
    assert P.privilege_names(["SELECT", "INSERT"], "db", "*") == {P.SELECT, P.LOAD}
    assert P.privilege_names(["ALL"], "db", "t") == {P.SELECT, P.LOAD, P.ALTER, P.CREATE, P.DROP}
    assert P.privilege_names(["ADMIN_PRIV"], "*", "*") == {P.ADMIN}
    with pytest.raises(AnalysisError, match="Unknown privilege type OPERATOR_PRIV"):
        P.privilege_names(["OPERATOR_PRIV"], "db", "*")
    with pytest.raises(AnalysisError, match=r"can only be granted or revoked on \*\.\*"):
        P.privilege_names(["ADMIN_PRIV"], "db", "*")


def test_grants_merge_and_revoke_per_target():
    g = P.add_grant((), "db", "*", frozenset((P.SELECT,)))
    g = P.add_grant(g, "db", "*", frozenset((P.LOAD,)))
    g = P.add_grant(g, "db", "t", frozenset((P.ALTER,)))
    assert g == (P.Grant("db", "*", (P.SELECT, P.LOAD)), P.Grant("db", "t", (P.ALTER,)))
    assert P.revoke_grant(g, "db", "t", frozenset((P.ALTER,))) == (P.Grant("db", "*", (P.SELECT, P.LOAD)),)


def _needs(sql, db="db"):
    return P.required(_one(sql), db)


def test_what_each_statement_needs():
    sel, load = frozenset((P.SELECT,)), frozenset((P.LOAD,))
    assert _needs("SELECT * FROM t JOIN other.u ON t.k = u.k") == [P.Need(sel, "db", "t"), P.Need(sel, "other", "u")]
    assert _needs("INSERT INTO t SELECT * FROM s") == [P.Need(load, "db", "t"), P.Need(sel, "db", "s")]
    assert _needs("DELETE FROM t WHERE k = 1") == [P.Need(load, "db", "t")]
    assert _needs("UPDATE t SET v = s.v FROM s WHERE t.k = s.k") == [P.Need(load, "db", "t"), P.Need(sel, "db", "s")]
    assert _needs("TRUNCATE TABLE t") == [P.Need(load, "db", "t")]
    assert _needs("CREATE TABLE x.t (k INT) DISTRIBUTED BY HASH(k)") == [P.Need(frozenset((P.CREATE,)), "x", "t")]
    assert _needs("DROP TABLE t") == [P.Need(frozenset((P.DROP,)), "db", "t")]
    assert _needs("ALTER TABLE t SET ('a' = 'b')") == [P.Need(frozenset((P.ALTER,)), "db", "t")]
    assert _needs("DROP DATABASE d") == [P.Need(frozenset((P.DROP,)), "d")]
    admin = [P.Need(frozenset((P.ADMIN,)))]
    for sql in (
        "ADMIN SET FRONTEND CONFIG ('a' = 'b')",
        "SET GLOBAL x = 1",
        "CREATE USER u",
        "GRANT SELECT ON *.* TO u",
    ):
        assert _needs(sql) == admin, sql
    assert _needs("SELECT * FROM local('file_path' = 'x', 'format' = 'csv')") == admin
    assert _needs("SET x = 1") == [] and _needs("SHOW GRANTS") == [] and _needs("SHOW DATABASES") == []
    assert _needs("SELECT * FROM information_schema.tables") == []


def test_grants_meet_needs_at_every_level_and_admin_meets_all():
    need = P.Need(frozenset((P.SELECT,)), "db", "t")
    assert P.allowed([P.Grant("*", "*", (P.SELECT,))], need)
    assert P.allowed([P.Grant("db", "*", (P.SELECT,))], need)
    assert P.allowed([P.Grant("db", "t", (P.SELECT,))], need)
    assert P.allowed([P.Grant("*", "*", (P.ADMIN,))], need)
    assert not P.allowed([P.Grant("db", "u", (P.SELECT,)), P.Grant("other", "*", (P.SELECT,))], need)
    assert not P.allowed([P.Grant("db", "t", (P.LOAD,))], need)
    # seeing a database: any privilege on it or one of its tables
    assert P.can_see_database([P.Grant("db", "t", (P.LOAD,))], "db")
    assert not P.can_see_database([P.Grant("db", "t", (P.LOAD,))], "other")
    assert P.can_see_database([], "information_schema")


def test_denials_use_dorises_messages():
    with pytest.raises(AccessDeniedError) as err:
        P.check([], [P.Need(frozenset((P.SELECT,)), "db", "t")])
    assert str(err.value) == (
        "Access denied; you need (at least one of) the (SELECT) privilege(s) on table db.t for this operation"
    )
    assert err.value.code == 1224 and err.value.sqlstate == "42000"
    with pytest.raises(AccessDeniedError, match=r"the \(ADMIN\) privilege\(s\) for this operation") as err:
        P.check([P.Grant("db", "*", (P.SELECT,))], [P.Need(frozenset((P.ADMIN,)))])
    assert err.value.code == 1227
