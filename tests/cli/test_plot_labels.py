"""A long key or run name is drawn cut (`plot.LABEL_CHARS` characters, the last an
ellipsis) on the panel's axis, its heading, the legend and the title, so that a key of a
megabyte costs `plot` what a short one does; the data keeps it whole.

The labels expected are reasoned from the key: its first 79 characters and `…`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from overbrainer_contract.cli import plot

pytest.importorskip("matplotlib")

HANG_GUARD = 60.0
"""Seconds the child may take: a key of a megabyte is drawn in about one (matplotlib's
start); laying it out whole took minutes."""

ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"


def write_run(folder: Path, key: str, steps: int = 3) -> Path:
    folder.mkdir(parents=True)
    lines = [
        {"event": "log", "time": 1.0 + step, "step": step, "scalars": {key: float(step)}}
        for step in range(steps)
    ]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The figures `plot` makes, kept instead of written (and closed at the end)."""
    from matplotlib import pyplot

    kept: list[Any] = []
    monkeypatch.setattr(plot, "save", lambda figure, _output, _dpi: kept.append(figure))
    yield kept
    for figure in kept:
        pyplot.close(figure)


def test_a_key_of_a_megabyte_is_drawn_in_one_pass(tmp_path: Path) -> None:
    key = "g" * 500_000 + "/" + "k" * 500_000
    write_run(tmp_path / "run", key)
    args = ["plot", "run", "--metric", "g*", "-o", "x.png"]
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "x.png").stat().st_size > 0


def test_a_long_key_and_name_are_cut_where_drawn(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    key = "g" * 150_000 + "/" + "k" * 150_000
    deep = "/".join(["n" * 200] * 5)  # a run's name of 1,004 characters
    write_run(tmp_path / "sweep" / deep, key)
    write_run(tmp_path / "sweep" / "short", key)
    done = cli("plot", str(tmp_path / "sweep"), "--metric", "g*", "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    (panel,) = figure.axes
    assert panel.get_label() == key  # the data: the key whole
    assert panel.yaxis.get_label().get_text() == "g" * 79 + ELLIPSIS
    assert panel.get_title(loc="left") == "g" * 79 + ELLIPSIS
    (legend,) = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == [deep[:79] + ELLIPSIS, "short"]
    figure.canvas.draw()


def test_a_groups_long_key_is_cut_in_the_legend(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    long = "n" * 200
    for name in (f"{long}/a", f"{long}/b", "other"):
        write_run(tmp_path / "sweep" / name, "acc")
    write_run(tmp_path / ("m" * 200), "acc")
    done = cli("plot", str(tmp_path / "sweep"), "--group", "^(n+)", "--metric", "*", "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    (legend,) = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == [
        "n" * 79 + ELLIPSIS + " (2 runs)",
        "other",
    ]
    alone = cli("plot", str(tmp_path / ("m" * 200)), "--metric", "*", "-o", "y.png")
    assert alone.code == 0, alone.err
    # one run: the title is its name (its folder's), cut
    assert figures[1].axes[0].get_title() == "m" * 79 + ELLIPSIS
    titled = cli(
        "plot", str(tmp_path / ("m" * 200)), "--metric", "*", "--title", "t" * 90, "-o", "z.png"
    )
    assert titled.code == 0, titled.err
    assert figures[2].axes[0].get_title() == "t" * 90  # the user's own title, whole
