"""The JSON path of a rejected line's value at fault is the core's, one rule for every
language: a key after a dot when it is an identifier by Unicode's XID properties in the
core's tables, else quoted. `json_paths.json` holds the cases, keys holding code points that
Python's and the JavaScript engine's Unicode versions class otherwise among them; the npm
package's test (`js/test/paths.mjs`) reads the same file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from overbrainer_contract import ParseError, parse_line, parse_lines
from overbrainer_contract.check.checker import Finding, check_stream

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "json_paths.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["what"] for case in CASES])
def test_parse_line_gives_the_core_s_path(case: dict[str, Any]) -> None:
    for line in (case["line"], case["line"].encode("utf-8")):
        with pytest.raises(ParseError) as raised:
            parse_line(line)
        assert raised.value.path == case["path"]


def test_parse_lines_gives_each_line_the_core_s_path() -> None:
    body = "".join(case["line"] + "\n" for case in CASES).encode("utf-8")
    answers = parse_lines(body)
    assert all(isinstance(answer, ParseError) for answer in answers)
    assert [getattr(answer, "path", None) for answer in answers] == [case["path"] for case in CASES]


def test_check_finds_each_line_at_the_core_s_path() -> None:
    body = "".join(case["line"] + "\n" for case in CASES).encode("utf-8")
    found: list[Finding] = []
    check_stream([body], "metrics.jsonl", found.append)
    assert [(finding.line, finding.path) for finding in found] == [
        (number, case["path"]) for number, case in enumerate(CASES, 1)
    ]
