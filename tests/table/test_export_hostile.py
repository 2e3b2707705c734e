"""`export` under hostile input, read as `check` reads it: each metrics file opened by
`sidefile.open_metrics` (a FIFO is a stream, a device or a folder refused) and read in
chunks by the core (`TableScan`): a line of any length read, junk without a newline
decided by its start and skipped unheld, a line over the user's `--max-line` left out and
counted under `length`. Every case runs the CLI in a child process with a time limit and a
cap on its address space (`RLIMIT_AS`), with `hostile.CAPPED_ENV` (one malloc arena, four
core threads): a hang fails by the timeout, a line held whole by running out of memory.

What export says of a line is the old reader's rule, line by line: a complete line the
reference rejects is left out under the category of its error on the line without its
newline (as the golden suite cuts a file), a last line without its newline is cut short
(left out with a warning, not counted as rejected) when the reference reads it to its end
(`eof`, `check`'s rule), rejected under its category otherwise, and only a line
over the user's bound is `length`. A NUL byte where a JSON value must start is serde_json's
`expected value`, a `syntax` error, whatever follows it."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hostile import GIGABYTE, capped_cli, sparse, the_cap_kills
from overbrainer_contract.table import COUNTS_KEY, read_runs

ROOT = Path(__file__).resolve().parents[2]
TINY = (ROOT / "examples" / "tiny-run" / "metrics.jsonl").read_bytes()
TINY_LINES = TINY.count(b"\n")

TIMEOUT = 60.0
"""Seconds any one export may take here: each needs a fraction of it."""

MEMORY = 512 * 2**20
"""The child's address space. Measured (the least cap each case passes under): about 240
MiB to start pyarrow and numpy and write a small table (one BLAS thread), a gigabyte of
junk included (skipped unheld). 512 MiB leaves 270 MiB to spare; a gigabyte line held
whole breaks it."""

HUGE_MEMORY = MEMORY + 128 * 2**20
"""The cap of a valid 40 MB line read into the table: 460 MiB measured (the line held
whole, its buffer doubled to 64 MiB, the columns of its chunk, Arrow's copy of them);
640 MiB leaves 180 MiB to spare, and is less than a gigabyte line held."""

PREFIX = "overbrainer-contract: "
TOO_LONG = "over --max-line 1M (length 1)"


def export(*args: str, cwd: Path, memory: int = MEMORY) -> subprocess.CompletedProcess[str]:
    """`overbrainer-contract export ARGS` in a child, under the time limit and the cap."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")  # its buffers grow with the cores
    return capped_cli("export", *args, cwd=cwd, memory=memory, timeout=TIMEOUT, env=env)


STREAM_NOTE = (
    f"{PREFIX}m.jsonl: a stream, read once: its scalar keys are not columns of the wide table"
    " (--long exports every scalar)\n"
)
"""What export says of a FIFO: read once, by the table, so no reading finds its keys first."""


def test_the_memory_cap_is_real(tmp_path: Path) -> None:
    """What the tests rely on: a child holding a gigabyte under the cap fails."""
    assert the_cap_kills(GIGABYTE, MEMORY, tmp_path, TIMEOUT)


@pytest.mark.parametrize("max_line", [None, "1M"])
def test_a_gigabyte_line_is_left_out_and_the_rest_exported(
    tmp_path: Path, max_line: str | None
) -> None:
    """A gigabyte of zeros, its newline, then a real run: one line left out, unheld. By
    default it is rejected by the reference (`syntax`, see the module: its start decides
    it); with `--max-line 1M` it is over the bound, `length`, as before."""
    sparse(tmp_path / "run" / "metrics.jsonl", tail=b"\n" + TINY)
    option = [] if max_line is None else ["--max-line", max_line]
    result = export("run", "-o", "t.parquet", *option, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    why = "rejected by the reference (syntax 1)" if max_line is None else TOO_LONG
    assert result.stderr.splitlines() == [
        f"{PREFIX}run: 1 line left out, {why}; the first at line 1",
        f"{PREFIX}exported {TINY_LINES} rows of 1 run to t.parquet; 1 line left out",
    ]
    table = pq.read_table(tmp_path / "t.parquet")
    assert table.column("line").to_pylist() == list(range(2, TINY_LINES + 2))
    bound = None if max_line is None else 2**20
    counts = json.loads(read_runs([tmp_path / "run"], max_line=bound).schema.metadata[COUNTS_KEY])
    category = "syntax" if max_line is None else "length"
    assert counts[0]["rejected"] == {"syntax": 0, "eof": 0, "data": 0, "length": 0} | {category: 1}
    assert (counts[0]["lines"], counts[0]["rows"], counts[0]["cut"]) == (
        TINY_LINES + 1,
        TINY_LINES,
        False,
    )


def test_a_gigabyte_without_a_newline_is_a_cut_line_or_over_max_line(tmp_path: Path) -> None:
    """Junk without a newline at the end: by default a last line no byte can mend (a NUL
    where a value must start: `syntax` at column 1), an invalid line as `check` says,
    judged in flat memory; over the user's bound it is `length` (an error), not a cut line."""
    path = tmp_path / "junk.jsonl"
    path.write_bytes(TINY)
    with path.open("ab") as handle:
        handle.truncate(len(TINY) + GIGABYTE)
    result = export("junk.jsonl", "-o", "t.csv", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [
        f"{PREFIX}junk.jsonl: 1 line left out, rejected by the reference (syntax 1);"
        f" the first at line {TINY_LINES + 1}",
        f"{PREFIX}exported {TINY_LINES} rows of 1 run to t.csv; 1 line left out",
    ]
    result = export("junk.jsonl", "-o", "t.csv", "--max-line", "1M", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [
        f"{PREFIX}junk.jsonl: 1 line left out, {TOO_LONG}; the first at line {TINY_LINES + 1}",
        f"{PREFIX}exported {TINY_LINES} rows of 1 run to t.csv; 1 line left out",
    ]


def test_a_metrics_file_linked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").symlink_to("/dev/zero")
    result = export("run", "-o", "t.parquet", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}error: run/metrics.jsonl: a character device, not a file\n"
    assert sorted(os.listdir(tmp_path)) == ["run"]  # nothing written


def test_a_folder_where_the_metrics_file_goes(tmp_path: Path) -> None:
    (tmp_path / "run" / "metrics.jsonl").mkdir(parents=True)
    for name in ("run", "run/metrics.jsonl"):
        result = export(name, "-o", "t.parquet", cwd=tmp_path)
        assert result.returncode == 2
        assert result.stderr == f"{PREFIX}error: run/metrics.jsonl: a folder, not a file\n"
    assert sorted(os.listdir(tmp_path)) == ["run"]


def test_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    result = export("loop", "-o", "t.parquet", cwd=tmp_path)
    assert result.returncode == 2
    loop = "a symlink loop (too many levels of symbolic links)"
    assert result.stderr == f"{PREFIX}error: loop: {loop}\n"


def test_a_fifo_without_a_writer_reads_as_empty_at_once(tmp_path: Path) -> None:
    """As `check`: a FIFO is a stream; without a writer it is empty, without a wait."""
    os.mkfifo(tmp_path / "m.jsonl")
    result = export("m.jsonl", "-o", "t.parquet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == f"{STREAM_NOTE}{PREFIX}exported 0 rows of 1 run to t.parquet\n"
    assert pq.read_table(tmp_path / "t.parquet").num_rows == 0


def test_a_fifo_with_a_writer_is_read_as_a_stream(tmp_path: Path) -> None:
    """`export <(ssh gpu cat metrics.jsonl)`: the lines come through the pipe in pieces."""
    fifo = tmp_path / "m.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("wb") as pipe:  # waits for the reader
            for start in range(0, len(TINY), 1000):
                pipe.write(TINY[start : start + 1000])
                pipe.flush()
                time.sleep(0.001)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        result = export("m.jsonl", "-o", "t.parquet", cwd=tmp_path)
    finally:
        writer.join(TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"{STREAM_NOTE}{PREFIX}exported {TINY_LINES} rows of 1 run to t.parquet\n"
    )


def _huge_run(folder: Path) -> int:
    """A real run whose second line is a log holding an unknown 40 MB array (issue 9's
    huge line): valid, as the reference ignores an unknown field. Its line's size."""
    lines = TINY.splitlines(keepends=True)
    log = next(index for index, line in enumerate(lines) if line.startswith(b'{"event":"log"'))
    huge = lines[log][:-2] + b',"samples":[' + b"12345.5," * 5_000_000 + b"0.5]}\n"
    lines[log] = huge
    folder.mkdir()
    (folder / "metrics.jsonl").write_bytes(b"".join(lines))
    return log + 1


def test_a_valid_40_mb_line_is_a_row_by_default_and_length_with_max_line_1m(
    tmp_path: Path,
) -> None:
    """No bound by default: the line is read as the reference reads it, a row like the
    others (under `HUGE_MEMORY`); with `--max-line 1M` it is left out as `length`, as it
    always was, under the usual cap."""
    number = _huge_run(tmp_path / "huge")
    result = export("huge", "-o", "t.parquet", cwd=tmp_path, memory=HUGE_MEMORY)
    assert result.returncode == 0, result.stderr
    assert result.stderr == f"{PREFIX}exported {TINY_LINES} rows of 1 run to t.parquet\n"
    lines = pq.read_table(tmp_path / "t.parquet").column("line").to_pylist()
    assert lines == list(range(1, TINY_LINES + 1))
    result = export("huge", "--max-line", "1M", "-o", "t.parquet", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [
        f"{PREFIX}huge: 1 line left out, {TOO_LONG}; the first at line {number}",
        f"{PREFIX}exported {TINY_LINES - 1} rows of 1 run to t.parquet; 1 line left out",
    ]


def test_read_runs_takes_the_bound_and_counts_length(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    long_line = b'{"event":"end","time":1,"step":2,"note":"' + b"x" * 100 + b'"}\n'
    (run / "metrics.jsonl").write_bytes(b'{"event":"end","time":1,"step":2}\n' + long_line)
    for bound, rows, length in ((64, 1, 1), (len(long_line) - 1, 2, 0)):
        table = read_runs([run], max_line=bound)
        assert table.num_rows == rows
        counts = json.loads(table.schema.metadata[COUNTS_KEY])[0]
        assert counts["rejected"]["length"] == length
        assert counts["first_rejected"] == (2 if length else None)
    with pytest.raises(ValueError, match="max_line"):
        read_runs([run], max_line=0)
