"""The reference runner (`conformance/rust/`): overbrainer's `metrics.rs` built by cargo,
answering lines, so that tests can hold `parse_line` to the reference itself.

`OVERBRAINER_REFERENCE_RUNNER` names a built runner (the nox sessions build it); without
it, the runner is built here with cargo (`OVERBRAINER_METRICS_RS` names the module to
include; default `../shared/reference/metrics.rs` beside the project).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CRATE = ROOT / "conformance" / "rust"
BINARY = CRATE / "target" / "release" / "overbrainer-reference-runner"


def runner_path() -> Path:
    """The runner's executable, built with cargo when no environment variable names one."""
    named = os.environ.get("OVERBRAINER_REFERENCE_RUNNER")
    if named:
        return Path(named)
    # cargo reads .cargo/config.toml (the offline source) from its working directory
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=CRATE, check=True, timeout=600)
    return BINARY


def answer_file(runner: Path, path: Path) -> list[dict[str, Any]]:
    """The reference's answer to every line of `path` (the `lines` mode), in order."""
    done = subprocess.run(
        [str(runner), "lines", str(path)], check=True, capture_output=True, timeout=120
    )
    return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]


class Answerer:
    """A long-lived runner in `frames` mode: one line in, the reference's answer out."""

    def __init__(self, runner: Path) -> None:
        self.process = subprocess.Popen(
            [str(runner), "frames"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def __call__(self, line: bytes) -> dict[str, Any]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        stdin.write(b"%d\n" % len(line) + line)
        stdin.flush()
        reply = stdout.readline()
        if not reply:
            raise RuntimeError(f"the reference runner died (exit {self.process.wait()})")
        answer: dict[str, Any] = json.loads(reply)
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)
