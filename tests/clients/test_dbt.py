"""dbt with the dbt-doris adapter against a real ``dorisql server``: the project in dbt_project/
(a seed; models materialized as table, view and incremental with `append` and
`insert_overwrite`, with Doris's duplicate_key / partition_by / distributed_by / buckets /
properties configs; unique and not_null tests) runs twice in a row, then with --full-refresh, then
`dbt docs generate`; each model reads back with its rows. dbt runs in this process
(dbtRunner), with no network: no anonymous usage stats, no version check, no `dbt deps`."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from .conftest import run

pytestmark = pytest.mark.spark

PROJECT = Path(__file__).parent / "dbt_project"

PROFILE = """\
dorisql:
  target: dev
  outputs:
    dev:
      type: doris
      host: 127.0.0.1
      port: {port}
      username: root
      password: ""
      schema: dbt_demo
      threads: 1
"""


@pytest.fixture(scope="module")
def dbt(server, tmp_path_factory):
    """`dbt(*args)`: one dbt command on a copy of the project; fails the test unless it succeeds."""
    os.environ["DO_NOT_TRACK"] = "1"  # before dbt is imported: no anonymous usage events
    from dbt.cli.main import dbtRunner

    base = tmp_path_factory.mktemp("dbt")
    project = base / "project"
    shutil.copytree(PROJECT, project)
    (base / "profiles.yml").write_text(PROFILE.format(port=server.port))
    runner = dbtRunner()
    where = ["--project-dir", str(project), "--profiles-dir", str(base)]
    where += ["--target-path", str(base / "target"), "--log-path", str(base / "logs")]

    def invoke(*args: str):
        result = runner.invoke([*args, *where, "--no-send-anonymous-usage-stats", "--no-version-check"])
        assert result.success, (
            f"dbt {' '.join(args)} failed: {result.exception}\n" + (base / "logs/dbt.log").read_text()
        )
        return result

    invoke.target = base / "target"  # type: ignore[attr-defined]
    return invoke


def statuses(result) -> dict[str, str]:
    return {r.node.name: str(r.status) for r in result.result.results}


def test_dbt_project_runs_twice_then_full_refresh_and_docs(server, dbt):
    for round_ in (1, 2):
        assert statuses(dbt("seed")) == {"visits": "success"}
        assert statuses(dbt("run")) == dict.fromkeys(
            ["daily_costs", "paris_visits", "user_totals", "visit_log"], "success"
        )
        tested = statuses(dbt("test"))
        assert len(tested) == 10 and set(tested.values()) == {"pass"}, tested
        # the append model gained the seed's five visits once more; the others hold the same rows
        assert run(server, "SELECT count(*) FROM dbt_demo.visit_log") == [(5 * round_,)]
        assert run(
            server, "SELECT visit_id, user_id, city, count(*) FROM dbt_demo.visit_log GROUP BY 1, 2, 3 ORDER BY 1"
        ) == [
            (1, 10, "Paris", round_),
            (2, 11, "Lyon", round_),
            (3, 10, "Paris", round_),
            (4, 12, "Nice", round_),
            (5, 11, "Lyon", round_),
        ]
        assert run(server, "SELECT * FROM dbt_demo.daily_costs ORDER BY `day`") == [
            (dt.date(2024, 1, 1), 2, Decimal("3.75")),
            (dt.date(2024, 1, 2), 2, Decimal("3.75")),
            (dt.date(2024, 1, 3), 1, Decimal("4.50")),
        ]
        assert run(server, "SELECT * FROM dbt_demo.user_totals ORDER BY user_id") == [
            (10, 2, Decimal("4.50")),
            (11, 2, Decimal("6.75")),
            (12, 1, Decimal("0.75")),
        ]
        assert run(server, "SELECT visit_id, user_id, `day`, cost FROM dbt_demo.paris_visits ORDER BY 1") == [
            (1, 10, dt.date(2024, 1, 1), Decimal("1.50")),
            (3, 10, dt.date(2024, 1, 2), Decimal("3.00")),
        ]
    # Doris's table configs reached the tables: key model, partitions, buckets
    create = run(server, "SHOW CREATE TABLE dbt_demo.daily_costs")[0][1]
    assert "\nDUPLICATE KEY(`day`)\nCOMMENT 'Visits and cost per day'\n" in create
    assert '\nPARTITION BY RANGE(`day`)\n(PARTITION p202401 VALUES [("2024-01-01"), ("2024-02-01")))\n' in create
    assert "\nDISTRIBUTED BY HASH(`day`) BUCKETS 2\n" in create
    assert "UNIQUE KEY(`user_id`)" in run(server, "SHOW CREATE TABLE dbt_demo.user_totals")[0][1]
    assert run(server, "SHOW FULL TABLES FROM dbt_demo LIKE 'paris%'") == [("paris_visits", "VIEW")]
    # --full-refresh rebuilds the incremental models from scratch: one copy of each visit again
    dbt("run", "--full-refresh")
    assert run(server, "SELECT count(*), count(DISTINCT visit_id) FROM dbt_demo.visit_log") == [(5, 5)]
    assert run(server, "SELECT count(*) FROM dbt_demo.user_totals") == [(3,)]
    # no table left behind by the materializations (__dbt_tmp, __dbt_backup)
    assert sorted(r[0] for r in run(server, "SHOW TABLES FROM dbt_demo")) == [
        "daily_costs",
        "paris_visits",
        "user_totals",
        "visit_log",
        "visits",
    ]
    dbt("docs", "generate")
    catalog = json.loads((dbt.target / "catalog.json").read_text())
    assert catalog["errors"] is None


@pytest.mark.xfail(
    strict=True,
    reason="dbt-doris 1.0.0's own catalog query selects `null as table_database` (so against Doris too),"
    " while dbt-core 1.11 keys the project's nodes by database '': no table matches a node and catalog.json"
    " lists none. dorisql's answer to that query is right (tests/server/test_metadata_tools.py checks its"
    " rows); this xfail turns red when dbt-doris or dbt-core changes",
)
def test_dbt_docs_catalog_describes_every_model(dbt):
    catalog = json.loads((dbt.target / "catalog.json").read_text())
    nodes = {node["metadata"]["name"]: node for node in catalog["nodes"].values()}
    assert set(nodes) == {"daily_costs", "paris_visits", "user_totals", "visit_log", "visits"}
    assert nodes["paris_visits"]["metadata"]["type"] == "view"
    assert list(nodes["daily_costs"]["columns"]) == ["day", "visits", "cost"]
    assert nodes["daily_costs"]["metadata"]["comment"] == "Visits and cost per day"
