"""`watch` against a writer appending in another process: lines split across writes, a
file that does not exist yet, the end of the job, Ctrl-C; each with a bound on time."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_samples import VALID, python_env
from overbrainer_contract.contract.models import Log
from overbrainer_contract.files.follower import Follower
from overbrainer_contract.reader import (
    EvaluationResult,
    ParseError,
    WatchScan,
    dump_line,
    parse_line,
)

BOUND = 30.0  # seconds: every watch here must be done well before

WRITER = r"""
import json, sys, time
path, delay, last_stage = sys.argv[1], float(sys.argv[2]), sys.argv[3]
time.sleep(delay)  # the file does not exist yet meanwhile
def line(**fields):
    return json.dumps(fields, separators=(",", ":")).encode() + b"\n"
now = time.time()
lines = [line(event="stage", name="train", time=int(now)),
         line(event="begin", time=now, max_steps=4)]
for step in range(1, 5):
    lines.append(line(event="log", time=now + step, step=step, epoch=step / 4, max_steps=4,
                      loss=3.0 - step / 2, eval_loss=None, learning_rate=1e-4, grad_norm=1.0))
    if step == 2:
        lines += [line(event="eval", time=now + 2.5, step=1, total=2),
                  line(event="eval", time=now + 2.7, step=2, total=2),
                  line(event="log", time=now + 2.8, step=2, epoch=0.5, max_steps=4, loss=None,
                       eval_loss=2.5, learning_rate=None, grad_norm=None)]
lines.append(line(event="end", time=now + 5, step=4))
lines.append(line(event="stage", name="merge", time=int(now) + 6))
if last_stage != "none":
    lines.append(line(event="stage", name=last_stage, time=int(now) + 7))
with open(path, "ab", buffering=0) as handle:
    for raw in lines:  # every line in three writes: the watcher sees halves
        third = len(raw) // 3
        for chunk in (raw[:third], raw[third:2 * third], raw[2 * third:]):
            handle.write(chunk)
            time.sleep(0.01)
print("writer done", flush=True)
"""


def start_writer(path: Path, delay: float, last_stage: str = "none") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(delay), last_stage],
        stdout=subprocess.PIPE,
        text=True,
    )


def watch(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "overbrainer_contract", "watch", *args, "--interval", "0.02"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=python_env(),
    )


def test_watch_follows_a_writer_in_another_process(tmp_path: Path) -> None:
    metrics = tmp_path / "run" / "metrics.jsonl"
    metrics.parent.mkdir()
    start = time.monotonic()
    watcher = watch(str(metrics.parent), "--grace", "1")
    writer = start_writer(metrics, delay=0.5)
    out, err = watcher.communicate(timeout=BOUND)
    writer.communicate(timeout=BOUND)
    elapsed = time.monotonic() - start
    assert watcher.returncode == 0, err
    assert err == ""
    assert elapsed < BOUND
    events = [line for line in out.splitlines() if not line.startswith("step ")]
    assert events == [
        f"waiting for {metrics}",
        "stage train",
        "training began: 4 steps",
        "evaluation at step 2",
        "evaluation ended at step 2: 2/2 prediction steps",
        "eval loss 2.5 at step 2",
        "training ended at step 4",
        "stage merge",
    ]
    # the writer's lines are dated up to 7 s ahead: its clock, not this one, says when
    last = r"last line (\d+ s ago|\d+ s ahead of this clock)"
    # begin to end: 5 s, 4 steps: 0.8 a second, as tqdm writes it
    assert re.fullmatch(
        rf"step 4/4, loss 1, eval loss 2\.5, {last} \[00:05<00:00, 1\.25s/it\]",
        out.splitlines()[-1],
    )


def test_watch_piped_says_an_evaluations_start_and_end_as_lines(tmp_path: Path) -> None:
    # an evaluation with no result (no eval loss logged), two of its three prediction steps
    # done, ended by the `end` line; watch's standard output a pipe, not a terminal. The file
    # grows a part at a time, each once watch has said what the part before was worth: the
    # evaluation comes after watch's first look (whose evaluations it does not tell)
    metrics = tmp_path / "run" / "metrics.jsonl"
    metrics.parent.mkdir()
    watcher = watch(str(metrics.parent), "--grace", "1")
    stdout = watcher.stdout
    assert stdout is not None

    def said_next() -> str:
        while True:
            line = stdout.readline()
            if not line.startswith("step "):  # the progress, between the events
                return line.rstrip("\n")

    def append(*lines: dict[str, Any]) -> None:
        with metrics.open("a") as handle:
            handle.write("".join(json.dumps(line) + "\n" for line in lines))

    now = time.time()
    try:
        assert said_next() == f"waiting for {metrics}"
        append({"event": "begin", "time": now, "max_steps": 2})
        assert said_next() == "training began: 2 steps"
        append(
            {"event": "log", "time": now + 1, "step": 1, "loss": 2.0},
            {"event": "eval", "time": now + 2, "step": 1, "total": 3},
        )
        assert said_next() == "evaluation at step 1"
        append({"event": "eval", "time": now + 3, "step": 2, "total": 3})
        append({"event": "end", "time": now + 4, "step": 1})
        assert said_next() == "evaluation ended at step 1: 2/3 prediction steps"
        assert said_next() == "training ended at step 1"
        out, err = watcher.communicate(timeout=BOUND)
    finally:
        watcher.kill()
    assert (watcher.returncode, err) == (0, "")
    assert all(line.startswith("step ") for line in out.splitlines())


def test_watch_leaves_when_the_last_stage_starts(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    start = time.monotonic()
    watcher = watch(str(metrics), "--grace", "60")  # no waiting for the grace
    writer = start_writer(metrics, delay=0.2, last_stage="compare")
    out, err = watcher.communicate(timeout=BOUND)
    writer.communicate(timeout=BOUND)
    assert watcher.returncode == 0, err
    assert time.monotonic() - start < 20
    assert "stage compare" in out


def test_watch_of_a_finished_run_returns_at_once(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text(VALID)  # its lines are from long ago
    start = time.monotonic()
    watcher = watch(str(metrics), "--grace", "60")
    out, err = watcher.communicate(timeout=BOUND)
    assert watcher.returncode == 0, err
    assert time.monotonic() - start < 15
    assert out.splitlines()[:-1] == [
        "stage train",
        "training began: 4 steps",
        "training ended at step 4",
        "stage merge",
    ]
    # begin to end: 8 s for 4 steps; the last line, from T (2025), is days old
    assert re.fullmatch(
        r"step 4/4, loss 2\.25, eval loss 2\.5, last line \d+ days ago \[00:08<00:00, 2\.00s/it\]",
        out.splitlines()[-1],
    )


def test_watch_reports_invalid_lines_and_exits_1(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text(VALID.replace('"step":3', '"step":"three"'))
    watcher = watch(str(metrics), "--grace", "0.2")
    out, _ = watcher.communicate(timeout=BOUND)
    assert watcher.returncode == 1
    assert f"{metrics}:8 $.step: invalid type" in out


def test_ctrl_c_leaves_cleanly(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    watcher = watch(str(metrics))  # waits for a file that never comes
    deadline = time.monotonic() + BOUND
    assert watcher.stdout is not None
    assert watcher.stdout.readline() == f"waiting for {metrics}\n"
    watcher.send_signal(signal.SIGINT)
    _, err = watcher.communicate(timeout=max(1.0, deadline - time.monotonic()))
    assert watcher.returncode == 130
    assert "Traceback" not in err
    assert err.strip() == "overbrainer-contract: interrupted"


def test_watch_refuses_standard_input() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "watch", "-"],
        capture_output=True,
        text=True,
        env=python_env(),
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1


def items_of(items: list[Any] | None) -> list[tuple[Any, ...]]:
    """`StateScan` items made comparable: a model as its dump, an error as all it says."""
    assert items is not None
    out: list[tuple[Any, ...]] = []
    for what, *rest in items:
        if what == "logs":
            out.append(("logs", *[dump_line(log) for log in rest[0]]))
        elif what == "line":
            out.append(("line", rest[0], dump_line(rest[1])))
        elif what == "rejected":
            error = rest[1]
            out.append(("rejected", rest[0], error.category, str(error), error.column, rest[2]))
        else:
            out.append((what, *rest))
    return out


def read_alone(number: int, raw: bytes) -> tuple[Any, ...]:
    """What a line read alone by `parse_line` is worth as a `StateScan` item (a log's run
    of one: itself): a line is the bytes before its newline."""
    try:
        parsed = parse_line(raw.removesuffix(b"\n"))
    except ParseError as error:
        return ("rejected", number, error.category, str(error), error.column, True)
    if isinstance(parsed, Log):
        return ("logs", dump_line(parsed))
    return ("line", number, dump_line(parsed))


BEGIN = b'{"event":"begin","time":1}\n'
STAGE = b'{"event":"stage","name":"train","time":2}\n'
LOG = b'{"event":"log","time":3,"step":4,"loss":0.5}\n'


def test_the_follower_reads_only_appended_bytes_and_holds_a_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    follower = Follower(path)
    assert follower.poll() is None

    def poll() -> list[tuple[Any, ...]]:
        return items_of(follower.poll())

    path.write_bytes(b"")
    assert poll() == []
    with path.open("ab", buffering=0) as handle:
        handle.write(BEGIN + STAGE[:9])
        assert poll() == [read_alone(1, BEGIN)]
        assert follower.offset == len(BEGIN) + 9
        assert follower.lines == 1
        assert poll() == []
        handle.write(STAGE[9:-1])
        assert poll() == []
        handle.write(b"\n\n")
        assert poll() == [read_alone(2, STAGE), read_alone(3, b"\n")]
        assert follower.lines == 3
        assert follower.scan.lines == 3
        read: list[int] = []
        assert follower.handle is not None
        real_read = follower.handle.read

        def counting(size: int = -1) -> bytes:
            data = real_read(size)
            read.append(len(data))
            return data

        follower.handle.read = counting  # type: ignore[method-assign]
        handle.write(LOG)
        assert poll() == [read_alone(4, LOG)]
        assert read == [len(LOG)]  # the new bytes only, not the file
    path.write_bytes(BEGIN)  # truncated and rewritten: read again from the start
    assert poll() == [read_alone(1, BEGIN)]
    assert follower.restarted
    assert follower.lines == 1
    follower.close()


def test_the_follower_reads_a_backlog_a_block_at_a_time(tmp_path: Path) -> None:
    """A backlog of lines that are each kept (numbers: rejected lines, and stage lines),
    a block at a time: every line, in order, as `parse_line` reads it alone."""
    path = tmp_path / "metrics.jsonl"
    raws = [b"%d\n" % n if n % 3 else STAGE for n in range(1000)]
    path.write_bytes(b"".join(raws))
    follower = Follower(path, block=1000)
    seen: list[tuple[Any, ...]] = []
    looks = 0
    while True:
        seen += items_of(follower.poll())
        looks += 1
        assert follower.offset <= 1000 * looks  # never more than a block a look
        if not follower.behind:
            break
    assert looks == -(-len(b"".join(raws)) // 1000)
    assert seen == [read_alone(number, raw) for number, raw in enumerate(raws, 1)]
    assert follower.lines == len(raws)
    follower.close()


def test_the_follower_keeps_of_a_run_of_logs_what_the_state_needs(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    """A backlog of logs read a block at a time: the core keeps only the few logs the
    state is made of, and the state it folds them into (`WatchScan`) is what `status -o
    json --now` reports of the file."""
    path = tmp_path / "metrics.jsonl"
    raws = [BEGIN] + [
        json.dumps(
            {"event": "log", "time": 10 + n, "step": n, "loss": 1 / (n + 1) if n % 4 else None}
            | ({"eval_loss": 0.25} if n % 50 == 7 else {})
            | ({"learning_rate": n * 1e-6} if n % 5 == 1 else {})
        ).encode()
        + b"\n"
        for n in range(1, 400)
    ]
    path.write_bytes(b"".join(raws))
    kept = 0
    follower = Follower(path, block=4096)
    while True:
        items = follower.poll()
        assert items is not None
        kept += sum(len(item[1]) for item in items if item[0] == "logs")
        if not follower.behind:
            break
    follower.close()
    assert kept < len(raws) // 4  # only the few the state is made of
    watcher = Follower(path, block=4096, scan=WatchScan)
    events = []
    while True:
        got = watcher.poll()
        assert got is not None
        events += got
        if not watcher.behind:
            break
    watcher.close()
    scan = watcher.scan
    assert isinstance(scan, WatchScan)
    state = json.loads(scan.report(str(path), tmp_path.name, 1e6))
    assert state == json.loads(cli("status", str(path), "-o", "json", "--now", "1e6").out)
    results = [(e.step, e.eval_loss) for e in events if isinstance(e, EvaluationResult)]
    assert results == [(n, 0.25) for n in range(1, 400) if n % 50 == 7]


@pytest.mark.parametrize("grace", ["0", "0.1"])
def test_grace_is_configurable(tmp_path: Path, grace: str) -> None:
    metrics = tmp_path / "metrics.jsonl"
    now = time.time()
    metrics.write_text(
        json.dumps({"event": "begin", "time": now, "max_steps": 2})
        + "\n"
        + json.dumps({"event": "end", "time": now, "step": 2})
        + "\n"
    )
    start = time.monotonic()
    watcher = watch(str(metrics), "--grace", grace)
    watcher.communicate(timeout=BOUND)
    assert watcher.returncode == 0
    assert time.monotonic() - start < 10
