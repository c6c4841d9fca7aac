"""Shared fixtures: one real local SparkSession for the whole run, and a fresh warehouse per test."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)


@pytest.fixture(scope="session")
def spark():
    """A real local Spark (2 cores, small shuffles, no UI), shared by every test that needs one."""
    from dorisql.storage.spark import create_session

    session = create_session(master="local[2]", app_name="dorisql-tests", conf={
        "spark.sql.shuffle.partitions": "4",
        "spark.default.parallelism": "4",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.memory": "2g",
    })
    yield session
    session.stop()


@pytest.fixture
def warehouse(tmp_path):
    """An empty warehouse folder."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return path
