"""Every scalar of a run in `export`'s tables, queried as their users query them.

The lines are written here, and each expected value is read off them: a log's `scalars` and
an end's `summary` (contract 2.1.0) become, in the wide table, one float column per key
(the union over the runs, named by the key as it is) and, in the long table (`--long`), one
row per scalar. NaN and the infinities stay those floats, `null` is null, a key that another
column's name holds gets `#2` after it, and DuckDB and polars read both tables as written.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

duckdb = pytest.importorskip("duckdb")
polars = pytest.importorskip("polars")

RUN_A = [
    {"event": "begin", "time": 100.0, "max_steps": 2},
    {
        "event": "log",
        "time": 101.0,
        "step": 1,
        "loss": 2.5,
        "scalars": {"rewards/chosen": 0.5, "rewards/margins": "NaN", "eval_accuracy": None},
    },
    {
        "event": "log",
        "time": 102.0,
        "step": 2,
        "loss": 2.0,
        "scalars": {"rewards/chosen": 0.75, "rewards/margins": "Infinity", "Loss": 9},
    },
    {"event": "end", "time": 103.0, "step": 2, "summary": {"train_runtime": 3.5}},
]
RUN_B = [
    {"event": "begin", "time": 200.0},
    {"event": "log", "time": 201.0, "step": 1, "scalars": {"eval_accuracy": 0.25}},
]


def _write(folder: Path, lines: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True)
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    (folder / "metrics.jsonl").write_text(text, encoding="utf-8")


def _export(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "overbrainer_contract", "export", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    _write(tmp_path / "sweep" / "a", RUN_A)
    _write(tmp_path / "sweep" / "b", RUN_B)
    return tmp_path


def test_the_wide_table_has_a_column_per_key(sweep: Path) -> None:
    done = _export("sweep", "-o", "wide.parquet", cwd=sweep)
    assert done.returncode == 0, done.stderr
    table = pq.read_table(sweep / "wide.parquet")
    # every key of both runs, sorted; `Loss` is `loss` to DuckDB, so it is `Loss#2`
    keys = ["Loss#2", "eval_accuracy", "rewards/chosen", "rewards/margins", "train_runtime"]
    assert table.schema.names[-len(keys) :] == keys
    assert json.loads(table.schema.metadata[b"overbrainer:scalars"])["Loss#2"] == "Loss"

    query = duckdb.sql(
        'SELECT run, line, "rewards/chosen", "rewards/margins", eval_accuracy, train_runtime,'
        ' "Loss#2" FROM read_parquet(?) ORDER BY run, line',
        params=[str(sweep / "wide.parquet")],
    ).fetchall()
    assert query[0] == ("a", 1, None, None, None, None, None)
    assert query[2:4] == [
        ("a", 3, 0.75, math.inf, None, None, 9.0),
        ("a", 4, None, None, None, 3.5, None),
    ]
    run, line, chosen, margins, accuracy, runtime, loss = query[1]
    assert (run, line, chosen, accuracy, runtime, loss) == ("a", 2, 0.5, None, None, None)
    assert math.isnan(margins)  # NaN stays NaN: never null, never dropped
    assert query[4:] == [
        ("b", 1, None, None, None, None, None),
        ("b", 2, None, None, 0.25, None, None),
    ]

    best = duckdb.sql(
        'SELECT run, max("rewards/chosen") FROM read_parquet(?) GROUP BY run ORDER BY run',
        params=[str(sweep / "wide.parquet")],
    ).fetchall()
    assert best == [("a", 0.75), ("b", None)]

    frame = polars.read_parquet(sweep / "wide.parquet")
    assert frame["rewards/chosen"].to_list() == [None, 0.5, 0.75, None, None, None]


def test_the_long_table_has_a_row_per_scalar(sweep: Path) -> None:
    done = _export("sweep", "--long", "-o", "long.parquet", cwd=sweep)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("exported 8 scalars of 6 lines of 2 runs to long.parquet\n")
    rows = duckdb.sql(
        "SELECT run, line, event, step, time, key, value FROM read_parquet(?)",
        params=[str(sweep / "long.parquet")],
    ).fetchall()
    want = [
        ("a", 2, "log", 1, 101.0, "rewards/chosen", 0.5),
        ("a", 2, "log", 1, 101.0, "rewards/margins", math.nan),
        ("a", 2, "log", 1, 101.0, "eval_accuracy", None),
        ("a", 3, "log", 2, 102.0, "rewards/chosen", 0.75),
        ("a", 3, "log", 2, 102.0, "rewards/margins", math.inf),
        ("a", 3, "log", 2, 102.0, "Loss", 9.0),
        ("a", 4, "end", 2, 103.0, "train_runtime", 3.5),
        ("b", 2, "log", 1, 201.0, "eval_accuracy", 0.25),
    ]
    assert len(rows) == len(want)
    for got, expected in zip(rows, want, strict=True):
        assert got[:6] == expected[:6]
        value, wanted = got[6], expected[6]
        if wanted is None or not math.isnan(wanted):
            assert value == wanted
        else:
            assert math.isnan(value)

    per_key = duckdb.sql(
        "SELECT key, count(*), count(value) FROM read_parquet(?) GROUP BY key ORDER BY key",
        params=[str(sweep / "long.parquet")],
    ).fetchall()
    assert per_key == [
        ("Loss", 1, 1),
        ("eval_accuracy", 2, 1),
        ("rewards/chosen", 2, 2),
        ("rewards/margins", 2, 2),
        ("train_runtime", 1, 1),
    ]
    frame = polars.read_parquet(sweep / "long.parquet")
    assert frame.columns == ["run", "line", "event", "step", "time", "key", "value"]


def test_standard_input_gives_its_keys_as_columns(sweep: Path) -> None:
    data = (sweep / "sweep" / "a" / "metrics.jsonl").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "export", "-", "-o", "in.csv"],
        cwd=sweep,
        input=data,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    header = (sweep / "in.csv").read_text(encoding="utf-8").splitlines()[0]
    keys = '"Loss#2","eval_accuracy","rewards/chosen","rewards/margins","train_runtime"'
    assert header.endswith(keys)
