"""A sweep of runs for the command line's tests: 40 runs written through the plugin's own
callback (`overbrainer_metrics.OverbrainerMetricsCallback`, driven with a Trainer's state
and a clock of ours), and two real Trainer runs when torch and transformers can be had.

`build_sweep(root)` writes, under `root`:

    exp1/seed1 ... exp1/seed20    learning rate 3e-2 (cosine decay), 100 steps
    exp2/seed1 ... exp2/seed20    learning rate 3e-4: 100 times smaller (`plot --log`)
    trainer/lr3e-2, trainer/lr3e-4   real Trainer runs of a tiny Llama, 20 steps (optional)

Every run logs every step (loss, learning rate, grad norm) and evaluates every 20 steps
(`eval` progress lines, then a log with `eval_loss`); `begin` knows `max_steps`. The
runs' lines are timed from now (`Sweep.now`, the build's time), a step every
`STEP_SECONDS`: a run still training wrote its last line `LIVE_SILENCE` seconds ago, a run
that ended ended `ENDED_AGO` seconds ago. Among them (`Sweep.runs[name]` says it of each):

- `RESUMED` (exp1/seed2): killed at step 60 (no `end`), then resumed from its checkpoint:
  a second `begin`, steps 61 to 100 again, `end`;
- `STALLED` (exp2/seed3): training, its last line `STALLED_SILENCE` (30 h) old; the file's
  mtime too;
- `GZIPPED` (exp2/seed4): ended, its metrics gzip-compressed as `metrics.jsonl.gz`;
- `BAD` (exp1/seed5: two invalid lines; exp2/seed6: one invalid line and its last line cut
  short, no newline, which is a warning and not invalid): `Run.invalid` counts them;
- `SNAPSHOT` (exp1/seed7): a snapshot requested (`snapshot.request`, `manual`) at step 50
  and taken by the callback (`snapshot.json`, checkpoint `out/checkpoint-50`), then the
  training stopped and ended;
- `EVALUATING` (exp1/seed8): in an evaluation (3 of its 10 batches) at step 80;
- the runs of odd seeds above 8 ended at step 100; the others still train (at a step
  between 30 and 95, their own).

The real Trainer runs need torch and transformers: in this interpreter (nox's plugin
session), or in the one `OVERBRAINER_SWEEP_TRAINER_PYTHON` names. Without either they
are left out (`Sweep.trainer_skipped` says why) and the sweep has its 40 runs all the same.

Run as a script (`python tests/sweep.py ROOT`) it builds a sweep to look at.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "python/overbrainer_contract/plugin/overbrainer_metrics.py"

MAX_STEPS = 100
STEP_SECONDS = 0.5
EVAL_EVERY = 20
EVAL_BATCHES = 10
LIVE_SILENCE = 2.0
ENDED_AGO = 600.0
STALLED_SILENCE = 30 * 3600.0

RESUMED = "exp1/seed2"
STALLED = "exp2/seed3"
GZIPPED = "exp2/seed4"
BAD = ("exp1/seed5", "exp2/seed6")
SNAPSHOT = "exp1/seed7"
EVALUATING = "exp1/seed8"
LEARNING_RATES = {"exp1": 3e-2, "exp2": 3e-4}
TRAINER_RUNS = {"trainer/lr3e-2": 3e-2, "trainer/lr3e-4": 3e-4}
TRAINER_PYTHON_ENV = "OVERBRAINER_SWEEP_TRAINER_PYTHON"


@dataclass
class Run:
    """What a run of the sweep is, as built (the tests' expectations come from here)."""

    name: str
    """Its path below the sweep's root: `exp1/seed1`, its name for every command."""
    learning_rate: float
    step: int
    """Its latest training step."""
    ended: bool
    last_time: float
    """The `time` of its last line."""
    begins: int = 1
    invalid: int = 0
    cut: bool = False
    """Whether its last line is cut short (no newline)."""
    evaluating: bool = False
    snapshot: bool = False
    gzipped: bool = False
    best_eval: tuple[float, int] | None = None
    """Its lowest `eval_loss` and the step it was logged at."""
    loss: float | None = None
    """Its latest training loss."""
    trainer: bool = False

    @property
    def metrics(self) -> str:
        return "metrics.jsonl.gz" if self.gzipped else "metrics.jsonl"


@dataclass
class Sweep:
    root: Path
    now: float
    runs: dict[str, Run] = field(default_factory=dict)
    trainer_skipped: str | None = None
    """Why the real Trainer runs are left out, or None when they are there."""


class Clock:
    """The plugin's clock: `time()` and `monotonic()`, set by the builder."""

    def __init__(self, wall: float) -> None:
        self.wall = wall

    def time(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.wall


class Sized:
    """An evaluation dataloader of a known length."""

    def __len__(self) -> int:
        return EVAL_BATCHES


def load_plugin() -> types.ModuleType:
    """The plugin, loaded from its file under a name of its own (its clock ours). Without
    transformers, its base class is a plain class for the time it loads: the callback's
    methods are what is driven, not a Trainer."""
    spec = importlib.util.spec_from_file_location("_sweep_overbrainer_metrics", PLUGIN)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    stub = None
    if "transformers" not in sys.modules and importlib.util.find_spec("transformers") is None:
        stub = types.ModuleType("transformers")
        stub.TrainerCallback = type("TrainerCallback", (), {})  # type: ignore[attr-defined]
        sys.modules["transformers"] = stub
    try:
        spec.loader.exec_module(module)
    finally:
        if stub is not None:
            del sys.modules["transformers"]
    return module


def _state(max_steps: int) -> Any:
    return types.SimpleNamespace(
        global_step=0, epoch=0.0, max_steps=max_steps, is_world_process_zero=True
    )


def _control() -> Any:
    return types.SimpleNamespace(
        should_save=False, should_training_stop=False, should_evaluate=False
    )


def _curve(lr: float, seed: int, step: int) -> tuple[float, float, float]:
    """(loss, learning rate, grad norm) at `step`: a decaying loss, its noise the seed's."""
    noise = random.Random(seed * 1000 + step).uniform(-0.05, 0.05)
    scale = 1.0 if lr > 1e-3 else 0.6  # the small rate learns slower
    loss = 0.8 + 2.2 * math.exp(-scale * step / 30) + noise + seed * 0.01
    rate = lr * 0.5 * (1 + math.cos(math.pi * step / MAX_STEPS))
    return loss, rate, 1.0 + noise * 4


def _eval_loss(lr: float, seed: int, step: int) -> float:
    return _curve(lr, seed, step)[0] + 0.1


class Writer:
    """One run written through the callback, a step at a time."""

    def __init__(self, plugin: types.ModuleType, folder: Path, run: Run, seed: int) -> None:
        self.plugin, self.folder, self.run, self.seed = plugin, folder, run, seed
        self.clock = Clock(0.0)
        self.args = types.SimpleNamespace(
            output_dir=str(folder / "out"), save_strategy="steps", device="cpu"
        )

    def train(self, start: int, stop: int, t0: float, *, request_at: int | None = None) -> float:
        """A training from step `start` (0: fresh, else resumed) to `stop` at most: begin,
        a log per step, evaluations; `end` when it gets to MAX_STEPS or a snapshot stops
        it. The time of its last line."""
        plugin, run = self.plugin, self.run
        vars(plugin)["time"] = self.clock  # the plugin reads this clock for its `time` module
        callback = plugin.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(None, None)[0]
        state, control = _state(MAX_STEPS), _control()
        state.global_step = start
        self.clock.wall = t0
        environ = {
            "OVERBRAINER_METRICS": str(self.folder / "metrics.jsonl"),
            "OVERBRAINER_SNAPSHOT": str(self.folder / "snapshot.request"),
        }
        saved = {key: os.environ.get(key) for key in environ}
        os.environ.update(environ)
        try:
            callback.on_train_begin(self.args, state, control)
            for step in range(start + 1, stop + 1):
                self.clock.wall = t0 + (step - start) * STEP_SECONDS
                state.global_step, state.epoch = step, step / MAX_STEPS
                if request_at == step:
                    (self.folder / "snapshot.request").write_text("manual\n")
                callback.on_step_end(self.args, state, control)
                loss, rate, grad = _curve(run.learning_rate, self.seed, step)
                logs = {"loss": loss, "learning_rate": rate, "grad_norm": grad}
                callback.on_log(self.args, state, control, logs={**logs, "epoch": state.epoch})
                run.step, run.loss = step, loss
                if control.should_save:
                    checkpoint = self.folder / "out" / f"checkpoint-{step}"
                    checkpoint.mkdir(parents=True)
                    callback.on_save(self.args, state, control)
                    run.snapshot = True
                    break
                if step % EVAL_EVERY == 0:
                    self._evaluate(callback, state, control, step)
            else:
                if stop < MAX_STEPS:
                    return self.clock.wall  # still training (or killed)
            self.clock.wall += 0.1
            callback.on_train_end(self.args, state, control)
            run.ended = True
            return self.clock.wall
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def _evaluate(self, callback: Any, state: Any, control: Any, step: int) -> None:
        loader = Sized()
        for _ in range(EVAL_BATCHES):
            self.clock.wall += 0.05
            callback.on_prediction_step(self.args, state, control, eval_dataloader=loader)
        value = _eval_loss(self.run.learning_rate, self.seed, step)
        callback.on_log(self.args, state, control, logs={"eval_loss": value})
        callback.on_evaluate(self.args, state, control, metrics={})
        best = self.run.best_eval
        if best is None or value < best[0]:
            self.run.best_eval = (value, step)


def _shape(seed: int, name: str) -> tuple[int, bool]:
    """(the step a run gets to, whether it ends)."""
    if name == EVALUATING:
        return 80, False
    if (seed > 8 and seed % 2 == 1) or name in (GZIPPED, RESUMED, SNAPSHOT):
        return MAX_STEPS, True
    return 30 + (seed * 13 + len(name)) % 66, False


def build_sweep(root: Path, *, trainer: bool = True) -> Sweep:
    """The sweep under `root` (see the module's docstring)."""
    plugin = load_plugin()
    now = time.time()
    sweep = Sweep(root, now)
    for experiment, lr in LEARNING_RATES.items():
        for seed in range(1, 21):
            name = f"{experiment}/seed{seed}"
            folder = root / name
            folder.mkdir(parents=True)
            run = Run(name, lr, 0, False, 0.0)
            writer = Writer(plugin, folder, run, seed)
            stop, ends = _shape(seed, name)
            if name == RESUMED:
                t0 = now - ENDED_AGO - 2 * MAX_STEPS * STEP_SECONDS - 300
                writer.train(0, 60, t0)  # killed at step 60: no end
                run.begins = 2
                last = writer.train(60, MAX_STEPS, t0 + 60 * STEP_SECONDS + 300)
            elif name == SNAPSHOT:
                t0 = now - ENDED_AGO - 50 * STEP_SECONDS
                last = writer.train(0, MAX_STEPS, t0, request_at=50)
            else:
                silence = STALLED_SILENCE if name == STALLED else LIVE_SILENCE
                if ends:
                    silence = ENDED_AGO
                t0 = now - silence - stop * STEP_SECONDS - 0.1
                last = writer.train(0, stop if not ends else MAX_STEPS, t0)
                if name == EVALUATING:
                    last = _evaluate_partly(writer, run, stop, last)
            run.last_time = last
            metrics = folder / "metrics.jsonl"
            if name in BAD:
                _spoil(metrics, run)
            if name == GZIPPED:
                gz = folder / "metrics.jsonl.gz"
                gz.write_bytes(gzip.compress(metrics.read_bytes(), mtime=0))
                metrics.unlink()
                run.gzipped = True
            os.utime(folder / run.metrics, (last, last))
            sweep.runs[name] = run
    if trainer:
        sweep.trainer_skipped = _trainer_runs(sweep)
    else:
        sweep.trainer_skipped = "not asked for"
    return sweep


def _evaluate_partly(writer: Writer, run: Run, step: int, last: float) -> float:
    """Three batches of an evaluation at `step`, written as the callback writes them (at
    most a line every 2 s: the clock moves 2 s a batch)."""
    plugin = writer.plugin
    vars(plugin)["time"] = writer.clock
    callback = plugin.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(None, None)[0]
    callback._writer = True
    callback._metrics = str(writer.folder / "metrics.jsonl")
    state, control = _state(MAX_STEPS), _control()
    state.global_step = step
    writer.clock.wall = last - 3 * 2.0
    for _ in range(3):
        writer.clock.wall += 2.0
        callback.on_prediction_step(writer.args, state, control, eval_dataloader=Sized())
    run.evaluating = True
    return writer.clock.wall


def _spoil(metrics: Path, run: Run) -> None:
    """Invalid lines in a run's file: two (a cut line, not JSON), or one and a last line
    cut short (no newline)."""
    lines = metrics.read_bytes().splitlines(keepends=True)
    if run.name == BAD[0]:
        lines.insert(10, b'{"event":"log","time":1.0,"step":\n')
        lines.insert(20, b"not json at all\n")
        run.invalid = 2
    else:
        lines.insert(15, b'{"event":"log","time":"yesterday","step":3}\n')
        lines.append(b'{"event":"log","time":')
        run.invalid, run.cut = 1, True
    metrics.write_bytes(b"".join(lines))


# --- real Trainer runs -------------------------------------------------------------------


def _trainer_python() -> str | None:
    chosen = os.environ.get(TRAINER_PYTHON_ENV)
    if chosen:
        return chosen
    if all(importlib.util.find_spec(name) for name in ("torch", "transformers")):
        return sys.executable
    return None


def _trainer_runs(sweep: Sweep) -> str | None:
    """The real Trainer runs, in a child process (torch is not imported here); why not."""
    python = _trainer_python()
    if python is None:
        return f"no torch and transformers here, and {TRAINER_PYTHON_ENV} is not set"
    folders = [str(sweep.root / name) for name in TRAINER_RUNS]
    rates = [str(rate) for rate in TRAINER_RUNS.values()]
    command = [python, __file__, "--trainer", str(sweep.root), *folders, "--", *rates]
    subprocess.run(command, check=True, timeout=600, cwd=ROOT, capture_output=True)
    for name, rate in TRAINER_RUNS.items():
        lines = [
            json.loads(line)
            for line in (sweep.root / name / "metrics.jsonl").read_text().splitlines()
        ]
        logs = [line for line in lines if line["event"] == "log"]
        evals = [(line["eval_loss"], line["step"]) for line in logs if line["eval_loss"]]
        losses = [line["loss"] for line in logs if line["loss"] is not None]
        sweep.runs[name] = Run(
            name,
            rate,
            lines[-1]["step"],
            True,
            lines[-1]["time"],
            best_eval=min(evals) if evals else None,
            loss=losses[-1] if losses else None,
            trainer=True,
        )
    return None


def _train_for_real(assets: Path, folders: list[str], rates: list[str]) -> None:
    """Child process: a real Trainer run of the tiny Llama per folder, the plugin on."""
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests/plugin"))
    from plugin_helpers import build_trainer, load_plugin, tiny_assets

    model, train, evaluation = tiny_assets(assets)
    plugin = load_plugin()
    for folder, rate in zip(folders, rates, strict=True):
        Path(folder).mkdir(parents=True)
        os.environ["OVERBRAINER_METRICS"] = str(Path(folder) / "metrics.jsonl")
        os.environ["OVERBRAINER_SNAPSHOT"] = str(Path(folder) / "snapshot.request")
        callback = plugin.OverbrainerMetricsPlugin().add_callbacks_pre_trainer(None, None)[0]
        trainer = build_trainer(
            model, train, evaluation, Path(folder) / "out", [callback], learning_rate=float(rate)
        )
        trainer.train()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--trainer"]:
        split = sys.argv.index("--")
        _train_for_real(Path(sys.argv[2]) / ".assets", sys.argv[3:split], sys.argv[split + 1 :])
    else:
        built = build_sweep(Path(sys.argv[1]))
        trainer_runs = built.trainer_skipped or "yes"
        print(f"{len(built.runs)} runs in {built.root}; trainer runs: {trainer_runs}")
