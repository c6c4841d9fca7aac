"""warehouse: root resolution, Doris name rules, path containment."""

from __future__ import annotations

import os

import pytest

from dorisql.errors import AnalysisError, DorisqlError
from dorisql.warehouse import (
    ENV_WAREHOUSE,
    InvalidNameError,
    catalog_file,
    database_path,
    resolve_root,
    table_path,
    validate_name,
)

BAD_NAMES = [
    pytest.param("..", id="dotdot"),
    pytest.param("../x", id="parent"),
    pytest.param("a/../../b", id="nested-parent"),
    pytest.param("/abs", id="absolute"),
    pytest.param("a/b", id="slash"),
    pytest.param("a\\b", id="backslash"),
    pytest.param("C:x", id="drive"),
    pytest.param("a\x00b", id="nul"),
    pytest.param("a\tb", id="tab"),
    pytest.param("x\n", id="trailing-newline"),
    pytest.param("a\x7f", id="del"),
    pytest.param(".hidden", id="leading-dot"),
    pytest.param("_catalog", id="reserved-catalog"),
    pytest.param("_staging", id="reserved-staging"),
    pytest.param("_x", id="leading-underscore"),
    pytest.param("1abc", id="leading-digit"),
    pytest.param("-x", id="leading-hyphen"),
    pytest.param("", id="empty"),
    pytest.param(" t", id="leading-space"),
    pytest.param("t t", id="space"),
    pytest.param("a.b", id="dot"),
    pytest.param("tëst", id="unicode-latin"),
    pytest.param("表", id="unicode-cjk"),
    pytest.param("ａbc", id="fullwidth"),
    pytest.param("a" * 65, id="too-long"),
    pytest.param(None, id="none"),
]

GOOD_NAMES = ["t", "T", "a" * 64, "range", "select", "Order_Items", "a-b", "a_", "x1_2-3"]


@pytest.mark.parametrize("kind", ["database", "table", "partition"])
@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_names_are_refused(kind, name):
    with pytest.raises(InvalidNameError) as info:
        validate_name(kind, name)
    err = info.value
    assert isinstance(err, AnalysisError)
    assert err.code == {"database": 1102, "table": 1103, "partition": 1567}[kind]
    assert "\x00" not in str(err) and "\n" not in str(err)  # control characters are shown escaped


@pytest.mark.parametrize("kind", ["database", "table", "partition"])
@pytest.mark.parametrize("name", GOOD_NAMES)
def test_good_names_pass(kind, name):
    assert validate_name(kind, name) == name


def test_messages_follow_doris():
    with pytest.raises(InvalidNameError) as info:
        validate_name("table", "../x")
    assert str(info.value) == "Incorrect table name '../x'. Table name regex is '^[a-zA-Z][a-zA-Z0-9-_]*$'"
    assert info.value.sqlstate == "42000"
    with pytest.raises(InvalidNameError, match=r"^Incorrect database name '/abs'$"):
        validate_name("db", "/abs")
    with pytest.raises(InvalidNameError, match=r"^Incorrect partition name 'a\\x00b'$"):
        validate_name("partition", "a\x00b")
    with pytest.raises(InvalidNameError, match="table_name_length_limit' \\(64\\)"):
        validate_name("table", "t" * 65)


def test_partition_placeholder_prefix_is_forbidden():
    with pytest.raises(InvalidNameError):
        validate_name("partition", "placeholder_1")
    assert validate_name("table", "placeholder_1")


def test_unknown_kind():
    with pytest.raises(ValueError):
        validate_name("column", "c")


# --------------------------------------------------------------------------- root


def test_root_precedence(tmp_path):
    env = {ENV_WAREHOUSE: str(tmp_path / "from-env")}
    assert resolve_root(tmp_path / "explicit", config_value="cfg", environ=env) == tmp_path / "explicit"
    assert resolve_root(None, config_value=tmp_path / "cfg", environ=env) == tmp_path / "from-env"
    assert resolve_root(None, config_value=tmp_path / "cfg", environ={}) == tmp_path / "cfg"
    assert resolve_root(None, environ={}, cwd=tmp_path) == tmp_path / "warehouse"
    assert resolve_root("", environ={ENV_WAREHOUSE: ""}, config_value="", cwd=tmp_path) == tmp_path / "warehouse"


def test_root_relative_and_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(ENV_WAREHOUSE, raising=False)
    assert resolve_root("~/wh") == tmp_path / "wh"
    assert resolve_root("a/../b", cwd=tmp_path) == tmp_path / "b"
    monkeypatch.chdir(tmp_path)
    assert resolve_root() == tmp_path / "warehouse"
    monkeypatch.setenv(ENV_WAREHOUSE, "envwh")
    assert resolve_root() == tmp_path / "envwh"
    assert resolve_root().is_absolute()


# --------------------------------------------------------------------------- paths


def test_table_path_inside_root(warehouse):
    assert table_path(warehouse, "db1", "t") == warehouse / "db1" / "t"
    assert database_path(warehouse, "db1") == warehouse / "db1"
    assert catalog_file(warehouse) == warehouse / "_catalog" / "catalog.db"


@pytest.mark.parametrize(
    "db, table",
    [
        ("..", "x"),
        ("db", "../x"),
        ("/etc", "passwd"),
        ("db", "/abs"),
        ("_catalog", "t"),
        ("db", "a\\b"),
        ("db", "a\x00"),
    ],
)
def test_table_path_refuses_bad_names(warehouse, db, table):
    with pytest.raises(InvalidNameError):
        table_path(warehouse, db, table)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_table_path_refuses_symlink_out_of_root(warehouse, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (warehouse / "evil").symlink_to(outside, target_is_directory=True)
    with pytest.raises(DorisqlError, match="outside the warehouse"):
        table_path(warehouse, "evil", "t")


def test_table_path_through_symlinked_root(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert table_path(link, "db", "t") == link / "db" / "t"
