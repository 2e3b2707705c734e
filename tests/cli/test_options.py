"""Options checked by their parsers, and commands of one run given a folder of runs: each a
child process under a timeout, ending with one line on standard error, exit 2, nothing
written into the run folder (no `snapshot.request`), before any file is read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import VALID, python_env

BOUND = 20.0


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *args],
        capture_output=True,
        text=True,
        timeout=BOUND,
        cwd=cwd,
        env=python_env(),
        check=False,
    )


def live_run(folder: Path) -> Path:
    """A run still training (a `begin` and no `end`): a snapshot would be asked of it."""
    folder.mkdir(parents=True)
    begin = {"event": "begin", "time": 1764467476.5, "max_steps": 10}
    (folder / "metrics.jsonl").write_text(json.dumps(begin) + "\n")
    return folder


def files_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def assert_usage_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert "Error:" not in result.stderr  # argparse's words, not an exception's class
    assert "Traceback" not in result.stderr


NOT_SECONDS = ["-5", "nan", "inf", "-inf", "1e400", "٣", "1_0", "0x10", ""]


@pytest.mark.parametrize("value", [*NOT_SECONDS, "0", "0.001", "3601"])
def test_watch_interval_outside_its_range_is_a_usage_error(tmp_path: Path, value: str) -> None:
    """Finite, ASCII digits, from the floor (0.01 s: no busy polling) to an hour; `0`,
    today's busy poll, included."""
    run = live_run(tmp_path / "run")
    before = files_under(tmp_path)
    result = cli("watch", str(run), f"--interval={value}", cwd=tmp_path)
    assert_usage_error(result, "argument --interval")
    assert files_under(tmp_path) == before


@pytest.mark.parametrize("value", [*NOT_SECONDS, "86401"])
def test_watch_grace_outside_its_range_is_a_usage_error(tmp_path: Path, value: str) -> None:
    run = live_run(tmp_path / "run")
    result = cli("watch", str(run), f"--grace={value}", cwd=tmp_path)
    assert_usage_error(result, "argument --grace")


def test_watch_help_says_the_ranges(tmp_path: Path) -> None:
    result = cli("watch", "--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "0.01 to 3600" in " ".join(result.stdout.split())


@pytest.mark.parametrize("value", [*NOT_SECONDS, "604801"])
def test_snapshot_wait_outside_its_range_writes_nothing(tmp_path: Path, value: str) -> None:
    """`--wait nan` would wait for ever; `--wait -5` wrote the request, then failed."""
    run = live_run(tmp_path / "run")
    result = cli("snapshot", str(run), f"--wait={value}", cwd=tmp_path)
    assert_usage_error(result, "argument --wait")
    assert files_under(tmp_path) == ["run", "run/metrics.jsonl"]


@pytest.mark.parametrize("value", ["0", "nan", "-1", "inf"])
def test_snapshot_interval_outside_its_range_writes_nothing(tmp_path: Path, value: str) -> None:
    run = live_run(tmp_path / "run")
    result = cli("snapshot", str(run), "--wait", "1", f"--interval={value}", cwd=tmp_path)
    assert_usage_error(result, "argument --interval")
    assert files_under(tmp_path) == ["run", "run/metrics.jsonl"]


@pytest.mark.parametrize("command", ["check", "status", "watch"])
@pytest.mark.parametrize("value", ["16777216T", "1025T", "٣", "3٣", "0", "99999999999999999999999"])
def test_max_line_outside_its_range_is_a_usage_error(
    tmp_path: Path, command: str, value: str
) -> None:
    """ASCII digits only (`int` takes `٣` as 3), at most 1024T (16777216T, 2**64 bytes,
    is over what the core's integers hold)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.jsonl").write_text(VALID)
    result = cli(command, str(run), f"--max-line={value}", cwd=tmp_path)
    assert_usage_error(result, "argument --max-line")


def test_max_line_in_range_is_taken(tmp_path: Path) -> None:
    """The largest, and units in either case: read as sizes (a valid file stays valid)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.jsonl").write_text(VALID)
    for value in ("1024T", "64m", "1GiB", "4096"):
        assert cli("check", str(run), f"--max-line={value}", cwd=tmp_path).returncode == 0


# -- a folder of runs, given to a command of one run ---------------------------------------

SWEEP_RUNS = ["exp1/seed1", "exp1/seed2", "exp1/seed10", "exp2/seed1", "exp2/seed2"]


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    for name in SWEEP_RUNS:
        live_run(tmp_path / "sweep" / name)
    return tmp_path / "sweep"


@pytest.mark.parametrize("command", [["snapshot"], ["snapshot", "--wait", "5"]])
def test_a_folder_of_runs_is_refused_naming_its_runs(sweep: Path, command: list[str]) -> None:
    """`snapshot sweep` wrote `sweep/snapshot.request`, which no run reads: it names the runs
    found (in their order, seed2 before seed10) and ends, writing nothing."""
    before = files_under(sweep)
    result = cli(*command, "sweep", cwd=sweep.parent)
    assert_usage_error(
        result,
        "sweep: a folder of 5 runs",
        "sweep/exp1/seed1, sweep/exp1/seed2, sweep/exp1/seed10 and 2 more",
    )
    assert files_under(sweep) == before


def test_a_folder_without_runs_is_still_waited_for_by_watch(tmp_path: Path) -> None:
    """A folder with no run below is what it was: a run folder still to come."""
    (tmp_path / "soon").mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "overbrainer_contract", "watch", "soon", "--plain"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=python_env(),
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "waiting for soon/metrics.jsonl\n"
    finally:
        process.kill()
        process.wait(timeout=BOUND)


def test_snapshot_removes_the_temporaries_a_killed_one_left(tmp_path: Path) -> None:
    """A request's temporary whose process is gone (a snapshot killed between writing and
    renaming) is removed by the next snapshot; one of a process still running (being
    written now) is left alone."""
    import os
    import subprocess
    import sys

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(gone.stdout)
    run = live_run(tmp_path / "run")
    old = run / f".snapshot.request.{dead_pid}.0123456789abcdef.tmp"
    young = run / f".snapshot.request.{os.getpid()}.fedcba9876543210.tmp"
    old.write_text("manual\n")
    young.write_text("manual\n")
    result = cli("snapshot", str(run), cwd=tmp_path)
    assert result.returncode == 0, result
    assert files_under(tmp_path) == sorted(
        ["run", "run/metrics.jsonl", "run/snapshot.request", f"run/{young.name}"]
    )
    assert (run / "snapshot.request").read_text() == "manual\n"
