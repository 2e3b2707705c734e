"""The plugin's callback, driven by scripted Trainer events (no training, no torch.distributed)."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import socket
import threading
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

transformers = pytest.importorskip("transformers")

from hostile import tmpfs  # noqa: E402
from overbrainer_contract import parse_line  # noqa: E402
from plugin_helpers import Filler, check_metrics, check_snapshot  # noqa: E402
from transformers import TrainerCallback, TrainerControl, TrainerState  # noqa: E402

GOLDEN = Path(__file__).parents[1] / "conformance" / "cases" / "plugin-scripted-run.jsonl"


class Clock:
    """A clock the test sets: `time()` is the wall clock, `monotonic()` the interval clock."""

    def __init__(self) -> None:
        self.wall = 1700000000.0
        self.mono = 100.0

    def time(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.mono


class Sized:
    """An evaluation dataloader with a length."""

    def __init__(self, length: int) -> None:
        self.length = length

    def __len__(self) -> int:
        return self.length


@pytest.fixture
def clock(om: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(om, "time", fake)
    return fake


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A run folder with the env variables set, as overbrainer sets them."""
    metrics = tmp_path / "metrics.jsonl"
    request = tmp_path / "snapshot.request"
    monkeypatch.setenv("OVERBRAINER_METRICS", str(metrics))
    monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(request))
    monkeypatch.chdir(tmp_path)
    return SimpleNamespace(folder=tmp_path, metrics=metrics, request=request, out=tmp_path / "out")


def make(
    max_steps: int = 4, zero: bool = True, output_dir: str = "out", save: str = "steps"
) -> Any:
    """Fresh Trainer objects: args (a stand-in), state and control (the real classes)."""
    args = SimpleNamespace(output_dir=output_dir, save_strategy=save, device="cpu")
    state = TrainerState()
    state.max_steps = max_steps
    state.is_world_process_zero = zero
    state.epoch = 0.0
    return args, state, TrainerControl()


def scripted_run(om: ModuleType, clock: Clock) -> None:
    """A short run: evaluation on start, four steps, an evaluation at step 2, the final log."""
    callback = om.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(cfg=None, model=None)[0]
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    loader = Sized(3)
    for k, mono in enumerate((100.0, 100.5, 102.0), start=1):
        clock.mono, clock.wall = mono, 1700000000.0 + k / 4
        callback.on_prediction_step(args, state, control, eval_dataloader=loader)
    clock.wall = 1700000001.0
    callback.on_log(
        args, state, control, logs={"eval_loss": 2.5, "eval_ppl": float("inf"), "epoch": 0}
    )
    callback.on_evaluate(args, state, control, metrics={})
    train_logs: list[dict[str, Any]] = [
        {
            "loss": 3.25,
            "grad_norm": float("nan"),
            "learning_rate": 0.001,
            "epoch": 0.25,
            "ppl": 25.8,
        },
        {"loss": 3.0, "grad_norm": 1.5, "learning_rate": 0.0005, "epoch": 0.5, "memory/max": 1},
        {
            "loss": 2.75,
            "learning_rate": 0.00025,
            "epoch": 0.75,
            "rewards/chosen": None,
            "rewards/margins": float("nan"),
            "num_tokens": 1200,
            "flagged": True,
        },
        {"loss": 2.5, "grad_norm": float("-inf"), "learning_rate": 1e-05, "epoch": 1.0},
    ]
    for step, logs in enumerate(train_logs, start=1):
        state.global_step, state.epoch = step, logs["epoch"]
        clock.wall = 1700000001.0 + step
        callback.on_step_end(args, state, control)
        callback.on_log(args, state, control, logs=logs)
        if step == 2:
            # Evaluation at step 2: the count restarts at 1; the first step comes too soon.
            for mono in (102.5, 104.5):
                clock.mono, clock.wall = mono, clock.wall + 0.25
                callback.on_prediction_step(args, state, control, eval_dataloader=iter(()))
            callback.on_log(args, state, control, logs={"eval_loss": 2.25, "epoch": 0.5})
            callback.on_evaluate(args, state, control, metrics={})
    clock.wall = 1700000006.0
    final = {
        "train_runtime": 1.0,
        "train_samples_per_second": 8.0,
        "train_steps_per_second": 4.0,
        "total_flos": 12.0,
        "train_loss": 2.875,
        "epoch": 1.0,
    }
    callback.on_log(args, state, control, logs=final)
    clock.wall = 1700000006.5
    callback.on_train_end(args, state, control)


def test_a_scripted_run_writes_the_golden_lines(
    om: ModuleType, clock: Clock, run: SimpleNamespace
) -> None:
    scripted_run(om, clock)
    check_metrics(run.metrics)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        shutil.copy(run.metrics, GOLDEN)
    assert run.metrics.read_text() == GOLDEN.read_text()


def test_the_golden_file_is_valid_and_covers_every_event() -> None:
    lines = check_metrics(GOLDEN)
    assert [line["event"] for line in lines] == [
        "begin",
        "eval",
        "eval",
        "log",
        "log",
        "log",
        "eval",
        "log",
        "log",
        "log",
        "log",
        "end",
    ]
    keys = {line["event"]: list(line) for line in lines}
    assert keys == {
        "begin": ["event", "time", "max_steps"],
        "log": [
            "event",
            "time",
            "step",
            "epoch",
            "max_steps",
            "loss",
            "eval_loss",
            "learning_rate",
            "grad_norm",
        ],
        "eval": ["event", "time", "step", "total"],
        "end": ["event", "time", "step", "summary"],
    }
    # the other values of a log, under their own keys, and a known value that was not finite
    # by its name (step 1's and step 4's grad norms); the final log's in `end`
    assert [line.get("scalars") for line in lines if line["event"] == "log"] == [
        {"eval_ppl": "Infinity"},
        {"grad_norm": "NaN", "ppl": 25.8},
        {"memory/max": 1},
        None,
        {"rewards/chosen": None, "rewards/margins": "NaN", "num_tokens": 1200},
        {"grad_norm": "-Infinity"},
        None,
    ]
    assert lines[-1]["summary"] == {
        "train_runtime": 1.0,
        "train_samples_per_second": 8.0,
        "train_steps_per_second": 4.0,
        "total_flos": 12.0,
        "train_loss": 2.875,
    }


def test_logs_are_copied_never_mutated(om: ModuleType, run: SimpleNamespace) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    logs = {"loss": float("nan"), "grad_norm": float("inf"), "learning_rate": 2, "epoch": 0.5}
    before = dict(logs)
    callback.on_log(args, state, control, logs=logs)
    assert list(logs) == list(before)
    assert all(str(logs[k]) == str(before[k]) for k in logs)
    line = check_metrics(run.metrics)[-1]
    assert (line["loss"], line["grad_norm"], line["learning_rate"]) == (None, None, 2.0)
    assert isinstance(line["learning_rate"], float)


def test_values_of_other_kinds_become_null(om: ModuleType, run: SimpleNamespace) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make(max_steps=0)
    callback.on_train_begin(args, state, control)
    state.global_step = 3
    callback.on_log(args, state, control, logs={"loss": "1.0", "grad_norm": True, "epoch": None})
    callback.on_log(args, state, control, logs=None)
    begin, first, second = check_metrics(run.metrics)
    assert begin["max_steps"] is None
    assert first["loss"] is None
    assert first["grad_norm"] is None
    assert first["epoch"] == 0.0
    assert first["step"] == 3
    assert second["step"] == 3


def test_eval_progress_counts_from_one_and_reads_the_total(
    om: ModuleType, clock: Clock, run: SimpleNamespace
) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    for evaluation in range(2):
        for k in range(5):
            clock.mono += 2.0 if k else 0.5
            callback.on_prediction_step(args, state, control, eval_dataloader=Sized(5 + evaluation))
        callback.on_evaluate(args, state, control, metrics={})
    evals = [line for line in check_metrics(run.metrics) if line["event"] == "eval"]
    assert [(e["step"], e["total"]) for e in evals] == [(k, 5) for k in range(1, 6)] + [
        (k, 6)
        for k in range(2, 6)  # the first of the second evaluation came 0.5 s after a line
    ]


def test_eval_progress_is_throttled_to_one_line_per_two_seconds(
    om: ModuleType, clock: Clock, run: SimpleNamespace
) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    for _ in range(100):
        clock.mono += 0.125  # exact in binary: sixteen steps make two seconds
        callback.on_prediction_step(args, state, control)
    evals = [line for line in check_metrics(run.metrics) if line["event"] == "eval"]
    assert [(e["step"], e["total"]) for e in evals] == [(k, None) for k in range(1, 101, 16)]


def test_the_plugin_class(om: ModuleType) -> None:
    plugin = om.OverbrainerMetricsPlugin()
    assert plugin.get_input_args() is None
    callbacks = plugin.add_callbacks_pre_trainer(cfg=SimpleNamespace(), model=object())
    assert len(callbacks) == 1
    assert isinstance(callbacks[0], TrainerCallback)


def test_only_process_zero_writes_or_looks(
    om: ModuleType, run: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    run.request.write_text("manual")
    looks: list[str] = []

    def lexists(path: str) -> bool:
        looks.append(path)
        return True

    monkeypatch.setattr(om.os.path, "lexists", lexists)
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make(zero=False)
    callback.on_train_begin(args, state, control)
    for step in range(1, 4):
        state.global_step = step
        callback.on_step_end(args, state, control)
        callback.on_log(args, state, control, logs={"loss": 1.0})
        callback.on_prediction_step(args, state, control)
    callback.on_train_end(args, state, control)
    assert not run.metrics.exists()
    assert looks == []
    assert not control.should_save
    assert not control.should_training_stop


def test_each_step_looks_once_for_the_request(
    om: ModuleType, run: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    looks: list[str] = []
    real = os.path.lexists

    def lexists(path: str) -> bool:
        looks.append(path)
        return real(path)

    monkeypatch.setattr(om.os.path, "lexists", lexists)
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make(max_steps=10)
    callback.on_train_begin(args, state, control)
    for step in range(1, 6):
        state.global_step = step
        callback.on_step_end(args, state, control)
    assert looks == [str(run.request)] * 5
    assert not control.should_save
    assert not control.should_training_stop


def snapshot_at(
    om: ModuleType, run: SimpleNamespace, content: bytes | None, step: int = 3, save: str = "steps"
) -> tuple[Any, Any, Any, Any]:
    """Steps until `step`, writing the request `content` before it; saves the checkpoint
    the way the Trainer does when asked."""
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make(max_steps=10, save=save)
    callback.on_train_begin(args, state, control)
    for current in range(1, step + 1):
        if current == step and content is not None:
            run.request.write_bytes(content)
        state.global_step = current
        control.should_save = False
        callback.on_step_end(args, state, control)
        if control.should_save:
            (run.out / f"checkpoint-{current}").mkdir(parents=True)
            callback.on_save(args, state, control)
        if control.should_training_stop:
            break
    return callback, args, state, control


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"manual\n", "manual"),
        (b"  \t pre-merge_2 \r\n", "pre-merge_2"),
        (b"", None),
        (b" \n", None),
        (b"x" * 64, "x" * 64),
    ],
)
def test_a_request_saves_stops_and_proves(
    om: ModuleType, run: SimpleNamespace, content: bytes, reason: str | None
) -> None:
    _, _, state, control = snapshot_at(om, run, content)
    assert control.should_training_stop
    assert state.global_step == 3
    proof = check_snapshot(run.folder / "snapshot.json")
    assert proof["checkpoint"] == "out/checkpoint-3"
    assert (proof["step"], proof["reason"]) == (3, reason)
    assert isinstance(proof["time"], float)
    assert run.request.read_bytes() == content, "the plugin never deletes the request"
    assert sorted(p.name for p in run.folder.iterdir()) == [
        "metrics.jsonl",
        "out",
        "snapshot.json",
        "snapshot.request",
    ]


@pytest.mark.parametrize("content", [b"two words", b"x" * 65, b"caf\xc3\xa9", b"a.b", b"\x0bword"])
def test_a_request_of_more_than_one_word_has_no_reason(
    om: ModuleType, run: SimpleNamespace, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        snapshot_at(om, run, content)
    proof = check_snapshot(run.folder / "snapshot.json")
    assert (proof["step"], proof["reason"]) == (3, None)
    assert "not one word" in caplog.text


def test_the_checkpoint_is_relative_to_the_request_folder(
    om: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs" / "r1"
    runs.mkdir(parents=True)
    monkeypatch.setenv("OVERBRAINER_METRICS", str(runs / "metrics.jsonl"))
    monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(runs / "snapshot.request"))
    monkeypatch.chdir(runs)
    run = SimpleNamespace(folder=runs, request=runs / "snapshot.request", out=runs / "a" / "b")
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make(output_dir="a/b")
    callback.on_train_begin(args, state, control)
    run.request.write_text("x")
    state.global_step = 1
    callback.on_step_end(args, state, control)
    (run.out / "checkpoint-1").mkdir(parents=True)
    callback.on_save(args, state, control)
    assert check_snapshot(runs / "snapshot.json")["checkpoint"] == "a/b/checkpoint-1"


def test_other_saves_write_no_proof(om: ModuleType, run: SimpleNamespace) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    state.global_step = 2
    (run.out / "checkpoint-2").mkdir(parents=True)
    callback.on_save(args, state, control)
    assert not (run.folder / "snapshot.json").exists()


def test_a_snapshot_waits_for_a_step_without_evaluation_when_saving_the_best(
    om: ModuleType, run: SimpleNamespace
) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make(save="best")
    callback.on_train_begin(args, state, control)
    run.request.write_text("manual")
    state.global_step = 4
    control.should_evaluate = True
    callback.on_step_end(args, state, control)
    assert not control.should_save
    assert not control.should_training_stop
    state.global_step, control.should_evaluate = 5, False
    callback.on_step_end(args, state, control)
    assert control.should_save
    assert control.should_training_stop


def test_a_request_is_taken_once(om: ModuleType, run: SimpleNamespace) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    run.request.write_text("manual")
    state.global_step = 1
    callback.on_step_end(args, state, control)
    control.should_save = control.should_training_stop = False
    state.global_step = 2
    callback.on_step_end(args, state, control)  # the Trainer has not saved yet: no second one
    assert not control.should_save


# --- faults: logged once, the training goes on ---------------------------------------


def drive(om: ModuleType, steps: int = 3) -> Any:
    """Begin, steps with logs and evaluation, end; returns the control."""
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    for step in range(1, steps + 1):
        state.global_step = step
        callback.on_step_end(args, state, control)
        callback.on_log(args, state, control, logs={"loss": 1.0})
        callback.on_prediction_step(args, state, control)
        callback.on_evaluate(args, state, control, metrics={})
    callback.on_train_end(args, state, control)
    return control


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "overbrainer_metrics" and r.levelno >= logging.WARNING
    ]


def test_unset_variables_are_a_warning_each(
    om: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delenv("OVERBRAINER_METRICS", raising=False)
    monkeypatch.delenv("OVERBRAINER_SNAPSHOT", raising=False)
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        control = drive(om)
    assert not control.should_training_stop
    messages = warnings_of(caplog)
    assert len(messages) == 2
    assert "OVERBRAINER_METRICS is not set" in messages[0]
    assert "OVERBRAINER_SNAPSHOT is not set" in messages[1]
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_folder_is_one_warning(
    om: ModuleType,
    run: SimpleNamespace,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    locked = run.folder / "locked"
    locked.mkdir()
    monkeypatch.setenv("OVERBRAINER_METRICS", str(locked / "metrics.jsonl"))
    locked.chmod(0o500)
    if os.access(locked, os.W_OK):  # root writes anyway: the kernel's refusal, simulated
        real = os.open

        def refuse(path: Any, *args: Any, **kwargs: Any) -> int:
            if str(path).startswith(str(locked)):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(om.os, "open", refuse)
    try:
        with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
            drive(om)
    finally:
        locked.chmod(0o700)
    messages = warnings_of(caplog)
    assert len(messages) == 1
    assert "Permission denied" in messages[0]
    assert not (locked / "metrics.jsonl").exists()


def test_a_vanished_folder_is_one_warning(
    om: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    monkeypatch.setenv("OVERBRAINER_METRICS", str(folder / "metrics.jsonl"))
    monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(folder / "snapshot.request"))
    monkeypatch.chdir(tmp_path)
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        callback.on_train_begin(args, state, control)
        shutil.rmtree(folder)
        for step in range(1, 4):
            state.global_step = step
            callback.on_step_end(args, state, control)
            callback.on_log(args, state, control, logs={"loss": 1.0})
        callback.on_train_end(args, state, control)
    messages = warnings_of(caplog)
    assert len(messages) == 1
    assert "No such file" in messages[0]
    assert not folder.exists()
    assert not control.should_training_stop


def test_a_full_disk_is_one_warning(
    om: ModuleType,
    run: SimpleNamespace,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def full(fd: int, data: bytes) -> int:  # noqa: ARG001
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(om.os, "write", full)
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        drive(om)
    messages = warnings_of(caplog)
    assert len(messages) == 1
    assert "No space left" in messages[0]
    assert run.metrics.read_bytes() == b""  # opened, nothing written, no partial line


def test_a_proof_that_cannot_be_written_is_an_error_and_the_run_still_stops(
    om: ModuleType,
    run: SimpleNamespace,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(src: Any, dst: Any) -> None:  # noqa: ARG001
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(om.os, "replace", broken)
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        _, _, state, control = snapshot_at(om, run, b"manual")
    assert control.should_training_stop
    assert state.global_step == 3
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert "snapshot proof" in errors[0].getMessage()
    assert sorted(p.name for p in run.folder.iterdir()) == [
        "metrics.jsonl", "out", "snapshot.request",
    ]  # fmt: skip  # no proof, no temporary file left


def test_a_checkpoint_that_never_came_is_an_error(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    callback = om.OverbrainerMetricsCallback()
    args, state, control = make()
    callback.on_train_begin(args, state, control)
    run.request.write_text("manual")
    state.global_step = 1
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        callback.on_step_end(args, state, control)
        callback.on_train_end(args, state, control)  # the Trainer never saved
    assert "no checkpoint was saved" in caplog.text
    assert not (run.folder / "snapshot.json").exists()
    assert [line["event"] for line in check_metrics(run.metrics)] == ["begin", "end"]


def test_lines_are_single_writes_on_an_append_descriptor(
    om: ModuleType, run: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[int] = []
    writes: list[bytes] = []
    real_open, real_write = os.open, os.write

    def spy_open(path: Any, flags: int, *args: Any) -> int:
        opened.append(flags)
        return real_open(path, flags, *args)

    def spy_write(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(om.os, "open", spy_open)
    monkeypatch.setattr(om.os, "write", spy_write)
    drive(om, steps=2)
    assert all(flags & os.O_APPEND for flags in opened if flags & (os.O_WRONLY | os.O_RDWR))
    assert all(w.endswith(b"\n") and w.count(b"\n") == 1 for w in writes)
    assert b"".join(writes) == run.metrics.read_bytes()
    assert [json.loads(w)["event"] for w in writes] == ["begin", "log", "eval", "log", "end"]


# --- the request: whatever the file is, a request, read without blocking ---------------------


def make_request(kind: str, path: Path, folder: Path) -> Any:
    """A request that is not a regular file; returns what must outlive the test (a socket)."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.listen()
        return server
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "dangling":
        path.symlink_to(folder / "nowhere")
    return None


@pytest.mark.parametrize("kind", ["fifo", "directory", "socket", "device", "dangling"])
def test_a_request_of_any_kind_takes_the_snapshot_with_no_reason(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    """Its presence is the request; its reason comes only from a regular file, so it is
    null with one warning. A plugin that opened the FIFO would wait for a writer for ever:
    the watchdog then plays the writer, and the test fails."""
    keep = make_request(kind, run.request, run.folder)
    released: list[bool] = []

    def release() -> None:
        released.append(True)
        os.close(os.open(run.request, os.O_WRONLY | os.O_NONBLOCK))

    watchdog = threading.Timer(30.0, release) if kind == "fifo" else None
    if watchdog is not None:
        watchdog.start()
    try:
        with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
            _, _, state, control = snapshot_at(om, run, None, step=1)
    finally:
        if watchdog is not None:
            watchdog.cancel()
        if keep is not None:
            keep.close()
    assert released == [], "the plugin blocked on the FIFO"
    assert (state.global_step, control.should_training_stop) == (1, True)
    proof = check_snapshot(run.folder / "snapshot.json")
    assert (proof["step"], proof["reason"]) == (1, None)
    messages = warnings_of(caplog)
    assert len(messages) == 1
    link = kind in ("device", "dangling")  # a link is never followed, whatever it points to
    expected = "is a symbolic link: it was not read" if link else "not a regular file"
    assert expected in messages[0]


def test_a_request_past_64_kib_has_no_reason_and_one_warning(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
        snapshot_at(om, run, b"manual" + b" " * (64 * 1024 - 5))
    assert check_snapshot(run.folder / "snapshot.json")["reason"] is None
    assert [m for m in warnings_of(caplog) if "longer than 65536 bytes" in m] == warnings_of(caplog)
    assert len(warnings_of(caplog)) == 1


# --- cut lines: never joined -------------------------------------------------------------------


def test_a_cut_line_left_by_a_killed_writer_is_not_joined(
    om: ModuleType, run: SimpleNamespace
) -> None:
    """The file ends in the middle of a line (a writer killed mid-write): the plugin's first
    line starts on a line of its own; the cut line stays where it was, the only bad one."""
    whole = b'{"event":"begin","time":1.5,"max_steps":null}\n'
    cut = b'{"event":"log","time":2.5,"st'
    run.metrics.write_bytes(whole + cut)
    drive(om)
    data = run.metrics.read_bytes()
    assert data.startswith(whole + cut + b"\n")
    rest = run.folder / "rest.jsonl"
    rest.write_bytes(data[len(whole + cut + b"\n") :])
    assert [line["event"] for line in check_metrics(rest)] == [
        "begin", "log", "eval", "log", "log", "end",
    ]  # fmt: skip


def test_a_fragment_another_writer_appended_to_is_not_joined(
    om: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A real full disk (a tmpfs) cuts a line short, and the job's shell appends its stage
    line right after the fragment, before the plugin can remove it: the plugin's next line
    starts on a line of its own, and the warning is one."""
    with tmpfs(tmp_path / "disk", "64k") as disk:
        metrics = disk / "metrics.jsonl"
        monkeypatch.setenv("OVERBRAINER_METRICS", str(metrics))
        monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(disk / "snapshot.request"))
        callback = om.OverbrainerMetricsCallback()
        args, state, control = make()
        callback.on_train_begin(args, state, control)
        filler = Filler(disk)
        filler.fill()
        stage = b'{"event":"stage","name":"train","time":1700000000}\n'
        real_write = os.write
        cuts: list[int] = []

        def write(fd: int, data: bytes) -> int:
            try:
                written = real_write(fd, data)
            except OSError:
                if not cuts:  # the file's last block was full: give it one more
                    filler.free(1)
                raise
            if written < len(data) and not cuts:
                cuts.append(written)
                filler.free()
                with metrics.open("ab") as shell:  # the shell's `>>`, between two lines
                    shell.write(stage)
            return written

        monkeypatch.setattr(om.os, "write", write)
        with caplog.at_level(logging.WARNING, logger="overbrainer_metrics"):
            step = 0
            while not cuts and step < 100:
                step += 1
                state.global_step = step
                callback.on_log(args, state, control, logs={"loss": 1.0 + step})
            state.global_step = step + 1
            callback.on_log(args, state, control, logs={"loss": 0.5})
            callback.on_train_end(args, state, control)
        monkeypatch.undo()
        data = metrics.read_bytes()
    assert cuts, "the disk never cut a line short"
    raw = data.split(b"\n")
    glued = next(i for i, line in enumerate(raw) if line.endswith(stage.rstrip(b"\n")))
    assert raw[glued] != stage.rstrip(b"\n"), "the fragment was there, the shell's line after it"
    before, after = run_lines(raw[:glued]), run_lines(raw[glued + 1 :])
    assert before[0]["event"] == "begin"
    assert {line["event"] for line in before[1:]} == {"log"}
    assert [(line["event"], line["step"]) for line in after] == [
        ("log", step + 1),
        ("end", step + 1),
    ]
    assert len(warnings_of(caplog)) == 1


def run_lines(raw: list[bytes]) -> list[dict[str, Any]]:
    """Lines, each through `parse_line` and the schema (an empty last one is the file's end)."""
    from plugin_helpers import METRICS_LINE, strict_loads

    lines = []
    for line in raw:
        if line:
            parse_line(line)
            value = strict_loads(line.decode())
            METRICS_LINE.validate(value)
            lines.append(value)
    return lines
