"""`export` of runs whose folder's or file's name is not UTF-8 (`run\\xff`, made from
bytes), in a child given the name as the bytes it is. Such a run is read like any other;
the `run` column, UTF-8 in every format, holds its name as the commands show it: each byte
that is not UTF-8 as the four characters `\\xff` (`text.shown.as_text`)."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest
from test_export_hands import export

RAW = os.fsdecode(b"run\xff")
ESCAPED = "run\\xff"
LINES = b"".join(
    b'{"event":"log","time":%d.5,"step":%d,"scalars":{"x/y":0.5,"z":2}}\n' % (step, step)
    for step in range(1, 4)
)


def read(path: Path) -> pa.Table:
    if path.suffix == ".csv":
        return pyarrow.csv.read_csv(path)
    if path.suffix == ".arrow":
        with pa.ipc.open_file(str(path)) as reader:
            return reader.read_all()
    return pq.read_table(path)


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".csv"])
def test_a_run_whose_name_is_not_utf8_is_exported_under_its_escaped_name(
    tmp_path: Path, suffix: str
) -> None:
    for name in ("ok", RAW):
        (tmp_path / "sweep" / name).mkdir(parents=True)
        (tmp_path / "sweep" / name / "metrics.jsonl").write_bytes(LINES)
    out = tmp_path / f"runs{suffix}"
    done = export("sweep", "-o", out.name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = read(out)
    runs = [str(value) for value in table.column("run").to_pylist()]
    assert runs == ["ok"] * 3 + [ESCAPED] * 3
    assert table.column("step").to_pylist() == [1, 2, 3] * 2  # its lines read
    assert table.column("x/y").to_pylist() == [0.5] * 6


def test_a_metrics_file_whose_name_is_not_utf8_named_alone(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"m\xfe.jsonl")).write_bytes(LINES)
    done = export(os.fsdecode(b"m\xfe.jsonl"), "--long", "-o", "s.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = pq.read_table(tmp_path / "s.parquet")
    assert set(table.column("run").to_pylist()) == {"m\\xfe.jsonl"}
    assert table.num_rows == 6  # the two scalars of three lines
