"""JSON encoding of the statement model and the catalog model.

`encode(x)` turns any value built from the frozen dataclasses of `dorisql.ast` and
`dorisql.catalog.model` (and tuples, lists, dicts, str, int, float, bool, None, datetimes, dates,
Decimals and the MAXVALUE singleton) into JSON text; `decode(text)` gives it back, equal and of
the same types: `decode(encode(x)) == x` and `type(decode(encode(x))) is type(x)`.

The format is generic, driven by `dataclasses.fields` and type tags, never by the parser:

- a dataclass is an object `{"@": "<ClassName>", "<field>": <value>, ...}`; fields whose value is
  their plain default are left out (so documents stay small and a field added later with a default
  reads old documents); fields with a `default_factory` are always written; a field a class no
  longer has is read and ignored when `RETIRED_FIELDS` names it, refused otherwise;
- a tuple is a JSON array; a list is `{"@": "list", "v": [...]}`; a dict is
  `{"@": "dict", "v": [[key, value], ...]}` (keys may be any encodable value);
- datetime / date / Decimal are `{"@": "datetime", "v": "<isoformat>"}` (likewise "date",
  "decimal"); MAXVALUE is `{"@": "MAXVALUE"}`;
- JSON objects never appear untagged, so decoding is unambiguous.

Only registered classes are ever built on decode (all dataclasses of the two model modules, plus
whatever `register` adds), so a catalog document cannot instantiate arbitrary classes. Output is
stable: the same value always encodes to the same text (field order is declaration order).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import gc
import json
import math
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

from dorisql import ast
from dorisql.bucketing.auto_buckets import BucketDecision
from dorisql.catalog import model

TAG = "@"

__all__ = ["CodecError", "encode", "decode", "decode_all", "to_jsonable", "from_jsonable", "register"]


class CodecError(ValueError):
    """A value cannot be encoded, or a document is not a valid encoding."""


# --------------------------------------------------------------------------- registry


class _ClassPlan:
    """How to write and rebuild one dataclass: its init fields and their plain defaults."""

    __slots__ = ("cls", "name", "fields", "names", "required", "defaults", "fast")

    def __init__(self, cls: type, name: str):
        self.cls = cls
        self.name = name
        plan = []
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            has_default = f.default is not dataclasses.MISSING
            plan.append((f.name, has_default, f.default if has_default else None))
        self.fields = tuple(plan)
        self.names = frozenset(f[0] for f in plan)
        # Fields a document must carry: no plain default (factory defaults are always written).
        self.required = frozenset(name for name, has_default, _ in plan if not has_default)
        self.defaults = {name: default for name, has_default, default in plan if has_default}
        params = getattr(cls, "__dataclass_params__", None)
        init = vars(cls).get("__init__")
        self.fast = (
            params is not None
            and params.frozen
            and all(f.init for f in dataclasses.fields(cls))
            and not hasattr(cls, "__post_init__")
            and "__slots__" not in vars(cls)
            # the dataclass-generated __init__ (compiled from a string), not a hand-written one
            and init is not None
            and getattr(getattr(init, "__code__", None), "co_filename", "") == "<string>"
        )


#: Fields a class no longer has that catalog documents written before may still carry: dropped
#: on decode. TableMeta.layout: the storage layout, the same for every table since folders and
#: partition values are keyed by id (TableMeta's docstring).
RETIRED_FIELDS: dict[str, frozenset[str]] = {"TableMeta": frozenset({"layout"})}

_BY_NAME: dict[str, _ClassPlan] = {}
_BY_CLASS: dict[type, _ClassPlan] = {}
_RESERVED = {"list", "dict", "datetime", "date", "decimal", "MAXVALUE"}
#: tag -> function rebuilding the value from its JSON object (filled lazily for dataclasses)
_BUILDERS: dict[str, Callable[[dict], Any]] = {}


def register(cls: type, name: str | None = None) -> type:
    """Allow a dataclass to be encoded and decoded (usable as a class decorator).

    `name` is its tag in documents (default: the class name); it must stay stable across releases.
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a dataclass")
    name = name or cls.__name__
    existing = _BY_NAME.get(name)
    if existing is not None and existing.cls is not cls:
        raise CodecError(f"codec tag {name!r} is already used by {existing.cls.__module__}.{existing.cls.__qualname__}")
    if name in _RESERVED:
        raise CodecError(f"codec tag {name!r} is reserved")
    plan = _ClassPlan(cls, name)
    _BUILDERS.pop(name, None)
    _BY_NAME[name] = plan
    _BY_CLASS[cls] = plan
    return cls


def _register_module(module: ModuleType) -> None:
    for value in vars(module).values():
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
            register(value)


_register_module(ast)
_register_module(model)
register(BucketDecision)  # a field of PartitionMeta, defined in dorisql.bucketing


# --------------------------------------------------------------------------- encode


def _same_default(value: Any, default: Any) -> bool:
    # `1 == True` and `1.0 == 1`: only leave a field out when it is the default of the same type.
    return value is default or (type(value) is type(default) and value == default)


def to_jsonable(value: Any) -> Any:
    """The JSON-ready structure (dicts, lists, str, numbers, None) for `value`."""
    if value is None or value is True or value is False or type(value) is str:
        return value
    t = type(value)
    if t is int:
        return value
    if t is float:
        if not math.isfinite(value):
            raise CodecError(f"cannot encode non-finite float {value!r}")
        return value
    if t is tuple:
        return [to_jsonable(v) for v in value]
    plan = _BY_CLASS.get(t)
    if plan is not None:
        out: dict[str, Any] = {TAG: plan.name}
        for name, has_default, default in plan.fields:
            v = getattr(value, name)
            if has_default and _same_default(v, default):
                continue
            out[name] = to_jsonable(v)
        return out
    if value is ast.MAXVALUE:
        return {TAG: "MAXVALUE"}
    if t is dt.datetime:
        return {TAG: "datetime", "v": value.isoformat()}
    if t is dt.date:
        return {TAG: "date", "v": value.isoformat()}
    if t is decimal.Decimal:
        return {TAG: "decimal", "v": str(value)}
    if t is list:
        return {TAG: "list", "v": [to_jsonable(v) for v in value]}
    if t is dict:
        return {TAG: "dict", "v": [[to_jsonable(k), to_jsonable(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value):
        raise CodecError(f"{t.__module__}.{t.__qualname__} is not registered with dorisql.catalog.codec")
    raise CodecError(f"cannot encode a value of type {t.__module__}.{t.__qualname__}: {value!r}")


def encode(value: Any) -> str:
    """JSON text for `value` (compact, deterministic, UTF-8 friendly)."""
    return json.dumps(to_jsonable(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# --------------------------------------------------------------------------- decode


class _ListBox:
    """A decoded ``{"@": "list"}`` on its way up: keeps it from being turned into a tuple."""

    __slots__ = ("items",)

    def __init__(self, items: list):
        self.items = items


def _tuples(value: Any) -> Any:
    # JSON arrays are tuples; tagged objects inside were already rebuilt by the object hook.
    t = type(value)
    if t is list:
        for v in value:
            tv = type(v)
            if tv is list or tv is _ListBox:
                return tuple([_tuples(x) for x in value])
        return tuple(value)
    if t is _ListBox:
        return value.items
    return value


def _dataclass_builder(plan: _ClassPlan) -> Callable[[dict], Any]:
    """The object-hook step that rebuilds one dataclass from its (tag-stripped) JSON object."""
    cls, names, required, defaults, name = plan.cls, plan.names, plan.required, plan.defaults, plan.name
    new = object.__new__

    def check(d: dict) -> None:
        if not names.issuperset(d):
            unknown = sorted(set(d) - names)
            raise CodecError(f"{name} has no field {unknown[0]!r} (a document from a newer dorisql?)")
        if not required.issubset(d):
            missing = sorted(required - set(d))
            raise CodecError(f"cannot rebuild {name}: missing field {missing[0]!r}")

    def build(d: dict) -> Any:
        del d[TAG]
        if not names.issuperset(d) or not required.issubset(d):
            check(d)
        for key, value in d.items():
            t = type(value)
            if t is list or t is _ListBox:
                d[key] = _tuples(value)
        if plan.fast:
            # Frozen dataclass without __post_init__: fill the instance dict directly, which is what
            # the generated __init__ does, minus one object.__setattr__ call per field.
            obj: object = new(cls)
            state = obj.__dict__
            state.update(defaults)
            state.update(d)
            return obj
        try:
            return cls(**d)
        except TypeError as exc:
            raise CodecError(f"cannot rebuild {name}: {exc}") from None

    retired = RETIRED_FIELDS.get(name)
    if retired is None:
        return build

    def build_without_retired(d: dict) -> Any:
        for key in retired.intersection(d):
            del d[key]
        return build(d)

    return build_without_retired


def _iso(kind: str, parse: Callable[[str], Any]) -> Callable[[dict], Any]:
    def build(d: dict) -> Any:
        v: Any = d.get("v")  # any JSON value: parse turns down (TypeError, ValueError) what it cannot read
        try:
            return parse(v)
        except (TypeError, ValueError, decimal.InvalidOperation) as exc:
            raise CodecError(f"bad {kind} value {v!r}: {exc}") from None

    return build


def _build_list(d: dict) -> Any:
    v = d.get("v")
    if type(v) is not list:
        raise CodecError(f"bad list value {v!r}")
    return _ListBox([_tuples(x) for x in v])


def _build_dict(d: dict) -> Any:
    try:
        return {_tuples(k): _tuples(x) for k, x in d["v"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise CodecError(f"bad dict value {d.get('v')!r}: {exc}") from None


_SPECIAL_BUILDERS: dict[str, Callable[[dict], Any]] = {
    "MAXVALUE": lambda d: ast.MAXVALUE,
    "datetime": _iso("datetime", dt.datetime.fromisoformat),
    "date": _iso("date", dt.date.fromisoformat),
    "decimal": _iso("decimal", decimal.Decimal),
    "list": _build_list,
    "dict": _build_dict,
}


def _builder(tag: Any) -> Callable[[dict], Any]:
    build = _BUILDERS.get(tag)
    if build is None:
        plan = _BY_NAME.get(tag) if isinstance(tag, str) else None
        if plan is None:
            raise CodecError(f"unknown type tag {tag!r}")
        build = _BUILDERS[tag] = _dataclass_builder(plan)
    return build


def _object_hook(d: dict) -> Any:
    tag = d.get(TAG)
    if tag is None:
        raise CodecError(f"untagged JSON object {d!r}")
    build = _BUILDERS.get(tag)
    if build is None:
        build = _builder(tag)
    return build(d)


_BUILDERS.update(_SPECIAL_BUILDERS)
_decoder = json.JSONDecoder(object_hook=_object_hook)


def decode(text: str | bytes) -> Any:
    """The value that `encode` wrote as `text`."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    try:
        return _tuples(_decoder.decode(text))
    except json.JSONDecodeError as exc:
        raise CodecError(f"not a dorisql catalog document: {exc}") from None


def decode_all(texts: Iterable[str | bytes]) -> list[Any]:
    """`decode` each text, with the cyclic garbage collector paused meanwhile.

    Decoding builds many small containers and no cycles; with the collector running, large
    batches (the scheduler reading every table's metadata) spend about a third of their time in
    pointless collections.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return [decode(t) for t in texts]
    finally:
        if was_enabled:
            gc.enable()


def from_jsonable(value: Any) -> Any:
    """Inverse of `to_jsonable` (for structures already parsed by a JSON library)."""
    return decode(json.dumps(value))
