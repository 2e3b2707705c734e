"""`mark`: what a stage, evaluation or end line says of a job's progress."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from overbrainer_contract_models.job_stage_schema import JobStage
from overbrainer_contract_models.metrics_line_schema import End, Eval, Stage

from ._serde import MetricLine


@dataclass(frozen=True, slots=True)
class StageMark:
    """A command of the job starts."""

    stage: JobStage
    kind: Literal["stage"] = "stage"


@dataclass(frozen=True, slots=True)
class EvalMark:
    """Step `step` of an evaluation of `total` steps, when known."""

    step: int
    total: int | None
    kind: Literal["eval"] = "eval"


@dataclass(frozen=True, slots=True)
class EndMark:
    """The training loop ended at `step`."""

    step: int
    kind: Literal["end"] = "end"


Mark: TypeAlias = StageMark | EvalMark | EndMark


def mark(line: MetricLine) -> Mark | None:
    """The mark of a stage, evaluation or end line, without its time; `None` for
    `begin` and `log` lines (the reference's `MetricLine::mark`)."""
    if isinstance(line, Stage):
        return StageMark(line.name)
    if isinstance(line, Eval):
        total = line.total if isinstance(line.total, int) else None
        return EvalMark(line.step, total)
    if isinstance(line, End):
        return EndMark(line.step)
    return None
