"""parse_line on chosen lines: what the fixtures cannot say (Python inputs), and the
error's fields."""

from __future__ import annotations

import pytest
from overbrainer_contract import Begin, End, Eval, JobStage, Log, ParseError, Stage, parse_line
from overbrainer_contract import keysets as keysets_module
from overbrainer_contract._serde import parse_exact
from overbrainer_contract.keysets import IDLE_LINES, MAX_KEYS, KeySets

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


# -- a writer's repeated unknown keys (keysets) --------------------------------------

REPEATED = '{"time": %s, "event": "log", "step": %d, "loss": 2.5, "tokens_per_second": %s}'


def _fresh_keysets() -> KeySets:
    keysets: KeySets = parse_line.__globals__["KEYSETS"]
    keysets.forget()
    return keysets


def test_repeated_unknown_keys_take_one_decode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a line's unknown key is learned, the lines repeating it are decoded once, by
    the variant's specialised Struct: neither the usual path (`PLAIN`, which decodes
    again and lists the keys) nor the exact path runs, and each reads as the exact path
    reads it."""
    keysets = _fresh_keysets()
    first = REPEATED % ("1.5", 1, "5123.4")
    assert parse_line(first) == parse_exact(first)  # the usual path, which learns the key
    assert keysets.keys == {Log: ("tokens_per_second",)}
    calls: list[str | bytes] = []
    for name in ("PLAIN", "parse_exact"):
        monkeypatch.setitem(parse_line.__globals__, name, calls.append)
    lines = [
        REPEATED % (f"{step}.25", step, value)
        for step, value in enumerate(
            ["4000", "3999.5", "-0", "null", "true", '"fast"', "1e300", "-9223372036854775808"]
        )
    ]
    lines.append('{"event":"log","time":2,"step":9}')  # the unknown key absent
    lines.append('{"tokens_per_second":1,"step":9,"event":"log","time":2,"loss":null}')
    for line in lines:
        assert parse_line(line) == parse_line(line.encode()) == parse_exact(line), line
        assert parse_line(line).__class__ is Log
    assert calls == []


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # the unknown key written twice: serde ignores both; the quotes show it
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1,"tokens_per_second":2}', None),
        # a known key written twice behind a learned unknown one
        ('{"time":1,"event":"log","step":2,"tokens_per_second":1,"step":3}', "data"),
        # out of serde's range, or beyond what msgspec's typed check bounds
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
def test_repeated_unknown_keys_that_do_not_vouch_read_as_the_exact_path(
    line: str, expected: str | None
) -> None:
    """A line that the learned Struct cannot vouch for (or that it rejects) gets the
    reference's verdict through the usual path: a value serde rejects, a key written
    twice, another kind of value, another key. (Expected verdicts reasoned from the
    reference: an ignored value is read by serde_json and range-checked, a duplicate
    known field is a data error, an ignored key may repeat.)"""
    _fresh_keysets()
    parse_line(REPEATED % ("1.5", 1, "5123.4"))  # learned
    for text in (line, line.encode()):
        if expected is None:
            assert parse_line(text) == parse_exact(text)
        else:
            with pytest.raises(ParseError) as error:
                parse_line(text)
            assert error.value.category == expected
            with pytest.raises(ParseError):
                parse_exact(text)


def test_learned_keys_are_dropped_when_idle_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant's Struct goes after `IDLE_LINES` lines without its unknown keys (the
    plugin's form reads through the generated model again); at most `MAX_KEYS` keys a
    variant and `MAX_BUILDS` builds a process."""
    keysets = _fresh_keysets()
    plain = parse_line.__globals__["PLAIN_DECODE"]
    parse_line(REPEATED % ("1.5", 1, "5123.4"))
    assert parse_line.__globals__["DECODE"] is not plain
    line = '{"event":"log","time":1,"step":2}'
    for _ in range(IDLE_LINES - 1):
        assert parse_line(line) == parse_exact(line)
    assert keysets.keys == {Log: ("tokens_per_second",)}
    assert parse_line(line) == parse_exact(line)
    assert keysets.keys == {}
    assert parse_line.__globals__["DECODE"] is plain
    for index in range(MAX_KEYS + 3):
        line = f'{{"event":"eval","time":1,"step":2,"key{index}":1}}'
        assert parse_line(line) == parse_exact(line)
    assert keysets.keys[Eval] == tuple(f"key{index}" for index in range(MAX_KEYS))
    monkeypatch.setattr(keysets_module, "MAX_BUILDS", keysets.builds + 2)
    for index in range(5):
        line = f'{{"event":"end","time":1,"step":2,"key{index}":1}}'
        assert parse_line(line) == parse_exact(line)
    assert keysets.keys[End] == ("key0", "key1")
    _fresh_keysets()
