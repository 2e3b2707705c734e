"""`parse_replayed` (json's C scanner, then serde's build) answers exactly what
`parse_exact` answers: the value, or the error with its category, message, path and
column, on any line — and leaves to `parse_exact` what it cannot place."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from overbrainer_contract import ParseError, dump_line
from overbrainer_contract._serde import parse_exact
from overbrainer_contract.replay import parse_replayed
from test_parser_properties import arrays, mutate, objects, written_lines


def answer(parse: Any, line: str | bytes) -> tuple[Any, ...]:
    try:
        return ("ok", dump_line(parse(line)))
    except ParseError as error:
        return ("error", error.category, error.message, error.path, error.column)


@given(st.one_of(objects(), arrays(), written_lines()))
@example('{"event":"end","time":1,"step":2,"step":3}')
@example('{"event":"end","time":1,"step":-0}')
@example('{"event":"end","time":"1","step":2}')
@example('{"time":1,"step":2}')
@example('{"event":"end","time":1,"step":2} x')
@example('{"event":"stage","time":1,"name":{"train":null,"train":null}}')
@example('{"event":"end","time":-0,"step":2}')
@example('{"event":"end","time":1,"step":0,"x":-0}')
@example('{"event":"end","time":1, "step": -0 ,"x":0}')
@example('{"event":"end","time":1,"step":0,"note":"a:-0"}')
@example('{"event":"end","time":1,"step":2,"step":"x"}')
@example('{"a":1,"a":-0,"event":"end","time":1,"step":2,"time":"t"}')
@example('{"event":"end","event":"end","time":1,"step":2}')
@example('{"event":"end","time":1,"step":2,"n":"}","n":1,"step":3}')
@example('{"event":"end","time":1,"step":2,"n":"a:b","n":1,"step":3}')
def test_replayed_answers_are_the_exact_answers(line: str) -> None:
    assert answer(parse_replayed, line) == answer(parse_exact, line)
    assert answer(parse_replayed, line.encode()) == answer(parse_exact, line.encode())


@given(written_lines(), st.data())
def test_replayed_answers_on_mutated_lines(line: str, data: st.DataObject) -> None:
    mutated = mutate(line, data)
    assert answer(parse_replayed, mutated) == answer(parse_exact, mutated)


@pytest.mark.parametrize(
    "line",
    [
        '{"event":"end","time":1,"step":2,"step":3}',
        '{"event":"log","time":"soon","step":2}',
        '{"event":"end","time":1,"step":-0}',
        '{"step":2,"time":1}',
    ],
)
def test_data_errors_do_not_reach_the_exact_reader(
    line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bad lines a run meets most (a duplicate, a wrong type, `-0`, a missing tag)
    are answered by the replay alone."""
    expected = answer(parse_exact, line)
    calls: list[object] = []
    monkeypatch.setitem(parse_replayed.__globals__, "parse_exact", calls.append)
    assert answer(parse_replayed, line) == expected
    assert calls == []


@given(st.one_of(objects(), written_lines()), st.data())
@example('{"event":"log","time":1,"step":2,"loss":3', None)
@example('{,"event":"log","time":1', None)
@example("{ ,", None)
@example('{"event":"log","time":1,"step":2,"note":"a,b', None)
@example('{"event":"end","time":1,"step":2} x,', None)
@example('{"event":"end","time":NaN,"step":2}', None)
@example('{"event":"nope","time":1,"step":2', None)
@example('{"event":"end","event":"end","time":1', None)
@example('{"event":"end","time":1e999,"step":2', None)
def test_cut_lines_answer_as_the_exact_path(line: str, data: st.DataObject | None) -> None:
    """Every prefix of a line (a run killed mid-write) and a syntax error after some members
    get the exact path's answer from the reader resumed at the last member json read."""
    cuts = range(len(line) + 1) if data is None else [data.draw(st.integers(0, len(line)))]
    for cut in cuts:
        assert answer(parse_replayed, line[:cut]) == answer(parse_exact, line[:cut])
        broken = line[:cut] + "?" + line[cut:]
        assert answer(parse_replayed, broken) == answer(parse_exact, broken)


@pytest.mark.parametrize(
    "line",
    [
        '{"event":"log","time":1764467476.7,"step":2,"epoch":0.0006,"max_steps":18,"loss":3',
        '{"event":"log","time":1764467476.7,"step":2,"epoch":0.0006,"max_steps":18,"loss":',
        '{"event":"log","time":1764467476.7,"step":2,"epoch":0.0006,"max_steps":18,"lo',
        '{"event":"log","time":NaN,"was":1764467476.7,"step":2}',
        '{"event":"log","time":1764467476.7,"step":2,"loss":.5}',
    ],
)
def test_cut_lines_do_not_reread_the_whole_line(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cut line, or a syntax error after the first member, is read by the exact reader
    only from the last member json's scanner read (`resume_object`), not from its start."""
    expected = answer(parse_exact, line)
    calls: list[object] = []
    monkeypatch.setitem(parse_replayed.__globals__, "parse_exact", calls.append)
    assert answer(parse_replayed, line) == expected
    assert calls == []


@pytest.mark.parametrize(
    "line",
    [
        '{"event":"end","time":1,"step":2,"step":3}',
        '{"event":"log","time":"soon","step":2}',
        '{"event":"end","time":1,"step":-0}',
        '{"event":"end","time":-0,"step":0,"x":-0,"y":0}',
        '{"step":2,"time":1}',
        '{"event":"end","time":1,"step":2,"step":3,"time":"t"}',
    ],
)
def test_flat_lines_are_read_by_msgspec(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flat line without escapes (every line a writer of the contract writes) is read by
    msgspec for serde's build, duplicate keys and integer `-0`s included: json's scanner
    never runs, and the answer is the exact path's."""
    expected = answer(parse_exact, line)
    calls: list[object] = []
    for scanner in ("_SCAN", "_SCAN_FLAT"):
        monkeypatch.setitem(parse_replayed.__globals__, scanner, calls.append)
    assert answer(parse_replayed, line) == expected
    assert answer(parse_replayed, line.encode()) == expected
    assert calls == []
