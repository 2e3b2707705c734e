"""The vouched decode (`vouched`) and whole blocks (`batch`) against `parse_line`.

What they accept must be exactly what `parse_line` gives each line, and every line they
cannot vouch for must be left to it: a block is either every line's own value, or None.
"""

from __future__ import annotations

import math
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from overbrainer_contract import Log, ParseError, batch, parse_line
from overbrainer_contract.batch import BlockReader, BlockStream, parse_block, vouch_block
from overbrainer_contract.vouched import MODEL, QUOTES, VOUCHED, decode

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


def golden_lines() -> list[str]:
    """Every line of the golden suite, good and bad."""
    lines: list[str] = []
    for path in sorted(CASES.glob("*.jsonl")):
        lines += path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    return lines


GOLDEN = golden_lines()


def answer(parse: object, line: str | bytes) -> tuple[str, object]:
    """The whole answer: the value's type and fields (floats by their bits), or the error."""
    try:
        value = parse(line)  # type: ignore[operator]
    except ParseError as error:
        return ("error", (error.category, str(error), error.path, error.column))
    fields = tuple(
        (name, math.copysign(1.0, v) if isinstance(v, float) else None, v)
        for name, v in ((name, getattr(value, name)) for name in value.__struct_fields__)
    )
    return (type(value).__name__, fields)


def vouch(line: str | bytes) -> object:
    """A line as the vouched decode reads it, its class swapped as `parse_block` does;
    ParseError (with nothing in it) when its quotes show a key written twice."""
    value = decode(line)
    quote: str | bytes = b'"' if isinstance(line, bytes) else '"'
    if line.count(quote) != QUOTES[type(value)]:  # type: ignore[arg-type]
        raise ParseError("data", "a key written twice")
    value.__class__ = MODEL[type(value)]
    return value


def test_plugin_lines_are_vouched_and_become_the_generated_models() -> None:
    for text in PLUGIN:
        assert answer(vouch, text) == answer(parse_line, text)
        assert type(vouch(text)) is type(parse_line(text))
    assert type(vouch(PLUGIN[2])) is Log
    assert vouch(PLUGIN[2]) == parse_line(PLUGIN[2])


@pytest.mark.parametrize(
    "text",
    [
        '{"event":"end","time":1,"step":0}',  # a zero: `-0` could hide as one
        '{"event":"end","time":1,"step":-0}',
        '{"event":"end","time":-0,"step":1}',
        '{"event":"end","time":0.0,"step":1}',
        '{"event":"end","time":-1.5,"step":1}',
        '{"event":"end","time":1.7976931348623157e308,"step":1}',
        '{"event":"end","time":1,"step":9223372036854775808}',  # above i64::MAX, a u64
        '{"event":"end","time":1,"step":18446744073709551616}',
        '{"event":"begin","time":1}',  # a key absent
        '{"event":"end","time":1,"step":1,"x":1}',  # an unknown key
    ],
)
def test_what_the_vouched_decode_leaves_to_the_usual_path(text: str) -> None:
    with pytest.raises((msgspec.ValidationError, msgspec.DecodeError)):
        decode(text)


def test_a_key_written_twice_shows_in_the_quotes() -> None:
    text = '{"event":"end","time":1,"step":1,"step":2}'
    assert text.count('"') == QUOTES[type(decode(text))] + 2
    assert answer(parse_line, text)[0] == "error"


def test_every_golden_line_vouched_for_is_parse_lines_value() -> None:
    vouched = 0
    for text in GOLDEN:
        data = text.encode("utf-8", "surrogateescape")
        try:
            vouch(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            continue
        except ParseError:  # a key written twice: the reference rejects it too
            assert answer(parse_line, data)[0] == "error", text
            continue
        vouched += 1
        assert answer(vouch, data) == answer(parse_line, data), text
    assert vouched >= 10  # the suite holds lines of the plugin's form


def test_vouched_types_add_no_slot() -> None:
    for model, vouched in VOUCHED.items():
        assert vouched.__basicsize__ == model.__basicsize__
        assert set(vouched.__struct_fields__) == set(model.__struct_fields__)


def block(lines: list[str], end: str = "\n") -> bytes:
    return "".join(text + end for text in lines).encode("utf-8", "surrogateescape")


def test_a_block_of_the_plugins_form_is_every_lines_value() -> None:
    body = block(PLUGIN * 3)
    values = parse_block(body)
    assert values is not None
    assert [answer(lambda v: v, v) for v in values] == [
        answer(parse_line, text) for text in PLUGIN * 3
    ]
    crlf = parse_block(block(PLUGIN, "\r\n"))
    assert crlf is not None
    assert len(crlf) == len(PLUGIN)


@pytest.mark.parametrize(
    "lines",
    [
        [*PLUGIN[:2], "", *PLUGIN[2:]],  # a blank line
        [*PLUGIN[:2], "   ", *PLUGIN[2:]],  # white space alone
        [PLUGIN[5] + "],[" + PLUGIN[5]],  # two rows from one line
        [PLUGIN[5][:34], PLUGIN[5][34:]],  # one line cut between two members
        [PLUGIN[5] + "," + PLUGIN[5], PLUGIN[5]],
        [PLUGIN[5] + "]", "[" + PLUGIN[5]],
        [PLUGIN[5][:-1] + ',"step":3}'],  # a key written twice
        [PLUGIN[2], "\ufeff" + PLUGIN[2]],  # a byte order mark
        ["[" + PLUGIN[5] + "]"],
    ],
)
def test_a_block_with_any_line_not_vouched_for_is_none(lines: list[str]) -> None:
    assert vouch_block(block(lines)) is None
    assert parse_block(block(lines)) is None


def test_a_block_must_end_with_a_newline() -> None:
    assert vouch_block(block(PLUGIN)[:-1]) is None
    assert vouch_block(b"") is None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PLUGIN + GOLDEN), min_size=1, max_size=12))
def test_a_block_is_its_lines_values_or_none(lines: list[str]) -> None:
    lines = [text for text in lines if "\n" not in text and "\r" not in text]
    if not lines:
        return
    body = block(lines)
    values = parse_block(body)
    singly = [answer(parse_line, text.encode("utf-8", "surrogateescape")) for text in lines]
    if values is None:
        every_vouched = all(
            not isinstance(_try_vouch(text), Exception)
            and text.count('"') == QUOTES[type(_try_vouch(text))]
            for text in lines
        )
        assert not every_vouched, lines
        return
    assert len(values) == len(lines)
    assert [answer(lambda v: v, v) for v in values] == singly


def _try_vouch(text: str) -> object:
    try:
        return decode(text.encode("utf-8", "surrogateescape"))
    except Exception as error:
        return error


OTHER = [  # another writer: keys absent, another order, white space, an extra number
    '{"time": 1764467476.25, "event": "log", "step": 3, "loss": 0.5, "tokens_per_second": 4.5}',
    '{"event":"log","time":1,"step":12,"epoch":1,"max_steps":20,"grad_norm":2e-05}',
    '\t{ "step" : 3 , "event" : "eval" , "time" : 1.5 }\r',
    '{"event":"begin","time":1.5}',
    '{"time": 2, "event": "end", "step": 7, "ok": true, "gpu": null, "n": -0, "total": 3}',
    '{"event":"stage","time":1,"name":"train"}',
]


def test_another_writers_block_is_vouched_with_its_unknown_keys_learned() -> None:
    reader = BlockReader()
    body = block(OTHER * 2)
    values = reader.parse(body)
    assert values is not None
    assert [answer(lambda v: v, v) for v in values] == [
        answer(parse_line, text) for text in OTHER * 2
    ]
    assert set(reader.lenient.extras) == {"tokens_per_second", "ok", "gpu", "n", "total"}
    found = reader.vouch(body)
    assert found is not None
    assert [reader.models[type(v)] for v in found] == [type(v) for v in values]


@pytest.mark.parametrize(
    "line",
    [
        '{"event":"end","time":2,"step":7,"host":"node-1"}',  # a string: quotes of its own
        '{"event":"end","time":2,"step":7,"sizes":[1,2]}',
        '{"event":"end","time":2,"step":7,"cfg":{"a":1}}',
        '{"event":"end","time":2,"step":7,"n":1e400}',
        '{"event":"end","time":2,"step":7,"n":18446744073709551615}',  # past i64
        '{"event":"end","time":2,"step":7,"n":1,"n":2}',  # an unknown key twice
        '{"event":"begin","time":2,"time":3}',  # a known key twice, another absent
        '{"event":"log","time":2,"step":7,"learning_rate":0.0}',  # a zero
    ],
)
def test_a_lenient_block_with_a_line_it_cannot_vouch_for_is_none(line: str) -> None:
    reader = BlockReader()
    assert reader.parse(block([OTHER[0], line])) is None


def test_unknown_keys_learned_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "MAX_EXTRAS", 3)
    reader = BlockReader()
    keys = ",".join(f'"k{index}":1' for index in range(4))
    assert reader.parse(block(['{"event":"end","time":2,"step":7,' + keys + "}"])) is None
    assert reader.lenient is not None
    assert len(reader.lenient.extras) == 3


def test_the_plugins_form_is_tried_first_again_after_a_lenient_run() -> None:
    reader = BlockReader()
    assert reader.vouch(block(OTHER)) is not None
    assert reader.lenient_first == batch.LENIENT_RUN
    for _ in range(batch.LENIENT_RUN):
        found = reader.vouch(block(PLUGIN))
        assert found is not None
    assert reader.lenient_first == 0
    found = reader.vouch(block(PLUGIN))
    assert found is not None
    assert all(type(value) in MODEL for value in found)  # the plugin's form's own types


def test_a_stream_backs_off_after_a_bad_block_and_ends_it_at_a_good_one() -> None:
    stream = BlockStream()
    good, bad = block(PLUGIN), block([*PLUGIN, "not json"])
    tried = [stream.parse(bad) is None for _ in range(200)]
    assert all(tried)
    assert stream.backoff == batch.MAX_BACKOFF
    # 1 + 2 + 4 + ... + 64 skipped, then one try in 65: the tries so far
    while stream.skip:
        assert stream.parse(good) is None  # skipped unread
    assert stream.parse(good) is not None
    assert stream.backoff == 1
    assert stream.vouch(good) is not None
