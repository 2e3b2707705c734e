"""`watch` through the core (`Follower` and `StateScan`: of a run of logs only those the
state depends on, of a run of evaluation lines the first and the last) against `watch` as
it was, every complete line through `parse_line` and into the state one at a time: the
same events in the same order, the same progress (the whole state at each), the same
exit, on files hypothesis makes, growing chunk by chunk (a line cut between chunks, lines
over the user's bound, a file replaced while it is followed)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import fields
from functools import partial
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from overbrainer_contract.cli import watch
from overbrainer_contract.cli.watch import PlainView, describe, eval_loss_event, follow
from overbrainer_contract.contract.models import Eval, Log, Stage
from overbrainer_contract.reader import ParseError, dump_line, parse_line
from overbrainer_contract.runs.follower import Change, Follower
from overbrainer_contract.runs.sizes import overlong_reason
from overbrainer_contract.runs.state import RunState

T = 1764467476.5


def line(**fields: Any) -> bytes:
    return json.dumps(fields, separators=(",", ":")).encode() + b"\n"


# -- the oracle: watch as it was, line by line --------------------------------------------


class LineFollower:
    """The old follower: the complete lines appended since the last look, each with its
    newline, a partial last line held; at most `block` bytes a look (`behind`: more may be
    there); a file that shrinks or is replaced is read again from its start."""

    def __init__(self, path: Path, block: int) -> None:
        self.path, self.block = path, block
        self.handle: Any = None
        self.offset = 0
        self.held = b""
        self.behind = False
        self.restarted: Change | None = None

    def poll(self) -> list[bytes] | None:
        if self.handle is None:
            try:
                self.handle = self.path.open("rb")
            except FileNotFoundError:
                return None
        if not self.behind:
            size = os.fstat(self.handle.fileno()).st_size
            try:
                replaced = os.stat(self.path).st_ino != os.fstat(self.handle.fileno()).st_ino
            except FileNotFoundError:
                replaced = False
            if size < self.offset or replaced:
                self.handle.close()
                self.handle, self.offset, self.held = None, 0, b""
                self.restarted = Change.REPLACED if replaced else Change.TRUNCATED
                return self.poll()
            if size == self.offset:
                return []
            self.handle.seek(self.offset)
        data = self.handle.read(self.block)
        self.offset += len(data)
        self.behind = len(data) == self.block
        *complete, self.held = (self.held + data).split(b"\n")
        return [raw + b"\n" for raw in complete]

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


def follow_by_lines(
    path: Path,
    interval: float,
    grace: float,
    view: PlainView,
    max_line: int | None = None,
    block: int = 4 << 20,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """`watch`'s `follow` as it was (`git show 017c58e:…/cli/watch.py`), every complete
    line through `parse_line` (its `one_by_one`): a line over `max_line` bytes (without
    its newline) invalid, unread."""
    follower = LineFollower(path, block)
    state = RunState()
    waiting_said = False
    first = True
    quiet_since = time.monotonic()
    number = 0

    def one_by_one(raws: list[bytes], seen: int) -> tuple[int, bool]:
        number = seen
        for number, raw in enumerate(raws, seen + 1):
            if max_line is not None and len(raw) - 1 > max_line:
                state.invalid += 1
                view.event(f"{path}:{number} $: {overlong_reason(len(raw), True, max_line)}")
                continue
            try:
                parsed = parse_line(raw.removesuffix(b"\n"))  # a line: the bytes before its newline
            except ParseError as error:
                state.invalid += 1
                view.event(f"{path}:{number} {error.path or '$'}: {error}")
                continue
            was = state.evaluation
            state.take(parsed)
            if isinstance(parsed, Log):
                if not first and isinstance(parsed.eval_loss, float):
                    view.event(eval_loss_event(parsed))
                continue
            text = describe(parsed, state, was)
            if text is not None and not (first and isinstance(parsed, Eval)):
                view.event(text)
            if isinstance(parsed, Stage) and parsed.name.value == watch.LAST_STAGE:
                return number, True
        return number, False

    try:
        while True:
            raws = follower.poll()
            if raws is None:
                if not waiting_said:
                    view.event(f"waiting for {path}")
                    waiting_said = True
                sleep(interval)
                continue
            if follower.restarted:  # said in watch's words; what was invalid stays seen
                view.event(watch.change_text(path, follower.restarted))
                follower.restarted = None
                invalid, state, number = state.invalid, RunState(), 0
                state.invalid = invalid
            seen = number
            number, done = one_by_one(raws, number)
            state.lines += number - seen
            if done:
                view.progress(state, force=True)
                return watch.INVALID if state.invalid else watch.OK
            if follower.behind:
                continue
            now = time.monotonic()
            if number > seen:
                quiet_since = now
                view.progress(state, force=first)
            done = state.ended or (state.stage is not None and state.stage != "train")
            if done:
                caught_up_old = (
                    first and state.last_time is not None and time.time() - state.last_time > grace
                )
                if caught_up_old or now - quiet_since >= grace:
                    view.progress(state, force=True)
                    return watch.INVALID if state.invalid else watch.OK
            first = False
            sleep(interval)
    finally:
        follower.close()


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


class Recording(PlainView):
    """A plain view that records every event and, at each progress, the whole state."""

    every = 0.0

    def __init__(self) -> None:
        self.events: list[str] = []
        super().__init__(self.events.append)

    def progress(self, state: RunState, force: bool = False) -> None:
        self.events.append(f"progress{' (forced)' if force else ''}: {shown(state)}")

    def idle(self, state: RunState) -> None:
        """Nothing new (the oracle has no such look: the stale ETA is said by the view,
        from the clock, not from the lines)."""


def shown(state: RunState) -> str:
    """Every field of the state (the logs by their dumps, floats to the bit), the pace's
    step, total and time left, and the progress text."""
    parts = [watch.progress_text(state)]
    for field in fields(state):
        value = getattr(state, field.name)
        if field.name == "pace":
            value = (value.step, value.max_steps, value.eta_duration())
        elif isinstance(value, Log):
            value = dump_line(value)
        elif isinstance(value, float):
            value = value.hex()
        parts.append(f"{field.name}={value!r}")
    return ", ".join(parts)


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


def watched(
    path: Path,
    chunks: list[bytes | None],
    *,
    oracle: bool,
    max_line: int | None = None,
    block: int = 4 << 20,
) -> tuple[int, list[str]]:
    """What `watch` shows of the file growing by `chunks` (the file absent at first), and
    its exit: through the core, or line by line (`oracle`)."""
    if path.exists():
        path.unlink()
    view = Recording()
    writer = Writer(path, chunks)
    if oracle:
        code = follow_by_lines(path, 0.0, 0.0, view, max_line, block, writer.sleep)
        return code, view.events
    clock = SimpleNamespace(monotonic=time.monotonic, time=time.time, sleep=writer.sleep)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "time", clock)
        patch.setattr(watch, "Follower", partial(Follower, block=block))
        code = follow(path, 0.0, 0.0, view, max_line)
    return code, view.events


def assert_same_watch(
    path: Path, chunks: list[bytes | None], max_line: int | None = None, block: int = 4 << 20
) -> tuple[int, list[str]]:
    core = watched(path, chunks, oracle=False, max_line=max_line, block=block)
    lines = watched(path, chunks, oracle=True, max_line=max_line, block=block)
    assert core == lines
    return core


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(entries, min_size=1, max_size=4),
    st.lists(st.integers(0), max_size=10),
    st.sampled_from(["merge", watch.LAST_STAGE]),
    st.one_of(st.none(), st.none(), st.integers(140, 420)),
    st.sampled_from([4 << 20, 4 << 20, 97, 1000]),
    st.integers(0, 3),
)
@example([[(0, 1)] * 3], [], "merge", None, 4 << 20, 0)
@example([[(80, 1), (81, 1), (82, 1), (83, 1), (0, 1), (84, 0)]], [], "merge", None, 4 << 20, 0)
@example([[(0, 1)] * 5, [(96, 1), (0, 1)]], [300, 301], watch.LAST_STAGE, 60, 97, 1)
def test_watch_through_the_core_shows_what_line_by_line_shows(
    tmp_path: Path,
    runs: list[list[tuple[int, int]]],
    at: list[int],
    last_stage: str,
    max_line: int | None,
    block: int,
    replaced: int,
) -> None:
    """Runs, one after another in the file (a first one replaced by the next while it is
    followed, when drawn), cut anywhere into the chunks the file grows by."""
    chunks: list[bytes | None] = []
    for index, drawn in enumerate(runs):
        body = body_of(drawn, last_stage if index == len(runs) - 1 else "train")
        pieces: list[bytes | None] = list(cut(body, at))
        if index and index == replaced:  # the file replaced by a new one, this run in it
            pieces = [None, *pieces]
        chunks += pieces
    assert_same_watch(tmp_path / "metrics.jsonl", chunks, max_line, block)


def test_a_grown_file_shows_the_eval_losses_after_the_backlog(tmp_path: Path) -> None:
    """A growing file, a chunk a wait: the eval losses after the backlog are shown (those
    of the backlog are not), as line by line."""
    drawn = [[(0, 1)] * 3 + [(62, 0)], [(0, 1)] * 30 + [(62, 1)], [(0, 1)] * 40 + [(62, 1)]]
    body = b""
    step = 0
    for entries_of in drawn:
        chunk = b""
        for roll, advance in entries_of:
            step += advance
            chunk += entry(roll, step)
        body += chunk
    head = line(event="stage", name="train", time=int(T)) + line(event="begin", time=T)
    sizes = [len(head) + len(entry(0, 1)) * 3 + len(entry(62, 3)), None]
    first = head + body[: sizes[0] - len(head)]
    rest = body[sizes[0] - len(head) :]
    middle = rest[: rest.index(entry(62, 34)) + len(entry(62, 34))]
    tail = rest[len(middle) :] + line(event="end", time=T + step + 1, step=step)
    tail += line(event="stage", name="merge", time=int(T) + step + 2)
    code, events = assert_same_watch(tmp_path / "metrics.jsonl", [first, middle, tail])
    assert code == 0
    assert [event for event in events if event.startswith("eval loss")] == [
        "eval loss 2.25 at step 34\n",
        "eval loss 2.25 at step 75\n",
    ]


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
def test_a_long_line_across_looks_is_shown_as_line_by_line(tmp_path: Path, long: bytes) -> None:
    """A line of megabytes written over three looks (the first holds its first 1.5 MiB):
    held whole when it may be valid, else decided by its start and skipped; either way
    what `parse_line` says of the whole line."""
    head = line(event="stage", name="train", time=int(T)) + line(event="begin", time=T)
    tail = line(event="end", time=T + 3, step=2) + line(event="stage", name="merge", time=int(T))
    split = 3 << 19
    chunks: list[bytes | None] = [head + long[:split], long[split : split + 4096]]
    chunks.append(long[split + 4096 :] + b"\n" + tail)
    assert_same_watch(tmp_path / "metrics.jsonl", chunks)
