"""How the golden suite's values and marks compare, shared by every runner of the suite
(our parser, the reference runner, the differential fuzz): one definition of "the same"."""

from __future__ import annotations

import math
from typing import Any

from overbrainer_contract import mark


def same_json(actual: Any, expected: Any) -> bool:
    """Equal as JSON values: floats to the bit (the sign of zero included), u64 exactly."""
    if isinstance(expected, float) or isinstance(actual, float):
        return (
            isinstance(actual, (int, float))
            and isinstance(expected, (int, float))
            and float(actual) == float(expected)
            and math.copysign(1, float(actual)) == math.copysign(1, float(expected))
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(same_json(actual[k], expected[k]) for k in expected)
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
