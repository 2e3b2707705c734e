"""The wide table's bound on its columns (`WIDE_KEYS_MOST`): a table of rows times keys
is refused past it, in one line naming `--long`, before anything is written (exit 2); the
long table holds the same scalars a row each. The case is the one that grew without a
bound: 10,000 lines each with a key of its own (755 KB of lines: 100 million cells)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from overbrainer_contract.table import WIDE_KEYS_MOST, read_runs
from test_export_hands import export


def line(step: int, scalars: dict[str, float]) -> str:
    return json.dumps({"event": "log", "time": step + 0.5, "step": step, "scalars": scalars})


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    """`keys.jsonl`: 10,000 lines, each with a key of its own."""
    text = "".join(line(step, {f"metric_{step}": step / 4}) + "\n" for step in range(10_000))
    (tmp_path / "keys.jsonl").write_text(text)
    return tmp_path


@pytest.mark.parametrize("out", ["wide.arrow", "wide.csv", "wide.parquet"])
def test_a_key_a_line_is_refused_naming_long(keys: Path, out: str) -> None:
    done = export("keys.jsonl", "-o", out, cwd=keys)
    assert done.returncode == 2, done.stderr
    [said] = done.stderr.splitlines()
    assert "10,000 scalar keys" in said
    assert f"at most {WIDE_KEYS_MOST:,}" in said
    assert "--long" in said
    assert sorted(path.name for path in keys.iterdir()) == ["keys.jsonl"]  # nothing written


def test_the_long_table_holds_them(keys: Path) -> None:
    done = export("keys.jsonl", "--long", "-o", "long.parquet", cwd=keys)
    assert done.returncode == 0, done.stderr
    table = pq.read_table(keys / "long.parquet")
    assert table.num_rows == 10_000
    assert table.column("key").to_pylist()[-1] == "metric_9999"
    assert table.column("value").to_pylist()[-1] == 9999 / 4


def test_the_bound_itself_is_taken(tmp_path: Path) -> None:
    """`WIDE_KEYS_MOST` keys in one line: a column each; one more is refused, by
    `read_runs` too."""
    most = {f"k{index}": 1.0 for index in range(WIDE_KEYS_MOST)}
    (tmp_path / "most.jsonl").write_text(line(1, most) + "\n")
    done = export("most.jsonl", "-o", "most.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(pq.read_schema(tmp_path / "most.parquet").names) > WIDE_KEYS_MOST
    (tmp_path / "over.jsonl").write_text(line(1, {**most, "one_more": 2.0}) + "\n")
    done = export("over.jsonl", "-o", "over.parquet", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert not (tmp_path / "over.parquet").exists()
    with pytest.raises(ValueError, match="--long"):
        read_runs(tmp_path / "over.jsonl")
