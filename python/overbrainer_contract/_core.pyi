"""The reader core's Python binding (Rust, PyO3): what `overbrainer_contract.reader` exports."""

from collections.abc import Callable, Iterable
from datetime import timedelta
from types import ModuleType
from typing import Any

from overbrainer_contract.reader.errors import ParseError
from overbrainer_contract.reader.marks import Mark

from ._models.check_report_schema import ReportFile, ReportFinding
from ._models.job_stage_schema import JobStage
from ._models.metrics_line_schema import Begin, End, Eval, Log, Stage

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
    around the value (a trailing newline included) is accepted. Bytes must be UTF-8. The
    error keeps the line and locates its path when `path` is read (`path_of`).
    """

def path_of(line: str | bytes) -> str | None:
    """The JSON path of the error `parse_line` raises for `line`, as the core writes it;
    `None` where there is none (after the value, or a line it accepts)."""

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

class Pattern:
    """A pattern the core matches, in time linear in the pattern and the text (Rust's `regex`
    crate): a regular expression searched for anywhere in a text, or with `glob` a glob
    (fnmatch's `*`, `?`, `[...]`) matched against the whole of it. A pattern the core refuses
    (its syntax, its size, its nesting) is a ValueError of one line. A text holding lone
    surrogates is matched as its `surrogateescape` bytes."""

    def __init__(self, text: str, glob: bool = False) -> None: ...
    @property
    def pattern(self) -> str:
        """The pattern as given."""
    @property
    def glob(self) -> bool:
        """Whether it is a glob (matched against a whole text)."""
    @property
    def groups(self) -> bool:
        """Whether the expression has a capture group (a group's key is then its first)."""
    def search(self, text: str, /) -> bool:
        """Whether the pattern matches `text` (an expression anywhere in it, a glob the whole)."""
    def key(self, text: str, /) -> str | None:
        """The key of `text`'s group where the pattern matches it: the first capture group's
        text when the expression has one ("" when that group took no part in the match), else
        the whole match; None where it does not match."""

# Names, keys and groups (`overbrainer_core::names`, `overbrainer_core::groups`): one rule
# each for every face. A str holding lone surrogates is read as its `surrogateescape` bytes.
class NaturalKey:
    """The key of a name in the natural order (`sorted(names, key=NaturalKey)`): runs of
    ASCII digits compared as numbers of any length, the rest by code point, a tie (`x01`,
    `x1`) by the text itself."""

    def __init__(self, text: str) -> None: ...
    @property
    def text(self) -> str:
        """The name as given."""
    def __lt__(self, other: NaturalKey) -> bool: ...
    def __le__(self, other: NaturalKey) -> bool: ...
    def __gt__(self, other: NaturalKey) -> bool: ...
    def __ge__(self, other: NaturalKey) -> bool: ...

def run_names(units: list[tuple[str, bool]], /, below: str | None = None) -> list[str]:
    """The names of runs from their units, `(path, placed)`: a placed one its path below the
    folder the placed ones have in common (no deeper than `below`, a folder, when given), one
    not placed as given; alike ones numbered."""

def unit_of(path: str, metrics_names: list[str], /) -> str:
    """A metrics file's folder when it is named one of `metrics_names`, else its path."""

def label_of(text: str, /) -> str:
    """`text` cut to `LABEL_CHARS` characters (the last an ellipsis) when longer."""

def patterns_of(text: str, /) -> list[str]:
    """The globs of a text: split at commas, trimmed, the empty ones dropped."""

def pick_keys(globs: list[str], keys: list[str], /) -> list[str]:
    """The keys the globs pick, in their order, each glob's sorted, each key once."""

def sections(picked: list[str], /) -> list[tuple[str, list[str]]]:
    """The picked keys under their headings (the text before the last `/`), "" first."""

def group_entries(keys: list[str | None], /) -> list[tuple[str | None, list[int]]]:
    """The legend's entries from the runs' group keys, each group at its first run."""

def band(members: list[tuple[bytes, bytes]], /) -> tuple[bytes, bytes, bytes, bytes]:
    """A group's band from its runs' `(steps <u8, values <f8)`: `(steps <u8, mean <f8,
    std <f8, count <u4)` per step, ascending."""

LABEL_CHARS: int
DEFAULT_PATTERNS: str

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

class CheckScan:
    """The check of a metrics file, read as it is fed (every line of any length answered by
    the core, on every core, without the GIL): the findings as the contract's
    `ReportFinding` records, the summary as its `ReportFile` (the models handed over by
    `bind_reports`). `shown`: the most findings of each severity the caller shows (0: all);
    past them a finding is counted in the report, not made."""

    def __init__(self, name: str, max_line: int | None = None, shown: int = 0) -> None: ...
    def feed(
        self,
        chunk: bytes,
        emit: Callable[[ReportFinding], object],
        hint: Callable[[ReportFinding, str], object] | None = None,
    ) -> None:
        """The lines `chunk` completes checked: `emit(finding)` for each, in order, and
        `hint(finding, token)` after one whose error lies on NaN, Infinity or -Infinity."""
    def finish(
        self,
        emit: Callable[[ReportFinding], object],
        hint: Callable[[ReportFinding, str], object] | None = None,
    ) -> None:
        """The input's last line (no newline) and its end checked, as `feed` does."""
    def gzip_data(self, stdin: bool) -> ReportFinding:
        """The one finding of gzip data where lines should be."""
    def gzip_cut(self, size: int) -> None:
        """The input is a gzip stream cut short after `size` bytes: said at `finish`."""
    def report(self) -> ReportFile:
        """The file's summary, every finding counted."""
    @property
    def lines(self) -> int: ...
    @property
    def invalid(self) -> int: ...
    @property
    def cut(self) -> bool: ...
    @property
    def errors(self) -> int: ...
    @property
    def stopped(self) -> bool: ...

def bind_reports(classes: tuple[type, type, type], enums: tuple[type, type, type]) -> None:
    """Hands the core `ReportFinding`, `ReportFile`, `EventCounts` and the enums `Severity`,
    `Category`, `FileKind`."""

def size_text(size: int) -> str: ...
def overlong_text(size: int, complete: bool, limit: int) -> str: ...
def lines_text(invalid: int, cut: bool) -> str: ...
def change_text(change: str, path: str) -> str: ...
def gzip_not_named_text(stdin: bool) -> str: ...
def gzip_cut_text(size: int) -> str: ...

# The words of `status` and `watch` (`overbrainer_core::view`), from a `StatusReport`'s JSON.
def metric_parts(text: str, /) -> tuple[str, str]: ...
def screen(report: bytes, metrics: list[str], /) -> list[tuple[str, str]]: ...
def scalar_text(report: bytes, metric: str, /) -> str: ...
def cells(report: bytes, metrics: list[str], /) -> list[str]: ...
def alerts_cell(alerts: bytes, /) -> str:
    """The words of the table's alerts cell (`spike@77, invalid@3`) for the JSON of a list
    of alerts."""

def headings() -> tuple[list[str], list[str]]: ...
def footer(reports: list[bytes], /) -> str: ...
def progress(
    report: bytes,
    told: tuple[float | None, bool, float | None, float | None, float | None] | None,
    /,
) -> str: ...
def stale_event(report: bytes, /) -> str: ...
def finding_said(message: str, category: str, /) -> str: ...

# Numbers as Python's format specifications write them (`overbrainer_core::format`).
def format_general(x: float, precision: int, /) -> str: ...
def format_fixed(x: float, decimals: int, /) -> str: ...
def format_percent(x: float, /) -> str: ...
def format_thousands(n: int, /) -> str: ...
def format_duration(seconds: float, /) -> str: ...
def format_clock(seconds: float, /) -> str: ...
def format_ago(seconds: float, /) -> str: ...
def format_rate(rate: float | None, /) -> str: ...

# A run folder's side files (`overbrainer_core::side`): the face opens them, the core reads
# their bytes. A side file found: None (absent), str (refused unread, its words) or
# (bytes, mtime in seconds).
SideFound = tuple[bytes, float] | str | None

def side_check(kind: str, file: str, data: bytes, /) -> bytes: ...
def snapshot_state(request: SideFound, proof: SideFound, /) -> bytes: ...
def proof_problems(data: bytes, /) -> list[tuple[str, str]]: ...
def is_word(text: str, /) -> bool: ...

PROOF_LIMIT: int
REQUEST_LIMIT: int
BOM_NOTE: str
SHOWN_DEFAULT: int

Column = tuple[bytes, bytes | None, int]
"""A column's values, its validity bitmap (None: no null) and its count of nulls."""
LongScalars = tuple[bytes, bytes, Column, list[str]]
"""A batch's scalars in long form: `(each entry's row as u32, its key as a u32 index in the
keys, the values as an f64 column, the keys in the order first met)`."""
TableBatch = tuple[int, bytes, bytes, list[Column], LongScalars]
"""`(rows, line numbers as u64, variants as i8, the columns of FIELD_NAMES, the scalars)`."""

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

class LineScan:
    """Every line of a stream, cut by the core as it is fed and answered as `parse_lines`
    answers a body (`iter_lines`), in order; the input's last line when it is cut short (no
    newline, rejected `eof`: a line still being written) is not answered but kept in `cut`."""

    def __init__(self) -> None: ...
    def feed(self, chunk: bytes) -> list[Any]:
        """The models or `ParseError`s of the lines `chunk` completes."""
    def finish(self) -> list[Any]:
        """The input's last line (no newline), answered unless it is cut short."""
    @property
    def lines(self) -> int:
        """Lines read so far, a cut last line included."""
    @property
    def cut(self) -> bytes | None:
        """The input's last line when it is cut short, its bytes."""

class StatusScan:
    """A run's state (`status`), folded by the core as its metrics file is fed, told at a
    time as the contract's `StatusReport` (the JSON serde writes of
    `schema/status-report.schema.json`)."""

    def __init__(
        self,
        max_line: int | None = None,
        digest: int | None = None,
        steps: tuple[int, int] | None = None,
        keys: str | None = None,
    ) -> None:
        """`digest`: each log's metric keys also digested for a plot, in at most that many
        buckets a key; `steps`: `(first, last)`, the logs digested only where their step is
        from `first` to `last` (a plot zoomed in to them); `keys`: the series digested only of
        the keys these comma-separated globs pick (`"loss,rewards/*"`), every other key's
        left out of `digests()`."""
    def feed(self, chunk: bytes) -> None:
        """The lines `chunk` completes, folded in."""
    def finish(self) -> None:
        """The input's last line, when it has no newline, folded in."""
    def gzip_cut(self) -> None:
        """The input was a gzip stream cut short: its lines are those before the cut."""
    def digests(self, keys: list[str] | None = None) -> bytes:
        """The JSON of the logs' series digested (made with `digest`), of `keys` (every key
        when None): `{KEY: {"shift", "count", "points": [[STEP, VALUE, TIME], ...]}}`, each
        value a number, a non-finite value's word or null for a gap, each time its line's; `{}`
        without `digest`."""
    def report(
        self,
        run: str,
        name: str,
        now: float,
        snapshot: bytes | None = None,
        side_valid: bool = True,
    ) -> bytes:
        """The JSON of the run's `StatusReport` at `now`; `snapshot`: the JSON of its
        `SnapshotState` (None without a run folder); `side_valid`: its snapshot files are
        valid."""
    @property
    def lines(self) -> int: ...
    @property
    def invalid(self) -> int: ...
    @property
    def partial(self) -> bool: ...
    @property
    def bom(self) -> bool: ...
    @property
    def stopped(self) -> bool: ...

class Estimate:
    """The time left at a time and whether it holds, by the contract's rule."""

    @property
    def remaining(self) -> float | None: ...
    @property
    def stale(self) -> bool: ...
    @property
    def silence(self) -> float | None: ...
    @property
    def step_seconds(self) -> float | None: ...

def estimate(
    eta_seconds: float | None,
    steps_left: int | None,
    measured_at: float | None,
    last_time: float | None,
    now: float,
    /,
) -> Estimate:
    """The time left at `now` and whether it is stale (the rule `status` reports by)."""

def stale_after(step_seconds: float | None, /) -> float:
    """The silence after which an ETA is stale: `max(steps * step_seconds, floor)`."""

def step_seconds(eta_seconds: float | None, steps_left: int | None, /) -> float | None:
    """The pace's mean time a step takes, from its ETA and the steps left."""

class StageStarted:
    """A stage began; `last`: the job's last stage (the job is done, the lines after it
    unread)."""

    @property
    def line(self) -> int: ...
    @property
    def stage(self) -> JobStage: ...
    @property
    def last(self) -> bool: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

class TrainingBegan:
    """A training began (a `begin` line); `resumed`: after an earlier one, going on from
    `step`, the step the run stood at."""

    @property
    def line(self) -> int: ...
    @property
    def max_steps(self) -> int | None: ...
    @property
    def resumed(self) -> bool: ...
    @property
    def step(self) -> int: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

class EvaluationStarted:
    """An evaluation started (an `eval` line with none under way), at the training's step."""

    @property
    def step(self) -> int: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

class EvaluationEnded:
    """The evaluation under way ended (its result logged, a stage or the training's end), at
    the training's `step`: `done` prediction steps of `total` when known."""

    @property
    def step(self) -> int: ...
    @property
    def done(self) -> int: ...
    @property
    def total(self) -> int | None: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

class EvaluationResult:
    """An evaluation's result: a log with an evaluation loss."""

    @property
    def step(self) -> int: ...
    @property
    def eval_loss(self) -> float: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

class TrainingEnded:
    """The training ended (an `end` line) at `step`."""

    @property
    def line(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

class LineRejected:
    """A line the reference rejects: its `ParseError`."""

    @property
    def line(self) -> int: ...
    @property
    def error(self) -> ParseError: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

class LineOver:
    """A line over the user's bound (`limit` bytes): `size` bytes, so far when not
    `complete`."""

    @property
    def line(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def complete(self) -> bool: ...
    @property
    def limit(self) -> int: ...
    @property
    def words(self) -> str:
        """What `watch` says of it, the core's words (after `PATH:LINE ` for a line)."""

WatchEvent = (
    StageStarted
    | TrainingBegan
    | EvaluationStarted
    | EvaluationEnded
    | EvaluationResult
    | TrainingEnded
    | LineRejected
    | LineOver
)
"""What a line of a followed run is worth telling, in the order of the lines."""

class WatchScan:
    """A run followed as its metrics file grows (`watch`), folded by the core: the events of
    its lines, and its state told at a time as the contract's `StatusReport` (the fold
    `status` reports)."""

    def __init__(self, max_line: int | None = None) -> None: ...
    def feed(self, chunk: bytes) -> list[WatchEvent]:
        """The events of the lines `chunk` completes, in order."""
    def finish(self) -> list[WatchEvent]:
        """The events of the input's last line, when it has no newline."""
    def report(self, run: str, name: str, now: float) -> bytes:
        """The JSON of the run's `StatusReport` at `now` (no snapshot files read)."""
    def alerts(self, now: float) -> bytes:
        """The JSON of the run's `alerts` at `now`, as `report` holds them, without the
        rest of the record (the core's fold kept as the lines came)."""
    def estimate(self, now: float) -> Estimate:
        """The time left at `now` and whether it holds; once ended, nothing left and the
        mean time a step took over the whole training."""
    def elapsed(self, now: float) -> float | None:
        """Seconds the training took (to its `end` line), or has taken until `now`."""
    @property
    def training_over(self) -> bool:
        """Whether the training is over: it ended, or a stage after training began."""
    @property
    def job_done(self) -> bool:
        """Whether the job's last stage began (the lines after it are not read)."""
    @property
    def lines(self) -> int:
        """Lines read so far (up to the job's last stage, once it began)."""
    @property
    def stopped(self) -> bool: ...
