"""Runs' names and their order are the core's one rule (`overbrainer_core::names`), which the
viewer is given too: Python asks the core, keeps no copy. Expected values are reasoned
from the rule: a name is the run's path below the folder the runs have in common, and the
numbers in names are compared as numbers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from overbrainer_contract.cli._common import run_name
from overbrainer_contract.runs.discover import discover, natural_key
from overbrainer_contract.runs.state import Run, names_of

LINE = b'{"event":"log","time":1.5,"step":1,"loss":0.5}\n'


def test_numbers_in_names_are_ordered_as_numbers() -> None:
    names = ["seed10", "seed2", "seed1", "x1", "x01", "", "b", "B"]
    assert sorted(names, key=natural_key) == ["", "B", "b", "seed1", "seed2", "seed10", "x01", "x1"]


def test_a_run_of_digits_longer_than_int_reads_is_ordered() -> None:
    # Python's int() refuses a string of more than 4,300 digits (3.11+): the core compares
    # digits without making a number, so 10^5000 sorts after 9 repeated 4,999 times.
    big = "1" + "0" * 5000
    small = "9" * 4999
    assert sorted([big, small, "0" * 6000 + "1"], key=natural_key) == ["0" * 6000 + "1", small, big]


def test_digits_of_other_scripts_are_text() -> None:
    # ASCII digits alone make numbers, as the viewer's order always read them.
    assert sorted(["\u0661\u0662", "12", "3"], key=natural_key) == ["3", "12", "\u0661\u0662"]


def test_runs_are_named_below_their_common_folder(tmp_path: Path) -> None:
    for name in ("nest/exp1/seed1", "nest/exp2/seed1"):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "metrics.jsonl").write_bytes(LINE)
    runs = discover([str(tmp_path / "nest")]).runs
    assert [run.label for run in runs] == ["exp1/seed1", "exp2/seed1"]


def test_a_metrics_file_gz_stands_for_its_folder_in_every_name(tmp_path: Path) -> None:
    # One rule for a run made by hand (no label): `metrics.jsonl.gz` stands for its folder,
    # as `metrics.jsonl` does, in the table's `run` column and in the commands' words alike.
    folder = tmp_path / "run7"
    folder.mkdir()
    run = Run("given", folder / "metrics.jsonl.gz", folder)
    assert run_name(run) == "run7"
    own = Run("given", folder / "other.jsonl", folder)
    assert run_name(own) == "other.jsonl"
    stdin = Run("-", None, None)
    assert run_name(stdin) == "-"


@pytest.mark.skipif(os.name != "posix", reason="names as bytes")
def test_a_name_not_utf8_is_kept_and_shown_as_its_bytes(tmp_path: Path) -> None:
    odd = os.fsdecode(b"s\xffx")
    for name in (odd, "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.jsonl").write_bytes(LINE)
    runs = discover([str(tmp_path)]).runs
    assert [run.label for run in runs] == ["b", odd]
    assert [run_name(run) for run in runs] == ["b", odd]  # kept; shown() escapes it on a screen


def test_names_alike_are_told_apart() -> None:
    stdin = Run("-", None, None)
    there = Run("/w/-", Path("/w/-/metrics.jsonl"), Path("/w/-"), is_folder=True)
    assert names_of([stdin, there]) == ["-", "- (2)"]
