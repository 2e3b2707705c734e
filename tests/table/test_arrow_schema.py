"""The generated Arrow schema against the JSON Schema, field by field.

The test walks `metrics-line.schema.json` (its `$ref`s resolved by the registry the other
tests use) and the Arrow schema side by side, and asks both the same questions with real
values: which values a field takes (JSON Schema's validator against `pyarrow.array` of
the column's type), whether it may be null or absent, which strings a dictionary column
holds. It does not reuse the generator's code.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest
from golden_values import contract_only_fields
from overbrainer_contract.contract.models import Begin, End, Eval, Log, Stage
from overbrainer_contract.contract.schemas import load_schema
from overbrainer_contract.table import DICTIONARIES, EVENTS, SCHEMA, VARIANT_FIELDS
from schema_registry import registry, validator

U64_MAX = 2**64 - 1
TOP = load_schema("metrics-line")
RESOLVER = registry().resolver(base_uri=TOP["$id"])


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    resolver = RESOLVER
    while "$ref" in node:
        found = resolver.lookup(node["$ref"])
        node, resolver = found.contents, found.resolver
    return node


VARIANTS = [_resolved(member) for member in TOP["oneOf"]]
TAGS = [variant["properties"]["event"]["const"] for variant in VARIANTS]
SAMPLE: dict[str, Any] = {"time": 1.5, "step": 3, "name": "train"}
"""A valid value for each required field, to build a minimal valid line of a variant."""


def _minimal(variant: dict[str, Any]) -> dict[str, Any]:
    tag = variant["properties"]["event"]["const"]
    line = {"event": tag} | {f: SAMPLE[f] for f in variant["required"] if f != "event"}
    assert validator("metrics-line").is_valid(line), line
    return line


def _schema_takes(tag: str, name: str, value: Any) -> bool:
    variant = VARIANTS[TAGS.index(tag)]
    return bool(validator("metrics-line").is_valid(_minimal(variant) | {name: value}))


def _arrow_takes(name: str, value: Any) -> bool:
    kind = SCHEMA.field(name).type
    if isinstance(kind, pa.DictionaryType):
        return isinstance(value, str) and value in DICTIONARIES[name]
    try:
        back = pa.array([value], kind).to_pylist()[0]
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError):
        return False
    return bool(back == value)  # held as the same number (1.5 in a uint64 would be 1)


MAPS = contract_only_fields()
"""`scalars`, `summary`: maps of any keys, each key a column of its own (`wide_schema`)."""
FIELDS = sorted(
    {
        (tag, name)
        for tag, v in zip(TAGS, VARIANTS, strict=True)
        for name in v["properties"]
        if name not in MAPS
    }
)
PROBES = [
    0,
    1,
    U64_MAX,
    U64_MAX + 1,
    -1,
    1.5,
    -0.0,
    1e308,
    "train",
    "compare",
    "fit",
    "log",
    True,
    [],
    {},
]


def test_columns_are_run_line_and_every_field_of_every_variant() -> None:
    fields = {name for variant in VARIANTS for name in variant["properties"]} - MAPS
    assert SCHEMA.names[:2] == ["run", "line"]
    assert set(SCHEMA.names[2:]) == fields
    assert len(SCHEMA.names) == len(set(SCHEMA.names))
    assert SCHEMA.field("run").type == pa.dictionary(pa.int32(), pa.string())
    assert SCHEMA.field("line").type == pa.uint64()
    assert not SCHEMA.field("run").nullable
    assert not SCHEMA.field("line").nullable


@pytest.mark.parametrize(("tag", "name"), FIELDS, ids=[f"{t}.{n}" for t, n in FIELDS])
def test_a_field_takes_in_arrow_the_values_the_schema_takes(tag: str, name: str) -> None:
    """Every probe the JSON Schema takes for the field, its column takes, and the other
    way round: u64 bounds, integers against floats, strings of an enum."""
    if name == "event":
        assert _resolved(VARIANTS[TAGS.index(tag)]["properties"]["event"]) == {"const": tag}
        assert _arrow_takes(name, tag)
        assert not _arrow_takes(name, tag.upper())
        return
    for value in PROBES:
        if isinstance(value, bool | list | dict):
            assert not _schema_takes(tag, name, value), value
            continue
        if SCHEMA.field(name).type == pa.float64() and isinstance(value, int):
            # JSON Schema's number takes integers; the reference reads them as f64,
            # and so does the column (a float64 array takes a Python int).
            assert _schema_takes(tag, name, value)
            assert _arrow_takes(name, float(value))
            continue
        assert _schema_takes(tag, name, value) == _arrow_takes(name, value), value


@pytest.mark.parametrize("name", SCHEMA.names[2:])
def test_a_column_is_nullable_exactly_when_some_line_has_no_value(name: str) -> None:
    """Non-null only where every variant has the field, required and never null."""
    may_lack = False
    for tag, variant in zip(TAGS, VARIANTS, strict=True):
        if name not in variant["properties"]:
            may_lack = True
            continue
        minimal = _minimal(variant)
        without = {k: v for k, v in minimal.items() if k != name}
        if name != "event" and (
            validator("metrics-line").is_valid(without) or _schema_takes(tag, name, None)
        ):
            may_lack = True
    assert SCHEMA.field(name).nullable == may_lack


@pytest.mark.parametrize("name", SCHEMA.names[2:])
def test_metadata_names_the_variants_of_a_column_and_its_description(name: str) -> None:
    field = SCHEMA.field(name)
    metadata = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
    carriers = [
        tag for tag, variant in zip(TAGS, VARIANTS, strict=True) if name in variant["properties"]
    ]
    assert metadata["events"].split() == carriers
    assert metadata["origin"] == "metrics-line.schema.json"
    for tag, variant in zip(TAGS, VARIANTS, strict=True):
        node = variant["properties"].get(name, {})
        text = node.get("description") or _resolved(node).get("description")
        if text:
            assert text in metadata["description"], (tag, name)


def test_dictionaries_hold_the_schemas_strings_in_order() -> None:
    assert list(EVENTS) == TAGS
    assert DICTIONARIES["event"] == EVENTS
    stage = load_schema("job-stage")
    assert list(DICTIONARIES["name"]) == stage["enum"]
    assert {
        name for name in SCHEMA.names if isinstance(SCHEMA.field(name).type, pa.DictionaryType)
    } == {
        "run",
        "event",
        "name",
    }


def test_each_variants_fields_are_the_models_and_the_schemas() -> None:
    for model in (Begin, Log, Stage, Eval, End):
        tag = model.__struct_config__.tag
        assert isinstance(tag, str)
        variant = VARIANTS[TAGS.index(tag)]
        expected = tuple(name for name in variant["properties"] if name != "event")
        assert model.__struct_fields__ == expected
        assert VARIANT_FIELDS[tag] == tuple(name for name in expected if name not in MAPS)


def test_the_schema_survives_parquet_and_ipc(tmp_path: Any) -> None:
    """What a reader of the files sees: the same types, nullability and descriptions."""
    import pyarrow.parquet as pq

    empty = SCHEMA.empty_table()
    pq.write_table(empty, tmp_path / "t.parquet")
    assert pq.read_schema(tmp_path / "t.parquet").equals(SCHEMA, check_metadata=True)
    with pa.OSFile(str(tmp_path / "t.arrow"), "wb") as sink, pa.ipc.new_file(sink, SCHEMA):
        pass
    assert pa.ipc.open_file(str(tmp_path / "t.arrow")).schema.equals(SCHEMA, check_metadata=True)
    json.dumps([field.name for field in SCHEMA])  # plain names: no escaping needed anywhere
