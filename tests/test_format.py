"""The core's numbers (`overbrainer_core::format`) against Python's own formatting: the
reference for every face's numbers is Python's `format` (`.4g`, `.3g`, `,`, `.0%`, `.2f`)
and `round()`, over many values drawn by hypothesis, not the core's code."""

from __future__ import annotations

import math

from hypothesis import example, given
from hypothesis import strategies as st
from overbrainer_contract import _core

floats = st.floats(allow_nan=True, allow_infinity=True)
seconds = st.one_of(
    st.floats(min_value=0.0, max_value=1e7),
    st.floats(min_value=0.0, max_value=1e300),
    st.integers(min_value=0, max_value=10**7).map(lambda whole: whole + 0.5),
)


@given(floats, st.integers(min_value=0, max_value=17))
@example(0.125, 2)
@example(9999.5, 4)
@example(5e-324, 4)
@example(-0.0, 4)
def test_general_is_pythons_g(x: float, precision: int) -> None:
    assert _core.format_general(x, precision) == format(x, f".{precision}g")


@given(st.floats(min_value=-1e22, max_value=1e22), st.integers(min_value=0, max_value=6))
@example(2.675, 2)
@example(0.5, 0)
@example(-0.001, 2)
def test_fixed_is_pythons_f(x: float, decimals: int) -> None:
    assert _core.format_fixed(x, decimals) == format(x, f".{decimals}f")


@given(st.one_of(st.floats(min_value=0.0, max_value=1.0), floats))
@example(0.125)
@example(0.995)
def test_percent_is_pythons(x: float) -> None:
    assert _core.format_percent(x) == format(x, ".0%")


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_thousands_is_pythons(n: int) -> None:
    assert _core.format_thousands(n) == format(n, ",")


def _hms(value: float) -> tuple[int, int, int]:
    whole = round(value)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return hours, minutes, secs


@given(seconds)
def test_durations_round_as_python(value: float) -> None:
    hours, minutes, secs = _hms(value)
    assert _core.format_duration(value) == f"{hours}:{minutes:02}:{secs:02}"
    clock = f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes:02}:{secs:02}"
    assert _core.format_clock(value) == clock


@given(st.floats(min_value=-1e6, max_value=-1e-9))
def test_a_duration_below_zero_is_zero(value: float) -> None:
    assert _core.format_duration(value) == "0:00:00"


_UNITS = ((86400.0, "days"), (3600.0, "h"), (60.0, "min"), (1.0, "s"))


def _ago(value: float) -> str:
    """The rule, in Python: the largest unit that fits (`//`), days from two on."""
    if not math.isfinite(value):
        return "?"
    value = max(value, 0.0)
    for size, unit in _UNITS:
        count = int(value // size)
        if count >= (2 if unit == "days" else 1):
            return f"{count} {unit}"
    return "0 s"


@given(st.one_of(seconds, floats))
@example(86400.0 * 2 - 1e-9)
@example(172800.0)
def test_ago_floors_as_python(value: float) -> None:
    assert _core.format_ago(value) == _ago(value)


@given(st.one_of(st.none(), floats))
def test_rate_as_tqdm(rate: float | None) -> None:
    if rate is None or not math.isfinite(rate) or rate <= 0:
        expected = "?it/s"
    elif rate < 1.0:
        expected = f"{1.0 / rate:.2f}s/it"
    else:
        expected = f"{rate:.2f}it/s"
    assert _core.format_rate(rate) == expected
