"""Two processes under torchrun (gloo, CPU) and a snapshot request: both ranks save and stop
on the same step, rank 0 alone writes, and nothing hangs (a timeout fails the test)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from overbrainer_contract.plugin.source import PLUGIN_PATH
from plugin_helpers import check_metrics, check_snapshot, run_with_request, tiny_assets

HERE = Path(__file__).resolve().parent
TIMEOUT = 240  # seconds; the run takes ~15 s. A hang is what this test is for.


def test_two_ranks_stop_on_the_same_step_and_one_proof_is_written(tmp_path: Path) -> None:
    tiny_assets(tmp_path)
    run = tmp_path / "run"
    results = tmp_path / "results"
    run.mkdir()
    results.mkdir()
    metrics, request = run / "metrics.jsonl", run / "snapshot.request"
    # the children import the plugin, and these helpers (tests/plugin, tests/)
    paths = [str(PLUGIN_PATH.parent), str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH", "")]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in paths if p),
        "OVERBRAINER_METRICS": str(metrics),
        "OVERBRAINER_SNAPSHOT": str(request),
        "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
        str(HERE / "ddp_train.py"),
        str(tmp_path),
        str(run / "out"),
        str(results),
    ]
    status = run_with_request(
        command,
        cwd=run,
        env=env,
        log=tmp_path / "torchrun.log",
        request=request,
        word="preempted",
        when=lambda: metrics.exists() and '"step":3,' in metrics.read_text(),
        timeout=TIMEOUT,
    )
    assert status == 0, tail(tmp_path)
    assert request.exists(), "the run ended before the request was written"

    ranks = [json.loads((results / f"rank-{r}.json").read_text()) for r in (0, 1)]
    assert [(r["rank"], r["world_size"], r["backend"]) for r in ranks] == [
        (0, 2, "gloo"),
        (1, 2, "gloo"),
    ]
    step = ranks[0]["global_step"]
    assert ranks[1]["global_step"] == step, "the ranks stopped on different steps"
    assert 3 <= step < 60, "the training did not stop on the request"

    proof = check_snapshot(run / "snapshot.json")
    assert (proof["checkpoint"], proof["step"], proof["reason"]) == (
        f"out/checkpoint-{step}",
        step,
        "preempted",
    )
    assert (run / "out" / f"checkpoint-{step}" / "trainer_state.json").is_file()
    assert sorted(p.name for p in run.iterdir()) == [
        "metrics.jsonl",
        "out",
        "snapshot.json",
        "snapshot.request",
    ]

    lines = check_metrics(metrics)
    events = [line["event"] for line in lines]
    assert events.count("begin") == 1, "a second rank wrote"
    assert events.count("end") == 1, "a second rank wrote"
    assert lines[-1]["event"] == "end"
    assert lines[-1]["step"] == step
    train_steps = [
        line["step"] for line in lines if line["event"] == "log" and line["loss"] is not None
    ]
    assert train_steps == list(range(1, step + 1))


def tail(folder: Path) -> str:
    text = (folder / "torchrun.log").read_text(errors="replace")
    return text[-6000:]
