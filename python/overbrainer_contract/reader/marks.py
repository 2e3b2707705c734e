"""The marks: what a stage, evaluation or end line says of a job's progress (`mark` gives
them; the reference's `Mark`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from .._models.job_stage_schema import JobStage


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
