"""`status --now SECONDS`: the report made at a time given, not at the machine's clock."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_samples import VALID, make_run

LAST = 1764467476.0 + 10
"""The `time` of VALID's last line (its merge stage)."""


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    make_run(tmp_path / "a", VALID)
    make_run(tmp_path / "b", VALID)
    return tmp_path


@pytest.mark.usefixtures("runs")
def test_one_run_is_reported_at_the_time_given(cli: Callable[..., Any]) -> None:
    result = cli("status", "a", "-o", "json", "--now", "1764467600.5")
    assert result.code == 0
    document = json.loads(result.out)
    assert document["now"] == 1764467600.5
    assert document["last_line_seconds"] == 1764467600.5 - LAST


@pytest.mark.usefixtures("runs")
def test_many_runs_are_reported_at_the_time_given(cli: Callable[..., Any]) -> None:
    result = cli("status", "a", "b", "-o", "json", "--now", "1.7644676e9")
    assert result.code == 0
    rows = [json.loads(line) for line in result.out.splitlines()]
    assert [row["now"] for row in rows] == [1764467600.0, 1764467600.0]
    assert {row["last_line_seconds"] for row in rows} == {1764467600.0 - LAST}


@pytest.mark.usefixtures("runs")
def test_the_text_screen_is_told_at_the_time_given(cli: Callable[..., Any]) -> None:
    result = cli("status", "a", "--now", str(LAST + 3 * 3600))
    assert "last line      3 h ago\n" in result.out


@pytest.mark.usefixtures("runs")
@pytest.mark.parametrize("text", ["-1", "nan", "inf", "1e999", "soon", "٣"])
def test_a_time_that_is_not_one_is_a_usage_error(cli: Callable[..., Any], text: str) -> None:
    result = cli("status", "a", "--now", text)
    assert result.code == 2
    assert result.out == ""
    assert "argument --now: not a number of seconds" in result.err
