"""Differential fuzzing: `parse_line` against the reference itself, line for line.

Every line hypothesis makes goes to `parse_line` and, over a pipe, to the reference
runner (`metrics.rs` built by cargo); the two answers must agree: the verdict, the
error category, the canonical dump, the mark, the pace of a fresh `Pace` fed the line.
The lines aim where a reader can go wrong: every variant with optional keys absent,
null or present, zeros and `-0`, integers where floats go, huge integers, the spellings
at the edges of f64 and long mantissas, extra keys holding every kind of value, keys
in any order, white space between tokens, duplicates, and all of that cut or mutated.

One difference is allowed, and only that one: a float value may be up to two floats
away from the reference's, where the reference's best-effort reading of a literal is
not correctly rounded and `parse_line`'s is (README, "Floats"); verdicts and
categories never differ.

`nox -s fuzz` runs this with a fixed seed and a bounded number of examples
(`FUZZ_EXAMPLES`, per test).
"""

from __future__ import annotations

import json
import math
import os
import struct
import sys
from decimal import Decimal
from typing import Any

from golden_values import mark_json
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from overbrainer_contract import Log, MetricLine, Pace, ParseError, dump_line, parse_line
from overbrainer_contract._serde import FIELDS as KINDS
from overbrainer_contract._serde import OPT_U64, STAGE, STAGES, U64, U64_MAX, VARIANTS
from overbrainer_contract.batch import parse_block
from reference_runner import Answerer
from repeated_keys import repeated_key_lines

settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "2000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None,
)
settings.load_profile("fuzz")

# -- comparing the two answers ---------------------------------------------------------


def ours(line: bytes) -> dict[str, Any]:
    """`parse_line`'s answer in the runner's form."""
    try:
        parsed = parse_line(line)
    except ParseError as error:
        return {"ok": False, "category": error.category}
    return accepted(parsed)


def accepted(parsed: MetricLine) -> dict[str, Any]:
    """An accepted line's answer in the runner's form."""
    pace = Pace()
    if isinstance(parsed, Log):
        pace.add(parsed)
    duration = pace.eta_duration()
    eta = None if duration is None else {"secs": duration[0], "nanos": duration[1]}
    return {
        "ok": True,
        "dump": dump_line(parsed),
        "mark": mark_json(parsed),
        "pace": {"step": pace.step, "max_steps": pace.max_steps, "eta": eta},
    }


ULPS = 2  # serde_json's best-effort reading: two roundings, a power of ten rounded


def _ordinal(x: float) -> int:
    """The float's place among all floats of its sign (adjacent floats differ by 1)."""
    return int(struct.unpack("<q", struct.pack("<d", abs(x)))[0])


def _within_ulps(a: Any, b: Any) -> bool:
    """Equal JSON values, but for floats of the same sign at most `ULPS` floats apart."""
    if isinstance(a, float) and isinstance(b, float):
        if math.copysign(1, a) != math.copysign(1, b):
            return False
        return abs(_ordinal(a) - _ordinal(b)) <= ULPS
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_within_ulps(a[k], b[k]) for k in a)
    return bool(a == b) and type(a) is type(b)


def disagreement(
    line: bytes, reference: Answerer, mine: dict[str, Any] | None = None
) -> str | None:
    """How `parse_line` (or the answer `mine`) and the reference differ on `line`; None
    when they agree."""
    mine, theirs = ours(line) if mine is None else mine, reference(line)
    if mine["ok"] != theirs["ok"]:
        return f"verdict: parse_line {mine}, reference {theirs}"
    if not mine["ok"]:
        if mine["category"] != theirs["category"]:
            return f"category: parse_line {mine['category']}, reference {theirs}"
        return None
    if mine["mark"] != theirs["mark"]:
        return f"mark: parse_line {mine['mark']}, reference {theirs['mark']}"
    if mine["dump"] == theirs["dump"]:
        if mine["pace"] != theirs["pace"]:
            return f"pace: parse_line {mine['pace']}, reference {theirs['pace']}"
        return None
    if not _within_ulps(json.loads(mine["dump"]), json.loads(theirs["dump"])):
        return f"value: parse_line {mine['dump']}, reference {theirs['dump']}"
    pace, other = mine["pace"], theirs["pace"]  # the eta follows the times, ulps apart
    if (pace["step"], pace["max_steps"]) != (other["step"], other["max_steps"]) or (
        (pace["eta"] is None) != (other["eta"] is None)
    ):
        return f"pace: parse_line {pace}, reference {other}"
    return None


# -- the lines --------------------------------------------------------------------------

MAX = Decimal(sys.float_info.max)
TINY = Decimal(math.ulp(0.0))


def _spellings(value: Decimal) -> list[str]:
    """`value` written with 15 to 26 significant digits, rounded and truncated."""
    out = []
    for digits in range(15, 27):
        for rounding in ("ROUND_HALF_EVEN", "ROUND_DOWN", "ROUND_UP"):
            text = f"{value:.{digits - 1}e}" if rounding == "ROUND_HALF_EVEN" else None
            if text is None:
                quantum = Decimal(1).scaleb(value.adjusted() - digits + 1)
                text = f"{value.quantize(quantum, rounding=rounding):e}"
            out.append(text.replace("E", "e"))
    return out


F64_EDGES = sorted(
    {
        *_spellings(MAX),
        *_spellings(TINY),
        *_spellings(Decimal(sys.float_info.min)),
        "1.7976931348623158e+308",
        "1.79769313486231581e+308",
        "-1.7976931348623158e308",
        "17976931348623157" + "0" * 292,
        "17976931348623158" + "0" * 292 + ".5",
        str(int(MAX)) + ".999999999",
        "0." + "0" * 400 + "1e400",
        "1e-400",
        "1e400",
        "-1e400",
        "0e999999999999",
        "1e-2147483648",
        "1e2147483647",
        "1e2147483648",
        "123456789012345678901234567890",
        "9007199254740993",
        "9007199254740993.0",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "0.1",
        "2e-05",
    }
)
ZEROS = ["0", "-0", "0.0", "-0.0", "0e0", "-0e-0", "0E+5", "0.000"]
INTEGERS = [
    str(U64_MAX),
    str(U64_MAX + 1),
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "-1",
    "1",
    "3.0",
    "1e2",
    "1E2",
    "10000000000000000000000",
]

floats = st.one_of(
    st.sampled_from(F64_EDGES + ZEROS + INTEGERS),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17e}"),
    st.floats(min_value=1e9, max_value=2e9).map(repr),  # times as the plugin writes them
    st.integers(0, 2**70).map(str),
    st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
)
integers = st.one_of(
    st.integers(0, U64_MAX).map(str),
    st.integers(0, 1000).map(str),
    st.sampled_from(ZEROS + INTEGERS),
)
text = st.text(st.characters(exclude_categories=["Cs"]), max_size=8)
strings = st.one_of(
    text.map(json.dumps),
    text.map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.sampled_from(
        [
            '"\\ud800"',
            '"\\udc00x"',
            '"\\ud83d\\ude00"',
            '"\\x"',
            '"a\\u0000b"',
            '"\\/"',
            '"\x01"',
            '"é"',
            '""',
        ]
    ),
)
scalars = st.one_of(floats, strings, st.sampled_from(["null", "true", "false"]))
any_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]"),
        st.lists(st.tuples(strings, inner), max_size=3).map(
            lambda kv: "{" + ",".join(f"{k}:{v}" for k, v in kv) + "}"
        ),
    ),
    max_leaves=8,
)
deep = st.integers(120, 135).map(lambda n: "[" * n + "]" * n)
extra_values = st.one_of(any_values, deep, st.sampled_from(["1e400", "[1e400]", '{"a":-0}']))
extra_keys = st.one_of(
    st.sampled_from(["tokens_per_second", "extra", "Step", "EVENT", "learning rate", ""]),
    text,
).map(json.dumps)
spaces = st.sampled_from(["", "", "", " ", "  ", "\t", "\n", "\r\n", " \t"])


@st.composite
def writer_lines(draw: st.DrawFn) -> str:
    """A line another writer might write: any variant, optional keys absent, null or
    present, values in any spelling, extra keys, any order, white space, duplicates."""
    tag = draw(st.sampled_from(list(VARIANTS)))
    entries: list[tuple[str, str]] = [('"event"', json.dumps(tag))]
    for name, kind in KINDS[VARIANTS[tag]]:
        optional = kind.startswith("Option<")
        if optional and draw(st.integers(0, 3)) == 0:
            continue  # absent
        if kind in (U64, OPT_U64):
            value = draw(integers)
        elif kind == STAGE:
            value = json.dumps(draw(st.sampled_from(list(STAGES))))
        else:
            value = draw(floats)
        if optional and draw(st.integers(0, 4)) == 0:
            value = "null"
        entries.append((json.dumps(name), value))
    for _ in range(draw(st.integers(0, 3))):
        entries.append((draw(extra_keys), draw(extra_values)))
    if draw(st.integers(0, 5)) == 0:  # a duplicate, known or the tag
        key, value = draw(st.sampled_from(entries))
        entries.append((key, draw(st.sampled_from([value, "1", "null"]))))
    entries = draw(st.permutations(entries))
    ws = draw(spaces)
    body = ",".join(f"{ws}{key}{ws}:{ws}{value}" for key, value in entries)
    return draw(spaces) + "{" + body + ws + "}" + draw(spaces)


plain_floats = st.floats(min_value=1e-300, max_value=1e300).map(repr)
plain_counts = st.integers(1, 2**64 - 1).map(str)


@st.composite
def plugin_lines(draw: st.DrawFn) -> str:
    """A line in the plugin's form (every key, compact, in order), its values drawn as
    above, now and then a key written twice: what `batch` vouches for, and its edges."""
    tag = draw(st.sampled_from(list(VARIANTS)))
    entries = [f'"event":{json.dumps(tag)}']
    for name, kind in KINDS[VARIANTS[tag]]:
        if kind == STAGE:
            value = json.dumps(draw(st.sampled_from(list(STAGES))))
        else:
            count = kind in (U64, OPT_U64)
            ordinary = plain_counts if count else plain_floats
            value = draw(st.one_of(ordinary, ordinary, integers if count else floats))
            if kind.startswith("Option<") and draw(st.integers(0, 4)) == 0:
                value = "null"
        entries.append(f"{json.dumps(name)}:{value}")
    if draw(st.integers(0, 19)) == 0:
        entries.append(draw(st.sampled_from(entries)))
    return "{" + ",".join(entries) + "}"


def mutate(line: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(1, 3))):
        action = data.draw(st.sampled_from(["delete", "insert", "truncate", "duplicate"]))
        at = data.draw(st.integers(0, len(line)))
        if action == "delete" and line:
            line = line[: max(at - 1, 0)] + line[at:]
        elif action == "insert":
            piece = data.draw(st.sampled_from([*'{}[]",:-.0123456789eE \\', "null", "NaN"]))
            line = line[:at] + piece + line[at:]
        elif action == "truncate":
            line = line[:at]
        else:
            end = data.draw(st.integers(at, len(line)))
            line = line[:end] + line[at:end] + line[end:]
    return line


# -- the properties -----------------------------------------------------------------------


def check(line: str, reference: Answerer) -> None:
    problem = disagreement(line.encode("utf-8"), reference)
    assert problem is None, f"{line!r}: {problem}"


@given(writer_lines())
@example('{"event":"end","time":1.7976931348623158e+308,"step":1}')
@example('{"event":"end","time":1.79769313486231581e+308,"step":1}')
@example('{"event":"log","time":1,"step":0,"learning_rate":0.0,"tokens_per_second":-0}')
@example('{"event":"log","time":1,"step":1,"x":1e400}')
@example(
    '{"event":"end","time":1,"step":1,"p":"'
    + "x" * 300
    + '","x":{"a":-1.7976931348623158e308,"a":1}}'
)
def test_writer_lines_agree_with_the_reference(reference: Answerer, line: str) -> None:
    check(line, reference)


@given(writer_lines(), st.data())
def test_cut_and_mutated_lines_agree_with_the_reference(
    reference: Answerer, line: str, data: st.DataObject
) -> None:
    check(mutate(line, data), reference)


@given(st.sampled_from(F64_EDGES + ZEROS + INTEGERS), st.sampled_from(list(VARIANTS)))
def test_every_edge_spelling_in_every_float_field(
    reference: Answerer, literal: str, tag: str
) -> None:
    fields = KINDS[VARIANTS[tag]]
    for name, kind in fields:
        entries = {n: ("1" if k != STAGE else '"train"') for n, k in fields}
        entries[name] = literal if kind != STAGE else entries[name]
        body = ",".join(f'"{n}":{v}' for n, v in entries.items())
        check(f'{{"event":"{tag}",{body}}}', reference)


@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=60))
def test_any_text_agrees_with_the_reference(reference: Answerer, line: str) -> None:
    check(line, reference)


@given(repeated_key_lines())
def test_repeated_unknown_keys_and_their_breaks_agree_with_the_reference(
    reference: Answerer, lines: list[str]
) -> None:
    """A writer repeating its unknown keys, learned by `parse_line` and read with one
    decode (`keysets`), then lines breaking the pattern: a key written twice, a value out
    of range or of another kind, another order, a key more or less."""
    parse_line.__globals__["KEYSETS"].forget()
    for line in lines:
        check(line, reference)


@given(st.lists(st.one_of(plugin_lines(), plugin_lines(), writer_lines()), min_size=1, max_size=6))
@example(['{"event":"end","time":1,"step":1}', '{"event":"end","time":1,"step":-0}'])
@example(['{"event":"end","time":1,"step":1,"step":1}'])
def test_a_block_vouched_for_is_what_the_reference_reads(
    reference: Answerer, lines: list[str]
) -> None:
    """`parse_block` answers a block only when the reference accepts every line of it, and
    then with the reference's values."""
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    values = parse_block("".join(line + "\n" for line in lines).encode("utf-8"))
    if values is None:
        return
    assert len(values) == len(lines)
    for line, value in zip(lines, values, strict=True):
        problem = disagreement(line.encode("utf-8"), reference, accepted(value))
        assert problem is None, f"{line!r} in a block: {problem}"


def test_the_comparison_sees_a_difference(reference: Answerer) -> None:
    """The check can fail: a reference answer that differs is caught (a wrong step)."""
    line = b'{"event":"end","time":1.5,"step":7}'
    assert disagreement(line, reference) is None
    theirs = reference(line)
    wrong = dict(theirs, dump=theirs["dump"].replace('"step":7', '"step":8'))
    assert not _within_ulps(json.loads(wrong["dump"]), json.loads(theirs["dump"]))
