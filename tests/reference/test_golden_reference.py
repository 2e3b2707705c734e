"""The golden suite through the reference itself: every suite's input file answered by
the reference runner (`metrics.rs` built by cargo), compared with the suite's
expectations — verdict, category, value, `dump`, mark, and the pace after each line.

The expectations were reasoned from the reference; here the reference confirms them,
exactly: the value read back from the reference's dump is the suite's, floats to the bit.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from reference_runner import ROOT, answer_file

SUITE = ROOT / "tests" / "conformance"
MANIFEST = json.loads((SUITE / "manifest.json").read_text(encoding="utf-8"))
SUITES = MANIFEST["suites"]


def exactly(actual: Any, expected: Any) -> bool:
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
            and all(exactly(actual[key], expected[key]) for key in expected)
        )
    return bool(actual == expected) and type(actual) is type(expected)


def mismatches(answer: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """How the reference's answer to a line differs from its expectation (empty: none)."""
    wrong = []
    if answer["ok"] != expected["ok"]:
        return [
            f"verdict: reference ok={answer['ok']} ({answer.get('message')}), "
            f"suite ok={expected['ok']}"
        ]
    if not expected["ok"]:
        if answer["category"] != expected["category"]:
            wrong.append(
                f"category: reference {answer['category']} ({answer['message']}), "
                f"suite {expected['category']}"
            )
        return wrong
    if answer["dump"] != expected["dump"]:
        wrong.append(f"dump: reference {answer['dump']}, suite {expected['dump']}")
    if not exactly(json.loads(answer["dump"]), expected["value"]):
        wrong.append(f"value: reference {answer['dump']}, suite {expected['value']}")
    if answer["mark"] != expected["mark"]:
        wrong.append(f"mark: reference {answer['mark']}, suite {expected['mark']}")
    return wrong


@pytest.mark.parametrize("suite", SUITES, ids=[suite["name"] for suite in SUITES])
def test_the_reference_answers_what_the_suite_expects(suite: dict[str, Any], runner: Path) -> None:
    answers = answer_file(runner, SUITE / suite["input"])
    expect = json.loads((SUITE / suite["expect"]).read_text(encoding="utf-8"))
    assert len(answers) == len(expect["lines"]), "one answer per line of the input"
    wrong = []
    for number, (answer, entry) in enumerate(zip(answers, expect["lines"], strict=True), start=1):
        wrong += [
            f"line {number} ({entry['description']}): {problem}"
            for problem in mismatches(answer, entry["reference"])
        ]
        if "pace" in expect and answer["pace"] != expect["pace"][number - 1]:
            wrong.append(
                f"line {number}: pace: reference {answer['pace']}, "
                f"suite {expect['pace'][number - 1]}"
            )
    assert not wrong, "\n".join(wrong)


def test_exactly_sees_one_bit() -> None:
    assert exactly({"a": 1.5, "b": 2, "c": None}, {"a": 1.5, "b": 2, "c": None})
    assert not exactly({"a": 1.5}, {"a": 1.5000000000000002})
    assert not exactly({"a": 0.0}, {"a": -0.0})
    assert not exactly({"a": 2}, {"a": 2.0})


def test_every_suite_is_run() -> None:
    listed = {suite["input"] for suite in SUITES}
    on_disk = {f"cases/{path.name}" for path in (SUITE / "cases").glob("*.jsonl")}
    assert listed == on_disk
