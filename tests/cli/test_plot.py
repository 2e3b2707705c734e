"""`plot`: a PNG that opens and is not blank, an SVG, several runs, nothing to plot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_samples import VALID, make_run

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
    for label in ("first: loss", "second/metrics.jsonl: eval loss", "learning rate"):
        assert label in text


def test_plot_skips_invalid_lines_with_a_warning(tmp_path: Path, cli: Callable[..., Any]) -> None:
    run = make_run(tmp_path / "run", VALID + "garbage\n")
    result = cli("plot", str(run), "-o", str(tmp_path / "loss.png"))
    assert result.code == 0
    assert result.err == f"overbrainer-contract: warning: {run}: 1 invalid line skipped\n"


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
