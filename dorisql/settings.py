"""Session variables (SET x = y) and frontend settings (ADMIN SET FRONTEND CONFIG), with Doris's defaults."""

from __future__ import annotations

import math

from dorisql.bucketing.auto_buckets import parse_data_size
from dorisql.errors import AnalysisError

#: Session variables dorisql honours, with Doris's defaults.
SESSION_DEFAULTS: dict[str, str] = {
    "enable_insert_strict": "true",
    "allow_partition_column_nullable": "true",
    # Not a Doris variable: the clock override used to reproduce time-dependent examples.
    "dorisql_now": "",
    "time_zone": "",
    # Point queries answered without Spark (dorisql.query.short_circuit; docs/point_queries.md).
    "enable_short_circuit_query": "true",
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
    # Stream Load labels (docs/stream_load.md): a finished or failed load's label is forgotten
    # this long after the load ended (Doris's default, three days); the trash job cleans them.
    "label_keep_max_second": "259200",
    # Colocate joins (docs/colocation.md): Doris's FE switch, off by default.
    "disable_colocate_join": "false",
    # Compaction (docs/compaction.md, "Policy"): Doris's BE settings, with the defaults of the
    # compaction design the policy follows; total_permits_for_compaction_score is Doris's current one.
    "compaction_task_num_per_disk": "2",
    "min_compaction_failure_interval_sec": "600",
    "compaction_tablet_scan_frequency_factor": "0",
    "compaction_tablet_compaction_score_factor": "1",
    "generate_compaction_tasks_min_interval_ms": "10",
    "cumulative_compaction_rounds_for_each_base_compaction_round": "9",
    "disable_auto_compaction": "false",
    "total_permits_for_compaction_score": "1000000",
    "cumulative_compaction_policy": "size_based",
    "cumulative_size_based_promotion_ratio": "0.05",
    "cumulative_size_based_promotion_size_mbytes": "1024",
    "cumulative_size_based_promotion_min_size_mbytes": "64",
    "cumulative_size_based_compaction_lower_size_mbytes": "64",
    "cumulative_compaction_skip_window_seconds": "30",
    "max_cumulative_compaction_num_singleton_deltas": "1000",
    "min_cumulative_compaction_num_singleton_deltas": "5",
    "base_compaction_num_cumulative_deltas": "5",
    "base_cumulative_delta_ratio": "0.3",
    "base_compaction_interval_seconds_since_last_operation": "86400",
    # Not in the design: Doris's time after which an idle tablet's last small rowsets are compacted.
    "pick_rowset_to_compact_interval_sec": "86400",
    # AUTO PARTITION: a table's partition cap for loads that create partitions (Doris's default).
    "max_auto_partition_num": "2000",
    # Compaction execution (docs/compaction.md, "Execution and scheduling"): the background
    # job's pause between passes and the output file size (dorisql's), Doris's scan-frequency window.
    "compaction_check_interval_seconds": "10",
    "compaction_output_file_size_mbytes": "128",
    "tablet_scan_frequency_time_node_interval_second": "300",
    # Size a load aims at for each data file (dorisql, docs/storage.md "Fewer files"): a tablet
    # gets one file per load up to this size. 256 MiB (storage/sizing.py).
    "target_file_size_bytes": "268435456",
    # A load whose source Spark estimates at most this size (dorisql, docs/storage.md "Small
    # loads") is collected to the dorisql process and written there by pyarrow; a larger one by
    # Spark's executors. 32 MiB; 0: every load is written by the executors.
    "small_load_max_bytes": "33554432",
}

#: The largest integer config value: Doris's integer FE configs are Java ints. (The check
#: interval is a long in Doris; dorisql keeps it an int too, as Python's timers cannot wait
#: anywhere near 2^63 seconds.)
INT_CONFIG_MAX = 2**31 - 1

#: Settings that may be 0 (keep nothing); the other numbers must be at least 1.
_ZERO_ALLOWED = {"catalog_trash_expire_second", "trash_file_expire_time_sec", "trash_orphan_grace_second"}
_ZERO_ALLOWED |= {"small_load_max_bytes"}
#: Compaction settings that may be 0 (a factor, an interval or a size that turns a rule off).
_ZERO_ALLOWED |= {
    "min_compaction_failure_interval_sec",
    "compaction_tablet_scan_frequency_factor",
    "compaction_tablet_compaction_score_factor",
    "generate_compaction_tasks_min_interval_ms",
    "cumulative_compaction_rounds_for_each_base_compaction_round",
    "total_permits_for_compaction_score",
    "cumulative_size_based_promotion_min_size_mbytes",
    "cumulative_size_based_compaction_lower_size_mbytes",
    "cumulative_compaction_skip_window_seconds",
    "min_cumulative_compaction_num_singleton_deltas",
    "base_compaction_num_cumulative_deltas",
    "base_compaction_interval_seconds_since_last_operation",
}
#: Compaction ratios (Doris's mDouble settings), with the range each accepts.
_RATIOS = {"cumulative_size_based_promotion_ratio": (0.0, 1.0), "base_cumulative_delta_ratio": (0.0, None)}

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
    if name in ("dynamic_partition_enable", "trash_enable", "disable_colocate_join", "disable_auto_compaction"):
        return normalize_bool(name, value)
    if name in _RATIOS or name in ("cumulative_compaction_policy", "compaction_task_num_per_disk"):
        return _check_compaction_setting(name, value)
    if name == "cluster_disk_capacity":
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


def _check_compaction_setting(name: str, value: str) -> str:
    """Doris's validators for these settings fail with "validate <name>=<value> failed"."""
    text = value.strip()
    if name == "cumulative_compaction_policy":
        # Doris also has 'time_series'; dorisql implements the size-based policy only.
        if text.lower() != "size_based":
            raise AnalysisError(f"validate {name}={value} failed: only 'size_based' is supported")
        return "size_based"
    if name == "compaction_task_num_per_disk":
        # Doris's validator: config >= 2 (one base and one cumulative task per disk at least).
        if not text.isdigit() or not 2 <= int(text) <= INT_CONFIG_MAX:
            raise AnalysisError(f"validate {name}={value} failed: must be an integer of at least 2")
        return str(int(text))
    try:
        ratio = float(text)
    except ValueError:
        raise AnalysisError(f"Invalid value '{value}' for config '{name}': expected a number") from None
    low, high = _RATIOS[name]
    if not (math.isfinite(ratio) and ratio >= low and (high is None or ratio <= high)):
        bounds = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise AnalysisError(f"validate {name}={value} failed: must be {bounds}")
    return repr(ratio)
