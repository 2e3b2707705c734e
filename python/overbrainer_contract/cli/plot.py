"""`plot RUN... -o FILE`: loss and eval loss against step, learning rate below."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..check.reporter import plural
from ..contract.models import Log
from ..reader import ParseError, parse_line
from ..runs.lines import MAX_LINE, read_lines
from ..runs.sidefile import SideFileError, open_metrics
from ..runs.state import Run, RunError, resolve
from ._common import EXIT_CODES, INVALID, OK, PROG, CliError, add_max_line, formatter, say

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


class Series:
    """The values of one run: (step, value) lists."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.loss: list[tuple[int, float]] = []
        self.eval_loss: list[tuple[int, float]] = []
        self.learning_rate: list[tuple[int, float]] = []
        self.invalid = 0

    def __bool__(self) -> bool:
        return bool(self.loss or self.eval_loss or self.learning_rate)


def read_series(target: Run, max_line: int = MAX_LINE) -> Series:
    """The plotted values of a run, from its metrics file (a line over `max_line` bytes
    skipped as invalid)."""
    label = target.name.rstrip("/") or target.name
    series = Series(label)
    if target.metrics is None:
        import sys

        return _fill(series, read_lines(sys.stdin.buffer, max_line))
    try:
        with open_metrics(target.metrics) as handle:
            return _fill(series, read_lines(handle, max_line))
    except SideFileError as error:
        raise CliError(str(error)) from error
    except OSError as error:
        raise CliError(f"{target.name}: {error.strerror or error}") from error


def _fill(series: Series, lines: Any) -> Series:
    for raw in lines:
        try:
            line = parse_line(raw)
        except ParseError:
            series.invalid += 1
            continue
        if line.__class__ is not Log:
            continue
        assert isinstance(line, Log)
        if isinstance(line.loss, float):
            series.loss.append((line.step, line.loss))
        if isinstance(line.eval_loss, float):
            series.eval_loss.append((line.step, line.eval_loss))
        if isinstance(line.learning_rate, float):
            series.learning_rate.append((line.step, line.learning_rate))
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
        if series.loss:
            steps, values = zip(*series.loss, strict=True)
            top.plot(steps, values, color=colour, linewidth=1.2, label=f"{prefix}loss")
        if series.eval_loss:
            steps, values = zip(*series.eval_loss, strict=True)
            top.plot(
                steps,
                values,
                color=colour,
                linestyle="--",
                marker="o",
                markersize=4,
                label=f"{prefix}eval loss",
            )
        if series.learning_rate:
            steps, values = zip(*series.learning_rate, strict=True)
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
