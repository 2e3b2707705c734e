"""`export -`: standard input read once, as it comes, in a child whose files may not grow
past `FILE_CAP` (`RLIMIT_FSIZE`: a write past it kills the child with SIGXFSZ). A copy of
the stream to a temporary file would be killed there; what the wide table keeps of the
stream for its second reading is what its lines gave, so a stream of junk, or a line over
`--max-line`, takes no room. The bytes fed are fifty times the cap."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

TIMEOUT = 120.0
"""Seconds one child may take: each needs a few."""

FILE_CAP = 1 << 20
"""The most bytes a file of the child may hold: far over the tables written here."""

FED = 50 * FILE_CAP

LINES = b"".join(
    b'{"event":"log","time":%d.5,"step":%d,"loss":0.5,"scalars":{"acc":0.25}}\n' % (step, step)
    for step in range(1, 4)
)


def export(*args: str, cwd: Path, data: bytes) -> tuple[int, list[str]]:
    """`export ARGS` in a child fed `data` through a pipe, its temporary files in
    `cwd/tmp`, none of its files past `FILE_CAP`: its exit status and lines on stderr."""
    (cwd / "tmp").mkdir(exist_ok=True)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_CAP, FILE_CAP))

    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "export", *args],
        cwd=cwd,
        env={**os.environ, "TMPDIR": str(cwd / "tmp")},
        input=data,
        capture_output=True,
        timeout=TIMEOUT,
        preexec_fn=cap,
        check=False,
    )
    assert list((cwd / "tmp").iterdir()) == []  # no temporary left behind
    return done.returncode, done.stderr.decode("utf-8", "replace").splitlines()


def test_endless_zeros_are_one_junk_line_read_in_flat_room(tmp_path: Path) -> None:
    """Zeros without a newline: one line the reference rejects (a NUL is no JSON), left
    out as `check -` finds it invalid (exit 1): a table of no row."""
    code, said = export("-", "-o", "out.parquet", cwd=tmp_path, data=b"\0" * FED)
    assert code == 1, said
    assert said[0].endswith(
        "-: 1 line left out, rejected by the reference (syntax 1); the first at line 1"
    ), said
    assert pq.read_table(tmp_path / "out.parquet").num_rows == 0


def test_a_line_over_max_line_is_left_out_and_the_rest_exported(tmp_path: Path) -> None:
    """Lines before and after a line of fifty times the cap that looks like JSON (a string
    never closed before its newline): over `--max-line 64K`, skipped unread (`length`)."""
    long = b'{"event":"log","time":9,"step":9,"x":"' + b"a" * FED + b'"}\n'
    code, said = export(
        "-", "--max-line", "64K", "-o", "out.parquet", cwd=tmp_path, data=LINES + long + LINES
    )
    assert code == 1, said
    assert "-: 1 line left out, over --max-line 64K (length 1); the first at line 4" in said[0]
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column("step").to_pylist() == [1, 2, 3, 1, 2, 3]
    assert table.column("acc").to_pylist() == [0.25] * 6  # its scalar a column of its own


def test_standard_input_beside_a_run_folder(tmp_path: Path) -> None:
    """Standard input and a run folder: each run's rows, in order, the keys of both as
    columns, standard input's counts said as any run's."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").write_bytes(
        b'{"event":"log","time":1.5,"step":7,"scalars":{"other":2}}\n'
    )
    code, said = export(
        "-", "run", "-o", "out.parquet", cwd=tmp_path, data=LINES + b"not json\n" + LINES
    )
    assert code == 1, said
    assert (
        "-: 1 line left out, rejected by the reference (syntax 1); the first at line 4" in (said[0])
    )
    table = pq.read_table(tmp_path / "out.parquet")
    assert [str(run) for run in table.column("run").to_pylist()] == ["-"] * 6 + ["run"]
    assert table.column("line").to_pylist() == [1, 2, 3, 5, 6, 7, 1]
    assert table.column("acc").to_pylist() == [0.25] * 6 + [None]
    assert table.column("other").to_pylist() == [None] * 6 + [2.0]
