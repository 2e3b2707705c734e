"""`export --only REGEX`: the rows of the runs whose names match, no other; their names as
among every run given; the wide table's scalar columns those of the runs exported.

The runs are written here and the expected rows counted off their lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from overbrainer_contract.cli import main


def write_run(folder: Path, scalars: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True)
    lines: list[dict[str, Any]] = [{"event": "begin", "time": 1.0}]
    lines += [
        {"event": "log", "time": 1.0 + step, "step": step, "loss": 0.5, "scalars": values}
        for step, values in enumerate(scalars, 1)
    ]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture
def sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_run(tmp_path / "sweep" / "exp1" / "seed1", [{"acc": 0.5}, {"acc": 0.75}])  # 3 lines
    write_run(tmp_path / "sweep" / "exp2" / "seed1", [{"acc": 0.25}])  # 2 lines
    write_run(tmp_path / "sweep" / "exp2" / "seed2", [{"only_seed2": 1.0}] * 3)  # 4 lines
    return tmp_path / "sweep"


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".csv"])
def test_only_the_matching_runs_rows(
    sweep: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    output = sweep.parent / f"out{suffix}"
    code = main(["export", "sweep", "--only", "seed1$", "-o", str(output)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err == f"overbrainer-contract: exported 5 rows of 2 runs to {output}\n"
    if suffix == ".parquet":
        table = pq.read_table(output)
    elif suffix == ".arrow":
        with pa.ipc.open_file(str(output)) as reader:
            table = reader.read_all()
        # the run column's dictionary holds the runs exported, no other name
        column = table.column("run").chunk(0)
        assert isinstance(column, pa.DictionaryArray)
        assert column.dictionary.to_pylist() == [
            "exp1/seed1",
            "exp2/seed1",
        ]
    else:
        from pyarrow import csv

        table = csv.read_csv(output)
    runs = [str(value) for value in table.column("run").to_pylist()]
    # each run's lines, named by their paths below `sweep` as among every run given
    assert runs == ["exp1/seed1"] * 3 + ["exp2/seed1"] * 2
    # the scalar columns of those runs alone: seed2's key is none of them
    assert "acc" in table.column_names
    assert "only_seed2" not in table.column_names
    assert table.column("acc").to_pylist() == [None, 0.5, 0.75, None, 0.25]


def test_only_with_long_rows(sweep: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = sweep.parent / "long.parquet"
    assert main(["export", "sweep", "--only", "seed2", "--long", "-o", str(output)]) == 0
    capsys.readouterr()
    table = pq.read_table(output)
    assert [str(run) for run in table.column("run").to_pylist()] == ["exp2/seed2"] * 3
    assert table.column("key").to_pylist() == ["only_seed2"] * 3


def test_only_matching_no_run_is_an_error(sweep: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = sweep.parent / "none.parquet"
    assert main(["export", "sweep", "--only", "seed3", "-o", str(output)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "overbrainer-contract: error: --only 'seed3': no run's name matches it"
        " (the runs: exp1/seed1, exp2/seed1, exp2/seed2)\n"
    )
    assert not output.exists()
