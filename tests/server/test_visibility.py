"""What a user sees (issue 25, item 8): every SHOW, DESC, EXPLAIN, information_schema table and
SHOW PROC path, run as users with and without a privilege on database d2 (real engine, real
catalog, no Spark). Each denial is paired with a user holding the privilege who does see the
thing, so no test can pass by hiding everything.

Doris's rules (dorisql.session.visibility): a table is visible with any privilege on it, its
database or globally; statements naming one table are refused (1224) before they look it up, so
an invisible table and a missing one answer alike; listings drop what the user cannot see;
SHOW TABLE STATUS of an invisible database is refused (1044); SHOW PROC, SHOW TABLETS, SHOW
FRONTENDS / BACKENDS and the recycle bin need ADMIN (1227)."""

from __future__ import annotations

import base64
import datetime as dt
import inspect
import json
import urllib.error
import urllib.request

import pytest

from dorisql import ast
from dorisql.auth import privileges
from dorisql.catalog.base import LoadRecord
from dorisql.errors import AccessDeniedError, UnknownTableError
from dorisql.server.http import HttpListener
from dorisql.session.access import authorize
from dorisql.statements.load.stream_load import error_log_dir
from dorisql.statements.show.information_schema import schema_table_rows
from dorisql.syntax import parse

DDL = """
CREATE DATABASE d1; CREATE DATABASE d2;
CREATE TABLE d1.pub (k INT, v INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
CREATE TABLE d2.secret (day DATE NOT NULL, k INT, v VARCHAR(10) COMMENT 'the secret column')
    DUPLICATE KEY(day, k) PARTITION BY RANGE(day) () DISTRIBUTED BY HASH(k) BUCKETS 1
    PROPERTIES ('replication_num' = '1', 'dynamic_partition.time_unit' = 'DAY',
                'dynamic_partition.start' = '-2', 'dynamic_partition.end' = '2',
                'dynamic_partition.prefix' = 'p');
CREATE TABLE d2.other (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
ALTER TABLE d2.secret ADD COLUMN extra INT;
DELETE FROM d2.secret WHERE k = 1;
CREATE USER 'nobody'@'%';
CREATE USER 'd1user'@'%';
GRANT SELECT_PRIV ON d1.* TO 'd1user'@'%';
CREATE USER 'seer'@'%';
GRANT SELECT_PRIV ON d2.secret TO 'seer'@'%';
CREATE USER 'loader'@'%';
GRANT LOAD_PRIV ON d2.secret TO 'loader'@'%';
CREATE USER 'alterer'@'%';
GRANT ALTER_PRIV ON d2.secret TO 'alterer'@'%';
CREATE USER 'd2all'@'%';
GRANT SELECT_PRIV ON d2.* TO 'd2all'@'%';
CREATE USER 'former'@'%';
CREATE USER 'd2loader'@'%' IDENTIFIED BY 'pw';
GRANT LOAD_PRIV ON d2.* TO 'd2loader'@'%';
CREATE USER 'boss'@'%';
GRANT ADMIN_PRIV ON *.* TO 'boss'@'%';
"""

SECRET_DENIED = (
    "Access denied; you need (at least one of) the (SELECT/LOAD/ALTER/CREATE/DROP) privilege(s) "
    "on table d2.secret for this operation"
)
ADMIN_DENIED = "Access denied; you need (at least one of) the (ADMIN) privilege(s) for this operation"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, make_engine):
    path = tmp_path_factory.mktemp("visibility")
    root = make_engine(path)
    root.execute_sql(DDL)
    # two Stream Load records and their error logs as the loads write them (statements.load.stream_load):
    # one by 'loader' into d2.secret, one by 'former' (who holds no privilege any more) into
    # d2.other; and a log no record names any more (its label was reused)
    now = dt.datetime(2026, 1, 2, 3, 4, 5)
    logs = error_log_dir(path)
    logs.mkdir(parents=True, exist_ok=True)
    for label, table, user in (("l-secret", "secret", "loader"), ("l-other", "other", "former")):
        txn = root.catalog.next_id()
        name = f"error_log_{txn}_{label.encode().hex()[:8]}"
        (logs / name).write_text(f"Reason: bad row of {table}. src line [x]; \n", encoding="utf-8")
        url = f"http://127.0.0.1:8030/api/_load_error_log?file={name}"
        record = LoadRecord("d2", label, table, txn, "FINISHED", now, now, user=user, error_url=url)
        assert root.catalog.claim_load(record) is None
    (logs / "error_log_999_0badc0de").write_text("Reason: orphan. src line [y]; \n", encoding="utf-8")
    root.close()
    return path


@pytest.fixture
def session(warehouse, make_engine):
    """session(user) -> an engine running as 'user'@'%' (None: the local shell, as root)."""
    engines = []

    def make(user: str | None, db: str | None = None):
        engine = make_engine(warehouse)
        if user is not None:
            engine.user = ast.UserIdentity(user, "%")
        engine.current_db = db
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


def rows(engine, sql):
    (result,) = engine.execute_sql(sql)
    return result.rows


def first_column(engine, sql):
    return [row[0] for row in rows(engine, sql)]


# --------------------------------------------------------------------------- one table named

#: Statements that name d2.secret: any privilege on it (or its database, or global) is needed.
NAMING_SECRET = [
    "SHOW COLUMNS FROM d2.secret",
    "SHOW FULL COLUMNS FROM d2.secret",
    "SHOW FIELDS FROM secret FROM d2",
    "SHOW COLUMNS IN secret FROM d2 LIKE 'k%'",
    "SHOW FULL COLUMNS FROM d2.secret WHERE Field = 'v'",
    "DESC d2.secret",
    "DESCRIBE d2.secret",
    "DESC d2.secret ALL",
    "SHOW CREATE TABLE d2.secret",
    "SHOW PARTITIONS FROM d2.secret",
    "SHOW TEMPORARY PARTITIONS FROM d2.secret",
    "SHOW DATA FROM d2.secret",
    "SHOW BUCKETS FROM d2.secret",
]


@pytest.mark.parametrize("sql", NAMING_SECRET)
def test_a_statement_naming_an_invisible_table_is_refused_in_dorises_words(session, sql):
    for user in ("nobody", "d1user"):
        with pytest.raises(AccessDeniedError) as err:
            session(user).execute_sql(sql)
        assert str(err.value) == SECRET_DENIED and err.value.code == 1224, user
    # the control: any privilege on the table shows it (and the statement answers rows)
    for user in ("seer", "loader", "alterer", "d2all", "boss"):
        (result,) = session(user).execute_sql(sql)
        assert result.columns and (result.rows or "TEMPORARY" in sql), (user, sql)


def test_show_columns_shows_what_the_table_holds_only_to_who_may_see_it(session):
    shown = rows(session("seer"), "SHOW FULL COLUMNS FROM d2.secret")
    assert [r[0] for r in shown] == ["day", "k", "v", "extra"]
    assert shown[2][-1] == "the secret column"
    create = rows(session("alterer"), "SHOW CREATE TABLE d2.secret")[0][1]
    assert "the secret column" in create


def test_a_missing_table_answers_like_an_invisible_one(session):
    """Checked before the lookup (Doris's validate): no user learns which names exist."""
    for sql in ("SHOW COLUMNS FROM d2.missing", "DESC d2.missing", "SHOW CREATE TABLE d2.missing"):
        with pytest.raises(AccessDeniedError, match=r"on table d2\.missing for this operation"):
            session("nobody").execute_sql(sql)
        with pytest.raises(UnknownTableError):  # d2all sees d2: the table is really missing
            session("d2all").execute_sql(sql)


# --------------------------------------------------------------------------- listings


def test_show_databases_lists_the_visible_databases(session):
    assert first_column(session("nobody"), "SHOW DATABASES") == ["information_schema", "mysql"]
    assert first_column(session("d1user"), "SHOW DATABASES") == ["d1", "information_schema", "mysql"]
    # a grant on one table shows its database
    assert first_column(session("seer"), "SHOW DATABASES") == ["d2", "information_schema", "mysql"]
    assert first_column(session("boss"), "SHOW DATABASES") == ["d1", "d2", "information_schema", "mysql"]
    assert first_column(session(None), "SHOW DATABASES LIKE 'd%'") == ["d1", "d2"]


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW TABLES FROM d2",
        "SHOW FULL TABLES FROM d2",
        "SHOW TABLES FROM d2 LIKE '%'",
        "SHOW FULL TABLES FROM d2 WHERE Table_type = 'BASE TABLE'",
        "SHOW TABLES",
    ],
)
def test_show_tables_lists_the_visible_tables(session, sql):
    """Doris's ShowTableCommand checks no database privilege and lists the visible tables."""
    assert first_column(session("nobody", db="d2"), sql) == []
    assert first_column(session("d1user", db="d2"), sql) == []
    assert first_column(session("seer", db="d2"), sql) == ["secret"]
    assert first_column(session("d2all", db="d2"), sql) == ["other", "secret"]


def test_show_table_status_of_an_invisible_database_is_refused(session):
    for user in ("nobody", "d1user"):
        with pytest.raises(AccessDeniedError) as err:
            session(user).execute_sql("SHOW TABLE STATUS FROM d2")
        assert str(err.value) == f"Access denied for user '{user}'@'%' to database 'd2'"
        assert err.value.code == 1044
    with pytest.raises(AccessDeniedError, match="to database 'd2'"):
        session("nobody", db="d2").execute_sql("SHOW TABLE STATUS")
    # a table's grant shows that table's row counts, sizes and times, not its neighbours'
    seen = rows(session("seer"), "SHOW TABLE STATUS FROM d2")
    assert [r[0] for r in seen] == ["secret"] and seen[0][1] == "Doris"
    assert first_column(session("d2all"), "SHOW TABLE STATUS FROM d2") == ["other", "secret"]
    assert first_column(session("loader"), "SHOW TABLE STATUS FROM d2 LIKE 'o%'") == []


def test_show_data_of_a_database_counts_the_visible_tables_only(session):
    def by_name(user):
        return {r[0]: r for r in rows(session(user, db="d2"), "SHOW DATA")}

    assert set(by_name("nobody")) == {"Total", "Quota", "Left"}
    assert by_name("nobody")["Total"][2] == 0  # no replicas of tables it cannot see
    seer = by_name("seer")
    assert set(seer) == {"secret", "Total", "Quota", "Left"}
    assert seer["Total"][1:3] == seer["secret"][1:3]
    assert set(by_name("d2all")) == {"secret", "other", "Total", "Quota", "Left"}


def test_show_dynamic_partition_tables_lists_the_visible_tables(session):
    assert rows(session("nobody"), "SHOW DYNAMIC PARTITION TABLES FROM d2") == []
    assert first_column(session("seer"), "SHOW DYNAMIC PARTITION TABLES FROM d2") == ["secret"]


def test_show_alter_lists_the_jobs_of_tables_the_user_may_alter(session):
    """Doris's SchemaChangeHandler lists the jobs of tables with ALTER (not SELECT)."""
    assert rows(session("seer"), "SHOW ALTER TABLE COLUMN FROM d2") == []
    jobs = rows(session("alterer"), "SHOW ALTER TABLE COLUMN FROM d2")
    assert [j[1] for j in jobs] == ["secret"]


def test_show_delete_lists_the_deletes_of_tables_the_user_may_load(session):
    """Doris's DeleteHandler.getDeleteInfosByDb: LOAD on the table."""
    assert rows(session("seer"), "SHOW DELETE FROM d2") == []
    assert rows(session("nobody", db="d2"), "SHOW DELETE") == []
    assert first_column(session("loader"), "SHOW DELETE FROM d2") == ["secret"]


@pytest.mark.parametrize("sql", ["SHOW LOAD FROM d2", "SHOW STREAM LOAD FROM d2"])
def test_show_load_lists_ones_own_loads_and_loads_into_tables_one_may_load(session, sql):
    at = 0 if "STREAM" in sql else 1  # Label: SHOW STREAM LOAD's first column, SHOW LOAD's second

    def labels(user):
        return sorted(r[at] for r in rows(session(user), sql))

    assert labels("nobody") == [] and labels("seer") == []  # SELECT is not LOAD
    assert labels("loader") == ["l-secret"]
    assert labels("former") == ["l-other"]  # its own load, though it lost every privilege
    assert labels("boss") == ["l-other", "l-secret"]


# --------------------------------------------------------------------------- load error logs


def test_a_load_error_log_is_read_by_its_runner_a_loader_of_its_table_or_admin(warehouse, make_engine):
    """GET /api/_load_error_log (a Stream Load's ErrorURL) on a real HttpListener: the URL alone
    is not enough (issue 25, item 15)."""
    catalog = make_engine(warehouse).catalog
    secret, other = (catalog.get_load("d2", label).error_url.split("file=")[1] for label in ("l-secret", "l-other"))
    orphan = "error_log_999_0badc0de"

    def get(name, user):
        token = base64.b64encode(f"{user}:{'pw' if user == 'd2loader' else ''}".encode()).decode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/api/_load_error_log?file={name}",
            headers={"Authorization": f"Basic {token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())["data"]

    with HttpListener(lambda: make_engine(warehouse), "127.0.0.1", 0) as server:
        denied = (401, "Access denied; you need (at least one of) the (LOAD) privilege(s) for this operation")
        for user in ("nobody", "seer", "d1user", "former", "alterer"):
            assert get(secret, user) == denied, user
        for user in ("loader", "d2loader", "boss", "root"):
            assert get(secret, user) == (200, "Reason: bad row of secret. src line [x]; \n"), user
        assert get(other, "former")[0] == 200  # its own load, though it lost every privilege
        assert get(other, "loader") == denied  # LOAD on d2.secret, not on d2.other
        assert get(other, "d2loader")[0] == 200
        assert get(orphan, "boss")[0] == 200
        assert get(orphan, "d2loader") == denied
        assert get("error_log_1_00000000", "boss")[0] == 404


# --------------------------------------------------------------------------- information_schema


def test_information_schema_rows_are_the_visible_tables(session):
    """The rows a SELECT of information_schema reads (schema_table_rows builds its DataFrame)."""

    def d2_tables(user, name, column="TABLE_NAME"):
        return sorted({r[column] for r in schema_table_rows(session(user), name) if r.get("TABLE_SCHEMA") == "d2"})

    for name in ("tables", "columns", "partitions"):
        assert d2_tables("nobody", name) == [], name
        assert d2_tables("d1user", name) == [], name
    assert d2_tables("seer", "tables") == ["secret"]
    assert d2_tables("seer", "columns", "COLUMN_NAME") == ["day", "extra", "k", "v"]
    assert d2_tables("seer", "partitions") == ["secret"]
    assert d2_tables("d2all", "tables") == ["other", "secret"]
    schemata = [r["SCHEMA_NAME"] for r in schema_table_rows(session("nobody"), "schemata")]
    assert schemata == ["information_schema", "mysql"]
    assert [r["SCHEMA_NAME"] for r in schema_table_rows(session("seer"), "schemata")] == [
        "d2",
        "information_schema",
        "mysql",
    ]
    assert schema_table_rows(session("boss"), "views") == []
    # information_schema itself: everyone sees its tables and their columns
    tables = {r["TABLE_NAME"] for r in schema_table_rows(session("nobody"), "tables")}
    assert {"tables", "columns", "schemata", "partitions", "views"} <= tables
    assert first_column(session("nobody"), "SHOW COLUMNS FROM information_schema.tables")[:2] == [
        "TABLE_CATALOG",
        "TABLE_SCHEMA",
    ]
    assert rows(session("nobody"), "DESC information_schema.columns")
    assert "tables" in first_column(session("nobody"), "SHOW TABLES FROM information_schema")


# --------------------------------------------------------------------------- ADMIN only

ADMIN_ONLY = [
    "SHOW PROC '/'",
    "SHOW PROC '/dbs'",
    "SHOW PROC '/statistic'",
    "SHOW PROC '/colocation_group'",
    "SHOW PROC '/compactions'",
    "SHOW TABLETS FROM d2.secret",
    "SHOW CATALOG RECYCLE BIN",
    "SHOW FRONTENDS",
    "SHOW BACKENDS",
    "ADMIN CHECK TABLE d2.secret",
]


@pytest.mark.parametrize("sql", ADMIN_ONLY)
def test_admin_statements_are_refused_to_everyone_else(session, sql):
    for user in ("nobody", "seer", "d2all"):
        with pytest.raises(AccessDeniedError) as err:
            session(user).execute_sql(sql)
        assert str(err.value) == ADMIN_DENIED and err.value.code == 1227, user
    (result,) = session("boss").execute_sql(sql)
    assert result.columns is not None


def test_show_proc_of_a_database_by_id_is_admins(session):
    db_id = next(r[0] for r in rows(session("boss"), "SHOW PROC '/dbs'") if r[1] == "d2")
    with pytest.raises(AccessDeniedError, match=r"\(ADMIN\)"):
        session("d2all").execute_sql(f"SHOW PROC '/dbs/{db_id}'")
    assert sorted(r[1] for r in rows(session("boss"), f"SHOW PROC '/dbs/{db_id}'")) == ["other", "secret"]


def test_show_grants_shows_ones_own_and_others_only_to_admin(session):
    mine = rows(session("seer"), "SHOW GRANTS FOR 'seer'@'%'")
    assert mine == rows(session("seer"), "SHOW GRANTS") and mine[0][0] == "'seer'@'%'"
    for sql in ("SHOW GRANTS FOR 'loader'@'%'", "SHOW ALL GRANTS"):
        with pytest.raises(AccessDeniedError) as err:
            session("seer").execute_sql(sql)
        assert str(err.value) == ADMIN_DENIED
        assert rows(session("boss"), sql)


# --------------------------------------------------------------------------- EXPLAIN


@pytest.mark.parametrize(
    "sql",
    [
        "EXPLAIN SELECT * FROM d2.secret",
        "EXPLAIN VERBOSE SELECT k FROM d2.secret WHERE k > 1",
        "EXPLAIN SELECT * FROM d1.pub WHERE k IN (SELECT k FROM d2.secret)",
        "EXPLAIN WITH c AS (SELECT * FROM d2.secret) SELECT * FROM c",
        "EXPLAIN SELECT * FROM d1.pub JOIN d2.secret ON pub.k = secret.k",
    ],
)
def test_explain_needs_select_on_every_table_it_plans(session, sql):
    """Refused before anything is planned (no Spark here): EXPLAIN shows a table's partitions,
    buckets and files. SELECT is the privilege: LOAD on the table is not enough."""
    select_denied = "Access denied; you need (at least one of) the (SELECT) privilege(s) on table d2.secret"
    for user in ("nobody", "d1user", "loader", "alterer"):
        with pytest.raises(AccessDeniedError) as err:
            session(user).execute_sql(sql)
        assert "(SELECT) privilege(s) on table" in str(err.value) and err.value.code == 1224, user
        if user == "d1user" or "d1." not in sql:  # (the others are refused d1.pub first)
            assert str(err.value).startswith(select_denied), user
    # the control: with SELECT on every table it names, the same check lets it through (running
    # it needs Spark: tests/server/test_visibility_spark.py)
    root = session(None)
    root.execute_sql("CREATE USER IF NOT EXISTS 'reader'@'%'; GRANT SELECT_PRIV ON d1.pub TO 'reader'@'%';")
    root.execute_sql("GRANT SELECT_PRIV ON d2.secret TO 'reader'@'%'")
    (stmt,) = parse(sql)
    authorize(root.catalog, ast.UserIdentity("reader", "%"), stmt, None)


# --------------------------------------------------------------------------- every statement


def test_every_statement_type_says_what_it_needs():
    """A statement type missing from the rules gets the default (nothing, for reads_only ones):
    that is how SHOW COLUMNS and SHOW TABLE STATUS showed everything. Each must be listed."""
    statements = {
        c
        for _, c in inspect.getmembers(ast, inspect.isclass)
        if issubclass(c, ast.Statement) and c is not ast.Statement
    }
    missing = sorted(c.__name__ for c in statements - set(privileges._RULES))
    assert missing == [], f"add these to dorisql.auth.privileges._RULES: {missing}"
