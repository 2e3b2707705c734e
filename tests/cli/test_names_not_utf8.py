"""`check` and `status` over runs whose folder's or file's name is not UTF-8 (`run\\xff`,
made from bytes: a file system takes any byte but `/` and NUL in a name). Each case runs
the command in a child, its name given as the bytes it is, and reads its output back as
bytes.

What is expected comes from the rules: such a run is read like any other (its file opened
by its real name), and its name is shown escaped everywhere, each byte that is not UTF-8 as
the four characters `\\xff` (`text.shown`) — in the text and in `-o json`, whose output
stays UTF-8 (strict decoding takes it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import PROOF, VALID, make_run

TIMEOUT = 60.0
"""Seconds one command may take here: each needs a fraction of one."""

RAW = os.fsdecode(b"run\xff")
"""A run folder's name: the byte 0xff is not UTF-8."""

ESCAPED = "run\\xff"
"""How it is shown: the byte as a visible escape, the name otherwise as it is."""

LINES = VALID.count("\n")


def cli(*args: str, cwd: Path) -> tuple[int, str, str]:
    """`overbrainer-contract ARGS` in a child: its exit status and outputs, decoded as
    strict UTF-8 (an output that is not fails the test here)."""
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *args],
        cwd=cwd,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
        check=False,
    )
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    """`sweep/` of two runs: `ok`, and one whose folder's name is not UTF-8, each a valid
    run folder with its snapshot files."""
    make_run(tmp_path / "sweep" / "ok", VALID)
    make_run(tmp_path / "sweep" / RAW, VALID, request="manual", proof=PROOF)
    return tmp_path


def test_check_shows_the_name_escaped_and_reads_the_run(sweep: Path) -> None:
    code, out, err = cli("check", "sweep", cwd=sweep)
    assert (code, err) == (0, "")
    summary = f"sweep/{ESCAPED}/metrics.jsonl: valid: {LINES} lines"
    assert summary in out
    assert f"sweep/{ESCAPED}/snapshot.json: valid" in out
    assert f"total: valid: 4 files, {2 * LINES} lines" in out


def test_check_alone_on_the_run_folder_and_its_file(sweep: Path) -> None:
    for path in (f"sweep/{RAW}", f"sweep/{RAW}/metrics.jsonl"):
        code, out, err = cli("check", path, cwd=sweep)
        assert (code, err) == (0, ""), path
        assert f"sweep/{ESCAPED}/metrics.jsonl: valid: {LINES} lines" in out


def test_check_json_names_the_files_escaped(sweep: Path) -> None:
    code, out, err = cli("check", "sweep", "-o", "json", "--total", cwd=sweep)
    assert (code, err) == (0, "")
    records = [json.loads(line) for line in out.splitlines()]
    files = {record["file"]: record for record in records if record["type"] == "file"}
    ours = files[f"sweep/{ESCAPED}/metrics.jsonl"]
    assert (ours["valid"], ours["lines"]) == (True, LINES)
    assert f"sweep/{ESCAPED}/snapshot.request" in files
    assert records[-1]["files"] == 4  # ok's metrics, and ours with its two side files


def test_check_json_names_an_unreadable_path_escaped(tmp_path: Path) -> None:
    missing = os.fsdecode(b"gone\xfe")
    code, out, err = cli("check", missing, "-o", "json", cwd=tmp_path)
    assert code == 2
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record["type"] == "unreadable"
    assert record["file"] == "gone\\xfe"
    assert "gone\\xfe" in err


def test_check_json_of_an_invalid_line_names_the_file_escaped(tmp_path: Path) -> None:
    make_run(tmp_path / RAW, VALID + "{not json\n")
    code, out, _ = cli("check", RAW, "-o", "json", cwd=tmp_path)
    assert code == 1
    findings = [json.loads(line) for line in out.splitlines()]
    assert findings[0]["type"] == "finding"
    assert findings[0]["file"] == f"{ESCAPED}/metrics.jsonl"
    assert findings[0]["line"] == LINES + 1


def test_status_table_shows_the_name_escaped(sweep: Path) -> None:
    code, out, err = cli("status", "sweep", cwd=sweep)
    assert (code, err) == (0, "")
    rows = [line for line in out.splitlines() if ESCAPED in line]
    assert len(rows) == 1
    assert "4/4" in rows[0]  # its lines were read: the last step of max_steps


def test_status_of_the_run_alone(sweep: Path) -> None:
    code, out, err = cli("status", f"sweep/{RAW}", cwd=sweep)
    assert (code, err) == (0, "")
    assert ESCAPED in out.splitlines()[0]
    assert "manual" in out  # its snapshot files were read


def test_status_json_names_the_run_escaped(sweep: Path) -> None:
    code, out, err = cli("status", "sweep", "-o", "json", cwd=sweep)
    assert (code, err) == (0, "")
    rows = {row["name"]: row for row in map(json.loads, out.splitlines())}
    assert set(rows) == {"ok", ESCAPED}
    ours = rows[ESCAPED]
    assert ours["run"] == f"sweep/{ESCAPED}"
    assert (ours["step"], ours["lines"], ours["valid"]) == (4, LINES, True)
    assert ours["snapshot"]["reason"] == "manual"

    code, out, err = cli("status", f"sweep/{RAW}", "-o", "json", cwd=sweep)
    assert (code, err) == (0, "")
    alone = json.loads(out)
    assert (alone["run"], alone["name"]) == (f"sweep/{ESCAPED}", ESCAPED)
