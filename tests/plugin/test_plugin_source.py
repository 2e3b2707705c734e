"""The plugin's source as the package exposes it, its constants, and the job's stage lines.

Nothing here needs transformers or torch: the plugin is read, not imported.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from overbrainer_contract.plugin import source
from overbrainer_contract.plugin.source import (
    METRICS_PLUGIN,
    PLUGIN_CLASS,
    PLUGIN_FILE,
    PLUGIN_PATH,
    stage_command,
)
from plugin_helpers import ROOT, check_metrics

CONTRACT = json.loads((ROOT / "schema" / "contract.json").read_text())
TREE = ast.parse(METRICS_PLUGIN)
SHELLS = ["bash", "dash"]


def _literal(node: ast.expr) -> object:
    """A literal, or a product of integer literals (`64 * 1024`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _literal(node.left), _literal(node.right)
        if isinstance(left, int) and isinstance(right, int):
            return left * right
        raise ValueError("not a product of integers")
    return ast.literal_eval(node)


def module_constants() -> dict[str, object]:
    """The plugin's module-level constants, as literals (a product of integers too)."""
    constants: dict[str, object] = {}
    for node in TREE.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                with contextlib.suppress(ValueError):
                    constants[target.id] = _literal(node.value)
    return constants


def test_the_plugin_constants_equal_the_contract() -> None:
    constants = module_constants()
    assert constants["METRICS_ENV"] == CONTRACT["env"]["metrics"]
    assert constants["SNAPSHOT_ENV"] == CONTRACT["env"]["snapshot"]
    assert constants["SNAPSHOT_ON_SIGTERM_ENV"] == CONTRACT["env"]["snapshot_on_sigterm"]
    assert set(CONTRACT["env"]) == {"metrics", "snapshot", "snapshot_on_sigterm"}, "a new variable"
    assert constants["SNAPSHOT_FILE"] == CONTRACT["files"]["snapshot"]
    assert constants["EVAL_PROGRESS_INTERVAL_SECONDS"] == CONTRACT["eval_progress_interval_seconds"]
    # what it reads of a request: what the command line reads (contract 1.2.0)
    assert constants["_REQUEST_READ_LIMIT"] == CONTRACT["max_bytes"]["snapshot_request"]
    # the stage names the plugin's stage writer takes: those the package renders commands for
    assert constants["JOB_STAGES"] == source.JOB_STAGES


def test_the_plugin_is_named_as_the_contract_says() -> None:
    assert PLUGIN_FILE == CONTRACT["plugin"]["file"] == PLUGIN_PATH.name
    assert CONTRACT["plugin"]["qualified_name"] == PLUGIN_CLASS
    module, _, cls = PLUGIN_CLASS.rpartition(".")
    assert module == PLUGIN_PATH.stem == CONTRACT["plugin"]["module"]
    classes = [node.name for node in TREE.body if isinstance(node, ast.ClassDef)]
    assert cls in classes
    assert cls == CONTRACT["plugin"]["class"]


def test_the_source_text_is_the_file() -> None:
    assert PLUGIN_PATH.is_file()
    assert PLUGIN_PATH.read_text(encoding="utf-8") == METRICS_PLUGIN
    assert isinstance(source.PLUGIN_PATH, Path)


def test_the_plugin_imports_only_what_travels_with_a_run() -> None:
    allowed = {"transformers", "torch", "axolotl", "__future__"}
    for node in ast.walk(TREE):
        if isinstance(node, ast.Import):
            roots = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative import"
            roots = {(node.module or "").split(".")[0]}
        else:
            continue
        for root in roots:
            assert root in allowed or root in sys.stdlib_module_names, root
    assert "overbrainer_contract" not in METRICS_PLUGIN


def job_env(**variables: str) -> dict[str, str]:
    """This environment as a job's shell has it: the plugin's folder on `PYTHONPATH` (where
    Axolotl finds the plugin, and `stage_command` runs it from), this Python first on `PATH`
    (the job's `python3` is the training's)."""
    env = {**os.environ, **variables}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(PLUGIN_PATH.parent), os.environ.get("PYTHONPATH", "")) if p
    )
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))
    return env


def shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install -y {name})")
    return path


@pytest.mark.parametrize("sh", SHELLS)
@pytest.mark.parametrize("stage", ["train", "merge", "export", "compare"])
def test_the_stage_command_appends_a_valid_line(sh: str, stage: str, tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text('{"event":"begin","time":1.5,"max_steps":null}\n')
    env = job_env(OVERBRAINER_METRICS=str(metrics))
    before = int(time.time())
    command = f"set -eu; {stage_command(stage)}; {stage_command(stage)}"
    subprocess.run([shell(sh), "-c", command], env=env, check=True, timeout=30)
    after = int(time.time())
    lines = check_metrics(metrics)
    assert len(lines) == 3
    for line, raw in zip(lines[1:], metrics.read_text().splitlines()[1:], strict=True):
        assert list(line) == ["event", "name", "time"]
        assert (line["event"], line["name"]) == ("stage", stage)
        assert isinstance(line["time"], int)
        assert before <= line["time"] <= after
        assert raw == f'{{"event":"stage","name":"{stage}","time":{line["time"]}}}'


@pytest.mark.parametrize("sh", SHELLS)
def test_the_stage_command_never_fails_the_job(sh: str, tmp_path: Path) -> None:
    env = {k: v for k, v in job_env().items() if k != "OVERBRAINER_METRICS"}
    command = f"set -eu; {stage_command('train')}; echo went-on"
    unset = subprocess.run(
        [shell(sh), "-c", command], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert (unset.returncode, unset.stdout, unset.stderr) == (0, "went-on\n", "")
    env["OVERBRAINER_METRICS"] = str(tmp_path / "missing" / "metrics.jsonl")
    broken = subprocess.run(
        [shell(sh), "-c", command], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert (broken.returncode, broken.stdout) == (0, "went-on\n")
    assert broken.stderr  # the shell says why
    assert list(tmp_path.iterdir()) == []


def test_a_path_with_spaces_and_quotes_is_safe(tmp_path: Path) -> None:
    folder = tmp_path / "a b'c\"$d"
    folder.mkdir()
    metrics = folder / "metrics.jsonl"
    env = job_env(OVERBRAINER_METRICS=str(metrics))
    subprocess.run([shell("dash"), "-c", stage_command("export")], env=env, check=True, timeout=30)
    assert [line["name"] for line in check_metrics(metrics)] == ["export"]


@pytest.mark.parametrize("name", ["deploy", "Train", "train ", "", "train;rm -rf /", "$(id)"])
def test_other_stage_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="not a job stage"):
        stage_command(name)
