"""What production training throws at the plugin, each fault made to happen for real in a
real Trainer run (a tiny random Llama, CPU): a FIFO as the request, a disk that fills and
frees up, a step beyond u64, a padded reason, a stray temporary proof, a late request.

Each run's metrics file is then checked line by line by `parse_line` and the schema.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from hostile import tmpfs
from plugin_helpers import (
    Filler,
    at_step,
    build_trainer,
    check_metrics,
    check_snapshot,
    plugin_warnings,
)

U64_MAX = 2**64 - 1
HANG = 120.0  # seconds: a run still going by then is a hang


@pytest.fixture
def run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    monkeypatch.setenv("OVERBRAINER_METRICS", str(folder / "metrics.jsonl"))
    monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(folder / "snapshot.request"))
    monkeypatch.delenv("OVERBRAINER_SNAPSHOT_ON_SIGTERM", raising=False)
    monkeypatch.chdir(folder)
    return folder


def train(
    om: ModuleType,
    assets: tuple[Path, Path, Path],
    folder: Path,
    *others: Any,
    before: tuple[Any, ...] = (),
    **overrides: Any,
) -> Any:
    """A real Trainer with `before`, the plugin, then `others` as callbacks; returns it trained."""
    callbacks = [*before, om.OverbrainerMetricsCallback(), *others]
    trainer = build_trainer(*assets, folder / "out", callbacks, **overrides)
    trainer.train()
    return trainer


def train_logs(lines: list[dict[str, Any]]) -> list[int]:
    return [line["step"] for line in lines if line["event"] == "log" and line["loss"] is not None]


def checkpoints(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "out").glob("checkpoint-*"))


# --- the request: never blocks, whatever the file is -----------------------------------


def test_a_fifo_request_takes_the_snapshot_without_blocking(
    om: ModuleType,
    assets: tuple[Path, Path, Path],
    run_folder: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`mkfifo snapshot.request` mid-run: the snapshot is taken at the next step end, with
    no reason and one warning. A plugin that opened the FIFO would wait for a writer for
    ever: the watchdog then plays the writer to free the training, and the test fails."""
    request = run_folder / "snapshot.request"
    released = threading.Event()

    def release() -> None:  # opens the FIFO for writing: a reader blocked in open() goes on
        released.set()
        fd = os.open(request, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)

    watchdog = threading.Timer(HANG, release)
    watchdog.start()
    try:
        with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
            trainer = train(om, assets, run_folder, at_step(3, lambda _: os.mkfifo(request)))
    finally:
        watchdog.cancel()
    assert not released.is_set(), "the training blocked on the FIFO"
    step = trainer.state.global_step
    assert step == 4, "the snapshot is taken at the step end after the request"
    proof = check_snapshot(run_folder / "snapshot.json")
    assert (proof["checkpoint"], proof["step"], proof["reason"]) == ("out/checkpoint-4", 4, None)
    assert checkpoints(run_folder) == ["checkpoint-4"]
    assert plugin_warnings(caplog.records) == [
        "overbrainer_metrics: the snapshot request is not a regular file;"
        " taking the snapshot with no reason"
    ]
    lines = check_metrics(run_folder / "metrics.jsonl")
    assert train_logs(lines) == [1, 2, 3, 4]
    assert lines[-1] == {**lines[-1], "event": "end", "step": 4}


@pytest.mark.parametrize(
    ("padding", "reason", "warned"),
    [(4094, "manual", False), (64 * 1024 - 6, "manual", False), (64 * 1024, None, True)],
)
def test_a_padded_reason_is_read_whole_up_to_64_kib(
    om: ModuleType,
    assets: tuple[Path, Path, Path],
    run_folder: Path,
    caplog: pytest.LogCaptureFixture,
    padding: int,
    reason: str | None,
    warned: bool,
) -> None:
    """White space then `manual`: the word, never a cut one, up to 64 KiB in all; past the
    bound the reason is null with one warning."""
    request = run_folder / "snapshot.request"
    content = b" " * padding + b"manual"
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        train(om, assets, run_folder, at_step(2, lambda _: request.write_bytes(content)))
    proof = check_snapshot(run_folder / "snapshot.json")
    assert (proof["step"], proof["reason"]) == (3, reason)
    warnings = plugin_warnings(caplog.records)
    assert len(warnings) == (1 if warned else 0)
    assert all("longer than 65536 bytes" in w for w in warnings)
    assert check_metrics(run_folder / "metrics.jsonl")[-1]["step"] == 3
    assert request.read_bytes() == content


# --- the metrics file: a disk that fills and frees up ---------------------------------------


def test_a_full_disk_freed_mid_run_leaves_no_glued_line(
    om: ModuleType,
    assets: tuple[Path, Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The run folder on a small tmpfs: filled from step 3 until a line has been cut short
    (one block is freed whenever the file's last block is full or a line was refused
    whole, so that a cut must come), then freed two steps later, as `save_total_limit`
    deleting a checkpoint does. Every line of the file is a line of the contract, the
    lines after the freeing are all there, and the fault is one warning."""
    with tmpfs(tmp_path / "disk", "1m") as disk:
        metrics = disk / "metrics.jsonl"
        monkeypatch.setenv("OVERBRAINER_METRICS", str(metrics))
        monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(disk / "snapshot.request"))
        monkeypatch.delenv("OVERBRAINER_SNAPSHOT_ON_SIGTERM", raising=False)
        filler = Filler(disk)
        seen: dict[str, int] = {}
        shorts: list[int] = []  # what each write the disk cut short wrote
        refused: list[int] = []  # writes the full disk refused whole
        real_write = os.write

        def write(fd: int, data: bytes) -> int:  # passes every write through, watching
            try:
                written = real_write(fd, data)
            except OSError:
                refused.append(len(data))
                raise
            if written < len(data):
                shorts.append(written)
            return written

        monkeypatch.setattr(om.os, "write", write)

        from transformers import TrainerCallback

        class Disk(TrainerCallback):  # type: ignore[misc]
            """After the plugin's line of each step: fill, keep a cut possible, free."""

            def on_log(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
                step = state.global_step
                if step == 3 and "filled" not in seen:
                    filler.fill()
                    seen["filled"] = step
                elif "filled" in seen and "cut" not in seen:
                    if shorts:
                        seen["cut"] = step
                    elif refused or metrics.stat().st_size % filler.block == 0:
                        refused.clear()
                        filler.free(1)  # the last block full: the next line needs one
                elif "cut" in seen and "freed" not in seen and step >= seen["cut"] + 2:
                    filler.free()
                    seen["freed"] = step

        with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
            build_trainer(
                *assets,
                disk / "out",
                [om.OverbrainerMetricsCallback(), Disk()],
                max_steps=40,
                eval_strategy="no",
            ).train()
        monkeypatch.undo()
        assert "freed" in seen, f"no line was cut short in 40 steps: {seen}"
        lines = check_metrics(metrics)  # every line whole and read by the reference
        data = metrics.read_bytes()
        filler.free()
    assert b"}{" not in data
    assert shorts[0] > 0, "the disk cut a line short"
    warnings = plugin_warnings(caplog.records)
    assert len(warnings) == 1, "one warning for the full disk"
    assert "cut short" in warnings[0] or "No space left" in warnings[0]
    steps = train_logs(lines)
    assert steps == sorted(steps)
    assert seen["cut"] not in steps, "the cut line's step was lost, not glued"
    assert steps[: seen["filled"]] == list(range(1, seen["filled"] + 1))
    freed = seen["freed"]
    assert steps[steps.index(freed + 1) :] == list(range(freed + 1, 41)), "writing resumed"
    assert [line["event"] for line in lines][-1] == "end"


# --- values outside the contract ------------------------------------------------------------


def test_a_step_beyond_u64_is_written_as_the_largest_u64(
    om: ModuleType,
    assets: tuple[Path, Path, Path],
    run_folder: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Another callback pushes the step to 2**64 + 5 and max_steps beyond u64 (the Trainer
    then stops): the lines carry the largest u64 and a null max_steps, one warning."""
    from transformers import TrainerCallback

    class Huge(TrainerCallback):  # type: ignore[misc]
        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
            state.max_steps = 2**64 + 10

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
            if state.global_step == 3:
                state.global_step = 2**64 + 5

    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        train(om, assets, run_folder, before=(Huge(),), max_steps=6)
    lines = check_metrics(run_folder / "metrics.jsonl")
    assert lines[0] == {**lines[0], "event": "begin", "max_steps": None}
    logs = [line for line in lines if line["event"] == "log"]
    assert [line["step"] for line in logs if line["loss"] is not None][:2] == [1, 2]
    assert {line["max_steps"] for line in logs} == {None}
    assert logs[-1]["step"] == U64_MAX
    assert lines[-1] == {**lines[-1], "event": "end", "step": U64_MAX}
    warnings = plugin_warnings(caplog.records)
    assert len(warnings) == 1
    assert "is not a u64" in warnings[0]


# --- leftovers and late requests --------------------------------------------------------------


def test_a_stray_temporary_proof_is_removed_when_the_run_starts(
    om: ModuleType, assets: tuple[Path, Path, Path], run_folder: Path
) -> None:
    """A killed run left `.snapshot.json.<pid>.<random>.tmp` (or `.<pid>.tmp`), perhaps a
    link planted under such a name: gone once the training begins (a link removed, what it
    points to untouched); files of other names stay."""
    strays = [run_folder / n for n in (".snapshot.json.4242.tmp", ".snapshot.json.42.k3_9xq2a.tmp")]
    for stray in strays:
        stray.write_text('{"checkpoint":"out/checkpoint-1"')
    target = run_folder.parent / "target"
    target.write_text("kept")
    link = run_folder / ".snapshot.json.4343.abcdefgh.tmp"
    link.symlink_to(target)
    strays.append(link)
    others = [run_folder / name for name in (".snapshot.json.x.tmp", "snapshot.json.1.tmp")]
    for other in others:
        other.write_text("not the plugin's")
    seen: list[bool] = []

    def look(_: Any) -> None:
        seen.extend(os.path.lexists(stray) for stray in strays)

    train(om, assets, run_folder, at_step(1, look), max_steps=3)
    assert seen == [False, False, False], "still there after the first step"
    assert target.read_text() == "kept"
    assert all(other.read_text() == "not the plugin's" for other in others)
    check_metrics(run_folder / "metrics.jsonl")


def test_a_request_during_the_last_evaluation_is_warned(
    om: ModuleType,
    assets: tuple[Path, Path, Path],
    run_folder: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The request comes during the evaluation after the last step end: no step end is
    left to take it, so the training ends with a warning saying so, and no proof."""
    request = run_folder / "snapshot.request"
    late = at_step(10, lambda _: request.write_text("manual"), event="on_prediction_step")
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        trainer = train(om, assets, run_folder, late, max_steps=10, eval_steps=5)
    assert trainer.state.global_step == 10
    assert not (run_folder / "snapshot.json").exists()
    assert checkpoints(run_folder) == []
    warnings = plugin_warnings(caplog.records)
    assert len(warnings) == 1
    assert "no snapshot was taken" in warnings[0]
    assert "after the last step ended" in warnings[0]
    lines = check_metrics(run_folder / "metrics.jsonl")
    assert lines[-1] == {**lines[-1], "event": "end", "step": 10}
