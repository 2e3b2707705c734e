"""`plot` over run folders written by several hands, each case in a child process under a
timeout: a full disk (a real tmpfs) leaves the earlier picture as it was, a temporary a
SIGKILL left is removed, a run's name with `$...$` is drawn as it is (never mathtext),
names reach the terminal escaped (`text.shown`), and a `.gz` cut short is drawn up to the
cut, the cut said once."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import tmpfs

pytest.importorskip("matplotlib")

TIMEOUT = 120.0
"""Seconds one child may take: each needs a few (matplotlib's start)."""

BEGIN = b'{"event":"begin","time":1.0,"max_steps":9}\n'
LOG = b'{"event":"log","time":1.5,"step":%d,"epoch":0.5,"loss":%d.5,"learning_rate":0.0001}\n'


def run_of(folder: Path, steps: int = 5) -> Path:
    folder.mkdir(parents=True)
    (folder / "metrics.jsonl").write_bytes(BEGIN + b"".join(LOG % (s, s) for s in range(steps)))
    return folder


def plot(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """`plot ARGS` in a child: its output as bytes (what a terminal would be given)."""
    return subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "plot", *args],
        cwd=cwd,
        capture_output=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def temporaries(folder: Path, name: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{name}."))


def test_a_full_disk_leaves_the_earlier_picture_byte_for_byte(tmp_path: Path) -> None:
    """On a real tmpfs filled to its last block, `plot -o existing.png` fails with one
    line (exit non-zero), the earlier PNG byte for byte, and no temporary beside it."""
    run_of(tmp_path / "run", steps=50)
    with tmpfs(tmp_path / "disk", "256k") as disk:
        done = plot("run", "-o", str(disk / "existing.png"), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        before = (disk / "existing.png").read_bytes()
        with (disk / "filler").open("wb", buffering=0) as filler:  # every block left, taken
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:
                pass
        done = plot("run", "-o", str(disk / "existing.png"), "--dpi", "150", cwd=tmp_path)
        assert done.returncode != 0
        lines = done.stderr.decode().strip().splitlines()
        assert len(lines) == 1, lines
        assert "existing.png" in lines[0]
        assert (disk / "existing.png").read_bytes() == before
        assert temporaries(disk, "existing.png") == []


def test_a_temporary_a_sigkill_left_is_removed_by_the_next_plot(tmp_path: Path) -> None:
    """A `.loss.png.PID.RANDOM.tmp` of a process that is gone (SIGKILL'd: nothing ran)
    is removed by the next plot to `loss.png`; one of a living process is left."""
    run_of(tmp_path / "run")
    gone = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    gone.kill()
    gone.wait(timeout=TIMEOUT)
    stale = tmp_path / f".loss.png.{gone.pid}.0123456789abcdef.tmp"
    stale.write_bytes(b"half a picture")
    alive = tmp_path / f".loss.png.{os.getpid()}.fedcba9876543210.tmp"
    alive.write_bytes(b"being written")
    done = plot("run", "-o", "loss.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not stale.exists()
    assert alive.exists()
    assert (tmp_path / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_name_with_dollars_is_drawn_as_it_is(tmp_path: Path) -> None:
    """`a$\\frac{x}{$` (mathtext that does not parse) as a run's name and a title with
    `$`: every run drawn (exit 0), a PNG written."""
    run_of(tmp_path / "sweep" / "a$\\frac{x}{$")
    run_of(tmp_path / "sweep" / "b")
    done = plot("sweep", "-o", "sweep.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"2 runs" in done.stdout
    done = plot("sweep/b", "--title", "$\\frac{", "-o", "one.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "one.png").read_bytes()[:4] == b"\x89PNG"


def test_names_reach_the_terminal_escaped(tmp_path: Path) -> None:
    """A run folder named with an escape sequence and a newline, holding a bad line: the
    warning names it with both shown as escapes (`text.shown`), on one line; no raw ESC."""
    name = "r\x1b[31mred\nforged"
    folder = run_of(tmp_path / "sweep" / name)
    with (folder / "metrics.jsonl").open("ab") as handle:
        handle.write(b"not json\n")
    run_of(tmp_path / "sweep" / "plain")
    done = plot("sweep", "-o", "out.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in done.stderr + done.stdout
    warnings = [line for line in done.stderr.splitlines() if b"warning" in line]
    assert len(warnings) == 1
    assert b"r\\x1b[31mred\\nforged" in warnings[0]


def test_a_gzip_cut_short_is_drawn_to_the_cut_and_said_once(tmp_path: Path) -> None:
    """A `metrics.jsonl.gz` cut in its middle: its lines before the cut drawn (exit 0),
    the cut said once, in chunks.GzipCutError's words."""
    body = BEGIN + b"".join(LOG % (s, s % 7) for s in range(1, 3001))
    whole = gzip.compress(body)
    (tmp_path / "metrics.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    done = plot("metrics.jsonl.gz", "-o", "cut.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(b"gzip data cut short") == 1, done.stderr
    assert (tmp_path / "cut.png").read_bytes()[:4] == b"\x89PNG"


def test_a_last_line_no_byte_can_mend_is_one_invalid_line(tmp_path: Path) -> None:
    """`GARBAGE` without its newline is `syntax` at its first byte whatever follows: one
    invalid line, as `check` says; `{"event":"lo` reads to its end (`eof`): cut short."""
    garbage = run_of(tmp_path / "garbage")
    with (garbage / "metrics.jsonl").open("ab") as handle:
        handle.write(b"GARBAGE")
    cut = run_of(tmp_path / "cut")
    with (cut / "metrics.jsonl").open("ab") as handle:
        handle.write(b'{"event":"lo')
    done = plot("garbage", "-o", "g.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"garbage: 1 invalid line (skipped)" in done.stderr
    done = plot("cut", "-o", "c.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"cut: the last line cut short (skipped)" in done.stderr
