"""Runs, found (`runs.discover`): many paths, folders of runs at any depth, names that are
paths below the runs' common folder, files of other names refused — through the console
script, in a child process, as a user runs it."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from overbrainer_contract.runs.discover import discover, find_runs
from overbrainer_contract.runs.state import RunError

SCRIPT = str(Path(sys.executable).with_name("overbrainer-contract"))
PREFIX = "overbrainer-contract: error: "
LINE = b'{"event":"begin","time":1.0,"max_steps":null}\n{"event":"end","time":1.0,"step":%d}\n'


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [SCRIPT, *argv], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """nest/exp1/seed1, nest/exp2/seed1, nest/exp2/seed2 (with a checkpoint folder holding
    a stray metrics.jsonl that is no run), a hidden folder, and a script beside the runs."""
    for number, run in enumerate(("exp1/seed1", "exp2/seed1", "exp2/seed2"), start=1):
        folder = tmp_path / "nest" / run
        folder.mkdir(parents=True)
        (folder / "metrics.jsonl").write_bytes(LINE % number)
    checkpoint = tmp_path / "nest/exp2/seed2/checkpoint-1"
    checkpoint.mkdir()
    (checkpoint / "metrics.jsonl").write_bytes(b"not a run\n")
    hidden = tmp_path / "nest/.trash/old"
    hidden.mkdir(parents=True)
    (hidden / "metrics.jsonl").write_bytes(b"not a run either\n")
    (tmp_path / "nest/make_sweep.py").write_text("print('hello')\n")
    return tmp_path


def test_a_folder_of_runs_is_every_run_below_it(tree: Path) -> None:
    result = cli("check", "nest", cwd=tree)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "nest/exp1/seed1/metrics.jsonl",
        "nest/exp2/seed1/metrics.jsonl",
        "nest/exp2/seed2/metrics.jsonl",
        "total",
    ]
    assert lines[-1] == "total: valid: 3 files, 6 lines, 0 errors, 0 warnings"


def test_runs_come_in_the_order_of_their_names_numbers_as_numbers(tmp_path: Path) -> None:
    """seed2 before seed10 (and lr1e-4 as text), in check's files and export's `run`."""
    for name in ("seed10", "seed2", "seed1", "lr1e-4"):
        (tmp_path / "sweep" / name).mkdir(parents=True)
        (tmp_path / "sweep" / name / "metrics.jsonl").write_bytes(LINE % 1)
    result = cli("check", "sweep", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [line.split("/")[1] for line in result.stdout.splitlines()[:-1]] == [
        "lr1e-4",
        "seed1",
        "seed2",
        "seed10",
    ]


def test_runs_nested_two_deep_are_named_by_their_path_below_the_common_folder(
    tree: Path,
) -> None:
    for given in (["nest"], ["nest/exp1/seed1", "nest/exp2/seed1", "nest/exp2/seed2"]):
        result = cli("export", *given, "-o", "t.csv", cwd=tree)
        assert result.returncode == 0, result.stderr
        with (tree / "t.csv").open() as handle:
            rows = list(csv.DictReader(handle))
        assert [(row["run"], row["step"]) for row in rows if row["event"] == "end"] == [
            ("exp1/seed1", "1"),
            ("exp2/seed1", "2"),
            ("exp2/seed2", "3"),
        ]
        assert "exported 6 rows of 3 runs" in result.stderr


def test_runs_side_by_side_keep_their_folder_names(tree: Path) -> None:
    result = cli("export", "nest/exp2/seed1", "nest/exp2/seed2/metrics.jsonl", "-o", "t.csv",
                 cwd=tree)  # fmt: skip
    assert result.returncode == 0, result.stderr
    with (tree / "t.csv").open() as handle:
        assert [row["run"] for row in csv.DictReader(handle)] == ["seed1"] * 2 + ["seed2"] * 2


def test_a_file_of_another_name_among_several_paths_is_refused_in_one_line(
    tree: Path,
) -> None:
    # `nest/*` as the shell expands it: the script is not a run
    paths = sorted(str(path.relative_to(tree)) for path in (tree / "nest").iterdir())
    assert "nest/make_sweep.py" in paths
    export = cli("export", *paths, "-o", "t.csv", cwd=tree)
    assert export.returncode == 2
    assert export.stderr == (
        f"{PREFIX}nest/make_sweep.py: not a run folder nor a metrics file (.jsonl, .jsonl.gz)\n"
    )
    assert not (tree / "t.csv").exists()
    check = cli("check", *paths, cwd=tree)
    assert check.returncode == 2  # the others are checked all the same
    assert check.stderr.splitlines() == [
        f"{PREFIX}nest/make_sweep.py: not a run folder nor a metrics file (.jsonl, .jsonl.gz)"
    ]
    assert check.stdout.count(": valid:") == 3


def test_a_file_of_any_name_named_alone_is_read_on_purpose(tree: Path) -> None:
    result = cli("check", "nest/make_sweep.py", cwd=tree)
    assert result.returncode == 1  # read, and invalid
    said = "nest/make_sweep.py:1 $: expected value at column 1 (the line is not JSON)\n"
    assert result.stdout.startswith(said)


def test_a_folder_without_runs_is_refused(tree: Path) -> None:
    (tree / "empty/deeper").mkdir(parents=True)
    result = cli("check", "empty", cwd=tree)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}empty: no metrics.jsonl in this folder or below\n"


def test_the_same_run_named_twice_is_read_once(tree: Path) -> None:
    result = cli("export", "nest/exp1/seed1", "nest/exp1/seed1/metrics.jsonl", "-o", "t.csv",
                 cwd=tree)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "exported 2 rows of 1 run" in result.stderr


def test_the_api_takes_one_path_or_many(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    assert [run.label for run in find_runs("nest")] == ["exp1/seed1", "exp2/seed1", "exp2/seed2"]
    assert [run.label for run in find_runs(Path("nest/exp1/seed1"))] == ["seed1"]
    found = discover(["nest/exp1", "nowhere", "nest/make_sweep.py"])
    assert [run.name for run in found.runs] == ["nest/exp1/seed1"]
    assert found.refused == [
        ("nowhere", "no such file or folder"),
        ("nest/make_sweep.py", "not a run folder nor a metrics file (.jsonl, .jsonl.gz)"),
    ]
    with pytest.raises(RunError, match=r"^nowhere: no such file or folder$"):
        find_runs(["nest", "nowhere"])


def test_export_of_the_examples_glob_refuses_the_scripts(tmp_path: Path) -> None:
    """`export examples/*` as the shell expands it: the scripts beside the runs are named
    and refused, nothing is written; `examples/*/` names the runs only."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    every = sorted(str(path) for path in examples.iterdir())
    result = cli("export", *every, "-o", "t.csv", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"{PREFIX}{examples}/make_example.py: not a run folder nor a metrics file"
        " (.jsonl, .jsonl.gz)\n"
    )
    assert not (tmp_path / "t.csv").exists()
    folders = sorted(f"{path}/" for path in examples.iterdir() if path.is_dir())
    result = cli("export", *folders, "-o", "t.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with (tmp_path / "t.csv").open() as handle:
        names = {row["run"] for row in csv.DictReader(handle)}
    assert names == {"tiny-run", "sweep-lr3e-2-seed1", "sweep-lr3e-4-seed2"}
