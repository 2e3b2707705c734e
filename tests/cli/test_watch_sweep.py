"""`watch SWEEP`: every run below a folder followed, for real: a child `watch --plain` of a
sweep while the test appends to its runs between looks, starts a run, names runs with markup
and bytes that are not UTF-8; each line led by its run's name below the folder, read line by
line under a timeout. A run given alone is watched as before."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from cli_samples import VALID, append, line, python_env
from overbrainer_contract.cli import watch as watch_command
from overbrainer_contract.files.follower import Follower
from overbrainer_contract.plugin.source import JOB_STAGES
from overbrainer_contract.runs.discover import discover
from test_watch_hands import BOUND, COMMAND, Watch, terminal_watch

LAST_STAGE = JOB_STAGES[-1]


def started(folder: Path, max_steps: int) -> Path:
    """A run folder whose training has begun now, and its metrics file."""
    folder.mkdir(parents=True)
    metrics = folder / "metrics.jsonl"
    metrics.write_text(line(event="begin", time=time.time(), max_steps=max_steps))
    return metrics


def finish(metrics: Path, step: int) -> None:
    """The run's last log, its end and the job's last stage: its watch is over."""
    now = time.time()
    append(
        metrics,
        line(event="log", time=now, step=step, loss=1.0),
        line(event="end", time=now, step=step),
        line(event="stage", name=LAST_STAGE, time=int(now)),
    )


def test_a_sweep_of_two_runs_growing_is_followed_line_by_line(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    first = started(sweep / "lr1", 4)
    second = started(sweep / "lr2", 2)
    watcher = Watch(sweep)
    try:
        watcher.expect("lr1: training began: 4 steps")
        watcher.expect("lr2: training began: 2 steps")
        now = time.time()
        append(first, line(event="log", time=now, step=1, loss=3.0))
        append(
            second,
            line(event="log", time=now, step=1, loss=2.0),
            line(event="eval", time=now, step=1, total=2),
        )
        watcher.expect("lr2: evaluation at step 1")
        append(second, line(event="log", time=now + 1, step=1, eval_loss=2.5))
        watcher.expect("lr2: eval loss 2.5 at step 1")
        finish(second, 2)
        watcher.expect(f"lr2: stage {LAST_STAGE}")
        append(first, line(event="log", time=now + 2, step=2, loss=2.0))
        time.sleep(0.5)  # ten looks
        assert watcher.process.poll() is None  # a run still going: the watch goes on
        finish(first, 4)
        code = watcher.finish()
    finally:
        watcher.stop()
    assert code == 0
    events = [text for text in watcher.seen if ": step " not in text]
    assert events == [
        "lr1: training began: 4 steps",
        "lr2: training began: 2 steps",
        "lr2: evaluation at step 1",
        "lr2: evaluation ended at step 1: 1/2 prediction steps",
        "lr2: eval loss 2.5 at step 1",
        "lr2: training ended at step 2",
        f"lr2: stage {LAST_STAGE}",
        "lr1: training ended at step 4",
        f"lr1: stage {LAST_STAGE}",
    ]
    # each run's progress, led by its name, ends at its last step
    assert [text for text in watcher.seen if text.startswith("lr2: step ")][-1].startswith(
        "lr2: step 2/2, loss 1, eval loss 2.5, last line "
    )
    assert watcher.seen[-1].startswith("lr1: step 4/4, loss 1, last line ")


def test_a_run_started_while_the_sweep_is_watched_is_followed(tmp_path: Path) -> None:
    """A run folder made after the watch began is found by a later look for runs; every
    run keeps its name, its path below the folder given (`group/a`, never `a` alone, which
    the one run found at the start would be named among the runs found by `status`)."""
    sweep = tmp_path / "sweep"
    first = started(sweep / "group" / "a", 3)
    watcher = Watch(sweep)
    try:
        watcher.expect("group/a: training began: 3 steps")
        late = started(sweep / "group" / "b", 5)
        watcher.expect("group/b: training began: 5 steps")
        finish(first, 3)
        watcher.expect(f"group/a: stage {LAST_STAGE}")
        assert watcher.process.poll() is None  # group/b goes on
        finish(late, 5)
        code = watcher.finish()
    finally:
        watcher.stop()
    assert code == 0
    assert all(text.startswith(("group/a: ", "group/b: ")) for text in watcher.seen)
    assert f"group/b: stage {LAST_STAGE}" in watcher.seen


def test_names_with_markup_and_bytes_not_utf8_are_shown_escaped(tmp_path: Path) -> None:
    """Piped and on a real terminal: a run folder named with rich markup and an escape
    sequence, one with a byte that is not UTF-8; each name is shown as data, every control
    and odd byte a visible escape, the markup its text."""
    sweep = tmp_path / "sweep"
    marked = sweep / "run[bold]\x1b[31m"
    odd = sweep / os.fsdecode(b"b\xff")
    for folder in (marked, odd):
        folder.mkdir(parents=True)
        (folder / "metrics.jsonl").write_text(VALID)
    piped = subprocess.run(
        [*COMMAND, str(sweep), "--interval", "0.05", "--grace", "0"],
        capture_output=True,
        env=python_env(),
        timeout=BOUND,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    out = piped.stdout.decode()  # UTF-8, the odd byte escaped
    assert b"\x1b" not in piped.stdout
    assert "run[bold]\\x1b[31m: training began: 4 steps\n" in out
    assert "b\\xff: training began: 4 steps\n" in out
    assert "b\\xff: stage merge\n" in out
    on_terminal = terminal_watch(sweep)
    text = on_terminal.decode("utf-8", errors="replace")
    for raw in (b"\x1b[31m", b"\xff"):
        assert raw not in on_terminal, (raw, text)
    assert "run[bold]\\x1b[31m: training began: 4 steps" in text
    assert "b\\xff: training ended at step 4" in text


def test_an_invalid_line_in_one_run_is_said_with_its_path_and_exits_1(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    for name in ("a", "b"):
        (sweep / name).mkdir(parents=True)
    (sweep / "a" / "metrics.jsonl").write_text(VALID)
    (sweep / "b" / "metrics.jsonl").write_text(VALID.replace('"step":3', '"step":"three"'))
    result = subprocess.run(
        [*COMMAND, str(sweep), "--interval", "0.05", "--grace", "0"],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=BOUND,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    said = [text for text in result.stdout.splitlines() if "invalid type" in text]
    assert said == [
        f'b: {sweep / "b" / "metrics.jsonl"}:8 $.step: invalid type: string "three", expected u64'
    ]


def test_a_compressed_run_is_said_and_a_fifo_ends_the_watch_with_2(tmp_path: Path) -> None:
    """An archived run (`metrics.jsonl.gz`) cannot grow: said once, not followed. A FIFO
    where a run's metrics file should be is said once, left unread (never waited on), and
    the watch of the rest goes on; its exit is 2, a run that could not be read."""
    import gzip

    sweep = tmp_path / "sweep"
    for name in ("a", "b", "c"):
        (sweep / name).mkdir(parents=True)
    (sweep / "a" / "metrics.jsonl").write_text(VALID)
    (sweep / "b" / "metrics.jsonl.gz").write_bytes(gzip.compress(VALID.encode()))
    os.mkfifo(sweep / "c" / "metrics.jsonl")
    result = subprocess.run(
        [*COMMAND, str(sweep), "--interval", "0.05", "--grace", "0"],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=BOUND,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stdout.splitlines()
    gz = sweep / "b" / "metrics.jsonl.gz"
    assert f"b: {gz}: compressed with gzip: watch cannot follow one" in "\n".join(lines)
    assert f"c: {sweep / 'c' / 'metrics.jsonl'}: a FIFO, not a file" in lines
    assert "a: training ended at step 4" in lines
    assert not [text for text in lines if text.startswith(("b: step", "c: step"))]


def test_a_run_folder_in_a_sweep_is_watched_alone_as_before(tmp_path: Path) -> None:
    """One run, given by its folder: its lines are not led by a name."""
    run = tmp_path / "sweep" / "a"
    run.mkdir(parents=True)
    (run / "metrics.jsonl").write_text(VALID)
    (tmp_path / "sweep" / "b").mkdir()
    (tmp_path / "sweep" / "b" / "metrics.jsonl").write_text(VALID)
    result = subprocess.run(
        [*COMMAND, str(run), "--interval", "0.05", "--grace", "0"],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=BOUND,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:4] == [
        "stage train",
        "training began: 4 steps",
        "training ended at step 4",
        "stage merge",
    ]


def test_runs_are_looked_for_at_an_interval_not_at_every_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over a second of looks every 10 ms (a run ended, waited on for its grace), the
    folders are walked for runs at the start and once at the end, not a hundred times;
    each run's file is looked at every time."""
    run = tmp_path / "sweep" / "a"
    run.mkdir(parents=True)
    now = time.time()
    (run / "metrics.jsonl").write_text(
        line(event="begin", time=now, max_steps=1) + line(event="end", time=now, step=1)
    )
    walks: list[float] = []
    looks: list[float] = []
    look = watch_command.Watched.look

    def counted_discover(paths: Any) -> Any:
        walks.append(time.monotonic())
        return discover(paths)

    def counted_look(self: watch_command.Watched) -> None:
        looks.append(time.monotonic())
        assert looks[-1] - looks[0] < BOUND, "the watch did not end"
        look(self)

    monkeypatch.setattr("overbrainer_contract.cli.watch.discover", counted_discover)
    monkeypatch.setattr(watch_command.Watched, "look", counted_look)
    assert watch_command.follow_sweep(tmp_path / "sweep", 0.01, 1.0, watch_command._plain_row) == 0
    assert len(looks) > 30
    assert len(walks) <= 1 + 1 + (looks[-1] - looks[0]) / watch_command.RESCAN_EVERY
    assert "a: training ended at step 1" in capsys.readouterr().out


def test_each_byte_of_a_sweep_of_many_runs_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 runs, each looked at again and again for the grace after its end: what is read of
    them is their bytes once, never a whole file again at a look."""
    sweep = tmp_path / "sweep"
    now = time.time()
    body = line(event="begin", time=now, max_steps=2) + "".join(
        line(event="log", time=now, step=step, loss=1.0 / step) for step in (1, 2)
    )
    for index in range(200):
        folder = sweep / f"lr{index % 10}" / f"seed{index}"
        folder.mkdir(parents=True)
        (folder / "metrics.jsonl").write_text(body + line(event="end", time=now, step=2))
    size = sum(path.stat().st_size for path in sweep.rglob("metrics.jsonl"))
    read: list[int] = []
    looks: list[int] = []
    took = Follower._took
    look = watch_command.Watched.look

    def counted_took(self: Follower[Any], data: bytes) -> None:
        read.append(len(data))
        took(self, data)

    def counted_look(self: watch_command.Watched) -> None:
        looks.append(1)
        assert time.monotonic() < deadline, "the watch did not end"
        look(self)

    deadline = time.monotonic() + BOUND
    monkeypatch.setattr(Follower, "_took", counted_took)
    monkeypatch.setattr(watch_command.Watched, "look", counted_look)
    assert watch_command.follow_sweep(sweep, 0.05, 0.5, watch_command._plain_row) == 0
    assert len(looks) >= 2 * 200  # each run looked at more than once
    assert sum(read) == size
    out = capsys.readouterr().out
    assert out.count(": training ended at step 2\n") == 200
    assert "lr3/seed13: training ended at step 2\n" in out
