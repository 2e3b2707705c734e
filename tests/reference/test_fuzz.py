"""Differential fuzzing: `parse_line` (the reader core) against the reference itself, line
for line.

Every line hypothesis makes goes to `parse_line` and, over a pipe, to the reference
runner (`metrics.rs` built by cargo); the two answers must be the same, exactly: the
verdict; for a refused line the error's category and message, its position included
(`ParseError.column` written back as serde_json's " at line L column C"); for an
accepted line the canonical dump, every field's value (floats to the bit, against the
reference's dump read back: ryu's shortest form reads back to the same float), the mark,
and the pace of a fresh `Pace` fed the line. No difference is allowed. Whole files go the
same way: the lines joined into one file, fed in chunks cut anywhere to the core's scans,
`TableScan`'s rows are the reference's values of the lines it accepts and its left-out
lines the ones it rejects, by category; `CheckScan`'s rejected lines are the ones it
rejects, with its category and message, position included.

The lines aim where a reader can go wrong: every variant with optional keys absent, null
or present, zeros and `-0`, integers where floats go, huge integers, the spellings at the
edges of f64 and long mantissas, extra keys holding every kind of value, keys in any
order, white space between tokens, duplicates, the array form, and all of that cut or
mutated; then any text and any bytes. The variants and their fields come from the
contract's schemas (`contract_fields`).

The npm package (js/: the same core as WebAssembly, under Node) joins over a pipe of its
own (`js/test/answerer.mjs`): any line, and whole files through its `Reader`, answered as the
reference answers them, and its `ParseError` Python's (category, message, column, path).

`nox -s fuzz` runs this with a fixed seed and a bounded number of examples
(`FUZZ_EXAMPLES` per test, default 4000).
"""

from __future__ import annotations

import json
import math
import os
import struct
import sys
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from itertools import pairwise
from typing import Any

import msgspec
import overbrainer_contract._models.metrics_line_schema as models
import pytest
from contract_fields import EXTRAS, OPT_U64, STAGE, STAGES, U64, U64_MAX, VARIANTS
from golden_values import mark_json
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from js_answerer import JsAnswerer
from js_answerer import build as build_js
from overbrainer_contract import (
    Log,
    MetricLine,
    Pace,
    ParseError,
    dump_line,
    parse_line,
)
from overbrainer_contract._models.check_report_schema import Category, Severity
from overbrainer_contract.check.checker import Finding
from overbrainer_contract.files.signatures import BOM_NOTE
from overbrainer_contract.reader import FIELD_NAMES, LEFT_OUT, TAGS, CheckScan, TableScan
from reference_runner import Answerer
from repeated_keys import repeated_key_lines

settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "4000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None,
)
settings.load_profile("fuzz")

# -- comparing the two answers ---------------------------------------------------------

UTF8 = "invalid UTF-8"  # the core's message for bytes that are not UTF-8
SURROGATE = "not UTF-8: a lone surrogate code point"  # for a str holding one


def position(line: bytes, column: int | None) -> str:
    """serde_json's " at line L column C" for the core's `column` (bytes from the start of
    the input to the error), or nothing where the reference gives no position."""
    if column is None:
        return ""
    before = line[:column]
    number, start = before.count(b"\n") + 1, before.rfind(b"\n") + 1
    return f" at line {number} column {column - start}"


def ours(line: str | bytes) -> dict[str, Any]:
    """`parse_line`'s answer in the runner's form (`message` with serde_json's position),
    or what else it raised."""
    data = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
    try:
        parsed = parse_line(line)
    except ParseError as error:
        return {
            "ok": False,
            "category": error.category,
            "bare": error.message,
            "message": error.message + position(data, error.column),
        }
    except Exception as error:  # anything but ParseError is a failure
        return {"ok": None, "raised": repr(error)}
    return accepted(parsed)


def accepted(parsed: MetricLine) -> dict[str, Any]:
    """An accepted line's answer in the runner's form, the parsed line kept."""
    pace = Pace()
    if isinstance(parsed, Log):
        pace.add(parsed)
    duration = pace.eta_duration()
    eta = None if duration is None else {"secs": duration[0], "nanos": duration[1]}
    return {
        "ok": True,
        "line": parsed,
        "dump": dump_line(parsed),
        "mark": mark_json(parsed),
        "pace": {"step": pace.step, "max_steps": pace.max_steps, "eta": eta},
    }


def bits(value: float) -> bytes:
    return struct.pack("<d", value)


def value_problem(parsed: MetricLine, dump: str) -> str | None:
    """How a parsed line's fields differ from the reference's `dump` of the line: floats to
    the bit (the sign of zero included), counts exactly, the stage by name."""
    theirs = json.loads(dump)
    tag = theirs["event"]
    fields = VARIANTS[tag]
    if type(parsed).__name__.lower() != tag or list(theirs) != ["event"] + [n for n, _ in fields]:
        return f"variant: parse_line {parsed!r}, reference {dump}"
    for name, kind in fields:
        mine, want = getattr(parsed, name), theirs[name]
        if kind == STAGE:
            same = mine.value == want
        elif want is None or mine is None:
            same = mine is None and want is None
        elif kind in (U64, OPT_U64):
            same = type(mine) is int and type(want) is int and mine == want
        else:  # ryu writes every f64 with a point or an exponent: json gives a float
            same = type(mine) is float and type(want) is float and bits(mine) == bits(want)
        if not same:
            return f"value of {name}: parse_line {mine!r}, reference {want!r} ({dump})"
    return None


def answer_problem(
    who: str, mine: dict[str, Any], theirs: dict[str, Any], text: bool
) -> str | None:
    """How `who`'s answer `mine` (to a line given as a str when `text`) and the reference's
    `theirs` differ in what both sides write alike: the verdict, a rejection's category and
    message (bytes that are not UTF-8: the core's syntax error), the dump; None when they
    agree on those (the values, the mark and the pace are each side's own to compare)."""
    if mine["ok"] is None:
        return f"{who} raised {mine['raised']}, not ParseError; reference {theirs}"
    if mine["ok"] != theirs["ok"]:
        return f"verdict: {who} {mine}, reference {theirs}"
    if not mine["ok"]:
        if theirs["category"] == "utf8":  # not a str: the reference cannot be given it
            expected = ("syntax", SURROGATE if text else UTF8)
            if (mine["category"], mine["bare"]) != expected:
                return f"not UTF-8: {who} {mine}, expected {expected}"
            return None
        if mine["category"] != theirs["category"]:
            return f"category: {who} {mine}, reference {theirs}"
        if mine["message"] != theirs["message"]:
            return f"message: {who} {mine['message']!r}, reference {theirs['message']!r}"
        return None
    if mine["dump"] != theirs["dump"]:
        return f"dump: {who} {mine['dump']}, reference {theirs['dump']}"
    return None


def progress_problem(who: str, mine: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """How the mark and the pace after an accepted line differ; None when they agree."""
    if mine["mark"] != theirs["mark"]:
        return f"mark: {who} {mine['mark']}, reference {theirs['mark']}"
    if mine["pace"] != theirs["pace"]:
        return f"pace: {who} {mine['pace']}, reference {theirs['pace']}"
    return None


def compare(mine: dict[str, Any], theirs: dict[str, Any], text: bool) -> str | None:
    """How `mine` (our answer to a line, given as a str when `text`) and the reference's
    answer `theirs` differ; None when they are the same."""
    problem = answer_problem("parse_line", mine, theirs, text)
    if problem is not None or not mine["ok"]:
        return problem
    problem = value_problem(mine["line"], theirs["dump"])
    if problem is not None:
        return problem
    return progress_problem("parse_line", mine, theirs)


def disagreement(
    line: str | bytes, reference: Answerer, mine: dict[str, Any] | None = None
) -> str | None:
    """How `parse_line` (or the answer `mine`) and the reference differ on `line`; None
    when they agree. A str goes to `parse_line` as it is, to the reference as UTF-8."""
    data = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
    mine = ours(line) if mine is None else mine
    return compare(mine, reference(data), isinstance(line, str))


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
        "1700000000.3745239",  # the reference reads it one float above the correct rounding
        "0.30000000000000004",
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
    st.sampled_from(EXTRAS),  # `scalars`, `summary`: read beside, never into the verdict
    text,
).map(json.dumps)
spaces = st.sampled_from(["", "", "", " ", "  ", "\t", "\n", "\r\n", " \t"])
stage_names = st.one_of(
    st.sampled_from(STAGES).map(json.dumps),
    st.sampled_from(STAGES).map(lambda name: f'{{"{name}":null}}'),  # the reference reads these
    st.sampled_from(STAGES).map(lambda name: f'{{"{name}":{{}}}}'),
    st.sampled_from(['"Train"', '"other"', '{"train":1}', '{"train":null,"merge":null}', "{}"]),
)


def field_value(draw: st.DrawFn, kind: str) -> str:
    if kind in (U64, OPT_U64):
        value = draw(integers)
    elif kind == STAGE:
        value = (
            draw(stage_names)
            if draw(st.integers(0, 5)) == 0
            else json.dumps(draw(st.sampled_from(STAGES)))
        )
    else:
        value = draw(floats)
    if kind.startswith("Option<") and draw(st.integers(0, 4)) == 0:
        value = "null"
    return value


@st.composite
def writer_lines(draw: st.DrawFn) -> str:
    """A line another writer might write: any variant, optional keys absent, null or
    present, values in any spelling, extra keys, any order, white space, duplicates."""
    tag = draw(st.sampled_from(list(VARIANTS)))
    entries: list[tuple[str, str]] = [('"event"', json.dumps(tag))]
    for name, kind in VARIANTS[tag]:
        if kind.startswith("Option<") and draw(st.integers(0, 3)) == 0:
            continue  # absent
        entries.append((json.dumps(name), field_value(draw, kind)))
    for _ in range(draw(st.integers(0, 3))):
        entries.append((draw(extra_keys), draw(extra_values)))
    if draw(st.integers(0, 5)) == 0:  # a duplicate, known or the tag
        key, value = draw(st.sampled_from(entries))
        entries.append((key, draw(st.sampled_from([value, "1", "null"]))))
    entries = draw(st.permutations(entries))
    ws = draw(spaces)
    body = ",".join(f"{ws}{key}{ws}:{ws}{value}" for key, value in entries)
    return draw(spaces) + "{" + body + ws + "}" + draw(spaces)


@st.composite
def array_lines(draw: st.DrawFn) -> str:
    """A line in the reference's array form: the tag, then the fields in declaration
    order, the trailing ones now and then left off (serde's default for an `Option`) or
    one element too many; values as above."""
    tag = draw(st.sampled_from(list(VARIANTS)))
    fields = VARIANTS[tag]
    items = [json.dumps(tag)] + [field_value(draw, kind) for _, kind in fields]
    keep = draw(st.integers(1, len(items) + 1))
    if keep > len(items):
        items.append(draw(st.one_of(scalars, st.just("null"))))
    else:
        items = items[:keep] if draw(st.booleans()) else items
    ws = draw(spaces)
    return "[" + ws + f"{ws},{ws}".join(items) + ws + "]"


plain_floats = st.floats(min_value=1e-300, max_value=1e300).map(repr)
plain_counts = st.integers(1, 2**64 - 1).map(str)


@st.composite
def plugin_lines(draw: st.DrawFn) -> str:
    """A line in the plugin's form (every key, compact, in order), its values drawn as
    above, now and then a key written twice: the usual line, and its edges."""
    tag = draw(st.sampled_from(list(VARIANTS)))
    entries = [f'"event":{json.dumps(tag)}']
    for name, kind in VARIANTS[tag]:
        if kind == STAGE:
            value = json.dumps(draw(st.sampled_from(STAGES)))
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


# bytes that UTF-8 refuses where they stand, or that start a sequence cut short
BAD_BYTES = [
    b"\x80",
    b"\xbf",
    b"\xc0\xaf",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf0\x9f",
    b"\xf8",
    b"\xff",
]


@st.composite
def spliced_bytes(draw: st.DrawFn) -> bytes:
    """A line as above, encoded, with a few bytes that UTF-8 refuses (or any byte) put in
    or written over: inside a string, a number, a key, between tokens."""
    data = draw(st.one_of(writer_lines(), plugin_lines(), array_lines())).encode("utf-8")
    for _ in range(draw(st.integers(1, 2))):
        at = draw(st.integers(0, len(data)))
        piece = draw(st.one_of(st.sampled_from(BAD_BYTES), st.binary(min_size=1, max_size=3)))
        over = draw(st.integers(0, len(piece)))
        data = data[:at] + piece + data[at + over :]
    return data


# -- the properties -----------------------------------------------------------------------


def check(line: str | bytes, reference: Answerer) -> None:
    problem = disagreement(line, reference)
    assert problem is None, f"{line!r}: {problem}"


def test_the_fields_are_the_models() -> None:
    """The variants read from the schema are the generated models': tags, field names in
    order, which are required, integers and floats."""
    for tag, fields in VARIANTS.items():
        info = msgspec.inspect.type_info(getattr(models, tag.capitalize()))
        assert isinstance(info, msgspec.inspect.StructType)
        assert info.tag == tag
        known = [field for field in info.fields if field.name not in EXTRAS]
        assert [field.name for field in known] == [name for name, _ in fields]
        assert [field.name for field in info.fields[len(known) :]] == [
            field.name for field in info.fields if field.name in EXTRAS
        ]  # the maps the reference does not know come after its fields
        for field, (_, kind) in zip(known, fields, strict=True):
            assert field.required == (not kind.startswith("Option<")), (tag, field.name)
            kinds = (
                field.type.types
                if isinstance(field.type, msgspec.inspect.UnionType)
                else (field.type,)
            )
            kinds = tuple(k.type if isinstance(k, msgspec.inspect.Metadata) else k for k in kinds)
            named = {msgspec.inspect.IntType: "u64", msgspec.inspect.FloatType: "f64"}
            found = [
                named.get(type(k)) for k in kinds if not isinstance(k, msgspec.inspect.NoneType)
            ]
            if kind != STAGE:
                assert found == [kind.removeprefix("Option<").removesuffix(">")], (tag, field.name)


@given(writer_lines())
@example('{"event":"end","time":1.7976931348623158e+308,"step":1}')
@example('{"event":"end","time":1.79769313486231581e+308,"step":1}')
@example('{"event":"log","time":1,"step":0,"learning_rate":0.0,"tokens_per_second":-0}')
@example('{"event":"log","time":1,"step":1,"x":1e400}')
@example('{"event":"begin","time":1700000000.3745239}')
@example('{"event":"begin","time":-0}')
@example('{"event":\n"log",\n"time":1e400}')
@example(
    '{"event":"end","time":1,"step":1,"p":"'
    + "x" * 300
    + '","x":{"a":-1.7976931348623158e308,"a":1}}'
)
def test_writer_lines_agree_with_the_reference(reference: Answerer, line: str) -> None:
    check(line, reference)


@given(st.one_of(plugin_lines(), array_lines()))
@example('["begin",1.5]')
@example('["eval",1,2]')
@example('["end",2.0,7]')
@example('["log",1,2,null,3]')
@example('["stage",1,{"train":null}]')
def test_plugin_and_array_lines_agree_with_the_reference(reference: Answerer, line: str) -> None:
    check(line, reference)


@given(st.one_of(writer_lines(), array_lines()), st.data())
def test_cut_and_mutated_lines_agree_with_the_reference(
    reference: Answerer, line: str, data: st.DataObject
) -> None:
    check(mutate(line, data), reference)


def test_every_edge_spelling_in_every_field(reference: Answerer) -> None:
    """Every edge spelling in every number field of every variant, the others plain: all of
    them, not a sample."""
    for literal in F64_EDGES + ZEROS + INTEGERS:
        for tag, fields in VARIANTS.items():
            for name, kind in fields:
                if kind == STAGE:
                    continue
                entries = {n: ("1" if k != STAGE else '"train"') for n, k in fields}
                entries[name] = literal
                body = ",".join(f'"{n}":{v}' for n, v in entries.items())
                check(f'{{"event":"{tag}",{body}}}', reference)


@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=60))
def test_any_text_agrees_with_the_reference(reference: Answerer, line: str) -> None:
    """Any text, given as a str and as its UTF-8."""
    check(line, reference)
    check(line.encode("utf-8"), reference)


@given(st.text(max_size=30))
@example("\ud800")
@example('{"event":"begin","time":1,"\udfff":1}')
def test_text_with_lone_surrogates_raises_only_parse_errors(reference: Answerer, line: str) -> None:
    """A str holding a lone surrogate is no `&str` the reference could be given: it is a
    syntax error; any other text is read as its UTF-8 is."""
    check(line, reference)


@given(st.one_of(st.binary(max_size=80), spliced_bytes()))
@example(b"\xff")
@example(b'{"event":"begin","time":1,"x":"\xc3"}')
@example(b'{"event":"begin","time":1}\xf0')
@example(b"")
def test_any_bytes_agree_with_the_reference(reference: Answerer, line: bytes) -> None:
    """Any bytes: `ParseError` and nothing else escapes; bytes that are not UTF-8 (which
    the reference, taking a `&str`, cannot be given) are a syntax error, "invalid UTF-8"."""
    check(line, reference)


@given(repeated_key_lines())
def test_repeated_unknown_keys_and_their_breaks_agree_with_the_reference(
    reference: Answerer, lines: list[str]
) -> None:
    """A writer repeating its unknown keys, then lines breaking the pattern: a key written
    twice, a value out of range or of another kind, another order, a key more or less."""
    for line in lines:
        check(line, reference)


# -- whole files through the core's scans ----------------------------------------------


class _Drawing:
    """A composite's `draw` as the `st.DataObject` that `mutate` takes."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw


@st.composite
def mutated_lines(draw: st.DrawFn) -> str:
    """A line as another writer writes it, cut or mutated (see `mutate`)."""
    line = draw(st.one_of(writer_lines(), array_lines()))
    return mutate(line, _Drawing(draw))  # type: ignore[arg-type]


@st.composite
def metrics_files(draw: st.DrawFn) -> tuple[list[bytes], bool, list[bytes]]:
    """A file of lines as above (a newline in one becomes a space: it would be two), its
    last line with its newline or not, and the chunks it is fed in, cut anywhere."""
    texts = st.one_of(
        plugin_lines(), plugin_lines(), writer_lines(), array_lines(), mutated_lines()
    )
    drawn = [text.encode("utf-8") for text in draw(st.lists(texts, min_size=1, max_size=8))]
    drawn += draw(st.lists(spliced_bytes(), max_size=1))
    lines = [line.replace(b"\n", b" ") for line in draw(st.permutations(drawn))]
    ended = draw(st.booleans())
    if not ended and not lines[-1]:  # an empty last line without its newline is no line
        lines.pop()
        lines, ended = lines or [b""], True
    data = b"".join(line + b"\n" for line in lines)
    data = data if ended else data[:-1]
    cuts = sorted({cut % (len(data) + 1) for cut in draw(st.lists(st.integers(0), max_size=8))})
    bounds = [0, *cuts, len(data)]
    chunks = [data[a:b] for a, b in pairwise(bounds) if b > a]
    return lines, ended, chunks


def table_category(answer: dict[str, Any]) -> str:
    """The category a table counts a line the reference rejects under: bytes that are not
    UTF-8 (no `&str` the reference could be given) are a syntax error, as `parse_line`'s."""
    return "syntax" if answer["category"] == "utf8" else answer["category"]


def row_problem(row: dict[str, Any], dump: str) -> str | None:
    """How a row of the table (each field as 8 little-endian bytes, or a stage's name; None
    for null) differs from the reference's `dump` of its line: floats to the bit, counts
    exactly, the stage by name, null for every field the variant lacks or holds null."""
    theirs = json.loads(dump)
    tag = theirs["event"]
    if row["event"] != tag:
        return f"variant: table {row['event']}, reference {dump}"
    kinds = dict(VARIANTS[tag])
    for name in FIELD_NAMES:
        mine = row[name]
        want = theirs.get(name) if name in kinds else None
        if want is None:
            same = mine is None
        elif kinds[name] == STAGE:
            same = mine == want
        elif kinds[name] in (U64, OPT_U64):
            same = type(want) is int and mine == want.to_bytes(8, "little")
        else:
            same = type(want) is float and mine == bits(want)
        if not same:
            return f"value of {name}: table {mine!r}, reference {want!r} ({dump})"
    return None


def table_rows(batches: list[Any]) -> list[dict[str, Any]]:
    """The rows of `TableScan`'s batches, read from Arrow's layout by hand: each line
    number, the variant's tag, each field's 8 bytes (a stage: its name), None for null."""
    rows = []
    for count, lines, events, fields, _scalars in batches:
        assert len(lines) == 8 * count
        assert len(events) == count
        for at in range(count):
            row: dict[str, Any] = {
                "line": int.from_bytes(lines[8 * at : 8 * at + 8], "little"),
                "event": TAGS[events[at]],
            }
            for name, (values, validity, nulls) in zip(FIELD_NAMES, fields, strict=True):
                assert (validity is None) == (nulls == 0)
                if validity is not None and not validity[at // 8] >> (at % 8) & 1:
                    row[name] = None
                elif name == "name":
                    row[name] = STAGES[values[at]]
                else:
                    row[name] = values[8 * at : 8 * at + 8]
            rows.append(row)
    return rows


@given(metrics_files(), st.integers(1, 4))
@example(
    (
        [b'{"event":"end","time":1,"step":1}', b'{"event":"end","time":1,"step":-0}'],
        True,
        [b'{"event":"end","time":1,"step":1}\n{"event":"end","time":1,"step":-0}\n'],
    ),
    1,
)
@example(
    (
        [b'{"event":"begin","time":1700000000.3745239}'],
        False,
        [b'{"event":"begin","ti', b'me":1700000000.3745239}'],
    ),
    2,
)
@example(
    (
        [b'{"event":"end","time":1,"step":1,"step":1}', b'["end",2.0,7]'],
        True,
        [b'{"event":"end","time":1,"step":1,"step":1}\n["end",2.0,7]\n'],
    ),
    1,
)
def test_a_files_table_is_what_the_reference_reads(
    reference: Answerer, drawn: tuple[list[bytes], bool, list[bytes]], batch_lines: int
) -> None:
    """`TableScan` fed the file's chunks: a row for each line the reference accepts, in
    order, its values the reference's to the bit; each line it rejects left out and
    counted under its category (a last line without its newline that it finds cut short,
    `eof`: `cut`, counted apart; one it rejects otherwise, no byte can mend: counted under
    its category, as `check` says it). A line is what comes before its newline, as the
    golden suite cuts a file. Each batch holds the rows of `batch_lines` lines."""
    lines, ended, chunks = drawn
    answers = [reference(line) for line in lines]
    scan = TableScan(batch_lines)
    batches = []
    for chunk in chunks:
        batches += scan.feed(chunk)
    batches += scan.finish()
    rows = table_rows(batches)
    where = f"{lines!r} (ended: {ended}, chunks: {chunks!r})"
    accepted = [(number, a) for number, a in enumerate(answers, 1) if a["ok"]]
    assert [row["line"] for row in rows] == [number for number, _ in accepted], where
    for row, (number, answer) in zip(rows, accepted, strict=True):
        problem = row_problem(row, answer["dump"])
        assert problem is None, f"line {number} of {where}: {problem}"
    groups = [row["line"] for row in rows]
    assert [[row["line"] for row in table_rows([batch])] for batch in batches] == [
        [line for line in groups if (line - 1) // batch_lines == index]
        for index in sorted({(line - 1) // batch_lines for line in groups})
    ], where
    rejected = [(number, a) for number, a in enumerate(answers, 1) if not a["ok"]]
    last_cut = not ended and not answers[-1]["ok"] and answers[-1]["category"] == "eof"
    counted = rejected[:-1] if last_cut else rejected
    want = dict.fromkeys(LEFT_OUT, 0)
    for _, answer in counted:
        want[table_category(answer)] += 1
    assert dict(zip(LEFT_OUT, scan.left_out, strict=True)) == want, where
    assert scan.first_left_out == (counted[0][0] if counted else None), where
    assert scan.cut is last_cut, where
    assert scan.lines == len(lines), where


def check_answer(data: bytes, category: str, message: str, column: int | None) -> dict[str, Any]:
    """A `CheckScan` fact's error on the line `data` (as the file holds it), in the
    runner's form."""
    return {
        "ok": False,
        "category": category,
        "bare": message,
        "message": message + position(data, column),
    }


def finding_category(finding: Finding) -> str:
    """The reference's category of a finding on a line (a last line cut short: `eof`)."""
    return "eof" if finding.category is Category.truncated else finding.category.value


def rejected_answer(data: bytes, finding: Finding) -> dict[str, Any]:
    """A finding of a rejected line in the runner's form; its message, path and column
    checked to be what `parse_line` says of the line (the message: `str` of its
    `ParseError`, the reference's words and " at column C"; the byte order mark's note
    beside it on a first line that begins with one)."""
    with pytest.raises(ParseError) as caught:
        parse_line(data)
    text = finding.message
    if finding.line == 1 and data.startswith(b"\xef\xbb\xbf"):
        text = text.removesuffix(f" ({BOM_NOTE})")
    assert (finding.path, finding.category.value, text, finding.column) == (
        caught.value.path or "$",
        caught.value.category,
        str(caught.value),
        caught.value.column,
    ), data
    column = finding.column
    suffix = "" if column is None else f" at column {column}"
    assert text.endswith(suffix)
    return check_answer(data, caught.value.category, text.removesuffix(suffix), column)


@given(metrics_files())
@example(
    (
        [b'{"event":"log","time":1,"step":2,"note":"ab', b'{"event":"end","time":1,"step":1}'],
        True,
        [b'{"event":"log","time":1,"step":2,"note":"ab\n{"event":"end","time":1,"step":1}\n'],
    )
)
@example(
    (
        [b'{"event":"log","time":1,"step":2,"note":"ab'],
        False,
        [b'{"event":"log","time":1', b',"step":2,"note":"ab'],
    )
)
def test_a_files_check_is_what_the_reference_reads(
    reference: Answerer, drawn: tuple[list[bytes], bool, list[bytes]]
) -> None:
    """`CheckScan` fed the file's chunks: an error finding for each complete line the
    reference rejects, read as the bytes before its newline, with the reference's
    category and message, position included, and none for a line it accepts; the last
    line without its newline gets its finding: a warning `truncated` for a whole line or
    one the reference finds cut (`eof`), else an error of the reference's category (the
    core's last-line rule); the lines of each variant counted as the reference reads
    them."""
    lines, ended, chunks = drawn
    held = lines  # a line is the bytes before its newline, the last one's too
    answers = [reference(line) for line in held]
    scan = CheckScan("f")
    found: list[Finding] = []
    for chunk in chunks:
        scan.feed(chunk, found.append)
    scan.finish(found.append)
    where = f"{lines!r} (ended: {ended}, chunks: {chunks!r})"
    complete = range(1, len(lines) + (1 if ended else 0))
    on_lines = [f for f in found if f.category not in (Category.order, Category.schema)]
    # a line's `scalars` or `summary` that its schema refuses: a warning on a line the
    # reference reads, never a verdict of its own
    for finding in (f for f in found if f.category is Category.schema):
        assert finding.severity is Severity.warning, where
        assert finding.line is not None, where
        assert answers[finding.line - 1]["ok"], where
    rejected = [f for f in on_lines if f.line in complete]
    assert [f.line for f in rejected] == [
        number for number in complete if not answers[number - 1]["ok"]
    ], where
    for finding in rejected:
        assert finding.severity is Severity.error, where
        number = finding.line
        assert number is not None
        mine = rejected_answer(held[number - 1], finding)
        problem = compare(mine, answers[number - 1], text=False)
        assert problem is None, f"line {number} of {where}: {problem}"
    last = [f for f in on_lines if f.line not in complete]
    if ended:
        assert last == [], where
    else:
        (finding,) = last
        assert finding.line == len(lines), where
        theirs = answers[-1]
        if theirs["ok"]:
            assert (finding.category, finding.severity, finding.column) == (
                Category.truncated,
                Severity.warning,
                None,
            ), where
        else:
            cut = theirs["category"] == "eof"
            # bytes that are not UTF-8: the runner says `utf8`, the reference's syntax error
            category = "syntax" if theirs["category"] == "utf8" else theirs["category"]
            wanted = (
                (Category.truncated, Severity.warning)
                if cut
                else (Category(category), Severity.error)
            )
            assert (finding.category, finding.severity) == wanted, where
            text = (
                finding.message.removeprefix("truncated last line: ")
                if cut
                else (finding.message.removesuffix(" (the last line, without its newline)"))
            )
            if len(lines) == 1 and held[-1].startswith(b"\xef\xbb\xbf"):
                text = text.removesuffix(f" ({BOM_NOTE})")
            column = finding.column
            suffix = "" if column is None else f" at column {column}"
            assert text.endswith(suffix), where
            mine = check_answer(
                held[-1], finding_category(finding), text.removesuffix(suffix), column
            )
            problem = compare(mine, theirs, text=False)
            assert problem is None, f"the last line of {where}: {problem}"
    counts = Counter(json.loads(a["dump"])["event"] for a in answers if a["ok"])
    summary = scan.report()
    assert summary.events is not None
    assert [getattr(summary.events, tag) for tag in TAGS] == [counts[tag] for tag in TAGS], where
    assert scan.lines == len(lines), where
    # Showing one finding of each severity: the rest are counted, and the rejected lines
    # past the first error read for their verdict alone; the report is the same.
    brief = CheckScan("f", shown=1)
    shown: list[Finding] = []
    for chunk in chunks:
        brief.feed(chunk, shown.append)
    brief.finish(shown.append)
    firsts = [next((f for f in found if f.severity is s), None) for s in Severity]
    assert shown == [f for f in found if f in firsts], where
    assert brief.report() == summary, where
    assert (brief.invalid, brief.cut, brief.lines) == (scan.invalid, scan.cut, scan.lines), where


def test_the_comparison_sees_a_difference(reference: Answerer) -> None:
    """The check can fail: a reference answer that differs is caught, a float one bit off
    included, and a message at another position."""
    line = b'{"event":"end","time":1.5,"step":7}'
    assert disagreement(line, reference) is None
    theirs = reference(line)
    for wrong in ('"step":8', '"time":1.5000000000000002'):
        old = '"step":7' if "step" in wrong else '"time":1.5'
        changed = dict(theirs, dump=theirs["dump"].replace(old, wrong))
        assert compare(ours(line), changed, text=False) is not None
        mine = ours(line)
        assert value_problem(mine["line"], changed["dump"]) is not None
    cut = b'{"event":\n"end",'
    theirs = reference(cut)
    assert compare(ours(cut), theirs, text=False) is None
    moved = dict(theirs, message=theirs["message"].replace("line 2", "line 1"))
    assert compare(ours(cut), moved, text=False) is not None


# -- the npm package (js/: the core as WebAssembly) against the reference ------------------


@pytest.fixture(scope="module")
def js() -> Iterator[JsAnswerer]:
    build_js()
    answerer = JsAnswerer()
    yield answerer
    answerer.close()


def js_problem(mine: dict[str, Any], theirs: dict[str, Any], text: bool) -> str | None:
    """How the package's answer `mine` (answerer.mjs's form) and the reference's answer
    `theirs` to a line differ: verdict; category and message, position included (bytes
    that are not UTF-8: the core's syntax error); dump, each field's value (floats to the
    bit against the reference's dump read back, counts exactly, the stage by name), mark,
    pace. None when they are the same."""
    problem = answer_problem("the package", mine, theirs, text)
    if problem is not None or not mine["ok"]:
        return problem
    want = json.loads(theirs["dump"])
    tag = want["event"]
    if mine["event"] != tag or len(mine["values"]) != len(VARIANTS[tag]):
        return f"variant: the package {mine}, reference {theirs['dump']}"
    for (name, kind), got in zip(VARIANTS[tag], mine["values"], strict=True):
        value = want[name]
        if value is None or got is None:
            same = value is None and got is None
        elif kind == STAGE:
            same = got == value
        elif kind in (U64, OPT_U64):
            same = type(value) is int and got == str(value)
        else:
            same = type(value) is float and got == bits(value).hex()
        if not same:
            return f"value of {name}: the package {got!r}, reference {value!r} ({theirs['dump']})"
    return progress_problem("the package", mine, theirs)


def python_problem(mine: dict[str, Any], line: str | bytes) -> str | None:
    """How the package's answer differs from Python's `parse_line` on the same line: the
    same verdict, and for a rejected line the same `ParseError` (category, message, column,
    path: the core's, whatever Unicode version each runtime's own tables follow)."""
    try:
        parse_line(line)
    except ParseError as error:
        python = [error.category, error.message, error.column, error.path]
        package = [mine.get("category"), mine.get("bare"), mine.get("column"), mine.get("path")]
        return None if package == python else f"the package {package}, Python {python}"
    return None if mine["ok"] else f"the package {mine}, Python accepts the line"


def check_js(line: str | bytes, reference: Answerer, js: JsAnswerer) -> None:
    data = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
    mine = js.line(line)
    problem = js_problem(mine, reference(data), isinstance(line, str)) or python_problem(mine, line)
    assert problem is None, f"{line!r}: {problem}"


any_line = st.one_of(
    writer_lines(),
    plugin_lines(),
    array_lines(),
    mutated_lines(),
    repeated_key_lines().map(lambda lines: lines[-1]),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=60),
    st.text(max_size=30),  # lone surrogates among them
    st.binary(max_size=80),
    spliced_bytes(),
)


@given(any_line, st.booleans())
@example('{"event":"log","time":-0,"step":18446744073709551615,"loss":-0.0}', True)
@example('{"event":"end","time":1.7976931348623158e+308,"step":1}', True)
@example('{"event":"log","time":1700000000.3745239,"step":1}', False)
@example('["stage",1,{"train":null}]', True)
@example('{"event":"begin","time":1,"\udfff":1}', True)
@example('{"event":"log","time":1,"x":{"a b":[1,{"é":1e400}]}}', True)
@example(b'{"event":"begin","time":1,"x":"\xc3"}', True)
@example('{"event":"log","step":0,"x":{"\\ud823\\udd80":1e400},"time":1}', False)
@example("", True)
def test_the_package_answers_as_the_reference_and_python(
    reference: Answerer, js: JsAnswerer, line: str | bytes, as_bytes: bool
) -> None:
    """Any line through the npm package (`parseLine` of a string, or of its UTF-8 bytes),
    against the reference (verdict, category, message with its position, dump, each value to
    the bit, mark, pace) and Python's `parse_line` (the same ParseError: category, message,
    column, path)."""
    if as_bytes and isinstance(line, str):
        line = line.encode("utf-8", "surrogatepass")
    check_js(line, reference, js)


def test_the_package_reads_every_edge_spelling_in_every_field(
    reference: Answerer, js: JsAnswerer
) -> None:
    """Every edge spelling in every number field of every variant through the package."""
    for literal in F64_EDGES + ZEROS + INTEGERS:
        for tag, fields in VARIANTS.items():
            for name, kind in fields:
                if kind == STAGE:
                    continue
                entries = {n: ("1" if k != STAGE else '"train"') for n, k in fields}
                entries[name] = literal
                body = ",".join(f'"{n}":{v}' for n, v in entries.items())
                check_js(f'{{"event":"{tag}",{body}}}', reference, js)


@given(metrics_files())
@example(
    (
        [b'{"event":"begin","time":1700000000.3745239}', b""],
        True,
        [b'{"event":"begin","ti', b'me":1700000000.3745239}\n', b"\n"],
    )
)
def test_the_packages_reader_answers_a_file_as_the_reference(
    reference: Answerer, js: JsAnswerer, drawn: tuple[list[bytes], bool, list[bytes]]
) -> None:
    """The package's `Reader` fed a file's chunks, cut anywhere: one answer a line, in
    order, numbered from 1, the last one `complete` only when the file ends in a newline,
    each the reference's answer to the line (a line: what comes before its newline)."""
    lines, ended, chunks = drawn
    answers = js.file(chunks)
    where = f"{lines!r} (ended: {ended}, chunks: {chunks!r})"
    assert [a["line"] for a in answers] == list(range(1, len(lines) + 1)), where
    assert [a["complete"] for a in answers] == [True] * (len(lines) - 1) + [ended], where
    for number, (line, mine) in enumerate(zip(lines, answers, strict=True), 1):
        problem = js_problem(mine, reference(line), text=False)
        assert problem is None, f"line {number} of {where}: {problem}"


def test_the_package_comparison_sees_a_difference(reference: Answerer, js: JsAnswerer) -> None:
    """The package's check can fail: a float one bit off, a count one off, another message
    position, another path, are each caught."""
    line = b'{"event":"end","time":1.5,"step":7}'
    mine, theirs = js.line(line), reference(line)
    assert js_problem(mine, theirs, text=False) is None
    for old, wrong in (('"step":7', '"step":8'), ('"time":1.5', '"time":1.5000000000000002')):
        changed = dict(theirs, dump=theirs["dump"].replace(old, wrong))
        assert js_problem(mine, changed, text=False) is not None
        assert js_problem(dict(mine, dump=changed["dump"]), changed, text=False) is not None
    cut = b'{"event":\n"end",'
    mine, theirs = js.line(cut), reference(cut)
    assert js_problem(mine, theirs, text=False) is None
    moved = dict(theirs, message=theirs["message"].replace("line 2", "line 1"))
    assert js_problem(mine, moved, text=False) is not None
    bad = b'{"event":"log","time":1,"step":3.0}'
    assert python_problem(js.line(bad), bad) is None
    assert python_problem(dict(js.line(bad), path="$.time"), bad) is not None
