"""The golden suite through the reference itself: every suite's input file answered by
the reference runner (`metrics.rs` built by cargo), compared with the suite's
expectations — verdict, category, value, `dump`, mark, and the pace after each line.

The expectations were reasoned from the reference; here the reference confirms them,
exactly: the value read back from the reference's dump is the suite's, floats to the bit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from golden_values import same_json
from reference_runner import ROOT, answer_file

SUITE = ROOT / "tests" / "conformance"
MANIFEST = json.loads((SUITE / "manifest.json").read_text(encoding="utf-8"))
SUITES = MANIFEST["suites"]


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
    if not same_json(json.loads(answer["dump"]), expected["value"]):
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
    assert same_json({"a": 1.5, "b": 2, "c": None}, {"a": 1.5, "b": 2, "c": None})
    assert not same_json({"a": 1.5}, {"a": 1.5000000000000002})
    assert not same_json({"a": 0.0}, {"a": -0.0})
    assert not same_json({"a": 2}, {"a": 2.0})


def test_every_suite_is_run() -> None:
    listed = {suite["input"] for suite in SUITES}
    on_disk = {f"cases/{path.name}" for path in (SUITE / "cases").glob("*.jsonl")}
    assert listed == on_disk
