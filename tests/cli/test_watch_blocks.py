"""`watch` through the core (`Follower` feeding `WatchScan`) held to `status`: on files
hypothesis makes, growing chunk by chunk (a line cut between chunks, lines over the user's
bound, a file replaced while it is followed), the state watch shows at its end is the one
`status -o json --now` reports of the file as it then is, field for field; its invalid
lines are those `status` counts, each said once, and its exit says so."""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from functools import partial
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from overbrainer_contract.cli import main, watch
from overbrainer_contract.cli._common import INVALID, OK
from overbrainer_contract.cli.watch import PlainView, follow
from overbrainer_contract.files.follower import Follower
from overbrainer_contract.reader import WatchScan

T = 1764467476.5
NOW = T + 1e5
"""The time the states are told at: the lines' `time` is long past."""


def line(**fields: Any) -> bytes:
    return json.dumps(fields, separators=(",", ":")).encode() + b"\n"


# -- the files ----------------------------------------------------------------------------


def log(step: int, kind: int) -> bytes:
    values: dict[str, Any] = {"epoch": step / 10, "max_steps": 100, "loss": 2.5 + step / 1000}
    values |= {"eval_loss": None, "learning_rate": 0.0002, "grad_norm": 1.25}
    if kind == 1:  # the evaluation's result
        values |= {"loss": None, "eval_loss": 2.25, "learning_rate": None, "grad_norm": None}
    if kind == 2:  # another writer: keys left out, an extra one
        values = {"loss": 1.5, "tokens_per_second": 512.5}
    if kind == 3:  # no loss: the pace does not move
        values = {"learning_rate": 0.0001, "max_steps": 200}
    return line(event="log", time=T + step, step=step, **values)


def entry(roll: int, step: int) -> bytes:
    if roll < 60:
        return log(step, 0)
    if roll < 66:
        return log(step, 1)
    if roll < 72:
        return log(step, 2)
    if roll < 76:
        return log(step, 3)
    if roll < 86:  # an evaluation's progress, one to four lines
        return b"".join(
            line(event="eval", time=T + step, step=k, total=4) for k in range(1, roll % 4 + 2)
        )
    if roll < 88:
        return line(event="stage", name="train", time=int(T))
    if roll < 90:
        return line(event="begin", time=T, max_steps=100)
    if roll < 91:
        return line(event="end", time=T + step, step=step)
    if roll < 93:
        return b"not json\n"
    if roll < 94:
        return b"\n"
    if roll < 95:
        return b'{"event":"log","time":1,"step":2,"note":"\xff"}\n'
    if roll < 96:
        return b'{"event":"log","time":NaN,"step":2}\n'
    if roll < 98:  # long: over a small bound
        return line(event="log", time=T + step, step=step, loss=0.5, note="x" * 300)
    return line(event="log", time=T, step=0, loss=0.0)  # zeros


entries = st.lists(st.tuples(st.integers(0, 99), st.integers(0, 5)), min_size=1, max_size=80)


def body_of(drawn: list[tuple[int, int]], last_stage: str) -> bytes:
    """A run: its stage and begin lines, the lines drawn, its end and a stage after it."""
    step = 0
    body = line(event="stage", name="train", time=int(T)) + line(event="begin", time=T)
    for roll, advance in drawn:
        step += advance
        body += entry(roll, step)
    ending = line(event="end", time=T + step + 1, step=step)
    return body + ending + line(event="stage", name=last_stage, time=int(T) + step + 2)


def cut(body: bytes, at: list[int]) -> list[bytes]:
    """`body` in chunks, cut anywhere (a line may span chunks)."""
    bounds = [0, *sorted({point % (len(body) + 1) for point in at}), len(body)]
    return [body[a:b] for a, b in pairwise(bounds) if b > a]


class Writer:
    """The file's growth: each time `watch` waits (`sleep`) the next chunk is appended (the
    first creates the file); a chunk `None` replaces the file by a new one holding the
    chunk after it."""

    def __init__(self, path: Path, chunks: list[bytes | None]) -> None:
        self.path, self.chunks = path, list(chunks)
        self.waits = 0

    def sleep(self, _: float) -> None:
        self.waits += 1
        assert self.waits < 10_000, "watch never left"
        if not self.chunks:
            return
        chunk = self.chunks.pop(0)
        if chunk is None:
            fresh = self.path.with_suffix(".new")
            fresh.write_bytes(self.chunks.pop(0) or b"")
            os.replace(fresh, self.path)
            return
        with self.path.open("ab") as handle:
            handle.write(chunk)


class Recording(PlainView):
    """A plain view that records every event, and at each progress the state told at
    `NOW` (the core's `StatusReport`, as `status -o json` writes it)."""

    every = 0.0

    def __init__(self) -> None:
        self.events: list[str] = []
        self.states: list[dict[str, Any]] = []
        super().__init__(self.events.append)

    def progress(self, scan: WatchScan, force: bool = False) -> None:  # noqa: ARG002
        self.states.append(json.loads(scan.report("", "", NOW)))

    def idle(self, scan: WatchScan) -> None:
        """Nothing new (the stale ETA is said from the clock, not from the lines)."""


def watched(
    path: Path,
    chunks: list[bytes | None],
    max_line: int | None = None,
    block: int = 4 << 20,
) -> tuple[int, Recording]:
    """What `watch` shows of the file growing by `chunks` (the file absent at first), and
    its exit; it leaves at the job's last stage (no grace: the lines are long past)."""
    if path.exists():
        path.unlink()
    view = Recording()
    writer = Writer(path, chunks)
    clock = SimpleNamespace(monotonic=time.monotonic, time=time.time, sleep=writer.sleep)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "time", clock)
        patch.setattr(watch, "Follower", partial(Follower, block=block))
        code = follow(path, 0.0, float("inf"), view, max_line)
    return code, view


def status_of(path: Path, max_line: int | None = None) -> dict[str, Any]:
    """`status PATH -o json --now NOW` (`--max-line` when given), run in this process."""
    argv = ["status", str(path), "-o", "json", "--now", repr(NOW)]
    if max_line is not None:
        argv += ["--max-line", str(max_line)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(argv)
    return dict(json.loads(out.getvalue()))


def told(state: dict[str, Any]) -> dict[str, Any]:
    """A state less how the run is named (watch names none)."""
    return {key: value for key, value in state.items() if key not in ("run", "name")}


def assert_watch_is_status(
    path: Path,
    files: list[bytes],
    chunks: list[bytes | None],
    max_line: int | None = None,
    block: int = 4 << 20,
) -> tuple[int, Recording]:
    """`watch` of `path` growing by `chunks`, the file's contents over time `files` (one a
    replacement): its last state is `status` of the file it ends with; the invalid lines
    it says are those `status` counts in all of them; exit 1 when there are any."""
    code, view = watched(path, chunks, max_line, block)
    assert told(view.states[-1]) == told(status_of(path, max_line))
    invalid = 0
    for number, body in enumerate(files):
        other = path.with_name(f"file{number}.jsonl")
        other.write_bytes(body)
        invalid += status_of(other, max_line)["invalid_lines"]
    said = [event for event in view.events if event.startswith(f"{path}:")]
    assert len(said) == invalid
    assert code == (INVALID if invalid else OK)
    return code, view


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(entries, min_size=1, max_size=4),
    st.lists(st.integers(0), max_size=10),
    st.one_of(st.none(), st.none(), st.integers(140, 420)),
    st.sampled_from([4 << 20, 4 << 20, 97, 1000]),
    st.integers(0, 3),
)
@example([[(0, 1)] * 3], [], None, 4 << 20, 0)
@example([[(80, 1), (81, 1), (82, 1), (83, 1), (0, 1), (84, 0)]], [], None, 4 << 20, 0)
@example([[(0, 1)] * 5, [(96, 1), (0, 1)]], [300, 301], 60, 97, 1)
def test_watch_shows_at_its_end_what_status_reports(
    tmp_path: Path,
    runs: list[list[tuple[int, int]]],
    at: list[int],
    max_line: int | None,
    block: int,
    replaced: int,
) -> None:
    """Runs, one after another in the file (the file replaced by a new one holding the
    next, when drawn), cut anywhere into the chunks the file grows by; the job's last
    stage ends the last."""
    chunks: list[bytes | None] = []
    files = [b""]
    for index, drawn in enumerate(runs):
        body = body_of(drawn, watch.LAST_STAGE if index == len(runs) - 1 else "train")
        pieces: list[bytes | None] = list(cut(body, at))
        if index and index == replaced:  # the file replaced by a new one, this run in it
            pieces = [None, *pieces]
            files.append(b"")
        files[-1] += body
        chunks += pieces
    assert_watch_is_status(tmp_path / "metrics.jsonl", files, chunks, max_line, block)


def test_a_grown_file_shows_the_eval_losses_after_the_backlog(tmp_path: Path) -> None:
    """A growing file, a chunk a wait: the eval losses logged after the first look are
    shown (those of the backlog it found are not), and the state is `status`'s."""
    head = line(event="stage", name="train", time=int(T)) + line(event="begin", time=T)
    first = head + b"".join(entry(0, step) for step in (1, 2, 3)) + entry(62, 3)
    middle = b"".join(entry(0, step) for step in range(4, 34)) + entry(62, 34)
    tail = b"".join(entry(0, step) for step in range(35, 75)) + entry(62, 75)
    tail += line(event="end", time=T + 76, step=75)
    tail += line(event="stage", name=watch.LAST_STAGE, time=int(T) + 77)
    path = tmp_path / "metrics.jsonl"
    code, view = assert_watch_is_status(path, [first + middle + tail], [first, middle, tail])
    assert code == 0
    assert [event for event in view.events if event.startswith("eval loss")] == [
        "eval loss 2.25 at step 34\n",
        "eval loss 2.25 at step 75\n",
    ]


def test_watch_reads_nothing_after_the_jobs_last_stage(tmp_path: Path) -> None:
    """Lines after the job's last stage are not read: the state is `status`'s of the file
    up to that line."""
    done = body_of([(0, 1)] * 4, watch.LAST_STAGE)
    after = entry(62, 9) + b"not json\n"
    path = tmp_path / "metrics.jsonl"
    code, view = watched(path, [done + after])
    path.write_bytes(done)
    assert code == 0
    assert told(view.states[-1]) == told(status_of(path))


BIG = 2 << 20
"""Past the length from which the core looks at the start of a line under way (1 MiB)."""


@pytest.mark.parametrize(
    "long",
    [
        b'{"event":"log","time":1,"step":2,"loss":0.5,"note":"' + b"y" * BIG + b'"}',
        b"\0" * BIG,
        b'{"event":"log","time":1,"x":"\x01' + b"z" * BIG + b'"}',
        b'{"event":"log","time":1,"x":"\x01' + b"z" * BIG + b'\xff"}',
    ],
    ids=["valid", "zeros", "control", "control-then-not-utf8"],
)
def test_a_long_line_across_looks_is_what_status_reads(tmp_path: Path, long: bytes) -> None:
    """A line of megabytes written over three looks (the first holds its first 1.5 MiB):
    held whole when it may be valid, else decided by its start and skipped; either way
    what `status` reads of the whole file."""
    head = line(event="stage", name="train", time=int(T)) + line(event="begin", time=T)
    tail = line(event="end", time=T + 3, step=2)
    tail += line(event="stage", name=watch.LAST_STAGE, time=int(T))
    split = 3 << 19
    chunks: list[bytes | None] = [head + long[:split], long[split : split + 4096]]
    chunks.append(long[split + 4096 :] + b"\n" + tail)
    files = [b"".join(chunk or b"" for chunk in chunks)]
    assert_watch_is_status(tmp_path / "metrics.jsonl", files, chunks)
