"""The command line under hostile input: FIFOs, `/dev/zero`, sparse files of a gigabyte,
symlink loops, folders where files go, garbage. Every case runs the CLI in a child process
with a time limit, and the cases of hostile files with a cap on its address space
(`RLIMIT_AS`): a hang fails the test by its timeout, a read that is not bounded fails it by
running out of memory (`plot` gets four times the cap: matplotlib is large). The children
run with `hostile.CAPPED_ENV` (one malloc arena, four core threads), where the caps below
were measured.

Every expected message is the reference's (serde_json's error on that line, as
`parse_line` gives it, the line-by-line oracle) in the checker's words, never one copied
from the command's output: a NUL byte where a JSON value must start is serde_json's
`expected value` at column 1, and as it reads from left to right and never looks back no
byte after it changes that error."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from cli_samples import EVALUATING, PROOF, VALID, T, make_run, python_env
from hostile import GIGABYTE, capped_cli, sparse, the_cap_kills
from overbrainer_contract.check.checker import check_stream
from overbrainer_contract.check.reporter import TextReporter
from overbrainer_contract.contract.constants import PROOF_LIMIT, REQUEST_LIMIT
from schema_registry import validator

TIMEOUT = 60.0
"""Seconds any one command may take here: each needs a fraction of it."""

MEMORY = 160 * 2**20
"""The child's address space. Measured (the least cap under which each case passes): 31
MiB to start and check a gigabyte of junk (its start decides it, the rest is skipped
unheld), 79 MiB to stream 200k findings (a 4 MiB chunk's facts at a time), 107 MiB to
read a valid 40 MB line (held whole: its buffer doubles to 64 MiB). 160 MiB leaves 50 MiB
to spare over the largest, and is far less than a gigabyte file or backlog held whole."""

SKIP_LIMIT = 4 * GIGABYTE
"""The bytes of one line skipped without a newline before the reading stops (the core's
`split::SKIP_LIMIT`, said as `4G` in the message)."""

STOPPED = (
    f"(the last line read: no newline in its first {SKIP_LIMIT // GIGABYTE}G,"
    " the reading stopped there)"
)
LAST = "(the last line, without its newline)"
ZEROS_ERROR = "expected value at column 1"
"""serde_json's error on a line that begins with a NUL byte (see the module)."""
NOT_JSON = "the line is not JSON"
"""What a person reads after a syntax error's words (in a note of its own, or in the note of
where the line is)."""
LAST_SAID = f"(the last line, without its newline; {NOT_JSON})"
STOPPED_SAID = f"{STOPPED[:-1]}; {NOT_JSON})"

PREFIX = "overbrainer-contract: error: "


def cli(
    *args: str, cwd: Path, memory: int = MEMORY, stdin: bytes | IO[bytes] | None = None
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
        f"f:1 $: expected value at column 1 {LAST_SAID}",
        "f: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error,"
        " 0 warnings (1 invalid line)",
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
    """A gigabyte of zero bytes, no newline: the reference's error on that line, found from
    its start (the rest skipped unheld, under a cap a gigabyte would break); the last line
    without its newline and not cut short (`syntax`, not `eof`): an error, the checker's
    words for it. With the user's bound, the length error as ever."""
    sparse(tmp_path / "junk.jsonl")
    result = cli("check", "junk.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        f"junk.jsonl:1 $: {ZEROS_ERROR} {LAST_SAID}",
        "junk.jsonl: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error,"
        " 0 warnings (1 invalid line)",
    ]
    bounded = cli("check", "junk.jsonl", "--max-line", "1M", cwd=tmp_path)
    assert bounded.returncode == 1, bounded.stderr
    assert bounded.stdout.splitlines() == [
        "junk.jsonl:1 $: a line of 1,073,741,824 bytes, without its newline: over the"
        " 1,048,576 bytes a line is read to (--max-line 1M; a larger --max-line reads it)",
        "junk.jsonl: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error,"
        " 0 warnings (1 invalid line)",
    ]
    status = cli("status", "junk.jsonl", cwd=tmp_path)
    assert status.returncode == 1, status.stderr
    assert status.stderr == (
        "overbrainer-contract: junk.jsonl: 1 line: 1 invalid line"
        " ('overbrainer-contract check junk.jsonl' says which)\n"
    )
    plot = cli("plot", "junk.jsonl", "-o", "junk.png", cwd=tmp_path, memory=4 * MEMORY)
    assert "warning: junk.jsonl: 1 invalid line (skipped)" in plot.stderr


def test_the_reading_stops_after_4g_without_a_newline(tmp_path: Path) -> None:
    """Five sparse gigabytes of zeros, then a newline and a valid line: the first line is
    skipped for 4 GiB, then the reading stops there (the rest is never reached): one
    line, the reference's error on it, in the checker's words for a reading stopped (the
    file takes no disk; 4 GiB of holes read in 8 s here)."""
    begin = f'{{"event":"begin","time":{T},"max_steps":4}}\n'.encode()
    sparse(tmp_path / "junk.jsonl", size=5 * GIGABYTE, tail=b"\n" + begin)
    result = cli("check", "junk.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        f"junk.jsonl:1 $: {ZEROS_ERROR} {STOPPED_SAID}",
        "junk.jsonl: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error,"
        " 0 warnings (1 invalid line)",
    ]


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


def test_a_valid_40_mb_line_is_valid_by_default_and_a_length_error_with_max_line_1m(
    tmp_path: Path,
) -> None:
    """No bound by default: the line is read as the reference reads it, and the run is
    valid, under the usual cap (the line held once, its buffer 64 MiB: 107 MiB measured).
    With `--max-line 1M` the bound names itself and its option, as it always did."""
    _, size = huge_run(tmp_path)
    result = cli("check", "huge.jsonl", cwd=tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert result.stdout.splitlines() == [
        "huge.jsonl: valid: 11 lines (begin 1, log 5, eval 2, stage 2, end 1), 0 errors, 0 warnings"
    ]
    as_json = cli("check", "huge.jsonl", "-o", "json", cwd=tmp_path)
    assert [json.loads(line)["type"] for line in as_json.stdout.splitlines()] == ["file"]
    result = cli("check", "huge.jsonl", "--max-line", "1M", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        f"huge.jsonl:3 $: a line of {size:,} bytes: over the 1,048,576 bytes a line is read"
        " to (--max-line 1M; a larger --max-line reads it)",
        "huge.jsonl: invalid: 11 lines (begin 1, log 4, eval 2, stage 2, end 1), 1 error,"
        " 0 warnings (1 invalid line)",
    ]
    findings = [
        json.loads(line)
        for line in cli(
            "check", "huge.jsonl", "-o", "json", "--max-line", "1M", cwd=tmp_path
        ).stdout.splitlines()
    ]
    assert [(f.get("line"), f.get("category")) for f in findings[:-1]] == [(3, "length")]
    # status reads through the same reader, with the same option
    status = cli("status", "huge.jsonl", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    status = cli("status", "huge.jsonl", "--max-line", "1M", cwd=tmp_path)
    assert status.returncode == 1
    assert "huge.jsonl: 11 lines: 1 invalid line" in status.stderr


BIG_MEMORY = 512 * 2**20 + MEMORY
"""The cap of the 400 MB line: the buffer the line is held in (it doubles as the line
comes: 512 MiB for 400 MB) and the usual cap; 607 MiB measured. A second copy of the line
(381 MiB more, a join of its pieces, the parse holding its text) would break it."""

BIG_LINE = 400_000_000
BIG_END = f'{{"event":"end","time":{T + 1},"step":4}}\n'.encode()


def _write_big(path: Path, field: bytes, item: bytes, close: bytes) -> int:
    """A run of two lines, a begin holding an unknown field `field` of about 400 MB (`item`
    repeated, then `close`), and an end; the first line's size, its newline included."""
    head = f'{{"event":"begin","time":{T},"max_steps":4,'.encode() + field
    count = -(-(BIG_LINE - len(head)) // len(item))  # enough items for BIG_LINE bytes
    piece = item * (2**20 // len(item))
    with path.open("wb") as handle:
        handle.write(head)
        whole, rest = divmod(count, 2**20 // len(item))
        for _ in range(whole):
            handle.write(piece)
        handle.write(item * rest + close + b"}\n")
        handle.write(BIG_END)
    return len(head) + count * len(item) + len(close) + 2


@pytest.fixture(scope="module")
def big_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """Two files of a 400 MB valid first line, written once: an unknown field holding an
    array of 50M numbers, or a string of 400M letters (serde_json ignores an unknown field
    whatever it holds, so each line is valid)."""
    folder = tmp_path_factory.mktemp("big")
    sizes = {
        "array.jsonl": _write_big(folder / "array.jsonl", b'"samples":[', b"12345.5,", b"0.5]"),
        "string.jsonl": _write_big(folder / "string.jsonl", b'"note":"', b"abcdefgh", b'"'),
    }
    return folder, sizes


@pytest.mark.parametrize("name", ["array.jsonl", "string.jsonl"])
def test_a_valid_400_mb_line_is_read_once_under_a_cap_a_second_copy_breaks(
    big_runs: tuple[Path, dict[str, int]], name: str
) -> None:
    """A valid line of 400 MB is read as the reference reads it, held once: the run is
    valid under `BIG_MEMORY`, which holds the line once but not twice."""
    folder, sizes = big_runs
    size = sizes[name]
    assert size >= BIG_LINE
    assert (folder / name).stat().st_size == size + len(BIG_END)
    # the cap holds one copy of the line, not two
    assert not the_cap_kills(size, BIG_MEMORY, folder, TIMEOUT)
    assert the_cap_kills(2 * size, BIG_MEMORY, folder, TIMEOUT)
    result = cli("check", name, cwd=folder, memory=BIG_MEMORY)
    assert result.returncode == 0, (result.stdout, result.stderr[-2000:])
    assert result.stdout.splitlines() == [
        f"{name}: valid: 2 lines (begin 1, log 0, eval 0, stage 0, end 1), 0 errors, 0 warnings"
    ]


@contextlib.contextmanager
def piped(command: list[str]) -> Iterator[IO[bytes]]:
    """The output of `command` (started here) as a pipe's end for a child's standard
    input; once done with, this end is closed (the writer gets SIGPIPE at its next write)
    and the writer ended and waited for."""
    with (
        open(os.devnull, "rb") as nothing,
        subprocess.Popen(command, stdin=nothing, stdout=subprocess.PIPE) as writer,
    ):
        assert writer.stdout is not None
        try:
            yield writer.stdout
        finally:
            writer.stdout.close()
            writer.kill()


@pytest.mark.parametrize("max_line", [None, "64M"])
def test_zeros_from_a_pipe_end_within_the_cap(tmp_path: Path, max_line: str | None) -> None:
    """Two gigabytes of zero bytes from `/dev/zero` through a pipe, no newline: one error,
    in memory bounded whatever the line's length (the usual cap, and with `--max-line 64M`
    80 MiB more, room for a line held to the bound but not for the line held whole, or a
    join of it). By default the reference's error on the line (see the module), the last
    line without its newline; what `--max-line 64M` says is held to the line-by-line
    oracle in `test_junk_over_a_bound_of_a_mebibyte_or_more_is_a_length_error`."""
    option = [] if max_line is None else ["--max-line", max_line]
    memory = MEMORY if max_line is None else MEMORY + 80 * 2**20
    with piped(["head", "-c", str(2 * GIGABYTE), "/dev/zero"]) as zeros:
        result = cli("check", "-", *option, cwd=tmp_path, memory=memory, stdin=zeros)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1:] == [
        "-: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error,"
        " 0 warnings (1 invalid line)",
    ]
    if max_line is None:
        assert lines[0] == f"-:1 $: {ZEROS_ERROR} {LAST_SAID}"
    else:
        assert lines[0].startswith("-:1 $: ")


def _oracle_text(data: bytes, name: str, max_line: int | None = None) -> str:
    """What `check NAME` prints in text for a file of `data`, read whole, in one chunk
    (the command reads a pipe in pieces of 64 KiB at most)."""
    out = io.StringIO()
    reporter = TextReporter(out, colour=False, limit=20)
    reporter.result(check_stream([data], name, reporter.finding, max_line))
    return out.getvalue()


def test_junk_over_a_bound_of_a_mebibyte_or_more_is_a_length_error(tmp_path: Path) -> None:
    """A line of 3 MiB of zeros and its newline with `--max-line 2M`, through a pipe (its
    reads of 64 KiB at most): the line-by-line oracle (the user's bound first, as the
    checker always did) says `length`, as a file read in 4 MiB chunks does."""
    begin = f'{{"event":"begin","time":{T},"max_steps":4}}\n'.encode()
    data = b"\0" * (3 * 2**20) + b"\n" + begin
    (tmp_path / "junk.jsonl").write_bytes(data)
    expected = _oracle_text(data, "-", 2 * 2**20)
    assert expected.startswith("-:1 $: a line of 3,145,729 bytes: over the 2,097,152 bytes")
    from_file = cli("check", "junk.jsonl", "--max-line", "2M", cwd=tmp_path)
    assert from_file.stdout == _oracle_text(data, "junk.jsonl", 2 * 2**20)
    with piped(["cat", str(tmp_path / "junk.jsonl")]) as pipe:
        result = cli("check", "-", "--max-line", "2M", cwd=tmp_path, stdin=pipe)
    assert result.returncode == 1, result.stderr
    assert result.stdout == expected


ENDLESS_TIMEOUT = 300.0
"""Seconds for the endless stream: 4 GiB through a pipe, 7 s here (2 cores)."""


def test_an_endless_stream_of_zeros_ends_after_4g(tmp_path: Path) -> None:
    """`cat /dev/zero | check -`: no newline ever comes. The line is decided from its start
    (the reference's error on it) and skipped, in flat memory, until the skip limit, where
    the reading stops and the command ends on its own: one error, exit 1."""
    with piped(["cat", "/dev/zero"]) as zeros:
        result = capped_cli(
            "check",
            "-",
            cwd=tmp_path,
            memory=MEMORY,
            timeout=ENDLESS_TIMEOUT,
            env=python_env(),
            stdin=zeros,
        )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        f"-:1 $: {ZEROS_ERROR} {STOPPED_SAID}",
        "-: invalid: 1 line (begin 0, log 0, eval 0, stage 0, end 0), 1 error,"
        " 0 warnings (1 invalid line)",
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_eight_mb_of_random_bytes_without_a_newline(tmp_path: Path, seed: int) -> None:
    """8 MiB of random bytes, no newline (a FIFO of noise, a binary file): one line, the
    reference's error on it as the oracle gives it (`parse_line` of the whole line), its
    start deciding it and the rest skipped unheld; from a file and through a pipe."""
    data = random.Random(seed).randbytes(8 * 2**20).replace(b"\n", b"")
    (tmp_path / "noise").write_bytes(data)
    expected = _oracle_text(data, "noise")
    assert expected.endswith(", 1 error, 0 warnings (1 invalid line)\n")  # not cut short
    result = cli("check", "noise", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, expected), result.stderr
    with piped(["cat", str(tmp_path / "noise")]) as pipe:
        result = cli("check", "-", cwd=tmp_path, stdin=pipe)
    assert (result.returncode, result.stdout) == (1, _oracle_text(data, "-")), result.stderr


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


def test_findings_past_the_limit_are_counted_for_each_severity(tmp_path: Path) -> None:
    """Errors and warnings each shown up to --max-errors; the rest of each counted in the
    line after them and in the summary, though the checker never hands them over."""
    log = '{"event":"log","time":1.0,"step":1}'  # before any begin: a warning each
    (tmp_path / "f").write_text("\n".join([log, "x", log, "x", log, "x", log, "x", log]) + "\n")
    result = cli("check", "f", "--max-errors", "2", cwd=tmp_path)
    assert result.returncode == 1
    *findings, hidden, summary = result.stdout.splitlines()
    assert [line.split(" ")[0] for line in findings] == ["f:1", "f:2", "f:3", "f:4"]
    assert hidden == "f: 2 more errors and 3 more warnings not shown (--max-errors 2)"
    assert ", 4 errors, 5 warnings" in summary


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
    (run / "snapshot.request").symlink_to("/dev/zero")  # a side file is never followed
    result = cli(command, "run", cwd=run.parent)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}run/snapshot.request: a symlink, not read\n"


@pytest.mark.parametrize(
    ("name", "bound"), [("snapshot.request", REQUEST_LIMIT), ("snapshot.json", PROOF_LIMIT)]
)
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
    (run / "snapshot.json").symlink_to("snapshot.json")  # a side file: not followed
    result = cli(command, "run", cwd=run.parent)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}run/snapshot.json: a symlink, not read\n"
    loop = "a symlink loop (too many levels of symbolic links)"
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
        f"overbrainer-contract: file: {lines} line{'s' if lines > 1 else ''}: {count} invalid"
        f" line{'s' if count > 1 else ''} ('overbrainer-contract check file' says which)\n"
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
        f"{PREFIX}the run ended ({how}, after the request) without a new snapshot.json in run;"
        " snapshot.request removed"
    )
    assert result.stdout == ""
    assert not (run / "snapshot.request").exists()  # a resumed run would stop at once


def test_snapshot_wait_on_a_run_that_had_ended(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", VALID)  # ended, and the job moved on to merge
    result = cli("snapshot", "run", "--wait", "600", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{PREFIX}run: the run has ended (the merge stage began): no snapshot will come;"
        " no snapshot.request written"
    ]
    assert not (run / "snapshot.request").exists()


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
    """A gigabyte line of zeros, then a job's lines to its last stage: the long line one
    error, the reference's on it (decided from its start, the rest skipped unheld, under a
    cap a gigabyte would break), in watch's words for a rejected line (`PATH:LINE
    $.field: message`, a complete line: nothing said of a last line); the rest followed
    to the end."""
    lines = VALID + '{"event":"stage","name":"compare","time":1764467490}\n'
    sparse(tmp_path / "metrics.jsonl", tail=b"\n" + lines.encode())
    result = cli("watch", "metrics.jsonl", "--plain", "--interval", "0.05", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # the long line is invalid
    out = result.stdout.splitlines()
    assert out[0] == f"metrics.jsonl:1 $: {ZEROS_ERROR} ({NOT_JSON})"
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
