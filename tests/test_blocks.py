"""`parse_block` and `parse_lines`, a block of lines in one call, against `parse_line` on
each line; `lines.BlockStream`, the back-off over `parse_block` that `check` and
`export` use.

A block is either every line's own value or None (`parse_block`); `parse_lines` answers
every line, as its model or its `ParseError`. A block's line is what comes before its
newline, as the golden suite splits a file.
"""

from __future__ import annotations

import math
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from overbrainer_contract import ParseError, parse_block, parse_line, parse_lines
from overbrainer_contract.reader import summarize_block
from overbrainer_contract.runs.lines import MAX_BACKOFF, BlockStream

CASES = Path(__file__).parent / "conformance" / "cases"

PLUGIN = [
    '{"event":"stage","name":"train","time":1764467476}',
    '{"event":"begin","time":1764467476.5,"max_steps":12}',
    '{"event":"log","time":1764467477.4098756,"step":4,"epoch":0.0013333333333333333,'
    '"max_steps":12,"loss":3.233425859797991,"eval_loss":null,'
    '"learning_rate":1.999999998976714e-05,"grad_norm":0.1814260266877301}',
    '{"event":"eval","time":1764467479.5,"step":20,"total":60}',
    '{"event":"log","time":1764467480.5,"step":4,"epoch":0.25,"max_steps":12,"loss":null,'
    '"eval_loss":2.5,"learning_rate":null,"grad_norm":null}',
    '{"event":"end","time":1764467490.5,"step":12}',
]

OTHER = [  # another writer: keys absent, another order, white space, an extra number
    '{"time": 1764467476.25, "event": "log", "step": 3, "loss": 0.5, "tokens_per_second": 4.5}',
    '{"event":"log","time":1,"step":12,"epoch":1,"max_steps":20,"grad_norm":2e-05}',
    '\t{ "step" : 3 , "event" : "eval" , "time" : 1.5 }\r',
    '{"event":"begin","time":1.5}',
    '{"time": 2, "event": "end", "step": 7, "ok": true, "gpu": null, "n": -0, "total": 3}',
    '{"event":"stage","time":1,"name":"train"}',
    '{"event":"end","time":1,"step":0}',  # zeros
    '{"event":"log","time":0.0,"step":0,"loss":0.0}',
]


def golden_lines() -> list[str]:
    """Every line of the golden suite, good and bad."""
    lines: list[str] = []
    for path in sorted(CASES.glob("*.jsonl")):
        lines += path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    return lines


GOLDEN = golden_lines()


def answer(value: object) -> tuple[str, object]:
    """The whole answer: the value's type and fields (floats with their sign), or the
    error and all it says."""
    if isinstance(value, ParseError):
        return ("error", (value.category, str(value), value.path, value.column))
    fields = tuple(
        (name, math.copysign(1.0, v) if isinstance(v, float) else None, v)
        for name, v in ((name, getattr(value, name)) for name in value.__struct_fields__)  # type: ignore[attr-defined]
    )
    return (type(value).__name__, fields)


def alone(line: str | bytes) -> tuple[str, object]:
    try:
        return answer(parse_line(line))
    except ParseError as error:
        return answer(error)


def block(lines: list[str], end: str = "\n") -> bytes:
    return "".join(text + end for text in lines).encode("utf-8", "surrogateescape")


def test_the_golden_suite_has_lines_of_both_kinds() -> None:
    verdicts = {alone(text.encode("utf-8", "surrogateescape"))[0] == "error" for text in GOLDEN}
    assert verdicts == {True, False}


@pytest.mark.parametrize("lines", [PLUGIN * 3, OTHER, PLUGIN + OTHER])
def test_a_block_of_valid_lines_is_every_lines_value(lines: list[str]) -> None:
    values = parse_block(block(lines))
    assert values is not None
    assert [answer(v) for v in values] == [alone(text) for text in lines]
    assert [answer(v) for v in parse_lines(block(lines))] == [alone(text) for text in lines]
    crlf = parse_block(block(lines, "\r\n"))
    assert crlf is not None
    assert [answer(v) for v in crlf] == [answer(v) for v in values]


@pytest.mark.parametrize(
    "lines",
    [
        [*PLUGIN[:2], "", *PLUGIN[2:]],  # a blank line
        [*PLUGIN[:2], "   ", *PLUGIN[2:]],  # white space alone
        [PLUGIN[5] + "],[" + PLUGIN[5]],  # two values on one line
        [PLUGIN[5][:34], PLUGIN[5][34:]],  # one line cut between two members
        [PLUGIN[5] + "," + PLUGIN[5], PLUGIN[5]],
        [PLUGIN[5] + "]", "[" + PLUGIN[5]],
        [PLUGIN[5][:-1] + ',"step":3}'],  # a key written twice
        [PLUGIN[2], "\ufeff" + PLUGIN[2]],  # a byte order mark
        ["[" + PLUGIN[5] + "]"],
        [*PLUGIN, "not json"],  # the last line
    ],
)
def test_a_block_with_any_invalid_line_is_none(lines: list[str]) -> None:
    assert parse_block(block(lines)) is None
    answers = [answer(v) for v in parse_lines(block(lines))]
    assert answers == [alone(text) for text in lines]
    assert any(kind == "error" for kind, _ in answers)


def test_a_block_must_end_with_a_newline() -> None:
    assert parse_block(block(PLUGIN)[:-1]) is None
    assert parse_block(b"") is None


def test_parse_lines_answers_a_last_line_without_its_newline_and_raises_nothing() -> None:
    body = block(PLUGIN[:2]) + PLUGIN[5][:20].encode()
    answers = parse_lines(body)
    assert len(answers) == 3
    assert [answer(v) for v in answers[:2]] == [alone(text) for text in PLUGIN[:2]]
    assert isinstance(answers[2], ParseError)
    assert answers[2].category == "eof"
    assert answer(answers[2]) == alone(PLUGIN[5][:20])
    assert parse_lines(b"") == []


def test_a_blocks_line_is_what_comes_before_its_newline() -> None:
    """A string cut by its newline: `eof` in a block, as the line alone; given whole to
    `parse_line`, the newline is a control character in the string."""
    cut = '{"event":"log","time":1,"step":2,"note":"ab'
    (error,) = parse_lines(block([cut]))
    assert isinstance(error, ParseError)
    assert answer(error) == alone(cut)
    assert error.category == "eof"
    with pytest.raises(ParseError) as caught:
        parse_line(cut + "\n")
    assert caught.value.category == "syntax"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PLUGIN + OTHER + GOLDEN), min_size=1, max_size=12))
def test_a_block_is_its_lines_values_or_none(lines: list[str]) -> None:
    lines = [text for text in lines if "\n" not in text]
    if not lines:
        return
    body = block(lines)
    singly = [alone(text.encode("utf-8", "surrogateescape")) for text in lines]
    assert [answer(v) for v in parse_lines(body)] == singly
    values = parse_block(body)
    if values is None:
        assert any(kind == "error" for kind, _ in singly), lines
        return
    assert [answer(v) for v in values] == singly


def test_a_stream_backs_off_after_a_bad_block_and_ends_it_at_a_good_one() -> None:
    stream = BlockStream()
    good, bad = block(PLUGIN), block([*PLUGIN, "not json"])
    tried = [stream.parse(bad) is None for _ in range(200)]
    assert all(tried)
    assert stream.backoff == MAX_BACKOFF
    # 1 + 2 + 4 + ... + 64 skipped, then one try in 65: the tries so far
    while stream.skip:
        assert stream.parse(good) is None  # skipped unread
    assert stream.parse(good) is not None
    assert stream.backoff == 1
    assert stream.parse(good) is not None


# A body from 256 KiB on is read by the core's own threads, batch by batch (1,024 lines),
# a few batches ahead of the models' building: the answers must come in the file's order,
# whole, wherever the bad lines fall (first line, a batch's edge, the last line).
LARGE_LINES = 3 * 1024 * 8 + 17  # many batches a thread, the last one partial


def large_body(bad_at: tuple[int, ...]) -> tuple[bytes, list[tuple[str, object]]]:
    rows = (PLUGIN + OTHER + GOLDEN) * (LARGE_LINES // len(PLUGIN + OTHER + GOLDEN) + 1)
    rows = [text for text in rows if "\n" not in text and "\r" not in text]
    valid = [text for text in rows if alone(text)[0] != "error"]
    lines = (valid * (LARGE_LINES // len(valid) + 1))[:LARGE_LINES]
    for at in bad_at:
        lines[at] = '{"event":"log","time":1,"step":-1}'
    body = block(lines)
    assert len(body) >= 256 * 1024
    return body, [alone(text.encode()) for text in lines]


@pytest.mark.parametrize(
    "bad_at",
    [(), (0,), (1023,), (1024,), (2047, 2048), (LARGE_LINES - 1,)],
    ids=["valid", "first", "batch-end", "batch-start", "two-batches", "last"],
)
def test_a_large_body_is_answered_in_order_by_the_core_threads(bad_at: tuple[int, ...]) -> None:
    body, singly = large_body(bad_at)
    assert [answer(v) for v in parse_lines(body)] == singly
    values = parse_block(body)
    if bad_at:
        assert values is None
    else:
        assert values is not None
        assert [answer(v) for v in values] == singly
    assert [answer(v) for v in parse_lines(body[:-1])] == singly  # no final newline


def summary_of(values: list[object]) -> tuple[bytes, int | None, int | None, bool]:
    """What `summarize_block` must say of a block whose lines read as `values`."""
    models = {name: index for index, name in enumerate(("Begin", "Log", "Stage", "Eval", "End"))}
    kinds = bytes(models[type(value).__name__] for value in values)
    steps = [value.step for value in values if type(value).__name__ == "Log"]  # type: ignore[attr-defined]
    ordered = all(a <= b for a, b in pairwise(steps))
    return kinds, steps[0] if steps else None, steps[-1] if steps else None, ordered


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PLUGIN + OTHER + GOLDEN), min_size=1, max_size=40))
def test_a_blocks_summary_is_what_its_lines_say(lines: list[str]) -> None:
    lines = [text for text in lines if "\n" not in text]
    if not lines:
        return
    body = block(lines)
    values = parse_block(body)
    summary = summarize_block(body)
    if values is None:
        assert summary is None
    else:
        assert summary == summary_of(values)


@pytest.mark.parametrize("bad_at", [(), (0,), (5000,), (LARGE_LINES - 1,)])
def test_a_large_bodys_summary_is_read_by_the_core_threads(bad_at: tuple[int, ...]) -> None:
    body, _ = large_body(bad_at)
    values = parse_block(body)
    summary = summarize_block(body)
    assert (summary is None) == bool(bad_at) == (values is None)
    if values is not None:
        assert summary == summary_of(values)
    assert summarize_block(body[:-1]) is None  # a last line without its newline
