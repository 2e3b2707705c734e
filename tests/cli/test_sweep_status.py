"""`status` over many runs: a table of one row a run, `--sort`, `-o json` as JSON Lines of
the `status-report` schema, one run keeping its screen, the exit status `check` gives —
through the console script, in a child process, on the sweep of 40 runs."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from schema_registry import validator
from sweep import (
    BAD,
    EVALUATING,
    GZIPPED,
    RESUMED,
    SNAPSHOT,
    STALLED,
    Sweep,
)

SCRIPT = str(Path(sys.executable).with_name("overbrainer-contract"))
REPORT = validator("status-report")


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "160"}
    return subprocess.run(
        [SCRIPT, *argv], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def rows(sweep: Sweep, *argv: str) -> list[dict[str, Any]]:
    result = cli("status", ".", "-o", "json", *argv, cwd=sweep.root)
    assert result.returncode == 1, result.stderr  # the bad runs
    found = [json.loads(line) for line in result.stdout.splitlines()]
    for row in found:
        REPORT.validate(row)
    return found


def test_status_of_a_sweep_is_a_table_of_one_row_a_run(sweep: Sweep) -> None:
    result = cli("status", ".", cwd=sweep.root)
    assert result.returncode == 1  # two runs hold invalid lines, as check says
    lines = result.stdout.splitlines()
    header = lines[0].split()
    assert header == [
        "run", "stage", "step", "loss", "best", "eval", "eta", "last", "line", "snapshot",
        "invalid", "alerts",
    ]  # fmt: skip
    table = {line.split()[0]: line for line in lines[2:] if line.strip()}
    assert set(sweep.runs) <= set(table)
    stalled = table[STALLED]
    assert "30 h ago" in stalled
    assert " stale " in stalled
    assert "training" in stalled
    assert "resumed" in table[RESUMED]
    assert "taken @50" in table[SNAPSHOT]
    assert "evaluating 3/10" in table[EVALUATING]
    assert table[GZIPPED].split()[1:3] == ["ended", f"{sweep.runs[GZIPPED].step}/100"]
    for name in BAD:  # the invalid lines counted, then the alerts, an invalid line's among them
        *_, invalid, alerts = re.split(r"\s{2,}", table[name].strip())
        assert invalid == str(sweep.runs[name].invalid)
        assert "invalid@" in alerts
    ended = sum(1 for run in sweep.runs.values() if run.ended)
    assert lines[-1].startswith(f"{len(sweep.runs)} runs, {ended} ended")
    assert lines[-1].endswith(", 2 invalid")
    assert sorted(result.stderr.splitlines()) == sorted(
        f"overbrainer-contract: {name}: {_lines(sweep, name)} lines:"
        f" {sweep.runs[name].invalid} invalid line{'s' if sweep.runs[name].invalid > 1 else ''}"
        f"{' and the last line cut short' if sweep.runs[name].cut else ''}"
        f" ('overbrainer-contract check {name}' says which)"
        for name in BAD
    )


def _lines(sweep: Sweep, name: str) -> int:
    data = (sweep.root / name / "metrics.jsonl").read_bytes()
    return data.count(b"\n") + (not data.endswith(b"\n"))


def test_json_rows_are_of_the_schema_and_say_what_the_sweep_is(sweep: Sweep) -> None:
    found = {row["name"]: row for row in rows(sweep)}
    assert set(found) == set(sweep.runs)
    for name, run in sweep.runs.items():
        row = found[name]
        assert row["run"] == name
        assert (row["step"], row["ended"], row["begins"]) == (run.step, run.ended, run.begins)
        assert row["invalid_lines"] == run.invalid
        assert row["partial_last_line"] == run.cut
        assert row["valid"] == (run.invalid == 0)
        assert row["last_time"] == pytest.approx(run.last_time, abs=1e-6)
        assert row["last_line_seconds"] == pytest.approx(row["now"] - run.last_time, abs=1e-6)
        if run.best_eval is not None:
            assert (row["best_eval_loss"]["value"], row["best_eval_loss"]["step"]) == (
                pytest.approx(run.best_eval[0]),
                run.best_eval[1],
            )
        assert row["loss"]["value"] == pytest.approx(run.loss)
        assert (row["phase"] == "evaluating") == run.evaluating
    stalled = found[STALLED]
    assert stalled["eta_stale"] is True
    assert stalled["eta_remaining_seconds"] is None
    assert stalled["last_line_seconds"] > 30 * 3600
    assert found[SNAPSHOT]["snapshot"]["taken"]["checkpoint"] == "out/checkpoint-50"
    assert all(not row["eta_stale"] for row in found.values() if row["ended"])


@pytest.mark.parametrize(
    ("sort", "key"),
    [
        ("eval_loss", lambda row: row["best_eval_loss"]["value"]),
        ("loss", lambda row: row["loss"]["value"]),
        ("step", lambda row: row["step"]),
        ("age", lambda row: row["last_line_seconds"]),
        ("invalid", lambda row: row["invalid_lines"]),
    ],
)
def test_sort_orders_the_rows(sweep: Sweep, sort: str, key: Any) -> None:
    ordered = rows(sweep, "--sort", sort)
    values = [key(row) for row in ordered]
    assert values == sorted(values)
    backwards = [key(row) for row in rows(sweep, "--sort", sort, "--reverse")]
    assert backwards == sorted(backwards, reverse=True)
    if sort == "age":
        assert ordered[-1]["name"] == STALLED  # the oldest last line last


def test_sort_by_name_counts_numbers_as_numbers(sweep: Sweep) -> None:
    names = [row["name"] for row in rows(sweep)]
    seeds = [name for name in names if name.startswith("exp1/")]
    assert seeds == [f"exp1/seed{n}" for n in range(1, 21)]


def test_sort_by_eta_puts_runs_without_one_last(sweep: Sweep) -> None:
    ordered = rows(sweep, "--sort", "eta")
    etas = [row["eta_remaining_seconds"] for row in ordered]
    known = [eta for eta in etas if eta is not None]
    assert etas[: len(known)] == sorted(known)
    assert all(eta is None for eta in etas[len(known) :])


def test_many_runs_as_the_shell_gives_them(sweep: Sweep) -> None:
    names = sorted(str(path.relative_to(sweep.root)) for path in (sweep.root / "exp1").iterdir())
    result = cli("status", *names, "-o", "json", cwd=sweep.root)
    found = [json.loads(line)["name"] for line in result.stdout.splitlines()]
    assert sorted(found) == sorted(name.removeprefix("exp1/") for name in names)


def field(row: str) -> tuple[str, str]:
    """A row of the one run's screen: its first word, and the rest."""
    parts = row.split(None, 1) if " " in row else [row]
    return (parts[0], parts[1]) if len(parts) == 2 else (row, "")


def test_one_run_keeps_its_screen(sweep: Sweep) -> None:
    result = cli("status", STALLED, cwd=sweep.root)
    assert result.returncode == 0
    screen = dict(field(row.replace("eval loss", "eval_loss").replace("last line", "last_line")
                        .replace("learning rate", "learning_rate"))
                  for row in result.stdout.splitlines())  # fmt: skip
    assert screen["run"].strip() == STALLED
    assert screen["last_line"].strip() == "30 h ago"
    assert screen["eta"].strip().startswith("stale (no line for 30 h")
    document = json.loads(cli("status", STALLED, "-o", "json", cwd=sweep.root).stdout)
    REPORT.validate(document)
    assert document["name"] == "seed3"


def test_status_exits_as_check_does(sweep: Sweep, tmp_path: Path) -> None:
    for name in (*BAD, SNAPSHOT, STALLED, GZIPPED):
        check = cli("check", name, cwd=sweep.root).returncode
        status = cli("status", name, cwd=sweep.root).returncode
        assert (name, status) == (name, check)
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.jsonl").write_bytes((sweep.root / "exp1/seed1/metrics.jsonl").read_bytes())
    (run / "snapshot.json").write_text('{"checkpoint":"","step":-1,"time":1.0,"reason":null}')
    checked = cli("check", "run", cwd=tmp_path)
    statused = cli("status", "run", cwd=tmp_path)
    assert checked.returncode == statused.returncode == 1
    assert "snapshot.json: $.checkpoint: " in statused.stderr
    row = json.loads(cli("status", "run", "-o", "json", cwd=tmp_path).stdout)
    assert row["valid"] is False
    assert math.isfinite(row["now"])
