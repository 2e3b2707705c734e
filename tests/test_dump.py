"""dump_line writes what serde_json writes: ryu's float format, compact, every field."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from overbrainer_contract import Begin, End, Eval, JobStage, Log, Stage, dump_line

END = '{"event":"end","time":'


def format_f64(value: float) -> str:
    """The text `dump_line` writes for the float `value` (an `end` line's time)."""
    text = dump_line(End(time=value, step=1))
    assert text.startswith(END), text
    assert text.endswith(',"step":1}'), text
    return text[len(END) : -len(',"step":1}')]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (100.0, "100.0"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (1e15, "1000000000000000.0"),  # kk = 16: still written out
        (1e16, "1e16"),  # kk = 17: exponent form
        (1.5e16, "1.5e16"),
        (123456789.125, "123456789.125"),
        (1e-4, "0.0001"),
        (1e-5, "0.00001"),  # kk = -4: the last written out
        (1e-6, "1e-6"),
        (1.5e-5, "0.000015"),
        (2.5e-6, "2.5e-6"),
        (1.9999999999999998e-05, "0.000019999999999999998"),
        (1.5e300, "1.5e300"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (-2.5, "-2.5"),
        (-1e-7, "-1e-7"),
        (1700000000.0, "1700000000.0"),
    ],
)
def test_floats_are_written_as_ryu_writes_them(value: float, text: str) -> None:
    assert format_f64(value) == text


def test_non_finite_floats_are_null_as_serde_json_writes_them() -> None:
    assert format_f64(math.inf) == format_f64(-math.inf) == format_f64(math.nan) == "null"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_float_reads_back_exactly(value: float) -> None:
    text = format_f64(value)
    assert float(text) == value
    assert math.copysign(1, float(text)) == math.copysign(1, value)
    assert "+" not in text


def test_every_variant_has_its_canonical_form() -> None:
    assert dump_line(Begin(time=1.0, max_steps=40)) == '{"event":"begin","time":1.0,"max_steps":40}'
    assert dump_line(Begin(time=1.0)) == '{"event":"begin","time":1.0,"max_steps":null}'
    assert dump_line(Log(time=1.5, step=3, loss=1.2)) == (
        '{"event":"log","time":1.5,"step":3,"epoch":null,"max_steps":null,"loss":1.2,'
        '"eval_loss":null,"learning_rate":null,"grad_norm":null}'
    )
    assert dump_line(Stage(time=1.0, name=JobStage.compare)) == (
        '{"event":"stage","time":1.0,"name":"compare"}'
    )
    assert dump_line(Eval(time=1.5, step=3, total=None)) == (
        '{"event":"eval","time":1.5,"step":3,"total":null}'
    )
    assert dump_line(End(time=2.0, step=7206)) == '{"event":"end","time":2.0,"step":7206}'
