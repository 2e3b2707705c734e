"""`runs.clock`: the ETA counted down and the stale-ETA rule, and the core's words for them
(`_core.format_*`): the last line's age, a duration, tqdm's text.

Expected values reasoned from the rule in the module's docstring, with `now` given."""

from __future__ import annotations

import pytest
from overbrainer_contract import Log, _core
from overbrainer_contract.reader import Pace, parse_line
from overbrainer_contract.runs import clock


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.4, "0 s"),
        (25.0, "25 s"),
        (59.9, "59 s"),
        (60.0, "1 min"),
        (12 * 60 + 59, "12 min"),
        (30 * 3600 + 5, "30 h"),
        (86400 * 3 + 10, "3 days"),
        (86400.0, "24 h"),
        (47 * 3600 + 3599, "47 h"),
        (2 * 86400.0, "2 days"),
    ],
)
def test_ago_takes_the_largest_unit_that_fits(seconds: float, text: str) -> None:
    assert _core.format_ago(seconds) == text


def _pace(points: list[tuple[float, int]], max_steps: int) -> Pace:
    pace = Pace()
    for time, step in points:
        log = parse_line(
            f'{{"event":"log","time":{time},"step":{step},"max_steps":{max_steps},"loss":1.0}}'
        )
        assert isinstance(log, Log)
        pace.add(log)
    return pace


def test_the_eta_counts_down_from_the_log_it_was_measured_at() -> None:
    # 10 steps in 20 s: 2 s a step; 90 steps left: 180 s, measured at t=120
    pace = _pace([(100.0, 10), (120.0, 20)], max_steps=110)
    eta = pace.eta_seconds()
    assert eta == 180.0
    shown = clock.estimate(eta, 90, measured_at=120.0, last_time=120.0, at=145.0)
    assert (shown.remaining, shown.stale, shown.step_seconds) == (155.0, False, 2.0)
    assert shown.remaining is not None
    assert shown.step_seconds is not None
    assert _core.format_duration(shown.remaining) == "0:02:35"
    assert _core.format_clock(shown.remaining) == "02:35"
    assert _core.format_rate(1.0 / shown.step_seconds) == "2.00s/it"
    # past the predicted end (30 s a step, 10 left), not yet stale (25 min): zero, not negative
    late = clock.estimate(300.0, 10, measured_at=0.0, last_time=0.0, at=301.0)
    assert (late.remaining, late.stale) == (0.0, False)


def test_an_eta_is_stale_after_fifty_steps_of_silence_never_under_the_floor() -> None:
    # 2 s a step: 50 steps are 100 s, under the floor (120 s): the floor decides
    assert clock.stale_after(2.0) == clock.STALE_FLOOR == 120.0
    fresh = clock.estimate(180.0, 90, 120.0, 120.0, at=120.0 + 120.0)
    stale = clock.estimate(180.0, 90, 120.0, 120.0, at=120.0 + 120.5)
    assert (fresh.stale, stale.stale) == (False, True)
    assert stale.remaining is None
    # 30 s a step: 50 steps are 25 min
    assert clock.stale_after(30.0) == 1500.0
    assert not clock.estimate(30.0 * 10, 10, 0.0, 0.0, at=1500.0).stale
    assert clock.estimate(30.0 * 10, 10, 0.0, 0.0, at=1501.0).stale


def test_the_issues_stalled_run_is_stale() -> None:
    # `eta 0:00:08`, the last line 30 h old: stale, whatever the pace
    shown = clock.estimate(8.0, 80, 0.0, 0.0, at=30 * 3600.0)
    assert shown.stale


def test_without_a_pace_the_floor_alone_decides() -> None:
    assert clock.step_seconds(None, 10) is None
    assert clock.step_seconds(0.0, 0) is None  # no step left: the ETA says nothing of the pace
    assert clock.estimate(None, None, None, 0.0, at=121.0).stale
    assert not clock.estimate(None, None, None, 0.0, at=119.0).stale
    assert clock.estimate(None, None, None, None, at=1e9) == clock.Estimate(None, False, None, None)
    assert clock.estimate(None, None, None, 0.0, at=1.0).remaining is None


@pytest.mark.parametrize(
    ("rate", "text"), [(3.2149, "3.21it/s"), (0.25, "4.00s/it"), (None, "?it/s"), (0.0, "?it/s")]
)
def test_rate_text_as_tqdm(rate: float | None, text: str) -> None:
    assert _core.format_rate(rate) == text


def test_hms_as_tqdm() -> None:
    assert _core.format_clock(83) == "01:23"
    assert _core.format_clock(3600 + 62) == "1:01:02"
    assert _core.format_duration(8) == "0:00:08"
