"""A `loss`, `eval_loss`, `learning_rate` or `grad_norm` that is not finite (contract 2.2.0):
`null` in its field, which cannot hold it, and its name (`"NaN"`, `"Infinity"`,
`"-Infinity"`) under the same key in `scalars`; the reference still reads every line, and
`status` carries the `nonfinite` alert at the first step of the latest stretch of them.

Scripted `on_log` calls for the values, and a real Trainer run whose weights turn NaN before
its third step (`logging_nan_inf_filter` off, so that the Trainer logs the loss it got).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from overbrainer_contract import parse_line

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from plugin_helpers import (  # noqa: E402
    begun,
    build_trainer,
    check_metrics,
    check_with_cli,
    check_with_reference,
    reference_runner,
)
from trained_runs import Captured, plugin_callbacks  # noqa: E402
from transformers import TrainerCallback  # noqa: E402

NAMED = ("loss", "eval_loss", "learning_rate", "grad_norm")
WORDS = {"NaN", "Infinity", "-Infinity"}


def status_json(path: Path) -> dict[str, Any]:
    """`overbrainer-contract status -o json PATH`, run as a command."""
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "status", "-o", "json", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    record: dict[str, Any] = json.loads(done.stdout)
    return record


def held_by_name(line: dict[str, Any]) -> dict[str, Any]:
    """The known fields a log line holds by name in its `scalars`, each checked to be `null`
    in its own field."""
    scalars = line.get("scalars", {})
    named = {key: scalars[key] for key in NAMED if key in scalars}
    for key, word in named.items():
        assert line[key] is None, f"{key} is named in scalars but its field holds a value"
        assert word in WORDS, f"{key}: {word!r} is not a non-finite value's name"
    return named


# (value logged, the name `scalars` holds for it)
NOT_FINITE: list[tuple[Any, str]] = [
    (math.nan, "NaN"),
    (math.inf, "Infinity"),
    (-math.inf, "-Infinity"),
    (np.float32("nan"), "NaN"),
    (np.float64("-inf"), "-Infinity"),
    (torch.tensor(float("inf")), "Infinity"),
    (torch.tensor(float("nan"), dtype=torch.bfloat16), "NaN"),
    (10**400, "Infinity"),  # an int no double holds: what it overflows to
]


@pytest.mark.parametrize("key", NAMED)
@pytest.mark.parametrize(("value", "word"), NOT_FINITE, ids=[repr(v)[:30] for v, _ in NOT_FINITE])
def test_a_known_value_not_finite_is_null_and_named_in_scalars(
    om: ModuleType, run: SimpleNamespace, key: str, value: Any, word: str
) -> None:
    callback, args, state, control = begun(om, max_steps=10)
    state.global_step = 1
    logs = {"loss": 2.0, "grad_norm": 1.0, "learning_rate": 1e-3, "epoch": 0.1, key: value}
    callback.on_log(args, state, control, logs={**logs, "eval_accuracy": 0.5})
    line = check_metrics(run.metrics)[1]
    assert line[key] is None
    assert line["scalars"] == {key: word, "eval_accuracy": 0.5}
    assert held_by_name(line) == {key: word}


def test_finite_values_and_what_is_no_number_are_not_named(
    om: ModuleType, run: SimpleNamespace
) -> None:
    callback, args, state, control = begun(om, max_steps=10)
    # finite values in their fields only; a bool, a string and None are no number: null alone
    callback.on_log(args, state, control, logs={"loss": 2.5, "grad_norm": np.float32(1.5)})
    logs = {"loss": True, "eval_loss": "nan", "learning_rate": None, "grad_norm": [math.nan]}
    callback.on_log(args, state, control, logs=logs)
    finite, nothing = check_metrics(run.metrics)[1:]
    assert (finite["loss"], finite["grad_norm"]) == (2.5, 1.5)
    assert "scalars" not in finite
    assert [nothing[key] for key in NAMED] == [None, None, None, None]
    assert "scalars" not in nothing


def test_the_lines_pass_check_the_reference_and_status_alerts(
    om: ModuleType, run: SimpleNamespace
) -> None:
    callback, args, state, control = begun(om, max_steps=10)
    # steps 1-2 finite, 3-4 a NaN loss (a stretch from 3), 5 finite, 6-7 an infinite grad
    # norm (the latest stretch: from 6), then the end
    losses: list[dict[str, Any]] = [
        {"loss": 2.0, "grad_norm": 1.0},
        {"loss": 1.9, "grad_norm": 1.0},
        {"loss": math.nan, "grad_norm": 1.0},
        {"loss": math.nan, "grad_norm": 1.0},
        {"loss": 1.8, "grad_norm": 1.0},
        {"loss": 1.7, "grad_norm": math.inf},
        {"loss": 1.7, "grad_norm": math.inf},
    ]
    for step, logs in enumerate(losses, start=1):
        state.global_step = step
        callback.on_log(args, state, control, logs=logs)
    callback.on_train_end(args, state, control)
    lines = check_metrics(run.metrics)
    logged = [line for line in lines if line["event"] == "log"]
    assert [held_by_name(line) for line in logged] == [
        {},
        {},
        {"loss": "NaN"},
        {"loss": "NaN"},
        {},
        {"grad_norm": "Infinity"},
        {"grad_norm": "Infinity"},
    ]
    check_with_cli(run.metrics)
    record = status_json(run.metrics)
    (alert,) = [alert for alert in record["alerts"] if alert["kind"] == "nonfinite"]
    # the line's time as the reference reads it (serde_json's parse, which json.loads may
    # differ from in the last bit)
    raw_logs = [
        raw for raw in run.metrics.read_bytes().splitlines() if json.loads(raw)["event"] == "log"
    ]
    assert alert == {
        "kind": "nonfinite",
        "step": 6,
        "time": parse_line(raw_logs[5].decode()).time,
        "message": "grad_norm was Infinity at step 6",
    }
    runner = reference_runner()
    if runner is None:
        pytest.skip("OVERBRAINER_REFERENCE_RUNNER is not set: the reference part is skipped")
    answers = check_with_reference(runner, run.metrics)
    # the reference reads the field as None, whatever `scalars` holds
    assert all(answer["ok"] for answer in answers)


# --- a real Trainer run -------------------------------------------------------------------


class PoisonWeights(TrainerCallback):  # type: ignore[misc]
    """Fills the model's first weight with NaN before step `step` runs: from then on every
    loss and gradient norm the Trainer computes is NaN."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
        if state.global_step + 1 == self.step:
            with torch.no_grad():
                next(kwargs["model"].parameters()).fill_(float("nan"))


@pytest.fixture(scope="module")
def poisoned(
    om: ModuleType, assets: tuple[Path, Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A 4-step run of the tiny model, evaluating at step 2 and 4, NaN from step 3 on: its
    metrics file."""
    folder = tmp_path_factory.mktemp("poisoned")
    metrics = folder / "metrics.jsonl"
    with pytest.MonkeyPatch.context() as patch, Captured():
        patch.setenv("OVERBRAINER_METRICS", str(metrics))
        patch.setenv("OVERBRAINER_SNAPSHOT", str(folder / "snapshot.request"))
        patch.chdir(folder)
        trainer = build_trainer(
            *assets,
            folder / "out",
            [PoisonWeights(3), *plugin_callbacks(om)],
            max_steps=4,
            eval_steps=2,
            logging_nan_inf_filter=False,
        )
        trainer.train()
    return metrics


def test_a_real_training_that_turns_nan_is_named_and_alerted(poisoned: Path) -> None:
    lines = check_metrics(poisoned)
    training = [line for line in lines if line["event"] == "log" and "step" in line]
    by_step: dict[int, list[dict[str, Any]]] = {}
    for line in training:
        by_step.setdefault(line["step"], []).append(line)
    # steps 1 and 2 trained on finite weights; 3 and 4 on NaN ones
    for step in (1, 2):
        (train_log,) = [line for line in by_step[step] if line["loss"] is not None]
        assert held_by_name(train_log) == {}
        assert math.isfinite(train_log["loss"])
    for step in (3, 4):
        (train_log,) = [line for line in by_step[step] if "loss" in held_by_name(line)]
        assert train_log["scalars"]["loss"] == "NaN"
        assert train_log["loss"] is None
    (late_eval,) = [line for line in by_step[4] if "eval_loss" in held_by_name(line)]
    assert late_eval["scalars"]["eval_loss"] == "NaN"
    end = lines[-1]
    assert end["event"] == "end"
    assert end["summary"]["train_loss"] == "NaN"
    check_with_cli(poisoned)
    record = status_json(poisoned)
    (first,) = [line for line in by_step[3] if "loss" in held_by_name(line)]
    nonfinite = [alert for alert in record["alerts"] if alert["kind"] == "nonfinite"]
    assert nonfinite == [
        {
            "kind": "nonfinite",
            "step": 3,
            # its time as the reference reads the digits the plugin wrote (json.dumps gives
            # them again): serde_json may differ from json.loads in the last bit
            "time": parse_line(json.dumps(first)).time,
            "message": "loss was NaN at step 3",
        }
    ]
    runner = reference_runner()
    if runner is None:
        pytest.skip("OVERBRAINER_REFERENCE_RUNNER is not set: the reference part is skipped")
    check_with_reference(runner, poisoned)
