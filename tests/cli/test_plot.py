"""`plot`: a PNG that opens and is not blank, an SVG, several runs, nothing to plot; the
points through the core (`TableScan`) against every line read by `parse_line`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from cli_samples import VALID, make_run
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from line_kinds import split_lines
from overbrainer_contract.cli import plot
from overbrainer_contract.cli.plot import Series, read_series
from overbrainer_contract.contract.models import Log
from overbrainer_contract.reader import ParseError, parse_line
from overbrainer_contract.runs.state import resolve

image = pytest.importorskip("matplotlib.image")


def test_plot_writes_a_png_that_is_not_blank(tmp_path: Path, cli: Callable[..., Any]) -> None:
    run = make_run(tmp_path / "run", VALID)
    output = tmp_path / "loss.png"
    result = cli("plot", str(run), "-o", str(output))
    assert result.code == 0, result.err
    pixels = image.imread(output)
    assert pixels.ndim == 3
    assert pixels.shape[0] > 200
    assert pixels.shape[1] > 200
    assert pixels.var() > 0


def test_plot_overlays_several_runs_into_an_svg(tmp_path: Path, cli: Callable[..., Any]) -> None:
    first = make_run(tmp_path / "first", VALID)
    second = make_run(tmp_path / "second", VALID.replace('"loss":2.5', '"loss":2.0'))
    output = tmp_path / "both.svg"
    result = cli(
        "plot", str(first), str(second / "metrics.jsonl"), "-o", str(output), "--title", "two"
    )
    assert result.code == 0, result.err
    text = output.read_text()
    assert text.startswith("<?xml")
    # one legend entry a run, named by its folder; a panel a field
    for label in ("<!-- first -->", "<!-- second -->", "eval loss", "learning rate"):
        assert label in text
    assert result.out == f"wrote {output}: 2 runs\n"


def test_plot_skips_invalid_lines_with_a_warning(tmp_path: Path, cli: Callable[..., Any]) -> None:
    run = make_run(tmp_path / "run", VALID + "garbage\n")
    result = cli("plot", str(run), "-o", str(tmp_path / "loss.png"))
    assert result.code == 0
    assert result.err == f"overbrainer-contract: warning: {run}: 1 invalid line (skipped)\n"


def test_plot_errors(tmp_path: Path, cli: Callable[..., Any]) -> None:
    empty = make_run(tmp_path / "empty", '{"event":"begin","time":1.0}\n')
    nothing = cli("plot", str(empty), "-o", str(tmp_path / "x.png"))
    assert nothing.code == 1
    assert "nothing to plot" in nothing.err
    assert cli("plot", str(tmp_path / "missing"), "-o", str(tmp_path / "x.png")).code == 2
    assert cli("plot", str(empty)).code == 2  # -o is required
    assert cli("plot", str(make_run(tmp_path / "r", VALID)), "-o", str(tmp_path / "x")).code == 2
    unwritable = cli("plot", str(tmp_path / "r"), "-o", str(tmp_path / "no" / "dir" / "x.png"))
    assert unwritable.code == 2
    assert unwritable.err.count("\n") == 1


# -- the points through the core (`TableScan` columns) against every line read alone -----

numbers = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, 1.5, 2.5e-05]),
)
steps = st.integers(0, 2**64 - 1) | st.integers(0, 50)
field = partial(st.one_of, st.none(), st.just(...))  # null, or absent


def dumped(**fields: Any) -> bytes:
    return json.dumps({key: value for key, value in fields.items() if value is not ...}).encode()


plot_lines = st.one_of(
    st.builds(
        partial(dumped, event="log"),
        time=numbers,
        step=steps,
        max_steps=field(steps),
        loss=field(numbers),
        eval_loss=field(numbers),
        learning_rate=field(numbers),
        grad_norm=field(numbers),
    ),
    st.builds(partial(dumped, event="eval"), time=numbers, step=steps, total=field(steps)),
    st.builds(partial(dumped, event="begin"), time=numbers, max_steps=field(steps)),
    st.builds(partial(dumped, event="end"), time=numbers, step=steps),
    st.just(b'{"event":"stage","name":"train","time":1}'),
    st.sampled_from(
        [
            b"",
            b"garbage",
            b'{"event":"log","time":1,"step":-1,"loss":1}',
            b'{"event":"log","time":1,"step":2,"loss":NaN}',
            b'{"event":"log","time":1,"step":2,"loss":1,"x":"\xff"}',
            b'{"event":"log","time":1,"step":2,"loss":0.5,"note":"' + b"y" * 200 + b'"}',
        ]
    ),
)


@st.composite
def plot_files(draw: st.DrawFn) -> bytes:
    """A metrics file of logs with any values (fields null, absent or there), other
    lines, bad lines; its last line with its newline, without it, or cut short."""
    data = b"".join(line + b"\n" for line in draw(st.lists(plot_lines, max_size=50)))
    end = draw(st.sampled_from(["newline", "none", "cut"]))
    if end != "newline" and data:
        data = data[:-1]
        if end == "cut":
            data = data[: len(data) - draw(st.integers(0, 30))]
    return data


def points_by_lines(data: bytes, max_line: int | None) -> tuple[dict[str, list[Any]], int, bool]:
    """`plot`'s points as they were (`git show 017c58e:…/cli/plot.py`): every line
    through `parse_line`, each log's loss, eval loss and learning rate where it is a
    float, with its step; a line rejected (or over `max_line`, without its newline)
    invalid — but the last line cut short (no newline, category `eof`), which `check`
    takes for a warning, counted apart, as `check` does."""
    points: dict[str, list[Any]] = {name: [] for name in ("loss", "eval_loss", "learning_rate")}
    invalid = 0
    cut = False
    for raw in split_lines(data):
        if max_line is not None and len(raw.rstrip(b"\n")) > max_line:
            invalid += 1
            continue
        try:
            line = parse_line(raw)
        except ParseError as error:
            if not raw.endswith(b"\n") and error.category == "eof":
                cut = True
            else:
                invalid += 1
            continue
        if not isinstance(line, Log):
            continue
        for name, found in points.items():
            value = getattr(line, name)
            if isinstance(value, float):
                found.append((line.step, value.hex()))
    return points, invalid, cut


def points_of(series: Series) -> dict[str, list[Any]]:
    """A series' points, as `points_by_lines` gives them: (step, the float's hex)."""
    found = {}
    for name in ("loss", "eval_loss", "learning_rate"):
        steps, values = getattr(series, name)
        assert len(steps) == len(values)
        found[name] = [
            (int(step), float(value).hex()) for step, value in zip(steps, values, strict=True)
        ]
    return found


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    plot_files(),
    st.lists(st.integers(0), max_size=8),
    st.sampled_from([1, 2, 3, 1 << 20]),
    st.one_of(st.none(), st.none(), st.integers(30, 200)),
)
@example(b'{"event":"log","time":1,"step":2,"loss":-0.0}\n{"event":"log","ti', [], 1, None)
def test_plot_takes_the_points_every_line_gives(
    tmp_path: Path, data: bytes, at: list[int], batch_lines: int, max_line: int | None
) -> None:
    """`read_series` (the core's columns, the file in chunks cut anywhere, in batches of
    any number of lines) gives the points of each log line read alone, in order, steps
    exactly and values to the bit, and counts the same invalid lines."""
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(data)
    bounds = [0, *sorted({point % (len(data) + 1) for point in at}), len(data)]
    chunks = [data[a:b] for a, b in pairwise(bounds) if b > a]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plot, "read_chunks", lambda _handle, name: iter(chunks))  # noqa: ARG005
        patch.setattr(plot, "BATCH_LINES", batch_lines)
        series = read_series(resolve(str(path)), max_line)
    points, invalid, cut = points_by_lines(data, max_line)
    assert points_of(series) == points
    assert (series.invalid, series.cut) == (invalid, cut)
    assert bool(series) == any(points.values())


def test_plot_of_a_large_run_takes_the_points_every_line_gives(tmp_path: Path) -> None:
    """A run of megabytes (read in the core's parts on every core), a line in nine bad."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from workloads import realistic_lines, with_bad_lines

    lines = list(with_bad_lines(realistic_lines(30_000)))
    data = "".join(text + "\n" for text in lines).encode()
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(data)
    series = read_series(resolve(str(path)))
    points, invalid, cut = points_by_lines(data, None)
    assert points_of(series) == points
    assert series.invalid == invalid > 0
    assert series.cut is cut is False
