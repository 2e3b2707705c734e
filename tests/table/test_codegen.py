"""The Arrow schema's generator refuses what it cannot map, rather than guessing a type.

Each case changes one thing in a copy of `schema/` and expects the generator to stop with
the field named; the unchanged copy generates exactly the committed module (what the
`generated` session also checks)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tools.codegen import arrow as codegen

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "python" / "overbrainer_contract" / "_models" / "metrics_line_arrow.py"


@pytest.fixture
def schema_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "schema"
    shutil.copytree(ROOT / "schema", folder)
    return folder


def _edit(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = folder / codegen.SOURCE
    schema = json.loads(path.read_text(encoding="utf-8"))
    change(schema)
    path.write_text(json.dumps(schema), encoding="utf-8")


def test_the_unchanged_schema_generates_the_committed_module(schema_copy: Path) -> None:
    assert codegen.render(schema_copy) == COMMITTED.read_text(encoding="utf-8")


def _signed_step(schema: dict[str, Any]) -> None:
    schema["$defs"]["End"]["properties"]["step"] = {"type": "integer"}


def _string_total(schema: dict[str, Any]) -> None:
    schema["$defs"]["Eval"]["properties"]["total"] = {"type": "string"}


def _object_field(schema: dict[str, Any]) -> None:
    schema["$defs"]["Log"]["properties"]["extra"] = {"type": "object"}


def _two_types(schema: dict[str, Any]) -> None:
    loss = {"anyOf": [{"type": "number"}, {"$ref": "#/$defs/U64"}, {"type": "null"}]}
    schema["$defs"]["Log"]["properties"]["loss"] = loss


def _float_step_in_one_variant(schema: dict[str, Any]) -> None:
    schema["$defs"]["Eval"]["properties"]["step"] = {"type": "number"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_signed_step, "End.step: only u64 integers"),
        (_string_total, "Eval.total: no Arrow column type"),
        (_object_field, "Log.extra: no Arrow column type"),
        (_two_types, "Log.loss: anyOf of several types"),
        (_float_step_in_one_variant, "step: pa.float64(), but pa.uint64() in another variant"),
    ],
)
def test_a_field_it_cannot_map_stops_the_generator(
    schema_copy: Path, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    _edit(schema_copy, change)
    with pytest.raises(SystemExit) as stopped:
        codegen.render(schema_copy)
    assert message in str(stopped.value)


def test_the_command_writes_the_module(schema_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "metrics_line_arrow.py"
    assert codegen.main([str(schema_copy), str(out)]) == 0
    assert out.read_text(encoding="utf-8") == COMMITTED.read_text(encoding="utf-8")
    assert codegen.main([]) == 2
