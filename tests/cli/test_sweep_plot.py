"""`plot` of a sweep (`tests/sweep.py`: 40 runs or more, nested two deep, bad lines, one
resumed): legible (one legend inside the figure, styles that never repeat unseen, no
layout warning), `--log`, `--smooth`, the resumption marked, where it wrote said.

The PNGs are kept: under the folder `OVERBRAINER_TEST_ARTEFACTS` names (made if need
be), else under pytest's own temporary folder (`artefacts0` in its basetemp, kept for the
last three sessions)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_samples import python_env
from sweep import Sweep

image = pytest.importorskip("matplotlib.image")

from overbrainer_contract.cli import plot  # noqa: E402
from overbrainer_contract.runs.discover import find_runs  # noqa: E402
from overbrainer_contract.text.sizes import invalid_text  # noqa: E402

ARTEFACTS_ENV = "OVERBRAINER_TEST_ARTEFACTS"


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    named = os.environ.get(ARTEFACTS_ENV)
    if named:
        folder = Path(named)
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("artefacts")


def console(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The console script beside this Python, warnings of matplotlib's made errors."""
    script = Path(sys.executable).with_name("overbrainer-contract")
    env = python_env() | {"PYTHONWARNINGS": "error::UserWarning"}
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, env=env, cwd=cwd, check=False
    )


def numbers_as_numbers(name: str) -> list[tuple[int, int, str]]:
    return [
        (0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name)
    ]


def expected_warnings(sweep: Sweep) -> list[str]:
    """What plot says of the sweep's bad runs, in the words every command uses."""
    lines = []
    for name in sorted(sweep.runs, key=numbers_as_numbers):
        run = sweep.runs[name]
        words = invalid_text(run.invalid, run.cut)
        if words:
            where = f"{sweep.root.name}/{name}"
            lines.append(f"overbrainer-contract: warning: {where}: {words} (skipped)")
    return lines


def test_the_plot_of_a_sweep(sweep: Sweep, artefacts: Path) -> None:
    assert len(sweep.runs) >= 40
    output = artefacts / "sweep.png"
    result = console("plot", sweep.root.name, "-o", str(output), cwd=sweep.root.parent)
    assert result.returncode == 0, result.stderr
    resumed = sum(1 for run in sweep.runs.values() if run.begins > 1)
    assert resumed == 1
    assert (
        result.stdout == f"wrote {output}: {len(sweep.runs)} runs, 1 resumed (the dotted marks)\n"
    )
    assert result.stderr.splitlines() == expected_warnings(sweep)  # no layout warning
    pixels = image.imread(output)
    assert pixels.shape[0] > 500
    assert pixels.var() > 0


def lowest_values(sweep: Sweep) -> int:
    """The values a log scale cannot show (<= 0) in the sweep's valid log lines."""
    import gzip

    count = 0
    for run in sweep.runs.values():
        path = sweep.root / run.name / run.metrics
        data = gzip.decompress(path.read_bytes()) if run.gzipped else path.read_bytes()
        for raw in data.splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(line, dict) or line.get("event") != "log":
                continue
            for name in plot.PLOTTED:
                value = line.get(name)
                if isinstance(value, int | float) and value <= 0:
                    count += 1
    return count


def test_a_smoothed_log_scale_plot_of_the_sweep(sweep: Sweep, artefacts: Path) -> None:
    output = artefacts / "sweep-log-smooth.png"
    result = console(
        "plot",
        sweep.root.name,
        "--log",
        "--smooth",
        "0.8",
        "-o",
        str(output),
        cwd=sweep.root.parent,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {output}: ")
    notes = [line for line in result.stderr.splitlines() if ": note: " in line]
    left_out = lowest_values(sweep)
    if left_out:  # a cosine schedule ends at 0
        assert notes == [
            f"overbrainer-contract: note: {left_out:,} values <= 0 drawn on the bottom edge"
            " of the log scale"
        ]
    assert image.imread(output).var() > 0


def test_smooth_takes_a_weight_in_0_1(tmp_path: Path) -> None:
    for bad in ("1", "-0.1", "x"):
        result = console("plot", "r", "--smooth", bad, "-o", "x.png", cwd=tmp_path)
        assert result.returncode == 2
        assert f"a weight in [0, 1), not '{bad}'" in result.stderr


def test_the_moving_average_is_tensorboards_debiased_one() -> None:
    # weight 0.5: 0.5*1 / (1 - 0.5) = 1; (0.25 + 1) / 0.75; (0.625 + 1.5) / 0.875
    assert plot.ema([1.0, 2.0, 3.0], 0.5).tolist() == pytest.approx(
        [1.0, 1.25 / 0.75, 2.125 / 0.875]
    )
    assert plot.ema([2.0, 2.0, 2.0], 0.9).tolist() == pytest.approx([2.0, 2.0, 2.0])
    # a value that is not finite is kept, and leaves the average alone
    smoothed = plot.ema([1.0, float("nan"), 1.0], 0.6).tolist()
    assert smoothed[0] == smoothed[2] == pytest.approx(1.0)
    assert smoothed[1] != smoothed[1]
    assert plot.ema([3.0, 1.0], 0.0).tolist() == [3.0, 1.0]


def _inside(figure: Any) -> list[Any]:
    """The figure's legends, each checked to lie inside it, as drawn."""
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    box = figure.bbox
    for legend in figure.legends:
        extent = legend.get_window_extent(renderer)
        assert box.x0 <= extent.x0, (extent, box)
        assert extent.x1 <= box.x1, (extent, box)
        assert box.y0 <= extent.y0, (extent, box)
        assert extent.y1 <= box.y1, (extent, box)
        for axes in figure.axes:  # beside the panels, not over them
            assert not axes.get_window_extent(renderer).overlaps(extent)
    return list(figure.legends)


def test_the_legend_lies_inside_the_figure(sweep: Sweep) -> None:
    from matplotlib import pyplot

    series = [plot.read_series(run) for run in find_runs([str(sweep.root)])]
    figure, notes = plot.make_figure([s for s in series if s], None)
    try:
        (legend,) = _inside(figure)
        labels = [text.get_text() for text in legend.get_texts()]
        # every run, by its name, the numbers in names as numbers (seed2 before seed10)
        assert labels[: len(sweep.runs)] == sorted(sweep.runs, key=numbers_as_numbers)
        assert labels[-1] == "resumed here (the run's colour)"
        assert notes == []
    finally:
        pyplot.close(figure)


def test_a_legend_too_long_says_what_it_leaves_out() -> None:
    import numpy
    from matplotlib import pyplot

    many = []
    for index in range(300):
        series = plot.Series(f"run{index:03}")
        series.loss = (numpy.arange(3, dtype=numpy.uint64), numpy.array([3.0, 2.0, 1.0 + index]))
        many.append(series)
    figure, notes = plot.make_figure(many, None)
    try:
        (legend,) = _inside(figure)
        labels = [text.get_text() for text in legend.get_texts()]
        shown = len(labels) - 1
        assert labels[-1] == f"... and {300 - shown} more runs"
        assert labels[:shown] == [f"run{index:03}" for index in range(shown)]
        assert notes == [
            f"styles repeat after {plot.STYLES} runs: the legend tells them apart by order",
            f"the legend shows {shown} of 300 runs: {300 - shown} left out (the last ones)",
        ]
    finally:
        pyplot.close(figure)


def test_no_two_runs_share_a_style_before_they_must() -> None:
    looks = {
        (plot.style(index)["color"], plot.style(index)["linestyle"], plot.style(index)["marker"])
        for index in range(plot.STYLES)
    }
    assert len(looks) == plot.STYLES == 240
    assert plot.style(plot.STYLES) == plot.style(0)


def test_a_resumed_run_is_broken_and_marked(tmp_path: Path) -> None:
    lines = [{"event": "begin", "time": 0.0, "max_steps": 8}]
    lines += [{"event": "log", "time": s, "step": s, "loss": 1.0 / s} for s in range(1, 6)]
    lines += [{"event": "begin", "time": 10.0, "max_steps": 8}]  # from checkpoint 2
    lines += [{"event": "log", "time": 10.0 + s, "step": s, "loss": 1.0 / s} for s in range(3, 9)]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (series,) = [plot.read_series(run) for run in find_runs([str(tmp_path)])]
    assert series.resumes == [3]
    assert series.breaks["loss"] == [5]  # the line is not drawn back from step 5 to 3
    steps, _ = series.loss
    assert steps.tolist() == [1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8]
    result = console("plot", str(tmp_path), "-o", str(tmp_path / "r.svg"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"wrote {tmp_path / 'r.svg'}: 1 run, 1 resumed (the dotted marks)\n"


def test_plot_refuses_a_path_that_is_no_run_among_several(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "metrics.jsonl").write_text('{"event":"log","time":1,"step":1,"loss":1.0}\n')
    (tmp_path / "make_example.py").write_text("print('not a run')\n")
    result = console("plot", "a", "make_example.py", "-o", "x.png", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "overbrainer-contract: error: make_example.py: not a run folder nor a metrics file"
        " (.jsonl, .jsonl.gz)\n"
    )
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("log", [False, True])
def test_no_two_tick_labels_overlap(log: bool) -> None:
    """Each axis's labels, as drawn, apart: a log scale over several decades labels its
    decades, not every minor tick (the example runs' losses span 4 to 0.004)."""
    from matplotlib import pyplot
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    examples = Path(__file__).resolve().parents[2] / "examples"
    series = [plot.read_series(run) for run in find_runs([str(examples)])]
    figure, _ = plot.make_figure([s for s in series if s], None, log=log, smooth=0.6)
    try:
        figure.draw_without_rendering()
        assert isinstance(figure.canvas, FigureCanvasAgg)  # the backend plot draws with
        renderer = figure.canvas.get_renderer()  # type: ignore[no-untyped-call]  # unannotated
        for axes in figure.axes:
            for axis in (axes.xaxis, axes.yaxis):
                labels = [
                    tick.label1.get_window_extent(renderer)
                    for tick in axis.get_major_ticks() + axis.get_minor_ticks()
                    if tick.label1.get_visible() and tick.label1.get_text()
                ]
                for at, one in enumerate(labels):
                    for other in labels[at + 1 :]:
                        assert not one.overlaps(other), (axes.get_ylabel(), one, other)
    finally:
        pyplot.close(figure)


def test_a_run_with_nothing_to_draw_is_said_and_the_others_drawn(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "metrics.jsonl").write_text('{"event":"begin","time":1.0}\n')
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "metrics.jsonl").write_text(
        '{"event":"log","time":2.0,"step":1,"loss":2.5}\n{"event":"log","time":3.0,"step":2,"loss":2.0}\n'
    )
    done = console("plot", "empty", "one", "-o", "two.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "overbrainer-contract: note: empty: no loss, eval loss or learning rate: not drawn"
    ]
    assert done.stdout == "wrote two.png: 1 run\n"
    assert (tmp_path / "two.png").stat().st_size > 0
