"""Pace and mark beyond the fixtures: the Python-side forms of the reference's values."""

from __future__ import annotations

from datetime import timedelta
from decimal import ROUND_HALF_EVEN, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from overbrainer_contract import (
    Begin,
    End,
    EndMark,
    Eval,
    EvalMark,
    JobStage,
    Log,
    Pace,
    Stage,
    StageMark,
    mark,
)


def log(time: float, step: int, loss: float | None, max_steps: int | None = 400) -> Log:
    return Log(time=time, step=step, max_steps=max_steps, loss=loss)


def test_eta_in_its_three_forms() -> None:
    pace = Pace()
    pace.add(log(100.0, 10, 2.0))
    pace.add(log(150.0, 60, None))
    pace.add(log(200.0, 110, 1.5))
    assert pace.eta_duration() == (290, 0)
    assert pace.eta_seconds() == 290.0
    assert pace.eta() == timedelta(seconds=290)
    assert repr(pace) == "Pace(step=110, max_steps=400, eta=290.0)"


def test_eta_keeps_nanoseconds_and_rounds_to_the_microsecond_in_a_timedelta() -> None:
    pace = Pace()
    pace.add(log(0.0, 0, 1.0, max_steps=10))
    pace.add(log(3.0, 9, 1.0, max_steps=10))  # rate 3 steps/s, one step left: 1/3 s
    assert pace.eta_duration() == (0, 333333333)
    assert pace.eta_seconds() == 0.333333333
    assert pace.eta() == timedelta(microseconds=333333)


def test_a_duration_beyond_timedelta_is_clamped_there() -> None:
    pace = Pace()
    pace.add(log(0.0, 1, 1.0, max_steps=2**40))
    pace.add(log(1e6, 2, 1.0, max_steps=2**40))  # one step per 10^6 s, 4e9 steps left
    duration = pace.eta_duration()
    assert duration is not None
    assert duration[0] > timedelta.max.total_seconds()
    assert pace.eta() == timedelta.max


def eta_of(seconds: float) -> tuple[int, int] | None:
    """The reference's `eta()` for a pace of one step in `seconds`, one step left: the
    duration of `1 / (1 / seconds)` seconds (`Duration::try_from_secs_f64`)."""
    pace = Pace()
    pace.add(log(0.0, 0, 1.0, max_steps=2))
    pace.add(log(seconds, 1, 1.0, max_steps=2))
    return pace.eta_duration()


def try_from_secs_f64(secs: float) -> tuple[int, int] | None:
    """`Duration::try_from_secs_f64(secs).ok()` in Python: the float's exact value to the
    nearest nanosecond, ties to even; None from 2^64 seconds on."""
    if not 0.0 <= secs < 2.0**64:
        return None
    nanos = int((Decimal(secs) * 10**9).to_integral_value(ROUND_HALF_EVEN))
    return divmod(nanos, 10**9)


@pytest.mark.parametrize(
    "seconds",
    [2.7, 0.999e-9, 0.999_999_999_501, 42.999_999_999_499, 2.0**-10, 3 * 2.0**-10, 1e-300],
)
def test_the_duration_follows_try_from_secs_f64(seconds: float) -> None:
    secs = 1.0 / (1.0 / seconds)
    assert eta_of(seconds) == try_from_secs_f64(secs)


def test_the_duration_rounds_to_the_nanosecond_ties_to_even() -> None:
    assert eta_of(2.7) == (2, 700000000)
    assert eta_of(2.0**-10) == (0, 976562)  # a tie: to even
    assert eta_of(3 * 2.0**-10) == (0, 2929688)  # a tie: to even
    assert eta_of(1e20) is None  # 2^64 seconds and more: no duration
    pace = Pace()
    pace.add(log(0.0, 0, 1.0, max_steps=2))
    pace.add(log(1.0, 1, 1.0, max_steps=1))  # no step left
    assert pace.eta_duration() == (0, 0)


@given(st.floats(1e-12, 1e12, allow_nan=False))
def test_any_duration_follows_try_from_secs_f64(seconds: float) -> None:
    assert eta_of(seconds) == try_from_secs_f64(1.0 / (1.0 / seconds))


def test_marks() -> None:
    assert mark(Stage(time=1.0, name=JobStage.train)) == StageMark(JobStage.train)
    assert mark(Eval(time=1.0, step=3, total=None)) == EvalMark(3, None)
    assert mark(Eval(time=1.0, step=340, total=1200)) == EvalMark(340, 1200)
    assert mark(End(time=2.0, step=7206)) == EndMark(7206)
    assert mark(Begin(time=1.0)) is None
    assert mark(log(1.0, 1, 1.0)) is None
    assert [m.kind for m in (StageMark(JobStage.merge), EvalMark(1, 2), EndMark(3))] == [
        "stage",
        "eval",
        "end",
    ]


maybe_float = st.one_of(st.none(), st.floats(0.0, 10.0, allow_nan=False))
runs_of_logs = st.lists(
    st.builds(
        Log,
        time=st.floats(0.0, 1e6, allow_nan=False),
        step=st.integers(0, 100),
        epoch=maybe_float,
        max_steps=st.one_of(st.none(), st.integers(1, 200)),
        loss=maybe_float,
        eval_loss=maybe_float,
        learning_rate=maybe_float,
        grad_norm=maybe_float,
    ),
    max_size=12,
)


def pace_state(pace: Pace) -> tuple[object, ...]:
    return (pace.step, pace.max_steps, pace.eta_duration(), repr(pace))


@given(st.lists(runs_of_logs, max_size=5))
def test_adding_runs_of_logs_is_adding_each(runs: list[list[Log]]) -> None:
    """`Pace.add_logs` of a run of logs at once: the pace `add` of each in turn gives."""
    at_once, each = Pace(), Pace()
    for run in runs:
        at_once.add_logs(run)
        for one in run:
            each.add(one)
        assert pace_state(at_once) == pace_state(each)
