"""The `run` column of an export names a run by the same rule as the commands' words
(`overbrainer_core::names`): the table's reader asks the core as the command line does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from overbrainer_contract.cli._common import run_name
from overbrainer_contract.runs.discover import discover
from overbrainer_contract.runs.state import Run
from overbrainer_contract.table.reader import run_name as table_run_name

LINE = b'{"event":"log","time":1.5,"step":1,"loss":0.5}\n'


def test_a_metrics_file_gz_stands_for_its_folder_in_every_name(tmp_path: Path) -> None:
    # One rule for a run made by hand (no label): `metrics.jsonl.gz` stands for its folder,
    # as `metrics.jsonl` does, in the table's `run` column and in the commands' words alike.
    folder = tmp_path / "run7"
    folder.mkdir()
    run = Run("given", folder / "metrics.jsonl.gz", folder)
    assert run_name(run) == table_run_name(run) == "run7"
    own = Run("given", folder / "other.jsonl", folder)
    assert run_name(own) == table_run_name(own) == "other.jsonl"
    stdin = Run("-", None, None)
    assert run_name(stdin) == table_run_name(stdin) == "-"


@pytest.mark.skipif(os.name != "posix", reason="names as bytes")
def test_a_name_not_utf8_is_kept_and_shown_as_its_bytes(tmp_path: Path) -> None:
    odd = os.fsdecode(b"s\xffx")
    for name in (odd, "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.jsonl").write_bytes(LINE)
    runs = discover([str(tmp_path)]).runs
    assert [run.label for run in runs] == ["b", odd]
    assert [table_run_name(run) for run in runs] == ["b", "s\\xffx"]
