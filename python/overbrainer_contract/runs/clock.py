"""Time shown: how long ago a run's last line came, and whether its ETA still holds.

Every line carries `time`, the plugin's clock (seconds since the epoch) when it was
written. From the last line's time and *now* (`time.time()` unless given: every function
takes `now`, so tests and callers that read once share one instant):

- `ago(seconds)` / `last_line_text(last_time, now)`: `"last line 30 h ago"`, for `status`
  and `watch` (`"25 s"`, `"12 min"`, `"30 h"`, `"3 days"`: the largest unit that fits,
  whole numbers, days from two on; a line ahead of this clock says so:
  `"last line 5 s ahead of this clock"`).
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

- `tqdm_text(...)`: `[elapsed<remaining, rate it/s]`, as tqdm shows them (`MM:SS` or
  `H:MM:SS`; `s/it` when a step takes more than a second).

The stdlib, the core (`_core`), and the contract's constants (`contract.constants`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from overbrainer_contract_core import _core

from ..contract.constants import STALE_FLOOR as STALE_FLOOR
from ..contract.constants import STALE_STEPS as STALE_STEPS

_UNITS = ((86400.0, "days"), (3600.0, "h"), (60.0, "min"), (1.0, "s"))
"""Each unit's size; days from two on (`30 h`, then `2 days`), the others from one."""


def now() -> float:
    """The time now, on the same clock as the lines' `time` (seconds since the epoch)."""
    return time.time()


def ago(seconds: float) -> str:
    """A span as people say it: `25 s`, `12 min`, `30 h`, `3 days` (the largest unit that
    fits, rounded down, days from two on; under a second is `0 s`)."""
    if not math.isfinite(seconds):
        return "?"
    seconds = max(seconds, 0.0)
    for size, unit in _UNITS:
        count = int(seconds // size)
        if count >= (2 if unit == "days" else 1):
            return f"{count} {unit}"
    return "0 s"


def last_line_text(last_time: float | None, at: float | None = None) -> str:
    """`last line 30 h ago` from the last line's `time`; `no line yet` without one."""
    if last_time is None:
        return "no line yet"
    at = now() if at is None else at
    silence = at - last_time
    if silence < 0:
        return f"last line {ago(-silence)} ahead of this clock"
    return f"last line {ago(silence)} ago"


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

    @property
    def rate(self) -> float | None:
        """Steps per second at the pace, when known."""
        return None if not self.step_seconds else 1.0 / self.step_seconds

    def text(self) -> str:
        """`eta 0:04:56` (`H:MM:SS`, the count down), `eta stale`, or `eta ?`."""
        if self.stale:
            return "eta stale"
        if self.remaining is None:
            return "eta ?"
        return f"eta {duration(self.remaining)}"


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


def duration(seconds: float) -> str:
    """`H:MM:SS` (days counted in hours), rounded to the second: how `status` and `watch`
    write an ETA."""
    whole = round(max(seconds, 0.0)) if math.isfinite(seconds) else 0
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}"


def hms(seconds: float) -> str:
    """`MM:SS`, or `H:MM:SS` from an hour on (tqdm's `format_interval`)."""
    whole = round(max(seconds, 0.0)) if math.isfinite(seconds) else 0
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes:02}:{secs:02}"


def rate_text(rate: float | None) -> str:
    """`3.21it/s`, or `4.50s/it` when a step takes more than a second (tqdm's way);
    `?it/s` without a pace."""
    if rate is None or not math.isfinite(rate) or rate <= 0:
        return "?it/s"
    if rate < 1.0:
        return f"{1.0 / rate:.2f}s/it"
    return f"{rate:.2f}it/s"


def tqdm_text(elapsed: float | None, estimate: Estimate) -> str:
    """`[elapsed<remaining, rate]` as tqdm shows them: `[01:23<04:56, 3.21it/s]`; `?` for
    what is unknown, `stale` for a stale ETA."""
    if estimate.stale:
        left = "stale"
    else:
        left = "?" if estimate.remaining is None else hms(estimate.remaining)
    shown = "?" if elapsed is None else hms(elapsed)
    return f"[{shown}<{left}, {rate_text(estimate.rate)}]"
