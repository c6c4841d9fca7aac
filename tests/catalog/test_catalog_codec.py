"""codec: generic JSON round trips of the statement and catalog dataclasses."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dorisql import ast
from dorisql.ast import MAXVALUE
from dorisql.bucketing.auto_buckets import BucketDecision
from dorisql.catalog import codec
from dorisql.catalog.codec import CodecError, decode, encode
from dorisql.catalog.model import DynamicState, PartitionMeta, TableMeta

sys.path.insert(0, str(Path(__file__).parent))
import catalog_samples as samples  # noqa: E402


def _types_equal(a, b) -> bool:
    """Equal *and* of the same types all the way down (1 vs True, tuple vs list, naive vs aware)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_types_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_types_equal(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a):
        return all(_types_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dt.datetime):
        return a == b and a.tzinfo == b.tzinfo
    return a == b or (a != a and b != b)


VALUES = [
    pytest.param(None, id="none"),
    pytest.param(True, id="true"),
    pytest.param(0, id="zero"),
    pytest.param(-(2**70), id="bigint"),
    pytest.param(1.5, id="float"),
    pytest.param("", id="empty-str"),
    pytest.param("naïve 'q' \"dq\" \\ \x00 \n ☃ 😀", id="odd-str"),
    pytest.param("MAXVALUE", id="maxvalue-text-is-not-maxvalue"),
    pytest.param(MAXVALUE, id="maxvalue"),
    pytest.param((), id="empty-tuple"),
    pytest.param([], id="empty-list"),
    pytest.param((1, (2, (3, ())), [4, (5,)]), id="nested-seq"),
    pytest.param({"a": 1, (1, 2): [None], 3: {"x": MAXVALUE}}, id="dict"),
    pytest.param({"@": "MAXVALUE"}, id="dict-that-looks-like-a-tag"),
    pytest.param(dt.datetime(2020, 5, 29, 10, 0), id="datetime"),
    pytest.param(dt.datetime(2020, 5, 29, 10, 0, 0, 1), id="datetime-us"),
    pytest.param(dt.datetime(2020, 5, 29, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=8))), id="datetime-tz"),
    pytest.param(dt.date(2020, 2, 29), id="date"),
    pytest.param(decimal.Decimal("-12.3400"), id="decimal"),
    pytest.param(("2017-01-01", None, MAXVALUE), id="partition-values"),
    pytest.param(samples.nested_type(), id="nested-type"),
    pytest.param(samples.create_table(), id="create-table-range"),
    pytest.param(samples.list_create_table(), id="create-table-list"),
    pytest.param(samples.table_meta(n_partitions=5), id="table-meta"),
    pytest.param(
        TableMeta(
            id=1,
            db="d",
            name="t",
            definition=samples.list_create_table(),
            partitions=(
                PartitionMeta(id=5, name="p", buckets=1, values=(("a", None), (None, None)), created_at=samples.T0),
            ),
            created_at=samples.T0,
            dynamic_state=DynamicState(),
        ),
        id="table-meta-list",
    ),
    pytest.param(BucketDecision("fixed", 3), id="bucket-decision"),
    pytest.param(
        DynamicState(last_scheduler_time=samples.T0, state="ERROR", last_drop_partition_msg="boom"), id="dynamic-state"
    ),
    pytest.param(
        ast.AlterTable(
            ast.TableName("t", "d"),
            (
                ast.AddPartition(ast.RangePartition("p9", (MAXVALUE,)), ast.DistributedBy("HASH", ("k",), 4)),
                ast.DropPartition("p1", if_exists=True),
                ast.SetProperties((("dynamic_partition.enable", "false"),)),
                ast.RenameTable("t2"),
                ast.RenamePartition("a", "b"),
            ),
        ),
        id="alter-table",
    ),
    pytest.param(
        ast.ShowPartitions(
            ast.TableName("t"),
            where=ast.BoolOp(
                "AND",
                (
                    ast.Comparison("PartitionName", "LIKE", ast.Literal("p%")),
                    ast.Comparison("Buckets", ">", ast.Literal("3", "number")),
                ),
            ),
            order_by=(ast.OrderItem("PartitionId", True),),
            limit=10,
        ),
        id="show-partitions",
    ),
    pytest.param(
        ast.Insert(ast.TableName("t"), rows=((ast.Literal("1", "number"), ast.Literal(None, "null")),)), id="insert"
    ),
]


@pytest.mark.parametrize("value", VALUES)
def test_round_trip_is_exact(value):
    text = encode(value)
    back = decode(text)
    assert back == value or value != value
    assert _types_equal(back, value), (value, back)
    assert encode(back) == text  # stable: re-encoding gives the same text
    json.loads(text)  # plain JSON


def test_maxvalue_singleton_survives():
    back = decode(encode(ast.RangePartition("p", (MAXVALUE,))))
    assert back.upper[0] is MAXVALUE


def test_fields_excluded_from_equality_are_kept():
    ct = samples.create_table()
    back = decode(encode(ct))
    assert back.pos == ast.Pos(3, 1) and back.text == "CREATE TABLE ..."


def test_plain_defaults_are_left_out_but_same_value_of_other_type_is_kept():
    doc = json.loads(encode(ast.DistributedBy("HASH", ("k",))))
    assert doc == {"@": "DistributedBy", "kind": "HASH", "columns": ["k"]}
    odd = ast.DistributedBy("HASH", ("k",), auto=0)  # 0 == False, but not the same value
    assert type(decode(encode(odd)).auto) is int


def test_factory_defaults_are_always_written():
    # created_at has a default_factory (now): it must never be re-invented on decode.
    p = PartitionMeta(id=1, name="p", buckets=1, created_at=dt.datetime(2001, 1, 1))
    assert "created_at" in json.loads(encode(p))
    assert decode(encode(p)).created_at == dt.datetime(2001, 1, 1)


def test_old_documents_read_with_defaults_for_new_fields():
    doc = '{"@":"PartitionMeta","id":7,"name":"p","buckets":2,"created_at":{"@":"datetime","v":"2020-01-01T00:00:00"}}'
    assert decode(doc) == PartitionMeta(id=7, name="p", buckets=2, created_at=dt.datetime(2020, 1, 1))


def test_a_retired_field_of_a_stored_document_is_read_and_ignored():
    """Tables created before TableMeta lost its `layout` field carry "layout": 2 (keyed by id)."""
    meta = samples.table_meta(n_partitions=2)
    doc = json.loads(encode(meta))
    assert "layout" not in doc
    doc["layout"] = 2
    assert decode(json.dumps(doc)) == meta
    with pytest.raises(CodecError, match="no field 'layout'"):
        decode('{"@":"PartitionMeta","id":7,"name":"p","buckets":2,"layout":2}')


def test_stable_across_processes():
    """Same value, same text, in a fresh interpreter with another hash seed."""
    value = samples.table_meta(n_partitions=4)
    script = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import catalog_samples as s\n"
        "from dorisql.catalog.codec import encode\n"
        "sys.stdout.write(encode(s.table_meta(n_partitions=4)))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert out.stdout == encode(value)


@pytest.mark.parametrize(
    "doc, message",
    [
        ('{"@":"Nope"}', "unknown type tag"),
        ('{"a":1}', "untagged"),
        ('{"@":"TableName","name":"t","colour":"red"}', "no field 'colour'"),
        ('{"@":"TableName"}', "missing field 'name'"),
        ('{"@":"datetime","v":"yesterday"}', "bad datetime"),
        ('{"@":"BoolOp","op":"AND"}', "missing field 'items'"),
        ("not json", "not a dorisql catalog document"),
    ],
)
def test_bad_documents_raise_codec_error(doc, message):
    with pytest.raises(CodecError, match=message):
        decode(doc)


def test_unencodable_values_raise():
    @dataclasses.dataclass(frozen=True)
    class Foreign:
        x: int

    with pytest.raises(CodecError, match="not registered"):
        encode(Foreign(1))
    with pytest.raises(CodecError, match="set"):
        encode({1, 2})
    with pytest.raises(CodecError, match="non-finite"):
        encode(float("nan"))


def test_register_custom_dataclass_and_tag_clash():
    @dataclasses.dataclass(frozen=True)
    class SchedulerState:
        last_run: dt.datetime
        pending: tuple[str, ...] = ()

    codec.register(SchedulerState, "TestSchedulerState")
    value = SchedulerState(dt.datetime(2020, 1, 1), ("a", "b"))
    assert decode(encode(value)) == value

    @dataclasses.dataclass(frozen=True)
    class Other:
        y: int

    with pytest.raises(CodecError, match="already used"):
        codec.register(Other, "TestSchedulerState")
    with pytest.raises(CodecError, match="reserved"):
        codec.register(Other, "list")


def test_every_model_dataclass_is_registered():
    for module in (ast,):
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                assert value in codec._BY_CLASS
    for cls in (TableMeta, PartitionMeta, BucketDecision, DynamicState):
        assert cls in codec._BY_CLASS
