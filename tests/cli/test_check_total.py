"""`check` over many runs ends with a total over every file (text; `-o json --total`, the
`check-total` schema), through the console script in a child process, on the sweep."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from schema_registry import validator
from sweep import Sweep

SCRIPT = str(Path(sys.executable).with_name("overbrainer-contract"))
REPORT = validator("check-report")
TOTAL = validator("check-total")


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [SCRIPT, *argv], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def _expected(sweep: Sweep) -> tuple[int, int, int, int]:
    """(files, invalid files, errors, warnings) as the sweep was built: a metrics file a
    run, and the snapshot run's request and proof."""
    files = len(sweep.runs) + 2
    invalid = sum(1 for run in sweep.runs.values() if run.invalid)
    errors = sum(run.invalid for run in sweep.runs.values())
    warnings = sum(run.cut for run in sweep.runs.values())
    return files, invalid, errors, warnings


def test_check_of_a_sweep_ends_with_its_total(sweep: Sweep) -> None:
    files, invalid, errors, warnings = _expected(sweep)
    result = cli("check", ".", "nowhere", cwd=sweep.root)
    assert result.returncode == 2  # a path unreadable
    lines = result.stdout.splitlines()
    summaries = [line for line in lines if ": valid: " in line or ": invalid: " in line]
    assert len(summaries) == files + 1  # and the total
    counted = sum(int(line.split(": ", 2)[2].split(" line")[0].replace(",", ""))
                  for line in summaries[:-1] if " lines (" in line)  # fmt: skip
    assert lines[-1] == (
        f"total: invalid: {files} files ({invalid} invalid, 1 path unreadable),"
        f" {counted:,} lines, {errors} errors, {warnings} warning{'s' if warnings != 1 else ''}"
    )


def test_check_json_with_total_ends_with_a_total_line_of_its_schema(sweep: Sweep) -> None:
    files, invalid, errors, warnings = _expected(sweep)
    result = cli("check", *sorted(sweep.runs), "-o", "json", "--total", cwd=sweep.root)
    assert result.returncode == 1
    items = [json.loads(line) for line in result.stdout.splitlines()]
    for item in items[:-1]:
        REPORT.validate(item)
    TOTAL.validate(items[-1])
    lines = sum(item["lines"] or 0 for item in items if item["type"] == "file")
    assert items[-1] == {
        "type": "total",
        "files": files,
        "invalid_files": invalid,
        "unreadable": 0,
        "lines": lines,
        "errors": errors,
        "warnings": warnings,
        "valid": False,
    }
    plain = cli("check", *sorted(sweep.runs), "-o", "json", cwd=sweep.root)
    assert plain.stdout.splitlines() == result.stdout.splitlines()[:-1]  # as released


def test_one_run_has_no_total(sweep: Sweep) -> None:
    result = cli("check", "exp1/seed1", cwd=sweep.root)
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == 1
