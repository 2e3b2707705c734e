"""Capture two more real runs for the table example: `examples/sweep-lr*/`.

The same tiny random Llama as `make_example.py` (built locally, nothing downloaded),
trained by a real transformers Trainer with the plugin, twice: a high learning rate
and a low one, each with its own seed, 80 steps evaluating every 8. The job's stage lines
come from `overbrainer-contract stage`. Only `metrics.jsonl` is kept; with
`examples/tiny-run/` these are the three runs that `overbrainer-contract export`
turns into one table (docs/table.md).

Needs torch, transformers, tokenizers, accelerate and pytest (the plugin tests' environment):

    PYTHONPATH=python /tmp/plugin-venv/bin/python examples/make_sweep.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT / "python"),
    str(ROOT / "tests"),
    str(ROOT / "tests" / "plugin"),
]

from overbrainer_contract.cli import main as cli  # noqa: E402
from plugin_helpers import build_trainer, load_plugin, tiny_assets  # noqa: E402

MAX_STEPS, EVAL_STEPS = 80, 8
RUNS = {"sweep-lr3e-2-seed1": (3e-2, 1), "sweep-lr3e-4-seed2": (3e-4, 2)}
"""Each run's folder under examples/: (learning rate, seed)."""


def capture(work: Path, target: Path, learning_rate: float, seed: int) -> None:
    assets = tiny_assets(work / "assets")
    run = work / "run"
    run.mkdir()
    os.environ["OVERBRAINER_METRICS"] = str(run / "metrics.jsonl")
    os.environ["OVERBRAINER_SNAPSHOT"] = str(run / "snapshot.request")
    plugin = load_plugin()
    callbacks: list[Any] = list(
        plugin.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(cfg=None, model=None)
    )
    assert cli(["stage", "train"]) == 0
    trainer = build_trainer(
        *assets,
        run / "out",
        callbacks,
        max_steps=MAX_STEPS,
        eval_steps=EVAL_STEPS,
        learning_rate=learning_rate,
        seed=seed,
    )
    trainer.train()
    assert cli(["stage", "merge"]) == 0
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run / "metrics.jsonl", target / "metrics.jsonl")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "examples")
    args = parser.parse_args()
    for name, (learning_rate, seed) in RUNS.items():
        with tempfile.TemporaryDirectory() as tmp:
            capture(Path(tmp), (args.out / name).resolve(), learning_rate, seed)
        print(f"wrote {args.out / name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
