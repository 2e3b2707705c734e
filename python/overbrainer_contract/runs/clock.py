"""Time shown: how long ago a run's last line came, and whether its ETA still holds.

Every line carries `time`, the plugin's clock (seconds since the epoch) when it was
written. From the last line's time and *now* (`time.time()` unless given: every function
takes `now`, so tests and callers that read once share one instant):

- `estimate(...)` → `Estimate`: the time left *now* — the pace's ETA (`Pace.eta_seconds`,
  measured at its latest training log) less the time since that log, never below zero, as
  tqdm's remaining time counts down — and whether it is **stale**.

The stale-ETA rule. `Pace` measures the mean time a step takes (`step_seconds`: the time
between its first and latest training logs over the steps between them; derived here from
its ETA and the steps left). A run is expected to write a line at least every few steps
(the plugin logs every `logging_steps`, evaluations write progress lines); it may go
quiet for longer while it saves a checkpoint. The ETA is **stale** when the run has been
silent (no line of any kind) for longer than

    max(STALE_STEPS * step_seconds, STALE_FLOOR)      (STALE_STEPS = 50, STALE_FLOOR = 120 s)

(both the contract's, `stale` in `schema/contract.json`, where the viewer reads them too)

The rule is the core's (`overbrainer_core::status`, generated with the contract's numbers):
`status` reports by it, and `estimate`, `stale_after` and `step_seconds` here ask it.

that is, for the time 50 steps take at its own pace, and never less than two minutes (a
fast run's saves and evaluations are not mistaken for a stall). Without a pace (fewer than
two training logs, or no step left to derive it from), the floor alone decides. A stale
ETA is shown as such (`"eta stale"`), never as a countdown: the pace it came from no
longer describes the run.

How these are said (`last line 30 h ago`, `eta 0:04:56`, `[01:23<04:56, 3.21it/s]`) is the
core's too (`overbrainer_core::view`, `overbrainer_core::format`).

The stdlib, the core (`_core`), and the contract's constants (`contract.constants`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .. import _core
from ..contract.constants import STALE_FLOOR as STALE_FLOOR
from ..contract.constants import STALE_STEPS as STALE_STEPS


def now() -> float:
    """The time now, on the same clock as the lines' `time` (seconds since the epoch)."""
    return time.time()


def stale_after(step_seconds: float | None) -> float:
    """The silence (seconds) after which an ETA is stale: `max(STALE_STEPS *
    step_seconds, STALE_FLOOR)`, the floor alone without a pace (the core's rule)."""
    return _core.stale_after(step_seconds)


@dataclass(frozen=True)
class Estimate:
    """The time left as it stands now."""

    remaining: float | None
    """Seconds left now (the pace's ETA less the time since it was measured, at least 0);
    None without an ETA or when stale."""
    stale: bool
    """Whether the run has been silent for much longer than its pace predicts."""
    silence: float | None
    """Seconds since the last line (None without one)."""
    step_seconds: float | None
    """The pace's mean time a step takes, when it can be told."""


def step_seconds(eta_seconds: float | None, steps_left: int | None) -> float | None:
    """The pace's mean time a step takes, from its ETA and the steps it counts left
    (`Pace.eta` is `steps_left * step_seconds`); None when either is unknown or no step is
    left (the ETA is then 0 whatever the pace; the core's rule)."""
    return _core.step_seconds(eta_seconds, None if steps_left is None else max(steps_left, 0))


def estimate(
    eta_seconds: float | None,
    steps_left: int | None,
    measured_at: float | None,
    last_time: float | None,
    at: float | None = None,
) -> Estimate:
    """The time left now and whether it is stale.

    `eta_seconds`: `Pace.eta_seconds()` (None without one); `steps_left`: max_steps less
    the pace's step; `measured_at`: the `time` of the pace's latest training log (the log
    with a loss: what the ETA is measured from); `last_time`: the `time` of the run's last
    line of any kind; `at`: now (`time.time()` by default). The core's rule, the one
    `status` reports by.
    """
    at = now() if at is None else at
    left = None if steps_left is None else max(steps_left, 0)
    told = _core.estimate(eta_seconds, left, measured_at, last_time, at)
    return Estimate(told.remaining, told.stale, told.silence, told.step_seconds)
