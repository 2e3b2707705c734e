"""`status`: text and JSON (syrupy) on a finished run, a run evaluating with a snapshot
requested, a snapshot taken, invalid, truncated and out-of-order logs; exit codes. The
state read through the core (`StateScan`) against every line fed to `RunState.feed`, and
the core's report (`StatusScan`) against that state told by the rules written out here."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from dataclasses import fields
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cli_samples import EVALUATING, LOGS, PROOF, VALID, make_run
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from line_kinds import split_lines
from overbrainer_contract.cli import status
from overbrainer_contract.contract.models import Log
from overbrainer_contract.reader import dump_line
from overbrainer_contract.runs import clock
from overbrainer_contract.runs import state as state_module
from overbrainer_contract.runs.state import Run, RunState, read_state, read_status, resolve

NOW = 1764467476.5 + 90
"""The clock of these tests (status says how long ago a line came): 90 s after `T`."""


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "now", lambda: NOW)


@pytest.mark.parametrize("name", list(LOGS))
@pytest.mark.usefixtures("logs")
def test_status_of_logs(name: str, cli: Callable[..., Any], snapshot: Any) -> None:
    text = cli("status", f"{name}.jsonl")
    assert text.code == (1 if name == "invalid" else 0)
    assert text.out == snapshot(name="text")
    document = json.loads(cli("status", f"{name}.jsonl", "-o", "json").out)
    assert document == snapshot(name="json")


def test_status_of_run_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any], snapshot: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    make_run(tmp_path / "evaluating", EVALUATING, request="manual\n")
    make_run(tmp_path / "taken", VALID, request="manual\n", proof=PROOF)
    make_run(tmp_path / "bad-proof", VALID, proof="{}")
    for name in ("evaluating", "taken", "bad-proof"):
        result = cli("status", name)
        assert result.code == (1 if name == "bad-proof" else 0)  # as check
        assert result.out == snapshot(name=f"{name}-text")
        assert json.loads(cli("status", name, "-o", "json").out) == snapshot(name=f"{name}-json")


def test_status_of_standard_input(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EVALUATING.encode())))
    document = json.loads(cli("status", "-", "-o", "json").out)
    assert document["evaluation"] == {"step": 1, "total": 2}
    assert document["phase"] == "evaluating"
    assert document["snapshot"] is None


@pytest.mark.usefixtures("logs")
def test_status_exit_codes(cli: Callable[..., Any]) -> None:
    assert cli("status", "valid.jsonl").code == 0
    assert cli("status", "invalid.jsonl").code == 1
    missing = cli("status", "missing")
    assert missing.code == 2
    assert missing.err == "overbrainer-contract: error: missing: no such file or folder\n"
    assert cli("status").code == 2
    assert cli("status", "a", "b").err.splitlines() == [
        "overbrainer-contract: error: a: no such file or folder",
        "overbrainer-contract: error: b: no such file or folder",
    ]


# -- status through the core (`StateScan`) against every line fed to the state ------------

T = 1764467476.5
STAGE_NAMES = ["train", "merge", "export", "eval"]
numbers = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, 1.5, 2.5e-05]),
)
steps = st.integers(0, 2**64 - 1) | st.integers(0, 50)
maybe = partial(st.one_of, st.none())


def dumped(**fields: Any) -> bytes:
    return json.dumps({key: value for key, value in fields.items() if value is not ...}).encode()


logs = st.builds(
    partial(dumped, event="log"),
    time=numbers,
    step=steps,
    epoch=maybe(numbers) | st.just(...),
    max_steps=maybe(steps) | st.just(...),
    loss=maybe(numbers) | st.just(...),
    eval_loss=maybe(numbers) | st.just(...),
    learning_rate=maybe(numbers) | st.just(...),
    grad_norm=maybe(numbers) | st.just(...),
)
others = st.one_of(
    st.builds(partial(dumped, event="eval"), time=numbers, step=steps, total=maybe(steps)),
    st.builds(
        partial(dumped, event="stage"), name=st.sampled_from(STAGE_NAMES), time=st.integers(0, 9)
    ),
    st.builds(partial(dumped, event="begin"), time=numbers, max_steps=maybe(steps) | st.just(...)),
    st.builds(partial(dumped, event="end"), time=numbers, step=steps),
)
bad = st.sampled_from(
    [
        b"",
        b"not json",
        b'{"event":"log","time":1,"step":-1}',
        b'{"event":"log","time":NaN,"step":2}',
        b'{"event":"eval","time":1,"step":2,"note":"\xff"}',
        b'{"event":"begin","time":1,"time":1}',
        b'{"event":"log","time":1,"step":2,"note":"' + b"y" * 200 + b'"}',
    ]
)
run_lines = st.lists(st.one_of(logs, logs, logs, others, bad), max_size=60)


@st.composite
def metrics_files(draw: st.DrawFn) -> bytes:
    """A metrics file: logs of any values, evaluations (often in runs), stages, begins,
    ends, bad lines; its last line with its newline, without it, or cut short."""
    lines = draw(run_lines)
    evals = draw(st.lists(st.integers(0, len(lines)), max_size=3))
    for at in sorted(evals, reverse=True):  # a run of an evaluation's progress lines
        lines[at:at] = [dumped(event="eval", time=T, step=k, total=4) for k in range(1, 5)]
    data = b"".join(line + b"\n" for line in lines)
    end = draw(st.sampled_from(["newline", "none", "cut"]))
    if end != "newline" and data:
        data = data[:-1]
        if end == "cut":
            data = data[: len(data) - draw(st.integers(0, 30))]
    return data


def state_by_lines(data: bytes, max_line: int | None) -> RunState:
    """The state of every line fed one at a time (`RunState.feed`): a line over `max_line`
    bytes (without its newline) an invalid one, unread."""
    state = RunState()
    for raw in split_lines(data):
        if max_line is not None and len(raw.rstrip(b"\n")) > max_line:
            state.lines += 1
            state.invalid += 1
            continue
        state.feed(raw)
    return state


def assert_same_state(got: RunState, want: RunState) -> None:
    for field in fields(RunState):
        mine, theirs = getattr(got, field.name), getattr(want, field.name)
        if field.name == "pace":
            assert (mine.step, mine.max_steps, mine.eta_duration()) == (
                theirs.step,
                theirs.max_steps,
                theirs.eta_duration(),
            )
        elif isinstance(theirs, Log):
            assert isinstance(mine, Log)
            assert dump_line(mine) == dump_line(theirs), field.name
        elif isinstance(theirs, float):
            assert isinstance(mine, float)
            assert mine.hex() == theirs.hex(), field.name
        else:
            assert mine == theirs, field.name
    for name in ("step", "max_steps", "total_steps", "phase", "ended"):
        assert getattr(got, name) == getattr(want, name), name


def summary_by_lines(target: Run, state: RunState, at: float) -> dict[str, Any]:
    """The status report of a state fed line by line, by the rules of `RunState` and
    `runs.clock` (the line-by-line model the core's `StatusScan` is held to)."""
    total = state.total_steps
    step = state.step
    evaluation = state.evaluation
    estimate = clock.estimate_run(state, at)
    snapshot = status.snapshot_status(target) if target.is_folder else None
    stale = estimate.stale and not state.ended

    def value(kept: Any) -> dict[str, Any] | None:
        return None if kept is None else {"step": kept.step, "value": kept.value}

    return {
        "run": target.name,
        "name": target.label or target.name,
        "lines": state.lines,
        "invalid_lines": state.invalid,
        "partial_last_line": state.partial,
        "phase": state.phase,
        "stage": state.stage,
        "step": step,
        "max_steps": total,
        "progress": (min(step / total, 1.0) if total else None),
        "ended": state.ended,
        "begins": len(state.begins),
        "loss": value(state.loss),
        "eval_loss": value(state.eval_loss),
        "best_eval_loss": value(state.best_eval),
        "learning_rate": None if state.learning_rate is None else state.learning_rate.value,
        "evaluation": (
            None if evaluation is None else {"step": evaluation.step, "total": evaluation.total}
        ),
        "eta_seconds": state.pace.eta_seconds(),
        "eta_remaining_seconds": None if state.ended or stale else estimate.remaining,
        "eta_stale": stale,
        "last_time": state.last_time,
        "last_line_seconds": None if state.last_time is None else at - state.last_time,
        "now": at,
        "snapshot": None if snapshot is None else msgspec.to_builtins(snapshot),
        "valid": not state.invalid
        and state.gzip_cut is None
        and (snapshot is None or snapshot.problem is None),
    }


def reported(target: Run, at: float, max_line: int | None = None) -> dict[str, Any]:
    """The core's report of the run (`StatusScan`), as `status -o json` writes it."""
    return msgspec.to_builtins(status.report(target, read_status(target, max_line), at))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    metrics_files(),
    st.lists(st.integers(0), max_size=8),
    st.one_of(st.none(), st.none(), st.integers(30, 200)),
)
@example(b'{"event":"log","time":1,"step":2,"loss":0.5}\n{"event":"log","ti', [], None)
@example(b'{"event":"log","time":1,"step":2,"note":"ab', [10], None)
def test_status_reads_the_state_every_line_gives(
    tmp_path: Path, data: bytes, at: list[int], max_line: int | None
) -> None:
    """`read_state` (the core's `StateScan`, the file in chunks cut anywhere) gives the
    state `RunState.feed` gives, fed every line one at a time: every field, the pace's
    step, total and time left to the nanosecond; and the core's report (`StatusScan`, the
    same chunks) says of the file what that state says, at times before, at and long after
    its last line."""
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(data)
    bounds = [0, *sorted({point % (len(data) + 1) for point in at}), len(data)]
    chunks = [data[a:b] for a, b in pairwise(bounds) if b > a]
    target = resolve(str(path))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(state_module, "read_chunks", lambda _handle, **_: iter(chunks))
        got = read_state(target, max_line=max_line)
        reports = {at: reported(target, at, max_line) for at in (T - 5, T, NOW, T + 1e4)}
    want = state_by_lines(data, max_line)
    assert_same_state(got, want)
    for at, report in reports.items():
        assert report == summary_by_lines(target, want, at)


@pytest.mark.parametrize("bad_every", [0, 7])
def test_status_of_a_large_run_is_the_state_every_line_gives(
    tmp_path: Path, bad_every: int
) -> None:
    """A run of megabytes, read in the core's parts on every core: the same state."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from workloads import bad_line, realistic_lines

    lines = list(realistic_lines(30_000))
    if bad_every:
        lines = [
            bad_line(text, "NaN") if index % bad_every == 3 else text
            for index, text in enumerate(lines)
        ]
    data = "".join(text + "\n" for text in lines).encode()
    path = tmp_path / "metrics.jsonl"
    for body in (data, data[: len(data) // 2 + 17]):
        path.write_bytes(body)
        want = state_by_lines(body, None)
        assert_same_state(read_state(resolve(str(path))), want)
        assert reported(resolve(str(path)), NOW) == summary_by_lines(resolve(str(path)), want, NOW)
