"""`status RUN...`: one screen on a run — stage, steps, losses, evaluation, ETA, when its
last line came, snapshot; over many runs, a table of one row a run.

Every string that comes from a file or a folder's name (a run's name, a stage, a
checkpoint's path, a reason, an error's line) is shown through `text.shown.shown()` on the
screen and on standard error, and given to rich as `Text`, never as markup: a name such as
`exp[lr=0.1]` shows as itself. `-o json` writes the values as they are (JSON escapes them),
but for a name's bytes that are not UTF-8, `\\xff` there as on the screen (`as_text`).

What a run's lines say, told at a time, is the core's (`reader.StatusScan`): the contract's
`StatusReport` record (`runs.status.report`), which `-o json` writes field for field and the
screen and the table read; this module says the record.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from .. import _core
from .._models.status_report_schema import (
    Alert,
    AlertKind,
    Phase,
    ScalarStats,
    StatusReport,
)
from ..check.reporter import paint, plural
from ..files.sidefile import SideFileError
from ..runs import clock
from ..runs.discover import discover, natural_key
from ..runs.state import (
    Run,
    RunError,
    StatusRead,
    read_status,
)
from ..runs.status import report
from ..text.shown import shown
from ..text.sizes import invalid_text
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    USAGE,
    CliError,
    add_max_line,
    add_now,
    add_only,
    colour_on,
    formatter,
    only_runs,
    say,
    terminal_columns,
)

DESCRIPTION = """\
One screen on a run: its stage, step / max_steps, the latest loss and eval loss, an
evaluation under way and its progress, the time left (ETA, from the pace of the training
logs, as overbrainer computes it, counted down since), when the last line came, and
whether a snapshot was requested or taken. An ETA is shown as stale, not counted down,
when the run has been silent for much longer than its pace predicts (50 steps at its
pace, and at least 2 minutes). A request not yet answered (no proof newer than it) is
always shown, beside an older proof.

Over many runs (several RUNs, or a folder of runs at any depth) a table, one row a run: its
name (its path below the folder the runs have in common), stage, step / max_steps, latest
loss, best eval loss and its step, ETA, how long ago its last line came, snapshot, invalid
lines, alerts (each kind with its step: `spike@77`); --sort orders it. --metric
KEY[:last|min|max] adds a column of a scalar the runs logged (a key of the logs' `scalars`
or of the end line's `summary`: its latest value, or its lowest or highest finite value and
the step it came at; a run without the key blank), and the one-run screen shows it too;
--sort KEY[:agg] orders by one (any key, asked for as a column or not). --only REGEX keeps
the runs whose names match. -o json writes the run's state as one JSON object, or over many
runs JSON Lines, one object a run (`schema status-report` prints their schema: every
scalar is there).

Exit 1 when `check` would find a run invalid (an invalid line, a bad snapshot.json or
snapshot.request), with one line on stderr; 2 when a RUN cannot be read. --fail-on
KIND[,KIND...] (stalled, nonfinite, spike, invalid): exit 3 when a run has an alert of one of
those kinds, after the output, with one line a run on stderr naming its alerts of those
kinds and their steps (`runs/7: alerts: spike@77`); 3 rather than 1 (a run with invalid lines
and a spike, or `--fail-on invalid`), but 2 when a RUN cannot be read."""

EPILOG = f"""\
examples:
  {PROG} status runs/7
  {PROG} status runs/7/metrics.jsonl -o json
  {PROG} status sweep/                      # a table: every run below sweep/
  {PROG} status runs/* --sort eval_loss     # the best evaluation first
  {PROG} status sweep/ --metric eval_accuracy:max --sort eval_accuracy:max -r
  {PROG} status sweep/ --only 'lr3e-4' --metric rewards/margins
  {PROG} status sweep/ -o json | jq -r 'select(.eta_stale) | .name'
  {PROG} status runs/7 -o json --now 1764467600   # as it stood at that time
  {PROG} status sweep/ --fail-on spike,nonfinite || notify-send 'a run needs a look'

{EXIT_CODES}"""

SORTS = ("name", "stage", "step", "loss", "eval_loss", "eta", "age", "invalid")
"""What `--sort` orders the table by: the name (numbers in it as numbers), the phase, the
step, the latest loss, the best eval loss, the time left, how long ago the last line came
(the latest first), the invalid lines. A run without the value comes last. Any other
text is a scalar's key with its aggregate (`Metric`)."""

FAILED = 3
"""The exit status when a run has an alert of a kind `--fail-on` names."""

KINDS = tuple(kind.value for kind in AlertKind)
"""The kinds of alerts, in the schema's order (`AlertKind`)."""


def alert_kinds(text: str) -> frozenset[AlertKind]:
    """`KIND[,KIND...]` (argparse's type for `--fail-on`): kinds of `KINDS`, any other a usage
    error naming them."""
    names = text.split(",")
    unknown = [name for name in names if name not in KINDS]
    if unknown:
        words = ", ".join(repr(name) for name in unknown)
        raise argparse.ArgumentTypeError(
            f"no alert kind {shown(words)} (the kinds: {', '.join(KINDS)})"
        )
    return frozenset(AlertKind(name) for name in names)


alert_kinds.__name__ = "alert kinds"

AGGREGATES = ("last", "min", "max")
"""What a scalar's column shows: its latest value, its lowest or highest finite value."""


@dataclass(frozen=True)
class Metric:
    """A scalar of the runs asked for by `--metric` or `--sort`: `KEY[:last|min|max]`."""

    key: str
    aggregate: str = "last"
    text: str = ""
    """As it was given (the column's heading)."""


def metric(text: str) -> Metric:
    """`KEY[:last|min|max]` (argparse's type): the text after the last `:` is the aggregate
    when it is one of `AGGREGATES`, else part of the key (`a:b` is the key `a:b`, its latest
    value; `x:min:last` the latest value of the key `x:min`). Any string is a key, as the
    contract's scalars take it: `''` and `:max` ask for the empty key. The core's rule
    (`view::Asked`), the one its words are made by."""
    key, aggregate = _core.metric_parts(text)
    return Metric(key, aggregate, text)


def sort_key(text: str) -> str | Metric:
    """`--sort`: one of `SORTS`, else a scalar (`metric`)."""
    return text if text in SORTS else metric(text)


sort_key.__name__ = "sort key"
metric.__name__ = "metric"


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "status",
        parents=parents,
        help="one screen on a run: stage, step, losses, ETA, snapshot",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="a run folder, a folder of runs, a metrics file (.jsonl, .jsonl.gz), or -",
    )
    parser.add_argument(
        "-o",
        "--output",
        choices=("text", "json"),
        default="text",
        help="text (default) or json (JSON Lines over many runs)",
    )
    parser.add_argument(
        "--sort",
        type=sort_key,
        default="name",
        metavar="KEY",
        help="order of the runs: name (default), stage, step, loss, eval_loss (the best),"
        " eta, age (of the last line, the latest first), invalid, or a scalar's"
        " KEY[:last|min|max] (any key the runs logged)",
    )
    parser.add_argument(
        "--metric",
        type=metric,
        action="append",
        default=[],
        metavar="KEY[:AGG]",
        help="a column (and a row of the one-run screen) for a scalar the runs logged: its"
        " latest value (last, the default), or its lowest (min) or highest (max) finite"
        " value and its step; repeatable",
    )
    parser.add_argument(
        "-r", "--reverse", action="store_true", help="the order of --sort, reversed"
    )
    parser.add_argument(
        "--fail-on",
        type=alert_kinds,
        default=frozenset(),
        metavar="KIND[,KIND...]",
        help=f"exit {FAILED} when a run has an alert of one of these kinds ({', '.join(KINDS)}),"
        " one line a run on stderr after the output",
    )
    add_only(parser)
    add_max_line(parser)
    add_now(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.runs.count("-") > 1:
        raise CliError("standard input (-) can be read only once")
    found = discover(args.runs)
    found.runs = only_runs(found.runs, args.only)
    if len(found.runs) == 1 and not found.refused:
        return _one(found.runs[0], args)
    code = OK
    for name, why in found.refused:
        say(shown(f"error: {name}: {why}"))
        code = USAGE
    at = clock.now() if args.now is None else args.now
    rows: list[StatusReport] = []
    for target in found.runs:
        try:
            read = read_status(target, max_line=args.max_line)
            rows.append(report(target, read, at))
        except RunError as error:
            say(shown(f"error: {error}"))
            code = max(code, INVALID if error.invalid else USAGE)
            continue
        except SideFileError as error:
            say(shown(f"error: {error}"))
            code = USAGE
            continue
        if not rows[-1].valid:
            _say_invalid(target, read, rows[-1])
            code = max(code, INVALID)
    _say_unknown(rows, [*args.metric, args.sort])
    rows = sort_rows(rows, args.sort, args.reverse)
    if args.output == "json":
        for row in rows:
            sys.stdout.write(json.dumps(msgspec.to_builtins(row), separators=(",", ":")) + "\n")
    elif rows:
        _table(rows, colour_on(sys.stdout, args.color), args.metric)
    return fail_on(rows, args.fail_on, code)


def fail_on(rows: Sequence[StatusReport], kinds: frozenset[AlertKind], code: int) -> int:
    """`--fail-on`: a line on stderr for each run with an alert of `kinds` (its alerts of
    those kinds in the words of the table's cell, `runs/7: alerts: spike@77`), and the exit
    status: `FAILED` when there is one, over `code`'s 1 (invalid lines) but not its 2 (a RUN
    that could not be read)."""
    failed = False
    for row in rows:
        alerts = row.alerts if isinstance(row.alerts, list) else []
        chosen = [alert for alert in alerts if alert.kind in kinds]
        if chosen:
            failed = True
            say(f"{row.run}: alerts: {_alerts_words(chosen)}")
    if failed and code != USAGE:
        return FAILED
    return code


def _alerts_words(alerts: Sequence[Alert]) -> str:
    """Alerts in the core's words of the table's alerts cell (`spike@77, invalid@3`)."""
    return _core.alerts_cell(msgspec.json.encode(list(alerts)))


def _say_unknown(rows: Sequence[StatusReport], asked: Sequence[str | Metric]) -> None:
    """A note for each scalar asked for that no run logged (a typo shows as a blank
    column otherwise)."""
    said: set[str] = set()
    for each in asked:
        if not isinstance(each, Metric) or each.key in said:
            continue
        said.add(each.key)
        if rows and not any(each.key in _scalars(row) for row in rows):
            runs = "the run" if len(rows) == 1 else f"any of the {len(rows):,} runs"
            say(shown(f"note: no scalar {each.key!r} in {runs}"))


def _one(target: Run, args: argparse.Namespace) -> int:
    """One run: today's screen, or its state as one JSON object."""
    try:
        read = read_status(target, max_line=args.max_line)
        record = report(target, read, clock.now() if args.now is None else args.now)
    except RunError as error:
        raise CliError(shown(str(error)), INVALID if error.invalid else USAGE) from error
    except SideFileError as error:
        raise CliError(shown(str(error))) from error
    if args.output == "json":
        # one write: `json.dump` writes each of its pieces (a piece of a key, of a number)
        # apart, millions of writes for a run of 100,000 scalar keys
        sys.stdout.write(json.dumps(msgspec.to_builtins(record), indent=2) + "\n")
    else:
        _say_unknown([record], args.metric)
        sys.stdout.write(render(record, colour_on(sys.stdout, args.color), args.metric))
    code = OK
    if not record.valid:
        _say_invalid(target, read, record)
        code = INVALID
    return fail_on([record], args.fail_on, code)


def _say_invalid(target: Run, read: StatusRead, record: StatusReport) -> None:
    """The one line on stderr for a run `check` finds invalid."""
    said = []
    if record.invalid_lines:
        bom = " (the first line begins with a UTF-8 byte order mark)" if read.scan.bom else ""
        words = invalid_text(record.invalid_lines, record.partial_last_line)
        said.append(f"{plural(record.lines, 'line')}: {words}{bom}")
    if read.gzip_cut is not None:  # its lines up to the cut are shown
        said.append(read.gzip_cut)
    snapshot = record.snapshot
    if snapshot is not None and snapshot.problem:
        said.append(snapshot.problem)
    name = shown(target.name)
    say(shown(f"{name}: {'; '.join(said)} ('{PROG} check {name}' says which)"))


_PHASES = list(Phase)
"""The phases in the schema's order: a run's course, `waiting` to `ended`."""


def _scalars(row: StatusReport) -> dict[str, ScalarStats]:
    """The row's scalars by key (none when the record holds none)."""
    return row.scalars if isinstance(row.scalars, dict) else {}


def scalar_of(row: StatusReport, asked: Metric) -> tuple[bool, float | str | None, int | None]:
    """Whether the run logged the key, and the value asked for with its step: the latest
    as logged (a number, null, or a non-finite value's word), or the lowest or highest
    finite value (None when none was finite)."""
    stats = _scalars(row).get(asked.key)
    if stats is None:
        return False, None, None
    if asked.aggregate == "last":
        return True, stats.last.value, stats.last.step
    chosen = stats.min if asked.aggregate == "min" else stats.max
    return (True, None, None) if chosen is None else (True, chosen.value, chosen.step)


def scalar_text(row: StatusReport, asked: Metric) -> str:
    """A scalar's cell, in the core's words (`view::scalar_text`): blank for a run without
    the key; its latest value, or `value @step` of the lowest or highest."""
    return _core.scalar_text(msgspec.json.encode(row), asked.text)


def _sortable(value: float | str | None) -> float | None:
    """A scalar's value as it sorts: its word as the float it names (NaN sorts as
    unknown, last); None for a null."""
    if isinstance(value, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(value)
    return value


def _key(sort: str | Metric) -> Callable[[StatusReport], Any]:
    """The value a row is ordered by for `--sort` (None: without one, last)."""
    if isinstance(sort, Metric):
        return lambda row: _sortable(scalar_of(row, sort)[1])
    keys: dict[str, Callable[[StatusReport], Any]] = {
        "name": lambda row: natural_key(row.name),
        "stage": lambda row: _PHASES.index(row.phase),
        "step": lambda row: row.step,
        "loss": lambda row: None if row.loss is None else row.loss.value,
        "eval_loss": lambda row: None if row.best_eval_loss is None else row.best_eval_loss.value,
        "eta": lambda row: row.eta_remaining_seconds,
        "age": lambda row: row.last_line_seconds,
        "invalid": lambda row: row.invalid_lines,
    }
    return keys[sort]


def sort_rows(
    rows: list[StatusReport], sort: str | Metric, reverse: bool = False
) -> list[StatusReport]:
    """The rows in the order of `--sort` (stable: ties keep the order of the names); the
    rows without the value last, whichever the direction."""
    key = _key(sort)
    named = sorted(rows, key=_key("name"))
    known = [row for row in named if key(row) is not None and key(row) == key(row)]
    unknown = [row for row in named if not (key(row) is not None and key(row) == key(row))]
    return sorted(known, key=key, reverse=reverse) + unknown


def render(record: StatusReport, colour: bool, metrics: Sequence[Metric] = ()) -> str:
    """The status as the lines of one screen: the core's rows (`view::screen`), a row for
    each scalar asked for, laid out label and words, each row shown escaped (its strings
    from the run are data) and the bad lines' words painted."""
    rows = [
        (shown(label), shown(words))
        for label, words in _core.screen(
            msgspec.json.encode(record), [asked.text for asked in metrics]
        )
    ]
    words = invalid_text(record.invalid_lines, record.partial_last_line)
    if words and colour:  # the last row, `lines`: its bad lines in the colour check uses
        label, said = rows[-1]
        part = f"({words})"
        painted = paint(part, "error" if record.invalid_lines else "warning", colour)
        rows[-1] = (label, said.replace(part, painted, 1))
    width = max(len(label) for label, _ in rows) + 2
    return "".join(f"{paint(label.ljust(width), 'bold', colour)}{value}\n" for label, value in rows)


# -- many runs: a table ------------------------------------------------------------------


JUSTIFY = ("left", "left", "right", "right", "right"), ("right", "right", "left", "right", "left")
"""How the core's columns before the scalars' and after them are aligned (a scalar's column
to the right, as a number)."""


def _columns(metrics: Sequence[Metric]) -> list[tuple[str, str]]:
    """The table's columns, each its heading (the core's, and each scalar asked for) and
    how its cells are aligned."""
    before, after = _core.headings()
    return [
        *zip(before, JUSTIFY[0], strict=True),
        *((asked.text, "right") for asked in metrics),
        *zip(after, JUSTIFY[1], strict=True),
    ]


def _table(rows: list[StatusReport], colour: bool, metrics: Sequence[Metric] = ()) -> None:
    """The rows as a table on standard output: rich's, as wide as the terminal, with the
    `cli` extra; without rich, laid out as plain text (`plain_table`). Every cell is a
    `Text`: rich reads no markup in a run's name (`[bold]x`, `sw/[/]`)."""
    try:
        from rich import box
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text
    except ImportError:
        sys.stdout.write(plain_table(rows, colour, metrics))
        return

    # As wide as the terminal; written to a file or a pipe, as wide as its rows need.
    wide = not sys.stdout.isatty() and not os.environ.get("COLUMNS")
    console = Console(
        file=sys.stdout,
        width=400 if wide else terminal_columns(),
        force_terminal=colour,
        no_color=not colour,
        highlight=False,
        soft_wrap=False,
    )
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    texts = [asked.text for asked in metrics]
    for index, (heading, justify) in enumerate(_columns(metrics)):
        # a heading from the command line as data too: a `Text`, never markup
        table.add_column(Text(shown(heading)), justify=justify, no_wrap=index == 0)  # type: ignore[arg-type]
    encoded = [msgspec.json.encode(row) for row in rows]
    for row, data in zip(rows, encoded, strict=True):
        cells = [Text(shown(cell)) for cell in _core.cells(data, texts)]
        style = "red" if not row.valid else ("yellow" if row.eta_stale else None)
        table.add_row(*cells, style=style)
    console.print(table)
    console.print(Text(_core.footer(encoded)))


def cell_width(text: str) -> int:
    """The columns `text` takes on a terminal: two for a wide or full-width character (East
    Asian), none for a combining mark, one for the others."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def plain_table(rows: list[StatusReport], colour: bool, metrics: Sequence[Metric] = ()) -> str:
    """The rows as plain text, without rich: the headings, a rule under them, a line a run
    (its cells the core's, `view::cells`, shown escaped), the columns two spaces apart and
    each cell aligned as rich's table aligns it; then the core's footer. With `colour`, a
    run with invalid lines in check's error colour, one whose ETA is stale in its warning
    colour."""
    columns = _columns(metrics)
    texts = [asked.text for asked in metrics]
    encoded = [msgspec.json.encode(row) for row in rows]
    body = [[shown(cell) for cell in _core.cells(data, texts)] for data in encoded]
    headings = [shown(heading) for heading, _ in columns]
    widths = [max(cell_width(line[at]) for line in [headings, *body]) for at in range(len(columns))]

    def line(cells: Sequence[str]) -> str:
        laid = []
        for (_, justify), width, cell in zip(columns, widths, cells, strict=True):
            room = " " * (width - cell_width(cell))
            laid.append(cell + room if justify == "left" else room + cell)
        return "  ".join(laid).rstrip()

    out = [line(headings), "-" * (sum(widths) + 2 * (len(widths) - 1))]
    for row, cells in zip(rows, body, strict=True):
        text = line(cells)
        if not row.valid:
            text = paint(text, "error", colour)
        elif row.eta_stale:
            text = paint(text, "warning", colour)
        out.append(text)
    out.append(shown(_core.footer(encoded)))
    return "".join(each + "\n" for each in out)
