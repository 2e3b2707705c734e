"""Capture `examples/scalars-lr1e-3-seed*.jsonl`: three real runs whose lines hold scalars.

The same tiny random Llama as `make_example.py` (built locally, nothing downloaded),
trained by a real transformers Trainer with the plugin, at one learning rate (1e-3) with
three seeds: 40 steps, a training log every 2, an evaluation every 10 whose
`compute_metrics` gives a next-token accuracy (`eval_accuracy` in the evaluation lines'
`scalars`). A callback ahead of the plugin adds to each training log what TRL's DPO
trainer logs: `rewards/chosen`, `rewards/rejected` and `rewards/margins`, drawn from the
step and the seed; `rewards/rejected` is None at steps 6, 16, 26 and 36 (`null` in the
line), and seed 2's `rewards/margins` is NaN at step 24 (`"NaN"`). The `end` line's
`summary` holds the training's one-shot values (`train_runtime`, `train_loss`...).

Then `overbrainer-contract plot` draws the three runs as one group, mean and band:

    overbrainer-contract plot examples/scalars-lr1e-3-seed*.jsonl \\
        --metric 'eval_accuracy,rewards/*' --group 'lr[^-]*-[^-]*' -o examples/scalars-rewards.png

(`--group 'lr[^-]*-[^-]*'` takes `lr1e-3` from each name: one group of three runs.) The
runs are metrics files of their own, not run folders, so that the commands and pages that
read all of `examples/` as runs keep to the three runs they show.

Needs torch, transformers, tokenizers and accelerate (the plugin tests' environment); the
plot needs matplotlib, in this Python or the one given with --plot-python:

    PYTHONPATH=python /tmp/plugin-venv/bin/python examples/make_scalars.py
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import subprocess
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

from plugin_helpers import build_trainer, load_plugin, tiny_assets  # noqa: E402

MAX_STEPS, EVAL_STEPS, LOGGING_STEPS, LEARNING_RATE = 40, 10, 2, 1e-3
SEEDS = (1, 2, 3)
NO_REJECTED = {6, 16, 26, 36}
"""Steps whose `rewards/rejected` is logged as None."""
NAN_MARGIN = (2, 24)
"""(seed, step) whose `rewards/margins` is logged as NaN."""
GROUP = "lr[^-]*-[^-]*"
TITLE = "examples/scalars: a tiny Llama, lr 1e-3, 3 seeds: eval accuracy and TRL-like rewards"


def run_name(seed: int) -> str:
    return f"scalars-lr1e-3-seed{seed}.jsonl"


def accuracy(prediction: Any) -> dict[str, float]:
    """compute_metrics of a causal LM: next-token accuracy where there is a label."""
    logits, labels = prediction.predictions, prediction.label_ids
    guesses, targets = logits[:, :-1].argmax(-1), labels[:, 1:]
    mask = targets != -100
    return {"accuracy": float((guesses[mask] == targets[mask]).mean())}


def trl_rewards(seed: int) -> Any:
    """A callback adding TRL-like rewards to each training log: the chosen reward rises and
    the rejected one falls with the step, each with noise of the seed's own."""
    from transformers import TrainerCallback

    noise = random.Random(seed)

    class TrlRewards(TrainerCallback):  # type: ignore[misc]
        def on_log(
            self,
            args: Any,  # noqa: ARG002
            state: Any,
            control: Any,  # noqa: ARG002
            logs: Any = None,
            **kwargs: Any,  # noqa: ARG002
        ) -> None:
            if logs is None or "loss" not in logs:
                return
            step = state.global_step
            progress = step / MAX_STEPS
            chosen = round(0.8 * math.sqrt(progress) + noise.gauss(0.0, 0.08), 4)
            rejected = round(-0.5 * progress + noise.gauss(0.0, 0.08), 4)
            logs["rewards/chosen"] = chosen
            logs["rewards/rejected"] = None if step in NO_REJECTED else rejected
            margins = round(chosen - rejected, 4)
            logs["rewards/margins"] = math.nan if (seed, step) == NAN_MARGIN else margins

    return TrlRewards()


def capture(work: Path, target: Path, seed: int) -> None:
    assets = tiny_assets(work / "assets")
    run = work / "run"
    run.mkdir()
    os.environ["OVERBRAINER_METRICS"] = str(run / "metrics.jsonl")
    os.environ["OVERBRAINER_SNAPSHOT"] = str(run / "snapshot.request")
    plugin = load_plugin()
    callbacks: list[Any] = [trl_rewards(seed)]  # ahead of the plugin: it sees the rewards
    callbacks += plugin.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(cfg=None, model=None)
    trainer = build_trainer(
        *assets,
        run / "out",
        callbacks,
        max_steps=MAX_STEPS,
        eval_steps=EVAL_STEPS,
        logging_steps=LOGGING_STEPS,
        learning_rate=LEARNING_RATE,
        seed=seed,
    )
    trainer.compute_metrics = accuracy
    trainer.train()
    shutil.copyfile(run / "metrics.jsonl", target)


def plot(out: Path, plot_python: str) -> None:
    runs = [str(out / run_name(seed)) for seed in SEEDS]
    subprocess.run(
        [
            plot_python,
            "-m",
            "overbrainer_contract",
            "plot",
            *runs,
            "--metric",
            "eval_accuracy,rewards/*",
            "--group",
            GROUP,
            "--title",
            TITLE,
            "-o",
            str(out / "scalars-rewards.png"),
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        check=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "examples")
    parser.add_argument("--plot-python", default=sys.executable, help="a Python with matplotlib")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for seed in SEEDS:
        with tempfile.TemporaryDirectory() as tmp:
            capture(Path(tmp), out / run_name(seed), seed)
        print(f"wrote {out / run_name(seed)}", file=sys.stderr)
    plot(out, args.plot_python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
