"""`check` reads a line as every command and the reference read it: the bytes before its
newline. A line cut short in the middle of a file is `eof`, as at the file's end; a blank
line is the reference's `""`, `eof` at column 0 (before its first byte), a column the
check report's schema allows. The console script runs in a child under a timeout and a
memory cap, on a real run folder written here.

Each expectation is the reference runner's answer to the line's bytes before its newline
(`conformance/rust`, `overbrainer-reference-runner lines`: serde_json's message, its
position dropped as `check` writes it, and its column), not `check`'s own output.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

from hostile import capped_cli
from schema_registry import validator

REPORT = validator("check-report")
MEMORY = 1 << 30

LINES = [
    b'{"event":"begin","time":1.0,"max_steps":4}',
    b'{"event":"log","time":2.0,"step":1,"no',  # cut in a string, mid-file
    b"",  # blank
    b'{"event":"log","time":2.5,"step":',  # cut before a value, mid-file
    b"   ",  # white space only
    b'{"event":"log","time":3.0,"step":2}\r',  # CRLF: a metrics line
    b"\r",  # a blank CRLF line: the carriage return is its one byte
    b'{"event":"end","time":4.0,"step":2}',
]

# (line, category, message without its position, column, path): the reference's answers
REFUSED = [
    (2, "eof", "EOF while parsing a string", 38, "$"),
    (3, "eof", "EOF while parsing a value", 0, "$"),
    (4, "eof", "EOF while parsing a value", 33, "$.step"),
    (5, "eof", "EOF while parsing a value", 3, "$"),
    (7, "eof", "EOF while parsing a value", 1, "$"),
]


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "cut-mid-file"
    run.mkdir()
    (run / "metrics.jsonl").write_bytes(b"".join(line + b"\n" for line in LINES))
    return run


def test_check_json_reads_a_line_without_its_newline(tmp_path: Path) -> None:
    """`check -o json`: each refused line has the reference's category, message and column
    for its bytes before the newline; every record holds to the schema (column 0 too)."""
    run = _run(tmp_path)
    done = capped_cli(
        "check", "-o", "json", "cut-mid-file", cwd=tmp_path, memory=MEMORY, timeout=60
    )
    assert done.returncode == 1, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    for record in records:
        REPORT.validate(record)
    findings = [r for r in records if r["type"] == "finding"]
    got = [
        (f["line"], f["category"], f["message"], f["column"], f["path"], f["severity"])
        for f in findings
    ]
    want = [
        (line, category, f"{message} at column {column}", column, path, "error")
        for line, category, message, column, path in REFUSED
    ]
    assert got == want
    (summary,) = (r for r in records if r["type"] == "file")
    assert (summary["lines"], summary["errors"], summary["warnings"]) == (len(LINES), 5, 0)
    assert run.joinpath("metrics.jsonl").is_file()


def test_check_text_says_eof_where_export_does(tmp_path: Path) -> None:
    """`check` in text says each refused line as the reference reads it, and its
    categories are the ones `export` counts of the same file: one reading of a line."""
    _run(tmp_path)
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    done = capped_cli("check", "cut-mid-file", cwd=tmp_path, memory=MEMORY, timeout=60, env=env)
    assert done.returncode == 1, done.stderr
    said = [line for line in done.stdout.splitlines() if re.match(r"^cut-mid-file\S*:\d+ ", line)]
    assert said == [
        f"cut-mid-file/metrics.jsonl:{line} {path}: {message} at column {column}"
        for line, _, message, column, path in REFUSED
    ]
    out = tmp_path / "rows.csv"
    exported = capped_cli(
        "export", "cut-mid-file", "-o", str(out), cwd=tmp_path, memory=MEMORY, timeout=60, env=env
    )
    counted = re.search(r"rejected by the reference \(([^)]*)\)", exported.stderr)
    assert counted is not None, exported.stderr
    by_export = Counter(
        {word: int(count) for word, count in (part.split() for part in counted[1].split(", "))}
    )
    assert by_export == Counter(category for _, category, _, _, _ in REFUSED)
