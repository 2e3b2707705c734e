"""`watch` shows the time: when the last line came, the ETA counted down or stale, tqdm's
`[elapsed<remaining, rate]`; and it ends at once on what it cannot follow (a folder that
does not exist, a gzip-compressed file). Through the console script, in a child process.

Expected texts reasoned from `runs.clock`'s rule (stale after max(50 steps, 120 s) of
silence) and the lines written here (their `time` relative to now)."""

from __future__ import annotations

import gzip
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_samples import line, python_env
from sweep import STALLED, Sweep

BOUND = 30.0  # seconds: a read that waits longer has failed


def console_script() -> str:
    """The `overbrainer-contract` console script beside this Python."""
    script = Path(sys.executable).with_name("overbrainer-contract")
    assert script.exists(), f"no console script at {script}"
    return str(script)


def run_lines(start: float, steps: int, max_steps: int, every: float = 1.0) -> str:
    """A run that began at `start` and logged `steps` steps, one each `every` seconds."""
    text = line(event="stage", name="train", time=int(start))
    text += line(event="begin", time=start, max_steps=max_steps)
    for step in range(1, steps + 1):
        text += line(
            event="log", time=start + step * every, step=step, max_steps=max_steps, loss=2.0
        )
    return text


def watch(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [console_script(), "watch", *args, "--plain", "--interval", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=python_env(),
    )


def read_lines(process: subprocess.Popen[str], count: int) -> list[str]:
    """The first `count` lines the process writes, waiting at most BOUND seconds (read
    from the descriptor: a text stream's buffer would hide lines from `select`)."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    data = b""
    selector = selectors.DefaultSelector()
    selector.register(descriptor, selectors.EVENT_READ)
    deadline = time.monotonic() + BOUND
    while data.count(b"\n") < count:
        left = deadline - time.monotonic()
        assert left > 0, f"only {data!r} came"
        assert selector.select(left), f"only {data!r} came"
        chunk = os.read(descriptor, 65536)
        assert chunk, f"the output ended after {data!r}"
        data += chunk
    return data.decode().splitlines()[:count]


def interrupt(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=BOUND)
    assert process.returncode == 130
    return err


def test_a_stalled_run_shows_when_its_last_line_came_and_a_stale_eta(tmp_path: Path) -> None:
    # 10 steps, one a second, 30 hours ago; 100 steps to go: the pace said 0:01:30
    (tmp_path / "metrics.jsonl").write_text(run_lines(time.time() - 30 * 3600 - 10, 10, 100))
    watcher = watch(str(tmp_path))
    events = read_lines(watcher, 4)
    err = interrupt(watcher)
    assert events[:2] == ["stage train", "training began: 100 steps"]
    # elapsed: since the begin line, 30 h and more; no remaining time, the pace's rate
    assert re.fullmatch(
        r"step 10/100, loss 2, eta stale, last line 30 h ago \[30:00:\d\d<stale, 1\.00it/s\]",
        events[2],
    ), events[2]
    assert events[3] == "eta stale: last line 30 h ago"  # said once, as an event
    assert err.strip() == "overbrainer-contract: interrupted"


def test_a_live_run_counts_its_eta_down_with_elapsed_and_rate(tmp_path: Path) -> None:
    # 20 steps, one every half second, the last just now; 1,000 to go: 2 steps a second
    (tmp_path / "metrics.jsonl").write_text(run_lines(time.time() - 10.0, 20, 1020, 0.5))
    watcher = watch(str(tmp_path))
    events = read_lines(watcher, 3)
    interrupt(watcher)
    shown = re.fullmatch(
        r"step 20/1,020, loss 2, eta 0:0(\d):(\d\d), last line \d+ s ago "
        r"\[00:1\d<0(\d):(\d\d), 2\.00it/s\]",
        events[2],
    )
    assert shown, events[2]
    # 500 s at that pace (from the last log), less the few seconds since: the same both ways
    left = int(shown[1]) * 60 + int(shown[2])
    assert 480 <= left <= 500
    assert (shown[3], shown[4]) == (shown[1], shown[2])


@pytest.mark.parametrize("given", ["nosuchdir", "nosuchdir/metrics.jsonl", "a/b/c"])
def test_watch_on_a_folder_that_does_not_exist_ends_at_once(tmp_path: Path, given: str) -> None:
    result = subprocess.run(
        [console_script(), "watch", given],
        capture_output=True,
        text=True,
        env=python_env(),
        cwd=tmp_path,
        timeout=BOUND,
        check=False,
    )
    folder = given.removesuffix("/metrics.jsonl")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"overbrainer-contract: error: {folder}: no such folder\n"


def gzipped(path: Path, text: str) -> None:
    path.write_bytes(gzip.compress(text.encode()))


@pytest.mark.parametrize(
    ("name", "given"),
    [
        ("metrics.jsonl.gz", "run/metrics.jsonl.gz"),  # named as one
        ("metrics.jsonl.gz", "run"),  # the run folder's metrics file
        ("metrics.jsonl", "run/metrics.jsonl"),  # named .jsonl, compressed all the same
    ],
)
def test_watch_says_it_cannot_follow_a_gzip_file(tmp_path: Path, name: str, given: str) -> None:
    (tmp_path / "run").mkdir()
    gzipped(tmp_path / "run" / name, run_lines(time.time(), 2, 4))
    result = subprocess.run(
        [console_script(), "watch", given],
        capture_output=True,
        text=True,
        env=python_env(),
        cwd=tmp_path,
        timeout=BOUND,
        check=False,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"overbrainer-contract: error: run/{name}: compressed with gzip: watch cannot follow one"
        " (check, status and plot read it)\n"
    )


def test_watch_of_the_sweeps_stalled_run(sweep: Sweep) -> None:
    run = sweep.runs[STALLED]
    assert not run.ended
    assert sweep.now - run.last_time >= 30 * 3600
    watcher = subprocess.Popen(
        [console_script(), "watch", STALLED, "--plain", "--interval", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=python_env(),
        cwd=sweep.root,
    )
    events = read_lines(watcher, 3)
    interrupt(watcher)
    assert events[0] == "training began: 100 steps"
    progress = events[1:2]
    # a step every STEP_SECONDS (0.5 s): 2 steps a second; 50 steps are 25 s, under the
    # floor: stale after 120 s of silence, long past
    assert re.fullmatch(
        rf"step {run.step}/100, loss {run.loss:.4g}(, eval loss [\d.]+)?, eta stale,"
        r" last line 30 h ago \[30:\d\d:\d\d<stale, 2\.00it/s\]",
        progress[0],
    ), progress
    assert events[2] == "eta stale: last line 30 h ago"
