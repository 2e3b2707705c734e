"""`watch --on-alert CMD`, for real: a child `watch --plain` of a run (or a sweep) while the
test appends lines between its looks; the command a small Python script that records its
environment into a file, one line a call. Each alert's kind, step and message follow from the
lines written and the contract's rules (`alerts` in contract.json: a loss over 4 times the
median of the 20 losses before it, once 5 came; the first of a stretch of values of a
watched key that are not finite). The command runs once per new alert, never through a
shell; one that fails, is not found or hangs is said on stderr and the watch goes on."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_samples import append, line, python_env
from overbrainer_contract.plugin.source import JOB_STAGES

BOUND = 30.0
"""Seconds a wait for the watch may take before the test fails."""

RECORDER = """\
import json, os, sys
names = ("OVERBRAINER_ALERT", "OVERBRAINER_STEP", "OVERBRAINER_RUN", "OVERBRAINER_MESSAGE")
seen = {name: os.environb[name.encode()].hex() for name in names}
with open(sys.argv[1], "a") as out:
    out.write(json.dumps(seen) + "\\n")
"""
"""The command: each call appends its environment's four values (their bytes, in hex)."""

SPIKE_25 = "loss 9 at step 25: more than 4 times the median 1 of the 20 training losses before it"
"""Steps 1 to 24 lose 1, step 25 loses 9: the 20 losses before it (5 to 24) have median 1."""


def losses(first: int, last: int, value: float = 1.0) -> list[str]:
    now = time.time()
    return [line(event="log", time=now, step=step, loss=value) for step in range(first, last + 1)]


def begun(folder: Path) -> Path:
    """A run folder whose training began now, with 24 losses of 1: its metrics file."""
    folder.mkdir(parents=True)
    metrics = folder / "metrics.jsonl"
    metrics.write_text(line(event="begin", time=time.time(), max_steps=100))
    append(metrics, *losses(1, 24))
    return metrics


def over(metrics: Path, step: int) -> None:
    """The run's end and the job's last stage: its watch leaves."""
    now = time.time()
    append(
        metrics,
        line(event="end", time=now, step=step),
        line(event="stage", name=JOB_STAGES[-1], time=int(now)),
    )


def watch(target: Path, cwd: Path, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "overbrainer_contract",
            "watch",
            str(target),
            "--plain",
            "--interval",
            "0.05",
            "--grace",
            "60",
            *options,
        ],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=python_env(),
    )


def recorder(tmp_path: Path) -> tuple[str, Path]:
    """The `--on-alert` option's text and the file its calls are recorded in."""
    script = tmp_path / "record.py"
    script.write_text(RECORDER)
    calls = tmp_path / "calls.jsonl"
    return shlex.join([sys.executable, str(script), str(calls)]), calls


def recorded(calls: Path) -> list[dict[str, bytes]]:
    if not calls.exists():
        return []
    return [
        {name: bytes.fromhex(value) for name, value in json.loads(text).items()}
        for text in calls.read_text().splitlines()
    ]


def wait_for(calls: Path, count: int) -> list[dict[str, bytes]]:
    """The calls recorded, once there are `count` (failing after `BOUND` seconds)."""
    deadline = time.monotonic() + BOUND
    while len(got := recorded(calls)) < count:
        assert time.monotonic() < deadline, f"{len(got)} calls, not {count}: {got}"
        time.sleep(0.02)
    return got


def settle() -> None:
    """Time for the watch to take many looks (its interval is 0.05 s)."""
    time.sleep(0.6)


def call(kind: str, step: int, run: bytes, message: str) -> dict[str, bytes]:
    return {
        "OVERBRAINER_ALERT": kind.encode(),
        "OVERBRAINER_STEP": str(step).encode(),
        "OVERBRAINER_RUN": run,
        "OVERBRAINER_MESSAGE": message.encode(),
    }


def finished(process: subprocess.Popen[str]) -> tuple[int, str]:
    _, err = process.communicate(timeout=BOUND)
    return process.returncode, err


def test_a_growing_run_runs_the_command_once_per_new_alert(tmp_path: Path) -> None:
    option, calls = recorder(tmp_path)
    run = tmp_path / "x$(touch PWNED)"  # a name a shell would run a command of
    metrics = begun(run)
    process = watch(run, tmp_path, "--on-alert", option)
    try:
        settle()
        assert recorded(calls) == []  # 24 losses of 1: no alert
        append(metrics, *losses(25, 25, 9.0))
        spike = call("spike", 25, os.fsencode(str(run)), SPIKE_25)
        assert wait_for(calls, 1) == [spike]
        # the spike stands look after look: not run again
        append(metrics, *losses(26, 30))
        settle()
        assert recorded(calls) == [spike]
        # step 31 logs no loss, its `loss` scalar NaN: the first of a stretch
        nan = line(event="log", time=time.time(), step=31, scalars={"loss": "NaN"})
        append(metrics, nan, *losses(32, 39))
        nonfinite = call("nonfinite", 31, os.fsencode(str(run)), "loss was NaN at step 31")
        assert wait_for(calls, 2) == [spike, nonfinite]
        # a later spike is a new alert: the 20 losses before step 40 (19 to 39, 31 logged
        # none) are 1 but step 25's 9, median 1; 10 is over 4 times it
        append(metrics, *losses(40, 40, 10.0))
        later = call(
            "spike",
            40,
            os.fsencode(str(run)),
            "loss 10 at step 40: more than 4 times the median 1 of the 20 training losses"
            " before it",
        )
        assert wait_for(calls, 3) == [spike, nonfinite, later]
        over(metrics, 40)
        code, err = finished(process)
    finally:
        process.kill()
        process.wait()
    assert (code, err) == (0, "")
    assert recorded(calls) == [spike, nonfinite, later]
    assert list(tmp_path.rglob("PWNED")) == []


def test_a_run_done_before_the_watch_runs_it_for_its_alerts_at_once(tmp_path: Path) -> None:
    """The whole run in the first look, its job's last stage in it: the alerts of the lines
    before that stage are the run's, told once."""
    option, calls = recorder(tmp_path)
    run = tmp_path / "run"
    metrics = begun(run)
    append(metrics, *losses(25, 25, 9.0), *losses(26, 30))
    over(metrics, 30)
    code, err = finished(watch(run, tmp_path, "--on-alert", option))
    assert (code, err) == (0, "")
    assert recorded(calls) == [call("spike", 25, os.fsencode(str(run)), SPIKE_25)]


def test_a_sweep_tells_each_run_by_its_path_bytes_and_all(tmp_path: Path) -> None:
    option, calls = recorder(tmp_path)
    sweep = tmp_path / "sweep"
    names = ["ok", "x$(touch PWNED)", os.fsdecode(b"r\xff")]  # the last not UTF-8
    files = [begun(sweep / name) for name in names]
    process = watch(sweep, tmp_path, "--on-alert", option)
    try:
        settle()
        assert recorded(calls) == []
        for metrics in files:
            append(metrics, *losses(25, 25, 9.0))
        got = wait_for(calls, 3)
        settle()
        for metrics in files:
            over(metrics, 25)
        code, err = finished(process)
    finally:
        process.kill()
        process.wait()
    assert (code, err) == (0, "")
    expected = [call("spike", 25, os.fsencode(str(sweep / name)), SPIKE_25) for name in names]
    key = lambda each: each["OVERBRAINER_RUN"]  # noqa: E731
    assert sorted(got, key=key) == sorted(expected, key=key)
    assert recorded(calls) == got
    assert list(tmp_path.rglob("PWNED")) == []


@pytest.mark.parametrize("how", ["fails", "missing", "hangs"])
def test_a_command_that_fails_is_said_and_the_watch_goes_on(tmp_path: Path, how: str) -> None:
    pids = tmp_path / "pids"
    script = tmp_path / "command.py"
    # the hanging one starts a child that sleeps too: the timeout kills the command's group
    hang = "[sys.executable, '-c', 'import time; time.sleep(60)']"
    script.write_text(
        "import os, subprocess, sys, time\n"
        + ("child = os.getpid()\n" if how == "fails" else f"child = subprocess.Popen({hang}).pid\n")
        + f"with open({str(pids)!r}, 'a') as out:\n"
        "    out.write(f'{os.getpid()} {child}\\n')\n"
        + ("sys.exit(3)\n" if how == "fails" else "time.sleep(60)\n")
    )
    argv = [sys.executable, str(script)] if how != "missing" else [str(tmp_path / "nosuch")]
    run = tmp_path / "run"
    metrics = begun(run)
    process = watch(run, tmp_path, "--on-alert", shlex.join(argv), "--on-alert-timeout", "0.5")
    try:
        settle()
        append(metrics, *losses(25, 25, 9.0))
        settle()
        if how != "missing":
            deadline = time.monotonic() + BOUND
            while len(pids.read_text().splitlines() if pids.exists() else []) < 1:
                assert time.monotonic() < deadline
                time.sleep(0.02)
        # the watch goes on: the next alert runs it again
        append(metrics, line(event="log", time=time.time(), step=26, scalars={"loss": "NaN"}))
        if how != "missing":
            deadline = time.monotonic() + BOUND
            while len(pids.read_text().splitlines()) < 2:
                assert time.monotonic() < deadline
                time.sleep(0.02)
        settle()
        over(metrics, 26)
        code, err = finished(process)
    finally:
        process.kill()
        process.wait()
    assert code == 0
    joined = shlex.join(argv)
    why = {
        "fails": "exit status 3",
        "missing": "cannot run it: No such file or directory",
        "hangs": "still running after 0.5 s: killed",
    }[how]
    assert err.splitlines() == [
        f"overbrainer-contract: --on-alert {joined} (spike of {run}): {why}",
        f"overbrainer-contract: --on-alert {joined} (nonfinite of {run}): {why}",
    ]
    if how == "hangs":  # killed with its process group, its child too: none is left
        for pid in pids.read_text().split():
            assert not alive(int(pid)), pid


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, killed and not yet reaped by its new parent,
    does not), waiting a little for a kill to land."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def test_an_empty_or_unbalanced_command_is_a_usage_error(tmp_path: Path) -> None:
    run = tmp_path / "run"
    begun(run)
    for text, why in [("", "an empty command"), ("'a", '"\'a": No closing quotation')]:
        result = subprocess.run(
            [sys.executable, "-m", "overbrainer_contract", "watch", str(run), "--on-alert", text],
            capture_output=True,
            text=True,
            env=python_env(),
            check=False,
            timeout=BOUND,
        )
        assert result.returncode == 2
        assert result.stderr.splitlines() == [
            f"overbrainer-contract watch: error: argument --on-alert: {why}"
            " (see 'overbrainer-contract watch --help')"
        ]
