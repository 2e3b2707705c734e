"""`status`: text and JSON (syrupy) on a finished run, a run evaluating with a snapshot
requested, a snapshot taken, invalid, truncated and out-of-order logs; exit codes."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_samples import EVALUATING, LOGS, PROOF, VALID, make_run


@pytest.mark.parametrize("name", list(LOGS))
@pytest.mark.usefixtures("logs")
def test_status_of_logs(name: str, cli: Callable[..., Any], snapshot: Any) -> None:
    text = cli("status", f"{name}.jsonl")
    assert text.code == (1 if name == "invalid" else 0)
    assert text.out == snapshot(name="text")
    document = json.loads(cli("status", f"{name}.jsonl", "-o", "json").out)
    assert document == snapshot(name="json")


def test_status_of_run_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any], snapshot: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    make_run(tmp_path / "evaluating", EVALUATING, request="manual\n")
    make_run(tmp_path / "taken", VALID, request="manual\n", proof=PROOF)
    make_run(tmp_path / "bad-proof", VALID, proof="{}")
    for name in ("evaluating", "taken", "bad-proof"):
        result = cli("status", name)
        assert result.code == 0
        assert result.out == snapshot(name=f"{name}-text")
        assert json.loads(cli("status", name, "-o", "json").out) == snapshot(name=f"{name}-json")


def test_status_of_standard_input(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EVALUATING.encode())))
    document = json.loads(cli("status", "-", "-o", "json").out)
    assert document["evaluation"] == {"step": 1, "total": 2}
    assert document["phase"] == "evaluating"
    assert document["snapshot"] is None


@pytest.mark.usefixtures("logs")
def test_status_exit_codes(cli: Callable[..., Any]) -> None:
    assert cli("status", "valid.jsonl").code == 0
    assert cli("status", "invalid.jsonl").code == 1
    missing = cli("status", "missing")
    assert missing.code == 2
    assert missing.err == "overbrainer-contract: error: missing: no such file or folder\n"
    assert cli("status").code == 2
    assert cli("status", "a", "b").code == 2
