"""`flat.answer` (a flat line, or one that is not an object, answered at C speed) gives
exactly `parse_exact`'s answer — value, or error with its category, message, path and
column — wherever it answers, and answers the bad lines a run meets without the replay.

Held over every prefix of the benchmark's bad lines and of the golden suite's lines
(a run killed mid-write), the same with a character inserted anywhere (a syntax error
after some members), and over generated and mutated lines."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from overbrainer_contract import ParseError, dump_line, flat
from overbrainer_contract._serde import parse_exact
from overbrainer_contract.replay import parse_replayed
from test_parser_properties import mutate, objects, written_lines

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from workloads import BAD_KINDS, bad_line, realistic_lines  # noqa: E402 - the bench's lines

CASES = ROOT / "tests" / "conformance" / "cases"


def answer(parse: Any, line: str | bytes) -> tuple[Any, ...]:
    try:
        return ("ok", dump_line(parse(line)))
    except ParseError as error:
        return ("error", error.category, error.message, error.path, error.column)


def flat_answer(line: str | bytes) -> tuple[Any, ...] | None:
    """`flat.answer`'s answer, or None where it leaves the line to the replay."""
    text = line.decode() if isinstance(line, bytes) else line
    try:
        found = flat.answer(line, text)
    except ParseError as error:
        return ("error", error.category, error.message, error.path, error.column)
    return None if found is None else ("ok", dump_line(found))


def agrees(line: str) -> bool:
    """Where `flat.answer` answers, it answers as `parse_exact`; and so does the replay."""
    for form in (line, line.encode()):
        expected = answer(parse_exact, form)
        found = flat_answer(form)
        assert found is None or found == expected, (form, found, expected)
        assert answer(parse_replayed, form) == expected, form
    return flat_answer(line) is not None


def _samples() -> list[str]:
    """One line of each variant the plugin writes (begin, log, eval, stage, end)."""
    lines = list(realistic_lines(200))
    wanted = ('"event":"begin"', '"event":"log"', '"event":"eval"', '"event":"stage"')
    found = [next(line for line in lines if kind in line) for kind in wanted]
    return [*found, lines[-1]]


SAMPLES = _samples()
BAD = [bad_line(sample, kind) for sample in SAMPLES for kind in BAD_KINDS]


@pytest.mark.parametrize("line", BAD)
def test_the_benchmarks_bad_lines_cut_anywhere(line: str) -> None:
    answered = 0
    for cut in range(len(line) + 1):
        for form in (line[:cut], line[:cut] + "\n", line[:cut] + "?" + line[cut:]):
            answered += agrees(form)
    assert answered > len(line)  # most of them are flat's to answer


@pytest.mark.parametrize("line", BAD)
def test_the_benchmarks_bad_lines_are_answered_without_the_replay(line: str) -> None:
    assert flat_answer(line) is not None
    assert flat_answer(line + "\n") is not None


def _golden_lines() -> list[str]:
    lines = []
    for path in sorted(CASES.glob("*.jsonl")):
        lines += path.read_text(encoding="utf-8").splitlines()
    return lines


GOLDEN = _golden_lines()


def test_the_golden_lines_cut_anywhere() -> None:
    assert len(GOLDEN) > 100
    for line in GOLDEN:
        agrees(line)
        if len(line) <= 400:
            for cut in range(len(line) + 1):
                agrees(line[:cut])
                agrees(line[:cut] + "?" + line[cut:])


@pytest.mark.parametrize(
    "line",
    [
        "",
        "\n",
        " \t",
        "Traceback (most recent call last):",
        "\ufeff{}",
        '{"event":"end","time":1,"step":2,"x":"a\x01b"}',
        '{"event":"end","time":1,"step":2,"x":"a\nb"',
        '{"event":"end","time":1,"step":2,"x":nul',
        '{"event":"end","time":1,"step":2,"x":nul\n',
        '{"event":"end","time":1,"step":2,"x":nulx}',
        '{"event":"end","time":1,"step":2,"x":truex}',
        '{"event":"end","time":1,"step":2,"x":1e999}',
        '{"event":"end","time":1,"step":2,"x":1e999',
        '{"event":"end","time":1,"step":2,"x":1.',
        '{"event":"end","time":1,"step":2,"x":1.\n',
        '{"event":"end","time":1,"step":2,"x":-',
        '{"event":"end","time":1,"step":2,"x":1e+',
        '{"event":"end","time":1,"step":2,"x":01}',
        '{"event":"end","time":1,"step":2,"x" 1}',
        '{"event":"end","time":1,"step":2,,"x":1}',
        '{"event":"end","time":1,"step":2,}',
        '{"event":"end","time":1,"step":2 "x":1}',
        '{"event":"end","time":1,"step":2,"x":1} x',
        '{"event":"end","time":1,"step":2,"x":"a,b","y":NaN}',
        '{"event":"end","time":1,"step":2,"x":"a,b,c,d","y":"e,f","z":NaN}',
        '{"event":"end","time":1,"step":-0,"step":2}',
        '{"event":"end","time":1,"step":2,"time":-0,"time":1}',
        '{"event":"end","time":-0,"step":2,"x":-0,"x":1}',
        '{"event":"end","time":1,"step":2,"x":1,"x":2}',
        '{"event":"end","time":1,"x":1,"x":2}',
        '{"event":"end","time":"t","step":2,"step":3}',
        '{"event":"end","step":2,"step":"x","time":"t"}',
        '{"event":"end","time":1,"step":9223372036854775808}',
        '{"event":"end","time":1,"step":18446744073709551616}',
        '{"event":"end","time":1,"step":-1}',
        '{"event":"end","time":true,"step":1}',
        '{"event":"end","time":null,"step":1}',
        '{"event":"end","step":1}',
        '{"event":"stage","time":1,"name":"train"}',
        '{"event":"stage","time":1,"name":"deploy"}',
        '{"event":"stage","time":1,"name":1}',
        '{"event":"begin","time":1,"max_steps":null}',
        '{"event":"eval","time":1,"step":2,"total":-0}',
        '{"event":"log","time":1,"step":2,"epoch":-0,"loss":-0.0}',
        '{"event":"nope","time":1,"step":2}',
        '{"event":1,"time":1,"step":2}',
        '{"time":1,"step":2}',
        '{"time":1,"step":2,"event":"end","event":"end"}',
        '{"time":1,"step":2,"event":"end","a":1,"a":2}',
        '{"event":"end","time":1,"step":2,"note":"a:b"}',
        '{"event":"end","time":1,"step":2,"note":"a:b","note":1}',
        '{"event":"end","time":1,"step":2,"note":"}"}',
        '{"event":"end","time":1,"step":2,"note":"é","step":3}',
        ' {"event":"end","time":1,"step":2} \n',
        '{"event":"end","time":1,"step":2,"é":NaN}',
        '{"event":"end","time":1,"step":2,"x":"é',
        '{"event":"end","time":1,"step":2,"note":"a,NaN","x":1}',
        '{"event":"end","time":1,"step":2,"note":"a, NaN","x":NaN}',
        '{"event":"end","NaN":1,"time":1,"step":2}',
        '{"event":"end","time":1,"step":2,"x":-Infinity}',
        '{"event":"end","time":1,"step":2,"x":[NaN]}',
        '{"event":"end","time":NaN,"step":2}',
        '{"time":NaN,"event":"end","step":2}',
        '{"event":"end","time":1,"step":2,"x":nl',
        '{"event":"end","time":1,"step":2,"x":tu',
        '{"event":"end","time":1,"step":2,"x":fl',
        '{"event":"end","time":1,"step":2,"x":fas',
        '{"event":"end","time":1,"step":2,"x":-.',
        '{"event":"end","time":1,"step":2,"x":01.',
        '{"event":"end","time":1,"step":2,"x":1.5e+',
        '{"event":"end","time":1,"step":2,"x":-0.e',
        '{"event":"end","time":1,"step":2,"x":1E-',
    ],
)
def test_edges_agree(line: str) -> None:
    for cut in range(len(line) + 1):
        agrees(line[:cut])
        agrees(line[:cut] + "?" + line[cut:])
        agrees(line[:cut] + "\n" + line[cut:])


@given(st.one_of(objects(), written_lines()))
@example('{"event":"end","time":1,"step":2,"step":3}')
def test_generated_lines_agree(line: str) -> None:
    agrees(line)
    agrees(line[: len(line) // 2])


@given(written_lines(), st.data())
def test_mutated_lines_agree(line: str, data: st.DataObject) -> None:
    agrees(mutate(line, data))


@pytest.mark.parametrize("sample", SAMPLES)
def test_lines_cut_after_a_comma_are_answered_by_one_regex(
    sample: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line cut anywhere after its second member's `,` (in a key, before or after its
    colon, in a value, after a whole value) is answered from what follows the last `,`
    (`_CUT_AFTER_COMMA`), not by reading the member again (`_member_after`); so is the
    same line ended by its newline (a string cut short then ends at a control
    character), but where a number or a literal was cut (serde_json then finds it
    malformed: the exact reader's own steps say where)."""
    calls: list[object] = []
    monkeypatch.setattr(flat, "_member_after", lambda *args: calls.append(args))
    second = sample.index(",", sample.index(",") + 1)
    for cut in range(second + 1, len(sample)):
        line = sample[:cut]
        assert flat_answer(line) == answer(parse_exact, line), line
        in_value = line.rstrip("0123456789")[-1:] in (".", "e", "-", "+")
        if not in_value and line.rstrip("nultrefas")[-1:] != ":":
            assert flat_answer(line + "\n") == answer(parse_exact, line + "\n"), line
    assert calls == []


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"time":', '"time":NaN,"was":'),  # not JSON where a value starts
        ('"time":', '"time":Infinity,"was":'),
        (",", ',"x" 1,'),  # no colon
        (",", ',"x":1 2,'),  # no comma
        (",", ",?,"),  # a key that is not a string
        ("}", ",}"),  # a comma before the brace
    ],
)
def test_syntax_errors_after_a_comma_are_answered_by_one_regex(
    sample: str, old: str, new: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A syntax error in the member after a `,` is answered from what follows that `,`
    (`_STOP_AFTER_COMMA`), not by reading the member again (`_member_after`)."""
    calls: list[object] = []
    monkeypatch.setattr(flat, "_member_after", lambda *args: calls.append(args))
    at = sample.rindex(old) if old != "," else sample.index(",", sample.index(",") + 1)
    line = sample[:at] + new + sample[at + len(old) :]
    assert flat_answer(line) == answer(parse_exact, line), line
    assert flat_answer(line + "\n") == answer(parse_exact, line + "\n"), line
    assert calls == []


@pytest.mark.parametrize("sample", SAMPLES)
def test_lines_cut_right_after_a_value_are_read_once(
    sample: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line cut right after a value (in a number's digits, most often: most of a line)
    is answered from one read of the line closed there, not from its last comma."""
    calls: list[object] = []
    monkeypatch.setattr(flat, "_after_comma", lambda *args: calls.append(args))
    ends = [cut for cut in range(2, len(sample)) if sample[cut - 1] in "0123456789"]
    assert ends
    for cut in ends:
        for line in (sample[:cut], sample[:cut] + "\n"):
            assert flat_answer(line) == answer(parse_exact, line), line
    assert calls == []


# Flat lines of the shapes `flat` answers: known and unknown keys, the tag anywhere or
# twice or absent, every kind of scalar a writer or a fault puts there.
_FLAT_KEYS = st.sampled_from(
    [
        *("event", "time", "step", "epoch", "max_steps", "loss", "eval_loss"),
        *("learning_rate", "grad_norm", "total", "name", "x", "y", "NaN", "a:b", "a,b"),
    ]
)
_FLAT_VALUES = st.sampled_from(
    [
        *('"log"', '"end"', '"eval"', '"stage"', '"begin"', '"nope"', '"train"', '"deploy"'),
        *("0", "-0", "-0.0", "1", "-1", "2.5", "1e-05", "-0e5", "1e308", "1e400", "1.8e308"),
        *("9223372036854775807", "9223372036854775808", "18446744073709551616", "0.0"),
        *("true", "false", "null", "NaN", "Infinity", "-Infinity", '"a,b"', '"a:b"', '""'),
        *("nul", "tru", "1.", "-", "01", ".5", '"x', "1e", "[1]", "{}"),
    ]
)


@st.composite
def flat_lines(draw: st.DrawFn) -> str:
    entries = draw(st.lists(st.tuples(_FLAT_KEYS, _FLAT_VALUES), max_size=9))
    ws = draw(st.sampled_from(["", "", " ", "\n", "\t"]))
    body = ",".join(f'"{key}"{ws}:{ws}{value}' for key, value in entries)
    return "{" + body + draw(st.sampled_from(["}", "}", "}\n", ",}", "", "\n", "} x"]))


@given(flat_lines(), st.data())
@example('{"event":"end","time":1,"step":-0,"step":2}', None)
@example('{"time":1,"event":"end","step":2,"x":NaN}', None)
def test_flat_lines_agree_cut_and_mutated(line: str, data: st.DataObject | None) -> None:
    agrees(line)
    if data is not None:
        agrees(line[: data.draw(st.integers(0, len(line)))])
        agrees(mutate(line, data))
