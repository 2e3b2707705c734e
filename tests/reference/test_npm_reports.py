"""The npm package's run-level records held to the command line's: `check(bytes)` gives the
records `check -o json -` writes for the same bytes, and `status(bytes, {now})` the object
`status -o json --now NOW -` writes, field for field — on the examples, the run-level
golden suite's metrics files and hypothesis-made runs. Both are faces of one core: a
difference is a face writing something of its own.

The package is built by `tests/reference/js_answerer.py` (unless a session did already).
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from js_answerer import JsAnswerer, build
from overbrainer_contract.cli import main

ROOT = Path(__file__).resolve().parents[2]
NOW = 1764460000.0

FILES = sorted(
    [
        *(ROOT / "examples").glob("*/metrics.jsonl"),
        *(ROOT / "tests" / "conformance" / "runs").glob("*/run/metrics.jsonl*"),
    ]
)


@pytest.fixture(scope="module")
def answerer() -> Iterator[JsAnswerer]:
    build()
    running = JsAnswerer()
    yield running
    running.close()


def _cli(args: list[str], data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """What the command writes on standard output for `data` on its standard input."""
    out = io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    with monkeypatch.context() as patched:
        patched.setattr(sys, "stdin", stdin)
        patched.setattr(sys, "stdout", out)
        patched.setattr(sys, "stderr", io.StringIO())
        code = main(args)
    return code, out.getvalue()


def same(got: Any, expected: Any) -> bool:
    """JSON values equal as values: numbers as doubles, never a boolean as a number."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return got is expected
    if isinstance(expected, int) and isinstance(got, int):
        return got == expected  # exact: a count beyond 2^53 too
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return float(got) == float(expected) or (math.isnan(got) and math.isnan(expected))
    if isinstance(expected, dict) and isinstance(got, dict):
        return got.keys() == expected.keys() and all(same(got[k], expected[k]) for k in got)
    if isinstance(expected, list) and isinstance(got, list):
        return len(got) == len(expected) and all(map(same, got, expected))
    return bool(got == expected)


def faces_agree(data: bytes, answerer: JsAnswerer, monkeypatch: pytest.MonkeyPatch) -> None:
    npm = answerer.run(data, NOW)
    _, checked = _cli(["check", "-o", "json", "-"], data, monkeypatch)
    records = [json.loads(line) for line in checked.splitlines()]
    assert same(npm["check"], records), (npm["check"], records)
    code, told = _cli(["status", "-o", "json", "--now", repr(NOW), "-"], data, monkeypatch)
    if "refused" in npm["status"]:
        assert told == "", (npm["status"], told)
        assert code != 0
    else:
        assert same(npm["status"], json.loads(told)), (npm["status"], told)


def test_the_files_are_there() -> None:
    assert len(FILES) >= 23


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_each_file_is_reported_alike(
    path: Path, answerer: JsAnswerer, monkeypatch: pytest.MonkeyPatch
) -> None:
    faces_agree(path.read_bytes(), answerer, monkeypatch)


def test_a_difference_is_seen() -> None:
    record = {"type": "finding", "line": 2, "column": 27, "message": "EOF", "valid": False}
    assert same(record, dict(record, column=27.0))
    for key, value in [("column", 28), ("message", "EOF "), ("valid", 0), ("line", None)]:
        assert not same(record, dict(record, **{key: value})), key
    assert not same([record], [record, record])
    assert not same({"step": 2**64 - 1}, {"step": 2**64 - 2})


T = 1764460000.0
LINES = st.one_of(
    st.builds(
        lambda step, loss, dt: (
            f'{{"event":"log","time":{T + dt},"step":{step},"epoch":0.5,"max_steps":40,'
            f'"loss":{loss},"eval_loss":null,"learning_rate":0.0001,"grad_norm":1.0}}'
        ),
        st.one_of(st.integers(0, 50), st.integers(2**53, 2**64 - 1)),
        st.floats(0, 10, allow_nan=False),
        st.floats(-100, 3000, allow_nan=False),
    ),
    st.builds(lambda dt: f'{{"event":"begin","time":{T + dt},"max_steps":40}}', st.floats(0, 9)),
    st.builds(
        lambda dt, step: f'{{"event":"eval","time":{T + dt},"step":{step},"total":9}}',
        st.floats(0, 900),
        st.integers(0, 9),
    ),
    st.builds(lambda dt: f'{{"event":"end","time":{T + dt},"step":40}}', st.floats(0, 900)),
    st.sampled_from(
        [
            '{"event":"stage","name":"train","time":1764460000}',
            '{"event":"log","time":1,"step":1,"loss":NaN}',
            '{"event":"log","time":1,"st',
            "",
            "\ufeff{}",
            "not json",
            '{"event":"eval","time":1,"step":1,"step":2}',
        ]
    ),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(LINES, max_size=14),
    newline=st.sampled_from(["\n", "\r\n"]),
    last=st.booleans(),
)
def test_any_run_is_reported_alike(
    lines: list[str],
    newline: str,
    last: bool,
    answerer: JsAnswerer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = newline.join(lines).encode() + (newline.encode() if last and lines else b"")
    faces_agree(data, answerer, monkeypatch)
