"""overbrainer-contract: the single source of truth for overbrainer's training metrics.

The JSON Schemas in `schema/` define every line of `metrics.jsonl`, the snapshot
files and the contract's constants; the models are generated from them. This
package reads lines exactly as overbrainer's Rust reference (0.8.2) does: through the reader
core, the contract's types generated into Rust and read by serde_json itself (`reader`):

>>> line = parse_line('{"event": "end", "step": 7206, "time": 2.0}')
>>> line
End(time=2.0, step=7206)
>>> mark(line)
EndMark(step=7206, kind='end')
>>> dump_line(line)
'{"event":"end","time":2.0,"step":7206}'

A run's files (`read_run`: the state `status` shows, the core's `StatusReport`;
`iter_lines`: its lines, parsed) and many runs as one table (`table.read_runs`, with
pyarrow), loaded on first use:

>>> read_run("examples/tiny-run").phase.value  # doctest: +SKIP
'ended'
>>> table.read_runs("examples/tiny-run").num_rows  # doctest: +SKIP
76
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .reader import (
    Category,
    EndMark,
    EvalMark,
    Mark,
    Pace,
    ParseError,
    StageMark,
    dump_line,
    mark,
    parse_line,
    parse_lines,
)

if TYPE_CHECKING:
    from . import table as table
    from .contract.constants import (
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
    from .contract.models import (
        Begin,
        End,
        Eval,
        JobStage,
        Log,
        MetricLine,
        Snapshot,
        Stage,
        TrainMetric,
    )
    from .runs.state import RunError, iter_lines
    from .runs.status import read_run

__version__ = "2.2.0"

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
    "RunError",
    "Snapshot",
    "Stage",
    "StageMark",
    "TrainMetric",
    "dump_line",
    "iter_lines",
    "mark",
    "parse_line",
    "parse_lines",
    "read_run",
]

# The other names load with their module on first use, so that a command (`check`) pays
# only for the modules it runs: the contract's document is not read for it.
_HOMES = {
    "contract.constants": (
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
    ),
    "contract.models": (
        "Begin",
        "End",
        "Eval",
        "JobStage",
        "Log",
        "MetricLine",
        "Snapshot",
        "Stage",
        "TrainMetric",
    ),
    "runs.state": ("RunError", "iter_lines"),
    "runs.status": ("read_run",),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


_SUBMODULES = ("table",)
"""Submodules that are attributes without an import (`oc.table`): pyarrow loads with
`table` only when it is first used, never with `import overbrainer_contract`."""


def __getattr__(name: str) -> Any:
    """A public name, imported from its module when first asked for (PEP 562)."""
    from importlib import import_module

    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME, *_SUBMODULES})
