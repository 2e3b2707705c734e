"""Shared by the plugin's tests: loading the plugin alone, and checking what it wrote."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from overbrainer_contract import parse_line
from overbrainer_contract.plugin.source import PLUGIN_PATH
from schema_registry import validator

ROOT = Path(__file__).resolve().parents[2]


def load_plugin() -> ModuleType:
    """The plugin module, imported from its file as `overbrainer_metrics` (as a run does)."""
    name = "overbrainer_metrics"
    module = sys.modules.get(name)
    if module is not None and Path(module.__file__ or "") == PLUGIN_PATH:
        return module
    spec = importlib.util.spec_from_file_location(name, PLUGIN_PATH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


METRICS_LINE = validator("metrics-line")
SNAPSHOT = validator("snapshot")


def run_with_request(
    command: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    log: Path,
    request: Path,
    word: str,
    when: Callable[[], bool],
    timeout: float,
) -> int:
    """Runs `command` and writes the snapshot request (`word`) once `when()` holds.

    Fails the test if it is still running after `timeout` seconds (a hang), killing
    its whole process group; returns its exit status.
    """
    return run_acting(
        command,
        cwd=cwd,
        env=env,
        log=log,
        acts=[(when, lambda _: request.write_text(word))],
        timeout=timeout,
    )


Act = tuple[Callable[[], bool], Callable[["subprocess.Popen[bytes]"], object]]


def run_acting(
    command: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    log: Path,
    acts: list[Act],
    timeout: float,
) -> int:
    """Runs `command` and, in order, does each act `(when, act)`: `act(process)` once
    `when()` holds (a request to write, a signal to send).

    Fails the test if it is still running after `timeout` seconds (a hang), killing
    its whole process group; returns its exit status (minus the signal that ended it).
    """
    pending = list(acts)
    with log.open("w") as output:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        try:
            while process.poll() is None and time.monotonic() < deadline:
                if pending and pending[0][0]():
                    pending.pop(0)[1](process)
                time.sleep(0.02)
            if process.poll() is None:
                tail = log.read_text(errors="replace")[-6000:]
                pytest.fail(f"{command[0]} still running after {timeout} s: a hang\n{tail}")
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    return process.returncode


def catches_sigterm(pid: int) -> bool:
    """Whether process `pid` has a handler of its own for SIGTERM (Linux: /proc)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def _no_constant(name: str) -> Any:
    raise AssertionError(f"non-strict JSON constant {name}")


def strict_loads(text: str) -> Any:
    """`json.loads` that refuses NaN and Infinity."""
    return json.loads(text, parse_constant=_no_constant)


def check_metrics(path: Path) -> list[dict[str, Any]]:
    """Every line of a metrics file, checked: whole, compact strict JSON, valid for the
    schema and for the reference parser. Returns the decoded lines."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the file ends in the middle of a line"
    lines = []
    for raw in data.decode("utf-8").splitlines():
        value = strict_loads(raw)
        METRICS_LINE.validate(value)
        parse_line(raw)
        assert raw == json.dumps(value, separators=(",", ":")), f"not compact: {raw}"
        lines.append(value)
    return lines


def check_with_cli(path: Path) -> str:
    """`overbrainer-contract check PATH`, run as a command: exit 0, no error and no warning.
    Returns what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 errors, 0 warnings" in done.stdout, done.stdout
    return done.stdout


def reference_runner() -> Path | None:
    """The reference runner `OVERBRAINER_REFERENCE_RUNNER` names (`None` when unset)."""
    named = os.environ.get("OVERBRAINER_REFERENCE_RUNNER")
    return Path(named) if named else None


def check_with_reference(runner: Path, path: Path) -> list[dict[str, Any]]:
    """Every line of `path` answered by the reference runner (its `lines` mode): each one
    read (`ok`). Returns the answers."""
    done = subprocess.run(
        [str(runner), "lines", str(path)], check=True, capture_output=True, timeout=120
    )
    answers = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert len(answers) == len(path.read_bytes().splitlines())
    refused = [(number, a) for number, a in enumerate(answers, start=1) if not a["ok"]]
    assert not refused, f"lines the reference refuses: {refused}"
    return answers


def check_snapshot(path: Path) -> dict[str, Any]:
    """The proof of a snapshot, checked against its schema."""
    value = strict_loads(path.read_text())
    SNAPSHOT.validate(value)
    assert isinstance(value, dict)
    return value


def tiny_assets(folder: Path, rows: int = 50) -> tuple[Path, Path, Path]:
    """A BPE tokenizer, a tiny random Llama and a JSONL data set, made locally.

    Returns the model folder (tokenizer saved beside the model), the training data and
    the evaluation data (completion rows `{"text": ...}`).
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = [
        "the",
        "a",
        "cat",
        "dog",
        "runs",
        "sleeps",
        "on",
        "mat",
        "under",
        "tree",
        "big",
        "small",
        "red",
        "blue",
        "quickly",
    ]
    texts = [
        " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(8 + i % 5)) for i in range(rows)
    ]
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(
        texts,
        trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<pad>", "<s>", "</s>"]),
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
    )
    model_dir = folder / "tiny-llama"
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        pad_token_id=fast.pad_token_id,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(model_dir)
    fast.save_pretrained(model_dir)
    split = int(rows * 0.8)
    train, evaluation = folder / "data.jsonl", folder / "eval.jsonl"
    train.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts[:split]))
    evaluation.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts[split:]))
    return model_dir, train, evaluation


def slow_callback(seconds: float) -> Any:
    """A Trainer callback that sleeps at each step's start, so that a request written from
    elsewhere lands during the run, not after it (a tiny model trains 20 steps in < 1 s)."""
    import time

    from transformers import TrainerCallback

    class SlowSteps(TrainerCallback):  # type: ignore[misc]
        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
            time.sleep(seconds)

    return SlowSteps()


def build_trainer(
    model_dir: Path,
    train: Path,
    evaluation: Path,
    output_dir: Path,
    callbacks: list[Any],
    max_steps: int = 20,
    **overrides: Any,
) -> Any:
    """A real transformers Trainer on the tiny model: logs every step, evaluates every 5."""
    import torch
    from transformers import (
        AutoTokenizer,
        DataCollatorForLanguageModeling,
        LlamaForCausalLM,
        Trainer,
        TrainingArguments,
    )

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    dtype = torch.bfloat16 if overrides.get("bf16") else torch.float32
    model = LlamaForCausalLM.from_pretrained(model_dir, dtype=dtype)

    def rows(path: Path) -> list[dict[str, Any]]:
        texts = [json.loads(line)["text"] for line in path.read_text().splitlines()]
        return [dict(tokenizer(text, truncation=True, max_length=64)) for text in texts]

    settings: dict[str, Any] = {
        "output_dir": str(output_dir),
        "max_steps": max_steps,
        "per_device_train_batch_size": 2,
        "per_device_eval_batch_size": 2,
        "learning_rate": 1e-3,
        "logging_steps": 1,
        "eval_strategy": "steps",
        "eval_steps": 5,
        "save_strategy": "no",
        "report_to": [],
        "disable_tqdm": True,
        "use_cpu": True,
        "dataloader_num_workers": 0,
        "seed": 0,
    }
    settings.update(overrides)
    return Trainer(
        model=model,
        args=TrainingArguments(**settings),
        train_dataset=rows(train),
        eval_dataset=rows(evaluation),
        data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False),
        callbacks=callbacks,
    )


def at_step(step: int, action: Callable[[Any], object], event: str = "on_log") -> Any:
    """A Trainer callback that runs `action(state)` once, at `event` of step `step`.

    Placed after the plugin in the callback list, it acts once the plugin has handled
    the same event: in the training's own thread, at a step known in advance.
    """
    from transformers import TrainerCallback

    class AtStep(TrainerCallback):  # type: ignore[misc]
        done = False

        def hook(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
            if not self.done and state.global_step == step:
                self.done = True
                action(state)

    callback = AtStep()
    setattr(callback, event, callback.hook)
    return callback


def begun(om: ModuleType, max_steps: int = 4) -> tuple[Any, Any, Any, Any]:
    """A callback of the plugin `om` whose training of `max_steps` steps has begun, on process
    zero at epoch 0: the callback, args (a stand-in), state and control (the real classes)."""
    from transformers import TrainerControl, TrainerState

    callback = om.OverbrainerMetricsCallback()
    args = SimpleNamespace(output_dir="out", save_strategy="no", device="cpu")
    state, control = TrainerState(), TrainerControl()
    state.max_steps, state.is_world_process_zero, state.epoch = max_steps, True, 0.0
    callback.on_train_begin(args, state, control)
    return callback, args, state, control


def plugin_warnings(records: list[Any]) -> list[str]:
    """The plugin's warnings and errors among captured log records."""
    return [r.getMessage() for r in records if r.name == "overbrainer_metrics" and r.levelno >= 30]


class Filler:
    """Fills a filesystem to its last block with files of one block each, and frees them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.block = os.statvfs(folder).f_bsize
        self.files: list[Path] = []

    def fill(self) -> None:
        """Writes one-block files until the filesystem refuses (ENOSPC)."""
        while True:
            path = self.folder / f"filler-{len(self.files)}"
            self.files.append(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                if os.write(fd, b"\0" * self.block) < self.block:
                    return
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                return
            finally:
                os.close(fd)

    def free(self, blocks: int | None = None) -> None:
        """Frees `blocks` blocks (all of them when `None`)."""
        count = len(self.files) if blocks is None else blocks
        for _ in range(min(count, len(self.files))):
            self.files.pop().unlink()
