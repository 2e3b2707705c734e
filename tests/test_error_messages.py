"""What a person reads when a line is rejected: message, category, path, column.
Rendered with syrupy: a change of wording shows in review."""

from __future__ import annotations

import pytest
from overbrainer_contract import ParseError, parse_line
from syrupy.assertion import SnapshotAssertion

BAD_LINES = {
    "empty": "",
    "not json": "not json",
    "unknown event": '{"event": "other"}',
    "unknown stage": '{"event": "stage", "name": "deploy", "time": 1}',
    "float for an integer": '{"event":"end","time":1,"step":3.0}',
    "minus zero for an integer": '{"event":"end","time":1,"step":-0}',
    "negative integer": '{"event":"end","time":1,"step":-1}',
    "beyond u64": '{"event":"end","time":1,"step":18446744073709551616}',
    "string for a float": '{"event":"end","time":"1","step":2}',
    "null for a required field": '{"event":"end","time":null,"step":2}',
    "missing field": '{"event":"end","time":1}',
    "missing tag": '{"time":1,"step":2}',
    "duplicate field": '{"event":"end","time":1,"step":2,"step":3}',
    "duplicate tag": '{"event":"end","event":"end","time":1,"step":2}',
    "tag not a string": '{"event":1,"time":1,"step":2}',
    "truncated": '{"event":"log","time":1764467476.12,"step":12,"loss":1.',
    "truncated string": '{"event":"log","time":1,"step":2,"x":"ab',
    "trailing characters": '{"event":"end","time":1,"step":2} x',
    "trailing comma": '{"event":"end","time":1,"step":2,}',
    "NaN": '{"event":"log","time":1,"step":2,"loss":NaN}',
    "out of range": '{"event":"log","time":1,"step":2,"loss":1e400}',
    "control character": '{"event":"end","time":1,"step":2,"x":"\x01"}',
    "lone surrogate": '{"event":"end","time":1,"step":2,"x":"\\ud800"}',
    "top-level null": "null",
    "array too long": '["end", 1.0, 2, 3]',
}


@pytest.mark.parametrize("name", list(BAD_LINES))
def test_error_rendering(name: str, snapshot: SnapshotAssertion) -> None:
    with pytest.raises(ParseError) as caught:
        parse_line(BAD_LINES[name])
    error = caught.value
    rendered = {
        "category": error.category,
        "message": error.message,
        "path": error.path,
        "column": error.column,
        "str": str(error),
    }
    assert rendered == snapshot
