"""parse_line on chosen lines: what the fixtures cannot say (Python inputs), and the
error's fields."""

from __future__ import annotations

import pytest
from overbrainer_contract import Begin, End, JobStage, Log, ParseError, Stage, parse_line

LOG = (
    '{"event":"log","time":1.5,"step":3,"epoch":0.25,"max_steps":12,"loss":1.2,'
    '"eval_loss":null,"learning_rate":2e-05,"grad_norm":0.5}'
)


def test_str_and_bytes_give_the_same_line() -> None:
    assert parse_line(LOG) == parse_line(LOG.encode()) == parse_line(LOG + "\n")
    assert parse_line(LOG.encode() + b"\r\n") == parse_line(LOG)


def test_the_values_are_the_generated_models() -> None:
    line = parse_line(LOG)
    assert type(line) is Log
    assert (line.step, line.max_steps, line.eval_loss, line.learning_rate) == (3, 12, None, 2e-05)
    assert type(parse_line('{"event":"begin","time":1}')) is Begin
    stage = parse_line('{"event":"stage","name":"merge","time":1}')
    assert isinstance(stage, Stage)
    assert stage.name is JobStage.merge


def test_a_missing_optional_is_none_as_in_the_reference() -> None:
    assert parse_line('{"event":"begin","time":1}') == Begin(time=1.0, max_steps=None)
    assert parse_line('{"event":"begin","time":1,"max_steps":null}') == Begin(
        time=1.0, max_steps=None
    )


def test_error_has_category_message_path_and_column() -> None:
    with pytest.raises(ParseError) as caught:
        parse_line('{"event":"log","time":1,"step":3.0}')
    error = caught.value
    assert (error.category, error.path) == ("data", "$.step")
    assert "expected u64" in error.message
    assert error.column is not None
    assert isinstance(error, ValueError)


def test_invalid_utf8_is_a_syntax_error() -> None:
    with pytest.raises(ParseError) as caught:
        parse_line(b'{"event":"end","time":1,"step":2,"x":"\xff"}')
    assert caught.value.category == "syntax"


def test_lone_surrogate_in_a_python_str_is_a_syntax_error() -> None:
    with pytest.raises(ParseError) as caught:
        parse_line('{"event":"end","time":1,"step":2,"x":"\ud800"}')
    assert caught.value.category == "syntax"


def test_other_input_types_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_line(3)  # type: ignore[arg-type]


def test_u64_bounds() -> None:
    assert parse_line('{"event":"end","time":1,"step":18446744073709551615}') == End(
        time=1.0, step=18446744073709551615
    )
    with pytest.raises(ParseError, match="expected u64"):
        parse_line('{"event":"end","time":1,"step":18446744073709551616}')


def test_deep_nesting_in_an_unknown_field_hits_the_recursion_limit() -> None:
    ok = '{"event":"end","time":1,"step":2,"x":' + "[" * 126 + "]" * 126 + "}"
    assert parse_line(ok) == End(time=1.0, step=2)
    deep = '{"event":"end","time":1,"step":2,"x":' + "[" * 127 + "]" * 127 + "}"
    with pytest.raises(ParseError) as caught:
        parse_line(deep)
    assert (caught.value.category, caught.value.message) == ("syntax", "recursion limit exceeded")


def test_huge_inputs_do_not_escape() -> None:
    with pytest.raises(ParseError) as caught:
        parse_line('{"event":"end","time":' + "9" * 10000 + ',"step":2}')
    assert caught.value.category == "syntax"  # number out of range
    # unknown fields are parsed in full: a long integer is read as f64, in range or not
    assert parse_line('{"event":"end","time":1,"step":2,"x":' + "1" * 300 + "}") == End(
        time=1.0, step=2
    )
    with pytest.raises(ParseError, match="number out of range"):
        parse_line('{"event":"end","time":1,"step":2,"x":' + "1" * 400 + "}")


FULL_LINES = [
    LOG,
    '{"event":"begin","time":1.5,"max_steps":12}',
    '{"event":"stage","name":"train","time":1764467476}',
    '{"event":"eval","time":1.5,"step":3,"total":40}',
    '{"event":"end","time":1.5,"step":3}',
]


@pytest.mark.parametrize("line", FULL_LINES)
def test_whole_lines_take_the_fast_path_and_odd_ones_the_exact_path(
    line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every field written once, as the plugin writes it: msgspec's value is vouched for and
    the exact path never runs (the speed of `nox -s bench`). A duplicate key, or a field left
    out, goes to the exact path."""
    exact = parse_line.__globals__["parse_exact"]
    calls: list[str | bytes] = []

    def spy(text: str | bytes) -> object:
        calls.append(text)
        return exact(text)

    monkeypatch.setitem(parse_line.__globals__, "parse_exact", spy)
    assert parse_line(line) == parse_line(line.encode()) == exact(line)
    assert calls == []
    duplicated = line[:-1] + ',"time":2.5}'
    with pytest.raises(ParseError, match="duplicate field `time`"):
        parse_line(duplicated)
    shorter = line.replace('"time":1.5,', "").replace(',"time":1.5', "")
    shorter = shorter.replace('"time":1764467476,', "").replace(',"time":1764467476', "")
    with pytest.raises(ParseError, match="missing field `time`"):
        parse_line(shorter)
    assert calls == [duplicated, shorter]


OTHER_WRITERS = [
    # optional keys left out, keys in another order, white space, zeros, ints for floats
    '{"time": 1764467476.25, "event": "log", "step": 0, "loss": 0.5, "learning_rate": 0.0}',
    '{"event":"log","time":1,"step":12,"epoch":0,"max_steps":0,"grad_norm":2e-05}',
    '\t{ "step" : 3 , "event" : "eval" , "time" : 1.5 }\r\n',
    '{"event":"begin","time":0.0}',
    # extra unknown keys of every kind of value
    '{"event":"log","time":1.5,"step":3,"loss":1.25,"tokens_per_second":4494.9}',
    '{"event":"end","time":2,"step":7,"host":"node-1","ok":true,"gpu":null,"n":-0}',
    '{"event":"end","time":2,"step":7,"sizes":[1,2.5e-3,"x"],"cfg":{"lr":1e-4,"a":[{}]}}',
    '{"event":"stage","name":"train","time":1,"note":"say \\"hi\\"","u":"\\u00e9"}',
]


@pytest.mark.parametrize("line", OTHER_WRITERS)
def test_valid_lines_of_other_writers_take_the_fast_path(
    line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every valid line a writer of the contract may produce is vouched for without the
    exact path, and reads as the exact path reads it (absent optional fields None)."""
    exact = parse_line.__globals__["parse_exact"]
    calls: list[str | bytes] = []
    monkeypatch.setitem(parse_line.__globals__, "parse_exact", calls.append)
    assert parse_line(line) == parse_line(line.encode()) == exact(line)
    assert calls == []
