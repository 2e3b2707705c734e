"""Preemption: with `OVERBRAINER_SNAPSHOT_ON_SIGTERM=1`, SIGTERM is a snapshot request with
reason `preempted`. Real training processes, alone and as two ranks under torchrun (gloo,
CPU), signalled as an orchestrator does; each inside a timeout that fails the test."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from overbrainer_contract.plugin.source import PLUGIN_PATH
from plugin_helpers import (
    Act,
    catches_sigterm,
    check_metrics,
    check_snapshot,
    run_acting,
    tiny_assets,
)

HERE = Path(__file__).resolve().parent
TIMEOUT = 240  # seconds; a run takes ~10-20 s. A hang is what these tests are for.
SIGNAL_ENV = "OVERBRAINER_SNAPSHOT_ON_SIGTERM"


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    tiny_assets(folder)
    return folder


class Run:
    """A run folder and the command of one training process (or of torchrun)."""

    def __init__(self, folder: Path, assets: Path, *, sigterm: bool, ranks: int = 1) -> None:
        self.folder = folder / "run"
        self.results = folder / "results"
        self.folder.mkdir(parents=True)
        self.results.mkdir(parents=True)
        self.metrics = self.folder / "metrics.jsonl"
        self.log = folder / "train.log"
        paths = [str(PLUGIN_PATH.parent), str(HERE), str(HERE.parent)]
        paths.append(os.environ.get("PYTHONPATH", ""))
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in paths if p),
            "OVERBRAINER_METRICS": str(self.metrics),
            "OVERBRAINER_SNAPSHOT": str(self.folder / "snapshot.request"),
            "OMP_NUM_THREADS": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
        self.env.pop(SIGNAL_ENV, None)
        if sigterm:
            self.env[SIGNAL_ENV] = "1"
        script = [str(HERE / "ddp_train.py"), str(assets), str(self.folder / "out")]
        script.append(str(self.results))
        launcher = [sys.executable]
        if ranks > 1:
            launcher += ["-m", "torch.distributed.run", "--standalone"]
            launcher += ["--nproc_per_node", str(ranks)]
        self.command = [*launcher, *script]

    def run(self, acts: list[Act], *options: str) -> int:
        return run_acting(
            [*self.command, *options],
            cwd=self.folder,
            env=self.env,
            log=self.log,
            acts=acts,
            timeout=TIMEOUT,
        )

    def at_step(self, step: int) -> Any:
        """Holds once the `log` line of `step` is in the metrics file."""
        return lambda: self.metrics.exists() and f'"step":{step},' in self.metrics.read_text()

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]

    def checkpoints(self) -> list[str]:
        return sorted(p.name for p in (self.folder / "out").glob("checkpoint-*"))

    def ranks(self) -> list[dict[str, Any]]:
        return [json.loads(p.read_text()) for p in sorted(self.results.glob("rank-*.json"))]


def terminate(process: Any) -> None:
    process.send_signal(signal.SIGTERM)


def check_preempted(run: Run, ranks: int) -> int:
    """Every rank on one step, its checkpoint, one proof `preempted`, the `end` line."""
    seen = run.ranks()
    assert [r["rank"] for r in seen] == list(range(ranks)), run.tail()
    step: int = seen[0]["global_step"]
    assert {r["global_step"] for r in seen} == {step}, "the ranks stopped on different steps"
    assert 3 <= step < 60, "the training did not stop on SIGTERM"
    proof = check_snapshot(run.folder / "snapshot.json")
    assert (proof["checkpoint"], proof["step"], proof["reason"]) == (
        f"out/checkpoint-{step}",
        step,
        "preempted",
    )
    assert run.checkpoints() == [f"checkpoint-{step}"]
    assert (run.folder / "out" / f"checkpoint-{step}" / "trainer_state.json").is_file()
    assert sorted(p.name for p in run.folder.iterdir()) == ["metrics.jsonl", "out", "snapshot.json"]
    lines = check_metrics(run.metrics)
    events = [line["event"] for line in lines]
    assert (events.count("begin"), events.count("end")) == (1, 1)
    assert lines[-1] == {**lines[-1], "event": "end", "step": step}
    logs = [line["step"] for line in lines if line["event"] == "log" and line["loss"] is not None]
    assert logs == list(range(1, step + 1))
    return step


def test_sigterm_takes_a_snapshot_and_the_process_exits_0(assets: Path, tmp_path: Path) -> None:
    run = Run(tmp_path, assets, sigterm=True)
    status = run.run([(run.at_step(3), terminate)])
    assert status == 0, run.tail()
    check_preempted(run, ranks=1)


def test_with_transformers_jit_checkpoint_one_checkpoint_and_one_proof(
    assets: Path, tmp_path: Path
) -> None:
    """transformers' `enable_jit_checkpoint` on too: the plugin's handler, installed when the
    training begins, answers the SIGTERM; the JIT callback never saves a second time."""
    run = Run(tmp_path, assets, sigterm=True)
    status = run.run([(run.at_step(3), terminate)], "--jit")
    assert status == 0, run.tail()
    step = check_preempted(run, ranks=1)
    checkpoint = run.folder / "out" / f"checkpoint-{step}"
    assert not (checkpoint / "checkpoint-is-incomplete.txt").exists()
    assert "JITCheckpointCallback" in run.ranks()[0]["callbacks"]


def test_without_the_variable_sigterm_kills_the_run(assets: Path, tmp_path: Path) -> None:
    run = Run(tmp_path, assets, sigterm=False)
    status = run.run([(run.at_step(3), terminate)])
    assert status == -signal.SIGTERM, run.tail()
    assert not (run.folder / "snapshot.json").exists()
    assert run.checkpoints() == []
    assert [line["event"] for line in check_metrics(run.metrics)][-1] == "log", "no end line"
    assert run.ranks() == []


def test_a_second_sigterm_kills_the_run(assets: Path, tmp_path: Path) -> None:
    """The first SIGTERM is taken (the process gives SIGTERM back to its default handler,
    as /proc shows), the second one kills it."""
    run = Run(tmp_path, assets, sigterm=True)
    pid: list[int] = []

    def first(process: Any) -> None:
        assert catches_sigterm(process.pid), "the plugin's handler is not installed"
        pid.append(process.pid)
        terminate(process)

    acts: list[Act] = [
        (run.at_step(3), first),
        (lambda: not catches_sigterm(pid[0]), terminate),
    ]
    status = run.run(acts)
    assert status == -signal.SIGTERM, run.tail()
    assert run.ranks() == []


def test_sigterm_before_or_after_the_training_kills_the_process(
    assets: Path, tmp_path: Path
) -> None:
    """Before `on_train_begin` (the plugin imported, the Trainer built) and after
    `on_train_end`, SIGTERM is the process's own: it dies."""
    before = Run(tmp_path / "before", assets, sigterm=True)
    built = before.results / "built"
    assert before.run([(built.exists, terminate)], "--wait-before") == -signal.SIGTERM
    assert not before.metrics.exists()

    after = Run(tmp_path / "after", assets, sigterm=True)
    trained = after.results / "trained"
    status = after.run([(trained.exists, terminate)], "--max-steps", "4", "--linger")
    assert status == -signal.SIGTERM, after.tail()
    assert [r["global_step"] for r in after.ranks()] == [4]
    assert not (after.folder / "snapshot.json").exists()
    assert check_metrics(after.metrics)[-1]["event"] == "end"


def test_a_sigterm_after_the_last_step_end_is_warned_and_delivered_again(
    assets: Path, tmp_path: Path
) -> None:
    """SIGTERM between the last step end and the training's end: no step end is left to
    take the snapshot, so the plugin says so, writes `end`, and the process dies of it."""
    run = Run(tmp_path, assets, sigterm=True)
    ending = run.results / "ending"
    status = run.run([(ending.exists, terminate)], "--max-steps", "4", "--slow-end")
    assert status == -signal.SIGTERM, run.tail()
    assert "SIGTERM came after the last step ended: no snapshot was taken" in run.tail()
    assert not (run.folder / "snapshot.json").exists()
    assert run.checkpoints() == []
    assert check_metrics(run.metrics)[-1]["event"] == "end"
    assert run.ranks() == [], "the process went on after the training"


def test_transformers_jit_checkpoint_alone_is_left_alone(assets: Path, tmp_path: Path) -> None:
    """Without the variable, transformers' JIT checkpoint answers SIGTERM its own way (a
    checkpoint once its 3 s have passed, the training stopped) and no proof is written."""
    run = Run(tmp_path, assets, sigterm=False)
    status = run.run([(run.at_step(3), terminate)], "--jit")
    assert status == 0, run.tail()
    (seen,) = run.ranks()
    assert "JITCheckpointCallback" in seen["callbacks"]
    assert 3 < seen["global_step"] < 60
    assert len(run.checkpoints()) == 1
    assert not (run.folder / "snapshot.json").exists()


def test_two_ranks_under_torchrun_stop_on_the_same_step(assets: Path, tmp_path: Path) -> None:
    """SIGTERM to the launcher, as an orchestrator sends it: torchrun forwards it to both
    ranks and kills them after its own grace period (30 s). Both ranks save and stop on the
    same step, the checkpoint and one proof are on disk, and both exit before that grace
    ends (torchrun itself then exits non-zero, as it does on any signal)."""
    run = Run(tmp_path, assets, sigterm=True, ranks=2)
    run.run([(run.at_step(3), terminate)])
    log = run.log.read_text(errors="replace")
    assert "forcefully exiting" not in log, "a rank outlived torchrun's grace period"
    assert log.count("closing signal SIGTERM") == 2, "torchrun did not forward the SIGTERM"
    seen = run.ranks()
    assert [(r["world_size"], r["backend"]) for r in seen] == [(2, "gloo"), (2, "gloo")]
    check_preempted(run, ranks=2)
