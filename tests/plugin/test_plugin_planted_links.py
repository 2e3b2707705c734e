"""Links planted in a run folder while a real Trainer trains with the plugin (a tiny random
Llama, CPU, in a child process under a timeout): the plugin writes through none of them
and reads none of them.

One child run (`planted_train.py`) does the planting at known steps: `metrics.jsonl`
swapped for a link after step 1, `.snapshot.json.<pid>.tmp` and `snapshot.request`
planted as links after step 2 (the request pointing to a 0600 token). Each test below
asserts one of its consequences on the files the run left.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from overbrainer_contract.plugin.source import PLUGIN_PATH
from plugin_helpers import check_metrics, check_snapshot, run_acting, tiny_assets

HERE = Path(__file__).resolve().parent
TIMEOUT = 240  # seconds; the run takes ~10 s. Still running by then is a hang.
METRICS_TARGET = b"the file metrics.jsonl was swapped for a link to\n"
PROOF_TARGET = b"the file a planted temporary proof points to\n"
TOKEN = "s3cr3t-token-0600"  # one word: the plugin would take it as a reason if it read it


class Planted:
    """What the child run left: its run folder, the files outside it, its log and result."""

    def __init__(self, folder: Path) -> None:
        self.run = folder / "run"
        self.outside = folder / "outside"
        self.results = folder / "results"
        for path in (self.run, self.outside, self.results):
            path.mkdir()
        (self.outside / "metrics-target").write_bytes(METRICS_TARGET)
        (self.outside / "proof-target").write_bytes(PROOF_TARGET)
        token = self.outside / "token"
        token.write_text(TOKEN + "\n")
        token.chmod(0o600)
        self.log = folder / "train.log"
        self.result: dict[str, Any] = {}

    def text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    assets = tmp_path_factory.mktemp("assets")
    tiny_assets(assets)
    planted = Planted(tmp_path_factory.mktemp("planted"))
    paths = [str(PLUGIN_PATH.parent), str(HERE), str(HERE.parent)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([*paths, os.environ.get("PYTHONPATH", "")]),
        "OVERBRAINER_METRICS": str(planted.run / "metrics.jsonl"),
        "OVERBRAINER_SNAPSHOT": str(planted.run / "snapshot.request"),
        "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    env.pop("OVERBRAINER_SNAPSHOT_ON_SIGTERM", None)
    command = [sys.executable, str(HERE / "planted_train.py"), str(assets)]
    command += [str(planted.run), str(planted.outside), str(planted.results)]
    code = run_acting(command, cwd=planted.run, env=env, log=planted.log, acts=[], timeout=TIMEOUT)
    assert code == 0, planted.text()[-6000:]
    planted.result = json.loads((planted.results / "result.json").read_text())
    return planted


def warnings_in(planted: Planted, text: str) -> list[str]:
    return [line for line in planted.text().splitlines() if "WARNING" in line and text in line]


def test_a_metrics_file_swapped_for_a_link_is_not_appended_through(planted: Planted) -> None:
    """The target is untouched; the lines before the swap are whole; one warning."""
    assert (planted.outside / "metrics-target").read_bytes() == METRICS_TARGET
    assert (planted.run / "metrics.jsonl").is_symlink()
    lines = check_metrics(planted.run / "metrics.before")
    assert [line["event"] for line in lines] == ["begin", "log"]
    assert lines[1]["step"] == 1
    assert len(warnings_in(planted, "a symbolic link: not written through")) == 1


def test_a_planted_temporary_proof_link_is_not_written_through(
    planted: Planted, om: ModuleType
) -> None:
    """`.snapshot.json.<pid>.tmp` planted as a link: its target is untouched, the link is
    left alone, and `snapshot.json` is a regular file holding the proof (0644), renamed
    from a temporary file of another name (pid and a random part) that the cleanup of
    stray proofs at the next run's start recognises."""
    pid = planted.result["pid"]
    assert (planted.outside / "proof-target").read_bytes() == PROOF_TARGET
    assert (planted.run / f".snapshot.json.{pid}.tmp").is_symlink()
    snapshot = planted.run / "snapshot.json"
    info = os.lstat(snapshot)
    assert stat.S_ISREG(info.st_mode), "snapshot.json is not a regular file"
    assert stat.S_IMODE(info.st_mode) == 0o644
    proof = check_snapshot(snapshot)
    assert (proof["checkpoint"], proof["step"]) == ("out/checkpoint-3", 3)
    temporaries = [name for name in planted.result["replaced"] if name.startswith(".snapshot")]
    assert len(temporaries) == 1
    assert temporaries[0] != f".snapshot.json.{pid}.tmp"
    assert temporaries[0].startswith(f".snapshot.json.{pid}.")
    assert om._STRAY_PROOF.fullmatch(temporaries[0])
    assert [p.name for p in planted.run.iterdir() if p.name.startswith(".")] == [
        f".snapshot.json.{pid}.tmp"
    ], "a temporary proof was left behind"


def test_a_request_that_is_a_link_to_a_token_is_not_read(planted: Planted) -> None:
    """`snapshot.request` as a link to a 0600 one-word file: its presence takes the snapshot
    (at the step end after it), with reason null and one warning; the token appears
    nowhere in `snapshot.json`."""
    assert planted.result["step"] == 3
    snapshot = planted.run / "snapshot.json"
    assert TOKEN not in snapshot.read_text()
    assert check_snapshot(snapshot)["reason"] is None
    said = warnings_in(planted, "the snapshot request is a symbolic link: it was not read")
    assert len(said) == 1
    assert TOKEN not in planted.text()
