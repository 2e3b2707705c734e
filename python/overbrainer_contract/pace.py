"""`Pace`: steps per second and the time left, as the reference computes them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import timedelta
from fractions import Fraction

from overbrainer_contract_models.metrics_line_schema import Log

U32_MAX = 4294967295
NANOS_PER_SEC = 1_000_000_000


def _float(count: int) -> float:
    """`count` as a float, saturating at `u32::MAX` (the reference's `float`)."""
    return float(min(count, U32_MAX))


def duration_from_secs(secs: float) -> tuple[int, int] | None:
    """`Duration::try_from_secs_f64`: (seconds, nanoseconds), or None where it fails.

    Fails on a negative value, NaN, infinity and anything of 2**64 seconds or
    more; otherwise the exact value of the float rounded to the nearest
    nanosecond, ties to even.
    """
    if math.isnan(secs) or secs < 0 or secs >= 2.0**64:
        return None
    nanos = round(Fraction(secs) * NANOS_PER_SEC)  # Fraction rounds half to even
    return divmod(nanos, NANOS_PER_SEC)


class Pace:
    """The pace of a training, from its logs in order: steps per second between
    the first and the latest training log (the ones with a loss), on the plugin's
    own clock, and the time left at that pace."""

    __slots__ = ("_first", "_last", "_max_steps", "_step")

    def __init__(self) -> None:
        self._first: tuple[int, float] | None = None
        self._last: tuple[int, float] | None = None
        self._step = 0
        self._max_steps: int | None = None

    def add(self, metric: Log) -> None:
        """Take the next log `metric` into account."""
        self._step = metric.step
        if isinstance(metric.max_steps, int):
            self._max_steps = metric.max_steps
        if isinstance(metric.loss, float):
            point = (metric.step, metric.time)
            if self._first is None:
                self._first = point
            self._last = point

    def add_logs(self, logs: Sequence[Log]) -> None:
        """Take the next logs, in order, into account: what `add` on each in turn does,
        looking only at the last that changes each value (a reader of a block, `watch`)."""
        if not logs:
            return
        self._step = logs[-1].step
        for metric in reversed(logs):
            if isinstance(metric.max_steps, int):
                self._max_steps = metric.max_steps
                break
        if self._first is None:
            for metric in logs:
                if isinstance(metric.loss, float):
                    self._first = (metric.step, metric.time)
                    break
        for metric in reversed(logs):
            if isinstance(metric.loss, float):
                self._last = (metric.step, metric.time)
                break

    @property
    def step(self) -> int:
        """Latest step, of any log."""
        return self._step

    @property
    def max_steps(self) -> int | None:
        """Total steps of the run, as last given."""
        return self._max_steps

    def eta_duration(self) -> tuple[int, int] | None:
        """The reference's `eta()` exactly: (seconds, nanoseconds), or None until two
        training logs apart in steps and time, or without a step count."""
        if self._first is None or self._last is None:
            return None
        (first_step, first_time), (last_step, last_time) = self._first, self._last
        if last_step <= first_step or last_time <= first_time:
            return None
        rate = _float(last_step - first_step) / (last_time - first_time)
        if self._max_steps is None:
            return None
        left = _float(max(self._max_steps - self._step, 0))
        try:
            secs = left / rate
        except ZeroDivisionError:  # IEEE gives NaN or infinity: both refused
            return None
        return duration_from_secs(secs)

    def eta_seconds(self) -> float | None:
        """The time left in seconds (`Duration::as_secs_f64`), or None."""
        duration = self.eta_duration()
        if duration is None:
            return None
        secs, nanos = duration
        return float(secs) + float(nanos) / float(NANOS_PER_SEC)

    def eta(self) -> timedelta | None:
        """The time left as a `timedelta` (to the microsecond), or None.

        A duration beyond `timedelta.max` (about 2.7 million years) is clamped to it;
        `eta_duration` keeps the exact value.
        """
        duration = self.eta_duration()
        if duration is None:
            return None
        secs, nanos = duration
        try:
            return timedelta(seconds=secs, microseconds=nanos / 1000)
        except OverflowError:
            return timedelta.max

    def __repr__(self) -> str:
        return f"Pace(step={self._step}, max_steps={self._max_steps}, eta={self.eta_seconds()})"
