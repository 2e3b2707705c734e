"""The golden conformance suite, run in Python: every line through the parser (the
reference verdicts; values exact, floats to the bit), the schemas (the JSON Schema
verdicts), `mark`, `dump_line` and `Pace`. The files need only a JSON parser; README.md
here says how other languages run them."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from golden_values import contract_only_fields, mark_json, same_json
from overbrainer_contract import Log, MetricLine, Pace, ParseError, dump_line, parse_line
from schema_registry import validator

HERE = Path(__file__).parent
MANIFEST = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Case:
    suite: str
    index: int
    line: str
    expect: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.suite}:{self.index + 1}"


def _suites() -> Iterator[tuple[dict[str, Any], list[str], dict[str, Any]]]:
    for suite in MANIFEST["suites"]:
        text = (HERE / suite["input"]).read_bytes().decode("utf-8")
        assert text.endswith("\n"), f"{suite['input']} must end with a newline"
        lines = text[:-1].split("\n")
        expect = json.loads((HERE / suite["expect"]).read_text(encoding="utf-8"))
        yield suite, lines, expect


CASES = [
    Case(suite["name"], index, line, entry)
    for suite, lines, expect in _suites()
    for index, (line, entry) in enumerate(zip(lines, expect["lines"], strict=True))
]
PACE_SUITES = [(suite, lines, expect) for suite, lines, expect in _suites() if "pace" in expect]


def test_manifest_and_expectations_follow_their_schemas() -> None:
    manifest_schema = json.loads((HERE / "manifest.schema.json").read_text(encoding="utf-8"))
    expect_schema = json.loads((HERE / "expect.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(manifest_schema)
    jsonschema.Draft202012Validator.check_schema(expect_schema)
    jsonschema.Draft202012Validator(manifest_schema).validate(MANIFEST)
    listed = set()
    for suite in MANIFEST["suites"]:
        expect = json.loads((HERE / suite["expect"]).read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(expect_schema).validate(expect)
        descriptions = [line["description"] for line in expect["lines"]]
        assert len(set(descriptions)) == len(descriptions), (
            f"{suite['name']}: duplicate descriptions"
        )
        listed |= {suite["input"], suite["expect"]}
    on_disk = {str(p.relative_to(HERE)) for p in (HERE / "cases").iterdir()}
    assert on_disk == listed, "every case file is listed in the manifest, and only those"


def test_every_rust_test_is_a_suite() -> None:
    rust = {s["origin"] for s in MANIFEST["suites"] if s["origin"].startswith("rust:")}
    assert rust == {
        "rust:the_pace_follows_the_training_logs_only",
        "rust:the_pace_has_no_eta_without_a_step_count",
        "rust:log_lines_parse_with_missing_values",
        "rust:begin_lines_parse",
        "rust:stage_eval_and_end_lines_parse_to_marks",
        "rust:other_lines_are_errors",
    }
    derived = [case for case in CASES if not case.suite.startswith("rust-")]
    assert len(derived) >= 60


CONTRACT_ONLY = contract_only_fields()  # `scalars`, `summary`: not in the reference's value


def as_value(line: MetricLine) -> dict[str, Any]:
    """A parsed line as the suite writes its `value`: the tag, then every field in
    declaration order, the stage by name."""
    value: dict[str, Any] = {"event": type(line).__struct_config__.tag}
    for name in msgspec.structs.fields(line):
        if name.name in CONTRACT_ONLY:
            continue
        field = getattr(line, name.name)
        value[name.name] = getattr(field, "value", field)  # a JobStage's name
    return value


def contract_scalars(line: MetricLine) -> dict[str, Any]:
    """The line's fields the reference does not know, as the reader gives them (set ones)."""
    return {
        name.name: getattr(line, name.name)
        for name in msgspec.structs.fields(line)
        if name.name in CONTRACT_ONLY and getattr(line, name.name) is not msgspec.UNSET
    }


def _expected_scalars(reference: dict[str, Any]) -> dict[str, Any]:
    """The expectation's `scalars` as `contract_scalars` gives it (the refused paths are
    what `check` says: the Rust runner and the run-level suite hold them)."""
    expected = reference.get("scalars")
    return {} if expected is None else {expected["field"]: expected["value"]}


def test_exactly_sees_one_bit() -> None:
    assert same_json({"a": 1.5, "b": 2}, {"a": 1.5, "b": 2})
    assert not same_json({"a": 1.5}, {"a": 1.5000000000000002})
    assert not same_json({"a": 0.0}, {"a": -0.0})
    assert not same_json({"a": 2}, {"a": 2.0})
    assert not same_json({"a": 1, "b": 2}, {"b": 2, "a": 1})


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_reference_verdict(case: Case) -> None:
    """The parser answers what the Rust reference answers: the verdict, the category, the
    value (floats to the bit), the dump and the mark."""
    reference = case.expect["reference"]
    for text in (case.line, case.line.encode("utf-8")):
        if reference["ok"]:
            line = parse_line(text)
            assert dump_line(line) == reference["dump"]
            assert same_json(as_value(line), reference["value"]), as_value(line)
            assert same_json(json.loads(dump_line(line)), reference["value"])
            assert mark_json(line) == reference["mark"]
            assert same_json(contract_scalars(line), _expected_scalars(reference))
            again = parse_line(dump_line(line))  # the canonical form reads back, to the bit
            assert same_json(as_value(again), reference["value"])
        else:
            with pytest.raises(ParseError) as caught:
                parse_line(text)
            assert caught.value.category == reference["category"], caught.value


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_schema_verdict(case: Case) -> None:
    """The JSON Schema answers what the fixture records for it."""
    expected = case.expect["schema"]
    try:
        value = json.loads(case.line, parse_constant=_reject)
    except ValueError:
        assert expected is None, "the line is not JSON: no schema verdict"
        return
    if expected is None:
        # JSON to Python's reader, but not interoperable: a number beyond f64
        assert _has_non_finite(value)
        return
    assert validator("metrics-line").is_valid(value) is expected


def _reject(literal: str) -> float:
    raise ValueError(f"{literal} is not JSON")


def _has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_non_finite(v) for v in value)
    return False


@pytest.mark.parametrize(
    ("lines", "expect"),
    [(lines, expect) for _, lines, expect in PACE_SUITES],
    ids=[suite["name"] for suite, _, _ in PACE_SUITES],
)
def test_pace(lines: list[str], expect: dict[str, Any]) -> None:
    """Pace after each line, fed with the log lines the reference accepts."""
    pace = Pace()
    for index, (text, state) in enumerate(zip(lines, expect["pace"], strict=True)):
        try:
            line = parse_line(text)
        except ParseError:
            line = None
        if isinstance(line, Log):
            pace.add(line)
        eta = pace.eta_duration()
        assert (pace.step, pace.max_steps) == (state["step"], state["max_steps"]), index + 1
        expected_eta = state["eta"]
        if expected_eta is None:
            assert eta is None, index + 1
            assert pace.eta_seconds() is None
            assert pace.eta() is None
        else:
            assert eta == (expected_eta["secs"], expected_eta["nanos"]), index + 1
            assert pace.eta_seconds() == expected_eta["secs"] + expected_eta["nanos"] / 1e9
