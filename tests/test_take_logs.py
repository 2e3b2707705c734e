"""`RunState.take_logs` and `Pace.add_logs`, a run of logs taken at once (`watch` on a
block decoded whole), against `take` and `add` on each log in turn: the same state."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from overbrainer_contract.contract.models import Log
from overbrainer_contract.reader import EvalMark, Pace
from overbrainer_contract.runs.state import RunState

maybe_float = st.one_of(st.none(), st.floats(0.0, 10.0, allow_nan=False))
logs = st.lists(
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


def pace_state(pace: Pace) -> tuple[Any, ...]:
    return (pace.step, pace.max_steps, pace.eta_duration(), repr(pace))


def run_state(state: RunState) -> tuple[Any, ...]:
    return (
        state.last_time,
        state.loss_log,
        state.eval_log,
        state.rate_log,
        state.evaluation,
        pace_state(state.pace),
    )


@given(st.lists(logs, max_size=5))
def test_adding_runs_of_logs_is_adding_each(runs: list[list[Log]]) -> None:
    at_once, each = Pace(), Pace()
    for run in runs:
        at_once.add_logs(run)
        for log in run:
            each.add(log)
        assert pace_state(at_once) == pace_state(each)


@given(st.lists(logs, max_size=5), st.booleans())
def test_taking_runs_of_logs_is_taking_each(runs: list[list[Log]], evaluating: bool) -> None:
    at_once, each = RunState(), RunState()
    if evaluating:  # an evaluation under way: an eval loss ends it
        at_once.evaluation = each.evaluation = EvalMark(1, 2)
    for run in runs:
        shown = at_once.take_logs(run)
        for log in run:
            each.take(log)
        assert shown == [log for log in run if log.eval_loss is not None]
        assert run_state(at_once) == run_state(each)
        for kept, taken in zip(  # the very logs given, kept: no copy
            (at_once.loss_log, at_once.eval_log, at_once.rate_log),
            (each.loss_log, each.eval_log, each.rate_log),
            strict=True,
        ):
            assert kept is taken
