"""`status --metric KEY[:last|min|max]`, `--sort KEY[:agg]` and `--only`: a column per
scalar from the report's `scalars`, the order it gives (runs without the value last), the
runs picked by name.

The runs are written here; every expected cell is read off their lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

NOW = "1000"


def write_run(folder: Path, scalars: list[dict[str, Any]]) -> None:
    """A run of one log a step, each with its `scalars`."""
    folder.mkdir(parents=True)
    lines = [{"event": "begin", "time": 100.0, "max_steps": 10}]
    lines += [
        {"event": "log", "time": 100.0 + step, "step": step, "loss": 1.0, "scalars": values}
        for step, values in enumerate(scalars, 1)
    ]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    root = tmp_path / "sweep"
    # a: eval_accuracy 0.5, 0.9, 0.6 (max 0.9 at step 2, min 0.5 at step 1, last 0.6)
    write_run(
        root / "a",
        [{"eval_accuracy": 0.5}, {"eval_accuracy": 0.9, "w": "NaN"}, {"eval_accuracy": 0.6}],
    )
    # b: 0.95 once (max, min and last), w Infinity
    write_run(root / "b", [{"eval_accuracy": 0.95, "w": "Infinity"}])
    # c: no eval_accuracy at all
    write_run(root / "c", [{"w": 1.5}])
    # d: eval_accuracy only null: logged, but no finite value (no max); last null
    write_run(root / "d", [{"eval_accuracy": None}, {"eval_accuracy": None}])
    # e: 0.7 then NaN: max 0.7 at step 1, last NaN
    write_run(root / "e", [{"eval_accuracy": 0.7}, {"eval_accuracy": "NaN"}])
    return root


def table(out: str) -> tuple[list[str], list[dict[str, str]]]:
    """The table's rows by heading (cells cut at the headings' columns)."""
    lines = out.splitlines()
    heading, rows = lines[0], lines[2:-1]
    names = ["run", "stage", "step", "loss", "best eval"]
    extra = heading[heading.index("best eval") + len("best eval") : heading.index(" eta")]
    names += extra.split()
    names += ["eta", "last line", "snapshot", "invalid"]
    # right-justified columns end where their heading ends (each found after the last)
    ends: list[int] = []
    for name in names:
        ends.append(heading.index(name, ends[-1] if ends else 0) + len(name))
    cells = []
    for row in rows:
        cut: dict[str, str] = {"run": row.split()[0]}
        for name, end, before in zip(names[5:-4], ends[5:-4], ends[4:-5], strict=True):
            cut[name] = row[before:end].strip()
        cells.append(cut)
    return names, cells


def test_a_column_per_scalar_and_its_aggregate(
    sweep: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sweep.parent)
    done = cli(
        "status", "sweep", "--now", NOW, "--metric", "eval_accuracy:max", "--metric",
        "eval_accuracy", "--metric", "eval_accuracy:min", "--metric", "w",
    )  # fmt: skip
    assert done.code == 0, done.err
    names, rows = table(done.out)
    assert names[5:9] == ["eval_accuracy:max", "eval_accuracy", "eval_accuracy:min", "w"]
    got = {row["run"]: [row[name] for name in names[5:9]] for row in rows}
    assert got == {
        "a": ["0.9 @2", "0.6", "0.5 @1", "NaN"],
        "b": ["0.95 @1", "0.95", "0.95 @1", "Infinity"],
        "c": ["", "", "", "1.5"],
        "d": ["-", "null", "-", ""],
        "e": ["0.7 @1", "NaN", "0.7 @1", ""],
    }


def test_sort_by_a_scalars_aggregate_puts_runs_without_it_last(
    sweep: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sweep.parent)
    asked = ["--metric", "eval_accuracy:max", "--sort", "eval_accuracy:max"]
    up = cli("status", "sweep", "--now", NOW, *asked)
    assert up.code == 0, up.err
    # max: e 0.7, a 0.9, b 0.95; c (no key) and d (no finite value) last, by name
    assert [row["run"] for row in table(up.out)[1]] == ["e", "a", "b", "c", "d"]
    down = cli("status", "sweep", "--now", NOW, *asked, "-r")
    assert [row["run"] for row in table(down.out)[1]] == ["b", "a", "e", "c", "d"]
    # the latest value, not a column: a 0.6, b 0.95; e's NaN, d's null and c last
    latest = cli("status", "sweep", "--now", NOW, "--sort", "eval_accuracy")
    assert [line.split()[0] for line in latest.out.splitlines()[2:-1]] == ["a", "b", "c", "d", "e"]
    latest = cli("status", "sweep", "--now", NOW, "--sort", "eval_accuracy:last", "-r")
    assert [line.split()[0] for line in latest.out.splitlines()[2:-1]] == ["b", "a", "c", "d", "e"]


def test_a_scalar_no_run_logged_is_said(
    sweep: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sweep.parent)
    done = cli("status", "sweep", "--now", NOW, "--metric", "eval_acc")
    assert done.code == 0
    assert done.err == "overbrainer-contract: note: no scalar 'eval_acc' in any of the 5 runs\n"


def test_the_one_run_screen_shows_the_scalars_asked_for(
    sweep: Path, cli: Callable[..., Any]
) -> None:
    done = cli(
        "status", str(sweep / "a"), "--now", NOW, "--metric", "eval_accuracy:max", "--metric",
        "x:min",
    )  # fmt: skip
    assert done.code == 0, done.err
    rows = dict(line.split(None, 1) for line in done.out.splitlines())
    assert rows["eval_accuracy:max"] == "0.9 @2"
    assert rows["x:min"] == "- (not logged)"


def test_json_is_the_record_as_it_was(sweep: Path, cli: Callable[..., Any]) -> None:
    plain = cli("status", str(sweep), "--now", NOW, "-o", "json")
    asked = cli("status", str(sweep), "--now", NOW, "-o", "json", "--metric", "w")
    assert plain.out == asked.out
    first = json.loads(plain.out.splitlines()[0])
    assert first["scalars"]["eval_accuracy"]["max"] == {"step": 2, "value": 0.9}


def test_only_keeps_the_runs_whose_names_match(
    sweep: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sweep.parent)
    done = cli("status", "sweep", "--now", NOW, "--only", "^[bd]")
    assert done.code == 0, done.err
    assert [line.split()[0] for line in done.out.splitlines()[2:-1]] == ["b", "d"]
    assert done.out.splitlines()[-1].startswith("2 runs")
    records = cli("status", "sweep", "--now", NOW, "--only", "a|e", "-o", "json")
    assert [json.loads(line)["name"] for line in records.out.splitlines()] == ["a", "e"]
    none = cli("status", "sweep", "--only", "z")
    assert none.code == 2
    assert none.err == (
        "overbrainer-contract: error: --only 'z': no run's name matches it"
        " (the runs: a, b, c, d, e)\n"
    )
    bad = cli("status", "sweep", "--only", "(")
    assert bad.code == 2
    assert "not a regular expression: '('" in bad.err


def test_a_key_reaches_the_terminal_as_data(tmp_path: Path, cli: Callable[..., Any]) -> None:
    key = "[bold]k\x1b[2J"  # rich markup, and an escape that would clear the screen
    write_run(tmp_path / "sweep" / "a", [{key: 1.0}])
    write_run(tmp_path / "sweep" / "b", [{key: 2.0}])
    done = cli("status", str(tmp_path / "sweep"), "--now", NOW, "--metric", key)
    assert done.code == 0, done.err
    heading = done.out.splitlines()[0]
    assert "[bold]k\\x1b[2J" in heading  # markup kept as text, the escape made visible
    assert "\x1b" not in done.out
    missing = cli("status", str(tmp_path / "sweep"), "--metric", key + "\x07")
    assert "note: no scalar '[bold]k\\x1b[2J\\x07' in any of the 2 runs" in missing.err
    assert "\x1b" not in missing.err
    assert "\x07" not in missing.err
