"""The plugin callback's cost on the Trainer's hot path, against a no-op TrainerCallback.

Measured side by side in one run, with timeit, many iterations, best of several repeats:

- `on_step_end`: called after every optimizer step; the plugin checks once whether the
  snapshot request exists (rank 0, single process here: no broadcast).
- `on_log`: called for every log; the plugin writes one JSON line to a real file. Two logs:
  the Trainer's usual one (loss, grad_norm, learning_rate, epoch: no `scalars`), and one
  with 8 values more, as TRL's trainers log them (rewards, log-probabilities, a mean
  without a value, a NaN, a token count), which the line holds in its `scalars`.

Goal: <= 5 us per step and <= 50 us per log line. Run: `python benchmarks/plugin_callback.py`
(needs transformers; `nox -s bench` runs it); `--plugin PATH` measures another copy of the
plugin's file. Exits 1 when a goal is missed with `--check`.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import timeit
from pathlib import Path
from types import ModuleType
from typing import Any

from transformers import TrainerCallback, TrainerControl, TrainerState

PLUGIN = (
    Path(__file__).resolve().parents[1]
    / "python"
    / "overbrainer_contract"
    / "plugin"
    / "overbrainer_metrics.py"
)
GOALS_US = {"on_step_end": 5.0, "on_log": 50.0, "on_log +8": 50.0}
USUAL_LOG = {
    "loss": 2.3456789,
    "grad_norm": 1.23456789,
    "learning_rate": 0.00019876,
    "epoch": 0.1234,
}
TRL_LOG = {  # 8 values more, as a DPO or SFT trainer of TRL logs them
    **USUAL_LOG,
    "rewards/chosen": 0.41234567,
    "rewards/rejected": -0.2345678,
    "rewards/accuracies": 0.75,
    "rewards/margins": float("nan"),
    "logps/chosen": -123.456789,
    "logps/rejected": -145.678912,
    "mean_token_accuracy": None,
    "num_tokens": 123456789,
}


def load_plugin(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("overbrainer_metrics", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["overbrainer_metrics"] = module
    spec.loader.exec_module(module)
    return module


class Args:
    output_dir = "out"
    save_strategy = "steps"
    device = "cpu"


def per_call_us(call: Any, number: int, repeat: int) -> float:
    """Best of `repeat` runs of `number` calls, in microseconds per call."""
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="calls per repeat, on_step_end")
    parser.add_argument("--logs", type=int, default=20_000, help="calls per repeat, on_log")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--plugin", type=Path, default=PLUGIN, help="the plugin file to measure")
    options = parser.parse_args()

    plugin = load_plugin(options.plugin)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["OVERBRAINER_METRICS"] = str(Path(folder) / "metrics.jsonl")
        os.environ["OVERBRAINER_SNAPSHOT"] = str(Path(folder) / "snapshot.request")
        args, state, control = Args(), TrainerState(), TrainerControl()
        state.max_steps, state.global_step, state.epoch = 10_000, 1234, 0.1234
        state.is_world_process_zero = True
        ours = plugin.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(cfg=None, model=None)[0]
        noop = TrainerCallback()
        for callback in (ours, noop):
            callback.on_train_begin(args, state, control)
        cases: list[tuple[str, str, int, dict[str, Any] | None]] = [
            ("on_step_end", "on_step_end", options.steps, None),
            ("on_log", "on_log", options.logs, USUAL_LOG),
            ("on_log +8", "on_log", options.logs, TRL_LOG),
        ]
        rows = []
        for case, event, number, logs in cases:
            timings = {}
            for name, callback in (("no-op", noop), ("plugin", ours)):
                method = getattr(callback, event)
                if logs is not None:
                    timings[name] = per_call_us(
                        lambda m=method, logs=logs: m(args, state, control, logs=logs),
                        number,
                        options.repeat,
                    )
                else:
                    timings[name] = per_call_us(
                        lambda m=method: m(args, state, control), number, options.repeat
                    )
            rows.append((case, timings["no-op"], timings["plugin"]))
        written = Path(os.environ["OVERBRAINER_METRICS"]).stat().st_size

    print(f"plugin callback cost, best of {options.repeat} (python {sys.version.split()[0]})")
    head = ("event", "no-op µs", "plugin µs", "ratio", "extra µs", "goal µs")
    print("{:<12} {:>9} {:>10} {:>7} {:>9} {:>8}".format(*head))
    missed = []
    for event, noop_us, ours_us in rows:
        ratio = ours_us / noop_us if noop_us else float("inf")
        extra = ours_us - noop_us
        goal = GOALS_US[event]
        mark = "ok" if ours_us <= goal else "MISSED"
        if ours_us > goal:
            missed.append(event)
        cells = f"{noop_us:>9.3f} {ours_us:>10.3f} {ratio:>6.1f}x {extra:>9.3f} {goal:>8.0f}"
        print(f"{event:<12} {cells} {mark}")
    print(f"({written:,} bytes of log lines written)")
    return 1 if options.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
