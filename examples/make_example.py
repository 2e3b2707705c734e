"""Capture `examples/tiny-run/`: a real run of the plugin in a real transformers Trainer.

A tiny random Llama (built locally, nothing downloaded) trains 60 steps on CPU, logging
every step and evaluating every 20 (slow prediction steps, so that each evaluation writes
progress lines). The job's stage lines come from `overbrainer-contract stage`. At step 25
`overbrainer-contract snapshot` asks for a snapshot: the plugin saves
`out/checkpoint-25`, stops, and writes `snapshot.json`; the request is then set aside and
the training resumes from the checkpoint to its end, appending to the same metrics file,
as an orchestrator does. Then a `merge` stage line, and `overbrainer-contract plot`.

Needs torch, transformers, tokenizers and accelerate (the plugin tests' environment); the
plot needs matplotlib, in this Python or the one given with --plot-python:

    PYTHONPATH=python /tmp/plugin-venv/bin/python examples/make_example.py \
        --plot-python .venv/bin/python

Only metrics.jsonl, snapshot.json and loss.png are kept (the checkpoint is not).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "tests" / "plugin")]

from overbrainer_contract.cli import main as cli  # noqa: E402
from plugin_helpers import build_trainer, load_plugin, slow_callback, tiny_assets  # noqa: E402

MAX_STEPS, EVAL_STEPS, SNAPSHOT_AT = 60, 20, 25


def slow_prediction(seconds: float) -> Any:
    from transformers import TrainerCallback

    class SlowPrediction(TrainerCallback):  # type: ignore[misc]
        def on_prediction_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
            time.sleep(seconds)

    return SlowPrediction()


def request_snapshot_at(run: Path, step: int) -> threading.Thread:
    """A thread that runs `overbrainer-contract snapshot RUN` once `step` is logged."""
    metrics = run / "metrics.jsonl"

    def watch() -> None:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if metrics.exists() and f'"step":{step},' in metrics.read_text():
                cli(["snapshot", str(run), "--reason", "mid-run"])
                return
            time.sleep(0.01)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def capture(work: Path, target: Path, plot_python: str) -> None:
    assets = tiny_assets(work / "assets")
    run = work / "run"
    run.mkdir()
    os.environ["OVERBRAINER_METRICS"] = str(run / "metrics.jsonl")
    os.environ["OVERBRAINER_SNAPSHOT"] = str(run / "snapshot.request")
    os.chdir(run)  # the plugin writes the checkpoint relative to the run folder
    plugin = load_plugin()

    def trainer() -> Any:
        callbacks = list(
            plugin.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(cfg=None, model=None)
        )
        callbacks += [slow_callback(0.05), slow_prediction(0.6)]
        return build_trainer(
            *assets, run / "out", callbacks, max_steps=MAX_STEPS, eval_steps=EVAL_STEPS
        )

    assert cli(["stage", "train"]) == 0
    requester = request_snapshot_at(run, SNAPSHOT_AT)
    first = trainer()
    first.train()
    requester.join(timeout=10)
    step = first.state.global_step
    print(f"stopped at step {step} on the snapshot request", file=sys.stderr)
    # As an orchestrator does before resuming: set the request aside (it would stop the
    # resumed run again), keep the proof.
    (run / "snapshot.request").rename(run / f"snapshot-{step}.request")
    trainer().train(resume_from_checkpoint=str(run / "out" / f"checkpoint-{step}"))
    assert cli(["stage", "merge"]) == 0

    target.mkdir(parents=True, exist_ok=True)
    for name in ("metrics.jsonl", "snapshot.json", "snapshot.request", "loss.png"):
        (target / name).unlink(missing_ok=True)
    shutil.copyfile(run / "metrics.jsonl", target / "metrics.jsonl")
    shutil.copyfile(run / "snapshot.json", target / "snapshot.json")
    subprocess.run(
        [
            plot_python,
            "-m",
            "overbrainer_contract",
            "plot",
            str(target),
            "-o",
            str(target / "loss.png"),
            "--title",
            "examples/tiny-run: a tiny Llama, 60 steps, a snapshot mid-run, resumed",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        check=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "examples" / "tiny-run")
    parser.add_argument("--plot-python", default=sys.executable, help="a Python with matplotlib")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plot_python = args.plot_python
        if os.sep in plot_python:  # the training changes folder: make it absolute
            plot_python = os.path.abspath(plot_python)
        capture(Path(tmp), args.out.resolve(), plot_python)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
