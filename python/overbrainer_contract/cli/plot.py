"""`plot RUN... -o FILE`: loss, eval loss and learning rate against step, for one run or a
sweep of many."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..reader import FIELD_NAMES, TAGS, TableScan
from ..runs.atomic import atomic_file
from ..runs.chunks import GzipCutError, read_chunks
from ..runs.discover import find_runs
from ..runs.shown import shown
from ..runs.sidefile import SideFileError
from ..runs.sizes import invalid_text
from ..runs.state import Run, RunError
from ._common import EXIT_CODES, INVALID, OK, PROG, CliError, add_max_line, formatter, say

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend
    from overbrainer_contract_core._core import TableBatch

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
Says where it wrote. Exit 1 when there is nothing to plot."""

EPILOG = f"""\
examples:
  {PROG} plot runs/7 -o loss.png
  {PROG} plot runs/7 runs/8 --title "lr 2e-5 vs 1e-4" -o compare.svg
  {PROG} plot sweep/ --log --smooth -o sweep.png

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
    add_max_line(parser)
    parser.set_defaults(run=run)


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


@dataclass
class Series:
    """The values of one run: steps and values of the loss, the eval loss, the rate (in the
    file's order, exactly as read); where it resumed."""

    label: str
    path: str = ""
    """The run as given or found (`many/exp1/seed1`), for messages."""
    loss: Points = ((), ())
    eval_loss: Points = ((), ())
    learning_rate: Points = ((), ())
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
    """For each field, the indices of its points where a resumed stretch begins."""

    def __bool__(self) -> bool:
        return any(len(steps) for steps, _ in (self.loss, self.eval_loss, self.learning_rate))


PLOTTED = ("loss", "eval_loss", "learning_rate")
"""The fields drawn, of the log lines."""

TITLES = {"loss": "loss", "eval_loss": "eval loss", "learning_rate": "learning rate"}


def read_series(target: Run, max_line: int | None = None) -> Series:
    """The plotted values of a run, from its metrics file: its chunks read by the core
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
    at = {name: FIELD_NAMES.index(name) for name in ("step", *PLOTTED)}
    found: dict[str, tuple[list[Any], list[Any], list[Any]]] = {
        name: ([], [], []) for name in PLOTTED
    }
    log_rows: list[Any] = []
    log_steps: list[Any] = []
    begins: list[Any] = []
    offset = 0
    for rows, _, events, fields, _scalars in batches:
        kinds = numpy.frombuffer(events, numpy.int8)
        logs = kinds == log
        steps = numpy.frombuffer(fields[at["step"]][0], numpy.uint64)
        log_rows.append(numpy.flatnonzero(logs) + offset)
        log_steps.append(steps[logs])
        begins.append(numpy.flatnonzero(kinds == begin) + offset)
        for name in PLOTTED:
            values, validity, _ = fields[at[name]]
            shown = logs
            if validity is not None:
                valid = numpy.unpackbits(numpy.frombuffer(validity, numpy.uint8), bitorder="little")
                shown = logs & valid[:rows].astype(bool)
            found[name][0].append(steps[shown])
            found[name][1].append(numpy.frombuffer(values, numpy.float64)[shown])
            found[name][2].append(numpy.flatnonzero(shown) + offset)
        offset += rows
    resumed = numpy.concatenate(begins)[1:] if begins else []
    every_log = numpy.concatenate(log_rows) if log_rows else numpy.zeros(0, numpy.int64)
    every_step = numpy.concatenate(log_steps) if log_steps else numpy.zeros(0, numpy.uint64)
    for row in resumed:
        after = int(numpy.searchsorted(every_log, row))
        if after < len(every_log):  # the step its first log after the begin is at
            series.resumes.append(int(every_step[after]))
    for name, (steps_of, values_of, rows_of) in found.items():
        if not steps_of:
            continue
        setattr(series, name, (numpy.concatenate(steps_of), numpy.concatenate(values_of)))
        rows = numpy.concatenate(rows_of)
        cuts = sorted({int(numpy.searchsorted(rows, row)) for row in resumed})
        series.breaks[name] = [cut for cut in cuts if 0 < cut < len(rows)]
    return series


def run(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if not output.suffix:
        raise CliError(f"{shown(str(output))}: give the file a suffix (.png, .svg) for its format")
    try:
        targets = find_runs(args.runs)
    except RunError as error:
        raise CliError(shown(str(error))) from error
    runs = [read_series(target, args.max_line) for target in targets]
    for series in runs:
        if series.gzip_cut is not None:
            say(
                f"warning: {shown(series.path)}: {shown(series.gzip_cut)}: the lines before it read"
            )
        words = invalid_text(series.invalid, series.cut)
        if words:
            say(f"warning: {shown(series.path)}: {words} (skipped)")
    if not any(runs):
        given = ", ".join(shown(name) for name in args.runs)
        say(f"error: nothing to plot: no loss, eval loss or learning rate in {given}")
        return INVALID
    plotted = [series for series in runs if series]
    for series in runs:
        if not series:
            say(f"note: {shown(series.path)}: no loss, eval loss or learning rate: not drawn")
    figure, notes = make_figure(plotted, args.title, log=args.log, smooth=args.smooth)
    save(figure, output, args.dpi)
    for note in notes:
        say(f"note: {shown(note)}")
    resumed = sum(1 for series in plotted if series.resumes)
    told = f"wrote {shown(str(output))}: {len(plotted):,} run" + ("" if len(plotted) == 1 else "s")
    if resumed:
        told += f", {resumed:,} resumed (the dotted marks)"
    sys.stdout.write(told + "\n")
    return OK


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


def make_figure(
    runs: list[Series], title: str | None, *, log: bool = False, smooth: float | None = None
) -> tuple[Figure, list[str]]:
    """The figure of the runs (matplotlib, Agg) and the notes for the user (what the
    legend leaves out, styles that repeat, values a log scale cannot show)."""
    try:
        import matplotlib
    except ImportError as error:
        raise CliError("plot needs matplotlib: pip install 'overbrainer-contract[cli]'") from error
    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FormatStrFormatter, LogFormatter

    numpy = _numpy()
    names = [name for name in PLOTTED if any(len(getattr(s, name)[0]) for s in runs)]
    heights = {"loss": 3.0, "eval_loss": 2.2, "learning_rate": 1.5}
    figure, axes_list = pyplot.subplots(
        len(names),
        1,
        sharex=True,
        figsize=(9, max(1.6 + 1.6 * len(names), 4.8 if len(runs) <= 20 else 6.4)),
        height_ratios=[heights[name] for name in names],
        layout="constrained",
        squeeze=False,
    )
    axes: dict[str, Axes] = {name: axes_list[i][0] for i, name in enumerate(names)}
    notes: list[str] = []
    left_out_of_log = 0
    for index, series in enumerate(runs):
        look = style(index)
        for name in names:
            points = getattr(series, name)
            if not len(points[0]):
                continue
            panel = axes[name]
            many = len(points[0]) > 12
            marker = look["marker"] or ("o" if name == "eval_loss" else None)
            every = max(len(points[0]) // 8, 1) if many else 1
            if log:
                left_out_of_log += int((numpy.asarray(points[1]) <= 0).sum())
            smoothed = smooth is not None and name == "loss"
            for steps, values in _segments(points, series.breaks.get(name, [])):
                steps = numpy.asarray(steps, numpy.float64)
                common = {"color": look["color"], "linestyle": look["linestyle"]}
                if smoothed:
                    panel.plot(steps, values, linewidth=0.8, alpha=0.25, **common)
                    values = ema(values, smooth or 0.0)
                panel.plot(
                    steps,
                    values,
                    linewidth=1.3,
                    marker=marker,
                    markersize=3.5,
                    markevery=every,
                    **common,
                )
        for step in series.resumes:
            for panel in axes.values():
                panel.axvline(step, color=look["color"], linestyle=":", linewidth=1.2, alpha=0.9)
    for name, panel in axes.items():
        label = TITLES[name] + (f" (smoothed {smooth:g})" if smooth and name == "loss" else "")
        panel.set_ylabel(label)
        panel.grid(alpha=0.3)
        if log:
            panel.set_yscale("log")
            if name != "learning_rate":  # a loss: plain numbers, not powers of ten
                # The minor ticks are labelled only while the axis spans less than a decade
                # or so (matplotlib's thresholds): over several decades they would overlap.
                panel.yaxis.set_major_formatter(FormatStrFormatter("%g"))
                panel.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False))
        elif name == "learning_rate":
            panel.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    axes[names[-1]].set_xlabel("step")
    # Every text from data (a run's name, the title given) is drawn as data: controls as
    # visible escapes (`shown`), never read as mathtext (`a$\frac{x}{$` would fail the
    # whole figure).
    axes[names[0]].set_title(
        shown(title or (runs[0].label if len(runs) == 1 else f"{len(runs):,} runs")),
        parse_math=False,
    )
    if left_out_of_log:
        notes.append(f"{left_out_of_log:,} values <= 0 left out of the log scale")
    if len(runs) > STYLES:
        notes.append(f"styles repeat after {STYLES} runs: the legend tells them apart by order")
    handles = [
        Line2D([], [], linewidth=1.5, markersize=4, **style(index)) for index in range(len(runs))
    ]
    labels = [shown(series.label) for series in runs]
    if any(series.resumes for series in runs):
        handles.append(Line2D([], [], color="0.3", linestyle=":", linewidth=1.2))
        labels.append("resumed here (the run's colour)")
    if len(runs) > 1 or any(series.resumes for series in runs):
        note = _legend(figure, handles, labels, resumed=any(s.resumes for s in runs))
        if note:
            notes.append(note)
    return figure, notes


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
    """`figure` into `output` through `runs.atomic` (an exclusive temporary, renamed once
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
) -> list[str]:
    """Draw the runs into `output`; the notes for the user."""
    figure, notes = make_figure(runs, title, log=log, smooth=smooth)
    save(figure, output, dpi)
    return notes
