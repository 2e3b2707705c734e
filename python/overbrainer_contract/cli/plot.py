"""`plot RUN... -o FILE`: loss, eval loss and learning rate against step (or any metric key
the runs logged, picked by globs), for one run or a sweep of many, runs alone or in groups.

What is picked, and how groups are made, are the core's rules (`overbrainer_core::names`
and `groups`), which the run viewer (`js/viewer/`) is given too: `pick_keys` (fnmatch's
globs, the keys one pattern matches in sorted order, each key once), `sections` (a heading
per prefix, the keys without `/` first), `entries_of` (a group per key of the regular
expression, each at its first run's place), `band` (mean and population standard
deviation per step, over the runs with a finite value there, each run's last value at a
step) and `label_of` (a label cut to `LABEL_CHARS` characters)."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .. import _core
from .._core import Pattern
from ..files.atomic import atomic_file
from ..files.chunks import GzipCutError, read_chunks
from ..files.sidefile import SideFileError
from ..reader import FIELD_NAMES, TAGS, TableScan
from ..runs.discover import find_runs
from ..runs.state import Run, RunError
from ..text.shown import shown
from ..text.sizes import invalid_text
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    CliError,
    add_max_line,
    add_only,
    formatter,
    only_runs,
    regex,
    say,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend

    from .._core import TableBatch

BATCH_LINES = 1 << 20
"""Lines a batch of the core's columns holds, here."""

SMOOTH_DEFAULT = 0.6
"""`--smooth` without a weight: TensorBoard's default."""

DESCRIPTION = """\
Plot one run or a sweep of many: the training loss, the eval loss and the learning rate
against the step, one panel each (a panel only when some run has its values), every run
overlaid in a style of its own (colour x line style x marker: 240 before any repeats, and
then the legend says so), one legend for them all beside the panels, inside the figure
(when there are too many runs for it, it shows the first and says how many it leaves
out). A run that resumed (a second `begin` line) has its line broken there and a dotted
mark at the step it resumed from. A RUN is a run folder, a metrics file (.jsonl,
.jsonl.gz) or a folder of run folders at any depth; runs are named by their path below
what they have in common (`exp1/seed1`).

--log draws the y axes on a log scale (values <= 0 are left out, and said); --smooth
draws an exponential moving average of the training loss, TensorBoard's debiased form
(weight W, 0.6 when not given), the raw line kept faint behind it; the eval loss (a few
points) and the learning rate (a schedule) are drawn as they are. matplotlib, headless
(no display needed). The format follows the file's suffix (.png, .svg, .pdf). Invalid
lines are skipped with a warning, in `check`'s count (the last line cut short apart).
Says where it wrote. Exit 1 when there is nothing to plot.

--metric PATTERN picks the panels instead (repeatable; each PATTERN comma-separated
globs, fnmatch's: `*` any run of characters, `/` included, `?` one character, `[...]` a
class), matched against every metric key of the runs: loss, eval_loss, learning_rate,
grad_norm and each key of the logs' `scalars` (default loss,eval_loss,learning_rate). A
panel per key, in the patterns' order (the keys of one pattern sorted), under a heading
per prefix (the key's text before its last `/`; the keys without one first). A pattern
that matches no key is an error that lists the keys (exit 2). NaN, Infinity and
-Infinity are drawn as markers on the panel's edge (NaN x at the bottom, Infinity ^ at
the top, -Infinity v at the bottom; with --log, values <= 0 v at the bottom too) and
counted in the panel; a null is a gap in the line. A point the line cannot show (a value
logged once, or one between gaps) is drawn as a marker.

--group REGEX draws the runs whose names match (anywhere: Rust's regex syntax, matched in
linear time) as groups, one per key: the regular expression's first capture group when
it has one, else the whole match. A group
is its mean line per step with a band of one standard deviation (population) each side,
over its runs that have a finite value at that step, its runs faint behind; the legend
names it and counts its runs. The runs that do not match are drawn alone. --only REGEX
draws only the runs whose names match."""

EPILOG = f"""\
examples:
  {PROG} plot runs/7 -o loss.png
  {PROG} plot runs/7 runs/8 --title "lr 2e-5 vs 1e-4" -o compare.svg
  {PROG} plot sweep/ --log --smooth -o sweep.png
  {PROG} plot runs/ --metric 'rewards/*' --group 'lr[^-]*' -o rewards.png
  {PROG} plot runs/ --metric 'eval_*,grad_norm' --only 'seed[12]$' -o eval.svg

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "plot",
        parents=parents,
        help="plot loss, eval loss and learning rate against step (one run or a sweep)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument(
        "runs", nargs="+", metavar="RUN", help="run folders, metrics files, folders of runs"
    )
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.png, .svg, ...")
    parser.add_argument("--title", help="a title above the plot")
    parser.add_argument("--dpi", type=int, default=120, help="resolution of a PNG (default 120)")
    parser.add_argument("--log", action="store_true", help="log scale on the y axes")
    parser.add_argument(
        "--smooth",
        nargs="?",
        const=SMOOTH_DEFAULT,
        default=None,
        type=smoothing,
        metavar="W",
        help=f"smooth the training loss: an exponential moving average of weight W in [0, 1)"
        f" (default {SMOOTH_DEFAULT}), the raw line kept faint",
    )
    parser.add_argument(
        "--metric",
        action="append",
        type=patterns,
        metavar="PATTERN",
        help="the metric keys drawn, a panel each: comma-separated globs (fnmatch's: * ? [...]),"
        f" repeatable (default {','.join(PLOTTED)})",
    )
    parser.add_argument(
        "--group",
        type=regex,
        metavar="REGEX",
        help="runs whose names match drawn as groups (mean +- std), one per key: the first"
        " capture group, else the match",
    )
    add_only(parser)
    add_max_line(parser)
    parser.set_defaults(run=run)


def patterns(text: str) -> list[str]:
    """`--metric PATTERN`: its comma-separated globs, each trimmed, the empty ones dropped
    (argparse's type); a glob the core refuses (`glob`) is a usage error of one line."""
    found = _core.patterns_of(text)
    if not found:
        raise argparse.ArgumentTypeError(f"no glob in {text!r} (e.g. 'rewards/*,eval_loss')")
    for each in found:
        try:
            glob(each)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"not a glob: {each!r} ({error})") from error
    return found


def glob(text: str) -> Pattern:
    """A glob of `--metric` as the core matches it (`Pattern`: fnmatch's `*`, `?`, `[...]`
    against a whole key, in linear time); a ValueError of one line where it is refused."""
    return Pattern(text, glob=True)


def smoothing(text: str) -> float:
    """`--smooth W`: a weight in [0, 1) (argparse's type)."""
    try:
        weight = float(text)
    except ValueError:
        weight = math.nan
    if not 0.0 <= weight < 1.0:
        raise argparse.ArgumentTypeError(f"a weight in [0, 1), not {text!r}")
    return weight


Points = tuple[Any, Any]
"""Steps and values, as two arrays of the same length (numpy)."""

NO_POINTS: Points = ((), ())

PLOTTED = tuple(_core.patterns_of(_core.DEFAULT_PATTERNS))
"""The keys drawn when `--metric` is not given (each where some run has its values): the
core's default patterns, the viewer's too."""

OWN = ("loss", "eval_loss", "learning_rate", "grad_norm")
"""The log line's own numeric fields: metric keys beside those of its `scalars`."""

TITLES = {
    "loss": "loss",
    "eval_loss": "eval loss",
    "learning_rate": "learning rate",
    "grad_norm": "grad norm",
}


@dataclass
class Series:
    """The values of one run: for each metric key its steps and values (in the file's
    order, exactly as read; a scalar logged as null a NaN whose place `gaps` marks); where
    it resumed."""

    label: str
    path: str = ""
    """The run as given or found (`many/exp1/seed1`), for messages."""
    points: dict[str, Points] = field(default_factory=dict)
    """Each metric key's points: the own fields where a log holds a number, each key of
    the logs' `scalars` wherever a log holds it (null included)."""
    gaps: dict[str, Any] = field(default_factory=dict)
    """For a key with nulls, a bool array beside its points: True where the value is null
    (a gap in the line, not a NaN)."""
    drawn: tuple[str, ...] = PLOTTED
    """The keys the figure draws (what `bool` asks about)."""
    invalid: int = 0
    """Lines the reader rejects (or over `--max-line`): `check`'s errors on lines."""
    cut: bool = False
    """Whether the last line is cut short (no newline, category `eof`): `check`'s warning."""
    gzip_cut: str | None = None
    """For a `.gz` cut short (`chunks.GzipCutError`): what is said of it (the lines
    before the cut are drawn)."""
    lines: int = 0
    resumes: list[int] = field(default_factory=list)
    """The step each resumption (a `begin` after the first) started from."""
    breaks: dict[str, list[int]] = field(default_factory=dict)
    """For each key, the indices of its points where a resumed stretch begins."""

    def of(self, key: str) -> Points:
        """The points of `key` (none when the run has none)."""
        return self.points.get(key, NO_POINTS)

    @property
    def loss(self) -> Points:
        return self.of("loss")

    @loss.setter
    def loss(self, points: Points) -> None:
        self.points["loss"] = points

    @property
    def eval_loss(self) -> Points:
        return self.of("eval_loss")

    @eval_loss.setter
    def eval_loss(self, points: Points) -> None:
        self.points["eval_loss"] = points

    @property
    def learning_rate(self) -> Points:
        return self.of("learning_rate")

    @learning_rate.setter
    def learning_rate(self, points: Points) -> None:
        self.points["learning_rate"] = points

    def __bool__(self) -> bool:
        return any(len(self.of(key)[0]) for key in self.drawn)


def read_series(target: Run, max_line: int | None = None) -> Series:
    """The metric values of a run, from its metrics file: its chunks read by the core
    (`reader.TableScan`), which gives the columns; the points are taken from them with
    numpy (matplotlib's own), no Python object per value. A line the reference rejects (or
    over the user's bound) is counted as invalid; the last line cut short, apart."""
    label = target.label or target.name.rstrip("/") or target.name
    series = Series(label, target.name)
    if target.metrics is None:
        return _fill(series, sys.stdin.buffer, max_line, target.name)
    try:
        with target.open_metrics() as handle:
            return _fill(series, handle, max_line, target.display(target.metrics))
    except SideFileError as error:
        raise CliError(shown(str(error))) from error
    except OSError as error:
        raise CliError(f"{shown(target.name)}: {error.strerror or error}") from error


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as error:
        raise CliError("plot needs matplotlib: pip install 'overbrainer-contract[cli]'") from error
    return numpy


Pieces = tuple[list[Any], list[Any], list[Any], list[Any]]
"""A key's steps, values, gaps and row numbers, a piece per batch and source."""


def _fill(series: Series, handle: IO[bytes], max_line: int | None, name: str) -> Series:
    """The points of the metrics file open in `handle` (`name`: a `.gz` is read
    decompressed, gzip data under another name refused: `chunks.read_chunks`)."""
    numpy = _numpy()
    scan = TableScan(BATCH_LINES, max_line)
    batches: list[TableBatch] = []
    try:
        for chunk in read_chunks(handle, name=name):
            batches += scan.feed(chunk)
            if scan.stopped:
                break
    except GzipCutError as error:  # after every byte before the cut: those lines drawn
        series.gzip_cut = error.what
    batches += scan.finish()
    series.lines = scan.lines
    series.invalid = sum(scan.left_out)
    series.cut = scan.cut  # the last line cut short: the core's rule, `check`'s
    log, begin = TAGS.index("log"), TAGS.index("begin")
    at = {name: FIELD_NAMES.index(name) for name in ("step", *OWN)}
    found: dict[str, Pieces] = {}
    both: set[str] = set()  # keys both an own field and a scalar (a hand-written file)
    log_rows: list[Any] = []
    log_steps: list[Any] = []
    begins: list[Any] = []
    offset = 0

    def piece(key: str, steps: Any, values: Any, gaps: Any, rows: Any) -> None:
        lists = found.setdefault(key, ([], [], [], []))
        for into, part in zip(lists, (steps, values, gaps, rows), strict=True):
            into.append(part)

    for rows, _, events, fields, scalars in batches:
        kinds = numpy.frombuffer(events, numpy.int8)
        logs = kinds == log
        steps = numpy.frombuffer(fields[at["step"]][0], numpy.uint64)
        log_rows.append(numpy.flatnonzero(logs) + offset)
        log_steps.append(steps[logs])
        begins.append(numpy.flatnonzero(kinds == begin) + offset)
        for key in OWN:
            values, validity, _ = fields[at[key]]
            shown = logs
            if validity is not None:
                valid = numpy.unpackbits(numpy.frombuffer(validity, numpy.uint8), bitorder="little")
                shown = logs & valid[:rows].astype(bool)
            taken = numpy.frombuffer(values, numpy.float64)[shown]
            rows_of = numpy.flatnonzero(shown) + offset
            piece(key, steps[shown], taken, numpy.zeros(len(taken), bool), rows_of)
        entry_rows, entry_keys, (values, validity, _), names = scalars
        where = numpy.frombuffer(entry_rows, "<u4")
        on_log = kinds[where] == log  # an end line's summary is not a point
        where = where[on_log]
        keys = numpy.frombuffer(entry_keys, "<u4")[on_log]
        value = numpy.frombuffer(values, "<f8")
        if validity is None:
            null = numpy.zeros(len(value), bool)
        else:
            bits = numpy.unpackbits(numpy.frombuffer(validity, numpy.uint8), bitorder="little")
            null = ~bits[: len(value)].astype(bool)
        value, null = value[on_log], null[on_log]
        order = numpy.argsort(keys, kind="stable")  # each key's entries in the lines' order
        bounds = numpy.flatnonzero(numpy.diff(keys[order])) + 1
        for chosen in numpy.split(order, bounds) if len(order) else []:
            key = names[int(keys[chosen[0]])]
            if key in OWN:
                both.add(key)
            gaps = null[chosen]
            piece(
                key,
                steps[where[chosen]],
                numpy.where(gaps, numpy.nan, value[chosen]),
                gaps,
                where[chosen].astype(numpy.int64) + offset,
            )
        offset += rows
    resumed = numpy.concatenate(begins)[1:] if begins else []
    every_log = numpy.concatenate(log_rows) if log_rows else numpy.zeros(0, numpy.int64)
    every_step = numpy.concatenate(log_steps) if log_steps else numpy.zeros(0, numpy.uint64)
    for row in resumed:
        after = int(numpy.searchsorted(every_log, row))
        if after < len(every_log):  # the step its first log after the begin is at
            series.resumes.append(int(every_step[after]))
    for key, (steps_of, values_of, gaps_of, rows_of) in found.items():
        steps = numpy.concatenate(steps_of)
        if not len(steps):  # an own field no log holds a number of: not a key of the run
            continue
        values = numpy.concatenate(values_of)
        gaps = numpy.concatenate(gaps_of)
        rows = numpy.concatenate(rows_of)
        if key in both:  # the own field's value first, then the scalar's, line by line
            order = numpy.argsort(rows, kind="stable")
            steps, values, gaps, rows = steps[order], values[order], gaps[order], rows[order]
        series.points[key] = (steps, values)
        if gaps.any():
            series.gaps[key] = gaps
        cuts = sorted({int(numpy.searchsorted(rows, row)) for row in resumed})
        series.breaks[key] = [cut for cut in cuts if 0 < cut < len(rows)]
    return series


def metric_keys(runs: Sequence[Series]) -> list[str]:
    """Every metric key of the runs, sorted (by code point)."""
    return sorted({key for series in runs for key in series.points})


def pick_keys(globs: Sequence[str], keys: Sequence[str]) -> list[str]:
    """The keys the globs pick, in their order (the core's rule): for each glob, the keys
    it matches (`glob`: fnmatch's rules) that no glob before it did, sorted (by code
    point)."""
    return _core.pick_keys(list(globs), list(keys))


def sections(picked: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The picked keys under their headings (the core's rule): the keys without `/` first
    (heading ""), then each prefix (the text before the last `/`) in the order its first
    key was picked; in each, the keys in the order picked."""
    return _core.sections(list(picked))


@dataclass
class Entry:
    """What the legend shows: a group of runs (`key` not None) or one run alone."""

    key: str | None
    members: list[int]
    """The indices of its runs, in their order."""

    def label(self, runs: Sequence[Series]) -> str:
        """Its text in the legend (its run's name, or its key and how many runs), the name
        and the key cut as labels are (`label_of`)."""
        if self.key is None:
            return label_of(runs[self.members[0]].label)
        count = len(self.members)
        return f"{label_of(self.key)} ({count:,} {'run' if count == 1 else 'runs'})"


def entries_of(names: Sequence[str], pattern: Pattern | None) -> list[Entry]:
    """The legend's entries in the order shown: each run alone without `pattern`; with
    it, the runs whose names it matches (anywhere) in groups by key (`Pattern.key`: its
    first capture group, "" when that took no part in the match; else the whole match),
    each group at its first run's place, and each run it does not match alone."""
    keys = [None if pattern is None else pattern.key(name) for name in names]
    return [Entry(key, members) for key, members in _core.group_entries(keys)]


def band(members: Sequence[Points]) -> tuple[Any, Any, Any, Any]:
    """A group's band of one key (the core's rule): per step (sorted), the mean and the
    standard deviation (population: divided by n) of its runs' values there, and how many
    runs had one. A run counts at a step with its last value there (a run that logged a
    step twice, resumed), and only when that value is finite (not NaN, an infinity or a
    null)."""
    numpy = _numpy()
    given = [
        (
            numpy.asarray(steps, "<u8").tobytes(),
            numpy.asarray(values, "<f8").tobytes(),
        )
        for steps, values in members
    ]
    steps, mean, std, count = _core.band(given)
    return (
        numpy.frombuffer(steps, "<u8").astype(numpy.float64),
        numpy.frombuffer(mean, "<f8"),
        numpy.frombuffer(std, "<f8"),
        numpy.frombuffer(count, "<u4").astype(numpy.int64),
    )


def run(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if not output.suffix:
        raise CliError(f"{shown(str(output))}: give the file a suffix (.png, .svg) for its format")
    try:
        targets = find_runs(args.runs)
    except RunError as error:
        raise CliError(shown(str(error))) from error
    targets = only_runs(targets, args.only)
    runs = [read_series(target, args.max_line) for target in targets]
    for series in runs:
        if series.gzip_cut is not None:
            say(
                f"warning: {shown(series.path)}: {shown(series.gzip_cut)}: the lines before it read"
            )
        words = invalid_text(series.invalid, series.cut)
        if words:
            say(f"warning: {shown(series.path)}: {words} (skipped)")
    keys = _picked(runs, args.metric)
    for series in runs:
        series.drawn = tuple(keys)
    if not any(runs):
        given = ", ".join(shown(name) for name in args.runs)
        say(f"error: nothing to plot: no loss, eval loss or learning rate in {given}")
        return INVALID
    plotted = [series for series in runs if series]
    for series in runs:
        if not series:
            what = "no metric picked" if args.metric else "no loss, eval loss or learning rate"
            say(f"note: {shown(series.path)}: {what}: not drawn")
    figure, notes = make_figure(
        plotted, args.title, log=args.log, smooth=args.smooth, keys=keys, group=args.group
    )
    save(figure, output, args.dpi)
    for note in notes:
        say(f"note: {shown(note)}")
    resumed = sum(1 for series in plotted if series.resumes)
    told = f"wrote {shown(str(output))}: {len(plotted):,} run" + ("" if len(plotted) == 1 else "s")
    if args.group is not None:
        entries = entries_of([series.label for series in plotted], args.group)
        groups = sum(1 for entry in entries if entry.key is not None)
        told += f" ({groups:,} group{'' if groups == 1 else 's'}, {len(entries) - groups:,} alone)"
    if resumed:
        told += f", {resumed:,} resumed (the dotted marks)"
    sys.stdout.write(told + "\n")
    return OK


def _picked(runs: Sequence[Series], given: list[list[str]] | None) -> list[str]:
    """The keys `--metric` picks among the runs' (`pick_keys`): every glob given must
    match one (a usage error that lists the keys otherwise); by default the losses and
    the learning rate that some run has."""
    keys = metric_keys(runs)
    if given is None:
        return pick_keys(PLOTTED, keys)
    globs = [glob for each in given for glob in each]
    for text in globs:
        pattern = glob(text)
        if not any(pattern.search(key) for key in keys):
            listed = ", ".join(shown(key) for key in keys[:KEYS_LISTED])
            if len(keys) > KEYS_LISTED:
                listed += f" and {len(keys) - KEYS_LISTED:,} more"
            raise CliError(
                f"--metric {shown(repr(text))}: no metric key of the runs matches it"
                f" (their keys: {listed or 'none'})"
            )
    return pick_keys(globs, keys)


KEYS_LISTED = 40
"""The most keys an error lists."""

LABEL_CHARS = _core.LABEL_CHARS
"""The most characters of a key or a run's name drawn as a label (a panel's axis, its
heading, the legend, the title): a longer one is cut to its first 79 and an ellipsis, so
that laying out the figure costs the same for a key of a megabyte. The data keeps it whole;
the core's rule, the viewer's too."""


def label_of(text: str) -> str:
    """`text` as a label is drawn: cut by the core to `LABEL_CHARS` characters (the last an
    ellipsis) when longer, shown as data (`shown`)."""
    return shown(_core.label_of(text))


# -- drawing ------------------------------------------------------------------------------

COLOURS = 10
"""The colours of matplotlib's `tab10`, told apart by most eyes."""

LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("", "o", "s", "^", "D", "v")

STYLES = COLOURS * len(LINE_STYLES) * len(MARKERS)
"""Distinct styles before one repeats."""

MAX_COLUMNS = 4
"""The most legend columns beside the panels."""


def style(index: int) -> dict[str, Any]:
    """The style of the `index`th run: colour first, then line style, then marker; unique
    for the first `STYLES` runs."""
    from matplotlib import colormaps

    colour = colormaps["tab10"](index % COLOURS)
    line_style = LINE_STYLES[(index // COLOURS) % len(LINE_STYLES)]
    marker = MARKERS[(index // (COLOURS * len(LINE_STYLES))) % len(MARKERS)]
    return {"color": colour, "linestyle": line_style, "marker": marker or None}


def ema(values: Sequence[float], weight: float) -> Any:
    """TensorBoard's smoothing: an exponential moving average, debiased (divided by
    `1 - weight**n`, so the start is not pulled to zero); a value that is not finite is
    kept as it is and leaves the average alone."""
    numpy = _numpy()
    out = numpy.empty(len(values), numpy.float64)
    last = 0.0
    count = 0
    for index, value in enumerate(numpy.asarray(values, numpy.float64).tolist()):
        if not math.isfinite(value):
            out[index] = value
            continue
        last = last * weight + (1.0 - weight) * value
        count += 1
        out[index] = last / (1.0 - weight**count) if weight else value
    return out


def _segments(points: Points, breaks: list[int]) -> list[Points]:
    """The points cut where a resumed stretch begins (the line is not drawn back)."""
    steps, values = points
    bounds = [0, *breaks, len(steps)]
    return [(steps[a:b], values[a:b]) for a, b in pairwise(bounds) if b > a]


HEIGHTS = {"loss": 3.0, "eval_loss": 2.2, "learning_rate": 1.5}
"""Panel heights, relative; any other key's is `HEIGHT`."""

HEIGHT = 2.2

EDGES = (("NaN", "x", 0.0), ("Infinity", "^", 1.0), ("-Infinity", "v", 0.0), ("<= 0", "v", 0.0))
"""The values a panel's axis cannot place, each drawn as a marker on an edge (its height
in the panel, 0 the bottom, 1 the top): NaN, the infinities, and on a log scale the
values not above 0."""

FAINT = 0.25
"""The opacity of a group's runs, behind its mean and band."""


def _on_scale(values: Any, log: bool) -> Any:
    """The values a line is drawn through: NaN (a break) where the axis cannot place one."""
    numpy = _numpy()
    drawn = numpy.array(values, numpy.float64)
    drawn[~numpy.isfinite(drawn)] = numpy.nan
    if log:
        drawn[drawn <= 0] = numpy.nan
    return drawn


def _lone(drawn: Any) -> Any:
    """Where a line through `drawn` (`_on_scale`'s values) shows nothing: a value on the
    scale with no neighbour on it (the only one, or one between gaps and values off the
    scale), as a bool array; each is drawn as a marker."""
    numpy = _numpy()
    on = numpy.isfinite(drawn)
    if not len(on):
        return on
    before = numpy.concatenate(([False], on[:-1]))
    after = numpy.concatenate((on[1:], [False]))
    return on & ~before & ~after


def _lone_marks(panel: Axes, steps: Any, drawn: Any, look: dict[str, Any], alpha: float) -> None:
    """The points of a line that it cannot show (`_lone`), each a marker in its look (its
    own marker, else a dot)."""
    lone = _lone(drawn)
    if not lone.any():
        return
    panel.plot(
        steps[lone],
        drawn[lone],
        linestyle="none",
        marker=look["marker"] or "o",
        markersize=4,
        color=look["color"],
        alpha=alpha,
        gid="lone point",
    )


def _edge_marks(
    panel: Axes,
    points: Points,
    gaps: Any,
    colour: Any,
    alpha: float,
    log: bool,
    counts: dict[str, int],
) -> None:
    """The run's values the axis cannot place, drawn on the panel's edges in its colour
    (outside the clip, so that a marker is seen whole), and counted into `counts`; a null
    (`gaps`) is a gap, no marker."""
    numpy = _numpy()
    steps = numpy.asarray(points[0], numpy.float64)
    values = numpy.asarray(points[1], numpy.float64)
    real = numpy.ones(len(values), bool) if gaps is None else ~gaps
    kinds = {
        "NaN": numpy.isnan(values) & real,
        "Infinity": values == numpy.inf,
        "-Infinity": values == -numpy.inf,
        "<= 0": numpy.isfinite(values) & (values <= 0) if log else numpy.zeros(len(values), bool),
    }
    for word, marker, height in EDGES:
        chosen = kinds[word]
        count = int(chosen.sum())
        if not count:
            continue
        counts[word] = counts.get(word, 0) + count
        panel.plot(
            steps[chosen],
            numpy.full(count, height),
            linestyle="none",
            marker=marker,
            markersize=6,
            markeredgewidth=1.5,
            color=colour,
            alpha=min(1.0, alpha * 2.4),
            transform=panel.get_xaxis_transform(),  # x: the step; y: the panel's height
            clip_on=False,
            zorder=4,
            gid=f"edge {word}",
        )


def _draw_run(
    panel: Axes,
    series: Series,
    name: str,
    look: dict[str, Any],
    *,
    faint: bool,
    log: bool,
    smooth: float | None,
    counts: dict[str, int],
) -> None:
    """One run's line of the key `name` in its look (faint: behind its group's mean)."""
    numpy = _numpy()
    points = series.of(name)
    many = len(points[0]) > 12
    marker = None if faint else look["marker"] or ("o" if name == "eval_loss" else None)
    every = max(len(points[0]) // 8, 1) if many else 1
    alpha = FAINT if faint else 1.0
    _edge_marks(panel, points, series.gaps.get(name), look["color"], alpha, log, counts)
    smoothed = smooth is not None and name == "loss" and not faint
    for steps, values in _segments(points, series.breaks.get(name, [])):
        steps = numpy.asarray(steps, numpy.float64)
        common = {"color": look["color"], "linestyle": look["linestyle"]}
        if smoothed:
            panel.plot(steps, _on_scale(values, log), linewidth=0.8, alpha=0.25, **common)
            values = ema(values, smooth or 0.0)
        drawn = _on_scale(values, log)
        panel.plot(
            steps,
            drawn,
            linewidth=0.9 if faint else 1.3,
            alpha=alpha,
            marker=marker,
            markersize=3.5,
            markevery=every,
            **common,
        )
        _lone_marks(panel, steps, drawn, look, alpha)


def _draw_band(
    panel: Axes, members: list[Points], look: dict[str, Any], log: bool, smooth: float | None
) -> None:
    """A group's band (mean +- one standard deviation, per step: `band`) and its mean line,
    smoothed as a run's loss is with `smooth`."""
    steps, mean, std, _ = band(members)
    if not len(steps):
        return
    low, high = mean - std, mean + std
    if smooth is not None:
        mean, low, high = ema(mean, smooth), ema(low, smooth), ema(high, smooth)
    panel.fill_between(
        steps, low, high, color=look["color"], alpha=0.2, linewidth=0, gid="group band"
    )
    many = len(steps) > 12
    drawn = _on_scale(mean, log)
    panel.plot(
        steps,
        drawn,
        color=look["color"],
        linestyle=look["linestyle"],
        linewidth=1.8,
        marker=look["marker"],
        markersize=3.5,
        markevery=max(len(steps) // 8, 1) if many else 1,
        gid="group mean",
    )
    _lone_marks(panel, steps, drawn, look, 1.0)


def make_figure(
    runs: list[Series],
    title: str | None,
    *,
    log: bool = False,
    smooth: float | None = None,
    keys: Sequence[str] | None = None,
    group: Pattern | None = None,
) -> tuple[Figure, list[str]]:
    """The figure of the runs (matplotlib, Agg) and the notes for the user (what the
    legend leaves out, styles that repeat, values the axes cannot place). A panel per key
    of `keys` (`pick_keys`' order; by default the losses and the learning rate some run
    has) under its heading (`sections`); with `group`, the runs in groups (`entries_of`)."""
    try:
        import matplotlib
    except ImportError as error:
        raise CliError("plot needs matplotlib: pip install 'overbrainer-contract[cli]'") from error
    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FormatStrFormatter, LogFormatter

    if keys is None:
        keys = [key for key in PLOTTED if any(len(series.of(key)[0]) for series in runs)]
    laid_out = sections(keys)
    names = [key for _, section in laid_out for key in section]
    headings = {section[0]: heading for heading, section in laid_out if heading}
    figure, axes_list = pyplot.subplots(
        len(names),
        1,
        sharex=True,
        figsize=(9, max(1.6 + 1.6 * len(names), 4.8 if len(runs) <= 20 else 6.4)),
        height_ratios=[HEIGHTS.get(name, HEIGHT) for name in names],
        layout="constrained",
        squeeze=False,
    )
    axes: dict[str, Axes] = {name: axes_list[i][0] for i, name in enumerate(names)}
    entries = entries_of([series.label for series in runs], group)
    notes: list[str] = []
    off_axis: dict[str, dict[str, int]] = {name: {} for name in names}
    for index, entry in enumerate(entries):
        look = style(index)
        grouped = entry.key is not None
        for member in entry.members:
            series = runs[member]
            for name in names:
                if len(series.of(name)[0]):
                    _draw_run(
                        axes[name],
                        series,
                        name,
                        look,
                        faint=grouped,
                        log=log,
                        smooth=smooth,
                        counts=off_axis[name],
                    )
            for step in series.resumes:
                for panel in axes.values():
                    panel.axvline(
                        step,
                        color=look["color"],
                        linestyle=":",
                        linewidth=1.2,
                        alpha=0.5 if grouped else 0.9,
                    )
        if grouped:
            for name in names:
                members = [runs[m].of(name) for m in entry.members if len(runs[m].of(name)[0])]
                if members:
                    loss = smooth if name == "loss" else None
                    _draw_band(axes[name], members, look, log, loss)
    for name, panel in axes.items():
        label = TITLES.get(name, name)
        label += f" (smoothed {smooth:g})" if smooth and name == "loss" else ""
        # Every text from data (a key, a run's name, the title given) is drawn as data:
        # controls as visible escapes (`shown`), never read as mathtext (`loss$x`, or
        # `a$\frac{x}{$`, which would fail the whole figure).
        panel.set_ylabel(label_of(label), parse_math=False)
        panel.set_label(name)  # the key, for whoever reads the figure
        panel.grid(alpha=0.3)
        if name in headings:
            panel.set_title(
                label_of(headings[name] + "/"), loc="left", fontweight="bold", parse_math=False
            )
        if log:
            panel.set_yscale("log")
            if name != "learning_rate":  # a loss: plain numbers, not powers of ten
                # The minor ticks are labelled only while the axis spans less than a decade
                # or so (matplotlib's thresholds): over several decades they would overlap.
                panel.yaxis.set_major_formatter(FormatStrFormatter("%g"))
                panel.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False))
        elif name == "learning_rate":
            panel.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        counted = off_axis[name]
        if counted:
            _edge_legend(panel, counted)
            odd = [f"{counted[word]:,} {word}" for word, _, _ in EDGES[:3] if word in counted]
            if odd:
                notes.append(
                    f"{name}: {', '.join(odd)}: not finite, drawn as markers on the panel's"
                    " edges (NaN and -Infinity at the bottom, Infinity at the top)"
                )
    axes[names[-1]].set_xlabel("step")
    if title:
        told = shown(title)  # the user's own words, whole
    elif len(runs) == 1:
        told = label_of(runs[0].label)
    else:
        told = f"{len(runs):,} runs"
    if names[0] in headings:  # the panel's title is its heading: the figure's above it
        figure.suptitle(told, parse_math=False)
    else:
        axes[names[0]].set_title(told, parse_math=False)
    low = sum(counted.get("<= 0", 0) for counted in off_axis.values())
    if low:
        notes.append(f"{low:,} values <= 0 drawn on the bottom edge of the log scale")
    if len(entries) > STYLES:
        notes.append(f"styles repeat after {STYLES} runs: the legend tells them apart by order")
    handles = [
        Line2D([], [], linewidth=2.0 if entry.key is not None else 1.5, markersize=4, **style(i))
        for i, entry in enumerate(entries)
    ]
    labels = [entry.label(runs) for entry in entries]
    resumed = any(series.resumes for series in runs)
    if resumed:
        handles.append(Line2D([], [], color="0.3", linestyle=":", linewidth=1.2))
        labels.append("resumed here (the run's colour)")
    if len(runs) > 1 or resumed:
        note = _legend(figure, handles, labels, resumed=resumed)
        if note:
            notes.append(note)
    return figure, notes


def _edge_legend(panel: Axes, counted: dict[str, int]) -> None:
    """A panel's count of the values drawn on its edges, marker by marker."""
    from matplotlib.lines import Line2D

    shown_here = [(word, marker) for word, marker, _ in EDGES if word in counted]
    handles = [
        Line2D([], [], linestyle="none", marker=marker, color="0.35", markersize=5)
        for _, marker in shown_here
    ]
    labels = [
        f"{word} ({counted[word]:,})" if word != "<= 0" else f"<= 0, log scale ({counted[word]:,})"
        for word, _ in shown_here
    ]
    legend = panel.legend(handles, labels, loc="best", fontsize=6.5, framealpha=0.6)
    legend.set_gid("off the axis")


def _legend(figure: Figure, handles: list[Any], labels: list[str], resumed: bool) -> str | None:
    """One legend for every run beside the panels, in as many columns as its height needs
    (at most `MAX_COLUMNS`), the figure widened for them; the runs that do not fit are
    left out, and counted in a last entry and in the note returned."""
    from matplotlib.lines import Line2D

    size = 7.5  # points
    rows = max(int(figure.get_figheight() * 72 * 0.9 // (size * 1.55)), 4)
    columns = min(math.ceil(len(labels) / rows), MAX_COLUMNS)
    note = None
    if len(labels) > rows * columns:
        extra = handles[-1:] if resumed else []
        extra_labels = labels[-1:] if resumed else []
        runs = len(labels) - len(extra)
        keep = rows * columns - 1 - len(extra)
        left = runs - keep
        note = f"the legend shows {keep:,} of {runs:,} runs: {left:,} left out (the last ones)"
        handles = [*handles[:keep], *extra, Line2D([], [], linestyle="none")]
        labels = [*labels[:keep], *extra_labels, f"... and {left:,} more runs"]
    longest = max(len(label) for label in labels)
    column_width = (longest * 0.55 + 4.5) * size / 72  # inches: text, handle, spacing
    figure.set_figwidth(figure.get_figwidth() + columns * column_width)
    legend: Legend = figure.legend(
        handles,
        labels,
        loc="outside right upper",
        ncols=columns,
        fontsize=size,
        frameon=False,
        handlelength=2.6,
        columnspacing=1.0,
        labelspacing=0.4,
    )
    for text in legend.get_texts():
        text.set_parse_math(False)  # run names are data, not mathtext
    legend.set_in_layout(True)
    return note


def save(figure: Figure, output: Path, dpi: int) -> None:
    """`figure` into `output` through `files.atomic` (an exclusive temporary, renamed once
    complete): a full disk, an error or an ending signal leaves the earlier picture as it
    was and no temporary; the format is the suffix's."""
    from matplotlib import pyplot

    kind = output.suffix[1:].lower()
    try:
        from matplotlib.backend_bases import FigureCanvasBase

        if kind not in FigureCanvasBase.get_supported_filetypes():
            raise ValueError(f"Format {kind!r} is not supported")
        with atomic_file(output) as handle:
            figure.savefig(handle, dpi=dpi, format=kind)
    except OSError as error:
        raise CliError(f"{shown(str(output))}: {error.strerror or error}") from error
    except ValueError as error:
        raise CliError(f"{shown(str(output))}: {error}") from error
    finally:
        pyplot.close(figure)


def draw(
    runs: list[Series],
    output: Path,
    title: str | None,
    dpi: int,
    *,
    log: bool = False,
    smooth: float | None = None,
    keys: Sequence[str] | None = None,
    group: Pattern | None = None,
) -> list[str]:
    """Draw the runs into `output`; the notes for the user."""
    figure, notes = make_figure(runs, title, log=log, smooth=smooth, keys=keys, group=group)
    save(figure, output, dpi)
    return notes
