"""The job's stage line (`stage_command`, run by bash and dash as a job's shell runs it,
each in a child under a timeout) where a shell's `>>` would fail the run: a FIFO with no
reader, a real full disk, a cut last line, a link planted in the metrics file's place.

The stage line keeps the plugin's rules (it is written by the plugin's own writer): it never
blocks, writes the whole line or nothing, starts a fresh line after a cut one, and appends
only to a regular file; the command still never fails the job (status 0)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import sized_lines, tmpfs
from overbrainer_contract.plugin.source import PLUGIN_PATH, stage_command
from plugin_helpers import Filler, check_metrics

SHELLS = ["bash", "dash"]
PROMPT = 20  # seconds: far more than a stage line takes; a `>>` onto a FIFO waits for ever
BEGIN = b'{"event":"begin","time":1.5,"max_steps":null}\n'


def stage(sh: str, metrics: Path, name: str = "merge") -> subprocess.CompletedProcess[str]:
    """`stage_command(name)` then `echo went-on`, under `set -eu`, as a job's shell runs it:
    the plugin's folder on `PYTHONPATH`, this Python first on `PATH`."""
    path = shutil.which(sh)
    if path is None:
        pytest.skip(f"{sh} is not installed (apt-get install -y {sh})")
    env = {
        **os.environ,
        "OVERBRAINER_METRICS": str(metrics),
        "PYTHONPATH": str(PLUGIN_PATH.parent),
        "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))),
    }
    command = f"set -eu; {stage_command(name)}; echo went-on"
    return subprocess.run(
        [path, "-c", command], env=env, capture_output=True, text=True, timeout=PROMPT, check=False
    )


def went_on(result: subprocess.CompletedProcess[str]) -> None:
    assert (result.returncode, result.stdout) == (0, "went-on\n"), result.stderr


@pytest.mark.parametrize("sh", SHELLS)
def test_a_fifo_with_no_reader_is_refused_at_once(sh: str, tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    os.mkfifo(metrics)
    result = stage(sh, metrics)  # a `>>` blocks in open() for ever: the timeout fails it
    went_on(result)
    assert "not a regular file" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("sh", SHELLS)
def test_a_link_planted_in_place_of_the_metrics_file_is_not_written_through(
    sh: str, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"not a metrics file\n")
    metrics = tmp_path / "run" / "metrics.jsonl"
    metrics.parent.mkdir()
    metrics.symlink_to(target)
    result = stage(sh, metrics)
    went_on(result)
    assert "a symbolic link: not written through" in result.stderr
    assert target.read_bytes() == b"not a metrics file\n"
    assert metrics.is_symlink()


@pytest.mark.parametrize("sh", SHELLS)
def test_after_a_cut_last_line_the_stage_line_starts_a_fresh_one(sh: str, tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_bytes(BEGIN + b'{"event":"st')  # a writer killed mid-line
    went_on(stage(sh, metrics, "export"))
    data = metrics.read_bytes().splitlines()
    assert data[:2] == [BEGIN.rstrip(), b'{"event":"st'], "the cut line stays, alone"
    assert data[2].startswith(b'{"event":"stage","name":"export","time":')
    assert len(data) == 3


@pytest.mark.parametrize("sh", SHELLS)
def test_a_full_disk_leaves_no_fragment_and_the_next_line_is_whole(sh: str, tmp_path: Path) -> None:
    """The metrics file on a small real tmpfs, its last block 20 bytes short of full, the
    rest of the disk filled: the 51-byte stage line fits only in part. Nothing of it stays
    (a `>>` leaves 20 bytes there, status 0); once the disk has room the next line is whole
    and on its own line."""
    with tmpfs(tmp_path / "disk", "256k") as disk:
        metrics = disk / "metrics.jsonl"
        block = os.statvfs(disk).f_bsize
        before = sized_lines(block - 20)
        metrics.write_bytes(before)
        filler = Filler(disk)
        filler.fill()
        try:
            cut = stage(sh, metrics, "merge")
            after_cut = metrics.read_bytes()
        finally:
            filler.free()
        went_on(cut)
        assert "cut short: 20 of 51 bytes" in cut.stderr
        assert after_cut == before, "a fragment of the stage line stayed"
        went_on(stage(sh, metrics, "export"))
        lines = check_metrics(metrics)  # every line whole, read by the reference
    assert [line["name"] for line in lines[-2:]] == ["train", "export"]
    assert len(lines) == before.count(b"\n") + 1
