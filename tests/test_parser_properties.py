"""Properties of parse_line for any input, checked with hypothesis:

- nothing but ParseError ever escapes it, on arbitrary bytes, text and mutated lines;
- a line gives one answer however it is given: str, bytes, bytearray, memoryview, with
  its newline or not, alone or in a block (`parse_lines`), in a file read by the core's
  scans (`StateScan`, `TableScan`), after any other lines;
- an accepted line, dumped and parsed again, gives the same line.

(That the answers are the reference's own is `nox -s fuzz`'s: the reference itself.)
"""

from __future__ import annotations

import json
import math
import os
import struct
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from line_kinds import FIELDS as KINDS
from line_kinds import OPT_U64, STAGE, U64, U64_MAX, VARIANTS
from line_kinds import STAGES as SERDE_STAGES
from overbrainer_contract import ParseError, dump_line, parse_line, parse_lines
from overbrainer_contract.reader import LEFT_OUT, StateScan, TableScan
from repeated_keys import repeated_key_lines

# The variants, their fields and kinds, as the generated models give them (one source).
TAGS = list(VARIANTS)
FIELDS = list(dict.fromkeys(name for fields in KINDS.values() for name, _ in fields))
STAGES = list(SERDE_STAGES)

settings.register_profile(
    "ci",
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "400")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")


def verdict(parse: Any, line: str | bytes) -> tuple[str, str]:
    """('ok', canonical dump) or ('error', category): the verdict, for a str and its bytes."""
    try:
        return ("ok", dump_line(parse(line)))
    except ParseError as error:
        return ("error", error.category)


def answer(value: object) -> tuple[str, object]:
    """The whole answer of a line (its value, or its error and all it says): what
    `parse_line` raises or returns, or an item of `parse_lines`."""
    if isinstance(value, ParseError):
        return ("error", (value.category, value.message, value.path, value.column, str(value)))
    return ("ok", (type(value).__name__, dump_line(value)))  # type: ignore[arg-type]


def parsed(line: str | bytes | bytearray | memoryview) -> tuple[str, object]:
    try:
        return answer(parse_line(line))
    except ParseError as error:
        return answer(error)


def scanned(data: bytes) -> tuple[str, object]:
    """The answer `StateScan` gives the one line `data` of a file (the line as the file
    holds it: its newline, if any, part of it)."""
    scan = StateScan()
    items = scan.feed(data) + scan.finish()
    assert scan.lines == 1
    ((what, *rest),) = items
    if what == "logs":
        ((value,),) = rest
        return answer(value)
    assert what in ("line", "rejected"), items
    assert rest[0] == 1
    if what == "rejected":
        assert rest[2] is data.endswith(b"\n")
    return answer(rest[1])


def tabled(data: bytes) -> str | None:
    """The verdict `TableScan` gives the one line `data` of a file: None for a row, else
    the category it is left out under (a line cut, without its newline: `cut`)."""
    scan = TableScan(1)
    batches = scan.feed(data) + scan.finish()
    assert scan.lines == 1
    if batches:
        assert [batch[0] for batch in batches] == [1]
        assert sum(scan.left_out) == 0
        assert not scan.cut
        return None
    if scan.cut:
        assert sum(scan.left_out) == 0
        return "cut"
    assert sum(scan.left_out) == 1
    assert scan.first_left_out == 1
    return LEFT_OUT[[count > 0 for count in scan.left_out].index(True)]


def one_answer(data: bytes) -> tuple[str, object]:
    """The answer of the line `data` (no newline in it), checked to be the same given
    every other way: bytearray, memoryview, with a newline, in a block of lines, as the one
    line of a file read by the core's scans."""
    alone = parsed(data)
    assert parsed(bytearray(data)) == alone
    assert parsed(memoryview(data)) == alone
    with_newline = parsed(data + b"\n")  # white space to `parse_line`: the same verdict
    assert with_newline[0] == alone[0]
    if alone[0] == "ok":
        assert with_newline == alone
    if data and b"\n" not in data:  # one line: as a block's (empty, it is no line there)
        # a block's line is what comes before its newline: the line's own answer
        assert [answer(value) for value in parse_lines(data)] == [alone]
        assert [answer(value) for value in parse_lines(data + b"\n")] == [alone]
        # a file's line: the bytes before its newline, as a block's (`StateScan`); its row
        # or its category likewise (`TableScan`)
        assert scanned(data + b"\n") == alone
        assert scanned(data) == alone
        category = None if alone[0] == "ok" else alone[1][0]  # type: ignore[index]
        assert tabled(data + b"\n") == category
        # without its newline: cut short when the reference finds it cut (`eof`), else left
        # out by its category, as `check` says it (the core's last-line rule)
        assert tabled(data) == ("cut" if category == "eof" else category)
    return alone


# -- JSON-ish text that reaches every corner of the grammar --------------------------

numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(
        [
            str(U64_MAX),
            str(U64_MAX + 1),
            "-0",
            "0",
            "-0.0",
            "1E2",
            "1e+2",
            "1e-2",
            "3.0",
            "1e400",
            "-1e400",
            "1e-400",
            "01",
            "1.",
            ".5",
            "+1",
            "-",
            "1e",
            "NaN",
            "Infinity",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "2e-05",
            "0.1",
        ]
    ),
    # any JSON number, long mantissas and exponents near the ends of f64 included
    st.from_regex(r"-?(0|[1-9][0-9]{0,39})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17e}"),
)
strings = st.one_of(
    st.sampled_from(TAGS + STAGES + ["Log", "deploy", ""]).map(json.dumps),
    st.text(max_size=6).map(json.dumps),
    st.sampled_from(['"\\ud800"', '"\\u0074rain"', '"l\\u006fg"', '"\\x"', '"\x01"', '"abc']),
)
scalars = st.one_of(numbers, strings, st.sampled_from(["null", "true", "false", "nul", "tru"]))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]"),
        st.lists(st.tuples(st.sampled_from([*STAGES, "x"]).map(json.dumps), inner), max_size=2).map(
            lambda kv: "{" + ",".join(f"{k}:{v}" for k, v in kv) + "}"
        ),
    ),
    max_leaves=6,
)
keys = st.one_of(
    st.sampled_from([*FIELDS, "event", "extra"]).map(json.dumps),
    st.sampled_from(['"ev\\u0065nt"', '"ti\\u006de"', '"EVENT"', '"st\\u0065p"']),
)
space = st.sampled_from(["", "", "", " ", "\t", "\n", "\r", "\x0c", "\u00a0"])


@st.composite
def objects(draw: st.DrawFn) -> str:
    entries = draw(st.lists(st.tuples(keys, values), max_size=7))
    if draw(st.booleans()):
        tag = json.dumps(draw(st.sampled_from(TAGS)))
        entries.insert(draw(st.integers(0, len(entries))), ('"event"', tag))
    ws = draw(space)
    body = ",".join(f"{ws}{k}{ws}:{ws}{v}" for k, v in entries)
    return draw(space) + "{" + body + ws + "}" + draw(space)


@st.composite
def arrays(draw: st.DrawFn) -> str:
    items = [json.dumps(draw(st.sampled_from(TAGS))), *draw(st.lists(values, max_size=9))]
    return "[" + ",".join(items) + "]"


@st.composite
def written_lines(draw: st.DrawFn) -> str:
    """Lines as writers write them: a variant, its fields, canonical or not."""
    tag = draw(st.sampled_from(TAGS))
    line: dict[str, Any] = {"event": tag}
    for name, kind in KINDS[VARIANTS[tag]]:
        required = not kind.startswith("Option<")
        if kind in (U64, OPT_U64):
            value: Any = st.integers(0, U64_MAX)
        elif kind == STAGE:
            value = st.sampled_from(STAGES)
        else:
            value = st.floats(allow_nan=False, allow_infinity=False)
        line[name] = draw(value if required else st.one_of(st.none(), value))
    return json.dumps(line, separators=(",", ":"))


def mutate(text: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(1, 3))):
        action = data.draw(st.sampled_from(["delete", "insert", "truncate", "duplicate"]))
        at = data.draw(st.integers(0, len(text)))
        if action == "delete" and text:
            text = text[: max(at - 1, 0)] + text[at:]
        elif action == "insert":
            text = (
                text[:at]
                + data.draw(st.sampled_from(list('{}[]",:-.0123456789eE nulltrue\\')))
                + text[at:]
            )
        elif action == "truncate":
            text = text[:at]
        else:
            end = data.draw(st.integers(at, len(text)))
            text = text[:end] + text[at:end] + text[end:]
    return text


# -- the properties -------------------------------------------------------------------


@given(st.binary(max_size=200))
@example(b"\xff")
@example(b'{"event":"log","time":1,"step":1,"x":"\xff"}')
@example(b"\xef\xbb\xbf{}")
def test_arbitrary_bytes_only_ever_raise_parse_error(data: bytes) -> None:
    one_answer(data)


@given(st.text(max_size=200))
@example("\ud800")
@example('{"event":"end","time":1,"step":2,"x":"\ud800"}')
def test_arbitrary_text_only_ever_raises_parse_error(text: str) -> None:
    got = verdict(parse_line, text)
    try:
        data = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: not UTF-8, refused as bytes would be
        assert got == ("error", "syntax")
        return
    assert got == verdict(parse_line, data)
    one_answer(data)


@given(st.one_of(objects(), arrays()))
def test_a_line_gives_one_answer_however_it_is_given(line: str) -> None:
    assert verdict(parse_line, line) == verdict(parse_line, line.encode())
    one_answer(line.encode())


@given(written_lines(), st.data())
def test_mutated_lines_only_ever_raise_parse_error(line: str, data: st.DataObject) -> None:
    mutated = mutate(line, data)
    assert verdict(parse_line, mutated) == verdict(parse_line, mutated.encode())
    one_answer(mutated.encode())


def floats_apart(a: float, b: float) -> int:
    """How many floats lie from `a` to `b` (finite, of one sign or zero)."""

    def ordered(x: float) -> int:
        bits: int = struct.unpack("<q", struct.pack("<d", x))[0]
        return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF)

    return abs(ordered(a) - ordered(b))


def read_exactly(literal: str) -> bool:
    """Whether serde_json's best-effort reading (the reference's) of the JSON number
    `literal` is correctly rounded: its significand (trailing zeros counted) at most 15
    digits, and the power of ten that scales it within 10^22 (docs/fidelity.md, "Floats, to
    the bit")."""
    mantissa, _, exponent = literal.lower().partition("e")
    whole, _, fraction = mantissa.lstrip("-").partition(".")
    digits = (whole + fraction).lstrip("0")
    power = int(exponent or "0") - len(fraction)
    return len(digits) <= 15 and abs(power) <= 22


def assert_read_as_written(got: float, literal: str, name: str) -> None:
    """`got`, the line's value, is the literal's correctly rounded value where the
    reference's reading is, else one or two floats from it."""
    exact = float(literal)
    assert type(got) is float, name
    if read_exactly(literal):
        assert got == exact, (name, literal)
        assert math.copysign(1, got) == math.copysign(1, exact), (name, literal)
    else:
        assert floats_apart(got, exact) <= 2, (name, literal, got)


def float_literals(line: str) -> dict[str, Any]:
    """The line's top-level members, its floats as their literals (`str`)."""
    members: dict[str, Any] = json.loads(line, parse_float=lambda text: ("float", text))
    return members


@given(st.one_of(written_lines(), objects(), arrays()))
def test_accepted_lines_round_trip_through_dump(line: str) -> None:
    """A line dumped reads back as the same line: its floats each within what the
    reference's reading allows (the dump is the value's shortest text; read again, a
    literal of 16 or 17 digits may land a float or two away, as in the reference)."""
    try:
        parsed = parse_line(line)
    except ParseError:
        return
    dumped = dump_line(parsed)
    again = parse_line(dumped)
    assert type(again) is type(parsed)
    literals = float_literals(dumped)
    for name in parsed.__struct_fields__:
        value, read = getattr(parsed, name), getattr(again, name)
        if isinstance(value, float):
            kind, literal = literals[name]
            assert kind == "float"
            assert float(literal) == value  # the shortest text of the value
            assert_read_as_written(read, literal, name)
        else:
            assert read == value, name
    if again == parsed:
        assert dump_line(again) == dumped


@given(written_lines())
def test_lines_as_the_plugin_writes_them_are_accepted_with_their_values(line: str) -> None:
    written = float_literals(line)
    parsed = parse_line(line)
    for name, value in written.items():
        if name == "event":
            continue
        got = getattr(parsed, name)
        got = got.value if name == "name" else got
        if isinstance(value, tuple):
            assert_read_as_written(got, value[1], name)
        else:
            assert got == value, name
            assert type(got) is type(value), name


def test_the_readings_that_are_not_correctly_rounded() -> None:
    """The reference's own values, where its reading is not correctly rounded
    (docs/fidelity.md, "Floats, to the bit"): a float or two away from Python's."""
    line = '{"event":"begin","time":3.4028234659999994e+38}'
    got = parse_line(line).time
    assert not read_exactly("3.4028234659999994e+38")
    assert got == 3.402823465999999e38 != float("3.4028234659999994e+38")
    assert floats_apart(got, float("3.4028234659999994e+38")) == 1
    assert parse_line('{"event":"begin","time":1.5e22}').time == 1.5e22
    assert read_exactly("123456789012345")
    assert read_exactly("1.5e22")
    assert not read_exactly("1234567890123450")
    assert not read_exactly("1e23")


@given(repeated_key_lines())
def test_repeated_unknown_keys_and_their_breaks_answer_as_alone(lines: list[str]) -> None:
    """A writer's repeated unknown keys, then the lines that break the pattern (a
    duplicate, a value out of range or of another kind, another order, a key more or
    less): each line answers as it does alone, in the file's order or the other way, one
    at a time or in one block."""
    alone = [one_answer(line.encode()) for line in lines]
    assert [parsed(line) for line in lines] == alone
    assert [parsed(line) for line in reversed(lines)] == alone[::-1]
    body = "".join(line + "\n" for line in lines).encode()
    assert [answer(value) for value in parse_lines(body)] == alone
