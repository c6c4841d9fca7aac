"""Config: TOML file, environment, defaults (flags are covered by the CLI tests)."""

from __future__ import annotations

import pytest

from dorisql.config import Config, ConfigError, load_config, parse_assignment


def _env(tmp_path, **extra):
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), **extra}


def test_defaults_without_a_file(tmp_path):
    config = load_config(env=_env(tmp_path))
    assert config.warehouse == "warehouse"  # ./warehouse, as the quickstart expects
    assert config.master == "local[*]"
    assert config.start_spark == "at_prompt"  # the shell warms Spark up as its prompt appears
    assert (config.spark_conf, config.frontend, config.session, config.database) == ({}, {}, {}, None)


def test_file_in_xdg_config_home(tmp_path):
    path = tmp_path / "cfg" / "dorisql" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text("""
warehouse = "/data/lake"
master = "local[2]"
database = "demo"
start_spark = "when_needed"

[spark]
"spark.driver.memory" = "4g"
"spark.sql.shuffle.partitions" = 8

[frontend]
dynamic_partition_enable = false
cluster_backends = 3
cluster_disk_capacity = "2TB"

[session]
enable_insert_strict = true
""")
    config = load_config(env=_env(tmp_path))
    assert config == Config(
        warehouse="/data/lake",
        master="local[2]",
        database="demo",
        start_spark="when_needed",
        spark_conf={"spark.driver.memory": "4g", "spark.sql.shuffle.partitions": "8"},
        frontend={"dynamic_partition_enable": "false", "cluster_backends": "3", "cluster_disk_capacity": "2TB"},
        session={"enable_insert_strict": "true"},
        source=str(path),
    )


def test_environment_overrides_the_file(tmp_path):
    path = tmp_path / "my.toml"
    path.write_text('warehouse = "/from/file"\nmaster = "local[1]"\nstart_spark = "at_prompt"\n')
    env = _env(
        tmp_path, DORISQL_WAREHOUSE="/from/env", DORISQL_MASTER="spark://h:7077", DORISQL_START_SPARK="when_needed"
    )
    config = load_config(path, env=env)
    assert (config.warehouse, config.master, config.start_spark) == ("/from/env", "spark://h:7077", "when_needed")
    with pytest.raises(ConfigError, match="DORISQL_START_SPARK: start_spark must be one of at_prompt, when_needed"):
        load_config(path, env={**env, "DORISQL_START_SPARK": "later"})


def test_dorisql_config_names_the_file(tmp_path):
    path = tmp_path / "other.toml"
    path.write_text('database = "x"\n')
    assert load_config(env=_env(tmp_path, DORISQL_CONFIG=str(path))).database == "x"


@pytest.mark.parametrize(
    "text, message",
    [
        ("warehous = '/x'\n", "unknown setting(s): warehous"),
        ("warehouse = 3\n", "'warehouse' must be a string"),
        ("[spark]\nx = [1, 2]\n", "spark.x: expected a string, number or boolean"),
        ("spark = 1\n", "[spark] must be a table"),
        ("warehouse = \n", "invalid TOML"),
        ("start_spark = 'lazily'\n", "start_spark must be one of at_prompt, when_needed, got 'lazily'"),
    ],
)
def test_bad_files_are_reported_with_their_path(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path, env=_env(tmp_path))
    assert message in str(info.value) and str(path) in str(info.value)


def test_explicit_missing_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path / "nope.toml", env=_env(tmp_path))


def test_parse_assignment():
    assert parse_assignment("spark.driver.memory = 4g") == ("spark.driver.memory", "4g")
    assert parse_assignment("a=b=c") == ("a", "b=c")
    with pytest.raises(ConfigError):
        parse_assignment("novalue")


def test_spark_connect_url_from_file_environment_and_flag(tmp_path):
    from dorisql.shell.cli import build_parser, make_config

    path = tmp_path / "c.toml"
    path.write_text('remote = "sc://file-host:15002"\n')
    assert load_config(path, env=_env(tmp_path)).remote == "sc://file-host:15002"
    env = _env(tmp_path, DORISQL_REMOTE="sc://env-host:15002/;use_ssl=true")
    assert load_config(path, env=env).remote == "sc://env-host:15002/;use_ssl=true"
    assert load_config(env=_env(tmp_path)).remote is None  # default: Spark in this process
    args = build_parser().parse_args(["--config", str(path), "--remote", "sc://flag-host"])
    assert make_config(args).remote == "sc://flag-host"
    args = build_parser().parse_args(["--config", str(path), "server", "--remote", "sc://server-host:1"])
    assert make_config(args).remote == "sc://server-host:1"
    path.write_text('remote = "spark://h:7077"\n')
    with pytest.raises(ConfigError, match="a Spark Connect URL looks like sc://host:15002, got 'spark://h:7077'"):
        load_config(path, env=_env(tmp_path))
    with pytest.raises(ConfigError, match="^--remote: a Spark Connect URL"):
        make_config(build_parser().parse_args(["--remote", "h:15002"]))
