"""parse_line on chosen lines: what the fixtures cannot say (Python inputs), and the
error's fields."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from golden_values import contract_only_fields
from overbrainer_contract import Begin, End, Eval, JobStage, Log, ParseError, Stage, parse_line

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
    # the reference's message, and no position: serde_json gives none for a field's type
    assert error.message == "invalid type: floating point `3`, expected u64"
    assert error.column is None
    assert str(error) == error.message
    assert isinstance(error, ValueError)
    with pytest.raises(ParseError) as caught:
        parse_line('{"event":"log","time":1,"step":3x}')
    error = caught.value
    assert (error.category, error.message, error.path) == ("syntax", "expected `,` or `}`", "$")
    assert error.column == 33  # serde_json's own column: the character at fault (1-based)
    assert str(error) == "expected `,` or `}` at column 33"


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
def test_whole_lines_are_read_and_a_key_twice_or_missing_is_a_data_error(line: str) -> None:
    """Every field written once, as the plugin writes it: the line's model. A key written
    twice, or a required one left out, is the reference's data error, without a column."""
    value = parse_line(line)
    assert parse_line(line.encode()) == value
    assert value.time in (1.5, 1764467476.0)
    duplicated = line[:-1] + ',"time":2.5}'
    with pytest.raises(ParseError, match="duplicate field `time`") as caught:
        parse_line(duplicated)
    error = caught.value
    assert (error.category, error.path, error.column) == ("data", "$.time", None)
    shorter = line.replace('"time":1.5,', "").replace(',"time":1.5', "")
    shorter = shorter.replace('"time":1764467476,', "").replace(',"time":1764467476', "")
    with pytest.raises(ParseError, match="missing field `time`") as caught:
        parse_line(shorter)
    assert (caught.value.category, caught.value.column) == ("data", None)
    assert str(caught.value) == "missing field `time`"


CONTRACT_ONLY = contract_only_fields()


def made(model: type[Any], **fields: Any) -> Any:
    """A line's model as the reader gives it: every optional field not given None, but a
    scalar map (`scalars`, `summary`: not nullable) left unset, as its model's default."""
    return model(
        **{
            name: fields.get(name, msgspec.UNSET if name in CONTRACT_ONLY else None)
            for name in model.__struct_fields__
        }
    )


OTHER_WRITERS = [
    # optional keys left out, keys in another order, white space, zeros, ints for floats
    (
        '{"time": 1764467476.25, "event": "log", "step": 0, "loss": 0.5, "learning_rate": 0.0}',
        made(Log, time=1764467476.25, step=0, loss=0.5, learning_rate=0.0),
    ),
    (
        '{"event":"log","time":1,"step":12,"epoch":0,"max_steps":0,"grad_norm":2e-05}',
        made(Log, time=1.0, step=12, epoch=0.0, max_steps=0, grad_norm=2e-05),
    ),
    ('\t{ "step" : 3 , "event" : "eval" , "time" : 1.5 }\r\n', made(Eval, time=1.5, step=3)),
    ('{"event":"begin","time":0.0}', made(Begin, time=0.0)),
    # extra unknown keys of every kind of value
    (
        '{"event":"log","time":1.5,"step":3,"loss":1.25,"tokens_per_second":4494.9}',
        made(Log, time=1.5, step=3, loss=1.25),
    ),
    (
        '{"event":"end","time":2,"step":7,"host":"node-1","ok":true,"gpu":null,"n":-0}',
        made(End, time=2.0, step=7),
    ),
    (
        '{"event":"end","time":2,"step":7,"sizes":[1,2.5e-3,"x"],"cfg":{"lr":1e-4,"a":[{}]}}',
        made(End, time=2.0, step=7),
    ),
    (
        '{"event":"stage","name":"train","time":1,"note":"say \\"hi\\"","u":"\\u00e9"}',
        Stage(time=1.0, name=JobStage.train),
    ),
]


@pytest.mark.parametrize(("line", "expected"), OTHER_WRITERS)
def test_valid_lines_of_other_writers(line: str, expected: object) -> None:
    """Every valid line a writer of the contract may produce reads as its model: absent
    optional fields None, unknown keys dropped."""
    # absent: None, as in the reference (not msgspec's UNSET)
    assert parse_line(line) == parse_line(line.encode()) == expected


# -- a writer's repeated unknown keys, then a line breaking the pattern ----------------

REPEATED = '{"time": %s, "event": "log", "step": %d, "loss": 2.5, "tokens_per_second": %s}'


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # the unknown key written twice: serde ignores both
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1,"tokens_per_second":2}', None),
        # a known key written twice behind an unknown one
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1,"step":3}', "data"),
        # out of serde's range, or beyond what a typed check would bound
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1.7976931348623158e+308}', "syntax"),
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1.79769313486231581e+308}', None),
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1e400}', "syntax"),
        ('{"time":1,"event":"log","step":2,"tokens_per_second":' + "9" * 400 + "}", "syntax"),
        ('{"time":1,"event":"log","step":2,"tokens_per_second":18446744073709551616}', None),
        # another kind of value: a container, a string with escaped quotes, a lone surrogate
        ('{"time":1,"event":"log","step":2,"tokens_per_second":[1,{"a":2}]}', None),
        ('{"time":1,"event":"log","step":2,"tokens_per_second":[1e400]}', "syntax"),
        ('{"time":1,"event":"log","step":2,"tokens_per_second":"say \\"hi\\""}', None),
        ('{"time":1,"event":"log","step":2,"tokens_per_second":"\\ud800"}', "syntax"),
        # another unknown key beside it, a -0 with a zero among the known values
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1,"other":"x"}', None),
        ('{"time":1,"event":"log","step":0,"tokens_per_second":-0}', None),
        ('{"time":1,"event":"log","step":-0,"tokens_per_second":1}', "data"),
    ],
)
def test_lines_breaking_a_writers_repeated_keys_get_the_references_verdict(
    line: str, expected: str | None
) -> None:
    """After lines repeating an unknown key, a line that breaks the pattern gets the
    reference's verdict: a value serde rejects, a key written twice, another kind of value,
    another key. (Expected verdicts reasoned from the reference: an ignored value is read
    by serde_json and range-checked, a duplicate known field is a data error, an ignored
    key may repeat.)"""
    for step in range(3):
        parse_line(REPEATED % ("1.5", step, "5123.4"))
    for text in (line, line.encode()):
        if expected is None:
            value = parse_line(text)
            assert value.__class__ is Log
            assert (value.time, value.loss) == (1.0, None)
        else:
            with pytest.raises(ParseError) as error:
                parse_line(text)
            assert error.value.category == expected
