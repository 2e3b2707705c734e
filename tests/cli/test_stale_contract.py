"""The staleness rule is the contract's: `status` judges an ETA stale by `stale` in
`contract.json` (`steps` at the run's own pace, never under `floor_seconds`), read where
the package finds its schemas, not by numbers of its own.

The package is copied with a `schema/` of its own beside it (where an installed package
keeps its schemas) holding a `contract.json` whose rule differs, and `status -o json` runs
in a child, under a timeout and a memory cap, on a real run silent for 60 s at one step a
second: the contract's own rule (50 steps, 120 s) keeps its ETA; 40 steps (40 s) make it
stale; a floor of 90 s keeps it, whatever the steps.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import overbrainer_contract
import pytest
from hostile import capped_cli

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(overbrainer_contract.__file__).parent
MEMORY = 1 << 30


def _run(folder: Path) -> None:
    """A run at one step a second (steps 1 to 11 over 10 s), its last line 60 s ago."""
    folder.mkdir()
    last = time.time() - 60.0
    lines = [
        {"event": "begin", "time": last - 10.0, "max_steps": 1000},
        {"event": "log", "time": last - 10.0, "step": 1, "max_steps": 1000, "loss": 2.0},
        {"event": "log", "time": last, "step": 11, "max_steps": 1000, "loss": 1.5},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / "metrics.jsonl").write_text(text, encoding="utf-8")


def _package(tmp_path: Path, stale: dict[str, float] | None) -> dict[str, str]:
    """The environment of a child that imports a copy of the package whose schemas hold
    `stale` (the repository's own contract.json when None)."""
    home = tmp_path / "site"
    copy = home / PACKAGE.name
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    # the repository's schemas, over those an installed wheel holds inside the package
    shutil.copytree(ROOT / "schema", copy / "schema", dirs_exist_ok=True)
    if stale is not None:
        contract = json.loads((copy / "schema" / "contract.json").read_text(encoding="utf-8"))
        contract["stale"] = stale
        (copy / "schema" / "contract.json").write_text(json.dumps(contract), encoding="utf-8")
    return {**os.environ, "PYTHONPATH": str(home), "NO_COLOR": "1"}


@pytest.mark.parametrize(
    ("stale", "expected"),
    [
        (None, False),  # max(50 x 1 s, 120 s) = 120 s > 60 s
        ({"steps": 40, "floor_seconds": 10}, True),  # max(40 s, 10 s) = 40 s < 60 s
        ({"steps": 5, "floor_seconds": 90}, False),  # max(5 s, 90 s) = 90 s > 60 s
    ],
)
def test_status_judges_staleness_by_the_contract(
    tmp_path: Path, stale: dict[str, float] | None, expected: bool
) -> None:
    _run(tmp_path / "run")
    env = _package(tmp_path, stale)
    done = capped_cli(
        "status", "-o", "json", "run", cwd=tmp_path, memory=MEMORY, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["eta_seconds"] is not None  # a pace: the steps take part
    assert report["eta_stale"] is expected
