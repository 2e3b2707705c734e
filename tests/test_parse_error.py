"""`ParseError` keeps what it was made with where `BaseException` keeps it and formats its
text only when asked: every reading gives what an eagerly built error would give."""

from __future__ import annotations

import copy
import pickle

import pytest
from overbrainer_contract import ParseError, parse_line


def test_fields_and_text_are_those_it_was_made_with() -> None:
    error = ParseError("eof", "EOF while parsing an object", "$", 104)
    assert (error.category, error.message, error.path, error.column) == (
        "eof",
        "EOF while parsing an object",
        "$",
        104,
    )
    assert str(error) == "EOF while parsing an object at column 104"
    assert error.args == ("EOF while parsing an object at column 104",)
    assert repr(error) == (
        "ParseError(category='eof', message='EOF while parsing an object', path='$', column=104)"
    )
    assert isinstance(error, ValueError)


def test_path_and_column_may_be_left_out() -> None:
    error = ParseError("syntax", "invalid UTF-8")
    assert (error.path, error.column) == (None, None)
    assert str(error) == "invalid UTF-8"
    assert str(ParseError("syntax", "invalid UTF-8", None, None)) == "invalid UTF-8"


def test_assigned_args_are_kept_as_value_error_keeps_them() -> None:
    error = ParseError("data", "missing field `event`", "$", 20)
    error.args = ("replaced",)
    assert (str(error), error.args) == ("replaced", ("replaced",))
    error.args = ("a", 1)
    assert str(error) == "('a', 1)"
    error.args = ()
    assert str(error) == ""
    assert error.message == "missing field `event`"  # the fields stay as made


@pytest.mark.parametrize("assigned", [False, True])
def test_pickled_and_copied_as_made(assigned: bool) -> None:
    error = ParseError("data", "duplicate field `time`", "$.time", 217)
    if assigned:
        error.args = ("told otherwise",)
    for again in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
        assert repr(again) == repr(error)
        assert (str(again), again.args) == (str(error), error.args)


def test_a_raised_error_reads_as_the_reference_answers() -> None:
    with pytest.raises(ParseError) as caught:
        parse_line(b'{"event":"log","time":1764467476.7,"step":2,"loss":3')
    error = caught.value
    assert (error.category, error.message, error.path, error.column) == (
        "eof",
        "EOF while parsing an object",
        "$",
        52,  # serde_json's own column: the line's last character, of 52
    )
    assert str(error) == "EOF while parsing an object at column 52"


def test_a_raised_error_pickles_and_copies_with_its_path() -> None:
    with pytest.raises(ParseError) as caught:
        parse_line('{"event":"log","time":"soon","step":2}')
    error = caught.value
    assert error.path == "$.time"  # located when read, in the line parse_line kept
    for again in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
        assert repr(again) == repr(error)
        assert again.path == "$.time"


def test_the_path_is_that_of_the_line_as_it_was_read() -> None:
    # A bytearray changed after parse_line raised: the path is located in the line it read.
    line = bytearray(b'{"event":"log","time":1.5,"step":-3}')
    with pytest.raises(ParseError) as caught:
        parse_line(line)
    line[:] = b'{"event":"log","time":"x","step":3}'
    assert caught.value.path == "$.step"
    view = bytearray(b'{"event":"stage","name":"fly","time":1}')
    with pytest.raises(ParseError) as caught:
        parse_line(memoryview(view))
    view[:] = b"[" + b" " * (len(view) - 1)
    assert caught.value.path == "$.name"
