"""`export` over run folders written by several hands, each case in a child process under
a timeout: many tiny runs into Parquet (its size follows its rows), an output that is one
of the inputs (refused, nothing touched), an export that reads no row (the earlier file
left), real signals sent mid-export (no temporary left; one a SIGKILL leaves is removed by
the next export), a last line no byte can mend (invalid, as `check` says), a `.gz` cut
short (its lines read, the cut said), and the counts `read_runs` gives."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from overbrainer_contract.table import counts_of, read_runs

TIMEOUT = 120.0
"""Seconds one child may take: each needs a few."""

BEGIN = b'{"event":"begin","time":1.0,"max_steps":3}\n'
LOG = b'{"event":"log","time":1.5,"step":%d,"epoch":0.5,"loss":1.25,"learning_rate":0.0001}\n'


def export(*args: str, cwd: Path, stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "export", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        check=False,
    )


def lines_of(err: str) -> list[str]:
    return err.strip().splitlines()


def test_parquet_of_ten_thousand_tiny_runs_follows_its_rows(tmp_path: Path) -> None:
    """10,000 runs of 3 rows: the Parquet file within twice the Arrow IPC file's size (the
    same rows, one dictionary of run names for the whole file), in row groups by rows
    (30,000 rows: one group of at most 65,536), and every row read back in its run."""
    sweep = tmp_path / "sweep"
    for index in range(10_000):
        run = sweep / f"r{index}"
        run.mkdir(parents=True)
        (run / "metrics.jsonl").write_bytes(BEGIN + LOG % 1 + LOG % 2)
    for out in ("runs.parquet", "runs.arrow"):
        done = export("sweep", "-o", out, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    parquet = (tmp_path / "runs.parquet").stat().st_size
    arrow = (tmp_path / "runs.arrow").stat().st_size
    assert parquet <= 2 * arrow, (parquet, arrow)
    meta = pq.ParquetFile(tmp_path / "runs.parquet").metadata
    assert meta.num_rows == 30_000
    assert meta.num_row_groups == 1
    table = pq.read_table(tmp_path / "runs.parquet", columns=["run", "step"])
    runs = table.column("run").to_pylist()
    assert runs[:3] == ["r0"] * 3
    assert runs[-3:] == ["r9999"] * 3
    assert len(set(runs)) == 10_000


@pytest.fixture
def earlier(tmp_path: Path) -> Path:
    """`prev.parquet`: an earlier export of one run of three rows."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").write_bytes(BEGIN + LOG % 1 + LOG % 2)
    done = export("run", "-o", "prev.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "prev.parquet"


def test_an_output_that_is_an_input_is_refused_and_left_as_it_was(
    tmp_path: Path, earlier: Path
) -> None:
    """The output named as an input, reached through a symlink, as a run folder's metrics
    file, or as standard input: one line, exit 2, the file byte for byte as it was."""
    before = earlier.read_bytes()
    (tmp_path / "link.jsonl").symlink_to("prev.parquet")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "metrics.jsonl").symlink_to("../prev.parquet")
    for given in (["prev.parquet"], ["link.jsonl", "run"], ["folder", "run"]):
        done = export(*given, "-o", "prev.parquet", cwd=tmp_path)
        assert done.returncode == 2, (given, done.stderr)
        assert len(lines_of(done.stderr)) == 1, done.stderr
        assert "is the metrics file of the run" in done.stderr
        assert earlier.read_bytes() == before
    with earlier.open("rb") as handle:
        done = export("-", "-o", "prev.parquet", cwd=tmp_path, stdin=handle.fileno())
    assert done.returncode == 2, done.stderr
    assert earlier.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []


def test_an_export_that_reads_no_row_leaves_the_earlier_file(tmp_path: Path, earlier: Path) -> None:
    """Every line rejected, or no line at all: the earlier file stays, it is said, exit 1."""
    before = earlier.read_bytes()
    (tmp_path / "bad.jsonl").write_bytes(b"not json\n" * 3)
    (tmp_path / "empty.jsonl").write_bytes(b"")
    for given in ("bad.jsonl", "empty.jsonl"):
        done = export(given, "-o", "prev.parquet", cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert "prev.parquet: left as it was: no row was read" in done.stderr
        assert earlier.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.fixture
def stream(tmp_path: Path) -> Iterator[Path]:
    """A FIFO `live.jsonl` fed valid lines without end by a thread (an export of it is
    always mid-export), until the reader leaves."""
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    stop = threading.Event()

    def feed() -> None:
        try:
            with fifo.open("wb") as handle:
                handle.write(BEGIN)
                step = 0
                while not stop.is_set():
                    step += 1
                    handle.write(b"".join(LOG % (step * 1000 + i) for i in range(1000)))
        except (BrokenPipeError, OSError):
            return

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    yield fifo
    stop.set()
    with open(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK), "rb"):
        pass  # a writer still waiting for its reader opens, and sees it leave
    thread.join(timeout=10)


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".prev.parquet."))


def mid_export(tmp_path: Path) -> subprocess.Popen[bytes]:
    """`export live.jsonl -o prev.parquet` in a child, once its temporary is there."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "overbrainer_contract",
            "export",
            "live.jsonl",
            "-o",
            "prev.parquet",
        ],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + TIMEOUT
    while not temporaries(tmp_path):
        assert child.poll() is None, child.stderr.read() if child.stderr else b""
        assert time.monotonic() < deadline, "no temporary appeared"
        time.sleep(0.05)
    time.sleep(0.5)  # batches written into it
    return child


@pytest.mark.usefixtures("stream")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_export_leaves_no_temporary(
    tmp_path: Path, earlier: Path, signum: int
) -> None:
    """SIGTERM or SIGINT sent to a real export mid-way: its temporary removed, the earlier
    file byte for byte, the process ended by the signal (SIGTERM) or as interrupted (130)."""
    before = earlier.read_bytes()
    child = mid_export(tmp_path)
    child.send_signal(signum)
    code = child.wait(timeout=TIMEOUT)
    assert code == (-signal.SIGTERM if signum == signal.SIGTERM else 130)
    assert temporaries(tmp_path) == []
    assert earlier.read_bytes() == before


@pytest.mark.usefixtures("stream")
def test_a_temporary_left_by_sigkill_is_removed_by_the_next_export(
    tmp_path: Path, earlier: Path
) -> None:
    """SIGKILL leaves the temporary (nothing runs); its process gone, the next export to
    the same target removes it, and replaces the target."""
    child = mid_export(tmp_path)
    child.kill()
    assert child.wait(timeout=TIMEOUT) == -signal.SIGKILL
    left = temporaries(tmp_path)
    assert len(left) == 1
    assert left[0].split(".")[3] == str(child.pid)
    (tmp_path / "other.jsonl").write_bytes(BEGIN + LOG % 7)
    done = export("other.jsonl", "-o", "prev.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert temporaries(tmp_path) == []
    assert pq.read_table(earlier).column("step").to_pylist() == [None, 7]


def test_a_last_line_no_byte_can_mend_is_invalid_as_check_says(tmp_path: Path) -> None:
    """`GARBAGE` without its newline: the reference answers `syntax` at its first byte
    whatever follows, so check says invalid (exit 1), and export counts it a rejected line
    (exit 1); a last line the reference reads to its end (`eof`) is cut short: a warning,
    exit 0, for both."""
    (tmp_path / "garbage.jsonl").write_bytes(BEGIN + b"GARBAGE")
    (tmp_path / "cut.jsonl").write_bytes(BEGIN + b'{"event":"lo')
    check = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "check", "garbage.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert check.returncode == 1, check.stdout + check.stderr
    done = export("garbage.jsonl", "-o", "g.parquet", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "1 line left out, rejected by the reference (syntax 1); the first at line 2" in (
        done.stderr
    )
    assert "cut short" not in done.stderr
    done = export("cut.jsonl", "-o", "c.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "the last line is cut short" in done.stderr


def test_a_gzip_cut_short_gives_its_lines_and_says_the_cut(tmp_path: Path) -> None:
    """A `.jsonl.gz` cut in its middle: the whole lines before the cut exported, the cut
    said once, exit 1; the counts say the same in Python (`counts_of`)."""
    body = BEGIN + b"".join(LOG % step for step in range(1, 2001))
    whole = gzip.compress(body)
    (tmp_path / "metrics.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    done = export("metrics.jsonl.gz", "-o", "cut.parquet", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("gzip data cut short") == 1, done.stderr
    steps = pq.read_table(tmp_path / "cut.parquet").column("step").to_pylist()
    assert steps[0] is None
    assert steps[1:] == list(range(1, len(steps)))
    assert 1 < len(steps) < 2001
    [counts] = counts_of(read_runs(tmp_path / "metrics.jsonl.gz"))
    assert counts.rows == len(steps)
    assert counts.gzip_cut is not None
    assert "cut short" in counts.gzip_cut


def test_read_runs_counts_are_reachable(tmp_path: Path) -> None:
    """`counts_of(read_runs(...))`: each run's lines, rows and lines left out by category,
    as the schema's metadata holds them."""
    (tmp_path / "a.jsonl").write_bytes(BEGIN + b"nope\n" + LOG % 1 + b'{"event":"log"}\n')
    table = read_runs([tmp_path / "a.jsonl"])
    [counts] = counts_of(table)
    assert (counts.lines, counts.rows, counts.left_out) == (4, 2, 2)
    assert counts.rejected == {"syntax": 1, "eof": 0, "data": 1, "length": 0}
    assert counts.first_rejected == 2
    assert json.loads(table.schema.metadata[b"overbrainer:counts"])[0]["rows"] == 2
