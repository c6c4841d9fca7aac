"""The limit on a partition's bucket count, shared by every way of giving one.

Doris (DistributionDescriptor.validate, FE config ``max_bucket_num_per_partition``) refuses a
fixed bucket count above the limit; dorisql applies the same rule, with the same message, to
``DISTRIBUTED BY ... BUCKETS n``, ``ADD PARTITION ... BUCKETS n`` and
``dynamic_partition.buckets``. BUCKETS AUTO is not limited by it (it has its own cap).
"""

from __future__ import annotations

#: Doris Config.max_bucket_num_per_partition (default 768; 0 disables the limit).
MAX_BUCKET_NUM_PER_PARTITION = 768


def bucket_limit_error(buckets: int, limit: int = MAX_BUCKET_NUM_PER_PARTITION) -> str | None:
    """Doris's message when a fixed bucket count is above the limit, else None."""
    if limit and buckets > limit:
        return (
            f"Number of buckets ({buckets}) exceeds the maximum allowed value ({limit}) of max_bucket_num_per_partition"
        )
    return None
