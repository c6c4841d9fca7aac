"""SHOW BUCKETS FROM [db.]t -- a dorisql extension: why each partition has its bucket count.

Doris shows a BUCKETS AUTO table's per-partition counts in SHOW PARTITIONS but never says how
they were chosen. dorisql records a BucketDecision on every partition when it creates it
(dorisql.statements.ddl.bucket_counts: initial_decision / next_decision) and this statement prints it:

- PartitionName, Buckets: as in SHOW PARTITIONS (same order);
- Rule: ``fixed`` (BUCKETS n, in CREATE TABLE or ADD PARTITION), ``dynamic_partition.buckets``,
  ``auto-initial`` (from estimate_partition_size), ``auto-subsequent`` (from the sizes of up to
  7 earlier partitions), or ``unknown`` (a partition created before decisions were recorded);
- EstimateSize: the uncompressed partition size the rule sized against (auto rules only);
- N, M: the data-volume and disk bucket counts of Doris's formula (auto rules only);
- Reason: the whole computation in words;
- History: the stored sizes (from the Delta log) of the earlier partitions an auto-subsequent
  decision used, oldest first.
"""

from __future__ import annotations

from dorisql import ast
from dorisql.bucketing.auto_buckets import format_size
from dorisql.result import Result
from dorisql.session.session import Session

SHOW_BUCKETS_COLUMNS = ("PartitionName", "Buckets", "Rule", "EstimateSize", "N", "M", "Reason", "History")


def bucket_rows(meta) -> list[tuple]:
    """One row per partition of a TableMeta, in SHOW PARTITIONS order."""
    rows: list[tuple] = []
    for p in meta.partitions:
        d = p.bucket_decision
        if d is None:
            rows.append(
                (p.name, p.buckets, "unknown", None, None, None, "created before bucket decisions were recorded", "")
            )
            continue
        estimate = format_size(d.estimate_bytes) if d.estimate_bytes is not None else None
        history = ", ".join(format_size(s) for s in d.history_bytes)
        rows.append((p.name, p.buckets, d.rule, estimate, d.n, d.m, d.reason, history))
    return rows


def show_buckets(session: Session, stmt: ast.ShowBuckets) -> Result:
    meta = session.catalog.load_table(session.resolve_db(stmt.table.db), stmt.table.name)
    return Result.table(SHOW_BUCKETS_COLUMNS, bucket_rows(meta))
