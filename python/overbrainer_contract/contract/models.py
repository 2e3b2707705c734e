"""The generated models of the contract, under the names the package exports.

They come from `schema/` through datamodel-code-generator (`_models`, never edited by hand);
this module only gathers them.
"""

from __future__ import annotations

from typing import TypeAlias

from .._models.job_stage_schema import JobStage
from .._models.metrics_line_schema import Begin, End, Eval, Log, Stage
from .._models.snapshot_schema import Snapshot

MetricLine: TypeAlias = Begin | Log | Stage | Eval | End
"""A line of `metrics.jsonl`: the tagged union on `event`."""

TrainMetric: TypeAlias = Log
"""The reference's name for the values of a `log` line."""

__all__ = [
    "Begin",
    "End",
    "Eval",
    "JobStage",
    "Log",
    "MetricLine",
    "Snapshot",
    "Stage",
    "TrainMetric",
]
