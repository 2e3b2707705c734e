"""The sweep the command line's tests share (`tests/sweep.py`) is what its docstring says:
checked through the console script, in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sweep import BAD, GZIPPED, RESUMED, SNAPSHOT, TRAINER_PYTHON_ENV, Sweep

SCRIPT = str(Path(sys.executable).with_name("overbrainer-contract"))


def test_the_sweep_has_forty_runs_nested_two_deep(sweep: Sweep) -> None:
    callback_runs = [run for run in sweep.runs.values() if not run.trainer]
    assert len(callback_runs) == 40
    assert all(run.name.count("/") == 1 for run in sweep.runs.values())
    assert {run.learning_rate for run in callback_runs} == {3e-2, 3e-4}
    trainer_runs = [run for run in sweep.runs.values() if run.trainer]
    assert (sweep.trainer_skipped is None) == (len(trainer_runs) == 2), sweep.trainer_skipped
    if os.environ.get(TRAINER_PYTHON_ENV):  # asked for (nox -s cli after the plugin session)
        assert len(trainer_runs) == 2, sweep.trainer_skipped


def test_every_line_the_callback_wrote_is_valid_but_the_spoiled_ones(sweep: Sweep) -> None:
    result = subprocess.run(
        [SCRIPT, "check", str(sweep.root), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )
    files = [json.loads(line) for line in result.stdout.splitlines()]
    metrics = {
        str(Path(item["file"]).parent.relative_to(sweep.root)): item
        for item in files
        if item["type"] == "file" and item["kind"] == "metrics"
    }
    assert set(metrics) == set(sweep.runs)
    for name, run in sweep.runs.items():
        assert metrics[name]["errors"] == run.invalid, name
        assert metrics[name]["warnings"] == int(run.cut), name
        assert metrics[name]["events"]["begin"] == run.begins, name
        assert metrics[name]["events"]["end"] == (1 if run.ended else 0), name
    assert sweep.runs[RESUMED].begins == 2
    assert all(sweep.runs[name].invalid for name in BAD)
    assert (sweep.root / GZIPPED / "metrics.jsonl.gz").exists()
    proof = json.loads((sweep.root / SNAPSHOT / "snapshot.json").read_text())
    assert proof["checkpoint"] == "out/checkpoint-50"
    assert proof["reason"] == "manual"
