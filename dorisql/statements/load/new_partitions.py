"""AUTO PARTITION at load time: the partitions a load's rows need are created before its data
is committed (dorisql.partitioning.auto_partitions decides names and bounds).

Order: the new partitions go into the catalog first (one conditional catalog update, retried by
`Catalog.update_table` when another session changed the table meanwhile), then the load commits
its rows to Delta. A crash or failure in between leaves empty partitions, as in Doris ("the
created partitions are not deleted automatically"): harmless, never rows without a partition.
Two loads needing the same new partition both find it by name in the catalog update and the
second adds nothing: one partition, both loads' rows in it.
"""

from __future__ import annotations

import dataclasses

from dorisql.catalog.model import PartitionMeta, TableMeta
from dorisql.partitioning import auto_partitions as auto
from dorisql.partitioning import keys
from dorisql.session.session import Session
from dorisql.statements.ddl.bucket_counts import next_decision
from dorisql.statements.ddl.partitions import _replication_num, _storage_medium
from dorisql.translate.literals import default_sql
from dorisql.translate.temporal import cast_sql


def is_auto(meta: TableMeta) -> bool:
    part = meta.definition.partition
    return part is not None and part.auto_partition


def ensure_partitions(session: Session, meta: TableMeta, source, target, *, listed: bool = True) -> TableMeta:
    """`meta` with every partition the load of `source` (columns ``__src<i>`` for `target`)
    needs; unchanged for other tables or when all exist."""

    if not is_auto(meta):
        return meta
    part = meta.definition.partition
    if part is not None and part.kind.upper() == "RANGE" and part.expressions:
        auto.range_unit(part)  # an unknown date_trunc unit: refused by the load, as in Doris
    values = _distinct_values(session, meta, source, target)
    if not auto.needed_items(meta, values):
        return meta
    limit = int(session.frontend("max_auto_partition_num"))

    def add(current: TableMeta) -> TableMeta:
        # exact names: pxxx3 ('xxx') is not pXXX3 ('XXX'), as in Doris
        taken = {p.name for p in current.partitions}
        missing = [item for item in auto.needed_items(current, values) if item.name not in taken]
        if not missing:  # another load created them meanwhile
            return current
        auto.check_limit(len(current.partitions), len(missing), limit)
        ids = list(session.catalog.next_ids(len(missing))) if not listed else [0] * len(missing)
        working = current
        for pid, item in zip(ids, missing):
            declared = keys.add_partition(working, item)
            decision = next_decision(session, working, explicit=None)
            new = PartitionMeta(
                id=pid,  # 0: the catalog assigns it
                name=item.name,
                buckets=decision.buckets,
                created_at=session.now(),
                replication_num=_replication_num(working.definition),
                storage_medium=_storage_medium(working.definition),
                bucket_decision=decision,
                **declared.meta_fields(),
            )
            working = dataclasses.replace(working, partitions=working.partitions + (new,))
        return working

    if not listed:  # CREATE TABLE ... AS SELECT: the entry is registered after the load
        return add(meta)
    return session.catalog.update_table(meta.db, meta.name, add, table_id=meta.id)


def _distinct_values(session: Session, meta: TableMeta, source, target) -> list[tuple]:
    """The distinct values (date_trunc'ed for AUTO RANGE) of the partition columns the rows
    will have, as Python values, computed by Spark."""
    from pyspark.sql import functions as F

    definition = meta.definition
    names, ptypes = keys.partition_columns(definition)
    by_name = {c.name.lower(): i for i, c in enumerate(target)}
    columns = {c.name.lower(): c for c in definition.columns}
    source_types = {f.name: f.dataType.simpleString() for f in source.schema.fields}
    exprs = []
    fits = F.lit(True)
    for name, ptype in zip(names, ptypes):
        index = by_name.get(name.lower())
        text = default_sql(columns[name.lower()], session.now()) if index is None else f"`__src{index}`"
        raw = F.expr(text)
        # the value the load stores (a DATETIME(p) rounded: its partition may be the next one)
        exprs.append(F.expr(cast_sql(text, source_types.get(f"__src{index}"), ptype)))
        # a value its column cannot hold (e.g. a LARGEINT beyond DECIMAL(38,0)) is refused with
        # its row by the load's checks: it needs no partition, and is not NULL's
        fits = fits & (raw.isNull() | exprs[-1].isNotNull())
    part = definition.partition
    assert part is not None
    if part.kind.upper() == "RANGE" and part.expressions:
        unit = auto.range_unit(part)
        # the session time zone is UTC (storage/spark.py): the NTZ cast keeps the wall time
        trunc = F.date_trunc(unit, exprs[0]).cast("timestamp_ntz")
        exprs = [trunc.cast("date") if ptypes[0].name == "DATE" else trunc]
    rows = source.where(fits).select(*[e.alias(f"__p{i}") for i, e in enumerate(exprs)]).distinct().collect()
    return [tuple(row) for row in rows]
