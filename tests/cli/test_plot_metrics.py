"""`plot --metric`, `--group` and `--only`: the panels the globs pick, the values no axis can
place drawn on its edges, groups as mean ± population standard deviation, keys shown as
they are, a long key or name cut where drawn.

Every run is written here from lines whose values are chosen, and each expectation is
reasoned from those lines (the figure is inspected as `plot` made it: `save` is replaced
by a function that keeps it)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from overbrainer_contract.cli import plot
from test_patterns import command

pytest.importorskip("matplotlib")

Lines = list[dict[str, Any]]


def write_run(folder: Path, lines: Lines) -> Path:
    folder.mkdir(parents=True)
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def log(step: int, loss: float | None = None, **scalars: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"event": "log", "time": 100.0 + step, "step": step}
    if loss is not None:
        line["loss"] = loss
    if scalars:
        line["scalars"] = scalars
    return line


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The figures `plot` makes, kept instead of written (and closed at the end)."""
    from matplotlib import pyplot

    kept: list[Any] = []
    monkeypatch.setattr(plot, "save", lambda figure, _output, _dpi: kept.append(figure))
    yield kept
    for figure in kept:
        pyplot.close(figure)


def panels(figure: Any) -> list[str]:
    """The keys of the figure's panels, top to bottom."""
    return [axes.get_label() for axes in figure.axes]


def by_gid(axes: Any, gid: str) -> list[Any]:
    return [line for line in axes.get_lines() if line.get_gid() == gid]


REWARDS = [
    {"event": "begin", "time": 100.0},
    log(
        1,
        2.0,
        **{
            "rewards/chosen": 0.5,
            "rewards/rejected": -0.5,
            "rewards/margins": 1.0,
            "rewards_total": 3.0,
            "eval_accuracy": 0.25,
        },
    ),
    log(2, 1.5, **{"rewards/chosen": "NaN", "rewards/rejected": None, "rewards/margins": 2.0}),
    log(3, 1.0, **{"rewards/chosen": 0.75, "rewards/rejected": "Infinity"}),
    log(4, 0.5, **{"rewards/chosen": "-Infinity", "rewards/rejected": -0.25}),
]


def test_a_glob_picks_exactly_its_panels(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    run = write_run(tmp_path / "run", REWARDS)
    done = cli("plot", str(run), "--metric", "rewards/*", "-o", str(tmp_path / "r.png"))
    assert done.code == 0, done.err
    (figure,) = figures
    # `*` takes any run of characters but not `rewards_total`; the keys sorted
    assert panels(figure) == ["rewards/chosen", "rewards/margins", "rewards/rejected"]
    assert [axes.get_ylabel() for axes in figure.axes] == panels(figure)
    assert figure.axes[0].get_title(loc="left") == "rewards/"  # the group's heading
    assert [axes.get_title(loc="left") for axes in figure.axes[1:]] == ["", ""]


def test_panels_follow_the_patterns_under_a_heading_per_prefix(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    run = write_run(tmp_path / "run", REWARDS)
    output = str(tmp_path / "r.png")
    done = cli(
        "plot", str(run), "--metric", "rewards/m*,eval_*", "--metric", "loss,rew*", "-o", output
    )
    assert done.code == 0, done.err
    (figure,) = figures
    # picked: rewards/margins, eval_accuracy, loss, then rew* less what was taken (sorted:
    # rewards/chosen, rewards/rejected, rewards_total); the keys without `/` first, then the
    # prefix `rewards` in the order its keys were picked
    assert panels(figure) == [
        "eval_accuracy",
        "loss",
        "rewards_total",
        "rewards/margins",
        "rewards/chosen",
        "rewards/rejected",
    ]
    headings = [axes.get_title(loc="left") for axes in figure.axes]
    assert headings == ["", "", "", "rewards/", "", ""]


def test_values_no_axis_can_place_are_markers_on_its_edges(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    run = write_run(tmp_path / "run", REWARDS)
    done = cli("plot", str(run), "--metric", "rewards/chosen,rewards/rejected", "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    chosen, rejected = figure.axes
    # rewards/chosen: NaN at step 2 (a cross on the bottom edge), -Infinity at step 4 (a ▼
    # on the bottom edge), in the panel's height (0 the bottom, 1 the top)
    (nan,) = by_gid(chosen, "edge NaN")
    assert (nan.get_xdata().tolist(), nan.get_ydata().tolist(), nan.get_marker()) == (
        [2.0],
        [0.0],
        "x",
    )
    assert nan.get_transform() == chosen.get_xaxis_transform()
    (down,) = by_gid(chosen, "edge -Infinity")
    assert (down.get_xdata().tolist(), down.get_ydata().tolist(), down.get_marker()) == (
        [4.0],
        [0.0],
        "v",
    )
    # rewards/rejected: Infinity at step 3 (a ▲ on the top edge); the null at step 2 a gap,
    # no marker
    (up,) = by_gid(rejected, "edge Infinity")
    assert (up.get_xdata().tolist(), up.get_ydata().tolist(), up.get_marker()) == (
        [3.0],
        [1.0],
        "^",
    )
    assert by_gid(rejected, "edge NaN") == []
    # the line itself through the finite values only, broken elsewhere
    line = next(line for line in rejected.get_lines() if line.get_gid() is None)
    values = line.get_ydata().tolist()
    assert (values[0], values[3]) == (-0.5, -0.25)
    assert [math.isnan(value) for value in values[1:3]] == [True, True]
    # counted in each panel and in a note
    counted = [text.get_text() for text in chosen.get_legend().get_texts()]
    assert counted == ["NaN (1)", "-Infinity (1)"]
    assert "rewards/chosen: 1 NaN, 1 -Infinity: not finite" in done.err
    assert "rewards/rejected: 1 Infinity: not finite" in done.err


def test_a_log_scale_draws_values_not_above_0_on_the_bottom_edge(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    run = write_run(tmp_path / "run", REWARDS)
    done = cli("plot", str(run), "--metric", "rewards/rejected", "--log", "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    # -0.5 (step 1) and -0.25 (step 4) cannot be placed on a log scale
    (low,) = by_gid(figure.axes[0], "edge <= 0")
    assert (low.get_xdata().tolist(), low.get_ydata().tolist()) == ([1.0, 4.0], [0.0, 0.0])
    assert "note: 2 values <= 0 drawn on the bottom edge of the log scale" in done.err


def test_a_pattern_that_matches_no_key_is_an_error_listing_the_keys(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    run = write_run(tmp_path / "run", REWARDS[:2])
    output = tmp_path / "x.png"
    done = cli("plot", str(run), "--metric", "loss,reward/*", "-o", str(output))
    assert done.code == 2
    assert done.err == (
        "overbrainer-contract: error: --metric 'reward/*': no metric key of the runs matches"
        " it (their keys: eval_accuracy, loss, rewards/chosen, rewards/margins,"
        " rewards/rejected, rewards_total)\n"
    )
    assert not output.exists()


SEEDS: dict[str, list[float | str]] = {  # each seed's score at steps 1, 2, 3
    "lr1-seed1": [4.0, 1.0, 3.0],
    "lr1-seed2": [2.0, 2.0, 5.0],
    "lr1-seed3": [3.0, 4.0, "NaN"],
}


def test_a_group_is_its_mean_and_population_std_per_step(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    for name, values in SEEDS.items():
        write_run(tmp_path / "sweep" / name, [log(s + 1, score=v) for s, v in enumerate(values)])
    write_run(tmp_path / "sweep" / "other", [log(1, score=10.0), log(2, score=20.0)])
    done = cli(
        "plot", str(tmp_path / "sweep"), "--metric", "score", "--group", r"lr\d", "-o", "g.png"
    )
    assert done.code == 0, done.err
    assert done.out == "wrote g.png: 4 runs (1 group, 1 alone)\n"
    (figure,) = figures
    (panel,) = figure.axes
    # per step, over the seeds with a finite value there (the NaN of seed3 at step 3 left out)
    expected = {
        1: [4.0, 2.0, 3.0],
        2: [1.0, 2.0, 4.0],
        3: [3.0, 5.0],
    }
    means = {step: sum(v) / len(v) for step, v in expected.items()}
    stds = {
        step: math.sqrt(sum((x - means[step]) ** 2 for x in v) / len(v))
        for step, v in expected.items()
    }
    assert stds[2] == pytest.approx(math.sqrt(14 / 9))  # (16 + 1 + 25) / 9 / 3
    (mean,) = by_gid(panel, "group mean")
    assert mean.get_xdata().tolist() == [1.0, 2.0, 3.0]
    assert mean.get_ydata().tolist() == pytest.approx([means[1], means[2], means[3]])
    (band,) = [each for each in panel.collections if each.get_gid() == "group band"]
    corners = {(round(x, 9), round(y, 9)) for x, y in band.get_paths()[0].vertices.tolist()}
    for step in expected:
        for edge in (means[step] - stds[step], means[step] + stds[step]):
            assert (float(step), round(edge, 9)) in corners
    # the group's runs faint behind it, in its colour; the lone run in a style of its own
    runs = [line for line in panel.get_lines() if line.get_gid() is None]
    faint = [line for line in runs if line.get_alpha() == plot.FAINT]
    assert len(faint) == 3
    assert {line.get_color() for line in faint} == {mean.get_color()}
    (alone,) = [line for line in runs if line not in faint]
    assert alone.get_ydata().tolist() == [10.0, 20.0]
    assert (alone.get_alpha(), alone.get_color() != mean.get_color()) == (1.0, True)
    (legend,) = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == ["lr1 (3 runs)", "other"]


def test_a_key_with_dollars_is_drawn_as_it_is(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    key = r"loss$x$ a$\frac{x}{$"  # mathtext would set x in italics, and fail on the rest
    run = write_run(tmp_path / "run", [log(1, **{key: 1.0}), log(2, **{key: 2.0})])
    done = cli("plot", str(run), "--metric", "loss$*", "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    (panel,) = figure.axes
    label = panel.yaxis.get_label()
    assert (label.get_text(), label.get_parse_math()) == (key, False)
    figure.canvas.draw()  # mathtext would raise on `\frac{x}{`


def test_only_draws_the_runs_whose_names_match(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    for name in ("exp1/seed1", "exp1/seed2", "exp2/seed1"):
        write_run(tmp_path / "sweep" / name, [log(1, 1.0), log(2, 0.5)])
    done = cli("plot", str(tmp_path / "sweep"), "--only", "seed1$", "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    (legend,) = figure.legends
    # the names as among every run given: their paths below `sweep`
    assert [text.get_text() for text in legend.get_texts()] == ["exp1/seed1", "exp2/seed1"]
    none = cli("plot", str(tmp_path / "sweep"), "--only", "seed9", "-o", "x.png")
    assert none.code == 2
    assert "error: --only 'seed9': no run's name matches it" in none.err


def test_the_default_panels_are_the_losses_and_the_rate(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    run = write_run(tmp_path / "run", REWARDS)
    done = cli("plot", str(run), "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    assert panels(figure) == ["loss"]  # the only one of the three these lines hold


# -- long keys and names: cut where drawn (`plot.LABEL_CHARS` characters, the last an
# ellipsis), so that a key of a megabyte costs what a short one does; the data keeps it whole

ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"


def steps_of(key: str) -> Lines:
    return [log(step, **{key: float(step)}) for step in range(3)]


def test_a_key_of_a_megabyte_is_drawn_in_one_pass(tmp_path: Path) -> None:
    key = "g" * 500_000 + "/" + "k" * 500_000
    write_run(tmp_path / "run", steps_of(key))
    done = command("plot", "run", "--metric", "g*", "-o", "x.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "x.png").stat().st_size > 0


def test_a_long_key_and_name_are_cut_where_drawn(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    key = "g" * 150_000 + "/" + "k" * 150_000
    deep = "/".join(["n" * 200] * 5)  # a run's name of 1,004 characters
    write_run(tmp_path / "sweep" / deep, steps_of(key))
    write_run(tmp_path / "sweep" / "short", steps_of(key))
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
        write_run(tmp_path / "sweep" / name, steps_of("acc"))
    write_run(tmp_path / ("m" * 200), steps_of("acc"))
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


def shows_point(panel: Any, step: float, value: float) -> bool:
    """Whether an artist of the panel puts a visible marker at (step, value) in data
    coordinates: a line with a marker (not 'None'/'' and a size above 0) holding that point."""
    for line in panel.get_lines():
        if line.get_marker() in (None, "None", "", " ") or line.get_markersize() <= 0:
            continue
        if line.get_transform() != panel.transData or line.get_alpha() == 0:
            continue
        for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True):
            if (x, y) == (step, value):
                return True
    return False


def test_a_point_its_line_cannot_show_is_a_marker(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    # a loss logged once; a scalar of 30 points whose step 15 is between two nulls, step 25
    # between a NaN and -Infinity, step 27 between -Infinity and a null, and the last (29)
    # after a null
    values: dict[int, Any] = {step: 1.0 + step / 100 for step in range(30)}
    values.update({14: None, 15: 7.0, 16: None, 24: "NaN", 25: 8.0, 26: "-Infinity", 28: None})
    lines = [{"event": "begin", "time": 100.0}, log(0, 2.5)]
    lines += [log(step, score=value) for step, value in values.items() if step]
    write_run(tmp_path / "run", lines)
    done = cli("plot", str(tmp_path / "run"), "--metric", "loss,score", "-o", "x.png")
    assert done.code == 0, done.err
    (figure,) = figures
    loss, score = figure.axes
    assert shows_point(loss, 0.0, 2.5)
    (lone,) = by_gid(score, "lone point")
    assert lone.get_xdata().tolist() == [15.0, 25.0, 27.0, 29.0]
    for step, value in ((15.0, 7.0), (25.0, 8.0), (27.0, 1.27), (29.0, 1.29)):
        assert shows_point(score, step, value)
    # a point with a neighbour on the line is the line's, no marker of its own
    assert not shows_point(score, 10.0, 1.1)


def test_a_group_of_one_step_is_a_marker(
    tmp_path: Path, cli: Callable[..., Any], figures: list[Any]
) -> None:
    for name, value in (("g-1", 2.0), ("g-2", 4.0)):
        write_run(tmp_path / "sweep" / name, [log(3, score=value)])
    done = cli("plot", str(tmp_path / "sweep"), "--metric", "score", "--group", "g", "-o", "g.png")
    assert done.code == 0, done.err
    (figure,) = figures
    (panel,) = figure.axes
    # the mean of 2 and 4 at step 3, and each run faint behind it
    assert shows_point(panel, 3.0, 3.0)
    assert shows_point(panel, 3.0, 2.0)
    assert shows_point(panel, 3.0, 4.0)
