"""Colocation groups: a table's Colocation Group Schema and Doris's rules for joining a group (pure).

Doris (ColocateGroupSchema.checkColocateSchema, InternalCatalog.createOlapTable,
Env.modifyTableColocate): a group fixes the bucket count, the distribution column types in order
(VARCHAR and STRING count as one type: their values hash alike) and the replica allocation. The
first table creates the group; every later table, and every partition added to a member, must
match it. The messages below are Doris's ErrorCode texts (ERR_COLOCATE_TABLE_MUST_HAS_SAME_*).
"""

from __future__ import annotations

from dorisql import ast
from dorisql.ast import DataType
from dorisql.catalog.base import ColocationGroup, group_key
from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError

__all__ = [
    "COLOCATE_WITH",
    "colocate_name",
    "doris_type_name",
    "schema_of",
    "check_schema",
    "check_new_group",
    "check_dynamic_buckets",
    "replica_allocation_text",
]

COLOCATE_WITH = "colocate_with"

#: Doris's message when a RANDOM-distributed table names a group (InternalCatalog).
RANDOM_MESSAGE = "Random distribution for colocate table is unsupported"


def colocate_name(definition: ast.CreateTable) -> str | None:
    """The group a table definition names, or None."""
    name = ast.props(definition.properties).get(COLOCATE_WITH)
    return name or None


def doris_type_name(t: DataType) -> str:
    """A type as Doris's Type.toString prints it in colocation messages (ScalarType.toSql):
    int, bigint, datev2, datetimev2(3), decimalv3(10,2), varchar(10), char(1), text."""
    name = t.name.upper()
    if name == "DATE":
        return "datev2"
    if name == "DATETIME":
        return f"datetimev2({t.params[0] if t.params else 0})"
    if name == "DECIMAL":
        p, s = (tuple(t.params) + (9, 0)[len(t.params) :])[:2]
        return f"decimalv3({p},{s})"
    if name in ("VARCHAR", "CHAR"):
        return f"{name.lower()}({t.params[0] if t.params else (65533 if name == 'VARCHAR' else 1)})"
    if name == "STRING":
        return "text"
    return name.lower()


def _string_like(t: DataType) -> bool:
    return t.name.upper() in ("VARCHAR", "STRING")


def _same_type(group: DataType, table: DataType) -> bool:
    # varchar and string have the same distribution hash when the data is the same (Doris)
    if _string_like(group) and _string_like(table):
        return True
    return doris_type_name(group) == doris_type_name(table)


def replica_allocation_text(replication_num: int) -> str:
    """ReplicaAllocation.toString: every replica in the default tag."""
    return f"tag.location.default: {replication_num}"


def _distribution_columns(definition: ast.CreateTable) -> tuple[tuple[str, DataType], ...]:
    types = {c.name.lower(): c for c in definition.columns}
    dist = definition.distribution
    if dist is None:
        return ()
    return tuple((types[c.lower()].name, types[c.lower()].type) for c in dist.columns if c.lower() in types)


def _table_buckets(meta: TableMeta) -> int:
    dist = meta.definition.distribution
    if dist is not None and dist.buckets:
        return dist.buckets
    return meta.partitions[0].buckets if meta.partitions else 0


def _replication(meta: TableMeta) -> int:
    if meta.partitions:
        return meta.partitions[0].replication_num
    value = ast.props(meta.definition.properties).get("replication_num", "1")
    return int(value) if value.isdigit() else 1


def schema_of(meta: TableMeta, name: str | None = None) -> ColocationGroup:
    """The Colocation Group Schema a table would found: its bucket count, distribution column
    types and replication number; keyed by (db, name) (global groups: db "")."""
    name = name or colocate_name(meta.definition) or ""
    gdb, gname = group_key(meta.db, name)
    return ColocationGroup(
        name=gname,
        db=gdb,
        buckets=_table_buckets(meta),
        distribution_types=tuple(t for _, t in _distribution_columns(meta.definition)),
        replication_num=_replication(meta),
    )


def _check_distribution(group: ColocationGroup, buckets: int, columns: tuple[tuple[str, DataType], ...]) -> None:
    if buckets != group.buckets:
        raise AnalysisError(f"Colocate tables must have same bucket num: {buckets} should be {group.buckets}")
    if len(columns) != len(group.distribution_types):
        raise AnalysisError(
            f"Colocate tables distribution columns size must be same: {len(columns)} "
            f"should be {len(group.distribution_types)}"
        )
    for (col, t), target in zip(columns, group.distribution_types):
        if not _same_type(target, t):
            raise AnalysisError(
                "Colocate tables distribution columns must have the same data type: "
                f"{col}({doris_type_name(t)}) should be {doris_type_name(target)}"
            )


def _check_replication(group: ColocationGroup, replication_num: int) -> None:
    if replication_num != group.replication_num:
        raise AnalysisError(
            f"Colocate tables must have same replication allocation: {{ {replica_allocation_text(replication_num)} }} "
            f"should be {{ {replica_allocation_text(group.replication_num)} }}"
        )


def check_schema(group: ColocationGroup, meta: TableMeta) -> None:
    """ColocateGroupSchema.checkColocateSchema: the table's default distribution, then each
    partition's, then each partition's replica allocation must match the group."""
    if meta.definition.distribution is not None and meta.definition.distribution.kind.upper() == "RANDOM":
        raise AnalysisError(RANDOM_MESSAGE)
    columns = _distribution_columns(meta.definition)
    _check_distribution(group, _table_buckets(meta), columns)
    for p in meta.partitions:
        _check_distribution(group, p.buckets, columns)
    for p in meta.partitions:
        _check_replication(group, p.replication_num)


def check_new_group(meta: TableMeta) -> None:
    """ALTER TABLE SET ("colocate_with" = new group): Env.modifyTableColocate requires all of a
    partitioned table's partitions to have one bucket count and one replication number."""
    if meta.definition.distribution is not None and meta.definition.distribution.kind.upper() == "RANDOM":
        raise AnalysisError(RANDOM_MESSAGE)
    if meta.definition.partition is None:
        return
    if len({p.buckets for p in meta.partitions}) > 1:
        raise AnalysisError(f"Partitions in table {meta.name} have different buckets number")
    if len({p.replication_num for p in meta.partitions}) > 1:
        raise AnalysisError(f"Partitions in table {meta.name} have different replication number")


def check_dynamic_buckets(group_buckets: int, properties: dict[str, str]) -> None:
    """ColocateGroupSchema.checkDynamicPartition: dynamic_partition.buckets must be the group's."""
    text = properties.get("dynamic_partition.buckets")
    if text is not None and text.strip().isdigit() and int(text) != group_buckets:
        raise AnalysisError(
            "Dynamic partition buckets must equal the distribution buckets if creating a colocate table: "
            f"{group_buckets}"
        )
