"""overbrainer-contract: the single source of truth for overbrainer's training metrics.

The JSON Schemas in `schema/` define every line of `metrics.jsonl`, the snapshot
files and the contract's constants; the models are generated from them. This
package reads lines exactly as overbrainer's Rust reference (0.8.2) does:

>>> line = parse_line('{"event": "end", "step": 7206, "time": 2.0}')
>>> line
End(time=2.0, step=7206)
>>> mark(line)
EndMark(step=7206, kind='end')
>>> dump_line(line)
'{"event":"end","time":2.0,"step":7206}'
"""

from __future__ import annotations

from .contract import (
    CONTRACT,
    METRICS_ENV,
    METRICS_FILE,
    PLUGIN_CLASS,
    PLUGIN_FILE,
    SNAPSHOT_ENV,
    SNAPSHOT_FILE,
    SNAPSHOT_ON_SIGTERM_ENV,
    SNAPSHOT_REQUEST,
    VERSION,
)
from .dump import dump_line
from .errors import Category, ParseError
from .mark import EndMark, EvalMark, Mark, StageMark, mark
from .models import Begin, End, Eval, JobStage, Log, MetricLine, Snapshot, Stage, TrainMetric
from .pace import Pace
from .parser import parse_line

__version__ = "1.1.0"

__all__ = [
    "CONTRACT",
    "METRICS_ENV",
    "METRICS_FILE",
    "PLUGIN_CLASS",
    "PLUGIN_FILE",
    "SNAPSHOT_ENV",
    "SNAPSHOT_FILE",
    "SNAPSHOT_ON_SIGTERM_ENV",
    "SNAPSHOT_REQUEST",
    "VERSION",
    "Begin",
    "Category",
    "End",
    "EndMark",
    "Eval",
    "EvalMark",
    "JobStage",
    "Log",
    "Mark",
    "MetricLine",
    "Pace",
    "ParseError",
    "Snapshot",
    "Stage",
    "StageMark",
    "TrainMetric",
    "dump_line",
    "mark",
    "parse_line",
]
