"""`status`: text and JSON (syrupy) on a finished run, a run evaluating with a snapshot
requested, a snapshot taken, invalid, truncated and out-of-order logs; exit codes. The
core's status of a file (`StatusScan`, and `WatchScan` as `watch` follows it) read in any
chunks is its status read whole; what the lines mean is held by the run-level golden suite
(`tests/conformance/runs/`)."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cli_samples import EVALUATING, LOGS, PROOF, VALID, make_run
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from overbrainer_contract.reader import StatusScan, WatchScan
from overbrainer_contract.runs import clock
from overbrainer_contract.runs import state as state_module
from overbrainer_contract.runs import status as runs_status
from overbrainer_contract.runs.state import Run, read_status, resolve

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


# -- the core's status, whatever the chunks a file is read in --------------------------

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


def reported_of(chunks: list[bytes], max_line: int | None, at: float) -> bytes:
    """The core's report (`StatusScan`) of the file fed as `chunks`, told at `at`: the
    JSON `status -o json` writes of a metrics file named alone."""
    scan = StatusScan(max_line)
    for chunk in chunks:
        scan.feed(chunk)
    scan.finish()
    return scan.report("r", "r", at)


def watched_of(chunks: list[bytes], max_line: int | None, at: float) -> tuple[bytes, list[str]]:
    """The core's state of the same file followed (`WatchScan`), told at `at`, and its
    events (each as all it holds)."""
    scan = WatchScan(max_line)
    events = []
    for chunk in chunks:
        events += scan.feed(chunk)
    events += scan.finish()
    return scan.report("r", "r", at), [said(event) for event in events]


def said(event: object) -> str:
    """An event as all it holds (its class and its fields; an error by its words)."""
    fields = {
        name: str(value) if isinstance(value, Exception) else value
        for name in dir(event)
        if not name.startswith("_") and not callable(value := getattr(event, name))
    }
    return f"{type(event).__name__}{sorted(fields.items())}"


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
def test_the_status_of_a_file_read_in_any_chunks_is_its_status_read_whole(
    tmp_path: Path, data: bytes, cuts: list[int], max_line: int | None
) -> None:
    """The core's status of a file fed in chunks cut anywhere (`StatusScan`, as `status`
    reads a file, `read_status`, and as `watch` follows one, `WatchScan`) is its status fed
    whole, at times before, at and long after its last line; the events `watch` is told
    do not depend on the chunks either."""
    bounds = [0, *sorted({point % (len(data) + 1) for point in cuts}), len(data)]
    chunks = [data[a:b] for a, b in pairwise(bounds) if b > a]
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(data)
    target = resolve(str(path))
    times = (T - 5, T, NOW, T + 1e4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(state_module, "read_chunks", lambda _handle, **_: iter(chunks))
        read = {at: reported(target, at, max_line) for at in times}
    whole_events = watched_of([data], max_line, T)[1]
    for at in times:
        whole = reported_of([data], max_line, at)
        assert reported_of(chunks, max_line, at) == whole
        assert read[at] == json.loads(whole) | {"run": str(path), "name": target.label}
        state, events = watched_of(chunks, max_line, at)
        assert state == whole
        assert events == whole_events


def reported(target: Run, at: float, max_line: int | None = None) -> dict[str, Any]:
    """The report of the run `status` reads (`read_status`), as `status -o json` writes it."""
    report: dict[str, Any] = msgspec.to_builtins(
        runs_status.report(target, read_status(target, max_line), at)
    )
    return report


@pytest.mark.parametrize("bad_every", [0, 7])
def test_status_of_a_large_run_read_in_chunks_is_its_status_read_whole(
    tmp_path: Path, bad_every: int
) -> None:
    """A run of megabytes, read as `status` reads it (its chunks, each in the core's parts
    on every core): the report of the whole file fed at once, and of small chunks."""
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
        whole = json.loads(reported_of([body], None, NOW))
        small = [body[at : at + 4093] for at in range(0, len(body), 4093)]
        assert json.loads(reported_of(small, None, NOW)) == whole
        target = resolve(str(path))
        assert reported(target, NOW) == whole | {"run": str(path), "name": target.label}
        assert bool(whole["invalid_lines"]) == bool(bad_every)
