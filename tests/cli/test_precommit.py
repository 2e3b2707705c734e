"""The pre-commit hook `overbrainer-check` (`.pre-commit-hooks.yaml`), run as a user's
project runs it: `pre-commit try-repo` of this repository on a sample git repository.

pre-commit clones the hook's repository and installs it into its own environment with
`pip install .`: the reader core is compiled there by cargo (crates from the machine's cargo
configuration, as for any install from source; setuptools and setuptools-rust from the
package index), nothing comes from a wheel built beforehand.

The repository given to pre-commit is a git clone of this checkout, so the hook is tried as
committed: what a user's `rev:` gets. Where the checkout holds uncommitted changes to tracked
files, the checkout itself is given instead, and pre-commit tries those changes (it commits
them into a shadow clone of its own); untracked files are never part of the hook.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import INVALID, OUT_OF_ORDER, VALID

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 900  # a first run builds the hook's environment: pip compiles the core with cargo


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=120
    )
    return done.stdout


def hook_repository(tmp_path: Path) -> Path:
    """The repository pre-commit installs the hook from (see the module's docstring)."""
    if git("status", "--porcelain", "--untracked-files=no", cwd=ROOT).strip():
        return ROOT
    clone = tmp_path / "hook-repository"
    git("clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone), cwd=tmp_path)
    return clone


@pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("cargo") is None,
    reason="pre-commit needs git, and its install of the hook compiles the core with cargo",
)
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="the hook is tried from a git checkout")
def test_the_hook_checks_the_metrics_files_of_a_repository(tmp_path: Path) -> None:
    repository = hook_repository(tmp_path)
    sample = tmp_path / "sample"
    (sample / "runs" / "9").mkdir(parents=True)
    (sample / "metrics.jsonl").write_text(VALID)
    (sample / "runs" / "9" / "metrics.jsonl").write_text(OUT_OF_ORDER)  # warnings only
    (sample / "notes.jsonl").write_text("not a metrics file\n")  # not the hook's business
    git("init", "-q", cwd=sample)
    git("add", ".", cwd=sample)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    # The hook's build optimized, without the release profile's link-time optimization and
    # single codegen unit (the wheels keep those): the same code, built in parallel.
    env.setdefault("CARGO_PROFILE_RELEASE_LTO", "false")
    env.setdefault("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
    env.pop("PYTHONPATH", None)  # the hook runs the package pre-commit installed
    files = ["metrics.jsonl", "runs/9/metrics.jsonl", "notes.jsonl"]

    def try_repo() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pre_commit", "try-repo", str(repository)]
        return subprocess.run(
            [*command, "overbrainer-check", "--files", *files, "--color", "never", "--verbose"],
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
    assert "Passed" in passed.stdout
    assert "metrics.jsonl: valid: 11 lines" in passed.stdout
    assert "runs/9/metrics.jsonl: valid: 8 lines" in passed.stdout  # warnings pass
    assert "notes.jsonl" not in passed.stdout

    (sample / "metrics.jsonl").write_text(INVALID)
    git("add", ".", cwd=sample)
    failed = try_repo()
    out = failed.stdout
    assert failed.returncode == 1, out + failed.stderr
    assert "Failed" in out
    assert "\nmetrics.jsonl:2 $.step: invalid type" in out  # the bad line, by its number
    assert "\nmetrics.jsonl: invalid: 8 lines" in out
    assert "runs/9/metrics.jsonl: valid: 8 lines" in out
