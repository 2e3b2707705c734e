"""The plugin inside a real transformers Trainer: a tiny random Llama, built locally.

CPU by default. `PLUGIN_TEST_DEVICE=cuda` runs the same tests on an accelerator in bf16.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from plugin_helpers import (
    build_trainer,
    check_metrics,
    check_snapshot,
    slow_callback,
)

DEVICE = os.environ.get("PLUGIN_TEST_DEVICE", "cpu")
OVERRIDES: dict[str, Any] = {} if DEVICE == "cpu" else {"use_cpu": False, "bf16": True}


@pytest.fixture
def run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OVERBRAINER_METRICS", str(tmp_path / "metrics.jsonl"))
    monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(tmp_path / "snapshot.request"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def plugin_callbacks(om: ModuleType) -> list[Any]:
    return list(om.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(cfg=None, model=None))


def test_a_training_writes_begin_logs_eval_progress_and_end(
    om: ModuleType, assets: tuple[Path, Path, Path], run_folder: Path
) -> None:
    # Slow prediction steps (5 of 0.6 s an evaluation), so that each evaluation outlasts
    # the 2 s between progress lines.
    trainer = build_trainer(
        *assets, run_folder / "out", plugin_callbacks(om), max_steps=20, eval_steps=10, **OVERRIDES
    )
    trainer.add_callback(slow_prediction(0.6))
    trainer.train()
    lines = check_metrics(run_folder / "metrics.jsonl")
    for line in lines:
        print(line)
    events = [line["event"] for line in lines]
    assert events[0] == "begin"
    assert lines[0]["max_steps"] == 20
    assert events[-1] == "end"
    assert lines[-1]["step"] == 20
    assert events.count("begin") == 1
    assert events.count("end") == 1
    train_logs = [line for line in lines if line["event"] == "log" and line["loss"] is not None]
    assert [line["step"] for line in train_logs] == list(range(1, 21))
    assert all(line["learning_rate"] is not None and line["max_steps"] == 20 for line in train_logs)
    assert all(line["grad_norm"] is not None for line in train_logs)
    eval_logs = [line for line in lines if line["event"] == "log" and line["eval_loss"] is not None]
    assert [line["step"] for line in eval_logs] == [10, 20]
    progress = [line for line in lines if line["event"] == "eval"]
    assert progress, "no eval progress line"
    assert {line["total"] for line in progress} == {len(trainer.get_eval_dataloader())}
    assert min(line["step"] for line in progress) == 1
    assert any(line["step"] > 1 for line in progress), "one line per evaluation only"
    times = [line["time"] for line in lines]
    assert times == sorted(times)


def slow_prediction(seconds: float) -> Any:
    from transformers import TrainerCallback

    class SlowPrediction(TrainerCallback):  # type: ignore[misc]
        def on_prediction_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
            time.sleep(seconds)

    return SlowPrediction()


def test_a_snapshot_requested_from_another_thread_saves_and_stops(
    om: ModuleType, assets: tuple[Path, Path, Path], run_folder: Path
) -> None:
    metrics, request = run_folder / "metrics.jsonl", run_folder / "snapshot.request"

    def request_after_step_five() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if metrics.exists() and '"step":5,' in metrics.read_text():
                request.write_text("manual\n")
                return
            time.sleep(0.01)

    requester = threading.Thread(target=request_after_step_five, daemon=True)
    trainer = build_trainer(
        *assets,
        run_folder / "out",
        [*plugin_callbacks(om), slow_callback(0.1)],
        max_steps=20,
        **OVERRIDES,
    )
    requester.start()
    trainer.train()
    requester.join(timeout=5)
    step = trainer.state.global_step
    assert 5 <= step < 20, "the training did not stop on the request"
    proof = check_snapshot(run_folder / "snapshot.json")
    print(proof)
    assert proof == {
        **proof,
        "checkpoint": f"out/checkpoint-{step}",
        "step": step,
        "reason": "manual",
    }
    assert (run_folder / "out" / f"checkpoint-{step}" / "trainer_state.json").is_file()
    assert [p.name for p in (run_folder / "out").iterdir() if p.name.startswith("checkpoint")] == [
        f"checkpoint-{step}"
    ]
    assert request.read_text() == "manual\n"
    lines = check_metrics(metrics)
    assert lines[-1] == {**lines[-1], "event": "end", "step": step}
    train_logs = [line for line in lines if line["event"] == "log" and line["loss"] is not None]
    assert train_logs[-1]["step"] == step
    assert not list(run_folder.glob(".snapshot.json*")), "a temporary file was left"
