"""Files people have: gzip-compressed metrics (`.gz` read everywhere, gzip under another
name said as such), a UTF-8 byte order mark named, a reader of standard output that
leaves (`| head`) — through the console script, in a child process."""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from schema_registry import validator
from sweep import GZIPPED, Sweep

SCRIPT = str(Path(sys.executable).with_name("overbrainer-contract"))
PREFIX = "overbrainer-contract: "
REPORT = validator("check-report")
LINES = b'{"event":"begin","time":1000.0,"max_steps":40}\n' + b"".join(
    b'{"event":"log","time":%d.0,"step":%d,"epoch":null,"max_steps":40,"loss":2.5,'
    b'"eval_loss":null,"learning_rate":null,"grad_norm":null}\n' % (1000 + step, step)
    for step in range(1, 31)
)
GZIP_SAID = (
    "gzip-compressed data, not JSON lines (it begins with gzip's magic bytes 1f 8b): name it"
    " .jsonl.gz, or gunzip it"
)


def cli(*argv: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [SCRIPT, *argv], cwd=cwd, capture_output=True, env=env, timeout=120, input=stdin
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def test_a_gz_metrics_file_is_read_by_check_status_and_export(tmp_path: Path) -> None:
    (tmp_path / "run.jsonl.gz").write_bytes(gzip.compress(LINES))
    check = cli("check", "run.jsonl.gz", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert check.stdout == (
        "run.jsonl.gz: valid: 31 lines (begin 1, log 30, eval 0, stage 0, end 0),"
        " 0 errors, 0 warnings\n"
    )
    status = cli("status", "run.jsonl.gz", "-o", "json", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["step"] == 30
    export = cli("export", "run.jsonl.gz", "-o", "t.csv", cwd=tmp_path)
    assert export.returncode == 0, export.stderr
    with (tmp_path / "t.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [row["step"] for row in rows] == ["", *(str(step) for step in range(1, 31))]
    assert {row["run"] for row in rows} == {"run.jsonl.gz"}


def test_a_run_folder_with_metrics_jsonl_gz_is_a_run(sweep: Sweep) -> None:
    run = sweep.runs[GZIPPED]
    check = cli("check", GZIPPED, cwd=sweep.root)
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith(f"{GZIPPED}/metrics.jsonl.gz: valid: ")
    status = cli("status", GZIPPED, "-o", "json", cwd=sweep.root)
    assert status.returncode == 0, status.stderr
    document = json.loads(status.stdout)
    assert (document["step"], document["ended"]) == (run.step, True)


def test_gzip_data_named_jsonl_is_said_to_be_gzip(tmp_path: Path) -> None:
    (tmp_path / "metrics.jsonl").write_bytes(gzip.compress(LINES * 20))
    check = cli("check", "metrics.jsonl", cwd=tmp_path)
    assert check.returncode == 1
    assert check.stdout.splitlines() == [
        f"metrics.jsonl $: {GZIP_SAID}",
        "metrics.jsonl: invalid: 0 lines (begin 0, log 0, eval 0, stage 0, end 0),"
        " 1 error, 0 warnings",
    ]
    status = cli("status", "metrics.jsonl", cwd=tmp_path)
    assert status.returncode == 1  # as check
    assert status.stderr == f"{PREFIX}error: metrics.jsonl: {GZIP_SAID}\n"
    report = cli("check", "metrics.jsonl", "-o", "json", cwd=tmp_path)
    finding, summary = (json.loads(line) for line in report.stdout.splitlines())
    REPORT.validate(finding)
    REPORT.validate(summary)
    assert (finding["line"], finding["path"], finding["message"]) == (None, "$", GZIP_SAID)
    assert (summary["lines"], summary["errors"], summary["valid"]) == (0, 1, False)
    piped = cli("check", "-", cwd=tmp_path, stdin=gzip.compress(LINES))
    assert piped.returncode == 1
    assert "gzip-compressed data, not JSON lines" in piped.stdout
    assert "gunzip it first (zcat FILE | ...)" in piped.stdout


def test_a_cut_gz_file_is_said_to_be_cut(tmp_path: Path) -> None:
    whole = gzip.compress(LINES)
    cut = whole[: len(whole) // 2]
    (tmp_path / "cut.jsonl.gz").write_bytes(cut)
    held = zlib.decompressobj(wbits=31).decompress(cut)  # the bytes before the cut
    read = held.count(b"\n") + (not held.endswith(b"\n"))
    result = cli("check", "cut.jsonl.gz", cwd=tmp_path)
    assert result.returncode == 1  # the lines before the cut checked, the cut one error
    assert result.stderr == ""
    where = f"cut.jsonl.gz:{read}" if not held.endswith(b"\n") else "cut.jsonl.gz"
    assert f"{where} $: gzip data cut short after {len(held):,} bytes" in result.stdout
    assert f"cut.jsonl.gz: invalid: {read} lines" in result.stdout
    (tmp_path / "plain.jsonl.gz").write_bytes(LINES)
    plain = cli("check", "plain.jsonl.gz", cwd=tmp_path)
    assert plain.returncode == 2
    assert "plain.jsonl.gz: not gzip-compressed, although named .gz" in plain.stderr


def test_status_reads_a_cut_gz_up_to_the_cut_and_says_the_cut_once(tmp_path: Path) -> None:
    # A writer still at work: LINES and half a line flushed through gzip (a sync flush),
    # the stream never closed (no end-of-stream marker, no trailer).
    raw = (tmp_path / "cut.jsonl.gz").open("wb")
    stream = gzip.GzipFile(fileobj=raw, mode="wb")
    stream.write(LINES + b'{"event":"log","ti')
    stream.flush()
    raw.close()
    said = (
        f"gzip data cut short after {len(LINES) + 18:,} bytes (the stream ends before its"
        " end: a file still being written, or cut)"
    )
    status = cli("status", "cut.jsonl.gz", cwd=tmp_path)
    assert status.returncode == 1, status.stderr  # as check: the lines read, the cut an error
    assert "lines       32 (the last line cut short)" in status.stdout
    assert "step        30 / 40 (75%)" in status.stdout
    [line] = status.stderr.splitlines()
    assert line.startswith(f"{PREFIX}cut.jsonl.gz: {said}")
    report = json.loads(cli("status", "cut.jsonl.gz", "-o", "json", cwd=tmp_path).stdout)
    assert (report["lines"], report["step"], report["valid"]) == (32, 30, False)


def test_a_byte_order_mark_is_named(tmp_path: Path) -> None:
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + LINES)
    check = cli("check", "bom.jsonl", cwd=tmp_path)
    assert check.returncode == 1
    assert check.stdout.splitlines()[0] == (
        "bom.jsonl:1 $: expected value at column 1 (the line begins with a UTF-8 byte order"
        " mark, bytes EF BB BF, which a JSON line may not hold: save the file without it)"
    )
    status = cli("status", "bom.jsonl", cwd=tmp_path)
    assert status.returncode == 1
    assert "the first line begins with a UTF-8 byte order mark" in status.stderr


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_reader_that_leaves_ends_the_command_quietly(tmp_path: Path, output: str) -> None:
    (tmp_path / "bad.jsonl").write_bytes(b"".join(b"bad %d\n" % n for n in range(200_000)))
    command = f"'{SCRIPT}' check bad.jsonl --max-errors 0 -o {output} | head -1"
    result = subprocess.run(
        ["bash", "-c", f'{command}; echo "${{PIPESTATUS[0]}}" >&2'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert len(result.stdout.splitlines()) == 1
    assert result.stderr == "141\n"  # 128 + SIGPIPE, as grep; no message
