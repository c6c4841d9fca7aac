"""Users and privileges through the engine (catalog only, no Spark): what CREATE USER, GRANT,
REVOKE, SET PASSWORD and DROP USER store, login, and what a user's session may do and see."""

from __future__ import annotations

import os

import pytest

from dorisql import ast
from dorisql.auth.passwords import native_hash, native_scramble
from dorisql.errors import AccessDeniedError, AnalysisError, AuthenticationError, CatalogError
from dorisql.session.access import authenticate_native, authenticate_password, root_has_password


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    return tmp_path_factory.mktemp("users")


@pytest.fixture(scope="module")
def root(warehouse, make_engine):
    engine = make_engine(warehouse)
    engine.execute_sql(
        """
        CREATE DATABASE sales; CREATE DATABASE hr;
        CREATE TABLE sales.orders (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
        CREATE TABLE sales.refunds (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
        CREATE TABLE hr.pay (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
        CREATE USER 'ana'@'%' IDENTIFIED BY 'ana-pw';
        GRANT SELECT_PRIV ON sales.* TO 'ana'@'%';
        GRANT LOAD_PRIV ON sales.orders TO 'ana'@'%';
        """
    )
    yield engine
    engine.close()


def _session(make_engine, warehouse, user: str, host: str = "%"):
    engine = make_engine(warehouse)
    engine.user = ast.UserIdentity(user, host)
    return engine


def test_created_users_log_in_with_their_password_only(root):
    catalog = root.catalog
    assert authenticate_password(catalog, "ana", "10.0.0.9", "ana-pw") == ast.UserIdentity("ana", "%")
    with pytest.raises(AuthenticationError) as err:
        authenticate_password(catalog, "ana", "10.0.0.9", "nope")
    assert str(err.value) == "Access denied for user 'ana'@'10.0.0.9' (using password: YES)"
    assert err.value.code == 1045
    with pytest.raises(AuthenticationError, match=r"\(using password: NO\)"):
        authenticate_password(catalog, "ghost", "10.0.0.9", "")
    salt = os.urandom(20)
    assert authenticate_native(catalog, "ana", "127.0.0.1", salt, native_scramble("ana-pw", salt)).user == "ana"
    with pytest.raises(AuthenticationError):
        authenticate_native(catalog, "ana", "127.0.0.1", salt, native_scramble("nope", salt))
    # root has no password until one is set
    assert authenticate_native(catalog, "root", "127.0.0.1", salt, b"") == ast.UserIdentity("root", "%")
    assert not root_has_password(catalog)


def test_the_password_is_stored_as_mysqls_native_hash(root):
    assert root.catalog.get_user("ana", "%").password == native_hash("ana-pw")


def test_a_user_sees_and_reads_only_what_was_granted(root, make_engine, warehouse):
    ana = _session(make_engine, warehouse, "ana")
    assert ana.execute_sql("SHOW DATABASES")[0].rows == [
        ("information_schema",),
        ("mysql",),
        ("sales",),
    ]  # as Doris: everyone sees the two system databases (Auth grants read on mysql.* to all)
    assert ana.execute_sql("SHOW TABLES FROM sales")[0].rows == [("orders",), ("refunds",)]
    # information_schema shows the same (the rows a SELECT of it reads)
    from dorisql.statements.show.information_schema import schema_table_rows

    user_tables = {(r["TABLE_SCHEMA"], r["TABLE_NAME"]) for r in schema_table_rows(ana, "tables")}
    assert {t for t in user_tables if t[0] not in ("information_schema", "mysql")} == {
        ("sales", "orders"),
        ("sales", "refunds"),
    }
    assert {r["TABLE_SCHEMA"] for r in schema_table_rows(ana, "columns")} == {"sales"}
    assert [r["SCHEMA_NAME"] for r in schema_table_rows(ana, "schemata")] == ["information_schema", "mysql", "sales"]
    # Doris's SHOW TABLES checks no database privilege: it lists the visible tables, here none
    assert ana.execute_sql("SHOW TABLES FROM hr")[0].rows == []
    with pytest.raises(AccessDeniedError, match="Access denied for user 'ana'@'%' to database 'hr'") as err:
        ana.execute_sql("USE hr")
    assert err.value.code == 1044
    with pytest.raises(AccessDeniedError, match=r"\(SELECT/LOAD/ALTER/CREATE/DROP\) privilege\(s\) on table hr.pay"):
        ana.execute_sql("DESC hr.pay")
    with pytest.raises(AccessDeniedError, match=r"\(LOAD\) privilege\(s\) on table sales.refunds"):
        ana.execute_sql("TRUNCATE TABLE sales.refunds")
    with pytest.raises(AccessDeniedError, match=r"\(DROP\) privilege\(s\) on table sales.orders"):
        ana.execute_sql("DROP TABLE sales.orders")
    with pytest.raises(AccessDeniedError, match=r"\(ADMIN\) privilege\(s\) for this operation"):
        ana.execute_sql("CREATE USER 'bob'")
    assert ana.execute_sql("DESC sales.orders")[0].rows  # granted: works
    assert root.catalog.table_exists("sales", "orders")  # the denied DROP changed nothing


def test_grant_and_revoke_take_effect_on_the_next_statement(root, make_engine, warehouse):
    root.execute_sql("CREATE USER 'carl'@'%' IDENTIFIED BY 'c'")
    carl = _session(make_engine, warehouse, "carl")
    assert carl.execute_sql("SHOW DATABASES")[0].rows == [("information_schema",), ("mysql",)]
    root.execute_sql("GRANT ALTER_PRIV ON hr.pay TO 'carl'")
    assert carl.execute_sql("SHOW DATABASES")[0].rows == [("hr",), ("information_schema",), ("mysql",)]
    carl.execute_sql("ALTER TABLE hr.pay MODIFY COMMENT 'salaries'")
    grants = root.execute_sql("SHOW GRANTS FOR 'carl'@'%'")[0]
    assert dict(zip(grants.columns, grants.rows[0]))["TablePrivs"] == "internal.hr.pay: Alter_priv"
    root.execute_sql("REVOKE ALTER_PRIV ON hr.pay FROM 'carl'")
    assert carl.execute_sql("SHOW DATABASES")[0].rows == [("information_schema",), ("mysql",)]
    with pytest.raises(CatalogError, match="There is no such grant defined for user 'carl' on host '%'"):
        root.execute_sql("REVOKE ALTER_PRIV ON hr.pay FROM 'carl'")


def test_user_errors_are_dorises(root):
    with pytest.raises(CatalogError, match=r"^Operation CREATE USER failed for 'ana'@'%'$") as err:
        root.execute_sql("CREATE USER 'ana'@'%'")
    assert err.value.code == 1396
    root.execute_sql("CREATE USER IF NOT EXISTS 'ana'@'%'")
    with pytest.raises(CatalogError, match=r"^Operation DROP USER failed for 'nobody'@'%'$"):
        root.execute_sql("DROP USER 'nobody'")
    root.execute_sql("DROP USER IF EXISTS 'nobody'")
    with pytest.raises(AnalysisError, match="Can not drop root or admin user"):
        root.execute_sql("DROP USER root")
    with pytest.raises(CatalogError, match=r"user 'nobody'@'%' does not exist"):
        root.execute_sql("GRANT SELECT ON sales.* TO nobody")
    with pytest.raises(AnalysisError, match="Unknown privilege type USAGE_PRIVX"):
        root.execute_sql("GRANT USAGE_PRIVX ON sales.* TO ana")


def test_set_password_for_oneself_and_by_admin_and_drop_user(root, make_engine, warehouse):
    root.execute_sql("CREATE USER 'dora' IDENTIFIED BY 'one'")
    dora = _session(make_engine, warehouse, "dora")
    dora.execute_sql("SET PASSWORD = PASSWORD('two')")
    authenticate_password(root.catalog, "dora", "127.0.0.1", "two")
    with pytest.raises(AccessDeniedError, match=r"\(ADMIN\)"):
        dora.execute_sql("SET PASSWORD FOR 'ana' = PASSWORD('x')")
    root.execute_sql(f"SET PASSWORD FOR 'dora'@'%' = '{native_hash('three')}'")
    authenticate_password(root.catalog, "dora", "127.0.0.1", "three")
    root.execute_sql("DROP USER 'dora'@'%'")
    with pytest.raises(AuthenticationError):
        authenticate_password(root.catalog, "dora", "127.0.0.1", "three")
    # a session whose user was dropped keeps no privilege
    with pytest.raises(AccessDeniedError):
        dora.execute_sql("SET GLOBAL x = 1")


def test_root_password_and_the_shell_acting_as_root(warehouse, make_engine):
    engine = make_engine(warehouse)  # no user: the local shell
    rows = engine.execute_sql("SHOW GRANTS")[0].rows
    assert rows[0][0] == "'root'@'%'" and rows[0][4] == "Admin_priv"
    engine.execute_sql("SET PASSWORD FOR root = PASSWORD('r00t')")
    assert root_has_password(engine.catalog)
    with pytest.raises(AuthenticationError):
        authenticate_password(engine.catalog, "root", "127.0.0.1", "")
    engine.execute_sql("SET PASSWORD FOR root = PASSWORD('')")
    assert not root_has_password(engine.catalog)
