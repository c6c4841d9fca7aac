"""dorisql's settings: where the warehouse is, how to reach Spark, and Doris-style defaults.

Settings come from three places; each later one wins:

1. the config file, ``$XDG_CONFIG_HOME/dorisql/config.toml`` (``~/.config/dorisql/config.toml``
   when ``XDG_CONFIG_HOME`` is unset), or the file named by ``--config`` / ``DORISQL_CONFIG``;
2. the environment: ``DORISQL_WAREHOUSE`` (warehouse folder), ``DORISQL_MASTER`` (Spark master),
   ``DORISQL_START_SPARK`` (when the shell starts Spark), ``DORISQL_CATALOG`` (catalog URL),
   ``DORISQL_REMOTE`` (Spark Connect);
3. command-line flags: ``--warehouse``, ``--master``, ``--remote``, ``--conf k=v``, ``--database``, ``--catalog``.

The file is TOML. Every key is optional::

    # The warehouse root: one folder per database, one Delta table per table.
    warehouse = "/data/lakehouse"          # default: ./warehouse
    # Spark master: local[*] (default), local[4], spark://host:7077, yarn, k8s://...
    master = "local[*]"
    # Or a Spark Connect server instead of an in-process Spark (wins over master; docs/deployment.md).
    # remote = "sc://spark-connect.example:15002"
    # The database to USE when the shell starts.
    database = "demo"
    # When the interactive shell starts Spark: "at_prompt" (default: in the background as the
    # prompt appears, so the first query does not wait for it) or "when_needed" (only when a
    # statement needs it: catalog-only sessions never start a JVM).
    start_spark = "at_prompt"
    # The catalog: the SQLite file in the warehouse (default), or a PostgreSQL database shared by
    # dorisql processes on several machines (docs/catalog.md).
    catalog = "postgresql://dorisql@db.example.com:5432/lakehouse"

    [spark]                                # extra Spark configuration (spark_conf)
    "spark.driver.memory" = "4g"
    "spark.sql.shuffle.partitions" = 64

    [frontend]                             # FE settings, as in Doris's fe.conf
    dynamic_partition_enable = true
    dynamic_partition_check_interval_seconds = 600
    max_dynamic_partition_num = 500
    autobucket_min_buckets = 1
    autobucket_max_buckets = 128
    cluster_backends = 3                   # BUCKETS AUTO: number of "BEs" (default: Spark's)
    cluster_disks_per_backend = 1
    cluster_disk_capacity = "2TB"
    user_files_secure_path = "/srv/files"  # local() reads only here (default: <warehouse>/_user_files)

    [session]                              # session-variable defaults (SET name = value)
    enable_insert_strict = true

    [server]                               # `dorisql server` (flags --host, --query-port, --http-port win)
    host = "127.0.0.1"                     # another address needs a root password
    query_port = 9030                      # the MySQL protocol (Doris FE's query_port)
    http_port = 8030                       # Doris's HTTP API (Doris FE's http_port)

Values in ``[spark]``, ``[frontend]``, ``[session]`` and ``[server]`` may be strings, numbers or booleans;
they are kept as strings (booleans as ``"true"``/``"false"``), which is what Spark and the
engine's ``SET`` take. Unknown top-level keys are an error, so a typo never goes unnoticed;
keys inside the tables are checked by whoever uses them (Spark, the engine).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dorisql.errors import DorisqlError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser from PyPI (tomllib is tomli, adopted into 3.11)
    import tomli as tomllib

DEFAULT_MASTER = "local[*]"
#: Values of ``start_spark``; the first is the default.
START_SPARK = ("at_prompt", "when_needed")


class ConfigError(DorisqlError):
    """The config file or a configuration flag is malformed."""


def _xdg(env: Mapping[str, str], name: str, fallback: str) -> Path:
    value = env.get(name)
    if value:
        return Path(value)
    home = env.get("HOME") or str(Path.home())
    return Path(home) / fallback


def config_dir(env: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CONFIG_HOME/dorisql`` (``~/.config/dorisql``)."""
    return _xdg(env, "XDG_CONFIG_HOME", ".config") / "dorisql"


def state_dir(env: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_STATE_HOME/dorisql`` (``~/.local/state/dorisql``): the shell's history lives here."""
    return _xdg(env, "XDG_STATE_HOME", ".local/state") / "dorisql"


def default_config_path(env: Mapping[str, str] = os.environ) -> Path:
    return config_dir(env) / "config.toml"


def default_warehouse(env: Mapping[str, str] = os.environ) -> str:
    """`./warehouse` in the current directory, as the issue and Doris-style quickstarts expect."""
    return "warehouse"


@dataclass
class Config:
    """Everything the engine needs to open a warehouse. See the module docstring for the file."""

    warehouse: str = field(default_factory=default_warehouse)
    master: str = DEFAULT_MASTER
    spark_conf: dict[str, str] = field(default_factory=dict)
    frontend: dict[str, str] = field(default_factory=dict)
    session: dict[str, str] = field(default_factory=dict)
    #: ``[server]``: host, query_port, http_port of `dorisql server`.
    server: dict[str, str] = field(default_factory=dict)
    #: The database to USE at start (``database =`` in the file, ``--database`` on the command line).
    database: str | None = None
    #: When the interactive shell starts Spark (`START_SPARK`).
    start_spark: str = START_SPARK[0]
    #: The catalog URL: None for the SQLite catalog in the warehouse (the default), or
    #: ``postgresql://user@host:port/db`` (``catalog =``, ``DORISQL_CATALOG``, ``--catalog``).
    catalog: str | None = None
    #: The file the settings were read from, if any.
    source: str | None = None
    #: A Spark Connect URL (``sc://host:15002``): run against that server instead of starting Spark.
    remote: str | None = None


_TOP_LEVEL = {
    "warehouse",
    "master",
    "database",
    "start_spark",
    "spark",
    "frontend",
    "session",
    "server",
    "catalog",
    "remote",
}


def _as_text(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise ConfigError(f"{where}: expected a string, number or boolean, got {type(value).__name__}")


def _table(data: Mapping[str, Any], name: str, path: Path) -> dict[str, str]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [{name}] must be a table")
    return {str(k): _as_text(v, f"{path}: {name}.{k}") for k, v in value.items()}


def _string(data: Mapping[str, Any], name: str, path: Path) -> str | None:
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{path}: '{name}' must be a string")
    return value


def read_config_file(path: Path, env: Mapping[str, str] = os.environ) -> Config:
    """Parse one TOML config file into a Config (defaults for what it leaves out)."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    unknown = sorted(set(data) - _TOP_LEVEL)
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting(s): {', '.join(unknown)} (expected: {', '.join(sorted(_TOP_LEVEL))})"
        )
    config = Config(warehouse=default_warehouse(env), source=str(path))
    warehouse = _string(data, "warehouse", path)
    if warehouse:
        config.warehouse = os.path.expanduser(warehouse)
    config.master = _string(data, "master", path) or DEFAULT_MASTER
    config.database = _string(data, "database", path)
    config.start_spark = _start_spark(_string(data, "start_spark", path) or START_SPARK[0], str(path))
    config.spark_conf = _table(data, "spark", path)
    config.frontend = _table(data, "frontend", path)
    config.session = _table(data, "session", path)
    config.server = _table(data, "server", path)
    config.catalog = _string(data, "catalog", path) or None
    config.remote = remote_url(_string(data, "remote", path), str(path))
    return config


def load_config(path: str | os.PathLike | None = None, env: Mapping[str, str] = os.environ) -> Config:
    """Settings from the config file and the environment (flags are applied by the caller).

    `path` names the file explicitly (it must then exist); otherwise ``DORISQL_CONFIG`` or the
    XDG default is used, and a missing default file simply means "all defaults".
    """
    explicit = path or env.get("DORISQL_CONFIG")
    file = Path(explicit).expanduser() if explicit else default_config_path(env)
    if explicit or file.is_file():
        config = read_config_file(file, env)
    else:
        config = Config(warehouse=default_warehouse(env))
    if env.get("DORISQL_WAREHOUSE"):
        config.warehouse = os.path.expanduser(env["DORISQL_WAREHOUSE"])
    if env.get("DORISQL_MASTER"):
        config.master = env["DORISQL_MASTER"]
    if env.get("DORISQL_CATALOG"):
        config.catalog = env["DORISQL_CATALOG"]
    if env.get("DORISQL_START_SPARK"):
        config.start_spark = _start_spark(env["DORISQL_START_SPARK"], "DORISQL_START_SPARK")
    if env.get("DORISQL_REMOTE"):
        config.remote = remote_url(env["DORISQL_REMOTE"], "DORISQL_REMOTE")
    return config


def remote_url(value: str | None, where: str) -> str | None:
    """A Spark Connect URL: ``sc://host[:port][/;param=value...]`` (Spark's own syntax)."""
    if not value:
        return None
    if not value.startswith("sc://") or len(value) == len("sc://"):
        raise ConfigError(f"{where}: a Spark Connect URL looks like sc://host:15002, got {value!r}")
    return value


def _start_spark(value: str, where: str) -> str:
    if value not in START_SPARK:
        raise ConfigError(f"{where}: start_spark must be one of {', '.join(START_SPARK)}, got {value!r}")
    return value


def parse_assignment(text: str) -> tuple[str, str]:
    """Split a ``key=value`` flag argument (``--conf spark.driver.memory=4g``)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"expected key=value, got '{text}'")
    return key.strip(), value.strip()
