"""`watch` against a writer appending in another process: lines split across writes, a
file that does not exist yet, the end of the job, Ctrl-C; each with a bound on time."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_samples import VALID, python_env
from overbrainer_contract.cli.watch import Follower

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
        "eval loss 2.5 at step 2",
        "training ended at step 4",
        "stage merge",
    ]
    assert out.splitlines()[-1] == "step 4/4, loss 1, eval loss 2.5"


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
    assert out.splitlines() == [
        "stage train",
        "training began: 4 steps",
        "training ended at step 4",
        "stage merge",
        "step 4/4, loss 2.25, eval loss 2.5",
    ]


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


def test_the_follower_reads_only_appended_bytes_and_holds_a_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    follower = Follower(path)
    assert follower.poll() is None

    def poll() -> list[bytes]:
        lines = follower.poll()
        assert lines is not None
        return list(lines)

    path.write_bytes(b"")
    assert poll() == []
    with path.open("ab", buffering=0) as handle:
        handle.write(b'{"a":1}\n{"b"')
        assert poll() == [b'{"a":1}\n']
        assert follower.offset == 12
        assert poll() == []
        handle.write(b":2}")
        assert poll() == []
        handle.write(b"\n\n")
        assert poll() == [b'{"b":2}\n', b"\n"]
        assert (follower.splitter.pieces, follower.splitter.held) == ([], 0)
        read: list[int] = []
        assert follower.handle is not None
        real_read = follower.handle.read

        def counting(size: int | None = -1) -> bytes:
            data = real_read(size)
            read.append(len(data))
            return data

        follower.handle.read = counting  # type: ignore[method-assign]
        handle.write(b"x" * 10 + b"\n")
        assert poll() == [b"x" * 10 + b"\n"]
        assert read == [11]  # the new bytes only, not the file
    path.write_bytes(b'{"c":3}\n')  # truncated and rewritten: read again from the start
    assert poll() == [b'{"c":3}\n']
    assert follower.restarted
    follower.close()


def test_the_follower_reads_a_backlog_a_block_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b"".join(b"%d\n" % n for n in range(1000)))  # 3,890 bytes
    follower = Follower(path, block=1000)
    seen: list[bytes] = []
    looks = 0
    while True:
        lines = follower.poll()
        assert lines is not None
        seen += lines
        looks += 1
        assert follower.offset <= 1000 * looks  # never more than a block a look
        if not follower.behind:
            break
    assert looks == 4
    assert seen == [b"%d\n" % n for n in range(1000)]
    follower.close()


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
