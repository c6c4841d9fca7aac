"""Session variables (SET x = y) and frontend settings (ADMIN SET FRONTEND CONFIG), with Doris's defaults."""

from __future__ import annotations

from dorisql.errors import AnalysisError

#: Session variables dorisql honours, with Doris's defaults.
SESSION_DEFAULTS: dict[str, str] = {
    "enable_insert_strict": "true",
    "allow_partition_column_nullable": "true",
    # Not a Doris variable: the clock override used to reproduce time-dependent examples.
    "dorisql_now": "",
    "time_zone": "",
}

#: Frontend settings, with Doris's defaults (fe.conf).
FRONTEND_DEFAULTS: dict[str, str] = {
    # Doris has defaulted this to true since 1.2 (the seed's "false" predates that).
    "dynamic_partition_enable": "true",
    "dynamic_partition_check_interval_seconds": "600",
    "max_dynamic_partition_num": "500",
    "autobucket_min_buckets": "1",
    "autobucket_max_buckets": "128",
    # Cluster topology for BUCKETS AUTO; empty means "ask Spark and the OS".
    "cluster_backends": "",
    "cluster_disks_per_backend": "",
    "cluster_disk_capacity": "",
    # The recycle bin and the trash job (docs/trash.md). Dropped databases, tables and
    # partitions stay recoverable this long (Doris's default, one day).
    "catalog_trash_expire_second": "86400",
    # Files a Delta commit removed (TRUNCATE, DROP ... FORCE, rewrites) stay on disk this long for
    # readers of older snapshots (Doris's BE setting; one day here, where Doris now has 0).
    "trash_file_expire_time_sec": "86400",
    # Leftovers of crashed statements (staging folders, files never committed, table folders
    # without a catalog entry) are deleted once this old (dorisql).
    "trash_orphan_grace_second": "86400",
    "trash_enable": "true",
    "trash_check_interval_seconds": "600",
    # Colocate joins (docs/colocation.md): Doris's FE switch, off by default.
    "disable_colocate_join": "false",
    # Size a load aims at for each data file (dorisql, docs/storage.md "Fewer files"): a tablet
    # gets one file per load up to this size. 256 MiB (storage/sizing.py).
    "target_file_size_bytes": "268435456",
}

#: The largest integer config value: Doris's integer FE configs are Java ints. (The check
#: interval is a long in Doris; dorisql keeps it an int too, as Python's timers cannot wait
#: anywhere near 2^63 seconds.)
INT_CONFIG_MAX = 2**31 - 1

#: Settings that may be 0 (keep nothing); the other numbers must be at least 1.
_ZERO_ALLOWED = {"catalog_trash_expire_second", "trash_file_expire_time_sec", "trash_orphan_grace_second"}

_BOOLEAN = {"true": "true", "1": "true", "on": "true", "false": "false", "0": "false", "off": "false"}


def normalize_bool(name: str, value: str) -> str:
    try:
        return _BOOLEAN[value.strip().lower()]
    except KeyError:
        raise AnalysisError(f"Variable '{name}' can't be set to the value of '{value}'") from None


def check_frontend_setting(name: str, value: str) -> str:
    """Validate one ADMIN SET FRONTEND CONFIG entry; return its normalised value."""
    if name not in FRONTEND_DEFAULTS:
        raise AnalysisError(f"Config '{name}' does not exist or is not mutable")
    if name in ("dynamic_partition_enable", "trash_enable", "disable_colocate_join"):
        return normalize_bool(name, value)
    if name == "cluster_disk_capacity":
        from dorisql.bucketing.auto import parse_data_size

        parse_data_size(value, prop=name)
        return value.strip()
    try:
        number = int(value)
    except ValueError:
        raise AnalysisError(f"Invalid value '{value}' for config '{name}': expected an integer") from None
    if number < (0 if name.startswith("cluster_") or name in _ZERO_ALLOWED else 1):
        raise AnalysisError(f"Invalid value '{value}' for config '{name}': must be positive")
    if number > INT_CONFIG_MAX:
        raise AnalysisError(f"Invalid value '{value}' for config '{name}': must be at most {INT_CONFIG_MAX}")
    return str(number)
