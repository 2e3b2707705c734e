"""How the golden suite's values and marks compare, shared by every runner of the suite
(our parser, the reference runner, the differential fuzz): one definition of "the same"."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

from overbrainer_contract import mark

_LINE_SCHEMA = Path(__file__).resolve().parents[1] / "schema" / "metrics-line.schema.json"


def contract_only_fields() -> frozenset[str]:
    """The fields of a line the reference does not know (a log's `scalars`, an end's
    `summary`): those whose type the schema marks `"x-serde": {"skip": true}`. They are not
    in the reference's value of a line."""
    definitions = json.loads(_LINE_SCHEMA.read_text(encoding="utf-8"))["$defs"]
    found = set()
    for definition in definitions.values():
        for name, prop in definition.get("properties", {}).items():
            target = definitions.get(prop.get("$ref", "").removeprefix("#/$defs/"), {})
            if target.get("x-serde", {}).get("skip"):
                found.add(name)
    return frozenset(found)


def same_json(actual: Any, expected: Any) -> bool:
    """The same JSON value, exactly: floats to the bit (the sign of zero included) and
    only as floats, integers only as integers, keys in the same order."""
    if isinstance(expected, float) or isinstance(actual, float):
        return (
            type(actual) is float
            and type(expected) is float
            and struct.pack("<d", actual) == struct.pack("<d", expected)
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and list(actual) == list(expected)
            and all(same_json(actual[key], expected[key]) for key in expected)
        )
    return bool(actual == expected) and type(actual) is type(expected)


def mark_json(line: Any) -> dict[str, Any] | None:
    """`mark(line)` as the suite's expectation files write it."""
    found = mark(line)
    if found is None:
        return None
    if found.kind == "stage":
        return {"kind": "stage", "stage": found.stage.value}
    if found.kind == "eval":
        return {"kind": "eval", "step": found.step, "total": found.total}
    return {"kind": "end", "step": found.step}
