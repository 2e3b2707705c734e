"""`check`: text and JSON outputs (syrupy), exit codes, run folders, standard input."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_samples import LOGS, PROOF, VALID, make_run
from schema_registry import validator


@pytest.mark.parametrize("name", list(LOGS))
@pytest.mark.usefixtures("logs")
def test_check_text(name: str, cli: Callable[..., Any], snapshot: Any) -> None:
    result = cli("check", f"{name}.jsonl")
    assert result.code == (1 if name == "invalid" else 0)
    assert result.err == ""
    assert result.out == snapshot


def report(out: str) -> list[dict[str, Any]]:
    """The JSON Lines of `check -o json`, each validated against its schema."""
    check = validator("check-report")
    items = [json.loads(line) for line in out.splitlines()]
    for item in items:
        check.validate(item)
    return items


@pytest.mark.parametrize("name", list(LOGS))
@pytest.mark.usefixtures("logs")
def test_check_json(name: str, cli: Callable[..., Any], snapshot: Any) -> None:
    result = cli("check", f"{name}.jsonl", "-o", "json")
    assert result.code == (1 if name == "invalid" else 0)
    items = report(result.out)
    summary = items[-1]
    assert summary["type"] == "file"
    assert summary["valid"] is (name != "invalid")
    findings = items[:-1]
    assert {item["type"] for item in findings} <= {"finding"}
    assert len(findings) == summary["errors"] + summary["warnings"]
    assert items == snapshot


@pytest.mark.usefixtures("logs")
def test_every_problem_is_one_line_with_its_place(cli: Callable[..., Any]) -> None:
    out = cli("check", "invalid.jsonl").out.splitlines()
    assert out[0].startswith("invalid.jsonl:2 $.step: invalid type")
    assert out[-1].startswith("invalid.jsonl: invalid: 8 lines")
    assert len(out) == 1 + 6  # six bad lines, one summary


@pytest.mark.usefixtures("logs")
def test_a_truncated_last_line_is_a_warning(cli: Callable[..., Any]) -> None:
    result = cli("check", "truncated.jsonl")
    assert result.code == 0
    assert "truncated last line" in result.out
    complete = Path("complete.jsonl")
    complete.write_text(VALID.rstrip("\n"))  # a whole line, only its newline missing
    result = cli("check", str(complete))
    assert result.code == 0
    assert "complete.jsonl:11 $: warning: truncated last line: no newline at its end" in result.out


def test_a_run_folder_checks_the_snapshot_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any], snapshot: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    make_run(tmp_path / "good", VALID, request="manual\n", proof=PROOF)
    bad_proof = '{"checkpoint":"","step":-1,"time":1.0,"reason":"two words"}'
    make_run(tmp_path / "bad", VALID, request="two words\n", proof=bad_proof)
    good = cli("check", "good")
    assert good.code == 0
    bad = cli("check", "bad", "-o", "json")
    assert bad.code == 1
    assert cli("check", "good", "bad").out == snapshot(name="text")
    assert report(bad.out) == snapshot(name="json")


@pytest.mark.usefixtures("logs")
def test_several_paths_and_one_invalid(cli: Callable[..., Any]) -> None:
    result = cli("check", "valid.jsonl", "invalid.jsonl", "truncated.jsonl")
    assert result.code == 1
    assert [line.split(":")[0] for line in result.out.splitlines() if ": valid" in line] == [
        "valid.jsonl",
        "truncated.jsonl",
    ]


@pytest.mark.usefixtures("logs")
def test_standard_input(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(VALID.encode())))
    result = cli("check", "-")
    assert result.code == 0
    assert result.out.startswith("-: valid: 11 lines")


@pytest.mark.usefixtures("logs")
def test_exit_codes(cli: Callable[..., Any]) -> None:
    assert cli("check", "valid.jsonl").code == 0
    assert cli("check", "out-of-order.jsonl").code == 0  # warnings only
    assert cli("check", "invalid.jsonl").code == 1
    missing = cli("check", "valid.jsonl", "missing.jsonl", "invalid.jsonl")
    assert missing.code == 2  # an unreadable path wins
    assert missing.err == "overbrainer-contract: error: missing.jsonl: no such file or folder\n"
    assert "invalid.jsonl: invalid" in missing.out  # the other paths are still checked
    empty_folder = Path("empty")
    empty_folder.mkdir()
    result = cli("check", "empty")
    assert result.code == 2
    assert "no metrics.jsonl" in result.err
    usage = cli("check")
    assert usage.code == 2
    assert usage.err.count("\n") == 1  # one plain line
    assert "error: the following arguments are required: PATH" in usage.err
    assert cli("check", "valid.jsonl", "-o", "yaml").code == 2
    assert cli("nonsense").code == 2


@pytest.mark.usefixtures("logs")
def test_unreadable_file(cli: Callable[..., Any]) -> None:
    folder = Path("valid.jsonl.d")
    folder.mkdir()
    (folder / "metrics.jsonl").mkdir()  # a folder where the file should be
    result = cli("check", str(folder), "-o", "json")
    assert result.code == 2
    assert report(result.out) == [
        {
            "type": "unreadable",
            "file": "valid.jsonl.d/metrics.jsonl",
            "message": "a folder, not a file",
        }
    ]
    assert result.err == (
        "overbrainer-contract: error: valid.jsonl.d/metrics.jsonl: a folder, not a file\n"
    )


@pytest.mark.usefixtures("logs")
def test_colour_only_when_asked_or_on_a_terminal(
    cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "\x1b[" not in cli("check", "invalid.jsonl", "out-of-order.jsonl").out
    assert "\x1b[" in cli("--color", "always", "check", "invalid.jsonl").out
    assert "\x1b[" in cli("check", "invalid.jsonl", "--color", "always").out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert "\x1b[" in cli("check", "invalid.jsonl").out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in cli("check", "invalid.jsonl").out


@pytest.mark.usefixtures("logs")
def test_the_progress_bar_does_not_change_the_verdict(cli: Callable[..., Any]) -> None:
    plain = cli("check", "invalid.jsonl", "--progress", "never")
    with_bar = cli("check", "invalid.jsonl", "--progress", "always")
    assert (with_bar.code, with_bar.out) == (plain.code, plain.out)
