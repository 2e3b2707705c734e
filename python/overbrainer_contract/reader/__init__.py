"""The reader: lines of `metrics.jsonl` read by the reader core, exactly as the reference does.

The core (`_core`, Rust: `core/` in the repository) holds the contract's types generated from
`schema/`, read by serde_json 1.0.87 itself, the reference's `Pace`, `mark` and `dump_line`.
This module binds it to the package's Python classes (the generated models, `ParseError`, the
marks) and exports it; nothing in Python reads JSON. Whole files go through the core too:
`CheckScan`, `TableScan`, `StatusScan` and `WatchScan` are fed a file's chunks and give back
only what a command shows (`check`'s facts, a table's columns, a run's status report, the
events of a run followed live); `LineScan` gives back every line (`iter_lines`).
"""

from __future__ import annotations

from datetime import timedelta

from msgspec import UNSET

from .. import _core
from .._models import job_stage_schema, metrics_line_schema
from .._models.check_report_schema import (
    Category as FindingCategory,
)
from .._models.check_report_schema import (
    EventCounts,
    FileKind,
    ReportFile,
    ReportFinding,
    Severity,
)
from .errors import Category, ParseError
from .marks import EndMark, EvalMark, Mark, StageMark

_core.bind(
    metrics_line_schema,
    job_stage_schema.JobStage,
    ParseError,
    (StageMark, EvalMark, EndMark),
    timedelta,
    UNSET,
)
# The records the scans make (`check`'s findings and files): bound here, with the lines, so
# that every scan of the core is ready once the reader is imported, whichever room uses it.
_core.bind_reports((ReportFinding, ReportFile, EventCounts), (Severity, FindingCategory, FileKind))

from .._core import FIELD_NAMES as FIELD_NAMES  # noqa: E402
from .._core import LEFT_OUT as LEFT_OUT  # noqa: E402
from .._core import SKIP_LIMIT as SKIP_LIMIT  # noqa: E402
from .._core import TAGS as TAGS  # noqa: E402
from .._core import (  # noqa: E402
    CheckScan,
    EvaluationEnded,
    EvaluationResult,
    EvaluationStarted,
    LineOver,
    LineRejected,
    LineScan,
    Pace,
    StageStarted,
    StateScan,
    StatusScan,
    TableScan,
    TrainingBegan,
    TrainingEnded,
    WatchScan,
    dump_line,
    mark,
    parse_line,
    parse_lines,
)

__all__ = [
    "Category",
    "CheckScan",
    "EndMark",
    "EvalMark",
    "EvaluationEnded",
    "EvaluationResult",
    "EvaluationStarted",
    "LineOver",
    "LineRejected",
    "LineScan",
    "Mark",
    "Pace",
    "ParseError",
    "StageMark",
    "StageStarted",
    "StateScan",
    "StatusScan",
    "TableScan",
    "TrainingBegan",
    "TrainingEnded",
    "WatchScan",
    "dump_line",
    "mark",
    "parse_line",
    "parse_lines",
]
