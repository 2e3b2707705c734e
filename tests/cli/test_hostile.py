"""The command line under hostile input: FIFOs, `/dev/zero`, sparse files of a gigabyte,
symlink loops, folders where files go, garbage. Every case runs the CLI in a child process
with a time limit, and the cases of hostile files with a cap on its address space
(`RLIMIT_AS`): a hang fails the test by its timeout, a read that is not bounded fails it by
running out of memory (`plot` gets four times the cap: matplotlib is large)."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_samples import EVALUATING, PROOF, VALID, T, make_run, python_env
from hostile import GIGABYTE, capped_cli, sparse, the_cap_kills
from schema_registry import validator

TIMEOUT = 60.0
"""Seconds any one command may take here: each needs a fraction of it."""

MEMORY = 160 * 2**20
"""The child's address space: about 85 MiB to start and check a line, and 75 MiB to
spare — less than a gigabyte file, a backlog read whole, or 200k findings kept."""

PREFIX = "overbrainer-contract: error: "


def cli(
    *args: str, cwd: Path, memory: int = MEMORY, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process, under the time limit and the memory cap."""
    return capped_cli(*args, cwd=cwd, memory=memory, timeout=TIMEOUT, env=python_env(), stdin=stdin)


def test_the_memory_cap_is_real(tmp_path: Path) -> None:
    """What the tests rely on: a child that holds more than the cap fails."""
    assert the_cap_kills(MEMORY, MEMORY, tmp_path, TIMEOUT)


# --- check: garbage is an error, the last line included --------------------------------


def test_a_file_of_garbage_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"hello")  # printf hello > f
    result = cli("check", "f", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "f:1 $: expected value at column 1 (the last line, without its newline)",
        "f: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error, 0 warnings",
    ]


def test_a_last_line_cut_short_is_a_warning_and_other_last_lines_are_errors(
    tmp_path: Path,
) -> None:
    whole = VALID.rstrip("\n")  # a whole last line, only its newline missing
    cut = VALID[: VALID.rindex('"time"')]  # a last line cut inside: `eof` in the reference
    wrong = VALID + '{"event":"stage","name":"deploy","time":1}'  # complete, and rejected
    for name, text, code, number in (
        ("whole", whole, 0, 11),
        ("cut", cut, 0, 11),
        ("wrong", wrong, 1, 12),
    ):
        (tmp_path / name).write_text(text)
        result = cli("check", name, "-o", "json", cwd=tmp_path)
        assert result.returncode == code, (name, result.stdout)
        *findings, summary = [json.loads(line) for line in result.stdout.splitlines()]
        assert len(findings) == 1
        finding = findings[0]
        assert finding["line"] == number
        if code:
            assert (finding["severity"], finding["category"]) == ("error", "data")
            assert finding["message"].endswith("(the last line, without its newline)")
        else:
            assert (finding["severity"], finding["category"]) == ("warning", "truncated")
        assert summary["valid"] is (code == 0)


def test_a_gigabyte_without_a_newline_is_one_error_in_flat_memory(tmp_path: Path) -> None:
    sparse(tmp_path / "junk.jsonl")
    result = cli("check", "junk.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "junk.jsonl:1 $: a line of 1,073,741,824 bytes, without its newline: over the"
        " 1,048,576 bytes a line is read to (--max-line 1M; a larger --max-line reads it)",
        "junk.jsonl: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error, 0 warnings",
    ]
    status = cli("status", "junk.jsonl", cwd=tmp_path)
    assert status.returncode == 1, status.stderr
    assert status.stderr == (
        "overbrainer-contract: junk.jsonl: 1 invalid line of 1"
        " ('overbrainer-contract check junk.jsonl' says which)\n"
    )
    plot = cli("plot", "junk.jsonl", "-o", "junk.png", cwd=tmp_path, memory=4 * MEMORY)
    assert "warning: junk.jsonl: 1 invalid line skipped" in plot.stderr


# --- --max-line: the bound is the user's -------------------------------------------------

HUGE_FIELD = b'"samples":[' + b"12345.5," * 5_000_000 + b"0.5]"
"""An unknown field holding a 40 MB array of 5M numbers (issue 9's huge line): the
reference reads it (serde_json ignores an unknown field, whatever its length), so a line
holding it is valid."""


def huge_run(tmp_path: Path) -> tuple[Path, int]:
    """A valid run whose first log line holds `HUGE_FIELD`; that line's size."""
    lines = VALID.encode().splitlines(keepends=True)
    log = lines[2]
    assert log.startswith(b'{"event":"log"')
    huge = log[:-2] + b"," + HUGE_FIELD + b"}\n"
    assert len(huge) > 40 * 10**6
    (tmp_path / "huge.jsonl").write_bytes(b"".join([*lines[:2], huge, *lines[3:]]))
    return tmp_path / "huge.jsonl", len(huge)


def test_a_valid_40_mb_line_is_a_length_error_by_default_and_valid_with_max_line(
    tmp_path: Path,
) -> None:
    """The default bound names itself and its option; a larger bound reads the line, and
    the run is valid, as the reference reads it (the child holds the line, its pieces
    joined, and the parse: a cap of 400 MiB above the usual one)."""
    _, size = huge_run(tmp_path)
    result = cli("check", "huge.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"huge.jsonl:3 $: a line of {size:,} bytes: over the 1,048,576 bytes a line is read"
        " to (--max-line 1M; a larger --max-line reads it)"
    )
    findings = [
        json.loads(line)
        for line in cli("check", "huge.jsonl", "-o", "json", cwd=tmp_path).stdout.splitlines()
    ]
    assert [(f.get("line"), f.get("category")) for f in findings[:-1]] == [(3, "length")]
    bigger = MEMORY + 400 * 2**20
    result = cli("check", "huge.jsonl", "--max-line", "64M", cwd=tmp_path, memory=bigger)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert result.stdout.startswith("huge.jsonl: valid: 11 lines (")
    assert ", 0 errors, 0 warnings" in result.stdout
    # status reads through the same reader, with the same option
    status = cli("status", "huge.jsonl", cwd=tmp_path)
    assert status.returncode == 1
    assert "huge.jsonl: 1 invalid line of 11" in status.stderr
    status = cli("status", "huge.jsonl", "--max-line", "64M", cwd=tmp_path, memory=bigger)
    assert status.returncode == 0, status.stderr


@pytest.mark.parametrize("max_line", [None, "64M"])
def test_zeros_from_a_pipe_end_within_the_cap(tmp_path: Path, max_line: str | None) -> None:
    """Two gigabytes of zero bytes from `/dev/zero` through a pipe, no newline: one length
    error, memory bounded by the bound (the default, or 64 MiB held under a cap that a
    line held whole, or a join of it, would break)."""
    option = [] if max_line is None else ["--max-line", max_line]
    memory = MEMORY if max_line is None else MEMORY + 80 * 2**20
    with (
        open("/dev/zero", "rb") as zeros,
        subprocess.Popen(
            ["head", "-c", str(2 * GIGABYTE)], stdin=zeros, stdout=subprocess.PIPE
        ) as head,
    ):
        assert head.stdout is not None
        result = subprocess.run(
            [sys.executable, "-m", "overbrainer_contract", "check", "-", *option],
            cwd=tmp_path,
            env=python_env(),
            stdin=head.stdout,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory)),
            check=False,
        )
        head.stdout.close()
    assert result.returncode == 1, result.stderr
    bound = 2**20 if max_line is None else 64 * 2**20
    assert result.stdout.splitlines() == [
        f"-:1 $: a line of {2 * GIGABYTE:,} bytes, without its newline: over the {bound:,}"
        f" bytes a line is read to (--max-line {max_line or '1M'}; a larger --max-line reads it)",
        "-: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error, 0 warnings",
    ]


@pytest.mark.parametrize("size", ["0", "12X", "-5", "M"])
def test_max_line_is_a_size(tmp_path: Path, size: str) -> None:
    result = cli("check", "-", "--max-line", size, cwd=tmp_path, stdin=b"")
    assert result.returncode == 2
    assert "argument --max-line: " in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_random_bytes_print_a_bounded_number_of_errors(tmp_path: Path) -> None:
    data = os.urandom(200_000).replace(b"\n", b"") + b"\n"
    junk = b"".join(data[i : i + 500] + b"\n" for i in range(0, len(data), 500))  # 400 lines
    (tmp_path / "random").write_bytes(junk)
    result = cli("check", "random", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 20 + 2  # twenty errors, the line counting the rest, the summary
    total = junk.count(b"\n")
    assert lines[-2] == f"random: {total - 20} more errors not shown (--max-errors 20)"
    assert f", {total} errors, 0 warnings" in lines[-1]
    fewer = cli("check", "random", "--max-errors", "3", cwd=tmp_path).stdout.splitlines()
    assert len(fewer) == 3 + 2
    assert fewer[-1] == lines[-1]  # the summary counts them all, whatever is shown
    every = cli("check", "random", "--max-errors", "0", cwd=tmp_path).stdout.splitlines()
    assert len(every) == total + 1
    json_lines = cli("check", "random", "-o", "json", cwd=tmp_path).stdout.splitlines()
    assert len(json_lines) == total + 1  # JSON: every finding by default
    bounded = cli("check", "random", "-o", "json", "--max-errors", "3", cwd=tmp_path)
    *findings, summary = [json.loads(line) for line in bounded.stdout.splitlines()]
    assert [item["type"] for item in findings] == ["finding"] * 3
    assert (summary["type"], summary["errors"]) == ("file", total)
    refused = cli("check", "random", "--max-errors", "-1", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == f"{PREFIX}--max-errors must be 0 (all) or more, not -1\n"


def test_standard_input_is_read_once(tmp_path: Path) -> None:
    result = cli("check", "-", "-", stdin=VALID.encode(), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}standard input (-) can be read only once\n"
    assert result.stdout == ""


def test_200k_problems_stream_as_json_lines_in_flat_memory(tmp_path: Path) -> None:
    count = 200_000
    log = f'{{"event":"log","time":{T},"step":1,"max_steps":4,"loss":1.5}}\n'
    (tmp_path / "early.jsonl").write_text(log * count)  # every line before any begin
    result = cli("check", "early.jsonl", "-o", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-500:]
    lines = result.stdout.splitlines()
    assert len(lines) == count + 1
    check = validator("check-report")
    for line in (lines[0], lines[-2], lines[-1]):
        check.validate(json.loads(line))
    assert json.loads(lines[-2])["line"] == count
    summary = json.loads(lines[-1])
    assert (summary["type"], summary["warnings"], summary["lines"]) == ("file", count, count)


# --- side files: FIFOs, devices, sparse files, loops, folders ----------------------------


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return make_run(tmp_path / "run", VALID)


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("name", ["snapshot.request", "snapshot.json"])
@pytest.mark.parametrize("command", ["check", "status"])
def test_a_fifo_is_refused_without_waiting(run: Path, name: str, command: str) -> None:
    _fifo(run / name)  # nobody writes to it: opening it to read would wait for ever
    result = cli(command, "run", cwd=run.parent)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}run/{name}: a FIFO, not a file\n"


@pytest.mark.parametrize("command", ["check", "status"])
def test_a_request_linked_to_dev_zero_is_refused(run: Path, command: str) -> None:
    (run / "snapshot.request").symlink_to("/dev/zero")
    result = cli(command, "run", cwd=run.parent)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}run/snapshot.request: a character device, not a file\n"


@pytest.mark.parametrize(("name", "bound"), [("snapshot.request", 4096), ("snapshot.json", 65536)])
@pytest.mark.parametrize("command", ["check", "status"])
def test_a_sparse_gigabyte_side_file_is_refused_unread(
    run: Path, command: str, name: str, bound: int
) -> None:
    sparse(run / name)
    result = cli(command, "run", cwd=run.parent)
    assert result.returncode == 2
    assert result.stderr == (
        f"{PREFIX}run/{name}: 1,073,741,824 bytes, over the {bound:,} it may hold\n"
    )
    (run / name).write_bytes(b" " * bound)  # at the bound: read (and judged on its text)
    result = cli(command, "run", cwd=run.parent)
    assert "may hold" not in result.stderr


@pytest.mark.parametrize("command", ["check", "status"])
def test_a_symlink_loop(run: Path, command: str) -> None:
    (run / "snapshot.json").symlink_to("snapshot.json")
    result = cli(command, "run", cwd=run.parent)
    assert result.returncode == 2
    loop = "a symlink loop (too many levels of symbolic links)"
    assert result.stderr == f"{PREFIX}run/snapshot.json: {loop}\n"
    (run.parent / "loop").symlink_to("loop")
    result = cli(command, "loop", cwd=run.parent)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}loop: {loop}\n"


@pytest.mark.parametrize("command", ["check", "status"])
def test_a_folder_where_the_metrics_file_goes(tmp_path: Path, command: str) -> None:
    (tmp_path / "run" / "metrics.jsonl").mkdir(parents=True)
    for name in ("run", "run/metrics.jsonl"):
        result = cli(command, name, cwd=tmp_path)
        assert result.returncode == 2
        assert result.stderr == f"{PREFIX}run/metrics.jsonl: a folder, not a file\n"


@pytest.mark.parametrize(
    "command", [["check"], ["status"], ["watch"], ["plot", "-o", "plot.png"]], ids=" ".join
)
def test_a_metrics_file_that_is_a_device(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").symlink_to("/dev/zero")
    result = cli(*command, "run", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}run/metrics.jsonl: a character device, not a file\n"


def test_watch_refuses_a_fifo(tmp_path: Path) -> None:
    _fifo(tmp_path / "metrics.jsonl")
    result = cli("watch", "metrics.jsonl", "--plain", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}metrics.jsonl: a FIFO, not a file\n"


def test_a_fifo_as_metrics_file_reads_as_a_stream(tmp_path: Path) -> None:
    """`check <(ssh gpu cat metrics.jsonl)`: a pipe is read as standard input is; one
    without a writer is empty, at once."""
    _fifo(tmp_path / "m.jsonl")
    result = cli("check", "m.jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("m.jsonl: valid: 0 lines")


# --- status ------------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["binary", "proof"])
def test_status_on_a_file_that_is_not_a_metrics_file_says_why(tmp_path: Path, what: str) -> None:
    path = tmp_path / "file"
    if what == "binary":
        path.write_bytes(bytes(range(256)) * 4)  # four newlines, five lines
        count, lines = 5, 5
    else:
        path.write_text(PROOF)  # status runs/7/snapshot.json
        count, lines = 1, 1
    result = cli("status", "file", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (
        f"overbrainer-contract: file: {count} invalid line{'s' if count > 1 else ''} of"
        f" {lines} ('overbrainer-contract check file' says which)\n"
    )


def test_status_shows_a_new_request_beside_an_older_proof(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", VALID, request="again\n", proof=PROOF)
    os.utime(run / "snapshot.json", ns=(10**18, 10**18))
    os.utime(run / "snapshot.request", ns=(10**18 + 10**9, 10**18 + 10**9))  # a second later
    result = cli("status", "run", cwd=tmp_path)
    assert result.returncode == 0
    row = next(line for line in result.stdout.splitlines() if line.startswith("snapshot"))
    assert row.split(None, 1)[1] == (
        "requested (again), not taken yet; an earlier one taken at step 2: out/checkpoint-2"
        " (manual)"
    )
    document = json.loads(cli("status", "run", "-o", "json", cwd=tmp_path).stdout)
    assert document["snapshot"]["pending"] is True
    os.utime(run / "snapshot.json", ns=(10**18 + 2 * 10**9,) * 2)  # the proof came after
    row = next(
        line
        for line in cli("status", "run", cwd=tmp_path).stdout.splitlines()
        if line.startswith("snapshot")
    )
    assert row.split(None, 1)[1] == "taken at step 2: out/checkpoint-2 (manual)"


# --- snapshot ----------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_the_request_is_written_with_the_umask(tmp_path: Path, umask: int) -> None:
    run = make_run(tmp_path / "run", EVALUATING)
    result = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "snapshot", "run"],
        cwd=tmp_path,
        env=python_env(),
        preexec_fn=lambda: os.umask(umask),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((run / "snapshot.request").stat().st_mode) == 0o666 & ~umask


def _append_later(path: Path, text: str, delay: float) -> threading.Thread:
    def write() -> None:
        time.sleep(delay)
        with path.open("a") as handle:
            handle.write(text)

    thread = threading.Thread(target=write)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("line", "how"),
    [
        (f'{{"event":"end","time":{T + 9},"step":2}}\n', "an end line at step 2"),
        (f'{{"event":"stage","name":"compare","time":{int(T) + 9}}}\n', "the compare stage began"),
    ],
    ids=["end", "compare"],
)
def test_snapshot_wait_ends_when_the_run_ends_without_a_proof(
    tmp_path: Path, line: str, how: str
) -> None:
    run = make_run(tmp_path / "run", EVALUATING, proof=PROOF)  # an older proof
    writer = _append_later(run / "metrics.jsonl", line, delay=1.0)
    start = time.monotonic()
    result = cli("snapshot", "run", "--wait", "600", "--interval", "0.05", cwd=tmp_path)
    writer.join()
    assert time.monotonic() - start < TIMEOUT / 2
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"{PREFIX}the run ended ({how}, after the request) without a new snapshot.json in run"
    )
    assert result.stdout == ""


def test_snapshot_wait_on_a_run_that_had_ended(tmp_path: Path) -> None:
    make_run(tmp_path / "run", VALID)  # ended, and the job moved on to merge
    result = cli("snapshot", "run", "--wait", "600", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"{PREFIX}the run had ended (the merge stage began) before the request:"
        " no snapshot will come"
    )


def test_snapshot_wait_takes_a_proof_written_just_before_the_end(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", EVALUATING)

    def plugin() -> None:  # the plugin's order: the proof, then the end line
        deadline = time.monotonic() + TIMEOUT
        while not (run / "snapshot.request").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        (run / "snapshot.json").write_text(PROOF)
        with (run / "metrics.jsonl").open("a") as handle:
            handle.write(f'{{"event":"end","time":{T + 9},"step":2}}\n')

    thread = threading.Thread(target=plugin)
    thread.start()
    result = cli("snapshot", "run", "--wait", "600", "--interval", "0.05", cwd=tmp_path)
    thread.join()
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(PROOF)


# --- watch -------------------------------------------------------------------------------


def test_watch_reads_a_gigabyte_backlog_in_flat_memory(tmp_path: Path) -> None:
    """A gigabyte line of zeros, then a job's lines to its last stage: read a block at a
    time, the long line one error, the rest followed to the end."""
    lines = VALID + '{"event":"stage","name":"compare","time":1764467490}\n'
    sparse(tmp_path / "metrics.jsonl", tail=b"\n" + lines.encode())
    result = cli("watch", "metrics.jsonl", "--plain", "--interval", "0.05", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # the long line is invalid
    out = result.stdout.splitlines()
    assert out[0] == (
        "metrics.jsonl:1 $: a line of 1,073,741,825 bytes: over the 1,048,576 bytes a line is"
        " read to (--max-line 1M; a larger --max-line reads it)"
    )
    assert out[1:-1] == [
        "stage train",
        "training began: 4 steps",
        "training ended at step 4",
        "stage merge",
        "stage compare",
    ]


def test_watch_takes_the_bound_from_max_line(tmp_path: Path) -> None:
    """The same reader, the same option: a line over `--max-line` is one error naming it,
    the rest followed to the end."""
    lines = VALID + '{"event":"stage","name":"compare","time":1764467490}\n'
    stage, rest = lines.split("\n", 1)
    first = stage[:-1] + ',"note":"' + "x" * 300 + '"}'  # an unknown field: still valid
    assert max(map(len, rest.splitlines())) < len(first) - 1
    (tmp_path / "metrics.jsonl").write_text(f"{first}\n{rest}")
    args = ["watch", "metrics.jsonl", "--plain", "--interval", "0.05"]
    result = cli(*args, "--max-line", str(len(first) - 1), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"metrics.jsonl:1 $: a line of {len(first) + 1:,} bytes: over the {len(first) - 1:,}"
        f" bytes a line is read to (--max-line {len(first) - 1}; a larger --max-line reads it)"
    )
    result = cli(*args, "--max-line", str(len(first)), cwd=tmp_path)  # its bytes, no newline
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines()[0] == "stage train"
