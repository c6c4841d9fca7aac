"""Doris's FE admin APIs on a real HttpListener (127.0.0.1, catalog-only engines: no Spark):
GET /api/show_proc (ShowProcAction), GET /api/colocate and POST / DELETE
/api/colocate/group_stable (ColocateMetaService), with the FE's JSON shape and ADMIN checks."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request

import pytest

from dorisql.server.http import HttpListener

DDL = """
CREATE DATABASE adm;
CREATE TABLE adm.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 2
    PROPERTIES ('replication_num' = '1', 'colocate_with' = 'g1');
CREATE USER 'plain'@'%' IDENTIFIED BY 'pw';
GRANT SELECT_PRIV ON adm.* TO 'plain'@'%';
CREATE USER 'boss'@'%' IDENTIFIED BY 'pw';
GRANT ADMIN_PRIV ON *.* TO 'boss'@'%';
"""


@pytest.fixture(scope="module")
def listener(tmp_path_factory, make_engine):
    warehouse = tmp_path_factory.mktemp("http_admin")
    make_engine(warehouse).execute_sql(DDL)
    with HttpListener(lambda: make_engine(warehouse), "127.0.0.1", 0) as server:
        yield server


def call(server, path, method="GET", user=("root", "")):
    token = base64.b64encode(f"{user[0]}:{user[1]}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}{path}", method=method, headers={"Authorization": f"Basic {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def ok(data):
    return 200, {"msg": "success", "code": 0, "data": data, "count": 0}


def test_show_proc_answers_its_rows(listener):
    root = ok([["dbs"], ["statistic"], ["colocation_group"], ["compactions"]])
    assert call(listener, "/api/show_proc?path=/") == root
    assert call(listener, "/api/show_proc") == root  # no path: '/'
    status, body = call(listener, "/api/show_proc?path=/statistic", user=("boss", "pw"))
    assert status == 200 and body["code"] == 0
    assert body["data"][0][1:] == ["adm", "1", "1", "1", "2", "2"] and body["data"][-1][0] == "Total"
    status, body = call(listener, "/api/show_proc?path=/dbs")
    db_id = body["data"][0][0]
    assert body["data"][0][1:3] == ["adm", "1"]
    status, body = call(listener, f"/api/show_proc?path=/dbs/{db_id}")
    assert [row[1] for row in body["data"]] == ["t"]
    # ResponseEntityBuilder.okWithCommonError: HTTP 200, code 1, the UserException's message
    assert call(listener, "/api/show_proc?path=/nope") == (
        200,
        {"msg": "Error", "code": 1, "data": "errCode = 2, detailMessage = Proc path '/nope' doesn't exist", "count": 0},
    )


def test_colocate_lists_groups_and_group_stable_marks_them(listener):
    status, body = call(listener, "/api/colocate")
    assert status == 200 and body["code"] == 0
    (info,) = body["data"]["infos"]
    group_id = info[0]
    db_id, grp_id = (int(part) for part in group_id.split("."))
    assert info[1:] == [f"{db_id}_g1", info[2], "2", "1", "int", "true"]
    assert body["data"]["allGroupIds"] == [{"dbId": db_id, "grpId": grp_id}]
    assert body["data"]["unstableGroupIds"] == []

    query = f"/api/colocate/group_stable?db_id={db_id}&group_id={grp_id}"
    assert call(listener, query, "POST") == ok(None)  # POST: unstable
    assert call(listener, "/api/colocate")[1]["data"]["unstableGroupIds"] == [{"dbId": db_id, "grpId": grp_id}]
    assert call(listener, query, "DELETE", user=("boss", "pw")) == ok(None)  # DELETE: stable again
    assert call(listener, "/api/colocate")[1]["data"]["infos"][0][-1] == "true"

    status, body = call(listener, f"/api/colocate/group_stable?db_id={db_id}&group_id=1", "POST")
    assert (status, body["code"], body["data"]) == (200, 1, f"the group {db_id}.1 isn't exist")
    status, body = call(listener, "/api/colocate/group_stable?db_id=x", "POST")
    assert (status, body["code"]) == (200, 403)


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/api/show_proc?path=/dbs", "GET"),
        ("/api/colocate", "GET"),
        ("/api/colocate/group_stable?db_id=1&group_id=1", "POST"),  # refused before the lookup
        ("/api/colocate/group_stable?db_id=1&group_id=1", "DELETE"),
    ],
)
def test_admin_apis_need_admin(listener, path, method):
    status, body = call(listener, path, method, user=("plain", "pw"))
    assert (status, body["code"], body["msg"]) == (401, 401, "Unauthorized")
    assert "ADMIN" in body["data"]
    status, body = call(listener, path, method, user=("plain", "wrong"))
    assert (status, body["code"]) == (401, 401) and body["data"].startswith("Access denied for user 'plain'")
