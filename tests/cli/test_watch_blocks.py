"""`watch` reading blocks whole (`parse_block`, logs taken at once) against `watch`
reading every line through `parse_line`: the same events in the same
order, the same progress and exit, on files that grow chunk by chunk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from overbrainer_contract.cli import watch
from overbrainer_contract.cli.watch import PlainView, follow, progress_text
from overbrainer_contract.runs.state import RunState

T = 1764467476.5


def line(**fields: Any) -> bytes:
    return json.dumps(fields, separators=(",", ":")).encode() + b"\n"


def log(step: int, kind: int) -> bytes:
    values: dict[str, Any] = {"epoch": step / 10, "max_steps": 100, "loss": 2.5}
    values |= {"eval_loss": None, "learning_rate": 0.0002, "grad_norm": 1.25}
    if kind == 1:  # the evaluation's result
        values |= {"loss": None, "eval_loss": 2.25, "learning_rate": None, "grad_norm": None}
    if kind == 2:  # another writer: keys left out, an extra one
        values = {"loss": 1.5, "tokens_per_second": 512.5}
    return line(event="log", time=T + step, step=step, **values)


def entry(roll: int, step: int) -> bytes:
    if roll < 70:
        return log(step, 0)
    if roll < 76:
        return log(step, 1)
    if roll < 82:
        return log(step, 2)
    if roll < 90:  # an evaluation's progress, one to four lines
        return b"".join(
            line(event="eval", time=T + step, step=k, total=4) for k in range(1, roll % 4 + 2)
        )
    if roll < 93:
        return line(event="stage", name="train", time=int(T))
    if roll < 95:
        return line(event="begin", time=T, max_steps=100)
    if roll < 98:
        return b"not json\n"
    return line(event="log", time=T, step=0, loss=0.0)  # zeros


chunk = st.lists(st.tuples(st.integers(0, 99), st.integers(1, 5)), min_size=1, max_size=40)
"""Never empty: `watch` shows progress, and so grows the file, only after new lines."""


class Growing(PlainView):
    """A plain view that appends the next chunk to the file each time it shows progress
    (when `watch` has caught up), the end of the run last."""

    every = 0.0

    def __init__(self, path: Path, chunks: list[bytes]) -> None:
        self.events: list[str] = []
        super().__init__(self.events.append)
        self.path, self.chunks = path, chunks

    def progress(self, state: RunState, force: bool = False) -> None:
        shown = f"{progress_text(state)}, {state.evaluation}, {state.last_time}"  # as RichView
        self.events.append(f"progress{' (forced)' if force else ''}: {shown}")
        if self.chunks:
            with self.path.open("ab") as handle:
                handle.write(self.chunks.pop(0))


def watched(tmp_path: Path, name: str, chunks: list[bytes]) -> tuple[int, list[str]]:
    path = tmp_path / name
    path.write_bytes(chunks[0])
    view = Growing(path, chunks[1:])
    code = follow(path, 0.0, 0.0, view)
    return code, view.events


def chunks_of(drawn: list[list[tuple[int, int]]], last_stage: str) -> list[bytes]:
    """The file's chunks: the first, read as a backlog, begins the run."""
    step = 0
    chunks = []
    for entries in drawn:
        body = b""
        for roll, advance in entries:
            step += advance
            body += entry(roll, step)
        chunks.append(body)
    chunks[0] = (
        line(event="stage", name="train", time=int(T)) + line(event="begin", time=T) + chunks[0]
    )
    ending = line(event="end", time=T + step + 1, step=step)
    chunks.append(ending + line(event="stage", name=last_stage, time=int(T) + step + 2))
    return chunks


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(chunk, min_size=1, max_size=6), st.sampled_from(["merge", watch.LAST_STAGE]))
def test_blocks_and_line_by_line_show_the_same(
    tmp_path: Path, drawn: list[list[tuple[int, int]]], last_stage: str
) -> None:
    chunks = chunks_of(drawn, last_stage)
    blocks = watched(tmp_path, "blocks.jsonl", list(chunks))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "parse_block", lambda _: None)  # every line through parse_line
        lines = watched(tmp_path, "lines.jsonl", list(chunks))
    assert blocks == (
        lines[0],
        [event.replace("lines.jsonl", "blocks.jsonl") for event in lines[1]],
    )


def test_a_grown_file_is_read_in_whole_blocks(tmp_path: Path) -> None:
    """A growing file is read whole a chunk at a time: the eval losses after the backlog
    are shown (those of the backlog are not, as line by line)."""
    tried: list[bool] = []
    parse_block = watch.parse_block

    def spy(body: bytes) -> Any:
        found = parse_block(body)
        tried.append(found is not None)
        return found

    drawn = [[(0, 1)] * 3, [(0, 1)] * 30 + [(72, 1)], [(0, 1)] * 40 + [(72, 1)] + [(0, 1)] * 5]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "parse_block", spy)
        code, events = watched(tmp_path, "m.jsonl", chunks_of(drawn, "merge"))
    assert code == 0
    assert tried[1:3] == [True, True]
    assert [event for event in events if event.startswith("eval loss")] == [
        "eval loss 2.25 at step 34\n",
        "eval loss 2.25 at step 75\n",
    ]
