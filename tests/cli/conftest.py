"""Fixtures of the command line's tests: running the CLI in process, the sample logs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_samples import LOGS
from overbrainer_contract.cli import main


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run the command line in this process: its exit status and outputs."""

    def run(*argv: str) -> Result:
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding every sample log as NAME.jsonl, and the working directory."""
    for name, text in LOGS.items():
        (tmp_path / f"{name}.jsonl").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path
