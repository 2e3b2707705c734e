"""The staleness rule is the contract's: `status` judges an ETA stale by `stale` in
`contract.json` (`steps` at the run's own pace, never under `floor_seconds`), which the core
is generated with (`core/codegen/reports.py`), not by numbers of its own.

A run at a steady pace is reported (`--now`) a second before and a second after the silence
the contract's rule allows it: at one step a second the floor decides, at ten seconds a step
the steps do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
STALE = json.loads((ROOT / "schema" / "contract.json").read_text(encoding="utf-8"))["stale"]
LAST = 1764467476.0
"""The `time` of the run's last line."""


def _run(folder: Path, step_seconds: float) -> None:
    """Steps 1 to 11 at `step_seconds` a step, the last at `LAST`."""
    folder.mkdir()
    first = LAST - 10 * step_seconds
    lines = [
        {"event": "begin", "time": first, "max_steps": 1000},
        {"event": "log", "time": first, "step": 1, "max_steps": 1000, "loss": 2.0},
        {"event": "log", "time": LAST, "step": 11, "max_steps": 1000, "loss": 1.5},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / "metrics.jsonl").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("step_seconds", [1.0, 10.0])
@pytest.mark.parametrize(("beyond", "expected"), [(-1.0, False), (1.0, True)])
def test_status_judges_staleness_by_the_contract(
    tmp_path: Path,
    cli: Callable[..., Any],
    step_seconds: float,
    beyond: float,
    expected: bool,
) -> None:
    _run(tmp_path / "run", step_seconds)
    allowed = max(STALE["steps"] * step_seconds, STALE["floor_seconds"])
    now = LAST + allowed + beyond
    done = cli("status", "-o", "json", str(tmp_path / "run"), "--now", repr(now))
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["eta_seconds"] is not None  # a pace: the steps take part
    assert report["eta_stale"] is expected
