"""What a user sees, on the paths that need Spark (issue 25, items 8 and 15): a real Stream Load
through a real HttpListener leaves an ErrorURL that only its runner (or LOAD on the table, or
ADMIN) may read; SELECTs of information_schema and EXPLAIN, run as users with and without a
privilege on d2. The catalog-only paths: tests/server/test_visibility.py."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request

import pytest

from dorisql import ast
from dorisql.errors import AccessDeniedError
from dorisql.server.http import HttpListener

pytestmark = pytest.mark.spark

DDL = """
CREATE DATABASE d1; CREATE DATABASE d2;
CREATE TABLE d1.pub (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('replication_num' = '1');
CREATE TABLE d2.secret (k INT, v VARCHAR(4)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
    PROPERTIES ('replication_num' = '1');
CREATE USER 'loader'@'%' IDENTIFIED BY 'load-pw';
GRANT LOAD_PRIV ON d2.secret TO 'loader'@'%';
CREATE USER 'reader'@'%' IDENTIFIED BY 'read-pw';
GRANT SELECT_PRIV ON d2.secret TO 'reader'@'%';
GRANT SELECT_PRIV ON d1.* TO 'reader'@'%';
CREATE USER 'nobody'@'%' IDENTIFIED BY 'no-pw';
GRANT SELECT_PRIV ON d1.* TO 'nobody'@'%';
"""


@pytest.fixture(scope="module")
def factory(tmp_path_factory, make_engine, spark):
    warehouse = tmp_path_factory.mktemp("visibility_spark")

    def make(user: str | None = None):
        engine = make_engine(warehouse, spark=spark)
        if user is not None:
            engine.user = ast.UserIdentity(user, "%")
        return engine

    make().execute_sql(DDL)
    return make


def _request(url: str, user: tuple[str, str], data: bytes | None = None, headers: dict | None = None):
    token = base64.b64encode(f"{user[0]}:{user[1]}".encode()).decode()
    method = "PUT" if data is not None else "GET"
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Authorization": f"Basic {token}", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=300) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_a_stream_loads_error_log_is_its_runners(factory):
    with HttpListener(factory, "127.0.0.1", 0) as server:
        url = f"http://127.0.0.1:{server.port}/api/d2/secret/_stream_load"
        body = b"1,ok\n2,much-too-long\n"
        status, text = _request(
            url, ("loader", "load-pw"), body, {"label": "vis1", "column_separator": ",", "max_filter_ratio": "0.9"}
        )
        out = json.loads(text)
        assert status == 200 and out["Status"] == "Success" and out["NumberFilteredRows"] == 1, out
        error_url = out["ErrorURL"]
        for user in (("nobody", "no-pw"), ("reader", "read-pw")):
            status, text = _request(error_url, user)
            assert status == 401 and "(LOAD) privilege(s)" in json.loads(text)["data"], user
        status, text = _request(error_url, ("loader", "load-pw"))
        assert status == 200 and "much-too-long" in text
        status, text = _request(error_url, ("root", ""))
        assert status == 200 and "much-too-long" in text
    # SHOW STREAM LOAD: the same rule (its Url column is the ErrorURL)
    assert factory("reader").execute_sql("SHOW STREAM LOAD FROM d2")[0].rows == []
    (row,) = factory("loader").execute_sql("SHOW STREAM LOAD FROM d2")[0].rows
    assert row[0] == "vis1" and row[6] == error_url


def test_information_schema_queries_see_the_visible_tables(factory):
    sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'd2'"
    assert factory("nobody").execute_sql(sql)[0].rows == []
    assert factory("reader").execute_sql(sql)[0].rows == [("secret",)]
    sql = "SELECT column_name FROM information_schema.columns WHERE table_schema = 'd2' ORDER BY ordinal_position"
    assert factory("nobody").execute_sql(sql)[0].rows == []
    assert factory("reader").execute_sql(sql)[0].rows == [("k",), ("v",)]
    sql = "SELECT schema_name FROM information_schema.schemata ORDER BY schema_name"
    assert factory("nobody").execute_sql(sql)[0].rows == [("d1",), ("information_schema",), ("mysql",)]


def test_explain_plans_only_for_a_user_who_may_select(factory):
    sql = "EXPLAIN SELECT * FROM d1.pub WHERE k IN (SELECT k FROM d2.secret)"
    with pytest.raises(AccessDeniedError, match=r"\(SELECT\) privilege\(s\) on table d2\.secret"):
        factory("nobody").execute_sql(sql)
    with pytest.raises(AccessDeniedError, match=r"\(SELECT\) privilege\(s\) on table d1\.pub"):
        factory("loader").execute_sql(sql)
    lines = [row[0] for row in factory("reader").execute_sql(sql)[0].rows]
    assert lines[0] == "PLAN FRAGMENT 0" and "== Spark physical plan ==" in lines
