"""The reader core's Python binding (Rust, PyO3): what `overbrainer_contract.reader` exports."""

from collections.abc import Iterable
from datetime import timedelta
from types import ModuleType
from typing import Any

from overbrainer_contract.reader.marks import Mark
from overbrainer_contract_models.metrics_line_schema import Begin, End, Eval, Log, Stage

_Line = Begin | Log | Stage | Eval | End

TAGS: tuple[str, ...]
"""Each variant's tag, in the core's order."""

def bind(
    models: ModuleType,
    job_stage: type[Any],
    parse_error: type[Exception],
    marks: tuple[type[Any], type[Any], type[Any]],
    timedelta: type[timedelta],
    unset: object,
) -> None:
    """Hand the core the classes it builds (once, at import)."""

def parse_line(line: str | bytes | bytearray | memoryview) -> _Line:
    """Parse one line of `metrics.jsonl` as the reference's `parse_line` does.

    Returns the generated model of the line (`Begin`, `Log`, `Stage`, `Eval`, `End`); a
    missing optional field is `None`, as in the reference. Raises `ParseError` (and nothing
    else, for a str or bytes) for any line the reference rejects, with the reference's
    category, message and position, and the JSON path of the value at fault. White space
    around the value (a trailing newline included) is accepted. Bytes must be UTF-8.
    """

def parse_lines(body: str | bytes | bytearray | memoryview) -> list[Any]:
    """Each line of `body` (split on newlines; a last line without one included) as its model
    or as its `ParseError`, made and not raised: one call for a whole block. A str is read
    as its UTF-8 bytes; a line of it holding a lone surrogate is the error `parse_line` gives."""

def dump_line(line: _Line) -> str:
    """The canonical JSON of a parsed line, as the reference's `serde_json::to_string`
    writes it: `event` first, then every field in declaration order, `null` for a missing
    optional, compact, floats by ryu's shortest form. It parses back to the same line wherever
    the reference's own float reading is exact (a float of at most 15 significant digits); a
    longer one may read back one float away, as it would in the reference."""

def mark(line: _Line) -> Mark | None:
    """The mark of a stage, evaluation or end line, without its time; `None` for `begin`
    and `log` lines (the reference's `MetricLine::mark`)."""

class Pace:
    """The pace of a training, from its logs in order: steps per second between the first
    and the latest training log (the ones with a loss), on the plugin's own clock, and the
    time left at that pace (the reference's `Pace`)."""

    def __init__(self) -> None: ...
    def add(self, metric: Log) -> None:
        """Take the next log `metric` into account."""
    def add_logs(self, logs: Iterable[Log]) -> None:
        """Take the next logs, in order, into account: what `add` on each in turn does."""
    @property
    def step(self) -> int:
        """Latest step, of any log."""
    @property
    def max_steps(self) -> int | None:
        """Total steps of the run, as last given."""
    def eta_duration(self) -> tuple[int, int] | None:
        """The reference's `eta()` exactly: (seconds, nanoseconds), or None."""
    def eta_seconds(self) -> float | None:
        """The time left in seconds (`Duration::as_secs_f64`), or None."""
    def eta(self) -> timedelta | None:
        """The time left as a `timedelta` (to the microsecond), clamped to `timedelta.max`."""
    def __copy__(self) -> Pace: ...
    def __deepcopy__(self, memo: object) -> Pace: ...

FIELD_NAMES: tuple[str, ...]
"""The table's fields, in the order of `TableScan`'s columns (every field of any variant)."""
LEFT_OUT: tuple[str, ...]
"""The categories of the lines a table leaves out, in the order of `TableScan.left_out`."""
SKIP_LIMIT: int
"""The most bytes of one line skipped (known invalid, or over `max_line`) before the reading
stops within it."""

CheckFact = tuple[Any, ...]
"""`("rejected", line, path | None, category, text, column | None)` (`text`: what `str` of the
line's `ParseError` gives), `("over", line, size, complete, limit)`, `("order", line,
tag, "before" | "after")`, `("back", line, step, last_step)`, `("last", line, ParseError |
None)`."""

class CheckScan:
    """The facts `check` reports on a metrics file, read as it is fed (every line of any
    length answered by the core, on every core, without the GIL)."""

    def __init__(self, max_line: int | None = None) -> None: ...
    def feed(self, chunk: bytes) -> list[CheckFact]:
        """The facts of the lines `chunk` completes, in order."""
    def finish(self) -> list[CheckFact]:
        """The facts of the input's last line, when it has no newline."""
    @property
    def lines(self) -> int: ...
    @property
    def counts(self) -> tuple[int, ...]:
        """Lines of each variant, in the order of `TAGS`."""
    @property
    def stopped(self) -> bool: ...

Column = tuple[bytes, bytes | None, int]
"""A column's values, its validity bitmap (None: no null) and its count of nulls."""
TableBatch = tuple[int, bytes, bytes, list[Column]]
"""`(rows, line numbers as u64, variants as i8, the columns of FIELD_NAMES)`."""

class TableScan:
    """A metrics file's table in Arrow's layout, read as it is fed."""

    def __init__(self, batch_lines: int, max_line: int | None = None) -> None: ...
    def feed(self, chunk: bytes) -> list[TableBatch]: ...
    def finish(self) -> list[TableBatch]: ...
    @property
    def lines(self) -> int: ...
    @property
    def left_out(self) -> tuple[int, ...]: ...
    @property
    def first_left_out(self) -> int | None: ...
    @property
    def cut(self) -> bool: ...
    @property
    def stopped(self) -> bool: ...

StateItem = tuple[Any, ...]
"""`("logs", [Log, ...])`, `("line", line, model)`, `("rejected", line, ParseError, complete)`,
`("over", line, size, complete, limit)`."""

class StateScan:
    """The lines a run's state is made of (`status`, `watch`), read as they are fed: of a
    run of logs, those the state depends on; of a run of evaluation lines, the last; every
    other line."""

    def __init__(self, max_line: int | None = None) -> None: ...
    def feed(self, chunk: bytes) -> list[StateItem]: ...
    def finish(self) -> list[StateItem]: ...
    @property
    def lines(self) -> int: ...
    @property
    def stopped(self) -> bool: ...
