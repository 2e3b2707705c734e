"""Properties of parse_line for any input, checked with hypothesis:

- nothing but ParseError ever escapes it, on arbitrary bytes, text and mutated lines;
- its fast path and the exact path agree on the verdict, the value and the category;
- an accepted line, dumped and parsed again, gives the same line.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from overbrainer_contract import ParseError, dump_line, parse_line
from overbrainer_contract._serde import FIELDS as KINDS
from overbrainer_contract._serde import OPT_U64, STAGE, U64, U64_MAX, VARIANTS, parse_exact
from overbrainer_contract._serde import STAGES as SERDE_STAGES
from repeated_keys import repeated_key_lines

# The variants, their fields and kinds, as the exact path reads them (one source).
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
    """('ok', canonical dump) or ('error', category) — the whole answer to compare."""
    try:
        return ("ok", dump_line(parse(line)))
    except ParseError as error:
        return ("error", error.category)


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
    assert verdict(parse_line, data) == verdict(parse_exact, data)


@given(st.text(max_size=200))
@example("\ud800")
@example('{"event":"end","time":1,"step":2,"x":"\ud800"}')
def test_arbitrary_text_only_ever_raises_parse_error(text: str) -> None:
    assert verdict(parse_line, text) == verdict(parse_exact, text)


@given(st.one_of(objects(), arrays()))
def test_fast_path_and_exact_path_agree(line: str) -> None:
    assert verdict(parse_line, line) == verdict(parse_exact, line)
    assert verdict(parse_line, line.encode()) == verdict(parse_exact, line.encode())


@given(written_lines(), st.data())
def test_mutated_lines_only_ever_raise_parse_error(line: str, data: st.DataObject) -> None:
    mutated = mutate(line, data)
    assert verdict(parse_line, mutated) == verdict(parse_exact, mutated)


@given(st.one_of(written_lines(), objects(), arrays()))
def test_accepted_lines_round_trip_through_dump(line: str) -> None:
    try:
        parsed = parse_line(line)
    except ParseError:
        return
    dumped = dump_line(parsed)
    again = parse_line(dumped)
    assert again == parsed
    assert dump_line(again) == dumped


@given(written_lines())
def test_lines_as_the_plugin_writes_them_are_accepted_with_their_values(line: str) -> None:
    written = json.loads(line)
    parsed = parse_line(line)
    for name, value in written.items():
        if name == "event":
            continue
        got = getattr(parsed, name)
        got = got.value if name == "name" else got
        assert got == value, name
        assert type(got) is type(value), name


@given(repeated_key_lines())
def test_repeated_unknown_keys_and_their_breaks_match_the_exact_path(lines: list[str]) -> None:
    """A writer's repeated unknown keys are learned and read with one decode; the lines
    that break the pattern (a duplicate, a value out of range or of another kind, another
    order, a key more or less) get the exact path's verdict, value and category."""
    parse_line.__globals__["KEYSETS"].forget()
    for line in lines:
        for text in (line, line.encode()):
            assert verdict(parse_line, text) == verdict(parse_exact, text), text
