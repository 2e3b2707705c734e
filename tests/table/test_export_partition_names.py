"""`export --partition-by run` of runs whose names are long: a folder's name holds 255
bytes at most, a run folder's name as much (a 240-byte name is legal), and `run=` plus
the name percent-encoded is longer. Such a partition's folder is named by a prefix of the
encoding and the name's sha256; the name itself is in the data, whole: every partition's
files hold the `run` column."""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import quote

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_export_hands import export

LINES = b"".join(
    b'{"event":"log","time":%d.5,"step":%d,"loss":0.5}\n' % (step, step) for step in range(1, 4)
)

LONG = "r" * 240
"""A legal name of 240 bytes: `run=` and it are 244, below 255, but over the folders' 200."""

WIDE = "\u00e9" * 120
"""240 bytes of UTF-8; percent-encoded, 720."""


def digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_long_names_are_partitioned_by_their_digest_and_kept_whole(
    tmp_path: Path, suffix: str
) -> None:
    for name in ("short", LONG, WIDE):
        (tmp_path / "sweep" / name).mkdir(parents=True)
        (tmp_path / "sweep" / name / "metrics.jsonl").write_bytes(LINES)
    done = export("sweep", "--partition-by", "run", "-o", f"runs{suffix}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / f"runs{suffix}"
    folders = {
        "short": "run=short",
        LONG: f"run={'r' * 100}-{digest(LONG)}",
        WIDE: f"run={quote(chr(0xE9)) * 16}-{digest(WIDE)}",  # 16 whole escapes: 96 bytes
    }
    assert sorted(path.name for path in out.iterdir()) == sorted(folders.values())
    for name, folder in folders.items():
        [part] = (out / folder).iterdir()
        if suffix == ".parquet":
            table = pq.read_table(part)
            assert [str(run) for run in table.column("run").to_pylist()] == [name] * 3
            assert table.column("step").to_pylist() == [1, 2, 3]
        else:
            lines = part.read_text(encoding="utf-8").splitlines()
            assert lines[0].startswith('"run","line"')
            assert [line.split(",")[0] for line in lines[1:]] == [f'"{name}"'] * 3


def test_the_names_read_whole_without_hive_partitioning(tmp_path: Path) -> None:
    for name in ("short", LONG):
        (tmp_path / "sweep" / name).mkdir(parents=True)
        (tmp_path / "sweep" / name / "metrics.jsonl").write_bytes(LINES)
    done = export("sweep", "--partition-by", "run", "-o", "runs.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    files = f"{tmp_path}/runs.parquet/*/*.parquet"
    query = f"SELECT run, count(*) FROM read_parquet('{files}', hive_partitioning = false)"
    relation = duckdb.sql(query + " GROUP BY run ORDER BY run")
    assert relation is not None
    assert relation.fetchall() == [(LONG, 3), ("short", 3)]


@pytest.mark.parametrize("suffix", [".arrow", ".parquet"])
def test_each_partitions_file_names_its_own_run_alone(tmp_path: Path, suffix: str) -> None:
    """300 runs: each partition's `run` column a dictionary of its one name, never of every
    run's (300 files of 300 names each would grow with the square of the runs)."""
    for index in range(300):
        (tmp_path / "sweep" / f"r{index}").mkdir(parents=True)
        (tmp_path / "sweep" / f"r{index}" / "metrics.jsonl").write_bytes(LINES)
    done = export("sweep", "--partition-by", "run", "-o", f"runs{suffix}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for index in (0, 299):
        [part] = (tmp_path / f"runs{suffix}" / f"run=r{index}").iterdir()
        if suffix == ".arrow":
            with pa.ipc.open_file(str(part)) as reader:
                column = reader.read_all().column("run")
        else:
            column = pq.read_table(part).column("run")
        assert column.to_pylist() == [f"r{index}"] * 3
        chunks = [chunk for chunk in column.chunks if isinstance(chunk, pa.DictionaryArray)]
        assert [chunk.dictionary.to_pylist() for chunk in chunks] == [[f"r{index}"]]
