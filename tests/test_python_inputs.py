"""The Python API at its edges: `parse_lines` takes what `parse_line` takes (a str as well as
bytes), `RunError` is exported."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from overbrainer_contract import ParseError, parse_line, parse_lines

LINES = [
    '{"event":"end","time":1.5,"step":7}',
    '{"event":"log","time":1,"step":2,"loss":0.25}',
    '{"event":"stage","name":"deploy","time":1}',
    "not json",
    '{"event":"end","time":1,"st',
    "",
]


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, ParseError) or isinstance(right, ParseError):
        return type(left) is type(right) and (
            left.category,
            left.message,
            left.column,
            left.path,
        ) == (right.category, right.message, right.column, right.path)
    return bool(left == right)


def _answer(line: str) -> Any:
    try:
        return parse_line(line)
    except ParseError as error:
        return error


@given(st.lists(st.sampled_from(LINES) | st.text(), max_size=8), st.booleans())
def test_a_str_is_read_as_its_utf8_bytes(lines: list[str], newline_last: bool) -> None:
    body = "\n".join(lines) + ("\n" if newline_last and lines else "")
    from_str, from_bytes = parse_lines(body), parse_lines(body.encode("utf-8"))
    assert len(from_str) == len(from_bytes)
    assert all(_same(a, b) for a, b in zip(from_str, from_bytes, strict=True))


def test_a_line_holding_a_lone_surrogate_is_parse_lines_error_for_that_line_alone() -> None:
    body = LINES[0] + "\n" + '{"event":"end","time":1,"step":\udcff}' + "\n" + LINES[1]
    answers = parse_lines(body)
    expected = [_answer(line) for line in body.split("\n")]
    assert len(answers) == 3
    assert all(_same(a, b) for a, b in zip(answers, expected, strict=True))
    assert isinstance(answers[1], ParseError)
    assert answers[1].message == "not UTF-8: a lone surrogate code point"
    assert answers[1].column == 32  # the surrogate's column, counted from 1


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_like_bodies_are_read_alike(kind: Any) -> None:
    body = ("\n".join(LINES) + "\n").encode()
    assert all(_same(a, b) for a, b in zip(parse_lines(kind(body)), parse_lines(body), strict=True))


def test_another_type_is_a_type_error_naming_what_it_takes() -> None:
    with pytest.raises(TypeError, match=r"parse_lines takes bytes or str, not int"):
        parse_lines(3)  # type: ignore[arg-type]


def test_run_error_is_the_package_s_own_name_for_a_run_that_cannot_be_read(
    tmp_path: Any,
) -> None:
    import overbrainer_contract as oc

    assert "RunError" in oc.__all__
    with pytest.raises(oc.RunError, match="no such file or folder"):
        oc.read_run(tmp_path / "nowhere")
