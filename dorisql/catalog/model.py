"""Doris-level metadata of a table: its definition and its partitions.

Plain frozen dataclasses (change them with `dataclasses.replace`). Partition bounds are kept as
canonical text, as SHOW PARTITIONS prints them in its keys (2017-02-01, -2147483648, MAXVALUE;
a string value exactly, spaces included), so the catalog stays readable and typing them needs
only the table's schema (`dorisql.partitioning.keys`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from dorisql.ast import CreateTable, DataType
from dorisql.bucketing.auto_buckets import BucketDecision

#: The text of a MAXVALUE bound in PartitionMeta.lower/upper.
MAXVALUE_TEXT = "MAXVALUE"


@dataclass(frozen=True)
class PartitionMeta:
    id: int
    name: str
    buckets: int
    #: RANGE: [lower, upper) as canonical text per partition column; None for LIST.
    lower: tuple[str, ...] | None = None
    upper: tuple[str, ...] | None = None
    #: LIST: one tuple per allowed value combination; None entries are NULL. () is the table's
    #: DEFAULT list partition (`PARTITION p` without VALUES IN: every row no other partition holds).
    values: tuple[tuple[str | None, ...], ...] | None = None
    created_at: dt.datetime = field(default_factory=dt.datetime.now)
    #: Doris's VisibleVersion: 1 at creation, +1 per load that committed data into it.
    visible_version: int = 1
    visible_version_time: dt.datetime | None = None
    replication_num: int = 1
    storage_medium: str = "HDD"
    bucket_decision: BucketDecision | None = None
    #: ALTER TABLE MODIFY PARTITION: storage_cooldown_time (None: Doris's 9999-12-31 23:59:59).
    cooldown_time: dt.datetime | None = None


def partition_named(partitions: tuple[PartitionMeta, ...], name: str) -> PartitionMeta | None:
    """The partition called `name`: the one so named exactly, else the one partition whose name
    matches ignoring case (a typed name's leniency), else None.

    Names that differ only in case are different partitions, as in Doris (OlapTable's
    nameToPartition is case-sensitive): AUTO PARTITION BY LIST creates pXXX3 for 'XXX' and pxxx3
    for 'xxx', and neither may stand for the other, nor may a name matching both by case."""
    for p in partitions:
        if p.name == name:
            return p
    lowered = name.lower()
    matches = [p for p in partitions if p.name.lower() == lowered]
    return matches[0] if len(matches) == 1 else None


def exact_partition_names(partitions: tuple[PartitionMeta, ...], names: Iterable[str]) -> set[str]:
    """The exact names of the partitions `names` denote (`partition_named`; unknown names are
    left out): pXXX3 and pxxx3 are two partitions, so comparing lowered names would drop,
    truncate, modify or bump both for either."""
    found = (partition_named(partitions, n) for n in names)
    return {p.name for p in found if p is not None}


@dataclass(frozen=True)
class SchemaChangeJob:
    """One finished schema change (SHOW ALTER TABLE COLUMN): the ALTER's catalog record."""

    job_id: int
    table_name: str
    create_time: dt.datetime
    finish_time: dt.datetime
    #: TableMeta.schema_version after the change.
    schema_version: int
    #: The Delta version the schema commit became (Doris: the transaction id).
    transaction_id: int
    msg: str = ""


@dataclass(frozen=True)
class DynamicState:
    """What SHOW DYNAMIC PARTITION TABLES reports about the scheduler's last pass."""

    last_update_time: dt.datetime | None = None
    last_scheduler_time: dt.datetime | None = None
    state: str = "NORMAL"
    last_create_partition_msg: str | None = None
    last_drop_partition_msg: str | None = None


@dataclass(frozen=True)
class TableMeta:
    """One table as the catalog knows it.

    `definition` is the CREATE TABLE as normalised by dorisql, with `partition.items` empty: the
    live partition list is `partitions`. `version` is the catalog row version that an update must
    match (optimistic concurrency).

    Storage is keyed by ids, as Doris keys tablets: the Delta folder is ``<db>/<table id>`` and
    ``__partition`` holds partition ids, so RENAME is a catalog change and a name dropped and
    re-created (even concurrently) never shares files with the old one.
    """

    id: int
    db: str
    name: str
    definition: CreateTable
    partitions: tuple[PartitionMeta, ...] = ()
    version: int = 0
    created_at: dt.datetime = field(default_factory=dt.datetime.now)
    dynamic_state: DynamicState = field(default_factory=DynamicState)
    #: The latest Delta version this catalog entry is known to follow: a load or truncate records
    #: the version it committed. The table's Delta log must have reached it; an older log lost
    #: commits (a deleted ``_delta_log`` file), so reads and writes refuse it instead of serving
    #: less data (dorisql.tablets.consistency). 0: nothing recorded yet.
    known_delta_version: int = 0
    #: Schema changes: lowered column name -> Delta version of the commit that added the column
    #: (ALTER TABLE ADD COLUMN). Files committed before that version hold no value for it (or an
    #: older column of the same name, dropped since): reads give the column's DEFAULT for their rows.
    column_versions: tuple[tuple[str, int], ...] = ()
    #: Doris's SchemaVersion: 0 at creation, +1 per schema change.
    schema_version: int = 0
    schema_jobs: tuple[SchemaChangeJob, ...] = ()
    #: Doris's temporary partitions (ALTER TABLE ADD TEMPORARY PARTITION): same partition columns,
    #: ranges independent of the formal ones, invisible to ordinary queries, SHOW PARTITIONS and
    #: the dynamic scheduler until REPLACE PARTITION makes them formal. Their files live in the
    #: same Delta table under their own ids.
    temp_partitions: tuple[PartitionMeta, ...] = ()
    #: The table's files are merge-on-write (dorisql.tablets.merge_on_write): set at CREATE of a
    #: UNIQUE table with "enable_unique_key_merge_on_write" = "true" by a dorisql that stores them
    #: so. False for older tables, whose files are merge-on-read whatever their property says.
    merge_on_write: bool = False

    def temporary_view(self) -> TableMeta:
        """The table as seen through its temporary partitions (loading into them, reading them)."""
        return replace(self, partitions=self.temp_partitions, temp_partitions=())

    def temp_partition(self, name: str) -> PartitionMeta | None:
        return partition_named(self.temp_partitions, name)

    def storage_keys(self) -> set[str]:
        """Delta partition values of every partition, formal and temporary."""
        return {self.partition_key(p) for p in self.partitions + self.temp_partitions}

    def partition_key(self, partition: PartitionMeta) -> str:
        """The partition's value in the Delta partition column ``__partition``: its immutable id,
        so RENAME PARTITION touches no file and a re-created name never sees a dropped one's files."""
        return str(partition.id)

    def partition_keys(self, names=None) -> dict[str, str]:
        """Partition name -> Delta partition value, for the named partitions (default: all)."""
        if names is None:
            return {p.name: self.partition_key(p) for p in self.partitions}
        out = {}
        for name in names:
            p = self.partition(name)
            if p is not None:
                out[p.name] = self.partition_key(p)
        return out

    def partition(self, name: str) -> PartitionMeta | None:
        return partition_named(self.partitions, name)


@dataclass(frozen=True)
class ViewColumn:
    """One output column of a view, as its query resolved at CREATE / ALTER VIEW."""

    name: str
    #: The Doris type (DESC, information_schema.columns): the source column's, else the one of
    #: the query's Spark type.
    type: DataType
    nullable: bool = True
    comment: str | None = None


@dataclass(frozen=True)
class ViewMeta:
    """A view (CREATE VIEW): its query as the user wrote it, expanded by the planner as a derived
    table wherever the view is read. It shares the tables' namespace but has no storage."""

    id: int
    db: str
    name: str
    #: The query, Doris SQL as written; unqualified names in it are in `db`.
    query: str
    columns: tuple[ViewColumn, ...]
    #: CREATE VIEW v (a, b ...): the output columns were named by a column list.
    named_columns: bool = False
    comment: str = ""
    created_at: dt.datetime = field(default_factory=dt.datetime.now)
    updated_at: dt.datetime | None = None
