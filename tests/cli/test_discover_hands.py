"""A folder of runs as several hands leave it: a FIFO where a run's `metrics.jsonl` should
be, its writer holding it open and writing nothing, and chains of folders thousands deep.
Each command runs in a child process under a timeout, as a user runs it over the sweep."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = str(Path(sys.executable).with_name("overbrainer-contract"))
RUN = b'{"event":"begin","time":1.0,"max_steps":null}\n{"event":"end","time":2.0,"step":%d}\n'
TIMEOUT = 30
"""Seconds a command over the sweep may take: a hang is a `TimeoutExpired`, a failure."""


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [SCRIPT, *argv], cwd=cwd, capture_output=True, text=True, env=env, timeout=TIMEOUT
    )


@pytest.fixture
def fifo_sweep(tmp_path: Path) -> Iterator[Path]:
    """sweep/a (a run), sweep/b/metrics.jsonl a FIFO that a child shell holds open for
    writing and never writes to, sweep/c/metrics.jsonl a symlink set up to a regular file
    kept elsewhere (as an orchestrator may)."""
    sweep = tmp_path / "sweep"
    (sweep / "a").mkdir(parents=True)
    (sweep / "a/metrics.jsonl").write_bytes(RUN % 1)
    (sweep / "b").mkdir()
    fifo = sweep / "b/metrics.jsonl"
    os.mkfifo(fifo)
    (sweep / "c").mkdir()
    (tmp_path / "kept.jsonl").write_bytes(RUN % 3)
    (sweep / "c/metrics.jsonl").symlink_to(tmp_path / "kept.jsonl")
    # `<>` opens the FIFO for writing (and reading) without waiting for a reader: the writer
    # holds it open from the start, so a reader of the FIFO waits for its bytes for ever.
    writer = subprocess.Popen(["bash", "-c", f"exec 3<>'{fifo}'; exec sleep 600"])
    try:
        yield tmp_path
    finally:
        writer.kill()
        writer.wait(timeout=10)


REFUSED = "sweep/b/metrics.jsonl: a FIFO, not a file"


def test_check_over_a_sweep_refuses_a_fifo_it_finds_and_ends(fifo_sweep: Path) -> None:
    result = cli("check", "sweep", cwd=fifo_sweep)
    assert result.returncode == 2, result.stderr  # one path unreadable
    assert REFUSED in result.stderr
    assert result.stdout.startswith("sweep/a/metrics.jsonl: valid: 2 lines")
    assert "sweep/c/metrics.jsonl: valid: 2 lines" in result.stdout


def test_status_over_a_sweep_refuses_a_fifo_it_finds_and_ends(fifo_sweep: Path) -> None:
    result = cli("status", "sweep", "-o", "json", cwd=fifo_sweep)
    assert result.returncode == 2
    assert f"error: {REFUSED}" in result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(row["name"], row["step"]) for row in rows] == [("a", 1), ("c", 3)]


def test_export_over_a_sweep_refuses_a_fifo_it_finds_and_ends(fifo_sweep: Path) -> None:
    pytest.importorskip("pyarrow")
    result = cli("export", "sweep", "-o", "out.csv", cwd=fifo_sweep)
    assert result.returncode == 2
    assert f"error: {REFUSED}" in result.stderr


def test_plot_over_a_sweep_refuses_a_fifo_it_finds_and_ends(fifo_sweep: Path) -> None:
    pytest.importorskip("matplotlib")
    result = cli("plot", "sweep", "-o", "out.png", cwd=fifo_sweep)
    assert result.returncode == 2
    assert f"error: {REFUSED}" in result.stderr


def test_a_run_folder_given_is_refused_its_fifo_too(fifo_sweep: Path) -> None:
    """Only the path named is read as a stream: `sweep/b` names a folder, not its FIFO."""
    result = cli("check", "sweep/b", cwd=fifo_sweep)
    assert result.returncode == 2
    assert REFUSED in result.stderr


PYTHON_API = """
import sys
import overbrainer_contract as oc
from overbrainer_contract.runs.state import RunError
try:
    oc.read_run("sweep/b")
except RunError as error:
    print("read_run:", error)
try:
    list(oc.iter_lines("sweep/b"))
except RunError as error:
    print("iter_lines:", error)
try:
    oc.table.read_runs("sweep")
except OSError as error:
    print("read_runs:", error)
"""


def test_the_python_api_refuses_a_fifo_in_a_run_folder(fifo_sweep: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", PYTHON_API],
        cwd=fifo_sweep,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    expected = ["read_run", "iter_lines"]
    try:
        import pyarrow  # noqa: F401

        expected.append("read_runs")
    except ImportError:
        pass
    assert result.stdout.splitlines() == [f"{name}: {REFUSED}" for name in expected]


# -- folders thousands deep ---------------------------------------------------------------


def _chain(top: Path, depth: int, metrics: bytes | None = None) -> None:
    """`depth` folders `d`, each in the one before, and `metrics.jsonl` holding `metrics` in
    the last; made through descriptors (pathlib's and os's makedirs recurse, and past a
    depth of about 2,000 the path is longer than the system takes)."""
    top.mkdir(parents=True)
    folder = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=folder)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
        if metrics is not None:
            file = os.open("metrics.jsonl", os.O_WRONLY | os.O_CREAT | os.O_EXCL, dir_fd=folder)
            with os.fdopen(file, "wb") as handle:
                handle.write(metrics)
    finally:
        os.close(folder)


SHALLOW = 1_500
DEEP = 5_000


@pytest.fixture
def deep_sweep(tmp_path: Path) -> Iterator[Path]:
    """sweep/a (a run), sweep/chain: 1,500 nested folders with a run at the bottom, and
    sweep/long: 5,000 nested folders holding no run."""
    sweep = tmp_path / "sweep"
    try:
        (sweep / "a").mkdir(parents=True)
        (sweep / "a/metrics.jsonl").write_bytes(RUN % 1)
        _chain(sweep / "chain", SHALLOW, RUN % 2)
        _chain(sweep / "long", DEEP)
        yield tmp_path
    finally:
        # rm walks a tree of any depth; pytest's removal of old temporary folders (and
        # shutil.rmtree on Python 3.10 and 3.11) recurses, and would fail on one left here
        subprocess.run(["rm", "-rf", "--", str(sweep)], timeout=60, check=True)


def test_check_walks_folders_thousands_deep(deep_sweep: Path) -> None:
    result = cli("check", "sweep", cwd=deep_sweep)
    assert result.returncode == 0, (result.stdout[-300:], result.stderr[-300:])
    lines = result.stdout.splitlines()
    deep = "sweep/chain/" + "d/" * SHALLOW + "metrics.jsonl"
    assert [line.split(": ")[0] for line in lines] == ["sweep/a/metrics.jsonl", deep, "total"]
    assert lines[-1] == "total: valid: 2 files, 4 lines, 0 errors, 0 warnings"


def test_status_walks_folders_thousands_deep(deep_sweep: Path) -> None:
    result = cli("status", "sweep", "-o", "json", cwd=deep_sweep)
    assert result.returncode == 0, (result.stdout[-300:], result.stderr[-300:])
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    deep = "chain/" + "/".join(["d"] * SHALLOW)
    assert [(row["name"], row["step"]) for row in rows] == [("a", 1), (deep, 2)]
