"""`check_pieces`, the block path `check` takes (runs of lines read at once by
`parse_block`), against `check_lines`, every line through `parse_line`: the same
findings, in the same order, and the same summary, on any file; and valid runs really are
read at once."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from overbrainer_contract.check import checker
from overbrainer_contract.check.checker import FileResult, Finding, check_lines, check_pieces
from overbrainer_contract.runs import lines as lines_module
from overbrainer_contract.runs.lines import read_lines, read_pieces

T = 1764467476.5


def line(**fields: Any) -> bytes:
    return json.dumps(fields, separators=(",", ":")).encode()


def log(step: int, form: int) -> bytes:
    if form == 0:  # the plugin's form: every key, compact
        return line(
            event="log",
            time=T + step,
            step=step,
            epoch=step / 10,
            max_steps=100,
            loss=2.5,
            eval_loss=None,
            learning_rate=0.0002,
            grad_norm=1.25,
        )
    if form == 1:  # another writer: keys left out, another order, an extra metric
        return line(step=step, event="log", time=T + step, loss=0.5, tokens_per_second=512.5)
    if form == 2:  # spaced, an integer time
        return b'{ "event" : "log", "time": %d, "step": %d }' % (int(T) + step, step)
    return line(event="log", time=T + step, step=step, loss=0.0, learning_rate=0.0)  # zeros


BAD = (
    b"not json",
    b'{"event":"log","time":1.0,"st',
    b'{"event":"log","time":NaN,"step":1}',
    b'{"event":"log","time":1.0,"step":1,"step":2}',
    b'{"event":"log","time":1.0,"step":"one"}',
    b'{"event":"log","time":1.0,"step":-0}',
    b'{"event":"party","time":1.0}',
    b"",
    b'{"event":"log","time":1.0,"step":1}\xff',  # not UTF-8
    b'{"event":"log","time":1.0,"step":1}],[{"event":"log","time":2.0,"step":2}',  # one line
    b'{"event":"log","time":1.0,"step":1,"note":"],["}',  # valid: a string holding `],[`
    b'{"event":"log","time":1.0,"step":1,"time":2.0}',  # a known key twice
    b'{"event":"log","time":1.0,"step":1,"extra":1,"extra":2}',  # an unknown key twice
    b'{"event":"log","time":1e309,"step":1}',  # out of f64's range
)
"""Lines that are bad, or odd: each read by `parse_line`, or making its block line by line."""


def other(kind: str, step: int) -> bytes:
    if kind == "begin":
        return line(event="begin", time=T, max_steps=100)
    if kind == "end":
        return line(event="end", time=T + step, step=step)
    if kind == "eval":
        return line(event="eval", time=T + step, step=step, total=4)
    return line(event="stage", name="train", time=int(T))


def pick(roll: int, value: int, form: int) -> tuple[str, int, int]:
    """A file's entry from a roll of 0-99: mostly valid logs, as real files are, so that
    many runs are read whole; the rest zeros (valid), the other events, bad lines and
    overlong ones."""
    if roll < 77:
        return "log", value, form
    if roll < 80:
        return "log", value, 3  # zeros
    if roll < 90:
        return ("eval", "stage")[roll % 2], value, 0
    if roll < 92:
        return ("begin", "end")[roll % 2], value, 0
    if roll < 97:
        return "bad", value % len(BAD), 0
    return "long", value, 0


entry = st.builds(pick, st.integers(0, 99), st.integers(0, 40), st.integers(0, 2))


def build(entries: list[tuple[str, int, int]]) -> bytes:
    out = []
    for kind, value, form in entries:
        if kind == "log":
            out.append(log(value, form))
        elif kind == "bad":
            out.append(BAD[value])
        elif kind == "long":  # valid, but over a small bound
            out.append(line(event="log", time=T, step=value, note="x" * 300))
        else:
            out.append(other(kind, value))
    return b"\n".join(out)


def mostly_in_order(entries: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """A begin first, steps mostly rising, an end only at the end: many runs need no
    warning (a log with value 0 goes back to step 0)."""
    middle = [
        (kind, index if kind == "log" and value else value, form)
        for index, (kind, value, form) in enumerate(entries)
        if kind not in ("begin", "end")
    ]
    return [("begin", 0, 0), *middle, ("end", len(entries), 0)]


def both(data: bytes, max_line: int, block: int) -> tuple[Any, Any]:
    def run(check: Any, read: Any) -> tuple[list[Finding], FileResult]:
        found: list[Finding] = []
        handle = io.BufferedReader(io.BytesIO(data))
        result = check(read(handle, max_line=max_line, block=block), "f", found.append)
        return found, result

    return run(check_lines, read_lines), run(check_pieces, read_pieces)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(entry, min_size=30, max_size=150).map(mostly_in_order),
    st.booleans(),  # the last line's newline
    st.sampled_from([64, 512, 1000, 4096, 1 << 16]),  # block size
    st.sampled_from([150, 1 << 20]),  # the bound: 150 makes the long lines overlong
)
def test_the_block_path_finds_what_line_by_line_finds(
    entries: list[tuple[str, int, int]], newline: bool, block: int, max_line: int
) -> None:
    data = build(entries) + (b"\n" if newline and entries else b"")
    lines, pieces = both(data, max_line, block)
    assert pieces == lines


@settings(max_examples=200, deadline=None)
@given(st.lists(entry, min_size=10, max_size=80), st.sampled_from([64, 300, 2000, 1 << 16]))
def test_the_block_path_on_any_order(entries: list[tuple[str, int, int]], block: int) -> None:
    data = build(entries) + b"\n"
    lines, pieces = both(data, 1 << 20, block)
    assert pieces == lines


def valid_run(steps: range) -> bytes:
    body = [other("begin", 0)]
    body += [log(step, step % 3) for step in steps]
    body.insert(len(body) // 2, other("eval", 5))
    body += [other("end", steps[-1]), other("stage", 0)]
    return b"\n".join(body) + b"\n"


@pytest.mark.parametrize(
    ("inserted", "finding"),
    [
        (log(3, 0), "goes back"),
        (other("end", 3), "after the end line"),
        (b"not json", "expected ident"),
        (None, "before the first begin line"),  # the begin line left out
    ],
)
def test_a_finding_deep_in_a_valid_file_is_placed_as_line_by_line(
    inserted: bytes | None, finding: str
) -> None:
    lines = valid_run(range(1, 1500)).splitlines()
    lines = lines[1:] if inserted is None else [*lines[:700], inserted, *lines[700:]]
    lines_found, pieces_found = both(b"\n".join(lines) + b"\n", 1 << 20, 1 << 16)
    assert pieces_found == lines_found
    assert any(finding in item.message for item in pieces_found[0]), pieces_found[0][:3]


def test_valid_runs_are_read_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the runs holding the begin and the end line are read line by line."""
    read_alone: list[bytes] = []
    parse = checker.parse_line

    def spy(raw: bytes) -> Any:
        read_alone.append(raw)
        return parse(raw)

    monkeypatch.setattr(checker, "parse_line", spy)
    data = valid_run(range(1, 20_000))
    found: list[Finding] = []
    result = check_pieces(read_pieces(io.BytesIO(data)), "f", found.append)
    assert (found, result.lines) == ([], 20_003)
    assert result.events == {"begin": 1, "log": 19_999, "eval": 1, "stage": 1, "end": 1}
    assert 0 < len(read_alone) < 2 * (1 << 16) // 40  # two runs of 64 KiB at most
    assert read_alone[0] == other("begin", 0) + b"\n"
    assert read_alone[-1] == other("stage", 0) + b"\n"


def test_after_a_bad_run_the_next_runs_are_read_line_by_line_a_while() -> None:
    """A file of many bad lines tries to read a run whole once in MAX_BACKOFF runs at most."""
    tries: list[int] = []
    decode = lines_module.parse_block

    def counted(body: bytes) -> Any:
        tries.append(len(body))
        return decode(body)

    lines = [log(step, 0) for step in range(1, 50_000)]
    lines[::10] = [b"not json"] * len(lines[::10])
    data = other("begin", 0) + b"\n" + b"\n".join(lines) + b"\n"
    check = checker.MetricsCheck("f", lambda _: None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines_module, "parse_block", counted)
        for single, body in read_pieces(io.BytesIO(data)):
            check.lines(single)
            check.run(body)
    runs = len(data) // (1 << 16)
    assert len(tries) <= 1 + runs // lines_module.MAX_BACKOFF + 7  # 1, 2, 4 ... 64, then every 65th
    assert check.result().errors == len(lines[::10])


@pytest.mark.parametrize("odd", BAD)
def test_each_bad_or_odd_line_in_a_valid_file(odd: bytes) -> None:
    lines = valid_run(range(1, 1500)).splitlines()
    data = b"\n".join([*lines[:700], odd, *lines[700:]]) + b"\n"
    lines_found, pieces_found = both(data, 1 << 20, 1 << 16)
    assert pieces_found == lines_found


@pytest.mark.parametrize("odd", [None, b"not json", log(2, 3)])
def test_the_readme_block_example(tmp_path: Path, odd: bytes | None) -> None:
    """README's "Reading lines": `parse_block` of a file's complete lines from the
    package (None when one is invalid), else line by line: each valid line's model, in
    order, either way."""
    from overbrainer_contract import ParseError, parse_block, parse_line

    lines = valid_run(range(1, 400)).splitlines(keepends=True)
    if odd is not None:
        lines.insert(200, odd + b"\n")
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b"".join(lines) + b'{"event":"log","ti')  # the last line still written
    with open(path, "rb") as handle:
        body = handle.read()
    body = body[: body.rfind(b"\n") + 1]
    values = parse_block(body)
    assert (values is None) is (odd == b"not json")  # zeros are valid: read whole
    if values is None:
        values = []
        for raw in body.splitlines(keepends=True):
            try:  # noqa: SIM105 - the README's example, as written
                values.append(parse_line(raw))
            except ParseError:
                pass
    expected = []
    for raw in lines:
        with contextlib.suppress(ParseError):
            expected.append(parse_line(raw))
    assert values == expected
