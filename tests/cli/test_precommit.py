"""The pre-commit hook `overbrainer-check` (`.pre-commit-hooks.yaml`), run as a user's
project would run it: `pre-commit try-repo` of this repository on a sample git repository.
pre-commit installs this package from the repository itself into its own environment; the
reader core it depends on comes from a folder of wheels (pip's find-links): the one `nox`
builds the core's wheel into, or the one `OVERBRAINER_WHEELHOUSE` names."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import INVALID, OUT_OF_ORDER, VALID

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # a first run builds the hook's environment (pip install of this repository)
WHEELHOUSE = Path(os.environ.get("OVERBRAINER_WHEELHOUSE") or ROOT / ".nox" / "_wheelhouse")
"""Where the reader core's wheel is (`noxfile.core_wheel` builds it there)."""


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_the_hook_checks_the_metrics_files_of_a_repository(tmp_path: Path) -> None:
    if not any(WHEELHOUSE.glob("overbrainer_contract_core-*.whl")):
        pytest.skip(
            f"no wheel of the reader core in {WHEELHOUSE} for the hook's environment "
            "(nox -s cli builds one; or set OVERBRAINER_WHEELHOUSE)"
        )
    sample = tmp_path / "sample"
    for name in ("7", "8", "9"):
        (sample / "runs" / name).mkdir(parents=True)
    (sample / "runs" / "7" / "metrics.jsonl").write_text(VALID)
    (sample / "runs" / "9" / "metrics.jsonl").write_text(OUT_OF_ORDER)  # warnings only
    (sample / "notes.jsonl").write_text("not a metrics file\n")  # not the hook's business
    git("init", "-q", cwd=sample)
    git("add", ".", cwd=sample)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)  # the hook runs the package pre-commit installed
    links = " ".join(filter(None, [str(WHEELHOUSE), os.environ.get("PIP_FIND_LINKS")]))
    env["PIP_FIND_LINKS"] = links  # the reader core's wheel, for pip in the hook's environment

    def try_repo() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "overbrainer-check"]
        return subprocess.run(
            [*command, "--all-files", "--color", "never", "--verbose"],
            cwd=sample,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )

    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "overbrainer metrics.jsonl" in passed.stdout
    assert "runs/7/metrics.jsonl: valid: 11 lines" in passed.stdout
    assert "runs/9/metrics.jsonl: valid: 8 lines" in passed.stdout  # warnings pass
    assert "notes.jsonl" not in passed.stdout

    (sample / "runs" / "8" / "metrics.jsonl").write_text(INVALID)
    git("add", ".", cwd=sample)
    failed = try_repo()
    out = failed.stdout
    assert failed.returncode == 1, out + failed.stderr
    assert "Failed" in out
    assert "runs/8/metrics.jsonl:2 $.step: invalid type" in out
    assert "runs/8/metrics.jsonl: invalid: 8 lines" in out
    assert "runs/7/metrics.jsonl: valid: 11 lines" in out
