"""How many buckets a new partition gets: BUCKETS n, dynamic_partition.buckets, or BUCKETS AUTO.

The arithmetic is pure (dorisql.bucketing.auto); this module gathers its inputs — the cluster
topology and the sizes of earlier partitions from the Delta log — and returns a BucketDecision
that is stored on the partition (SHOW BUCKETS prints it).
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from dorisql import ast
from dorisql.bucketing import auto
from dorisql.catalog.model import BucketDecision, TableMeta

from .tables import meta_dir

if TYPE_CHECKING:  # the engine imports these modules: type-only import
    from dorisql.engine.session import Engine


def topology(engine: Engine) -> auto.Topology:
    """BE nodes and disks for BUCKETS AUTO: ADMIN SET FRONTEND CONFIG / config file, else the
    Spark executors and the warehouse volume's available capacity."""
    nodes_text = engine.frontend("cluster_backends")
    disks_text = engine.frontend("cluster_disks_per_backend")
    capacity_text = engine.frontend("cluster_disk_capacity")
    nodes = int(nodes_text) if nodes_text else _spark_nodes(engine)
    disks = int(disks_text) if disks_text else 1
    capacity = (
        auto.parse_data_size(capacity_text, prop="cluster_disk_capacity")
        if capacity_text
        else shutil.disk_usage(engine.warehouse).free
    )
    return auto.Topology.uniform(max(nodes, 1), max(disks, 1), capacity)


def _spark_nodes(engine: Engine) -> int:
    """The cluster's executors, starting Spark if it has not started (a local master is one node
    without it). A Spark Connect server does not tell its client about executors: one node, unless
    ``cluster_backends`` says otherwise (docs/deployment.md)."""
    from dorisql.storage.spark import executors, is_local_master

    if engine.config.remote or is_local_master(engine.config.master):
        return 1
    return max(len(executors(engine.spark, engine.config.master)), 1)


def _auto_limits(engine: Engine) -> tuple[int, int]:
    return int(engine.frontend("autobucket_min_buckets")), int(engine.frontend("autobucket_max_buckets"))


def initial_decision(engine: Engine, definition: ast.CreateTable, explicit: int | None = None) -> BucketDecision:
    """Bucket count of a partition created with the table (or without any history)."""
    from .colocate import check_create

    distribution = definition.distribution
    if explicit is not None:
        return BucketDecision(rule="fixed", buckets=explicit, reason=f"BUCKETS {explicit}")
    colocated = check_create(engine, definition)
    if colocated is not None:  # BUCKETS AUTO joining a group takes the group's count
        return colocated
    if distribution is not None and not distribution.auto and distribution.buckets:
        return BucketDecision(rule="fixed", buckets=distribution.buckets, reason=f"BUCKETS {distribution.buckets}")
    low, high = _auto_limits(engine)
    estimate = auto.estimate_from_properties(ast.props(definition.properties))
    return auto.initial_buckets(estimate, topology(engine), low, high)


def next_decision(
    engine: Engine,
    meta: TableMeta,
    explicit: int | None = None,
    dynamic_buckets: int | None = None,
    exclude: str | None = None,
) -> BucketDecision:
    """Bucket count of a partition added later: explicit BUCKETS, dynamic_partition.buckets,
    the table's fixed count, or BUCKETS AUTO from the sizes of earlier partitions."""
    from .colocate import member_decision

    distribution = meta.definition.distribution
    if explicit is not None:
        return BucketDecision(rule="fixed", buckets=explicit, reason=f"BUCKETS {explicit}")
    colocated = member_decision(engine, meta) if meta.id else None
    if colocated is not None:  # a colocation group fixes the bucket count of every partition
        return colocated
    auto_table = distribution is not None and distribution.auto
    dynamic_rule = (
        None
        if dynamic_buckets is None
        else BucketDecision(
            rule="dynamic_partition.buckets",
            buckets=dynamic_buckets,
            reason=f"dynamic_partition.buckets = {dynamic_buckets}",
        )
    )
    if dynamic_rule is not None and not auto_table:
        return dynamic_rule
    if distribution is not None and not distribution.auto and distribution.buckets:
        return BucketDecision(rule="fixed", buckets=distribution.buckets, reason=f"BUCKETS {distribution.buckets}")
    history = partition_size_history(engine, meta, exclude=exclude)
    if not history and dynamic_rule is not None:
        # Doris (DynamicPartitionScheduler.getBucketsNum): an AUTO table ignores
        # dynamic_partition.buckets once earlier partitions hold data, and uses it until then.
        return dynamic_rule
    low, high = _auto_limits(engine)
    estimate = auto.estimate_from_properties(ast.props(meta.definition.properties))
    return auto.subsequent_buckets(history, topology(engine), low, high, fallback_estimate_bytes=estimate)


def partition_size_history(engine: Engine, meta: TableMeta, exclude: str | None = None) -> list[int]:
    """Stored sizes of the partitions that hold data, in range order (oldest first)."""
    from dorisql.partitioning.keys import sorted_partition_names

    from .show import table_stats

    if not (meta_dir(engine.warehouse, meta) / "_delta_log").is_dir():
        return []  # CREATE TABLE: the Delta table does not exist yet, so nothing holds data
    stats = table_stats(engine, meta)
    return [
        stats[name].data_size
        for name in sorted_partition_names(meta)
        if name != exclude and name in stats and stats[name].data_size > 0
    ]
