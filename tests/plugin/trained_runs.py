"""Two real Trainer runs of the tiny model that the plugin's scalar tests share, made once per
test session (`conftest.py`'s `evaluated` and `rewarded`): 4 steps, evaluating every 2 steps,
the plugin's callbacks last. One run's evaluations compute an accuracy (`compute_metrics`).
The other's training logs are filled by a callback with TRL's keys (a None, a NaN, a tensor).
Imported only where torch and transformers are installed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch
from plugin_helpers import build_trainer, plugin_warnings
from transformers import TrainerCallback


def accuracy(prediction: Any) -> dict[str, float]:
    """compute_metrics of a causal LM: next-token accuracy where there is a label."""
    logits, labels = prediction.predictions, prediction.label_ids
    guesses, targets = logits[:, :-1].argmax(-1), labels[:, 1:]
    mask = targets != -100
    return {"accuracy": float((guesses[mask] == targets[mask]).mean())}


class TrlRewards(TrainerCallback):  # type: ignore[misc]
    """Adds to each training log what TRL's DPO trainer logs: rewards, one of them without a
    value (None), one not finite (NaN), one a tensor."""

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:  # noqa: ARG002
        if logs is not None and "loss" in logs:
            logs["rewards/chosen"] = 0.5 + state.global_step / 8
            logs["rewards/rejected"] = None
            logs["rewards/margins"] = float("nan")
            logs["rewards/accuracies"] = torch.tensor(0.75)
            logs["logps/chosen"] = -12.5


def plugin_callbacks(om: ModuleType) -> list[Any]:
    return list(om.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(cfg=None, model=None))


Trained = tuple[Any, Path, list[str]]


def train(
    om: ModuleType,
    assets: tuple[Path, Path, Path],
    folder: Path,
    before: list[Any],
    compute_metrics: Any = None,
    **overrides: Any,
) -> Trained:
    """A 4-step run of the tiny model, evaluating every 2 steps, with the callbacks `before`
    ahead of the plugin's (callbacks run in the order added): the trainer, its metrics file
    and the plugin's warnings."""
    metrics = folder / "metrics.jsonl"
    with pytest.MonkeyPatch.context() as patch, Captured() as records:
        patch.setenv("OVERBRAINER_METRICS", str(metrics))
        patch.setenv("OVERBRAINER_SNAPSHOT", str(folder / "snapshot.request"))
        patch.chdir(folder)
        trainer = build_trainer(
            *assets,
            folder / "out",
            [*before, *plugin_callbacks(om)],
            max_steps=4,
            eval_steps=2,
            **overrides,
        )
        trainer.compute_metrics = compute_metrics
        trainer.train()
    return trainer, metrics, plugin_warnings(records)


SUMMARY = {"train_runtime", "train_samples_per_second", "train_steps_per_second"}
SUMMARY |= {"total_flos", "train_loss"}
"""The keys of the training's final log: the end line's `summary`."""


class Captured(logging.Handler):
    """The plugin's log records, while inside."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> list[logging.LogRecord]:
        logging.getLogger("overbrainer_metrics").addHandler(self)
        return self.records

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("overbrainer_metrics").removeHandler(self)
