"""How many buckets a new partition gets: BUCKETS n, dynamic_partition.buckets, or BUCKETS AUTO.

The arithmetic is pure (dorisql.bucketing.auto_buckets); this module gathers its inputs — the cluster
topology and the sizes of earlier partitions from the Delta log — and returns a BucketDecision
that is stored on the partition (SHOW BUCKETS prints it).
"""

from __future__ import annotations

import shutil

from dorisql import ast
from dorisql.bucketing import auto_buckets as auto
from dorisql.bucketing.auto_buckets import BucketDecision
from dorisql.catalog.model import TableMeta
from dorisql.partitioning.keys import sorted_partition_names
from dorisql.session.session import Session
from dorisql.statements.ddl.colocation_groups import check_create, member_decision
from dorisql.storage.layout import DELTA_LOG_DIR
from dorisql.storage.spark import executors, is_local_master
from dorisql.tablets.partition_sizes import table_stats
from dorisql.tablets.tables import meta_dir


def topology(session: Session) -> auto.Topology:
    """BE nodes and disks for BUCKETS AUTO: ADMIN SET FRONTEND CONFIG / config file, else the
    Spark executors and the warehouse volume's available capacity."""
    nodes_text = session.frontend("cluster_backends")
    disks_text = session.frontend("cluster_disks_per_backend")
    capacity_text = session.frontend("cluster_disk_capacity")
    nodes = int(nodes_text) if nodes_text else _spark_nodes(session)
    disks = int(disks_text) if disks_text else 1
    capacity = (
        auto.parse_data_size(capacity_text, prop="cluster_disk_capacity")
        if capacity_text
        else shutil.disk_usage(session.warehouse).free
    )
    return auto.Topology.uniform(max(nodes, 1), max(disks, 1), capacity)


def _spark_nodes(session: Session) -> int:
    """The cluster's executors, starting Spark if it has not started (a local master is one node
    without it). A Spark Connect server does not tell its client about executors: one node, unless
    ``cluster_backends`` says otherwise (docs/deployment.md)."""

    if session.config.remote or is_local_master(session.config.master):
        return 1
    return max(len(executors(session.spark, session.config.master)), 1)


def _auto_limits(session: Session) -> tuple[int, int]:
    return int(session.frontend("autobucket_min_buckets")), int(session.frontend("autobucket_max_buckets"))


def initial_decision(session: Session, definition: ast.CreateTable, explicit: int | None = None) -> BucketDecision:
    """Bucket count of a partition created with the table (or without any history)."""

    distribution = definition.distribution
    if explicit is not None:
        return BucketDecision(rule="fixed", buckets=explicit, reason=f"BUCKETS {explicit}")
    colocated = check_create(session, definition)
    if colocated is not None:  # BUCKETS AUTO joining a group takes the group's count
        return colocated
    if distribution is not None and not distribution.auto and distribution.buckets:
        return BucketDecision(rule="fixed", buckets=distribution.buckets, reason=f"BUCKETS {distribution.buckets}")
    low, high = _auto_limits(session)
    estimate = auto.estimate_from_properties(ast.props(definition.properties))
    return auto.initial_buckets(estimate, topology(session), low, high)


def next_decision(
    session: Session,
    meta: TableMeta,
    explicit: int | None = None,
    dynamic_buckets: int | None = None,
    exclude: str | None = None,
) -> BucketDecision:
    """Bucket count of a partition added later: explicit BUCKETS, dynamic_partition.buckets,
    the table's fixed count, or BUCKETS AUTO from the sizes of earlier partitions."""

    distribution = meta.definition.distribution
    if explicit is not None:
        return BucketDecision(rule="fixed", buckets=explicit, reason=f"BUCKETS {explicit}")
    colocated = member_decision(session, meta) if meta.id else None
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
    history = partition_size_history(session, meta, exclude=exclude)
    if not history and dynamic_rule is not None:
        # Doris (DynamicPartitionScheduler.getBucketsNum): an AUTO table ignores
        # dynamic_partition.buckets once earlier partitions hold data, and uses it until then.
        return dynamic_rule
    low, high = _auto_limits(session)
    estimate = auto.estimate_from_properties(ast.props(meta.definition.properties))
    return auto.subsequent_buckets(history, topology(session), low, high, fallback_estimate_bytes=estimate)


def partition_size_history(session: Session, meta: TableMeta, exclude: str | None = None) -> list[int]:
    """Stored sizes of the partitions that hold data, in range order (oldest first)."""

    # CREATE TABLE: the table has no id yet (partitions.initial_partitions plans its first dynamic
    # partitions on an id-0 shell) or no Delta table yet, so nothing holds data.
    if not meta.id or not (meta_dir(session.warehouse, meta) / DELTA_LOG_DIR).is_dir():
        return []
    stats = table_stats(session, meta)
    return [
        stats[name].data_size
        for name in sorted_partition_names(meta)
        if name != exclude and name in stats and stats[name].data_size > 0
    ]
