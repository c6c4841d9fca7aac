"""Temporary partitions and REPLACE PARTITION: Doris's rules and messages, pure.

A temporary partition has the table's partition columns; its range (or list values) must not
meet another temporary partition's but may overlap formal partitions (Doris PartitionInfo keeps
the two sets apart). ``ALTER TABLE t REPLACE PARTITION (p..) WITH TEMPORARY PARTITION (tp..)``
swaps them (Doris OlapTable.replaceTempPartitions):

- ``strict_range`` (default true): the union of the replaced ranges must equal the union of the
  temporary ones (RangeUtils.checkPartitionItemListsMatch; LIST: the same values,
  ListUtil.checkPartitionKeyListsMatch); false: the temporary ranges must only not meet the
  formal partitions that stay (RangeUtils.checkRangeConflict / ListUtil.checkListsConflict);
- ``use_temp_partition_name`` (default false): with as many temporary as replaced partitions,
  the new partitions take the replaced ones' names; otherwise they keep their own.

Messages are Doris's (Alter.replaceTempPartition, ReplacePartitionClause.analyze, the two utils).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dorisql import ast
from dorisql.errors import AnalysisError
from dorisql.partitioning import keys

STRICT_RANGE = "strict_range"
USE_TEMP_PARTITION_NAME = "use_temp_partition_name"


def replace_options(action: ast.ReplacePartition) -> tuple[bool, bool]:
    """(strict_range, use_temp_partition_name) of a REPLACE PARTITION clause (Doris
    ReplacePartitionClause.analyze: a value other than "true" is false, Boolean.parseBoolean)."""
    if not action.partitions:
        raise AnalysisError("No partition specified")
    if not action.temp_partitions:
        raise AnalysisError("No temp partition specified")
    if action.temporary or not action.with_temporary:
        raise AnalysisError("Only support replace partitions with temp partitions")
    props = dict(action.properties)
    strict = props.pop(STRICT_RANGE, "true").strip().lower() == "true"
    use_temp_name = props.pop(USE_TEMP_PARTITION_NAME, "false").strip().lower() == "true"
    if props:
        raise AnalysisError("Unknown properties: [" + ", ".join(props) + "]")
    return strict, use_temp_name


def _defs(meta, partitions) -> list:
    _, types = keys.partition_columns(meta.definition)
    return keys.from_meta(partitions, types)


def check_replace(meta, names: Sequence[str], temp_names: Sequence[str], strict_range: bool) -> None:
    """Refuse a REPLACE PARTITION that Doris refuses (`meta`: a catalog TableMeta)."""
    for name in names:
        if meta.partition(name) is None:
            raise AnalysisError(f"Partition[{name}] does not exist")
    for name in temp_names:
        if meta.temp_partition(name) is None:
            raise AnalysisError(f"Temp partition[{name}] does not exist")
    replaced = {meta.partition(n).name for n in names}  # exact: pXXX3 and pxxx3 are two partitions
    old = _defs(meta, [meta.partition(n) for n in names])
    new = _defs(meta, _distinct_temps(meta, temp_names))
    kind = meta.definition.partition.kind.upper()
    if kind == "RANGE":
        if strict_range:
            _ranges_match([d.range for d in old], [d.range for d in new])
        else:
            stay = [d.range for d in _defs(meta, [p for p in meta.partitions if p.name not in replaced])]
            for r in (d.range for d in new):
                if any(r.intersects(s) for s in stay):
                    raise AnalysisError(f"Range: {r} conflicts with existing range")
    else:
        if strict_range:
            if {keys._identity(k) for d in old for k in d.keys} != {keys._identity(k) for d in new for k in d.keys}:
                raise AnalysisError(f"2 partition key lists are not matched. {_list_text(old)} vs. {_list_text(new)}")
        else:
            stay = _defs(meta, [p for p in meta.partitions if p.name not in replaced])
            for d in new:
                for k in d.keys:
                    for owner in stay:
                        if keys._identity(k) in {keys._identity(o) for o in owner.keys}:
                            raise AnalysisError(
                                f"The partition key[{k.to_sql()}] is overlap with current {owner.show_text()}"
                            )


def _distinct_temps(meta, names: Sequence[str]) -> list:
    """The named temporary partitions, each once: Doris drops repeated temporary partition names
    ("duplicate temp partition will cause Incomplete transaction"). Repeated means naming the
    same partition, not names equal ignoring case (tp and TP may be two partitions)."""
    out: list = []
    for n in names:
        p = meta.temp_partition(n)
        if p not in out:
            out.append(p)
    return out


def _list_text(defs) -> str:
    return "[" + ", ".join(d.show_text() for d in defs) + "]"


def _lt(a, b) -> bool:
    return a < b


def _ranges_match(list1: list, list2: list) -> None:
    """Doris RangeUtils.checkPartitionItemListsMatch: both lists cover exactly the same keys."""
    list1 = sorted(list1, key=lambda r: r.lower)
    list2 = sorted(list2, key=lambda r: r.lower)
    i = j = 0
    r1, r2 = list1[0], list2[0]
    while True:
        if _lt(r1.lower, r2.lower) or _lt(r2.lower, r1.lower):
            raise AnalysisError(f"2 range lists are not stricly matched. {r1.lower} vs. {r2.lower}")
        if not (_lt(r1.upper, r2.upper) or _lt(r2.upper, r1.upper)):
            i += 1
            j += 1
            if i == len(list1) or j == len(list2):
                break
            r1, r2 = list1[i], list2[j]
        elif _lt(r2.upper, r1.upper):
            j += 1
            if j == len(list2):
                break
            r1 = keys.Range(r2.upper, r1.upper)
            r2 = list2[j]
        else:
            i += 1
            if i == len(list1):
                break
            r2 = keys.Range(r1.upper, r2.upper)
            r1 = list1[i]
    if i < len(list1) or j < len(list2):
        shown = lambda rs: "[" + ", ".join(str(r) for r in rs) + "]"  # noqa: E731
        raise AnalysisError(f"2 range lists are not stricly matched. {shown(list1)} vs. {shown(list2)}")


def replaced(meta, names: Sequence[str], temp_names: Sequence[str], use_temp_name: bool):
    """The table after REPLACE PARTITION: the named formal partitions gone, the temporary ones
    formal (renamed to the replaced names when Doris does). Their ids, and so their files, stay."""
    olds = [meta.partition(n) for n in names]
    temps = _distinct_temps(meta, temp_names)
    rename = not use_temp_name and len(olds) == len(temps)
    gone = {p.id for p in olds}
    used = {t.id for t in temps}
    promoted = [replace(t, name=olds[i].name) if rename else t for i, t in enumerate(temps)]
    # in the place of the first replaced partition, so the partition list keeps its order
    at = next(i for i, p in enumerate(meta.partitions) if p.id in gone)  # all before it are kept
    kept = [p for p in meta.partitions if p.id not in gone]
    return replace(
        meta,
        partitions=tuple(kept[:at] + promoted + kept[at:]),
        temp_partitions=tuple(t for t in meta.temp_partitions if t.id not in used),
    )


def check_new_name(meta, name: str) -> None:
    """A partition name must be free among formal and temporary partitions (Doris
    OlapTable.checkPartitionNameExist)."""
    if meta.partition(name) is not None or meta.temp_partition(name) is not None:
        raise AnalysisError(f"Duplicate partition name {name}")
