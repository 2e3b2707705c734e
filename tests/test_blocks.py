"""`parse_lines`, a block of lines in one call, against `parse_line` on each line.

`parse_lines` answers every line, as its model or its `ParseError`, made and not raised.
A block's line is what comes before its newline, as the golden suite splits a file.
(Whole files are read by the core's scans: `tests/table/test_golden_rows.py` and the
differential fuzz hold them to `parse_line` and to the reference.)
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from overbrainer_contract import ParseError, parse_line, parse_lines

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
    values = parse_lines(block(lines))
    assert [answer(v) for v in values] == [alone(text) for text in lines]
    assert not any(isinstance(v, ParseError) for v in values)
    crlf = parse_lines(block(lines, "\r\n"))
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
def test_a_block_with_invalid_lines_answers_each_as_alone(lines: list[str]) -> None:
    answers = [answer(v) for v in parse_lines(block(lines))]
    assert answers == [alone(text) for text in lines]
    assert any(kind == "error" for kind, _ in answers)


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
def test_a_block_is_its_lines_answers(lines: list[str]) -> None:
    lines = [text for text in lines if "\n" not in text]
    if not lines:
        return
    body = block(lines)
    singly = [alone(text.encode("utf-8", "surrogateescape")) for text in lines]
    assert [answer(v) for v in parse_lines(body)] == singly
    if lines[-1]:  # without its newline, an empty last line is no line
        assert [answer(v) for v in parse_lines(body[:-1])] == singly


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
    assert [answer(v) for v in parse_lines(body[:-1])] == singly  # no final newline
