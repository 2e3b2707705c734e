"""Options at their edges: `check --max-errors` past any count the checker can hold (no
bound, never an overflow), `status --metric ''` (the empty key is one a line may log: the
contract's scalars take any string as a key)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_status_metrics import write_run

HUGE = "99999999999999999999999"
"""More than 2**64: no file has as many findings of a kind."""


@pytest.fixture
def bad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bad.jsonl`, in the working folder: 30 lines that are not JSON, more than the 20
    shown by default."""
    (tmp_path / "bad.jsonl").write_bytes(b"not json\n" * 30)
    monkeypatch.chdir(tmp_path)


@pytest.mark.usefixtures("bad")
@pytest.mark.parametrize("count", [HUGE, str(2**64), "9" * 5000])
def test_a_count_past_any_file_is_no_bound(cli: Callable[..., Any], count: str) -> None:
    done = cli("check", "bad.jsonl", "--max-errors", count)
    assert done.code == 1, done.err
    lines = done.out.splitlines()
    assert len(lines) == 30 + 1  # every error, then the summary: none left unshown
    assert lines[-1].endswith("30 errors, 0 warnings (30 invalid lines)")
    done = cli("check", "bad.jsonl", "--max-errors", count, "-o", "json")
    assert [json.loads(line)["type"] for line in done.out.splitlines()] == ["finding"] * 30 + [
        "file"
    ]


@pytest.mark.usefixtures("bad")
def test_a_count_that_is_not_one_is_a_usage_error(
    cli: Callable[..., Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for count in ("ten", "1e3", "\uff11\uff12", "-" + HUGE):
        try:
            done = cli("check", "bad.jsonl", "--max-errors", count)
            code, said = done.code, done.err
        except SystemExit as exit_:  # argparse's usage error, raised before the command
            code, said = exit_.code, capsys.readouterr().err
        assert code == 2, count
        assert len(said.splitlines()) == 1
        assert "not a count" in said
        assert len(said) < 300  # the value said in part, not echoed whole
    done = cli("check", "bad.jsonl", "--max-errors", "-5")
    assert (done.code, done.out) == (2, "")
    assert done.err.endswith("--max-errors must be 0 (all) or more, not -5\n")


def test_the_empty_key_is_a_metric(
    tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_run(tmp_path / "sweep" / "a", [{"": 0.25}, {"": 0.75}, {"": 0.5}])
    write_run(tmp_path / "sweep" / "b", [{"x": 1.0}])
    done = cli("status", "sweep/a", "--metric", "", "--metric", ":max", "--now", "200")
    assert done.code == 0, done.err
    rows = {line[:12].strip(): line[12:].strip() for line in done.out.splitlines()}
    assert rows[""] == "0.5"  # the empty key's latest value
    assert rows[":max"] == "0.75 @2"  # its highest, at step 2
    done = cli("status", "sweep", "--metric", "", "--sort", ":min", "--now", "200", "-o", "json")
    assert done.code == 0, done.err
    assert [row["name"] for row in map(json.loads, done.out.splitlines())] == ["a", "b"]
    assert "no scalar" not in done.err
