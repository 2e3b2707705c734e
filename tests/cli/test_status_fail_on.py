"""`status --fail-on KIND[,KIND...]`: exit 3 when a run has an alert of one of those kinds,
with one line a run on standard error after the output, for each kind; an unknown kind a
usage error naming the kinds (the schema's); how 3 goes with 1 (invalid lines) and 2 (a RUN
that cannot be read). The runs are written here, each with one alert whose kind and step
follow from its lines and the contract's rules (`alerts` and `stale` in contract.json)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import line, python_env

ROOT = Path(__file__).resolve().parents[2]
NOW = "1040"
"""The time every case is told at: 10 s after the latest line of the runs but `stalled`."""


def logs(start: float, losses: list[float]) -> list[str]:
    """A `begin` at `start`, then a log a second for each loss, from step 1."""
    out = [line(event="begin", time=start, max_steps=100)]
    out += [
        line(event="log", time=start + step, step=step, loss=loss)
        for step, loss in enumerate(losses, start=1)
    ]
    return out


def sweep(tmp_path: Path) -> Path:
    """Five runs below `sweep/`:

    - `spiky`: 30 losses of 1 but a 9 at step 25, which is more than 4 times the median (1)
      of the 20 losses before it: `spike@25`; its last line at 1030, 10 s before NOW.
    - `nan`: 3 losses, then a log whose `grad_norm` (a watched key) is NaN: `nonfinite@4`.
    - `stalled`: 10 losses a second from time 0, silent for 1,030 s at NOW, more than 50
      steps at its pace (50 s) and more than the 120 s floor: `stalled@10` (its step).
    - `broken`: a begin, 2 logs, then a line that is not JSON (4 lines): `invalid@2` (the
      step before it).
    - `calm`: 10 losses of 1 to 1030: no alert.
    """
    runs = {
        "spiky": logs(1000, [9.0 if step == 25 else 1.0 for step in range(1, 31)]),
        "nan": [
            *logs(1000, [1.0, 1.0, 1.0]),
            line(event="log", time=1004, step=4, scalars={"grad_norm": "NaN"}),
        ],
        "stalled": logs(0, [1.0] * 10),
        "broken": [*logs(1000, [1.0, 1.0]), "not json\n"],
        "calm": logs(1020, [1.0] * 10),
    }
    for name, lines in runs.items():
        folder = tmp_path / "sweep" / name
        folder.mkdir(parents=True)
        (folder / "metrics.jsonl").write_text("".join(lines))
    return tmp_path / "sweep"


def status(cwd: Path, *args: str, merged: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "status", "--now", NOW, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        text=True,
        env=python_env(),
        check=False,
        timeout=120,
    )


INVALID_LINE = (
    "overbrainer-contract: sweep/broken: 4 lines: 1 invalid line"
    " ('overbrainer-contract check sweep/broken' says which)"
)
"""What `status` says of `broken` on stderr whatever --fail-on asks (its exit 1)."""


@pytest.mark.parametrize(
    ("kind", "run", "said"),
    [
        ("spike", "spiky", "spike@25"),
        ("nonfinite", "nan", "nonfinite@4"),
        ("stalled", "stalled", "stalled@10"),
        ("invalid", "broken", "invalid@2"),
    ],
)
def test_each_kind_fails_the_runs_that_have_it(
    tmp_path: Path, kind: str, run: str, said: str
) -> None:
    sweep(tmp_path)
    result = status(tmp_path, "sweep", "--fail-on", kind)
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines() == [
        INVALID_LINE,
        f"overbrainer-contract: sweep/{run}: alerts: {said}",
    ]
    # the table shows every run's alerts, asked for or not
    last = {row.split()[0]: row.split()[-1] for row in result.stdout.splitlines()[2:-1]}
    assert last == {
        "broken": "invalid@2",
        "calm": "-",  # its snapshot cell: the invalid and alerts cells blank
        "nan": "nonfinite@4",
        "spiky": "spike@25",
        "stalled": "stalled@10",
    }


def test_several_kinds_a_line_a_run_after_the_output(tmp_path: Path) -> None:
    sweep(tmp_path)
    result = status(tmp_path, "sweep", "--fail-on", "spike,nonfinite,stalled,invalid")
    assert result.returncode == 3
    said = [text for text in result.stderr.splitlines() if text != INVALID_LINE]
    assert said == [  # the table's order: by name
        "overbrainer-contract: sweep/broken: alerts: invalid@2",
        "overbrainer-contract: sweep/nan: alerts: nonfinite@4",
        "overbrainer-contract: sweep/spiky: alerts: spike@25",
        "overbrainer-contract: sweep/stalled: alerts: stalled@10",
    ]
    merged = status(tmp_path, "sweep", "--fail-on", "spike", merged=True).stdout.splitlines()
    assert merged[-2].startswith("5 runs, 0 ended")  # the table's footer, then the line
    assert merged[-1] == "overbrainer-contract: sweep/spiky: alerts: spike@25"


def test_no_alert_of_the_kinds_keeps_the_exit_as_it_was(tmp_path: Path) -> None:
    sweep(tmp_path)
    calm = status(tmp_path, "sweep/calm", "--fail-on", "spike,nonfinite,stalled,invalid")
    assert (calm.returncode, calm.stderr) == (0, "")
    assert "alerts" not in calm.stdout  # the screen's alerts row only for a run with some
    broken = status(tmp_path, "sweep/broken", "--fail-on", "spike")
    assert broken.returncode == 1
    assert broken.stderr.splitlines() == [INVALID_LINE]
    # invalid lines and an alert asked for: 3, over 1
    asked = status(tmp_path, "sweep/broken", "--fail-on", "invalid")
    assert asked.returncode == 3
    assert asked.stderr.splitlines() == [
        INVALID_LINE,
        "overbrainer-contract: sweep/broken: alerts: invalid@2",
    ]


def test_one_run_as_json_fails_too(tmp_path: Path) -> None:
    sweep(tmp_path)
    result = status(tmp_path, "sweep/spiky", "-o", "json", "--fail-on", "spike")
    assert result.returncode == 3
    record = json.loads(result.stdout)
    assert [(alert["kind"], alert["step"]) for alert in record["alerts"]] == [("spike", 25)]
    assert result.stderr == "overbrainer-contract: sweep/spiky: alerts: spike@25\n"


def test_a_run_that_cannot_be_read_keeps_exit_2(tmp_path: Path) -> None:
    sweep(tmp_path)
    result = status(tmp_path, "sweep/spiky", "nosuch", "--fail-on", "spike")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == "overbrainer-contract: sweep/spiky: alerts: spike@25"


def test_an_unknown_kind_is_a_usage_error_naming_the_kinds(tmp_path: Path) -> None:
    sweep(tmp_path)
    schema = json.loads((ROOT / "schema" / "status-report.schema.json").read_text())
    kinds = ", ".join(schema["$defs"]["AlertKind"]["enum"])
    for asked, unknown in [
        ("sparks", "'sparks'"),
        ("spike,Spike,", "'Spike', ''"),
        ("spike,nan", "'nan'"),
    ]:
        result = status(tmp_path, "sweep", "--fail-on", asked)
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.splitlines() == [
            f"overbrainer-contract status: error: argument --fail-on: no alert kind {unknown}"
            f" (the kinds: {kinds}) (see 'overbrainer-contract status --help')"
        ]
