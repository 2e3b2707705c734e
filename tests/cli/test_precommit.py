"""The pre-commit hook `overbrainer-check` (`.pre-commit-hooks.yaml`), run as a user's
project would run it: `pre-commit try-repo` of this repository on a sample git repository.
pre-commit installs this package from the repository itself into its own environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import INVALID, VALID

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # a first run builds the hook's environment (pip install of this repository)


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_the_hook_checks_the_metrics_files_of_a_repository(tmp_path: Path) -> None:
    sample = tmp_path / "sample"
    (sample / "runs" / "7").mkdir(parents=True)
    (sample / "runs" / "8").mkdir(parents=True)
    (sample / "runs" / "7" / "metrics.jsonl").write_text(VALID)
    (sample / "runs" / "8" / "metrics.jsonl").write_text(INVALID)
    (sample / "notes.jsonl").write_text("not a metrics file\n")  # not the hook's business
    git("init", "-q", cwd=sample)
    git("add", ".", cwd=sample)
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    env.pop("PYTHONPATH", None)  # the hook runs the package pre-commit installed
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "overbrainer-check"]
    result = subprocess.run(
        [*command, "--all-files", "--color", "never", "--verbose"],
        cwd=sample,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "overbrainer metrics.jsonl" in out
    assert "Failed" in out
    assert "runs/8/metrics.jsonl:2 $.step: invalid type" in out
    assert "runs/8/metrics.jsonl: invalid: 8 lines" in out
    assert "runs/7/metrics.jsonl: valid: 11 lines" in out
    assert "notes.jsonl" not in out.replace("metrics.jsonl", "")
