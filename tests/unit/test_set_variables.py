"""SET accepts Doris's variables (and dorisql's own) and refuses any other name as Doris does:
``Unknown system variable 'x'`` (1193), changing nothing."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError


@pytest.fixture
def engine(warehouse, make_engine):
    eng = make_engine(warehouse)
    yield eng
    eng.close()


def _value(engine, name: str) -> str | None:
    rows = engine.execute_sql(f"SHOW VARIABLES LIKE '{name}'")[0].rows
    return rows[0][1] if rows else None


@pytest.mark.parametrize(
    "sql, name",
    [
        ("SET x = 1", "x"),
        ("SET SESSION no_such_variable = 'a'", "no_such_variable"),
        ("SET @@session.nope = 1", "nope"),
        ("SET GLOBAL enable_insert_stritc = false", "enable_insert_stritc"),
        ("SET `spark.sql.ansi.enabled` = 'true'", "spark.sql.ansi.enabled"),
    ],
)
def test_unknown_variable_is_refused(engine, sql, name):
    with pytest.raises(AnalysisError, match=rf"^Unknown system variable '{name}'$") as caught:
        engine.execute_sql(sql)
    assert caught.value.code == 1193
    assert name not in engine.session_vars


@pytest.mark.parametrize(
    "sql, name, value",
    [
        # what MySQL clients and tools set on connect
        ("SET autocommit = 1", "autocommit", "1"),
        ("SET sql_mode = 'STRICT_TRANS_TABLES'", "sql_mode", "STRICT_TRANS_TABLES"),
        ("SET character_set_results = utf8mb4", "character_set_results", "utf8mb4"),
        ("SET net_write_timeout = 600", "net_write_timeout", "600"),
        ("SET SESSION transaction_isolation = 'READ-COMMITTED'", "transaction_isolation", "READ-COMMITTED"),
        ("SET time_zone = '+08:00'", "time_zone", "+08:00"),
        # Doris variables dorisql has no use for: accepted, shown
        ("SET exec_mem_limit = 8589934592", "exec_mem_limit", "8589934592"),
        ("SET @@enable_nereids_planner = true", "enable_nereids_planner", "true"),
        ("SET parallel_pipeline_task_num = 4", "parallel_pipeline_task_num", "4"),
        ("SET enable_vectorized_engine = true", "enable_vectorized_engine", "true"),
        # Doris's and dorisql's own
        ("SET enable_insert_strict = false", "enable_insert_strict", "false"),
        ("SET dorisql_now = '2024-01-01 00:00:00'", "dorisql_now", "2024-01-01 00:00:00"),
    ],
)
def test_doris_variables_are_accepted(engine, sql, name, value):
    engine.execute_sql(sql)
    assert _value(engine, name) == value
