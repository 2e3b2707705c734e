"""The metrics line's variants and the kind of each field, read from the contract's schemas
(`schema/metrics-line.schema.json`, `schema/job-stage.schema.json`), for the fuzz's
strategies: each variant's fields in declaration order (the order of the reference's
array form and of its dump), with the Rust type the reference gives them.
"""

from __future__ import annotations

import json
from typing import Any

from reference_runner import ROOT

F64 = "f64"
OPT_F64 = "Option<f64>"
U64 = "u64"
OPT_U64 = "Option<u64>"
STAGE = "JobStage"

SCHEMA = ROOT / "schema"
_LINE = json.loads((SCHEMA / "metrics-line.schema.json").read_text(encoding="utf-8"))
_STAGE = json.loads((SCHEMA / "job-stage.schema.json").read_text(encoding="utf-8"))

TAG = _LINE["discriminator"]["propertyName"]
U64_MAX: int = _LINE["$defs"]["U64"]["maximum"]
STAGES: tuple[str, ...] = tuple(_STAGE["enum"])


def _kind(spec: dict[str, Any]) -> str:
    """The Rust type of a field from its schema (a `$ref`, a type, or one of them or null)."""
    ref = spec.get("$ref")
    if ref == "#/$defs/U64":
        return U64
    if ref == "#/$defs/UnixTime" or spec.get("type") == "number":
        return F64
    if ref == "job-stage.schema.json":
        return STAGE
    if "anyOf" in spec:
        inner = [option for option in spec["anyOf"] if option != {"type": "null"}]
        if len(inner) == 1 and len(spec["anyOf"]) == 2:
            kind = _kind(inner[0])
            if kind in (F64, U64):
                return f"Option<{kind}>"
    raise ValueError(f"a field of no known kind: {spec}")


def _unknown_to_the_reference(spec: dict[str, Any]) -> bool:
    """A field whose type the schema marks `"x-serde": {"skip": true}` (`scalars`, `summary`):
    the reference does not know it and ignores it, as any other unknown key."""
    target = _LINE["$defs"].get(spec.get("$ref", "").removeprefix("#/$defs/"), {})
    return bool(target.get("x-serde", {}).get("skip"))


EXTRAS: tuple[str, ...] = tuple(
    sorted(
        {
            name
            for definition in _LINE["$defs"].values()
            for name, spec in definition.get("properties", {}).items()
            if _unknown_to_the_reference(spec)
        }
    )
)
"""The fields the reference does not know: to the fuzz, keys like any other unknown one."""


def _variants() -> dict[str, tuple[tuple[str, str], ...]]:
    variants = {}
    for choice in _LINE["oneOf"]:
        definition = _LINE["$defs"][choice["$ref"].rsplit("/", 1)[1]]
        properties = definition["properties"]
        tag = properties[TAG]["const"]
        fields = tuple(
            (name, _kind(spec))
            for name, spec in properties.items()
            if name != TAG and not _unknown_to_the_reference(spec)
        )
        required = set(definition["required"]) - {TAG} - set(EXTRAS)
        for name, kind in fields:  # optional exactly when an Option (serde's default)
            assert (name in required) != kind.startswith("Option<"), (tag, name)
        variants[tag] = fields
    return variants


VARIANTS = _variants()
"""Each variant's tag and its fields (name, kind), in declaration order."""
