"""`plot RUN... -o FILE`: loss and eval loss against step, learning rate below."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..check.reporter import plural
from ..reader import FIELD_NAMES, TAGS, TableScan
from ..runs.chunks import read_chunks
from ..runs.sidefile import SideFileError, open_metrics
from ..runs.state import Run, RunError, resolve
from ._common import EXIT_CODES, INVALID, OK, PROG, CliError, add_max_line, formatter, say

if TYPE_CHECKING:
    from overbrainer_contract_core._core import TableBatch

BATCH_LINES = 1 << 20
"""Lines a batch of the core's columns holds, here."""

DESCRIPTION = """\
Plot one or more runs: training loss and eval loss against the step on the top panel,
the learning rate on the bottom one; several runs are overlaid, with a legend.
matplotlib, headless (no display needed). The format follows the file's suffix
(.png, .svg, .pdf). Invalid lines are skipped with a warning. Exit 1 when there is
nothing to plot."""

EPILOG = f"""\
examples:
  {PROG} plot runs/7 -o loss.png
  {PROG} plot runs/7 runs/8 --title "lr 2e-5 vs 1e-4" -o compare.svg

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "plot",
        parents=parents,
        help="plot loss, eval loss and learning rate against step",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders or metrics files")
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.png, .svg, ...")
    parser.add_argument("--title", help="a title above the plot")
    parser.add_argument("--dpi", type=int, default=120, help="resolution of a PNG (default 120)")
    add_max_line(parser)
    parser.set_defaults(run=run)


Points = tuple[Any, Any]
"""Steps and values, as two arrays of the same length (numpy)."""


class Series:
    """The values of one run: steps and values, of the loss, the eval loss, the rate."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.loss: Points = ((), ())
        self.eval_loss: Points = ((), ())
        self.learning_rate: Points = ((), ())
        self.invalid = 0

    def __bool__(self) -> bool:
        return any(len(steps) for steps, _ in (self.loss, self.eval_loss, self.learning_rate))


PLOTTED = ("loss", "eval_loss", "learning_rate")
"""The fields drawn, of the log lines."""


def read_series(target: Run, max_line: int | None = None) -> Series:
    """The plotted values of a run, from its metrics file: its chunks read by the core
    (`reader.TableScan`), which gives the columns; the points are taken from them with
    numpy (matplotlib's own), no Python object per value. A line the reference rejects (or
    over the user's bound) is counted as invalid."""
    label = target.name.rstrip("/") or target.name
    series = Series(label)
    if target.metrics is None:
        import sys

        return _fill(series, sys.stdin.buffer, max_line)
    try:
        with open_metrics(target.metrics) as handle:
            return _fill(series, handle, max_line)
    except SideFileError as error:
        raise CliError(str(error)) from error
    except OSError as error:
        raise CliError(f"{target.name}: {error.strerror or error}") from error


def _fill(series: Series, handle: IO[bytes], max_line: int | None) -> Series:
    try:
        import numpy
    except ImportError as error:
        raise CliError("plot needs matplotlib: pip install 'overbrainer-contract[cli]'") from error
    scan = TableScan(BATCH_LINES, max_line)
    batches: list[TableBatch] = []
    for chunk in read_chunks(handle):
        batches += scan.feed(chunk)
        if scan.stopped:
            break
    batches += scan.finish()
    series.invalid = sum(scan.left_out) + scan.cut
    log = TAGS.index("log")
    at = {name: FIELD_NAMES.index(name) for name in ("step", *PLOTTED)}
    found: dict[str, tuple[list[Any], list[Any]]] = {name: ([], []) for name in PLOTTED}
    for rows, _, events, fields in batches:
        logs = numpy.frombuffer(events, numpy.int8) == log
        steps = numpy.frombuffer(fields[at["step"]][0], numpy.uint64)
        for name in PLOTTED:
            values, validity, _ = fields[at[name]]
            shown = logs
            if validity is not None:
                valid = numpy.unpackbits(numpy.frombuffer(validity, numpy.uint8), bitorder="little")
                shown = logs & valid[:rows].astype(bool)
            found[name][0].append(steps[shown])
            found[name][1].append(numpy.frombuffer(values, numpy.float64)[shown])
    for name, (steps_of, values_of) in found.items():
        if steps_of:
            setattr(series, name, (numpy.concatenate(steps_of), numpy.concatenate(values_of)))
    return series


def run(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if not output.suffix:
        raise CliError(f"{output}: give the file a suffix (.png, .svg) for its format")
    runs = []
    for name in args.runs:
        try:
            runs.append(read_series(resolve(name), args.max_line))
        except RunError as error:
            raise CliError(str(error)) from error
    for series in runs:
        if series.invalid:
            say(f"warning: {series.label}: {plural(series.invalid, 'invalid line')} skipped")
    if not any(runs):
        say(
            f"error: nothing to plot: no loss, eval loss or learning rate in {', '.join(args.runs)}"
        )
        return INVALID
    draw(runs, output, args.title, args.dpi)
    return OK


def draw(runs: list[Series], output: Path, title: str | None, dpi: int) -> None:
    """Draw the runs into `output` (matplotlib, Agg)."""
    try:
        import matplotlib
    except ImportError as error:
        raise CliError("plot needs matplotlib: pip install 'overbrainer-contract[cli]'") from error
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (top, bottom) = pyplot.subplots(
        2, 1, sharex=True, figsize=(9, 6), height_ratios=(3, 1.3), layout="constrained"
    )
    colours = pyplot.rcParams["axes.prop_cycle"].by_key()["color"]
    several = len(runs) > 1
    for index, series in enumerate(runs):
        colour = colours[index % len(colours)]
        prefix = f"{series.label}: " if several else ""
        if len(series.loss[0]):
            steps, values = series.loss
            top.plot(steps, values, color=colour, linewidth=1.2, label=f"{prefix}loss")
        if len(series.eval_loss[0]):
            steps, values = series.eval_loss
            top.plot(
                steps,
                values,
                color=colour,
                linestyle="--",
                marker="o",
                markersize=4,
                label=f"{prefix}eval loss",
            )
        if len(series.learning_rate[0]):
            steps, values = series.learning_rate
            bottom.plot(steps, values, color=colour, linewidth=1.2, label=series.label)
    top.set_ylabel("loss")
    top.grid(alpha=0.3)
    top.legend(loc="upper right", fontsize="small")
    bottom.set_ylabel("learning rate")
    bottom.set_xlabel("step")
    bottom.grid(alpha=0.3)
    bottom.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    if several:
        bottom.legend(loc="upper right", fontsize="small")
    top.set_title(title or (runs[0].label if not several else "loss"))
    try:
        figure.savefig(output, dpi=dpi)
    except (OSError, ValueError) as error:
        raise CliError(f"{output}: {error}") from error
    finally:
        pyplot.close(figure)
